//! Undo through the engine, as every front end reaches it: `candor undo` (the last applied
//! refactor, or one by `--id`), its history, the exit status each outcome has in the one table
//! of `error::Exit`, and the JSON account of `candor undo --json` (the only place the hashes of a
//! refused undo are shown: the words name files and lines).

use serde_json::{Value, json};

use crate::edit::merge::Lines;
use crate::workspace::undo::{self, EditedHow, HistoryEntry, UndoError, UndoReport};

use super::Engine;
use super::error::{ApiError, ErrorCode, Exit};

impl Engine {
    /// Undoes the last applied refactor, or transaction `id`. An interrupted write found first is
    /// rolled back, and that is the undo (the report says so).
    pub fn undo(&self, id: Option<&str>) -> Result<UndoReport, ApiError> {
        self.undo_raw(id).map_err(ApiError::from)
    }

    fn undo_raw(&self, id: Option<&str>) -> Result<UndoReport, UndoError> {
        match id {
            Some(id) => undo::undo_transaction(self.root(), id),
            None => undo::undo_last(self.root()),
        }
    }

    /// [`Engine::undo`], answered as JSON (`candor undo --json`): what was restored and merged,
    /// or the error with, for each file that stopped it, how it changed — the lines in conflict,
    /// and the sha256 candor wrote and the one found.
    pub fn undo_json(&self, id: Option<&str>) -> (Value, Exit) {
        match self.undo_raw(id) {
            Ok(report) => (report_json(&report), report.exit()),
            Err(error) => {
                let files = match &error {
                    UndoError::Changed { files, .. } => files.iter().map(edited_json).collect(),
                    _ => Vec::new(),
                };
                let api = ApiError::from(error);
                let mut value = json!({
                    "success": false,
                    "error": {"code": api.code.as_str(), "message": api.message},
                });
                if !files.is_empty() {
                    value["error"]["files"] = Value::Array(files);
                }
                (value, api.code.exit())
            }
        }
    }

    /// The journal's transactions, newest first.
    pub fn history(&self) -> Result<Vec<HistoryEntry>, ApiError> {
        undo::history(self.root()).map_err(|e| ApiError::new(ErrorCode::Io, e.to_string()))
    }
}

fn lines_json(lines: &Lines) -> Value {
    json!({"first": lines.first, "last": lines.last})
}

fn report_json(report: &UndoReport) -> Value {
    let recovered: Vec<Value> = report
        .recovered
        .iter()
        .map(|r| {
            json!({"transaction": r.transaction, "what": r.what, "restored": r.restored,
                   "left": r.left})
        })
        .collect();
    let undone = report.undone.as_ref().map(|u| {
        json!({
            "transaction": u.transaction,
            "undo_transaction": u.undo_transaction,
            "what": u.what,
            "restored": u.restored,
            "removed": u.removed,
            "recreated": u.recreated,
            "already": u.already,
            "merged": u.merged.iter().map(|(path, kept)| json!({
                "path": path,
                "kept": kept.iter().map(lines_json).collect::<Vec<_>>(),
            })).collect::<Vec<_>>(),
            "files": u.files,
        })
    });
    json!({
        "success": true,
        "message": undo::describe_report(report),
        "recovered": recovered,
        "undone": undone,
    })
}

fn edited_json(edited: &undo::Edited) -> Value {
    let (how, conflicts) = match &edited.how {
        EditedHow::Overlaps(conflicts) => ("overlaps", conflicts.clone()),
        EditedHow::CreatedThenEdited => ("created_then_edited", Vec::new()),
        EditedHow::BackAgain => ("back_again", Vec::new()),
        EditedHow::Gone => ("gone", Vec::new()),
        EditedHow::NotAFile(_) => ("not_a_file", Vec::new()),
        EditedHow::NoCopy => ("no_copy_to_merge", Vec::new()),
    };
    json!({
        "path": edited.path,
        "how": how,
        "message": edited.to_string(),
        "sha256_written": edited.expected,
        "sha256_found": edited.found,
        "conflicts": conflicts.iter().map(|c| json!({
            "current": lines_json(&c.current),
            "written": lines_json(&c.written),
        })).collect::<Vec<_>>(),
    })
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
