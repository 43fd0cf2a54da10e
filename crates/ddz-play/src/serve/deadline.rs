//! The write deadline of a connection: a client that takes no byte of its answers for
//! [`WRITE_TIME`] has its connection closed.
//!
//! Reading is bounded elsewhere (a request's headers, and the wait for the next one, by the
//! HTTP layer's header deadline; a request's body by the request deadline). Writing is not: a
//! client that pipelines requests and never reads its answers fills the kernel's buffers, and
//! then every write waits forever, holding a descriptor and a megabyte or two of buffer. Here a
//! write (or flush) that makes no progress for [`WRITE_TIME`] fails, which ends the connection.

use std::future::Future as _;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// How long a write may wait for the client to take bytes before its connection is closed.
pub const WRITE_TIME: Duration = Duration::from_secs(10);

/// A stream whose writes fail after [`WRITE_TIME`] without progress.
pub struct WriteDeadline<S> {
    stream: S,
    /// Armed when a write first waits; disarmed when one goes through.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl<S> WriteDeadline<S> {
    pub fn new(stream: S) -> WriteDeadline<S> {
        WriteDeadline { stream, stalled: None }
    }

    /// `poll` as it is, except that a wait past the deadline becomes a `TimedOut` error.
    fn bounded<T>(&mut self, cx: &mut Context<'_>, poll: Poll<io::Result<T>>) -> Poll<io::Result<T>> {
        if poll.is_ready() {
            self.stalled = None;
            return poll;
        }
        let timer = self.stalled.get_or_insert_with(|| Box::pin(tokio::time::sleep(WRITE_TIME)));
        match timer.as_mut().poll(cx) {
            Poll::Ready(()) => {
                let reason = format!("the client took no byte of its answer for {} s", WRITE_TIME.as_secs());
                Poll::Ready(Err(io::Error::new(io::ErrorKind::TimedOut, reason)))
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

impl<S: AsyncRead + Unpin> AsyncRead for WriteDeadline<S> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for WriteDeadline<S> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.bounded(cx, poll)
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.bounded(cx, poll)
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_flush(cx);
        this.bounded(cx, poll)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let poll = Pin::new(&mut this.stream).poll_shutdown(cx);
        this.bounded(cx, poll)
    }
}
