//! The imperative shell of the TUI: terminal set-up and restore (also on panic), the event
//! loop, the worker threads that perform effects (the engine on one thread, latest preview
//! wins, writes in order), and the debounced file watcher.

use std::collections::{BTreeSet, HashSet, VecDeque};
use std::io::stdout;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use anyhow::Context as _;
use notify_debouncer_full::notify::{RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, DisableMouseCapture, EnableBracketedPaste, EnableMouseCapture,
    Event, KeyEventKind,
};
use ratatui::crossterm::execute;
use serde_json::Value;

use crate::api::{ApiError, Engine, ErrorCode, ToolCall};
use crate::backend::{BackendChoice, Outcome};
use crate::edit::FileChange;
use crate::honesty::Tool;
use crate::workspace::Root;

use super::action::Action;
use super::effect::Effect;
use super::jobs;
use super::keymap::Keymap;
use super::state::State;
use super::theme::Theme;
use super::{update, view};

/// How often the spinner turns while work is pending.
const TICK: Duration = Duration::from_millis(100);
/// How long the watcher waits for a burst of file events to settle.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// `candor [PATH]`: opens the project (or the file in its project) in the terminal UI.
pub fn run(path: &Path, backend: Option<BackendChoice>) -> anyhow::Result<()> {
    let (root, file) =
        jobs::project_of(path).with_context(|| format!("cannot open {}", path.display()))?;
    let engine = Engine::open(&root, backend).map_err(|e| anyhow::anyhow!(e.message))?;
    let (keymap, keymap_problem) = load_keymap();
    let theme = Theme::new(Theme::no_color_requested(
        std::env::var_os("NO_COLOR").as_deref(),
    ));
    let project_name = engine
        .root()
        .path()
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "/".to_string());

    let mut terminal = ratatui::try_init()
        .context("cannot set up the terminal (is this an interactive terminal?)")?;
    let ratatui_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A worker's panic becomes an error on screen (see `guarded`); only a panic of the UI
        // thread ends the session, and then the terminal is restored first.
        if is_worker_thread() {
            if let Ok(mut last) = WORKER_PANIC.lock() {
                *last = Some(info.to_string());
            }
            return;
        }
        let _ = execute!(stdout(), DisableMouseCapture, DisableBracketedPaste);
        ratatui_hook(info);
    }));
    let _ = execute!(stdout(), EnableMouseCapture, EnableBracketedPaste);
    let size = terminal
        .size()
        .map(|s| (s.width, s.height))
        .unwrap_or((80, 24));
    let mut state = State::new(project_name, engine.default_backend(), keymap, theme, size);
    if let Some(problem) = keymap_problem {
        state.error(problem);
    }
    // For `scripts/bench.sh`: start-up to the first frame, timed from outside.
    let first_frame_only = std::env::var_os(EXIT_AFTER_FIRST_FRAME).is_some();
    let result = Runtime::start(engine)
        .and_then(|mut runtime| runtime.run(&mut terminal, state, file, first_frame_only));
    let _ = execute!(stdout(), DisableMouseCapture, DisableBracketedPaste);
    ratatui::restore();
    result
}

/// Set (to anything) in the environment, the UI quits right after drawing its first frame.
pub const EXIT_AFTER_FIRST_FRAME: &str = "CANDOR_EXIT_AFTER_FIRST_FRAME";

/// The message of the last panic on a worker thread.
static WORKER_PANIC: Mutex<Option<String>> = Mutex::new(None);

const WORKER_PREFIX: &str = "candor-";

fn is_worker_thread() -> bool {
    std::thread::current()
        .name()
        .is_some_and(|n| n.starts_with(WORKER_PREFIX))
}

fn spawn_worker(
    name: &str,
    work: impl FnOnce() + Send + 'static,
) -> std::io::Result<JoinHandle<()>> {
    std::thread::Builder::new()
        .name(format!("{WORKER_PREFIX}{name}"))
        .spawn(work)
}

