//! Writing a plan: the entry point `Engine::apply` (and through it `candor call`, MCP and the
//! TUI) uses, and the errors every write can end with. The work is done by `transaction`: every
//! file must still hold the bytes the plan was computed from (and those the caller previewed),
//! the before-images are journaled under `.candor/`, each file is replaced atomically, and if one
//! fails the files already written are restored.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::edit::FileChange;
use crate::refactor::SourceError;

use super::Root;
use super::journal::{Journal, JournalError};
use super::transaction::{self, Hooks, Origin, Planned, Recovery};

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
}

/// What an apply wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyReport {
    pub written: Vec<String>,
    pub created: Vec<String>,
    /// The undo journal entry of this write, when one was recorded.
    pub transaction: Option<String>,
    /// Interrupted earlier writes found and rolled back before this one.
    pub recovered: Vec<Recovery>,
}

/// The hash of what is on disk now at `path` (`None` when the file does not exist).
pub fn current_sha256(real: &Path) -> std::io::Result<Option<String>> {
    super::replace::hash_of(real)
}

/// Applies `changes` as one transaction. `expected` maps project paths to the sha256 the caller
/// previewed; both it and each change's base hash must match the disk.
pub fn apply(
    root: &Root,
    changes: &[FileChange],
    expected: &BTreeMap<String, String>,
    tool: crate::honesty::Tool,
) -> Result<ApplyReport, WriteError> {
    apply_with_hooks(root, changes, expected, tool, &Hooks::from_env())
}

/// [`apply`] with explicit test hooks.
#[doc(hidden)]
pub fn apply_with_hooks(
    root: &Root,
    changes: &[FileChange],
    expected: &BTreeMap<String, String>,
    tool: crate::honesty::Tool,
    hooks: &Hooks,
) -> Result<ApplyReport, WriteError> {
    let journal = Journal::open(root)?;
    let recovered = transaction::recover(&journal, root)?;
    let planned = changes
        .iter()
        .map(|c| Planned {
            path: c.path.clone(),
            expected: c.sha256_before.clone(),
            new: Some(c.after_bytes()),
        })
        .collect();
    let id = transaction::write(
        &journal,
        root,
        planned,
        expected,
        Origin::Apply(tool),
        hooks,
    )?;
    Ok(ApplyReport {
        written: changes.iter().map(|c| c.path.clone()).collect(),
        created: changes
            .iter()
            .filter(|c| c.created())
            .map(|c| c.path.clone())
            .collect(),
        transaction: Some(id),
        recovered,
    })
}

/// Replaces `path` with `bytes` without any check or journal: a temp file in the same directory,
/// fsynced, renamed over the original, with the original's permissions (a new file gets the
/// directory's default mode). For candor's own files; project files go through [`apply`].
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| std::io::Error::other("the path has no parent directory"))?;
    let permissions = std::fs::metadata(path).map(|m| m.permissions()).ok();
    let mut temp = tempfile::Builder::new()
        .prefix(".candor-")
        .suffix(".tmp")
        .tempfile_in(dir)?;
    temp.write_all(bytes)?;
    temp.as_file().sync_all()?;
    match permissions {
        Some(p) => std::fs::set_permissions(temp.path(), p)?,
        None => {
            use std::os::unix::fs::PermissionsExt;
            let mode = 0o666 & !super::replace::current_umask();
            std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(mode))?;
        }
    }
    temp.persist(path).map_err(|e| e.error)?;
    super::replace::sync_dir(dir)
}
