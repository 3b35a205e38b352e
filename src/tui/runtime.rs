//! The imperative shell of the TUI: terminal set-up and restore (also on panic), the event
//! loop, and handing effects to the threads that perform them (the engine thread of `worker`,
//! short-lived workers for the walk and file loads, the `watcher`).

use std::io::stdout;
use std::path::Path;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context as _;
use ratatui::DefaultTerminal;
use ratatui::crossterm::event::{
    self, DisableBracketedPaste, DisableFocusChange, DisableMouseCapture, EnableBracketedPaste,
    EnableFocusChange, EnableMouseCapture, Event, KeyEventKind,
};
use ratatui::crossterm::execute;

use crate::api::Engine;
use crate::backend::BackendChoice;
use crate::trust::TrustStore;
use crate::workspace::Root;

use super::action::Action;
use super::effect::Effect;
use super::jobs;
use super::keymap::Keymap;
use super::state::State;
use super::theme::Theme;
use super::verifier::Verifier;
use super::watcher::Watcher;
use super::worker::{EngineWorker, guarded, is_worker_thread, record_worker_panic, spawn_worker};
use super::{update, view};

/// How often the spinner turns while work is pending.
const TICK: Duration = Duration::from_millis(100);

/// `candor [PATH]`: opens the project (or the file in its project) in the terminal UI.
pub fn run(path: &Path, backend: Option<BackendChoice>) -> anyhow::Result<()> {
    let (root, file) =
        jobs::project_of(path).with_context(|| format!("cannot open {}", path.display()))?;
    let engine = Engine::open(&root, backend).map_err(|e| anyhow::anyhow!(e.message))?;
    let (keymap, keymap_problem) = load_keymap();
    let theme = Theme::new(Theme::no_color_requested(
        std::env::var_os("NO_COLOR").as_deref(),
    ));
    let project_name = jobs::display_root(
        engine.root().path(),
        std::env::current_dir()
            .ok()
            .and_then(|d| d.canonicalize().ok())
            .as_deref(),
        dirs::home_dir().as_deref(),
    );

    let mut terminal = ratatui::try_init()
        .context("cannot set up the terminal (is this an interactive terminal?)")?;
    let ratatui_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // A worker's panic becomes an error on screen (see `guarded`); only a panic of the UI
        // thread ends the session, and then the terminal is restored first.
        if is_worker_thread() {
            record_worker_panic(info.to_string());
            return;
        }
        let _ = execute!(
            stdout(),
            DisableMouseCapture,
            DisableBracketedPaste,
            DisableFocusChange
        );
        ratatui_hook(info);
    }));
    let _ = execute!(
        stdout(),
        EnableMouseCapture,
        EnableBracketedPaste,
        EnableFocusChange
    );
    let size = terminal
        .size()
        .map(|s| (s.width, s.height))
        .unwrap_or((80, 24));
    let mut state = State::new(project_name, engine.default_backend(), keymap, theme, size);
    state.trust = engine.trust().clone();
    if let Some(problem) = keymap_problem {
        state.error(problem);
    }
    match jobs::load_split() {
        Ok(split) => state.split = split,
        Err(problem) => state.error(problem),
    }
    // For `scripts/bench.sh`: start-up to the first frame, timed from outside.
    let first_frame_only = std::env::var_os(EXIT_AFTER_FIRST_FRAME).is_some();
    let result = Runtime::start(engine, backend)
        .and_then(|mut runtime| runtime.run(&mut terminal, state, file, first_frame_only));
    let _ = execute!(
        stdout(),
        DisableMouseCapture,
        DisableBracketedPaste,
        DisableFocusChange
    );
    ratatui::restore();
    result
}

/// Set (to anything) in the environment, the UI quits right after drawing its first frame.
pub const EXIT_AFTER_FIRST_FRAME: &str = "CANDOR_EXIT_AFTER_FIRST_FRAME";

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

struct Runtime {
    /// Shared with the worker threads; the UI thread only reads the language servers' status.
    engine: Arc<Engine>,
    tx: Sender<Action>,
    rx: Receiver<Action>,
    worker: EngineWorker,
    /// The check thread of the preview's result.
    verifier: Verifier,
    root: Root,
    watcher: Option<Watcher>,
    /// `--backend` as given, to open the engine again with it.
    backend: Option<BackendChoice>,
    /// Where the user's trust is recorded (`None`: no config folder to record it in).
    trust_store: Option<TrustStore>,
}

impl Runtime {
    fn start(engine: Engine, backend: Option<BackendChoice>) -> anyhow::Result<Runtime> {
        let engine = Arc::new(engine);
        let (tx, rx) = mpsc::channel();
        let root = engine.root().clone();
        let worker = EngineWorker::start(engine.clone(), tx.clone())?;
        let mut watcher = Watcher::new(root.clone(), tx.clone()).ok();
        let verifier = Verifier::new(engine.clone(), tx.clone());
        let trust_store = TrustStore::user().ok();
        if let (Some(watcher), Some(store)) = (watcher.as_mut(), &trust_store) {
            watcher.watch_trust_store(store.path());
        }
        Ok(Runtime {
            engine,
            tx,
            rx,
            worker,
            verifier,
            root,
            watcher,
            backend,
            trust_store,
        })
    }

