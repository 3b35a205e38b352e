//! Undo: restores the last applied refactor from the journal when every file it wrote still holds
//! exactly what candor wrote, and refuses otherwise, naming the file that changed. The undo is
//! itself a journaled transaction (kind `undo`, pointing at the one it reverts), so the history
//! stays consistent and a redo is possible later. A file that already holds what it held before
//! the refactor (put back by hand, `git checkout`) counts as undone, and the report says so.
//! Also the history (`candor undo --list`), printable as it is: no control character of a path
//! reaches the terminal. The CLI and the TUI reach this through `api::Engine`.

use std::collections::BTreeMap;

use super::Root;
use super::failure::WriteError;
use super::journal::{self, Entry, Journal, JournalError, Kind, State};
use super::replace::{self, ReplaceError};
use super::transaction::{self, Hooks, Origin, Planned, Recovery};
use crate::edit::merge::{self, Conflict, Lines};
use crate::edit::sha256_hex;

/// A transaction that was undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Undone {
    /// The transaction that was reverted.
    pub transaction: String,
    /// The journal entry of the undo itself.
    pub undo_transaction: String,
    /// The tool that had written it.
    pub what: String,
    /// Files put back as they were.
    pub restored: Vec<String>,
    /// Files the transaction had created, removed again.
    pub removed: Vec<String>,
    /// Files the transaction had removed, written again.
    pub recreated: Vec<String>,
    /// Files that already held what they held before the refactor (put back by other means):
    /// left as they are, and counted as undone.
    pub already: Vec<String>,
    /// Files edited since candor wrote them, away from what it wrote: the refactor's edits were
    /// reverted and the later edits kept (where they are now, as line ranges).
    pub merged: Vec<(String, Vec<Lines>)>,
    /// Every file of the transaction, in its order.
    pub files: Vec<String>,
}

/// What `undo_last` did. When an interrupted write was found, rolling it back *is* the undo:
/// `recovered` says so and nothing older is undone (`undone` is `None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoReport {
    pub recovered: Vec<Recovery>,
    pub undone: Option<Undone>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum UndoError {
    #[error(
        "nothing to undo: the journal in .candor/ holds no applied refactor that has not been undone"
    )]
    NothingToUndo,
    #[error(
        "transaction {id} is not in the journal in .candor/ (it keeps the last 50); nothing was restored"
    )]
    UnknownTransaction { id: String },
    #[error("transaction {id} was already undone (by {by}); nothing was restored")]
    AlreadyUndone { id: String, by: String },
    #[error(
        "transaction {id} was not completed (it was rolled back); there is nothing of it to undo"
    )]
    NotApplied { id: String },
    #[error(
        "cannot undo transaction {transaction} ({what}): {}; nothing was restored — put back what candor wrote there (or undo by hand) and try again, or undo another transaction with `candor undo --id ID` (`candor undo --list` shows them)",
        describe_edited(.files)
    )]
    Changed {
        transaction: String,
        what: String,
        /// Every file that stops the undo (others may have merged; nothing was written).
        files: Vec<Edited>,
    },
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// A file an undo cannot put back: how it changed since candor wrote it, in words, with the
/// hashes for `candor undo --json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    pub path: String,
    pub how: EditedHow,
    /// The sha256 of what candor wrote (`None`: it removed the file).
    pub expected: Option<String>,
    /// The sha256 of what is there now (`None`: nothing), or what it became (a folder…).
    pub found: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditedHow {
    /// Later edits overlap or touch lines the refactor wrote.
    Overlaps(Vec<Conflict>),
    /// The refactor created the file, and it was edited since: undo would delete those edits.
    CreatedThenEdited,
    /// The refactor removed the file, and there is one again.
    BackAgain,
    /// The file is gone.
    Gone,
    /// It is not a file any more (`a folder`, `a FIFO`).
    NotAFile(String),
    /// The journal kept no copy of what candor wrote (an entry from an older candor), so the
    /// later edits cannot be told apart from the refactor's.
    NoCopy,
}

impl std::fmt::Display for Edited {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let path = &self.path;
        match &self.how {
            EditedHow::Overlaps(conflicts) => {
                let places: Vec<String> = conflicts
                    .iter()
                    .map(|c| {
                        format!(
                            "your edit {} touches {} that the refactor wrote",
                            place(&c.current),
                            c.written.describe()
                        )
                    })
                    .collect();
                write!(
                    f,
                    "{path} changed since candor wrote it: {}",
                    places.join("; ")
                )
            }
            EditedHow::CreatedThenEdited => write!(
                f,
                "{path} changed since candor wrote it: the refactor created it, and undoing would delete the edits made since"
            ),
            EditedHow::BackAgain => write!(
                f,
                "{path} changed since candor wrote it: the refactor removed it, and there is a file there again"
            ),
            EditedHow::Gone => write!(f, "{path} changed since candor wrote it: it is gone"),
            EditedHow::NotAFile(what) => {
                write!(f, "{path} changed since candor wrote it: it is {what} now")
            }
            EditedHow::NoCopy => write!(
                f,
                "{path} changed since candor wrote it, and this journal entry (from an older candor) kept no copy of what it wrote to merge with"
            ),
        }
    }
}

