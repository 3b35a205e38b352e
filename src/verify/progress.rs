//! What a running check tells: the step it is at and, where the step covers files, how many of
//! them are done (the terminal UI shows both, with the seconds since the check started); and the
//! steps it took with their durations, for `data.verification.steps`.

use std::sync::Mutex;
use std::time::Instant;

use super::report::Step;

/// One report of a running check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Progress {
    /// What it is doing now: "running pyrefly after the refactor".
    pub step: String,
    /// Files done and files in all, for a step that covers files.
    pub files: Option<(usize, usize)>,
}

/// Passes reports to the caller's callback and keeps the timed steps.
pub(crate) struct Reporter<'a> {
    callback: &'a (dyn Fn(&Progress) + Sync),
    steps: Mutex<Vec<Step>>,
}

impl<'a> Reporter<'a> {
    pub fn new(callback: &'a (dyn Fn(&Progress) + Sync)) -> Reporter<'a> {
        Reporter {
            callback,
            steps: Mutex::new(Vec::new()),
        }
    }

    /// Tells the caller what the check is doing now.
    pub fn say(&self, step: &str, files: Option<(usize, usize)>) {
        (self.callback)(&Progress {
            step: step.to_string(),
            files,
        });
    }

    /// Runs `work` as the step `name`, recording how long it took.
    pub fn timed<T>(&self, name: &str, work: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let out = work();
        self.record(name, started);
        out
    }

    /// Records the step `name`, begun at `started` and ended now.
    pub fn record(&self, name: &str, started: Instant) {
        let step = Step {
            name: name.to_string(),
            duration_ms: super::millis(started.elapsed()),
        };
        self.steps
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(step);
    }

    /// The steps taken so far, in the order they ended.
    pub fn steps(&self) -> Vec<Step> {
        self.steps.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// Files done out of files in all, across checkers running at once.
pub(crate) struct Tally {
    total: usize,
    done: Mutex<usize>,
}

impl Tally {
    pub fn new(total: usize) -> Tally {
        Tally {
            total,
            done: Mutex::new(0),
        }
    }

    /// `files` more are done; returns (done, total).
    pub fn add(&self, files: usize) -> (usize, usize) {
        let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
        *done = (*done + files).min(self.total);
        (*done, self.total)
    }
}
