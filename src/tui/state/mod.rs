//! Everything the UI knows, as plain data: the screen on top (with its form or preview), the
//! picker, the open file, notices, pending work. Changed only by `update`; drawn by reference
//! by `view`. One module per screen's data, like `update/` and `view/`.

mod check;
mod code;
mod form;
mod picker;
mod preview;
mod sites;

pub use check::*;
pub use code::*;
pub use form::*;
pub use picker::*;
pub use preview::*;
pub use sites::*;

use super::keymap::{Context, Key, Keymap};
use super::layout::{self, Split};
use super::theme::Theme;
use crate::backend::BackendChoice;
use crate::edit::FileChange;
use crate::honesty::Tool;

/// The screen on top, with what only that screen has. The open file ([`State::code`]) is not a
/// screen's: the picker returns to it, the form is drawn over it, the preview goes back to it.
#[derive(Debug)]
pub enum Screen {
    /// The file picker ([`State::picker`] keeps the query and the files between visits).
    Picker,
    /// The code view of the open file.
    Code,
    /// A refactor form over the code view.
    Form(Form),
    /// A preview beside the warning panel; `form` is the form it came from (a refused preview
    /// returns to it to change the input).
    Preview {
        preview: Box<Preview>,
        form: Option<Form>,
    },
}

/// Which screen is on top, without its data (for tests and the view's dispatch).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScreenKind {
    Picker,
    Code,
    Form,
    Preview,
}

impl Screen {
    pub fn kind(&self) -> ScreenKind {
        match self {
            Screen::Picker => ScreenKind::Picker,
            Screen::Code => ScreenKind::Code,
            Screen::Form(_) => ScreenKind::Form,
            Screen::Preview { .. } => ScreenKind::Preview,
        }
    }
}

/// The language server's state, as the title bar shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LspStatus {
    /// `rust-analyzer: indexing 40%`
    pub text: String,
    /// Starting or indexing: the spinner turns.
    pub busy: bool,
}

/// A question over the screen, answered with yes or no.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Question {
    /// Trust the project (`true`), or stop trusting it.
    Trust { trust: bool },
    /// Close the preview on screen, which took `secs` seconds to compute.
    Discard { secs: u64 },
}

/// The whole UI state.
#[derive(Debug)]
pub struct State {
    /// The project root as the title bar names it (`jobs::display_root`; the headless harness
    /// uses the directory name alone, so screens stay reproducible).
    pub project_name: String,
    pub backend: BackendChoice,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    pub screen: Screen,
    pub picker: Picker,
    /// The open file; `None` until the first one is read.
    pub code: Option<CodeView>,
    /// A preview set aside while the code view shows a finding's file; `r` returns to it.
    pub parked: Option<Box<Preview>>,
    /// The help overlay and its scroll offset.
    pub help: Option<usize>,
    pub notice: Option<Notice>,
    /// The last refactor written in this session, for `u`.
    pub last_applied: Option<Applied>,
    pub loading: Option<Loading>,
    /// The apply or undo being written, by request id.
    pub writing: Option<Writing>,
    pub keymap: Keymap,
    /// The keys of an unfinished sequence (`z` of `z h`).
    pub pending_keys: Vec<Key>,
    /// A count typed before a command (`52` of `52G`).
    pub count: Option<usize>,
    pub theme: Theme,
    pub spinner: usize,
    pub next_id: u64,
    pub quit: bool,
    /// The files the watcher reports on (the open file and the preview's files).
    pub watched: Vec<String>,
    /// Whether the watcher reports changes of the undo journal.
    pub watching_journal: bool,
    /// What the open file's language server is doing, when one is used.
    pub lsp_status: Option<LspStatus>,
    /// Whether the user trusts the project (`candor trust`, or `T` here), as last read from
    /// the trust store; a change made elsewhere is picked up.
    pub trust: crate::trust::Trust,
    /// The question asked over the screen (trust the project, close a long preview).
    pub question: Option<Question>,
    /// Keys typed while a file picked in the picker is being opened: they are meant for its
    /// code view (`Enter 5 0 G`), and are replayed there once it is shown.
    pub typeahead: Vec<Key>,
    /// How the preview shares the width between the diff and the warning panel.
    pub split: Split,
}

