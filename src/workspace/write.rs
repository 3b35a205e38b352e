//! Writing a plan: the entry point `Engine::apply` (and through it `candor call`, MCP and the
//! TUI) uses. The work is done by `transaction`: every file must still hold the bytes the plan
//! was computed from (and those the caller previewed), the before-images are journaled under
//! `.candor/`, each file is replaced atomically, and if one fails the files already written are
//! restored. Also the recovery a preview runs first, so it is never computed on the files of an
//! interrupted write.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

use crate::edit::FileChange;

use super::Root;
use super::journal::{Journal, JournalError};
use super::transaction::{self, Hooks, Origin, Planned, Recovery};

pub use super::failure::{Failure, WriteError};

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

/// Rolls back the interrupted writes of the project, if any, before anything is computed from
/// its files. Cheap when there is nothing to do (no journal, or no pending entry: nothing is
/// created or locked). When another candor process holds the lock it is writing right now, and
/// its pending entry is not interrupted: nothing is done.
pub fn recover_interrupted(root: &Root) -> Result<Vec<Recovery>, JournalError> {
    let history = super::journal::read_history(root)?;
    if !history
        .iter()
        .any(|e| e.state == super::journal::State::Pending)
    {
        return Ok(Vec::new());
    }
    match Journal::try_open_existing(root)? {
        Some(journal) => transaction::recover(&journal, root),
        None => Ok(Vec::new()),
    }
}

/// Applies `changes` as one transaction. `expected` maps project paths to the sha256 the caller
/// previewed; both it and each change's base hash must match the disk.
pub fn apply(
    root: &Root,
    changes: &[FileChange],
    expected: &BTreeMap<String, String>,
    tool: crate::honesty::Tool,
) -> Result<ApplyReport, WriteError> {
    apply_with_hooks(root, changes, expected, tool, &Hooks::standard())
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
    )
    .map_err(|e| e.after_recovery(&recovered))?;
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
    std::fs::File::open(dir)?.sync_all()
}