/// `on lines 4–6` / `after line 3` (an insertion) / `at the top`.
fn place(lines: &Lines) -> String {
    let described = lines.describe();
    if lines.first > lines.last {
        format!("(lines added {described})")
    } else {
        format!("on {described}")
    }
}

fn describe_edited(files: &[Edited]) -> String {
    files
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Undoes the last applied refactor of the project (see the module doc).
pub fn undo_last(root: &Root) -> Result<UndoReport, UndoError> {
    undo_last_with_hooks(root, &Hooks::standard())
}

/// [`undo_last`] with explicit test hooks.
#[doc(hidden)]
pub fn undo_last_with_hooks(root: &Root, hooks: &Hooks) -> Result<UndoReport, UndoError> {
    let Some(journal) = open_existing(root)? else {
        return Err(UndoError::NothingToUndo);
    };
    let recovered = transaction::recover(&journal, root)?;
    if !recovered.is_empty() {
        return Ok(UndoReport {
            recovered,
            undone: None,
        });
    }
    let entries = journal.entries()?;
    let undone = undone_by(&entries);
    let target = entries
        .iter()
        .rev()
        .find(|e| {
            e.manifest.kind == Kind::Apply
                && e.state == State::Committed
                && !undone.contains_key(e.manifest.id.as_str())
        })
        .ok_or(UndoError::NothingToUndo)?;
    let undone = undo_entry(&journal, root, &target.manifest, hooks)?;
    Ok(UndoReport {
        recovered,
        undone: Some(undone),
    })
}

/// Undoes exactly transaction `id` (the TUI undoes the refactor it wrote, even if something
/// else wrote after it): with the same checks as [`undo_last`] — every file it wrote must still
/// hold what it wrote. An interrupted transaction found on the way is rolled back first and
/// reported in `recovered`.
pub fn undo_transaction(root: &Root, id: &str) -> Result<UndoReport, UndoError> {
    let unknown = || UndoError::UnknownTransaction { id: id.to_string() };
    let journal = open_existing(root)?.ok_or_else(unknown)?;
    let recovered = transaction::recover(&journal, root)?;
    let entries = journal.entries()?;
    let target = entries
        .iter()
        .find(|e| e.manifest.id == id)
        .ok_or_else(unknown)?;
    if let Some(by) = undone_by(&entries).get(id) {
        return Err(UndoError::AlreadyUndone {
            id: id.to_string(),
            by: by.to_string(),
        });
    }
    if target.manifest.kind != Kind::Apply || target.state != State::Committed {
        return Err(UndoError::NotApplied { id: id.to_string() });
    }
    let undone = undo_entry(&journal, root, &target.manifest, &Hooks::standard())?;
    Ok(UndoReport {
        recovered,
        undone: Some(undone),
    })
}

/// The journal, locked, if this project has one (nothing is created just to find none).
fn open_existing(root: &Root) -> Result<Option<Journal>, UndoError> {
    if journal::existing_journal_dir(root)?.is_none() {
        return Ok(None);
    }
    Ok(Some(Journal::open(root)?))
}

/// Writes the before-images of `manifest` back, as an `undo` transaction, if every file still
/// holds exactly what it wrote.
fn undo_entry(
    journal: &Journal,
    root: &Root,
    manifest: &journal::Manifest,
    hooks: &Hooks,
) -> Result<Undone, UndoError> {
    let what = transaction::describe(manifest);
    let mut planned = Vec::new();
    let mut already = Vec::new();
    let mut merged = Vec::new();
    let mut edited = Vec::new();
    for (index, record) in manifest.files.iter().enumerate() {
        let found = current(root, &record.path)?;
        let found_hash = found.hash();
        if found_hash == record.sha256_after {
            planned.push(Planned {
                path: record.path.clone(),
                expected: record.sha256_after.clone(),
                new: journal.before_image(manifest, index)?,
            });
            continue;
        }
        if found_hash == record.sha256_before {
            already.push(record.path.clone());
            continue;
        }
        let how = match (&found, &record.sha256_before, &record.sha256_after) {
            (Found::NotAFile(what), ..) => EditedHow::NotAFile(what.clone()),
            (Found::Nothing, ..) => EditedHow::Gone,
            (Found::Bytes(_), _, None) => EditedHow::BackAgain,
            (Found::Bytes(_), None, Some(_)) => EditedHow::CreatedThenEdited,
            (Found::Bytes(now), Some(_), Some(_)) => {
                let before = journal.before_image(manifest, index)?.unwrap_or_default();
                match journal.after_image(manifest, index)? {
                    None => EditedHow::NoCopy,
                    Some(after) => match merge::revert(&before, &after, now) {
                        Ok(reverted) => {
                            merged.push((record.path.clone(), reverted.kept));
                            planned.push(Planned {
                                path: record.path.clone(),
                                expected: found_hash,
                                new: Some(reverted.bytes),
                            });
                            continue;
                        }
                        Err(conflicts) => EditedHow::Overlaps(conflicts),
                    },
                }
            }
        };
        edited.push(Edited {
            path: record.path.clone(),
            how,
            expected: record.sha256_after.clone(),
            found: found_hash,
        });
    }
    if !edited.is_empty() {
        return Err(UndoError::Changed {
            transaction: manifest.id.clone(),
            what,
            files: edited,
        });
    }
    let undo_id = transaction::write(
        journal,
        root,
        planned,
        &BTreeMap::new(),
        Origin::Undo {
            of: manifest.id.clone(),
            remove_dirs: manifest.created_dirs.clone(),
        },
        hooks,
    )?;
    let files_where = |keep: fn(&journal::FileRecord) -> bool| -> Vec<String> {
        manifest
            .files
            .iter()
            .filter(|r| {
                keep(r)
                    && !already.contains(&r.path)
                    && !merged.iter().any(|(path, _)| *path == r.path)
            })
            .map(|r| r.path.clone())
            .collect()
    };
    Ok(Undone {
        transaction: manifest.id.clone(),
        undo_transaction: undo_id,
        what,
        restored: files_where(|r| r.sha256_before.is_some() && r.sha256_after.is_some()),
        removed: files_where(|r| r.sha256_before.is_none()),
        recreated: files_where(|r| r.sha256_after.is_none()),
        files: manifest.files.iter().map(|r| r.path.clone()).collect(),
        already,
        merged,
    })
}

/// What a path holds now.
enum Found {
    Bytes(Vec<u8>),
    Nothing,
    /// Not a file: `a folder`, `a FIFO`.
    NotAFile(String),
}

impl Found {
    /// The sha256 of the bytes, `None` for nothing; something that is not a file gets a text
    /// that no hash equals, so it is always "changed".
    fn hash(&self) -> Option<String> {
        match self {
            Found::Bytes(bytes) => Some(sha256_hex(bytes)),
            Found::Nothing => None,
            Found::NotAFile(what) => Some(format!("{what}, not a file")),
        }
    }
}

/// What `path` holds now, read through the root's handle; something that is not a file is
/// "changed" (named in the message), never an I/O error that blocks the undo.
fn current(root: &Root, path: &str) -> Result<Found, UndoError> {
    let resolved = root.resolve(path).map_err(WriteError::from)?;
    let io = |message: String| {
        UndoError::Write(WriteError::Io {
            path: path.to_string(),
            message,
            done: Default::default(),
        })
    };
    match root.parent_of(&resolved.real_relative) {
        Ok(Some((dir, name))) => match replace::current(&dir, &name) {
            Ok(Some(bytes)) => Ok(Found::Bytes(bytes)),
            Ok(None) => Ok(Found::Nothing),
            Err(ReplaceError::NotAFile { found }) => {
                Ok(Found::NotAFile(found.describe().to_string()))
            }
            Err(ReplaceError::Io(e)) => Err(io(e.to_string())),
            Err(_) => Err(io("it changed while it was read".to_string())),
        },
        Ok(None) => Ok(Found::Nothing),
        Err(e) => Err(io(e.to_string())),
    }
}

/// Transactions a committed undo reverted → the undo's id.
fn undone_by(entries: &[Entry]) -> BTreeMap<&str, &str> {
    entries
        .iter()
        .filter(|e| e.manifest.kind == Kind::Undo && e.state == State::Committed)
        .filter_map(|e| {
            e.manifest
                .undoes
                .as_deref()
                .map(|of| (of, e.manifest.id.as_str()))
        })
        .collect()
}

/// One line of `candor undo --list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryEntry {
    pub id: String,
    pub time_unix: u64,
    /// The tool, or `undo of <id>`.
    pub what: String,
    /// Paths, with ` (created)` / ` (removed)` where the transaction created or removed the file.
    pub files: Vec<String>,
    /// `applied`, `undone by <id>`, `done`, `rolled back`, or `interrupted`.
    pub state: String,
}

