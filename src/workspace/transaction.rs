//! One write transaction, the only way candor changes project files (apply and undo both go
//! through it): under the project lock, every file is checked against the hash it must have, the
//! before-images are journaled and fsynced, the files are replaced one by one (see `replace`),
//! then the transaction is marked committed. If anything fails midway, the files already written
//! are restored from the journal and the error says which.
//!
//! The recovery rule, applied at the start of every write and of `candor undo`: a transaction
//! found published but not committed is **rolled back**, never completed — its writer died before
//! telling anyone it had succeeded. A file is restored only if it still holds exactly what the
//! transaction wrote; one that holds its old content was never written; one that holds anything
//! else was changed by someone since, and is left alone (its old bytes stay in the journal).

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::edit::sha256_hex;
use crate::honesty::Tool;

use super::Root;
use super::journal::{self, FileRecord, Journal, JournalError, Kind, Manifest, NewEntry, State};
use super::replace::{self, ReplaceError, hash_of, read_regular, sync_dir};
use super::write::{Failure, WriteError};

/// Test hooks, inert unless set. `CANDOR_TEST_PAUSE_BETWEEN_FILES_MS=N` makes the writer sleep N
/// ms before each step (each journal image, publishing the journal, each file, the commit) so a
/// test can kill it mid-transaction.
#[doc(hidden)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hooks {
    pub pause: Option<Duration>,
    /// Fail with an I/O error just before writing file number n (0-based).
    pub fail_before_file: Option<usize>,
}

impl Hooks {
    /// The hooks the environment asks for (none in normal use).
    pub fn from_env() -> Hooks {
        Hooks {
            pause: std::env::var("CANDOR_TEST_PAUSE_BETWEEN_FILES_MS")
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok())
                .filter(|ms| *ms > 0)
                .map(Duration::from_millis),
            fail_before_file: None,
        }
    }

    fn step(&self) {
        if let Some(pause) = self.pause {
            std::thread::sleep(pause);
        }
    }
}

/// One file of a transaction: from `expected` (sha256; `None` = must not exist) to `new`
/// (`None` = remove it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Planned {
    pub path: String,
    pub expected: Option<String>,
    pub new: Option<Vec<u8>>,
}

/// Why a transaction writes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Origin {
    Apply(Tool),
    /// Reverting transaction `of`; `remove_dirs` are the folders it had created, removed (when
    /// empty) once the files are written and before the commit, so a crash cannot leave them.
    Undo {
        of: String,
        remove_dirs: Vec<String>,
    },
}

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
}

impl std::fmt::Display for Recovery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
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

/// What rolling back did to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Outcome {
    /// Put back as it was (or removed, when the transaction had created it).
    Restored,
    /// Still held its old content: it had not been written.
    Unchanged,
    /// Holds something the transaction did not write; left alone.
    Changed {
        found: Option<String>,
    },
    Failed {
        message: String,
    },
}

/// A file resolved, read and checked, ready to be written.
struct Target {
    planned: Planned,
    relative: String,
    real: PathBuf,
    current: Option<Vec<u8>>,
    /// Directories to create for a new file, innermost first.
    missing_dirs: Vec<PathBuf>,
}

/// Rolls back every pending transaction of the journal (see the module doc for the rule).
pub(crate) fn recover(journal: &Journal, root: &Root) -> Result<Vec<Recovery>, JournalError> {
    journal.clean_leftovers();
    let mut recovered = Vec::new();
    for entry in journal.entries()? {
        if entry.state != State::Pending {
            continue;
        }
        let manifest = &entry.manifest;
        let outcomes = roll_back(journal, root, manifest, manifest.files.len());
        let recovery = Recovery {
            transaction: manifest.id.clone(),
            what: describe(manifest),
            restored: outcomes
                .iter()
                .filter(|(_, o)| *o == Outcome::Restored)
                .map(|(i, _)| manifest.files[*i].path.clone())
                .collect(),
            left: outcomes
                .iter()
                .filter_map(|(i, o)| not_restored(journal, manifest, *i, o))
                .collect(),
        };
        // An I/O failure leaves the entry pending, so the next start tries again; a file changed
        // by someone since is final (theirs wins), and so is the rollback.
        if !outcomes
            .iter()
            .any(|(_, o)| matches!(o, Outcome::Failed { .. }))
        {
            let note = (!recovery.left.is_empty()).then(|| recovery.left.join("; "));
            journal.set_state(&manifest.id, &State::RolledBack { note })?;
        }
        recovered.push(recovery);
    }
    Ok(recovered)
}

