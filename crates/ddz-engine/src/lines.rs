//! Lines of input, decoded one at a time: what the stream servers (`ddz bot`, `ddz moves`) read
//! and what the line formats (game logs, deal files) are made of. Bytes that are not UTF-8
//! make one bad line with its number, never the end of the stream or of the file.

use std::io::BufRead;

/// Why a line is not text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    /// The line's bytes are not UTF-8.
    #[error("not UTF-8 text (invalid byte at column {column})")]
    NotUtf8 {
        /// Where the first invalid byte is, in bytes from 1.
        column: usize,
    },
    /// A line longer than the protocol allows: answered with this error and skipped, never
    /// held whole.
    #[error("protocol.line_bytes = {bytes}: a request line holds at most {most} bytes")]
    TooLong {
        /// The line's length in bytes.
        bytes: usize,
        /// The limit (the limits table's `protocol.line_bytes`).
        most: usize,
    },
}

/// Why a line sent to a line server (`ddz bot`, `ddz moves`, `ddz solve`) is not a request it
/// can read: the one error of the three protocols.
#[derive(Debug, thiserror::Error)]
pub enum RequestError {
    /// Not JSON, or JSON that is not a request of the protocol.
    #[error("bad request: {0}")]
    Json(#[from] serde_json::Error),
    /// A request the protocol does not allow (a part missing, more cards than the deck has).
    #[error("bad request: {0}")]
    Malformed(String),
    /// A field that does not parse: its name and why.
    #[error("{field}: {reason}")]
    Field {
        /// The field's name in the request.
        field: String,
        /// Why its value does not parse.
        reason: String,
    },
}

impl RequestError {
    /// The error of field `field`, for `reason`.
    pub fn field(field: impl Into<String>, reason: impl std::fmt::Display) -> RequestError {
        RequestError::Field { field: field.into(), reason: reason.to_string() }
    }
}

/// One line: its number (from 1) and its text, without the line ending.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The line's number, from 1.
    pub number: usize,
    /// The line's text without its ending (`\n` or `\r\n`), or why it is not text.
    pub text: Result<String, LineError>,
}

fn decode(number: usize, mut bytes: Vec<u8>) -> Line {
    if bytes.last() == Some(&b'\r') {
        bytes.pop();
    }
    let text = String::from_utf8(bytes).map_err(|e| LineError::NotUtf8 { column: e.utf8_error().valid_up_to() + 1 });
    Line { number, text }
}

/// The lines of a stream as they arrive; an error only where reading itself fails. A line of
/// more than `most` bytes is [`LineError::TooLong`]: its bytes past `most` are read and
/// dropped, so that no line is held whole whatever its length.
pub fn read_lines(mut input: impl BufRead, most: usize) -> impl Iterator<Item = std::io::Result<Line>> {
    let mut number = 0;
    std::iter::from_fn(move || {
        let mut bytes = Vec::new();
        let mut length = 0;
        loop {
            let buf = match input.fill_buf() {
                Ok(buf) => buf,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Some(Err(e)),
            };
            if buf.is_empty() {
                if length == 0 && bytes.is_empty() {
                    return None; // the end, after the last line's newline (or of no input)
                }
                break;
            }
            let end = buf.iter().position(|&b| b == b'\n');
            let part = &buf[..end.unwrap_or(buf.len())];
            bytes.extend_from_slice(&part[..part.len().min((most + 1).saturating_sub(bytes.len()))]);
            length += part.len();
            let used = end.map_or(buf.len(), |i| i + 1);
            input.consume(used);
            if end.is_some() {
                break;
            }
        }
        number += 1;
        Some(Ok(match length > most {
            true => Line { number, text: Err(LineError::TooLong { bytes: length, most }) },
            false => decode(number, bytes),
        }))
    })
}

/// The lines of a file's bytes.
pub fn split_lines(bytes: &[u8]) -> impl Iterator<Item = Line> + '_ {
    let body = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    let lines = if bytes.is_empty() { None } else { Some(body.split(|&b| b == b'\n')) };
    lines.into_iter().flatten().enumerate().map(|(i, b)| decode(i + 1, b.to_vec()))
}

