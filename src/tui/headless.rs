//! The UI without a terminal: the same state machine and the same jobs, with every effect
//! performed in line, in order. Tests drive whole flows with it, key by key.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::Mutex;

use ratatui::crossterm::event::KeyEvent;

use crate::api::Engine;
use crate::backend::BackendChoice;
use crate::workspace::Root;

use super::action::Action;
use super::effect::Effect;
use super::jobs;
use super::keymap::{Key, Keymap};
use super::state::State;
use super::theme::Theme;
use super::update;

/// A UI session driven by actions, with effects performed synchronously.
pub struct Headless {
    pub state: State,
    pub engine: Engine,
    /// Effects not performed yet (see [`Headless::dispatch`]).
    pub queue: VecDeque<Effect>,
    /// What the runtime would watch now.
    pub watched: Vec<String>,
}

impl Headless {
    /// Opens `path` (a project directory, or a file in one) like `candor PATH` does, and
    /// performs the start-up effects (the walk, loading the file).
    pub fn open(
        path: &Path,
        backend: Option<BackendChoice>,
        size: (u16, u16),
    ) -> Result<Headless, String> {
        let (root, file) =
            jobs::project_of(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let engine = Engine::open(&root, backend).map_err(|e| e.message)?;
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
        let effects = update::start(&mut state, file);
        let mut session = Headless {
            state,
            engine,
            queue: effects.into(),
            watched: Vec::new(),
        };
        session.settle();
        Ok(session)
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

    fn perform(&mut self, effect: Effect) -> Vec<Action> {
        match effect {
            Effect::StartWalk => {
                let found = Mutex::new(Vec::new());
                jobs::walk(self.engine.root(), &|action| {
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
            Effect::Preview { id, tool, args } => vec![Action::PreviewReady {
                id,
                result: jobs::preview(&self.engine, tool, &args),
            }],
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
            Effect::Watch(paths) => {
                self.watched = paths;
                Vec::new()
            }
            Effect::WarmUp { path } => {
                let _ = jobs::warm_up(&self.engine, &path);
                jobs::lsp_status(&self.engine, &path)
                    .map_or_else(Vec::new, |s| vec![Action::LspStatus(Some(s))])
            }
        }
    }
}
