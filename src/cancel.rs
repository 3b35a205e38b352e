//! A cancellation token: the MCP server sets it when a client sends `notifications/cancelled`,
//! and long loops (the project-wide file walks, reading the files of a plan) check it between
//! steps and stop early. Pure and neutral: no IO, no dependency on the rest of the crate, so any
//! loop (the refactors' too) can take one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Shared by the one who may cancel and the work that checks. Cloning shares the same flag;
/// [`Cancel::never`] is a token nobody holds, for work that cannot be cancelled.
#[derive(Debug, Clone, Default)]
pub struct Cancel {
    flag: Arc<AtomicBool>,
}

/// The work was cancelled before it finished; nothing it would have written was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the request was cancelled before it finished; nothing was written")]
pub struct Cancelled;

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// A token that is never cancelled.
    pub fn never() -> Cancel {
        Cancel::default()
    }

    /// Asks the work to stop at its next check.
    pub fn cancel(&self) {
        self.flag.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.flag.load(Ordering::Relaxed)
    }

    /// `Err(Cancelled)` once cancelled: `cancel.check()?` between steps of a long loop.
    pub fn check(&self) -> Result<(), Cancelled> {
        if self.is_cancelled() {
            Err(Cancelled)
        } else {
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_the_flag() {
        let token = Cancel::new();
        let seen_by_work = token.clone();
        assert_eq!(seen_by_work.check(), Ok(()));
        token.cancel();
        assert!(seen_by_work.is_cancelled());
        assert_eq!(seen_by_work.check(), Err(Cancelled));
        assert!(!Cancel::never().is_cancelled());
    }
}
