//! Stopping language-server work nobody wants any more: a front end marks the start of a job
//! (one preview), and cancelling that job makes its requests send `$/cancelRequest` and return
//! at once; a pool that shuts down stops every request and every wait. Only flags: knows nothing
//! of servers or refactors.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// One job of requests, as [`Interrupts::begin`] numbered it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct JobId(u64);

/// The pool's jobs and whether the current one was cancelled. Jobs run one at a time: the
/// latest begun is the current one (the TUI computes previews on one thread).
#[derive(Debug, Default)]
pub struct Interrupts {
    current: AtomicU64,
    cancelled: AtomicU64,
    closing: AtomicBool,
}

impl Interrupts {
    /// Starts a job: the requests made from now on belong to it.
    pub fn begin(&self) -> JobId {
        JobId(self.current.fetch_add(1, Ordering::SeqCst) + 1)
    }

    /// Cancels `job`: its requests stop, now or as soon as they are made. A later job is not
    /// affected.
    pub fn cancel(&self, job: JobId) {
        self.cancelled.fetch_max(job.0, Ordering::SeqCst);
    }

    /// The pool shuts down: every request and wait stops.
    pub fn close(&self) {
        self.closing.store(true, Ordering::SeqCst);
    }

    pub fn closing(&self) -> bool {
        self.closing.load(Ordering::SeqCst)
    }

    /// Whether the requests being made now should stop. Requests made outside any job (the
    /// command line, MCP) stop only when the pool closes.
    pub fn stop_requested(&self) -> bool {
        if self.closing() {
            return true;
        }
        let current = self.current.load(Ordering::SeqCst);
        current != 0 && self.cancelled.load(Ordering::SeqCst) >= current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cancelling_a_job_stops_it_and_not_the_next() {
        let interrupts = Interrupts::default();
        assert!(!interrupts.stop_requested(), "no job: nothing stops");
        let first = interrupts.begin();
        assert!(!interrupts.stop_requested());
        interrupts.cancel(first);
        assert!(interrupts.stop_requested());
        let second = interrupts.begin();
        assert!(!interrupts.stop_requested(), "a new job runs");
        // A late cancel of the old job does not reach the new one.
        interrupts.cancel(first);
        assert!(!interrupts.stop_requested());
        interrupts.cancel(second);
        assert!(interrupts.stop_requested());
        let _third = interrupts.begin();
        interrupts.close();
        assert!(interrupts.stop_requested() && interrupts.closing());
    }
}
