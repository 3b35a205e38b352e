//! Undo through the engine, as every front end reaches it: `candor undo` (the last applied
//! refactor, or one by `--id`), its history, and the exit status each outcome has in the one
//! table of `error::Exit`.

use crate::workspace::undo::{self, HistoryEntry, UndoReport};

use super::Engine;
use super::error::{ApiError, ErrorCode, Exit};

impl Engine {
    /// Undoes the last applied refactor, or transaction `id`. An interrupted write found first is
    /// rolled back, and that is the undo (the report says so).
    pub fn undo(&self, id: Option<&str>) -> Result<UndoReport, ApiError> {
        let report = match id {
            Some(id) => undo::undo_transaction(self.root(), id),
            None => undo::undo_last(self.root()),
        };
        report.map_err(ApiError::from)
    }

    /// The journal's transactions, newest first.
    pub fn history(&self) -> Result<Vec<HistoryEntry>, ApiError> {
        undo::history(self.root()).map_err(|e| ApiError::new(ErrorCode::Io, e.to_string()))
    }
}

impl UndoReport {
    /// The exit status of an undo that ran: done, or done in part (a file could not be restored;
    /// it is named, and the next undo moves on).
    pub fn exit(&self) -> Exit {
        if self.incomplete() {
            Exit::Incomplete
        } else {
            Exit::Success
        }
    }
}
