//! What can happen to the UI: the user's keys, mouse and paste, the terminal's size, the clock,
//! and the answers of background work (each tagged with the id of its request).

use ratatui::crossterm::event::{KeyEvent, MouseEvent};

use crate::api::ApiError;
use crate::workspace::write::ApplyReport;

use super::document::Document;
use super::state::{LspStatus, Ready};

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
    Applied {
        id: u64,
        result: Result<ApplyReport, ApiError>,
    },
    /// Undo finished: the restored paths, or why nothing was restored.
    Undone {
        id: u64,
        result: Result<Vec<String>, String>,
    },
    /// Watched files changed on disk: each path with the sha256 of what it holds now (`None`
    /// when it is gone).
    FilesChanged(Vec<(String, Option<String>)>),
    /// What the open file's language server is doing (`None`: not started).
    LspStatus(Option<LspStatus>),
}
