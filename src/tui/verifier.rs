//! The check thread: checks a preview's result with the project's own tools (`verify::run`) off
//! the UI and engine threads, so the preview stays usable and a newer preview is computed
//! meanwhile. At most one check runs: a newer one, or a cancel, stops it (its processes are
//! killed by `verify`). Its steps and its answer come back as actions. Writes nothing.

use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};

use crate::api::{Engine, ToolCall};
use crate::backend::Outcome;
use crate::cancel::Cancel;
use crate::verify::{self, Level, Verification};

use super::action::Action;
use super::worker::{guarded, spawn_worker};

pub struct Verifier {
    engine: Arc<Engine>,
    tx: Sender<Action>,
    /// The check running, with its cancellation token.
    running: Mutex<Option<(u64, Cancel)>>,
}

impl Verifier {
    pub fn new(engine: Arc<Engine>, tx: Sender<Action>) -> Verifier {
        Verifier {
            engine,
            tx,
            running: Mutex::new(None),
        }
    }

    /// Starts the check `id` of `outcome`, cancelling the one running.
    pub fn start(&self, id: u64, call: Box<ToolCall>, outcome: Box<Outcome>, level: Level) {
        self.cancel();
        let engine = self.engine.clone();
        let cancel = Cancel::new();
        if let Ok(mut running) = self.running.lock() {
            *running = Some((id, cancel.clone()));
        }
        let tx = self.tx.clone();
        let started = spawn_worker("verify", move || {
            let steps = Mutex::new(tx.clone());
            let progress = |report: &verify::Progress| {
                if let Ok(tx) = steps.lock() {
                    let _ = tx.send(Action::CheckProgress {
                        id,
                        step: report.step.clone(),
                        files: report.files,
                    });
                }
            };
            let verification = guarded("checking the result", || {
                // Built here: it searches the project for the files to type-check too.
                let mut job = engine.verification_job(&call, &outcome, level);
                job.tests_when_cheap = true;
                verify::run(&job, &cancel, &progress)
            })
            .unwrap_or_else(failed);
            let _ = tx.send(Action::Checked {
                id,
                verification: Box::new(verification),
            });
        });
        if let Err(error) = started {
            let _ = self.tx.send(Action::Checked {
                id,
                verification: Box::new(failed(format!("the check could not start: {error}"))),
            });
        }
    }

    /// Cancels the check running, if any (its answer, "cancelled", still comes and is dropped).
    pub fn cancel(&self) {
        if let Ok(mut running) = self.running.lock()
            && let Some((_, cancel)) = running.take()
        {
            cancel.cancel();
        }
    }
}

impl Drop for Verifier {
    fn drop(&mut self) {
        self.cancel();
    }
}

/// A check that could not be carried out: "unavailable" with why, never a fake "clean".
fn failed(message: String) -> Verification {
    Verification {
        state: verify::State::Unavailable,
        ..Verification::skipped(message)
    }
}

/// The check run in line (the headless UI): same job, same answer, no thread.
pub fn check_now(
    engine: &Engine,
    call: &ToolCall,
    outcome: &Outcome,
    level: Level,
) -> Verification {
    let mut job = engine.verification_job(call, outcome, level);
    job.tests_when_cheap = true;
    guarded("checking the result", || {
        verify::run(&job, &Cancel::never(), &|_: &verify::Progress| {})
    })
    .unwrap_or_else(failed)
}