/// Runs one job; a panic in it (a bug) becomes an error message instead of a dead thread.
fn guarded<T>(what: &str, job: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).map_err(|_| {
        let detail = WORKER_PANIC
            .lock()
            .ok()
            .and_then(|mut p| p.take())
            .unwrap_or_default();
        format!("internal error while {what} ({detail}); nothing was written — please report it")
    })
}

/// The default keymap with the user's file on top; a broken user file is reported, not fatal.
fn load_keymap() -> (Keymap, Option<String>) {
    let Some(path) = crate::config::user_config_path().map(|p| p.with_file_name("keymap.toml"))
    else {
        return (Keymap::default_keymap(), None);
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => match Keymap::with_user_file(&path.display().to_string(), &text) {
            Ok(keymap) => (keymap, None),
            Err(e) => (
                Keymap::default_keymap(),
                Some(format!("{e}; using the default keys until it is fixed")),
            ),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Keymap::default_keymap(), None),
        Err(e) => (
            Keymap::default_keymap(),
            Some(format!(
                "cannot read {}: {e}; using the default keys",
                path.display()
            )),
        ),
    }
}

/// Work for the engine thread: at most one preview waits (the latest), writes wait in order.
#[derive(Default)]
struct EngineQueue {
    preview: Option<(u64, Tool, Value)>,
    writes: VecDeque<WriteJob>,
    closed: bool,
}

enum WriteJob {
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

type SharedQueue = Arc<(Mutex<EngineQueue>, Condvar)>;

struct Runtime {
    /// Shared with the engine thread; the UI thread only reads the language servers' status.
    engine: Arc<Engine>,
    tx: Sender<Action>,
    rx: Receiver<Action>,
    queue: SharedQueue,
    engine_thread: Option<JoinHandle<()>>,
    root: Root,
    watcher: Option<Watcher>,
}

impl Runtime {
    fn start(engine: Engine) -> anyhow::Result<Runtime> {
        let engine = Arc::new(engine);
        let (tx, rx) = mpsc::channel();
        let root = engine.root().clone();
        let queue: SharedQueue = Arc::new((Mutex::new(EngineQueue::default()), Condvar::new()));
        let engine_thread = {
            let queue = queue.clone();
            let tx = tx.clone();
            let engine = engine.clone();
            spawn_worker("engine", move || engine_loop(&engine, &queue, &tx))?
        };
        let watcher = Watcher::new(root.clone(), tx.clone()).ok();
        Ok(Runtime {
            engine,
            tx,
            rx,
            queue,
            engine_thread: Some(engine_thread),
            root,
            watcher,
        })
    }

