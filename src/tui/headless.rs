//! The UI without a terminal: the same state machine and the same jobs, with every effect
//! performed in line, in order. Tests drive whole flows with it, key by key. Opened "watched",
//! it runs as the terminal does where timing matters: the real file watcher reports changes
//! and previews are computed on the real engine thread while those reports come in.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ratatui::crossterm::event::KeyEvent;

use crate::api::Engine;
use crate::backend::BackendChoice;
use crate::config::Config;
use crate::trust::TrustStore;
use crate::workspace::Root;

use super::action::Action;
use super::effect::Effect;
use super::jobs;
use super::keymap::{Key, Keymap};
use super::state::State;
use super::theme::Theme;
use super::update;
use super::verifier;
use super::watcher::Watcher;
use super::worker::EngineWorker;

/// A UI session driven by actions, with effects performed synchronously.
pub struct Headless {
    pub state: State,
    pub engine: Arc<Engine>,
    /// Effects not performed yet (see [`Headless::dispatch`]).
    pub queue: VecDeque<Effect>,
    /// What the runtime would watch now.
    pub watched: Vec<String>,
    /// How many previews were computed (each one a full engine call, language server included).
    pub previews_computed: usize,
    /// Whether the checks of results are performed (in line, with the project's real tools);
    /// off by default, so a test that is not about them never runs cargo or ruff: they are
    /// then kept in [`Headless::checks_pending`] and the panel shows them running.
    pub run_checks: bool,
    /// Checks asked for and not performed (while `run_checks` is off).
    pub checks_pending: usize,
    /// When opened with [`Headless::open_watched`]: the real watcher and engine thread, and
    /// the channel of their reports and answers.
    live: Option<Live>,
    /// Where trust is recorded (a test's own file, never the user's), when opened with
    /// [`Headless::open_with_trust_store`]: `T` and a change of trust go through it.
    trust_store: Option<TrustStore>,
    /// The settings the engine was opened with, to open it again after a change of trust.
    config: Option<Config>,
    backend: Option<BackendChoice>,
}

struct Live {
    watcher: Watcher,
    worker: EngineWorker,
    rx: Receiver<Action>,
    tx: std::sync::mpsc::Sender<Action>,
}

impl Headless {
    /// Opens `path` (a project directory, or a file in one) like `candor PATH` does, and
    /// performs the start-up effects (the walk, loading the file).
    pub fn open(
        path: &Path,
        backend: Option<BackendChoice>,
        size: (u16, u16),
    ) -> Result<Headless, String> {
        Headless::start(path, backend, size, None, false)
    }

    /// [`Headless::open`] with these settings instead of the config files, the real file
    /// watcher running and previews computed on the engine thread, as in the terminal: the
    /// watcher's reports and the previews come in through [`Headless::pump`].
    pub fn open_watched(
        path: &Path,
        config: Config,
        backend: Option<BackendChoice>,
        size: (u16, u16),
    ) -> Result<Headless, String> {
        Headless::start(path, backend, size, Some((config, false)), true)
    }

    /// [`Headless::open`] with these settings instead of the config files, for a project the
    /// user trusts (`candor trust`): its checks may run its build (cargo check) and its tests.
    pub fn open_trusted(
        path: &Path,
        config: Config,
        backend: Option<BackendChoice>,
        size: (u16, u16),
    ) -> Result<Headless, String> {
        Headless::start(path, backend, size, Some((config, true)), false)
    }

    /// [`Headless::open`] with these settings, the project trusted as the store at `store`
    /// records it (a test's own file): `T` and changes of trust read and write that store.
    pub fn open_with_trust_store(
        path: &Path,
        config: Config,
        backend: Option<BackendChoice>,
        size: (u16, u16),
        store: TrustStore,
    ) -> Result<Headless, String> {
        let mut session = Headless::start(path, backend, size, Some((config, false)), false)?;
        let engine = jobs::reopen_engine(
            session.engine.root(),
            backend,
            Some(&store),
            session.config.as_ref(),
        )?;
        session.state.trust = engine.trust().clone();
        session.engine = Arc::new(engine);
        session.trust_store = Some(store);
        Ok(session)
    }

