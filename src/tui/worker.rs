//! The engine thread: computes previews and performs writes one at a time, off the UI thread,
//! answering with actions. At most one preview waits (the latest asked for); a newer request or
//! a cancel stops the preview being computed (its language-server requests get
//! `$/cancelRequest`, see `LspPool::cancel_job`), so a server is never asked the same thing
//! twice while the first answer is still coming. Writes wait in order and are never dropped.
//! Also the panic guard of every worker thread. No state of the UI lives here.

use std::collections::VecDeque;
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;

use crate::api::{ApiError, Engine, ErrorCode, ToolCall};
use crate::backend::Outcome;
use crate::backend::lsp::JobId;
use crate::edit::FileChange;

use super::action::{Action, UndoRefused};
use super::jobs;

/// The message of the last panic on a worker thread.
static WORKER_PANIC: Mutex<Option<String>> = Mutex::new(None);

const WORKER_PREFIX: &str = "candor-";

/// Whether the current thread is one of candor's workers (a panic there is reported on screen,
/// not fatal).
pub fn is_worker_thread() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|n| n.starts_with(WORKER_PREFIX))
}

/// Keeps the message of a worker's panic for [`guarded`] (called from the panic hook).
pub fn record_worker_panic(message: String) {
    if let Ok(mut last) = WORKER_PANIC.lock() {
        *last = Some(message);
    }
}

pub fn spawn_worker(
    name: &str,
    work: impl FnOnce() + Send + 'static,
) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(format!("{WORKER_PREFIX}{name}"))
        .spawn(work)
}

/// Runs one job; a panic in it (a bug) becomes an error message instead of a dead thread.
pub fn guarded<T>(what: &str, job: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).map_err(|_| {
        let detail = WORKER_PANIC
            .lock()
            .ok()
            .and_then(|mut p| p.take())
            .unwrap_or_default();
        format!("internal error while {what} ({detail}); nothing was written — please report it")
    })
}

/// Work for the engine thread.
#[derive(Default)]
struct Queue {
    preview: Option<(u64, Box<ToolCall>)>,
    writes: VecDeque<Write>,
    closed: bool,
    /// The preview being computed and its language-server job (set under the same lock as the
    /// queue, so a cancel can never miss a job that was just taken).
    running: Option<(u64, JobId)>,
}

impl Queue {
    /// Cancels the running preview unless it is `keep`.
    fn cancel_running(&mut self, engine: &Engine, keep: Option<u64>) {
        if let Some((id, job)) = self.running
            && Some(id) != keep
        {
            engine.lsp().cancel_job(job);
        }
    }
}

enum Write {
    Apply {
        id: u64,
        outcome: Box<Outcome>,
        call: Box<ToolCall>,
    },
    Undo {
        id: u64,
        changes: Vec<FileChange>,
        transaction: Option<String>,
    },
}

type Shared = Arc<(Mutex<Queue>, Condvar)>;

/// The engine thread and its queue.
pub struct EngineWorker {
    engine: Arc<Engine>,
    queue: Shared,
    thread: Option<JoinHandle<()>>,
}

impl EngineWorker {
    /// Starts the thread; its answers go to `tx`.
    pub fn start(engine: Arc<Engine>, tx: Sender<Action>) -> std::io::Result<EngineWorker> {
        let queue: Shared = Arc::new((Mutex::new(Queue::default()), Condvar::new()));
        let thread = {
            let queue = queue.clone();
            let engine = engine.clone();
            spawn_worker("engine", move || engine_loop(&engine, &queue, &tx))?
        };
        Ok(EngineWorker {
            engine,
            queue,
            thread: Some(thread),
        })
    }

    fn enqueue(&self, change: impl FnOnce(&mut Queue, &Engine)) {
        let (lock, ready) = &*self.queue;
        if let Ok(mut queue) = lock.lock() {
            change(&mut queue, &self.engine);
            ready.notify_one();
        }
    }