    /// Opens the engine again (the trust changed): the writes queued finish, the preview being
    /// computed and the check are dropped, the language servers stop; the new engine thread and
    /// check thread start with the new rules.
    fn reopen_engine(&mut self) {
        let engine = match jobs::reopen_engine(&self.root, self.backend, None, None) {
            Ok(engine) => Arc::new(engine),
            Err(message) => {
                let trust = self.engine.trust().clone();
                let _ = self.tx.send(Action::EngineReopened { trust });
                let _ = self.tx.send(Action::TrustSet(Err(message)));
                return;
            }
        };
        self.verifier.cancel();
        self.worker.shutdown();
        self.engine.lsp().shutdown();
        match EngineWorker::start(engine.clone(), self.tx.clone()) {
            Ok(worker) => self.worker = worker,
            Err(e) => {
                let _ = self.tx.send(Action::TrustSet(Err(format!(
                    "cannot start the engine thread: {e}"
                ))));
                return;
            }
        }
        self.verifier = Verifier::new(engine.clone(), self.tx.clone());
        self.engine = engine;
        let _ = self.tx.send(Action::EngineReopened {
            trust: self.engine.trust().clone(),
        });
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
                    let engine = self.engine.clone();
                    let tx = Mutex::new(self.tx.clone());
                    let done = self.tx.clone();
                    let _ = spawn_worker("walk", move || {
                        let walked = guarded("listing the project's files", || {
                            jobs::walk(engine.sources(), &|action| {
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
                Effect::Preview { id, call } => self.worker.preview(id, call),
                Effect::CancelPreview => self.worker.cancel_preview(),
                Effect::Verify {
                    id,
                    call,
                    outcome,
                    level,
                } => self.verifier.start(id, call, outcome, level),
                Effect::CancelVerify => self.verifier.cancel(),
                Effect::Apply { id, outcome, call } => self.worker.apply(id, outcome, call),
                Effect::Undo {
                    id,
                    changes,
                    transaction,
                } => self.worker.undo(id, changes, transaction),
                Effect::Watch(paths) => {
                    if let Some(watcher) = self.watcher.as_mut() {
                        watcher.set(&paths);
                    }
                }
                Effect::WatchJournal(on) => {
                    if let Some(watcher) = self.watcher.as_mut() {
                        watcher.watch_journal(on);
                    }
                }
                Effect::CheckUndo { transaction } => {
                    let root = self.root.clone();
                    let tx = self.tx.clone();
                    let _ = spawn_worker("journal", move || {
                        let state = guarded("reading the undo journal", || {
                            jobs::undo_state(&root, &transaction)
                        })
                        .ok()
                        .flatten();
                        let _ = tx.send(Action::UndoChecked { transaction, state });
                    });
                }
                Effect::ReadTrust | Effect::SetTrust(_) => {
                    let Some(store) = self.trust_store.clone() else {
                        // Nothing to read; only a request to change it is answered.
                        if matches!(effect, Effect::SetTrust(_)) {
                            let _ = self.tx.send(Action::TrustSet(Err(
                                "there is no user config folder to record trusted projects in; set XDG_CONFIG_HOME to an absolute path".to_string(),
                            )));
                        }
                        continue;
                    };
                    if let Some(watcher) = self.watcher.as_mut() {
                        // Its folder may exist now: watch it there.
                        watcher.watch_trust_store(store.path());
                    }
                    let root = self.root.clone();
                    let tx = self.tx.clone();
                    let _ = spawn_worker("trust", move || {
                        let action = match effect {
                            Effect::SetTrust(trust) => Action::TrustSet(
                                guarded("recording the trust", || {
                                    jobs::set_trust(&store, &root, trust)
                                })
                                .and_then(|r| r),
                            ),
                            _ => Action::TrustRead(
                                guarded("reading the trust", || jobs::read_trust(&store, &root))
                                    .and_then(|r| r),
                            ),
                        };
                        let _ = tx.send(action);
                    });
                }
                Effect::ReopenEngine => self.reopen_engine(),
                Effect::CheckFolder(dir) => {
                    let exists = jobs::folder_exists(&self.root, &dir);
                    let _ = self.tx.send(Action::FolderChecked { dir, exists });
                }
                Effect::SaveSplit(split) => {
                    if let Err(problem) = jobs::save_split(split) {
                        let _ = self.tx.send(Action::Failed(problem));
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

    /// Lets a write in progress finish (a preview is cancelled), stops the engine thread, then
    /// the language servers: they are shut down and the `.ropeproject` folder pylsp-rope made
    /// is removed when empty, even when a server was busy.
    fn shutdown(&mut self) {
        self.verifier.cancel();
        self.worker.shutdown();
        self.engine.lsp().shutdown();
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
                Ok(Event::FocusGained) => Action::FocusGained,
                Ok(_) => continue,
                Err(_) => return,
            };
            if tx.send(action).is_err() {
                return;
            }
        }
    });
}