    fn start(
        path: &Path,
        backend: Option<BackendChoice>,
        size: (u16, u16),
        config: Option<(Config, bool)>,
        watch: bool,
    ) -> Result<Headless, String> {
        let (root, file) =
            jobs::project_of(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let kept_config = config.as_ref().map(|(c, _)| c.clone());
        let engine = match config {
            Some((config, trusted)) => {
                let root = Root::new(&root).map_err(|e| format!("{}: {e}", root.display()))?;
                if trusted {
                    Engine::with_settings(root, config, backend, crate::trust::Trust::Trusted)
                } else {
                    Engine::with_config(root, config, backend)
                }
            }
            None => Engine::open(&root, backend).map_err(|e| e.message)?,
        };
        let name = engine
            .root()
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut state = State::new(
            name,
            engine.default_backend(),
            Keymap::default_keymap(),
            Theme::colored(),
            size,
        );
        state.trust = engine.trust().clone();
        let engine = Arc::new(engine);
        let live = if watch {
            let (tx, rx) = mpsc::channel();
            let watcher =
                Watcher::new(engine.root().clone(), tx.clone()).map_err(|e| e.to_string())?;
            let worker =
                EngineWorker::start(engine.clone(), tx.clone()).map_err(|e| e.to_string())?;
            Some(Live {
                watcher,
                worker,
                rx,
                tx,
            })
        } else {
            None
        };
        let effects = update::start(&mut state, file);
        let mut session = Headless {
            state,
            engine,
            queue: effects.into(),
            watched: Vec::new(),
            previews_computed: 0,
            run_checks: false,
            checks_pending: 0,
            live,
            trust_store: None,
            config: kept_config,
            backend,
        };
        session.settle();
        Ok(session)
    }

    /// Feeds the watcher's reports and the engine thread's answers to the UI (performing what
    /// they cause) until none came for `quiet` while nothing is being computed or written, or
    /// `limit` has passed. Returns how many came.
    pub fn pump(&mut self, quiet: Duration, limit: Duration) -> usize {
        let deadline = Instant::now() + limit;
        let mut received = 0;
        loop {
            let now = Instant::now();
            if now >= deadline {
                return received;
            }
            let wait = quiet.min(deadline - now);
            let Some(live) = &self.live else {
                return received;
            };
            match live.rx.recv_timeout(wait) {
                Ok(action) => {
                    received += 1;
                    self.dispatch(action);
                    self.settle();
                }
                Err(_) if self.waiting() => {}
                Err(_) => return received,
            }
        }
    }

    /// Whether an answer is still to come (a preview computing, a write, a file loading).
    fn waiting(&self) -> bool {
        self.state.preview().is_some_and(|p| p.computing)
            || self.state.writing.is_some()
            || self.state.loading.is_some()
    }

    pub fn root(&self) -> &Root {
        self.engine.root()
    }

    /// Applies an action and queues its effects without performing them.
    pub fn dispatch(&mut self, action: Action) {
        let effects = update::update(&mut self.state, action);
        self.queue.extend(effects);
    }

    /// Performs queued effects (and the effects of their answers) until none is left.
    pub fn settle(&mut self) {
        while let Some(effect) = self.queue.pop_front() {
            for action in self.perform(effect) {
                self.dispatch(action);
            }
        }
    }

    /// Presses keys given as in the keymap file (`"e"`, `"enter"`, `"shift-down"`), each followed
    /// by [`Headless::settle`].
    pub fn press(&mut self, keys: &[&str]) -> &mut Headless {
        for key in keys {
            let parsed = Key::parse(key).unwrap_or_else(|e| panic!("{e}"));
            self.dispatch(Action::Key(KeyEvent::new(parsed.code, parsed.modifiers)));
            self.settle();
        }
        self
    }

    /// Presses one key and queues its effects without performing them (to look at the state
    /// while work is pending).
    pub fn press_pending(&mut self, key: &str) {
        let parsed = Key::parse(key).unwrap_or_else(|e| panic!("{e}"));
        self.dispatch(Action::Key(KeyEvent::new(parsed.code, parsed.modifiers)));
    }

    /// Types text into the focused input, one key per character.
    pub fn type_text(&mut self, text: &str) -> &mut Headless {
        for c in text.chars() {
            let event = KeyEvent::new(
                ratatui::crossterm::event::KeyCode::Char(c),
                ratatui::crossterm::event::KeyModifiers::NONE,
            );
            self.dispatch(Action::Key(event));
            self.settle();
        }
        self
    }

    /// Tells the UI, as the watcher would, that these files changed on disk (their current
    /// hashes are read now). The effects are queued, not performed: call `settle` for that.
    pub fn files_changed(&mut self, paths: &[&str]) {
        let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
        let changed = jobs::hashes(self.engine.root(), &paths);
        self.dispatch(Action::FilesChanged(changed));
    }

    /// Tells the UI, as the watcher would, that the undo journal changed (e.g. `candor undo`
    /// ran in a shell), and performs what follows.
    pub fn journal_changed(&mut self) {
        self.dispatch(Action::JournalChanged);
        self.settle();
    }

    fn perform(&mut self, effect: Effect) -> Vec<Action> {
        match effect {
            Effect::StartWalk => {
                let found = Mutex::new(Vec::new());
                jobs::walk(self.engine.sources(), &|action| {
                    if let Ok(mut found) = found.lock() {
                        found.push(action);
                    }
                });
                found.into_inner().unwrap_or_default()
            }
            Effect::LoadFile { id, path } => vec![Action::FileLoaded {
                id,
                result: jobs::load_file(self.engine.sources(), &path),
            }],
            Effect::Preview { id, call } => {
                self.previews_computed += 1;
                if let Some(live) = &self.live {
                    live.worker.preview(id, call);
                    return Vec::new();
                }
                vec![Action::PreviewReady {
                    id,
                    result: jobs::preview(&self.engine, *call),
                }]
            }
            Effect::Apply { id, outcome, call } => vec![Action::Applied {
                id,
                result: jobs::apply(&self.engine, &outcome, &call),
            }],
            Effect::Undo {
                id,
                changes,
                transaction,
            } => vec![Action::Undone {
                id,
                result: jobs::undo(&self.engine, &changes, transaction.as_deref()),
            }],
            Effect::Verify {
                id,
                call,
                outcome,
                level,
            } => {
                if !self.run_checks {
                    self.checks_pending += 1;
                    return Vec::new();
                }
                let verification = verifier::check_now(&self.engine, &call, &outcome, level);
                vec![Action::Checked {
                    id,
                    verification: Box::new(verification),
                }]
            }
            Effect::CancelVerify => Vec::new(),
            Effect::CancelPreview => {
                if let Some(live) = &self.live {
                    live.worker.cancel_preview();
                }
                Vec::new()
            }
            Effect::WatchJournal(on) => {
                if let Some(live) = self.live.as_mut() {
                    live.watcher.watch_journal(on);
                }
                Vec::new()
            }
            Effect::CheckUndo { transaction } => {
                let state = jobs::undo_state(self.engine.root(), &transaction);
                vec![Action::UndoChecked { transaction, state }]
            }
            Effect::Watch(paths) => {
                if let Some(live) = self.live.as_mut() {
                    live.watcher.set(&paths);
                }
                self.watched = paths;
                Vec::new()
            }
            Effect::ReadTrust => match &self.trust_store {
                Some(store) => vec![Action::TrustRead(jobs::read_trust(
                    store,
                    self.engine.root(),
                ))],
                None => Vec::new(),
            },
            Effect::SetTrust(trust) => match &self.trust_store {
                Some(store) => vec![Action::TrustSet(jobs::set_trust(
                    store,
                    self.engine.root(),
                    trust,
                ))],
                None => vec![Action::TrustSet(Err(
                    "this session has no trust store".to_string()
                ))],
            },
            Effect::ReopenEngine => {
                match jobs::reopen_engine(
                    self.engine.root(),
                    self.backend,
                    self.trust_store.as_ref(),
                    self.config.as_ref(),
                ) {
                    Ok(engine) => {
                        self.engine = Arc::new(engine);
                        if let Some(live) = self.live.as_mut()
                            && let Ok(worker) =
                                EngineWorker::start(self.engine.clone(), live.tx.clone())
                        {
                            live.worker = worker;
                        }
                        vec![Action::EngineReopened {
                            trust: self.engine.trust().clone(),
                        }]
                    }
                    Err(message) => vec![Action::Failed(message)],
                }
            }
            Effect::CheckFolder(dir) => vec![Action::FolderChecked {
                exists: jobs::folder_exists(self.engine.root(), &dir),
                dir,
            }],
            // A test never writes the user's settings.
            Effect::SaveSplit(_) => Vec::new(),
            Effect::WarmUp { path } => {
                let _ = jobs::warm_up(&self.engine, &path);
                jobs::lsp_status(&self.engine, &path)
                    .map_or_else(Vec::new, |s| vec![Action::LspStatus(Some(s))])
            }
        }
    }
}