/// The journal's transactions, newest first. Reads only: takes no lock, recovers nothing.
pub fn history(root: &Root) -> Result<Vec<HistoryEntry>, JournalError> {
    let entries = journal::read_history(root)?;
    let undone_by = undone_by(&entries);
    Ok(entries
        .iter()
        .rev()
        .map(|e| {
            let m = &e.manifest;
            let state = match (&e.state, m.kind) {
                (State::Pending, _) => {
                    "interrupted (rolled back at the next write or undo)".to_string()
                }
                (State::RolledBack { note: None }, _) => "rolled back".to_string(),
                (State::RolledBack { note: Some(note) }, _) => {
                    format!("rolled back, except: {note}")
                }
                (State::Committed, Kind::Undo) => "done".to_string(),
                (State::Committed, Kind::Apply) => match undone_by.get(m.id.as_str()) {
                    Some(by) => format!("undone by {by}"),
                    None => "applied".to_string(),
                },
            };
            HistoryEntry {
                id: m.id.clone(),
                time_unix: m.time_unix,
                what: transaction::describe(m),
                files: m
                    .files
                    .iter()
                    .map(|f| match (&f.sha256_before, &f.sha256_after) {
                        (None, Some(_)) => format!("{} (created)", f.path),
                        (Some(_), None) => format!("{} (removed)", f.path),
                        _ => f.path.clone(),
                    })
                    .collect(),
                state,
            }
        })
        .collect())
}

