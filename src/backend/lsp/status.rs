//! A language server's status as the TUI shows it ([`StatusCell`]): starting, loading the project
//! (rust-analyzer's quiescence and `$/progress`), ready or failed, updated by the reader thread
//! and read without ever waiting for a request; and the waits on it (ready, busy).

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use super::ServerStatus;

/// A server's status as the TUI shows it, updated by the reader thread.
#[derive(Debug, Default)]
pub struct StatusCell {
    inner: Mutex<StatusInner>,
    changed: Condvar,
}

#[derive(Debug, Default)]
pub(super) struct StatusInner {
    pub(super) phase: Phase,
    /// rust-analyzer's `quiescent`; `None` for servers that do not report it.
    pub(super) quiescent: Option<bool>,
    /// rust-analyzer's `health` and message when not "ok".
    pub(super) health: Option<(String, Option<String>)>,
    /// Active `$/progress` tokens: (token, title, message, percentage).
    pub(super) progress: Vec<(String, String, Option<String>, Option<u32>)>,
    /// How many `experimental/serverStatus` notifications came.
    pub(super) statuses: u64,
}

#[derive(Debug, Default, Clone, PartialEq)]
pub(super) enum Phase {
    #[default]
    NotStarted,
    Starting,
    Running,
    Failed(String),
}

impl StatusCell {
    pub fn snapshot(&self) -> ServerStatus {
        let Ok(inner) = self.inner.lock() else {
            return ServerStatus::Failed("the status lock was poisoned".to_string());
        };
        match &inner.phase {
            Phase::NotStarted => ServerStatus::NotStarted,
            Phase::Starting => ServerStatus::Starting,
            Phase::Failed(reason) => ServerStatus::Failed(reason.clone()),
            Phase::Running if inner.quiescent == Some(false) => {
                let current = inner.progress.last();
                ServerStatus::Indexing {
                    percent: current.and_then(|p| p.3),
                    message: current.map(|(_, title, message, _)| match message {
                        Some(m) => format!("{title}: {m}"),
                        None => title.clone(),
                    }),
                }
            }
            Phase::Running => ServerStatus::Ready,
        }
    }

    pub(super) fn update(&self, change: impl FnOnce(&mut StatusInner)) {
        if let Ok(mut inner) = self.inner.lock() {
            change(&mut inner);
        }
        self.changed.notify_all();
    }

    pub fn set_starting(&self) {
        self.update(|s| {
            *s = StatusInner {
                phase: Phase::Starting,
                ..StatusInner::default()
            }
        });
    }

    pub fn set_failed(&self, reason: &str) {
        self.update(|s| s.phase = Phase::Failed(reason.to_string()));
    }

    pub(super) fn set_running(&self, reports_quiescence: bool) {
        self.update(|s| {
            s.phase = Phase::Running;
            if reports_quiescence && s.quiescent.is_none() {
                s.quiescent = Some(false);
            }
        });
    }

    /// Waits up to `limit` for the server to send a status after the first `seen`; whether it
    /// did.
    pub(super) fn wait_busy(&self, seen: u64, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        let Ok(mut inner) = self.inner.lock() else {
            return false;
        };
        loop {
            // rust-analyzer sends a status only when it changes: the next one is "busy" (it may
            // have ended already).
            if inner.statuses > seen {
                return true;
            }
            let now = Instant::now();
            if now >= deadline {
                return false;
            }
            inner = match self.changed.wait_timeout(inner, deadline - now) {
                Ok((guard, _)) => guard,
                Err(_) => return false,
            };
        }
    }

    pub(super) fn statuses(&self) -> u64 {
        self.inner.lock().map_or(0, |inner| inner.statuses)
    }

    /// Waits until the server says it is quiescent. `Ok(Some(message))` when it is, but
    /// unhealthy; `Err(())` on timeout.
    pub(super) fn wait_quiescent(
        &self,
        limit: Duration,
        alive: impl Fn() -> bool,
    ) -> Result<Option<String>, ()> {
        let deadline = Instant::now() + limit;
        let Ok(mut inner) = self.inner.lock() else {
            return Err(());
        };
        loop {
            if inner.quiescent != Some(false) {
                return Ok(match &inner.health {
                    Some((health, message)) if health == "error" => Some(
                        message
                            .clone()
                            .unwrap_or_else(|| "it reports an error".to_string()),
                    ),
                    _ => None,
                });
            }
            let now = Instant::now();
            if now >= deadline || !alive() {
                return Err(());
            }
            // Wake now and then to notice a dead server that sends nothing more.
            let step = (deadline - now).min(Duration::from_millis(200));
            inner = match self.changed.wait_timeout(inner, step) {
                Ok((guard, _)) => guard,
                Err(_) => return Err(()),
            };
        }
    }
}
