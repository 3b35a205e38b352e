//! Writing a plan: every file must still hold the bytes the plan was computed from (and those
//! the caller previewed), then each file is replaced atomically (temp file in its own
//! directory, fsync, rename, permissions kept); if one fails, those already written are
//! restored.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::edit::{FileChange, sha256_hex};
use crate::refactor::SourceError;

use super::Root;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    #[error(
        "{path} changed on disk since the preview was computed (expected sha256 {expected}, found {found}); nothing was written — preview again and re-apply"
    )]
    Stale {
        path: String,
        expected: String,
        found: String,
    },
    #[error(
        "{path} already exists, but the plan would create it; nothing was written — preview again"
    )]
    AlreadyExists { path: String },
    #[error("{0}")]
    Source(#[from] SourceError),
    #[error("writing {path} failed: {message}; {}", restored_note(.restored))]
    Io {
        path: String,
        message: String,
        restored: Vec<String>,
    },
}

fn restored_note(restored: &[String]) -> String {
    if restored.is_empty() {
        "no file was changed".to_string()
    } else {
        format!(
            "the files already written were restored: {}",
            restored.join(", ")
        )
    }
}

/// What an apply wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyReport {
    pub written: Vec<String>,
    pub created: Vec<String>,
    /// The undo journal entry of this write, when one was recorded.
    pub transaction: Option<String>,
}

/// The hash of what is on disk now at `path` (`None` when the file does not exist).
pub fn current_sha256(real: &Path) -> std::io::Result<Option<String>> {
    match std::fs::read(real) {
        Ok(bytes) => Ok(Some(sha256_hex(&bytes))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Applies `changes` as one unit. `expected` maps project paths to the sha256 the caller
/// previewed; both it and each change's base hash must match the disk.
pub fn apply(
    root: &Root,
    changes: &[FileChange],
    expected: &BTreeMap<String, String>,
    tool: crate::honesty::Tool,
) -> Result<ApplyReport, WriteError> {
    let _ = tool;
    let mut targets: Vec<(PathBuf, &FileChange, Option<Vec<u8>>)> = Vec::new();
    for change in changes {
        let resolved = root.resolve(&change.path)?;
        let current = match std::fs::read(&resolved.real) {
            Ok(bytes) => Some(bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(WriteError::Io {
                    path: change.path.clone(),
                    message: e.to_string(),
                    restored: Vec::new(),
                });
            }
        };
        let found = current.as_deref().map(sha256_hex);
        match (&change.sha256_before, &found) {
            (None, Some(_)) => {
                return Err(WriteError::AlreadyExists {
                    path: change.path.clone(),
                });
            }
            (Some(want), Some(have)) if want != have => {
                return Err(WriteError::Stale {
                    path: change.path.clone(),
                    expected: want.clone(),
                    found: have.clone(),
                });
            }
            (Some(want), None) => {
                return Err(WriteError::Stale {
                    path: change.path.clone(),
                    expected: want.clone(),
                    found: "nothing (the file is gone)".to_string(),
                });
            }
            _ => {}
        }
        if let Some(want) = expected.get(&change.path) {
            let have = found
                .clone()
                .unwrap_or_else(|| "nothing (no such file)".to_string());
            if !want.eq_ignore_ascii_case(&have) {
                return Err(WriteError::Stale {
                    path: change.path.clone(),
                    expected: want.clone(),
                    found: have,
                });
            }
        }
        targets.push((resolved.real, change, current));
    }

    let mut done: Vec<(PathBuf, &FileChange, Option<Vec<u8>>)> = Vec::new();
    for (real, change, before) in targets {
        if let Err(e) = write_atomically(&real, &change.after_bytes()) {
            let mut restored = Vec::new();
            for (path, change, before) in done.into_iter().rev() {
                let ok = match before {
                    Some(bytes) => write_atomically(&path, &bytes).is_ok(),
                    None => std::fs::remove_file(&path).is_ok(),
                };
                if ok {
                    restored.push(change.path.clone());
                }
            }
            return Err(WriteError::Io {
                path: change.path.clone(),
                message: e.to_string(),
                restored,
            });
        }
        done.push((real, change, before));
    }
    Ok(ApplyReport {
        written: changes.iter().map(|c| c.path.clone()).collect(),
        created: changes
            .iter()
            .filter(|c| c.created())
            .map(|c| c.path.clone())
            .collect(),
        transaction: None,
    })
}

/// Replaces `path` with `bytes`: a temp file in the same directory, fsynced, renamed over the
/// original, with the original's permissions (a new file gets the directory's default mode).
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
            let mode = 0o666 & !current_umask();
            std::fs::set_permissions(temp.path(), std::fs::Permissions::from_mode(mode))?;
        }
    }
    temp.persist(path).map_err(|e| e.error)?;
    if let Ok(dir) = std::fs::File::open(dir) {
        let _ = dir.sync_all();
    }
    Ok(())
}

/// The process umask, read without changing it for other threads for long: `/proc` when
/// available, else the conventional 022.
fn current_umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}
