//! Process-wide settings of every long-running command: stopping cleanly on a signal, and
//! the allocator's thresholds.

use std::sync::atomic::{AtomicBool, Ordering};

/// Keeps freed memory in the process for the next allocation instead of handing it back to the
/// kernel. glibc serves every allocation above its mmap threshold (128 KiB at first) with fresh
/// pages and unmaps them when they are freed; the learner allocates and frees batch-sized
/// tensors (256 × 1,339 floats, 1.4 MB) at every step, and a profile of `ddz train` found about
/// a sixth of the learner thread's time in page faults and unmapping. With the threshold at
/// 256 MiB and the heap trimmed only past 1 GiB free, those pages are reused (`ddz bench
/// train`: +16–20 % frames/s). Called once at start-up by the binary; a no-op off glibc.
pub fn keep_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes two of glibc's allocator thresholds; it is called at
    // start-up, before any other thread exists.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 256 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 1 << 30);
    }
}

static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Makes Ctrl-C, SIGTERM (`kill`, `timeout`, a container stop, a scheduler) and SIGHUP ask a
/// long job to stop cleanly: the job polls [`interrupted`] and stops at its next safe point
/// (`then` says what it does, e.g. "after a checkpoint"). A second signal quits at once.
pub fn stop_cleanly_on_signals(then: &'static str) {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = ctrlc::set_handler(move || {
            if INTERRUPTED.swap(true, Ordering::SeqCst) {
                std::process::exit(130); // a second signal: stop now
            }
            eprintln!("\nstopping {then} (Ctrl-C again to quit at once)");
        });
    });
}

/// Whether a stop was asked for since the handler was installed.
pub fn interrupted() -> bool {
    INTERRUPTED.load(Ordering::SeqCst)
}
