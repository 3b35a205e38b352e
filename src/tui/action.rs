//! What can happen to the UI: the user's keys, mouse and paste, the terminal's size, the clock,
//! and the answers of background work (each tagged with the id of its request).

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use crate::api::ApiError;
use crate::workspace::write::ApplyReport;

use super::document::Document;
use super::state::{LspStatus, Ready};

/// What an undo restored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoDone {
    /// Every file of the refactor (restored, removed, recreated, merged or already as before).
    pub files: Vec<String>,
    /// For each file edited since candor wrote it where the undo kept those edits, what it
    /// did, in a sentence.
    pub merged: Vec<String>,
}

/// Why an undo restored nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoRefused {
    pub message: String,
    /// The journal has nothing of that refactor left to undo (it was undone already, or is gone).
    pub nothing_left: bool,
}

#[derive(Debug, Clone)]
pub enum Action {
    Key(KeyEvent),
    Mouse(MouseEvent),
    Paste(String),
    Resize(u16, u16),
    /// The spinner's clock, while work is pending.
    Tick,
    /// A batch of project files found by the walk (project-relative paths).
    FilesFound(Vec<String>),
    /// The persistent index is being built or brought up to date before the files are listed:
    /// `done` of `total` files read.
    IndexProgress {
        done: usize,
        total: usize,
    },
    /// The walk is over; `error` when it could not run.
    WalkFinished {
        error: Option<String>,
    },
    FileLoaded {
        id: u64,
        result: Result<Box<Document>, String>,
    },
    PreviewReady {
        id: u64,
        result: Result<Box<Ready>, ApiError>,
    },
    /// The check `id` started a step ("running cargo check after the refactor").
    CheckProgress {
        id: u64,
        step: String,
        /// Files done and in all, when the step covers files.
        files: Option<(usize, usize)>,
    },
    /// The check `id` answered.
    Checked {
        id: u64,
        verification: Box<crate::verify::Verification>,
    },
    Applied {
        id: u64,
        result: Result<ApplyReport, ApiError>,
    },
    /// Undo finished: the restored paths, or why nothing was restored.
    Undone {
        id: u64,
        result: Result<UndoDone, UndoRefused>,
    },
    /// Something changed in the undo journal (`.candor/journal/`), e.g. `candor undo` in a shell.
    JournalChanged,
    /// The terminal got the focus back (the user may have run `candor undo` meanwhile).
    FocusGained,
    /// The journal says this about `transaction`: `applied` (still undoable), `undone by …`,
    /// or `None` when it is no longer there.
    UndoChecked {
        transaction: String,
        state: Option<String>,
    },
    /// Watched files changed on disk: each path with the sha256 of what it holds now (`None`
    /// when it is gone).
    FilesChanged(Vec<(String, Option<String>)>),
    /// What the open file's language server is doing (`None`: not started).
    LspStatus(Option<LspStatus>),
    /// The trust store (`$XDG_CONFIG_HOME/candor/trusted.toml`) changed: `candor trust` ran
    /// somewhere.
    TrustStoreChanged,
    /// The project's trust as read now (or why it cannot be read).
    TrustRead(Result<crate::trust::Trust, String>),
    /// The project's trust after the user trusted it or stopped trusting it here.
    TrustSet(Result<crate::trust::Trust, String>),
    /// Background work failed in a way the user should read (e.g. the split could not be saved).
    Failed(String),
    /// Whether the project folder `dir` exists (for the move form).
    FolderChecked {
        dir: String,
        exists: bool,
    },
    /// The engine was opened again (after a change of trust), with this trust.
    EngineReopened {
        trust: crate::trust::Trust,
    },
}