/// "refactor_extract_function" or "undo of 000003-…".
pub(crate) fn describe(manifest: &Manifest) -> String {
    match (manifest.kind, &manifest.tool, &manifest.undoes) {
        (Kind::Undo, _, Some(of)) => format!("undo of {of}"),
        (_, Some(tool), _) => tool.clone(),
        _ => "unknown".to_string(),
    }
}

fn not_restored(
    journal: &Journal,
    manifest: &Manifest,
    index: usize,
    outcome: &Outcome,
) -> Option<String> {
    let path = &manifest.files[index].path;
    let image = if manifest.files[index].sha256_before.is_some() {
        format!(
            "; its earlier content is in {}",
            journal.image_path(&manifest.id, index)
        )
    } else {
        String::new()
    };
    match outcome {
        Outcome::Restored | Outcome::Unchanged => None,
        Outcome::Changed { .. } => Some(format!(
            "{path} was changed by something else since, and was left as it is{image}"
        )),
        Outcome::Failed { message } => Some(format!("{path}: {message}{image}")),
    }
}

/// Writes `planned` as one transaction; `guards` are extra (path → sha256) expectations of the
/// caller, checked with the rest before anything is written. Returns the transaction id.
/// The caller holds `journal` (the lock) and has run [`recover`].
pub(crate) fn write(
    journal: &Journal,
    root: &Root,
    planned: Vec<Planned>,
    guards: &BTreeMap<String, String>,
    origin: Origin,
    hooks: &Hooks,
) -> Result<String, WriteError> {
    let targets = prepare(root, planned)?;
    check_guards(root, guards)?;

    let mut created_dirs = Vec::new();
    for target in &targets {
        for dir in target.missing_dirs.iter().rev() {
            if let Some(relative) = root.relative_of(dir)
                && !created_dirs.contains(&relative)
            {
                created_dirs.push(relative);
            }
        }
    }
    let (kind, tool, undoes, remove_dirs) = match origin {
        Origin::Apply(tool) => (Kind::Apply, Some(tool.name().to_string()), None, Vec::new()),
        Origin::Undo { of, remove_dirs } => (Kind::Undo, None, Some(of), remove_dirs),
    };
    let manifest = journal.begin(
        NewEntry {
            kind,
            tool,
            undoes,
            files: targets
                .iter()
                .map(|t| FileRecord {
                    path: t.relative.clone(),
                    sha256_before: t.planned.expected.clone(),
                    sha256_after: t.planned.new.as_deref().map(sha256_hex),
                })
                .collect(),
            images: targets.iter().map(|t| t.current.as_deref()).collect(),
            created_dirs,
        },
        &|| hooks.step(),
    )?;

    for (index, target) in targets.iter().enumerate() {
        hooks.step();
        if let Err(failure) = write_one(target, index, &manifest.id, hooks) {
            let (restored, not_restored) = roll_back_failed(journal, root, &manifest, index + 1);
            return Err(failure.into_error(target, restored, not_restored));
        }
    }
    remove_empty_dirs(root, &remove_dirs);
    hooks.step();
    if let Err(e) = journal.set_state(&manifest.id, &State::Committed) {
        let (restored, not_restored) = roll_back_failed(journal, root, &manifest, targets.len());
        return Err(WriteError::Io {
            path: format!("{}/journal/{}", journal::CANDOR_DIR, manifest.id),
            message: e.to_string(),
            done: Failure {
                restored,
                not_restored,
            },
        });
    }
    // Pruning is housekeeping: a failure there must not turn a successful write into an error.
    let _ = journal.prune(journal::MAX_TRANSACTIONS);
    Ok(manifest.id)
}

/// Why writing one file failed.
enum FileFailure {
    Replace(ReplaceError),
    Io(std::io::Error),
}

impl FileFailure {
    fn into_error(
        self,
        target: &Target,
        restored: Vec<String>,
        not_restored: Vec<String>,
    ) -> WriteError {
        let done = Failure {
            restored,
            not_restored,
        };
        let path = target.relative.clone();
        let expected = target
            .planned
            .expected
            .clone()
            .unwrap_or_else(|| "no file".to_string());
        match self {
            FileFailure::Replace(ReplaceError::Changed { found }) => WriteError::Stale {
                path,
                expected,
                found: found.unwrap_or_else(|| "nothing (the file is gone)".to_string()),
                done,
            },
            FileFailure::Replace(ReplaceError::Exists) => WriteError::AlreadyExists { path, done },
            FileFailure::Replace(ReplaceError::Stranded { kept }) => WriteError::Io {
                path,
                message: format!(
                    "other programs wrote it while candor was writing it; their newest version is in place, and an intermediate version was kept at {}",
                    kept.display()
                ),
                done,
            },
            FileFailure::Replace(ReplaceError::Io(e)) | FileFailure::Io(e) => WriteError::Io {
                path,
                message: e.to_string(),
                done,
            },
        }
    }
}