    fn run(
        &mut self,
        terminal: &mut DefaultTerminal,
        mut state: State,
        file: Option<String>,
        first_frame_only: bool,
    ) -> anyhow::Result<()> {
        spawn_input_thread(self.tx.clone());
        if self.watcher.is_none() {
            state.warn("the file watcher could not start: outside changes will only be caught when applying (the write checks every file's hash)");
        }
        let effects = update::start(&mut state, file);
        self.perform(effects);
        terminal.draw(|f| view::render(&state, f))?;
        if first_frame_only {
            self.shutdown();
            return Ok(());
        }
        loop {
            let first = match self.rx.recv_timeout(TICK) {
                Ok(action) => action,
                Err(RecvTimeoutError::Timeout) => Action::Tick,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let idle_tick = matches!(first, Action::Tick) && !state.busy();
            let lsp_moved = state.backend != BackendChoice::TreeSitter
                && state
                    .code
                    .as_ref()
                    .and_then(|c| jobs::lsp_status(&self.engine, &c.doc.path))
                    != state.lsp_status;
            if idle_tick && !lsp_moved {
                continue;
            }
            let mut batch = vec![first];
            while batch.len() < 256 {
                match self.rx.try_recv() {
                    Ok(action) => batch.push(action),
                    Err(_) => break,
                }
            }
            if state.backend != BackendChoice::TreeSitter {
                let status = state
                    .code
                    .as_ref()
                    .and_then(|c| jobs::lsp_status(&self.engine, &c.doc.path));
                if status != state.lsp_status {
                    batch.push(Action::LspStatus(status));
                }
            }
            for action in batch {
                let effects = update::update(&mut state, action);
                self.perform(effects);
                if state.quit {
                    break;
                }
            }
            if state.quit {
                break;
            }
            terminal.draw(|f| view::render(&state, f))?;
        }
        self.shutdown();
        Ok(())
    }

    /// Hands effects to the threads that perform them.
    fn perform(&mut self, effects: Vec<Effect>) {
        for effect in effects {
            match effect {
                Effect::StartWalk => {
                    let root = self.root.clone();
                    let tx = Mutex::new(self.tx.clone());
                    let done = self.tx.clone();
                    let _ = spawn_worker("walk", move || {
                        let walked = guarded("listing the project's files", || {
                            jobs::walk(&root, &|action| {
                                if let Ok(tx) = tx.lock() {
                                    let _ = tx.send(action);
                                }
                            })
                        });
                        if let Err(error) = walked {
                            let _ = done.send(Action::WalkFinished { error: Some(error) });
                        }
                    });
                }
                Effect::LoadFile { id, path } => {
                    let engine = self.engine.clone();
                    let tx = self.tx.clone();
                    let _ = spawn_worker("load", move || {
                        let result = guarded("opening the file", || {
                            jobs::load_file(engine.sources(), &path)
                        })
                        .and_then(|r| r);
                        let _ = tx.send(Action::FileLoaded { id, result });
                    });
                }
                Effect::Preview { id, tool, args } => {
                    self.enqueue(|q| q.preview = Some((id, tool, args)))
                }
                Effect::Apply { id, outcome, call } => {
                    self.enqueue(|q| q.writes.push_back(WriteJob::Apply { id, outcome, call }))
                }
                Effect::Undo {
                    id,
                    changes,
                    transaction,
                } => self.enqueue(|q| {
                    q.writes.push_back(WriteJob::Undo {
                        id,
                        changes,
                        transaction,
                    })
                }),
                Effect::Watch(paths) => {
                    if let Some(watcher) = self.watcher.as_mut() {
                        watcher.set(&paths);
                    }
                }
                Effect::WarmUp { path } => {
                    let engine = self.engine.clone();
                    let _ = spawn_worker("lsp-start", move || {
                        let _ = guarded("starting the language server", || {
                            jobs::warm_up(&engine, &path)
                        });
                    });
                }
            }
        }
    }

    fn enqueue(&self, change: impl FnOnce(&mut EngineQueue)) {
        let (lock, ready) = &*self.queue;
        if let Ok(mut queue) = lock.lock() {
            change(&mut queue);
            ready.notify_one();
        }
    }

    /// Lets a write in progress finish (queued previews are dropped), then stops the engine.
    fn shutdown(&mut self) {
        self.enqueue(|q| {
            q.closed = true;
            q.preview = None;
        });
        if let Some(thread) = self.engine_thread.take() {
            let _ = thread.join();
        }
    }
}

fn engine_loop(engine: &Engine, queue: &SharedQueue, tx: &Sender<Action>) {
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
                    Some(preview) => Err(preview),
                    None => continue,
                },
            }
        };
        let internal = |message: String| ApiError::new(ErrorCode::Io, message);
        let action = match job {
            Ok(WriteJob::Apply { id, outcome, call }) => Action::Applied {
                id,
                result: guarded("writing", || jobs::apply(engine, &outcome, &call))
                    .unwrap_or_else(|m| Err(internal(m))),
            },
            Ok(WriteJob::Undo {
                id,
                changes,
                transaction,
            }) => Action::Undone {
                id,
                result: guarded("undoing", || {
                    jobs::undo(engine, &changes, transaction.as_deref())
                })
                .unwrap_or_else(Err),
            },
            Err((id, tool, args)) => Action::PreviewReady {
                id,
                result: guarded("computing the preview", || {
                    jobs::preview(engine, tool, &args)
                })
                .unwrap_or_else(|m| Err(internal(m))),
            },
        };
        if tx.send(action).is_err() {
            return;
        }
    }
}

