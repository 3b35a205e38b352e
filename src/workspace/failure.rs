//! What a write can end with besides success (apply, undo, recovery): what was refused, what
//! changed on disk, what had already been written and put back when it failed midway, and the
//! interrupted earlier writes rolled back before it.

use crate::refactor::SourceError;

use super::journal::JournalError;

/// An interrupted transaction found and rolled back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recovery {
    pub transaction: String,
    /// The tool's name, or `undo of <id>`.
    pub what: String,
    /// Files put back as they were (or, if the transaction created them, removed).
    pub restored: Vec<String>,
    /// Files that could not be restored, each with the reason.
    pub left: Vec<String>,
    /// Set when the entry was not signed with this user's journal key: nothing was restored
    /// from it; says why and where it was set aside.
    pub ignored: Option<String>,
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(ignored) = &self.ignored {
            return write!(
                f,
                "the undo journal entry {} ({}) was ignored and nothing was restored from it: {ignored}",
                self.transaction, self.what
            );
        }
        write!(
            f,
            "an interrupted write (transaction {}, {}) was rolled back",
            self.transaction, self.what
        )?;
        if self.restored.is_empty() {
            write!(f, "; it had not changed any file yet")?;
        } else {
            write!(f, "; restored: {}", self.restored.join(", "))?;
        }
        if !self.left.is_empty() {
            write!(f, "; NOT restored: {}", self.left.join("; "))?;
        }
        Ok(())
    }
}

/// What was already done when a write failed midway.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Failure {
    /// Files that had been written and were put back as they were.
    pub restored: Vec<String>,
    /// Files that had been written and could not be put back, each with the reason.
    pub not_restored: Vec<String>,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.restored.is_empty() && self.not_restored.is_empty() {
            return write!(f, "nothing was written");
        }
        if !self.restored.is_empty() {
            write!(
                f,
                "the files already written were restored: {}",
                self.restored.join(", ")
            )?;
        }
        if !self.not_restored.is_empty() {
            if !self.restored.is_empty() {
                write!(f, "; ")?;
            }
            write!(f, "NOT restored: {}", self.not_restored.join("; "))?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error(
        "{path} changed on disk since the preview was computed (expected sha256 {expected}, found {found}); {done} — preview again and re-apply"
    )]
    Stale {
        path: String,
        expected: String,
        found: String,
        done: Failure,
    },
    #[error("{path} already exists, but the plan would create it; {done} — preview again")]
    AlreadyExists { path: String, done: Failure },
    #[error("{0}")]
    Source(#[from] SourceError),
    /// The plan asks for something the writer never does (write into `.candor/`, write one file
    /// twice).
    #[error("{path} {reason}; nothing was written")]
    Refused { path: String, reason: String },
    #[error("writing {path} failed: {message}; {done}")]
    Io {
        path: String,
        message: String,
        done: Failure,
    },
    #[error(transparent)]
    Journal(#[from] JournalError),
    /// The write failed after interrupted earlier writes were rolled back: said first, since a
    /// file the rollback restored is then stale for the plan.
    #[error("{}; then {error}", recovered.join("; "))]
    AfterRecovery {
        recovered: Vec<String>,
        error: Box<WriteError>,
    },
}

impl WriteError {
    /// The error, saying also which interrupted earlier writes were rolled back before it: a
    /// stale file right after a recovery is the recovery's doing, and the caller must know.
    pub fn after_recovery(self, recovered: &[Recovery]) -> WriteError {
        if recovered.is_empty() {
            return self;
        }
        WriteError::AfterRecovery {
            recovered: recovered.iter().map(ToString::to_string).collect(),
            error: Box::new(self),
        }
    }
}