impl State {
    pub fn new(
        project_name: String,
        backend: BackendChoice,
        keymap: Keymap,
        theme: Theme,
        size: (u16, u16),
    ) -> State {
        State {
            project_name,
            backend,
            size,
            screen: Screen::Picker,
            picker: Picker::new(),
            code: None,
            parked: None,
            help: None,
            notice: None,
            last_applied: None,
            loading: None,
            writing: None,
            keymap,
            pending_keys: Vec::new(),
            count: None,
            theme,
            spinner: 0,
            next_id: 1,
            quit: false,
            watched: Vec::new(),
            watching_journal: false,
            lsp_status: None,
            trust: crate::trust::Trust::Untrusted {
                root: std::path::PathBuf::new(),
                why: crate::trust::Untrusted::Never,
            },
            question: None,
            typeahead: Vec::new(),
            split: Split::default(),
        }
    }

    /// Where the preview's parts are, with the split in effect and the room the shown diff
    /// needs (a message instead of a diff takes all it can get).
    pub fn preview_layout(&self) -> layout::PreviewLayout {
        let need = self
            .preview()
            .and_then(|p| {
                p.ready()
                    .and_then(|r| r.diffs.get(p.file))
                    .map(|d| d.width())
            })
            .unwrap_or(u16::MAX);
        layout::preview(self.size, self.split, need)
    }

    pub fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Whether background work is under way (the spinner turns).
    pub fn busy(&self) -> bool {
        self.loading.is_some()
            || self.writing.is_some()
            || self.picker.scanning
            || self
                .preview()
                .is_some_and(|p| p.computing || p.ready().is_some_and(|r| r.check.is_running()))
            || self.lsp_status.as_ref().is_some_and(|s| s.busy)
    }

    /// The preview on screen, else the one set aside.
    pub fn preview(&self) -> Option<&Preview> {
        match &self.screen {
            Screen::Preview { preview, .. } => Some(preview),
            _ => self.parked.as_deref(),
        }
    }

    /// [`State::preview`], to change it.
    pub fn preview_mut(&mut self) -> Option<&mut Preview> {
        match &mut self.screen {
            Screen::Preview { preview, .. } => Some(preview),
            _ => self.parked.as_deref_mut(),
        }
    }

    /// The form on screen, or the one under the preview.
    pub fn form(&self) -> Option<&Form> {
        match &self.screen {
            Screen::Form(form) => Some(form),
            Screen::Preview { form, .. } => form.as_ref(),
            _ => None,
        }
    }

    /// Where keys go now.
    pub fn context(&self) -> Context {
        if self.help.is_some() {
            return Context::Help;
        }
        if self.question.is_some() {
            return Context::Ask;
        }
        match &self.screen {
            Screen::Picker => Context::Picker,
            Screen::Code => match &self.code {
                Some(code) if code.prompt.is_some() => Context::Prompt,
                Some(code) if code.focus == CodeFocus::Outline => Context::Outline,
                _ => Context::Code,
            },
            Screen::Form(_) => Context::Form,
            Screen::Preview { preview, .. } if preview.confirm => Context::Confirm,
            Screen::Preview { preview, .. } if preview.focus == PreviewFocus::Findings => {
                Context::Findings
            }
            Screen::Preview { preview, .. } if preview.focus == PreviewFocus::Sites => {
                Context::Sites
            }
            Screen::Preview { .. } => Context::Preview,
        }
    }

    pub fn info(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice::new(NoticeLevel::Info, text));
    }

    pub fn warn(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice::new(NoticeLevel::Warning, text));
    }

    pub fn error(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice::new(NoticeLevel::Error, text));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// A message above the status line until the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub level: NoticeLevel,
    pub text: String,
}

impl Notice {
    pub fn new(level: NoticeLevel, text: impl Into<String>) -> Notice {
        Notice {
            level,
            text: text.into(),
        }
    }
}

/// A file being read for the code view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loading {
    pub id: u64,
    pub path: String,
    /// 0-based line to put the cursor on; `None` keeps the cursor where it was (same file).
    pub goto: Option<usize>,
    /// Switch to the code view when it is loaded.
    pub show: bool,
}

/// What is being written.
#[derive(Debug, Clone, PartialEq)]
pub enum WritingKind {
    /// The preview of `request`, whose changes are `changes`.
    Apply {
        request: Box<PreviewRequest>,
        changes: Vec<FileChange>,
    },
    Undo,
}

/// The apply or undo being written, by request id.
#[derive(Debug, Clone, PartialEq)]
pub struct Writing {
    pub id: u64,
    pub kind: WritingKind,
}

/// A refactor written in this session.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub tool: Tool,
    pub label: String,
    /// Project-relative paths written.
    pub files: Vec<String>,
    /// The changes as written (their `sha256_after` is what undo expects on disk).
    pub changes: Vec<FileChange>,
    /// The undo journal's id for the write, when there is a journal.
    pub transaction: Option<String>,
}