/// Serves JSON lines until end of input: one reply line per input line, the answer of
/// `answer`, or `{"error":"line N: …"}` for a line that is empty, not text, longer than the
/// `most_bytes` (the protocol's `line_bytes`) or not answered (reasons cut to 300 characters), each followed by `after` when given and flushed. Returns
/// how many lines were errors.
pub fn serve_json_lines<E: std::fmt::Display>(
    input: impl BufRead,
    mut output: impl std::io::Write,
    after: Option<&str>,
    most_bytes: usize,
    mut answer: impl FnMut(&str) -> Result<serde_json::Value, E>,
) -> std::io::Result<usize> {
    let mut errors = 0;
    for line in read_lines(input, most_bytes) {
        let Line { number, text } = line?;
        let answered = match text {
            Ok(t) if t.trim().is_empty() => Err("empty request".to_string()),
            Ok(t) => answer(&t).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let reply = answered.unwrap_or_else(|e| {
            errors += 1;
            serde_json::json!({ "error": format!("line {number}: {}", brief(&e)) })
        });
        writeln!(output, "{reply}")?;
        if let Some(after) = after {
            writeln!(output, "{after}")?;
        }
        output.flush()?;
    }
    Ok(errors)
}

/// An error reply's text: at most 300 characters, so that a huge bad request is not echoed
/// back whole.
pub fn brief(reason: &str) -> String {
    const MOST: usize = 300;
    match reason.char_indices().nth(MOST) {
        None => reason.to_string(),
        Some((cut, _)) => format!("{}… ({} bytes in all)", &reason[..cut], reason.len()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_bytes_are_one_bad_line() {
        let input: &[u8] = b"one\r\n\xff\xfe two\nthree";
        let from_stream: Vec<Line> = read_lines(input, 100).map(|l| l.unwrap()).collect();
        let from_file: Vec<Line> = split_lines(input).collect();
        for lines in [from_stream, from_file] {
            assert_eq!(lines.len(), 3);
            assert_eq!(lines[0].text.as_deref(), Ok("one"));
            assert_eq!(lines[1].text, Err(LineError::NotUtf8 { column: 1 }));
            assert_eq!((lines[2].number, lines[2].text.as_deref()), (3, Ok("three")));
        }
        assert_eq!(split_lines(b"").count(), 0);
        assert_eq!(split_lines(b"a\n").count(), 1);
        let long = "x".repeat(1 << 20);
        assert!(brief(&long).len() < 400 && brief(&long).ends_with("(1048576 bytes in all)"));
        assert_eq!(brief("short"), "short");
    }

    #[test]
    fn a_line_past_the_protocols_length_is_one_error_and_the_next_is_read() {
        // Issue 64: a 2 GB line was read whole before anything looked at it.
        let texts = |input: &[u8], most: usize| -> Vec<Result<String, LineError>> {
            // A reader that hands out 7 bytes at a time: lines cross its buffer's edges.
            let reader = std::io::BufReader::with_capacity(7, input);
            read_lines(reader, most).map(|l| l.unwrap().text).collect()
        };
        let long = [b"x".repeat(50), b"\nok\n\n".to_vec(), b"y".repeat(21), b"\r\nlast".to_vec()].concat();
        assert_eq!(
            texts(&long, 20),
            vec![
                Err(LineError::TooLong { bytes: 50, most: 20 }),
                Ok("ok".into()),
                Ok(String::new()),
                Err(LineError::TooLong { bytes: 22, most: 20 }),
                Ok("last".into()),
            ]
        );
        assert_eq!(texts(&b"y".repeat(20), 20), vec![Ok("y".repeat(20))], "at the limit is read");
        assert_eq!(texts(b"", 20), Vec::<Result<String, LineError>>::new());
        assert_eq!(texts(b"a\n", 20).len(), 1);
        let mut out = Vec::new();
        let big = format!("{}\n{{}}\n", " ".repeat((1 << 20) + 1));
        let answer = |_: &str| Ok::<_, String>(serde_json::json!(1));
        let errors = serve_json_lines(big.as_bytes(), &mut out, None, 1 << 20, answer).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(errors, 1);
        assert!(text.starts_with(r#"{"error":"line 1: protocol.line_bytes = 1048577: a request"#), "{text}");
        assert!(text.ends_with("\n1\n"), "the next line is answered: {text}");
    }
}
