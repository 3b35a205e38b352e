//! What `update` asks the runtime to do. Effects are values: the runtime performs them on
//! worker threads (tests perform them in line) and answers with actions.

use crate::api::ToolCall;
use crate::backend::Outcome;
use crate::edit::FileChange;

#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Walk the project for Rust and Python files, answering with `FilesFound` batches.
    StartWalk,
    /// Read and prepare a file for the code view.
    LoadFile { id: u64, path: String },
    /// Compute the typed call without writing, as `candor call` does once it has parsed its
    /// JSON. It supersedes the preview being computed, whose language-server requests are
    /// cancelled.
    Preview { id: u64, call: Box<ToolCall> },
    /// Check the outcome of `call` with the project's own tools (`level`: the check, or the
    /// tests too) on the check thread; it supersedes the check running, which is cancelled
    /// (its processes killed). Nothing is written.
    Verify {
        id: u64,
        call: Box<ToolCall>,
        outcome: Box<Outcome>,
        level: crate::verify::Level,
    },
    /// Nobody waits for the check any more: cancel it.
    CancelVerify,
    /// Nobody waits for the preview any more: drop a queued one and cancel the one being
    /// computed (its language-server request gets `$/cancelRequest`).
    CancelPreview,
    /// Write exactly this outcome (the call's plan as previewed) through the engine, which
    /// refuses if the plan computed now is not this one.
    Apply {
        id: u64,
        outcome: Box<Outcome>,
        call: Box<ToolCall>,
    },
    /// Restore the files of the last refactor written.
    Undo {
        id: u64,
        changes: Vec<FileChange>,
        transaction: Option<String>,
    },
    /// Watch exactly these project-relative paths from now on.
    Watch(Vec<String>),
    /// Watch the undo journal (while undo is offered) or stop.
    WatchJournal(bool),
    /// Read the journal's state of `transaction`, answering with `UndoChecked`.
    CheckUndo { transaction: String },
    /// Start the language server for this file in the background, so the first refactor does
    /// not wait for it to load the project.
    WarmUp { path: String },
    /// Read the project's trust from the trust store, answering with `TrustRead` (and keep
    /// watching the store).
    ReadTrust,
    /// Trust the project (`true`) or stop trusting it, through the trust store; answers with
    /// `TrustSet`.
    SetTrust(bool),
    /// Open the engine again with the trust now recorded (its language servers, rope and the
    /// check start with the new rules), answering with `EngineReopened`. The preview being
    /// computed is dropped: the UI asks for it again.
    ReopenEngine,
    /// Look whether the project folder `dir` exists (the move form's target), answering with
    /// `FolderChecked`.
    CheckFolder(String),
    /// Remember how the preview splits the width, in the user's config folder.
    SaveSplit(crate::tui::layout::Split),
}
