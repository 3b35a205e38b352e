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

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::time::Duration;

use crate::edit::sha256_hex;
use crate::honesty::Tool;

use super::Root;
pub use super::failure::Recovery;
use super::failure::{Failure, WriteError};
use super::journal::{self, FileRecord, Journal, JournalError, Kind, Manifest, NewEntry, State};
use super::replace::{self, ReplaceError};

/// Test hooks, inert unless a test sets them. They are passed explicitly; only a build with the
/// `test-hooks` feature (the tests' own build) reads `CANDOR_TEST_PAUSE_BETWEEN_FILES_MS=N` from
/// the environment, to make the writer sleep N ms before each step (each journal image,
/// publishing the journal, each file, the commit) so a test can kill the real binary
/// mid-transaction. A release build never looks.
#[doc(hidden)]
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hooks {
    pub pause: Option<Duration>,
    /// Fail with an I/O error just before writing file number n (0-based).
    pub fail_before_file: Option<usize>,
}

impl Hooks {
    /// The hooks of the normal write path: none, except in a `test-hooks` build.
    pub fn standard() -> Hooks {
        #[cfg(feature = "test-hooks")]
        {
            Hooks {
                pause: std::env::var("CANDOR_TEST_PAUSE_BETWEEN_FILES_MS")
                    .ok()
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .filter(|ms| *ms > 0)
                    .map(Duration::from_millis),
                fail_before_file: None,
            }
        }
        #[cfg(not(feature = "test-hooks"))]
        {
            Hooks::default()
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
    /// The path as the plan names it (for messages and the journal).
    relative: String,
    /// The path with no symbolic link in it, opened one name at a time from the root.
    real_relative: String,
    current: Option<Vec<u8>>,
    /// Directories to create for a new file, project-relative, outermost first.
    missing_dirs: Vec<String>,
}

/// Rolls back every pending transaction of the journal (see the module doc for the rule).
pub(crate) fn recover(journal: &Journal, root: &Root) -> Result<Vec<Recovery>, JournalError> {
    journal.clean_leftovers();
    let mut recovered = Vec::new();
    // An entry this user's candor did not sign (a repository can commit one) is never rolled
    // back: it is reported once and set aside.
    for unsigned in journal.unsigned_pending()? {
        let aside = journal.set_aside(&unsigned.id)?;
        recovered.push(Recovery {
            transaction: unsigned.id,
            what: unsigned.what,
            restored: Vec::new(),
            left: Vec::new(),
            ignored: Some(format!(
                "{}, so it was not written by candor for this user on this machine (a cloned repository can ship one); it was set aside as {aside}",
                unsigned.why
            )),
        });
    }
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
            ignored: None,
        };
        // Final even when a file could not be restored (it became a directory, its before-image
        // is gone): the reason is recorded once and reported, and the next write or undo moves
        // on instead of failing on the same file forever. A file changed by someone since is
        // theirs and stays as it is.
        let note = (!recovery.left.is_empty()).then(|| recovery.left.join("; "));
        journal.set_state(&manifest.id, &State::RolledBack { note })?;
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

    let mut created_dirs: Vec<String> = Vec::new();
    for target in &targets {
        for dir in &target.missing_dirs {
            if !created_dirs.contains(dir) {
                created_dirs.push(dir.clone());
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
            after_images: targets.iter().map(|t| t.planned.new.as_deref()).collect(),
            created_dirs,
        },
        &|| hooks.step(),
    )?;

    for (index, target) in targets.iter().enumerate() {
        hooks.step();
        if let Err(failure) = write_one(root, target, index, &manifest.id, hooks) {
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
            FileFailure::Replace(ReplaceError::NotAFile { found }) => WriteError::Stale {
                path,
                expected,
                found: format!("{}, not a file", found.describe()),
                done,
            },
            FileFailure::Replace(ReplaceError::Exists) => WriteError::AlreadyExists { path, done },
            FileFailure::Replace(ReplaceError::Stranded { kept }) => WriteError::Io {
                message: format!(
                    "other programs wrote it while candor was writing it; their newest version is in place, and an intermediate version was kept next to it as {}",
                    kept.to_string_lossy()
                ),
                path,
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

fn write_one(
    root: &Root,
    target: &Target,
    index: usize,
    tag: &str,
    hooks: &Hooks,
) -> Result<(), FileFailure> {
    if hooks.fail_before_file == Some(index) {
        return Err(FileFailure::Io(std::io::Error::other(
            "injected failure (test hook)",
        )));
    }
    // Every directory from the root down is opened (or created) one name at a time, never
    // through a symbolic link: a directory swapped for a link since the check fails here.
    let (dir, name, _) = root
        .create_parent_of(&target.real_relative)
        .map_err(FileFailure::Io)?;
    replace::replace(
        &dir,
        &name,
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
    let mut dirs = BTreeSet::new();
    for index in (0..upto.min(manifest.files.len())).rev() {
        let record = &manifest.files[index];
        let resolved = match root.resolve(&record.path) {
            Ok(resolved) => {
                match vcs_folder(&resolved.real_relative).or(vcs_folder(&record.path)) {
                    Some(vcs) => {
                        let message = format!("it {}", vcs_refusal(vcs));
                        outcomes.push((index, Outcome::Failed { message }));
                        continue;
                    }
                    None => resolved,
                }
            }
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
        let parent = resolved
            .real_relative
            .rsplit_once('/')
            .map_or(String::new(), |(dir, _)| dir.to_string());
        dirs.insert(parent);
        outcomes.push((
            index,
            roll_back_file(journal, root, manifest, index, &resolved.real_relative),
        ));
    }
    for dir in dirs {
        if let Ok(Some(handle)) = root.dir().open_path_under(std::path::Path::new(&dir)) {
            replace::remove_temps(&handle, &manifest.id);
        }
    }
    remove_empty_dirs(root, &manifest.created_dirs);
    outcomes.sort_by_key(|(i, _)| *i);
    outcomes
}

fn roll_back_file(
    journal: &Journal,
    root: &Root,
    manifest: &Manifest,
    index: usize,
    real_relative: &str,
) -> Outcome {
    let record = &manifest.files[index];
    if record.sha256_before == record.sha256_after {
        return Outcome::Unchanged;
    }
    let failed = |message: String| Outcome::Failed { message };
    let current = match root.parent_of(real_relative) {
        Ok(Some((dir, name))) => match replace::hash_at(&dir, &name) {
            Ok(hash) => hash,
            Err(ReplaceError::NotAFile { found }) => {
                return failed(format!("it is now {}, not a file", found.describe()));
            }
            Err(e) => return failed(replace_message(e)),
        },
        Ok(None) => None,
        Err(e) => return failed(e.to_string()),
    };
    if current == record.sha256_before {
        return Outcome::Unchanged;
    }
    if current != record.sha256_after {
        return Outcome::Changed { found: current };
    }
    let image = match journal.before_image(manifest, index) {
        Ok(image) => image,
        Err(e) => return failed(e.to_string()),
    };
    // Restoring a file an undo removed: its folder may have been removed with it.
    let (dir, name, _) = match root.create_parent_of(real_relative) {
        Ok(parent) => parent,
        Err(e) => return failed(e.to_string()),
    };
    match replace::replace(
        &dir,
        &name,
        record.sha256_after.as_deref(),
        image.as_deref(),
        &manifest.id,
    ) {
        Ok(()) => Outcome::Restored,
        Err(ReplaceError::Changed { found }) => Outcome::Changed { found },
        Err(ReplaceError::Exists) => Outcome::Changed { found: None },
        Err(e) => failed(replace_message(e)),
    }
}

fn replace_message(error: ReplaceError) -> String {
    match error {
        ReplaceError::Changed { .. } | ReplaceError::Exists => {
            "it was changed by something else".to_string()
        }
        ReplaceError::NotAFile { found } => format!("it is now {}, not a file", found.describe()),
        ReplaceError::Stranded { kept } => format!(
            "other programs wrote it during the rollback; their newest version is in place, an intermediate one was kept next to it as {}",
            kept.to_string_lossy()
        ),
        ReplaceError::Io(e) => e.to_string(),
    }
}

/// Removes the folders a transaction created (innermost first) when they are empty.
pub(crate) fn remove_empty_dirs(root: &Root, created: &[String]) {
    for relative in created.iter().rev() {
        if vcs_folder(relative).is_some() {
            continue;
        }
        if let Ok(Some((parent, name))) = root.parent_of(relative)
            && parent.remove_dir(&name).is_ok()
        {
            let _ = parent.sync();
        }
    }
}

/// The version-control folder (`.git`, `.hg`, `.svn`, in any case) a project-relative path goes
/// through, if any: candor never writes there, whatever a plan or a journal entry says.
pub(crate) fn vcs_folder(path: &str) -> Option<&str> {
    path.split('/').find(|part| {
        [".git", ".hg", ".svn"]
            .iter()
            .any(|vcs| part.eq_ignore_ascii_case(vcs))
    })
}

fn vcs_refusal(vcs: &str) -> String {
    format!(
        "is inside {vcs}/, the version control's own folder; candor never writes there (a file there can make git or hg run a program)"
    )
}

/// Resolves, reads and checks every planned file; nothing is written if one fails.
fn prepare(root: &Root, planned: Vec<Planned>) -> Result<Vec<Target>, WriteError> {
    let mut seen = HashSet::new();
    let mut targets = Vec::new();
    for planned in planned {
        let resolved = root.resolve(&planned.path)?;
        let relative = resolved.relative.clone();
        let in_candor = |path: &str| {
            path == journal::CANDOR_DIR || path.starts_with(&format!("{}/", journal::CANDOR_DIR))
        };
        if in_candor(&resolved.real_relative) || in_candor(&relative) {
            return Err(WriteError::Refused {
                path: relative,
                reason: "is inside .candor/, candor's own folder (its journal and settings), not a project file".to_string(),
            });
        }
        if let Some(vcs) = vcs_folder(&resolved.real_relative).or(vcs_folder(&relative)) {
            let reason = vcs_refusal(vcs);
            return Err(WriteError::Refused {
                path: relative,
                reason,
            });
        }
        if !seen.insert(resolved.real_relative.clone()) {
            return Err(WriteError::Refused {
                path: relative,
                reason: "is written twice by this plan (two of its paths lead to the same file through a symbolic link)"
                    .to_string(),
            });
        }
        let io = |message: String| WriteError::Io {
            path: relative.clone(),
            message,
            done: Failure::default(),
        };
        let current = match root.parent_of(&resolved.real_relative) {
            Ok(Some((dir, name))) => match replace::current(&dir, &name) {
                Ok(current) => current,
                Err(ReplaceError::NotAFile { found }) => {
                    return Err(WriteError::Stale {
                        path: relative,
                        expected: planned
                            .expected
                            .clone()
                            .unwrap_or_else(|| "no file".to_string()),
                        found: format!("{}, not a file", found.describe()),
                        done: Failure::default(),
                    });
                }
                Err(e) => return Err(io(replace_message(e))),
            },
            Ok(None) => None,
            Err(e) => return Err(io(e.to_string())),
        };
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
            root.missing_dirs_of(&resolved.real_relative)
                .map_err(|e| io(e.to_string()))?
        } else {
            Vec::new()
        };
        targets.push(Target {
            planned,
            relative,
            real_relative: resolved.real_relative,
            current,
            missing_dirs,
        });
    }
    Ok(targets)
}

/// The caller's `expected_sha256`: every file named must hold exactly what the caller previewed.
fn check_guards(root: &Root, guards: &BTreeMap<String, String>) -> Result<(), WriteError> {
    for (path, want) in guards {
        let resolved = root.resolve(path)?;
        let found = match root.parent_of(&resolved.real_relative) {
            Ok(Some((dir, name))) => match replace::hash_at(&dir, &name) {
                Ok(hash) => hash.unwrap_or_else(|| "nothing (no such file)".to_string()),
                Err(ReplaceError::NotAFile { found }) => {
                    format!("{}, not a file", found.describe())
                }
                Err(e) => {
                    return Err(WriteError::Io {
                        path: resolved.relative.clone(),
                        message: replace_message(e),
                        done: Failure::default(),
                    });
                }
            },
            Ok(None) => "nothing (no such file)".to_string(),
            Err(e) => {
                return Err(WriteError::Io {
                    path: resolved.relative.clone(),
                    message: e.to_string(),
                    done: Failure::default(),
                });
            }
        };
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