    /// Asks for a preview; it replaces a waiting one and supersedes the one being computed.
    pub fn preview(&self, id: u64, call: Box<ToolCall>) {
        self.enqueue(|q, engine| {
            q.cancel_running(engine, Some(id));
            q.preview = Some((id, call));
        });
    }

    /// Drops the waiting preview and cancels the one being computed.
    pub fn cancel_preview(&self) {
        self.enqueue(|q, engine| {
            q.cancel_running(engine, None);
            q.preview = None;
        });
    }

    pub fn apply(&self, id: u64, outcome: Box<Outcome>, call: Box<ToolCall>) {
        self.enqueue(|q, _| q.writes.push_back(Write::Apply { id, outcome, call }));
    }

    pub fn undo(&self, id: u64, changes: Vec<FileChange>, transaction: Option<String>) {
        self.enqueue(|q, _| {
            q.writes.push_back(Write::Undo {
                id,
                changes,
                transaction,
            })
        });
    }

    /// Lets a write in progress and the queued writes finish, cancels the preview, and ends the
    /// thread.
    pub fn shutdown(&mut self) {
        self.enqueue(|q, engine| {
            q.closed = true;
            q.preview = None;
            q.cancel_running(engine, None);
        });
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for EngineWorker {
    fn drop(&mut self) {
        self.shutdown();
    }
}

fn engine_loop(engine: &Engine, queue: &Shared, tx: &Sender<Action>) {
    let (lock, ready) = &**queue;
    loop {
        let job = {
            let Ok(mut q) = lock.lock() else { return };
            while q.preview.is_none() && q.writes.is_empty() && !q.closed {
                q = match ready.wait(q) {
                    Ok(q) => q,
                    Err(_) => return,
                };
            }
            match q.writes.pop_front() {
                Some(write) => Ok(write),
                None if q.closed => return,
                None => match q.preview.take() {
                    Some(preview) => {
                        q.running = Some((preview.0, engine.lsp().begin_job()));
                        Err(preview)
                    }
                    None => continue,
                },
            }
        };
        let action = perform(engine, job);
        if let Ok(mut q) = lock.lock() {
            q.running = None;
        }
        if tx.send(action).is_err() {
            return;
        }
    }
}

fn perform(engine: &Engine, job: Result<Write, (u64, Box<ToolCall>)>) -> Action {
    let internal = |message: String| ApiError::new(ErrorCode::Io, message);
    match job {
        Ok(Write::Apply { id, outcome, call }) => Action::Applied {
            id,
            result: guarded("writing", || jobs::apply(engine, &outcome, &call))
                .unwrap_or_else(|m| Err(internal(m))),
        },
        Ok(Write::Undo {
            id,
            changes,
            transaction,
        }) => Action::Undone {
            id,
            result: guarded("undoing", || {
                jobs::undo(engine, &changes, transaction.as_deref())
            })
            .unwrap_or_else(|message| {
                Err(UndoRefused {
                    message,
                    nothing_left: false,
                })
            }),
        },
        Err((id, call)) => Action::PreviewReady {
            id,
            result: guarded("computing the preview", || jobs::preview(engine, *call))
                .unwrap_or_else(|m| Err(internal(m))),
        },
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use super::*;

    #[test]
    fn a_panicking_job_becomes_an_error() {
        let (tx, rx) = mpsc::channel();
        let handle = spawn_worker("test2", move || {
            assert!(is_worker_thread());
            let _ = tx.send(guarded("testing", || -> u8 { panic!("a bug") }));
        })
        .unwrap();
        handle.join().unwrap();
        let message = rx.recv().unwrap().unwrap_err();
        assert!(
            message.starts_with("internal error while testing"),
            "{message}"
        );
        assert!(message.contains("nothing was written"));
        assert_eq!(guarded("fine", || 3), Ok(3));
    }
}