fn write_one(target: &Target, index: usize, tag: &str, hooks: &Hooks) -> Result<(), FileFailure> {
    if hooks.fail_before_file == Some(index) {
        return Err(FileFailure::Io(std::io::Error::other(
            "injected failure (test hook)",
        )));
    }
    for dir in target.missing_dirs.iter().rev() {
        match std::fs::create_dir(dir) {
            Ok(()) => {
                if let Some(parent) = dir.parent() {
                    sync_dir(parent).map_err(FileFailure::Io)?;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => {}
            Err(e) => return Err(FileFailure::Io(e)),
        }
    }
    replace::replace(
        &target.real,
        target.planned.expected.as_deref(),
        target.planned.new.as_deref(),
        tag,
    )
    .map_err(FileFailure::Replace)
}

/// Rolls back the first `upto` files after a failure; returns (restored, not restored) for the
/// error message, and records the outcome in the journal.
fn roll_back_failed(
    journal: &Journal,
    root: &Root,
    manifest: &Manifest,
    upto: usize,
) -> (Vec<String>, Vec<String>) {
    let outcomes = roll_back(journal, root, manifest, upto);
    let restored: Vec<String> = outcomes
        .iter()
        .filter(|(_, o)| *o == Outcome::Restored)
        .map(|(i, _)| manifest.files[*i].path.clone())
        .collect();
    // The file that failed (the last one) holds someone else's content when it was stale: that is
    // not a file we failed to restore.
    let not_restored: Vec<String> = outcomes
        .iter()
        .filter(|(i, o)| !(*i + 1 == upto && matches!(o, Outcome::Changed { .. })))
        .filter_map(|(i, o)| not_restored(journal, manifest, *i, o))
        .collect();
    if !outcomes
        .iter()
        .any(|(_, o)| matches!(o, Outcome::Failed { .. }))
    {
        let note = (!not_restored.is_empty()).then(|| not_restored.join("; "));
        let _ = journal.set_state(&manifest.id, &State::RolledBack { note });
    }
    (restored, not_restored)
}

/// Restores, newest first, each of the first `upto` files of `manifest` that still holds what the
/// transaction wrote; removes the temp files it may have left and the folders it created, if
/// empty.
fn roll_back(
    journal: &Journal,
    root: &Root,
    manifest: &Manifest,
    upto: usize,
) -> Vec<(usize, Outcome)> {
    let mut outcomes = Vec::new();
    let mut dirs = HashSet::new();
    for index in (0..upto.min(manifest.files.len())).rev() {
        let record = &manifest.files[index];
        let resolved = match root.resolve(&record.path) {
            Ok(resolved) => resolved,
            Err(e) => {
                outcomes.push((
                    index,
                    Outcome::Failed {
                        message: e.to_string(),
                    },
                ));
                continue;
            }
        };
        if let Some(dir) = resolved.real.parent() {
            dirs.insert(dir.to_path_buf());
        }
        outcomes.push((
            index,
            roll_back_file(journal, manifest, index, &resolved.real),
        ));
    }
    for dir in dirs {
        remove_temps(&dir, &manifest.id);
    }
    remove_empty_dirs(root, &manifest.created_dirs);
    outcomes.sort_by_key(|(i, _)| *i);
    outcomes
}

fn roll_back_file(journal: &Journal, manifest: &Manifest, index: usize, real: &Path) -> Outcome {
    let record = &manifest.files[index];
    if record.sha256_before == record.sha256_after {
        return Outcome::Unchanged;
    }
    let current = match hash_of(real) {
        Ok(current) => current,
        Err(e) => {
            return Outcome::Failed {
                message: e.to_string(),
            };
        }
    };
    if current == record.sha256_before {
        return Outcome::Unchanged;
    }
    if current != record.sha256_after {
        return Outcome::Changed { found: current };
    }
    let image = match journal.before_image(manifest, index) {
        Ok(image) => image,
        Err(e) => {
            return Outcome::Failed {
                message: e.to_string(),
            };
        }
    };
    // Restoring a file an undo removed: its folder may have been removed with it.
    if let (Some(_), Some(parent)) = (&image, real.parent())
        && let Err(e) = std::fs::create_dir_all(parent)
    {
        return Outcome::Failed {
            message: e.to_string(),
        };
    }
    match replace::replace(
        real,
        record.sha256_after.as_deref(),
        image.as_deref(),
        &manifest.id,
    ) {
        Ok(()) => Outcome::Restored,
        Err(ReplaceError::Changed { found }) => Outcome::Changed { found },
        Err(ReplaceError::Exists) => Outcome::Changed { found: None },
        Err(ReplaceError::Stranded { kept }) => Outcome::Failed {
            message: format!(
                "other programs wrote it during the rollback; their newest version is in place, an intermediate one was kept at {}",
                kept.display()
            ),
        },
        Err(ReplaceError::Io(e)) => Outcome::Failed {
            message: e.to_string(),
        },
    }
}

/// Deletes the temp files of transaction `tag` in `dir` (left by an interrupted write).
fn remove_temps(dir: &Path, tag: &str) {
    let prefix = replace::temp_prefix(tag);
    if let Ok(read) = std::fs::read_dir(dir) {
        for entry in read.flatten() {
            if entry.file_name().to_string_lossy().starts_with(&prefix) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Removes the folders a transaction created (innermost first) when they are empty.
pub(crate) fn remove_empty_dirs(root: &Root, created: &[String]) {
    for relative in created.iter().rev() {
        if let Ok(resolved) = root.resolve(relative)
            && std::fs::remove_dir(&resolved.real).is_ok()
            && let Some(parent) = resolved.real.parent()
        {
            let _ = sync_dir(parent);
        }
    }
}

/// Resolves, reads and checks every planned file; nothing is written if one fails.
fn prepare(root: &Root, planned: Vec<Planned>) -> Result<Vec<Target>, WriteError> {
    let candor = root.path().join(journal::CANDOR_DIR);
    let mut seen = HashSet::new();
    let mut targets = Vec::new();
    for planned in planned {
        let resolved = root.resolve(&planned.path)?;
        let relative = resolved.relative.clone();
        if resolved.real.starts_with(&candor) || resolved.absolute.starts_with(&candor) {
            return Err(WriteError::Refused {
                path: relative,
                reason: "is inside .candor/, candor's own folder (its journal and settings), not a project file".to_string(),
            });
        }
        if !seen.insert(resolved.real.clone()) {
            return Err(WriteError::Refused {
                path: relative,
                reason: "is written twice by this plan (two of its paths lead to the same file through a symbolic link)"
                    .to_string(),
            });
        }
        let current = read_regular(&resolved.real).map_err(|e| WriteError::Io {
            path: relative.clone(),
            message: e.to_string(),
            done: Failure::default(),
        })?;
        let found = current.as_deref().map(sha256_hex);
        match (&planned.expected, &found) {
            (None, Some(_)) => {
                return Err(WriteError::AlreadyExists {
                    path: relative,
                    done: Failure::default(),
                });
            }
            (Some(want), found) if Some(want) != found.as_ref() => {
                return Err(WriteError::Stale {
                    path: relative,
                    expected: want.clone(),
                    found: found
                        .clone()
                        .unwrap_or_else(|| "nothing (the file is gone)".to_string()),
                    done: Failure::default(),
                });
            }
            _ => {}
        }
        let missing_dirs = if current.is_none() {
            missing_dirs(&resolved.real).map_err(|message| WriteError::Io {
                path: relative.clone(),
                message,
                done: Failure::default(),
            })?
        } else {
            Vec::new()
        };
        targets.push(Target {
            planned,
            relative,
            real: resolved.real,
            current,
            missing_dirs,
        });
    }
    Ok(targets)
}

/// The folders above `path` that do not exist yet, innermost first; the first existing one must
/// be a folder.
fn missing_dirs(path: &Path) -> Result<Vec<PathBuf>, String> {
    let mut missing = Vec::new();
    let mut dir = path.parent();
    while let Some(current) = dir {
        match std::fs::metadata(current) {
            Ok(meta) if meta.is_dir() => return Ok(missing),
            Ok(_) => return Err(format!("{} is not a folder", current.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                missing.push(current.to_path_buf());
                dir = current.parent();
            }
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(missing)
}

/// The caller's `expected_sha256`: every file named must hold exactly what the caller previewed.
fn check_guards(root: &Root, guards: &BTreeMap<String, String>) -> Result<(), WriteError> {
    for (path, want) in guards {
        let resolved = root.resolve(path)?;
        let found = hash_of(&resolved.real).map_err(|e| WriteError::Io {
            path: resolved.relative.clone(),
            message: e.to_string(),
            done: Failure::default(),
        })?;
        let found = found.unwrap_or_else(|| "nothing (no such file)".to_string());
        if !want.trim().eq_ignore_ascii_case(&found) {
            return Err(WriteError::Stale {
                path: resolved.relative,
                expected: want.clone(),
                found,
                done: Failure::default(),
            });
        }
    }
    Ok(())
}