/// Reads terminal events for the whole session (the thread ends with the process).
fn spawn_input_thread(tx: Sender<Action>) {
    std::thread::spawn(move || {
        loop {
            let action = match event::read() {
                Ok(Event::Key(key)) if key.kind != KeyEventKind::Release => Action::Key(key),
                Ok(Event::Mouse(mouse)) => Action::Mouse(mouse),
                Ok(Event::Paste(text)) => Action::Paste(text),
                Ok(Event::Resize(width, height)) => Action::Resize(width, height),
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.send(action).is_err() {
                return;
            }
        }
    });
}

/// Watches the directories of the files of interest (a file replaced by rename stays watched)
/// and reports, debounced, which of those files changed and what they hold now.
struct Watcher {
    debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    root: Root,
    interest: Arc<Mutex<HashSet<String>>>,
    dirs: BTreeSet<PathBuf>,
}

impl Watcher {
    fn new(root: Root, tx: Sender<Action>) -> notify_debouncer_full::notify::Result<Watcher> {
        let interest: Arc<Mutex<HashSet<String>>> = Arc::default();
        let handler_interest = interest.clone();
        let handler_root = root.clone();
        let debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
            let Ok(events) = result else { return };
            let Ok(interest) = handler_interest.lock() else {
                return;
            };
            let mut changed: Vec<String> = events
                .iter()
                .flat_map(|e| e.paths.iter())
                .filter_map(|p| handler_root.relative_of(p))
                .filter(|p| interest.contains(p))
                .collect();
            drop(interest);
            changed.sort();
            changed.dedup();
            if !changed.is_empty() {
                let _ = tx.send(Action::FilesChanged(jobs::hashes(&handler_root, &changed)));
            }
        })?;
        Ok(Watcher {
            debouncer,
            root,
            interest,
            dirs: BTreeSet::new(),
        })
    }

    fn set(&mut self, paths: &[String]) {
        if let Ok(mut interest) = self.interest.lock() {
            *interest = paths.iter().cloned().collect();
        }
        let wanted: BTreeSet<PathBuf> = paths
            .iter()
            .filter_map(|p| self.root.resolve(p).ok())
            .filter_map(|r| r.absolute.parent().map(Path::to_path_buf))
            .filter(|d| d.is_dir())
            .collect();
        for gone in self.dirs.difference(&wanted) {
            let _ = self.debouncer.unwatch(gone);
        }
        for new in wanted.difference(&self.dirs) {
            let _ = self.debouncer.watch(new, RecursiveMode::NonRecursive);
        }
        self.dirs = wanted;
    }
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn the_watcher_reports_an_outside_change_with_its_new_hash() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("src/other.py"), "y = 1\n").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let (tx, rx) = mpsc::channel();
        let mut watcher = Watcher::new(root.clone(), tx).unwrap();
        watcher.set(&["src/a.py".to_string()]);
        std::fs::write(dir.path().join("src/other.py"), "y = 2\n").unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 2\n").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let expected = crate::edit::sha256_hex(b"x = 2\n");
        loop {
            let remaining = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(remaining) {
                Ok(Action::FilesChanged(changed)) => {
                    assert!(
                        changed.iter().all(|(p, _)| p == "src/a.py"),
                        "only watched files: {changed:?}"
                    );
                    if changed
                        .iter()
                        .any(|(_, h)| h.as_deref() == Some(expected.as_str()))
                    {
                        break;
                    }
                }
                Ok(_) => {}
                Err(_) => panic!("no change reported within 10 s"),
            }
        }
    }
}