/// The history as a table: id, time (UTC), what, state, files. Every control character of a
/// path or note is shown escaped (`\n`, `\u{1b}`), never sent to the terminal.
pub fn format_history(entries: &[HistoryEntry]) -> String {
    if entries.is_empty() {
        return "no transactions in .candor/journal yet\n".to_string();
    }
    let rows: Vec<[String; 5]> = entries
        .iter()
        .map(|e| {
            [
                printable(&e.id),
                journal::human_utc(e.time_unix)
                    .trim_end_matches(" UTC")
                    .to_string(),
                printable(&e.what),
                printable(&e.state),
                printable(&e.files.join(", ")),
            ]
        })
        .collect();
    let header = ["ID", "TIME (UTC)", "WHAT", "STATE", "FILES"].map(String::from);
    let mut widths = [0usize; 4];
    for row in std::iter::once(&header).chain(rows.iter()) {
        for (width, cell) in widths.iter_mut().zip(row.iter()) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    for row in std::iter::once(&header).chain(rows.iter()) {
        for (width, cell) in widths.iter().zip(row.iter()) {
            out.push_str(&format!("{cell:<width$}  "));
        }
        out.push_str(&row[4]);
        out.push('\n');
    }
    out
}

/// A one-paragraph account of an undo, for the CLI and the TUI's status line.
pub fn describe_report(report: &UndoReport) -> String {
    let mut lines: Vec<String> = report
        .recovered
        .iter()
        .map(|r| {
            let mut line = r.to_string();
            if !r.left.is_empty() {
                line.push_str(
                    "; it is marked as rolled back with these files left as they are, and the next `candor undo` moves on to the transaction before",
                );
            }
            line
        })
        .collect();
    match &report.undone {
        Some(undone) => {
            let mut line = format!("undid {} ({})", undone.transaction, undone.what);
            let parts = [
                ("restored", &undone.restored),
                ("removed", &undone.removed),
                ("recreated", &undone.recreated),
                (
                    "already held their content from before the refactor (left as they are)",
                    &undone.already,
                ),
            ];
            for (label, files) in parts {
                if !files.is_empty() {
                    line.push_str(&format!("; {label}: {}", files.join(", ")));
                }
            }
            for (path, kept) in &undone.merged {
                line.push_str(&format!("; {}", describe_merge(path, kept)));
            }
            lines.push(line);
        }
        None => lines.push(
            "nothing older was undone; run `candor undo` again to undo the last applied refactor"
                .to_string(),
        ),
    }
    printable_lines(&lines.join("\n"))
}

/// `src/lib.rs was edited since candor wrote it: the refactor's changes were reverted and your
/// edits kept (line 40, lines 52–54)`.
pub fn describe_merge(path: &str, kept: &[Lines]) -> String {
    let places: Vec<String> = kept.iter().map(Lines::describe).collect();
    format!(
        "{path} was edited since candor wrote it, away from what the refactor wrote: its changes were reverted and your edits kept ({})",
        places.join(", ")
    )
}

/// Like [`printable`], keeping the line breaks between lines.
fn printable_lines(text: &str) -> String {
    text.split('\n')
        .map(printable)
        .collect::<Vec<_>>()
        .join("\n")
}

impl UndoReport {
    /// Whether some file could not be restored (an interrupted write rolled back in part).
    pub fn incomplete(&self) -> bool {
        self.recovered.iter().any(|r| !r.left.is_empty())
    }
}

/// `text` with every control character escaped, so a file name cannot move the cursor, change
/// colours or start a new line in a listing.
pub fn printable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
