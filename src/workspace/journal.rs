//! The undo journal on disk, under `<root>/.candor/journal/`: one directory per transaction
//! holding `manifest.json` (id, time, what, files with their sha256 before and after) and
//! `before/<n>`, the exact bytes of file n before the write. An entry is staged in a hidden
//! directory, fsynced and published by one rename *before* the first project file is touched;
//! `status.json` then says `committed` (or `rolled_back`); an entry without it is pending — an
//! interrupted write that recovery rolls back. Also the project lock every writer holds.
//! Every entry is signed: `manifest.mac` is the HMAC of `manifest.json` under the user's key (see
//! `journal_key`); an entry whose MAC does not verify was not written by this user's candor (a
//! repository can commit one) and is never listed as an entry — only as [`Unsigned`].
//! Knows the format only: what to restore, and when, is decided by `transaction` and `undo`.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::edit::sha256_hex;

use super::Root;
use super::dir::{Dir, Kind as NodeKind};
use super::journal_key::Key;

/// candor's own folder under the project root; never a project file.
pub const CANDOR_DIR: &str = ".candor";
/// How many transactions the journal keeps; older ones are deleted after each write.
pub const MAX_TRANSACTIONS: usize = 50;
/// How long a writer waits for another candor process to finish writing.
const LOCK_WAIT: Duration = Duration::from_secs(30);
const FORMAT: u32 = 1;
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JournalError {
    #[error(
        "cannot use the undo journal at {path}: {message}; candor writes nothing without its journal — make the project folder writable and try again"
    )]
    Io { path: String, message: String },
    /// Something that is not candor's folder stands where its journal must be (a symbolic link,
    /// a file): not a permission problem, and never followed.
    #[error(
        "cannot use the undo journal at {path}: {message}; candor writes nothing without its journal — move {path} out of the way (candor then makes its own folder there) and try again"
    )]
    NotAFolder { path: String, message: String },
    #[error(
        "the undo journal entry {path} is damaged ({message}); it cannot be used to restore files"
    )]
    Corrupt { path: String, message: String },
    #[error(
        "another candor process is writing in this project (it holds {path}); try again when it has finished"
    )]
    Busy { path: String },
    #[error(
        "cannot use the journal key {path}: {message}; candor signs its undo journal with this per-user key and writes nothing without it"
    )]
    Key { path: String, message: String },
}

impl From<super::journal_key::KeyError> for JournalError {
    fn from(e: super::journal_key::KeyError) -> JournalError {
        JournalError::Key {
            path: e.path,
            message: e.message,
        }
    }
}

/// The file beside `manifest.json` that holds its MAC.
const MAC_FILE: &str = "manifest.mac";
/// The prefix an unsigned entry is renamed to once reported, so it is reported once, kept for
/// the user to look at, and never read as an entry again.
pub const UNSIGNED_PREFIX: &str = ".unsigned-";

/// A journal entry that looks pending but is not signed with this user's key: never acted on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsigned {
    /// The entry's folder name under `.candor/journal/`.
    pub id: String,
    /// The tool its manifest names, or "unknown".
    pub what: String,
    /// Why it is not authentic ("it has no manifest.mac", "its MAC does not verify").
    pub why: String,
}

/// Whether a transaction applied a refactor or undid one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    Apply,
    Undo,
}

/// One file of a transaction. `None` hashes mean "no file" (created, or removed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    /// Project-relative path as the user names it (a symlink's own path).
    pub path: String,
    pub sha256_before: Option<String>,
    pub sha256_after: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub format: u32,
    pub id: String,
    pub seq: u64,
    pub time_unix: u64,
    pub kind: Kind,
    /// The tool's JSON name, for an `apply`.
    #[serde(default)]
    pub tool: Option<String>,
    /// The transaction an `undo` reverted.
    #[serde(default)]
    pub undoes: Option<String>,
    pub files: Vec<FileRecord>,
    /// Project-relative directories the transaction created (parents of new files), outermost
    /// first; removed again, when empty, on rollback and undo.
    #[serde(default)]
    pub created_dirs: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum State {
    /// Published, not committed: being written right now by the lock holder, or interrupted.
    Pending,
    Committed,
    /// Interrupted or failed, then rolled back; `note` says what could not be restored, if any.
    RolledBack {
        note: Option<String>,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct StatusFile {
    state: String,
    time_unix: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// One transaction as found in the journal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub manifest: Manifest,
    pub state: State,
}

/// What a new entry records before the write starts.
#[derive(Debug, Clone)]
pub struct NewEntry<'a> {
    pub kind: Kind,
    pub tool: Option<String>,
    pub undoes: Option<String>,
    pub files: Vec<FileRecord>,
    /// The bytes before, per file (`None` for a file that does not exist yet).
    pub images: Vec<Option<&'a [u8]>>,
    /// The bytes written, per file (`None` for a file removed), kept so that an undo can revert
    /// the write on top of later edits (a three-way merge). Empty: none kept.
    pub after_images: Vec<Option<&'a [u8]>>,
    pub created_dirs: Vec<String>,
}

/// The journal of a project, opened for writing: holds the project lock until dropped.
#[derive(Debug)]
pub struct Journal {
    /// `<root>/.candor/journal`, for messages and tests.
    path: PathBuf,
    dir: Dir,
    key: Key,
    _lock: File,
}

fn io_error(path: &Path, e: impl std::fmt::Display) -> JournalError {
    JournalError::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    }
}

/// Why `.candor` or something in it cannot be used: a symbolic link (or anything but what it
/// must be) is refused, never followed.
fn refused(path: &Path, e: std::io::Error) -> JournalError {
    let text = e.to_string();
    let message = if text.contains("symbolic link") {
        "it is a symbolic link; candor keeps its journal only in a real folder inside the project, and never follows a link there".to_string()
    } else if text.starts_with("is ")
        || e.raw_os_error() == Some(rustix::io::Errno::NOTDIR.raw_os_error())
    {
        // What `dir::unexpected` says: "is a file, not a directory".
        format!("it {}", text.trim_start_matches("it "))
    } else {
        return io_error(path, text);
    };
    JournalError::NotAFolder {
        path: path.display().to_string(),
        message,
    }
}

/// What candor writes in `.candor/.gitignore`.
const GITIGNORE: &[u8] =
    b"# written by candor: its undo journal and lock stay out of git; a config.toml here does not\n*\n!config.toml\n";
/// What an older candor wrote there (it left `.candor/` itself untracked).
const OLD_GITIGNORE: &[u8] = b"# written by candor: its undo journal and lock\njournal/\nlock\n";

/// `<root>/.candor`, opened from the root's handle (a symbolic link there is refused). `None` when
/// it does not exist and `create` is false.
pub(crate) fn candor_dir(root: &Root, create: bool) -> Result<Option<Dir>, JournalError> {
    let path = root.path().join(CANDOR_DIR);
    let name = OsStr::new(CANDOR_DIR);
    if !create {
        return root.dir().open_dir(name).map_err(|e| refused(&path, e));
    }
    let (dir, fresh) = root
        .dir()
        .create_dir(name, 0o777)
        .map_err(|e| refused(&path, e))?;
    // Keeps `.candor/` out of `git status` even before the user adds it to .gitignore: all of
    // it (this file too) but a project config file, which stays committable. An older candor
    // wrote a file that kept only the journal and the lock out, so `.candor/` still showed as
    // untracked: that exact file is replaced.
    let current = dir.read_file(OsStr::new(".gitignore")).ok().flatten();
    if fresh || current.as_deref() == Some(OLD_GITIGNORE) {
        let _ = dir.remove_file(OsStr::new(".gitignore"));
        let _ = dir.create_file(
            OsStr::new(".gitignore"),
            0o666 & !super::replace::current_umask(),
            GITIGNORE,
        );
    }
    Ok(Some(dir))
}

/// `<root>/.candor/journal` if it exists (nothing is created), without the lock.
pub(crate) fn existing_journal_dir(root: &Root) -> Result<Option<Dir>, JournalError> {
    let Some(candor) = candor_dir(root, false)? else {
        return Ok(None);
    };
    let path = root.path().join(CANDOR_DIR).join("journal");
    candor
        .open_dir(OsStr::new("journal"))
        .map_err(|e| refused(&path, e))
}

impl Journal {
    /// Creates the journal folder if needed and takes the project lock (waiting for another candor
    /// process up to 30 s). Fails rather than let anything be written without a journal.
    pub fn open(root: &Root) -> Result<Journal, JournalError> {
        Journal::open_waiting(root, LOCK_WAIT)?.ok_or_else(|| JournalError::Busy {
            path: format!("{CANDOR_DIR}/lock"),
        })
    }

    /// The journal if the project has one, locked without waiting: `None` when there is no
    /// journal or another candor process holds the lock (it is writing).
    pub fn try_open_existing(root: &Root) -> Result<Option<Journal>, JournalError> {
        if existing_journal_dir(root)?.is_none() {
            return Ok(None);
        }
        Journal::open_waiting(root, Duration::ZERO)
    }

    fn open_waiting(root: &Root, wait: Duration) -> Result<Option<Journal>, JournalError> {
        let key = Key::user()?;
        let candor_path = root.path().join(CANDOR_DIR);
        let candor = candor_dir(root, true)?.ok_or_else(|| io_error(&candor_path, "missing"))?;
        let path = candor_path.join("journal");
        let (dir, _) = candor
            .create_dir(OsStr::new("journal"), 0o777)
            .map_err(|e| refused(&path, e))?;
        let lock_path = candor_path.join("lock");
        let lock = candor
            .open_or_create(OsStr::new("lock"))
            .map_err(|e| refused(&lock_path, e))?;
        let start = Instant::now();
        loop {
            match lock.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                    std::thread::sleep(Duration::from_millis(20));
                }
                Err(std::fs::TryLockError::WouldBlock) => return Ok(None),
                Err(std::fs::TryLockError::Error(e)) => return Err(io_error(&lock_path, e)),
            }
        }
        Ok(Some(Journal {
            path,
            dir,
            key,
            _lock: lock,
        }))
    }

    /// Where the journal is (for messages; every access goes through its handle).
    pub fn dir(&self) -> &Path {
        &self.path
    }

    /// Every readable transaction signed with this user's key, oldest first.
    pub fn entries(&self) -> Result<Vec<Entry>, JournalError> {
        Ok(read_entries(&self.dir, &self.path, Some(&self.key))?.0)
    }

    /// The entries that look pending (no `status.json`) but are not signed with this user's key.
    pub fn unsigned_pending(&self) -> Result<Vec<Unsigned>, JournalError> {
        Ok(read_entries(&self.dir, &self.path, Some(&self.key))?.1)
    }

    /// Renames an unsigned entry aside (`.unsigned-<id>`): nothing in it is read or written.
    pub fn set_aside(&self, id: &str) -> Result<String, JournalError> {
        let aside = format!("{UNSIGNED_PREFIX}{id}");
        let _ = self.dir.remove_tree(OsStr::new(&aside));
        self.dir
            .rename(OsStr::new(id), OsStr::new(&aside))
            .map_err(|e| io_error(&self.path.join(id), e))?;
        Ok(format!("{CANDOR_DIR}/journal/{aside}"))
    }

    /// Stages the entry (images, then the manifest, each fsynced), then publishes it with one
    /// rename and fsyncs the journal folder. `step` runs between the stages (a test hook).
    pub fn begin(&self, new: NewEntry<'_>, step: &dyn Fn()) -> Result<Manifest, JournalError> {
        let seq = self
            .entries()?
            .iter()
            .map(|e| e.manifest.seq)
            .max()
            .unwrap_or(0)
            + 1;
        let now = now_unix();
        let id = format!("{seq:06}-{}", compact_utc(now));
        let manifest = Manifest {
            format: FORMAT,
            id: id.clone(),
            seq,
            time_unix: now,
            kind: new.kind,
            tool: new.tool,
            undoes: new.undoes,
            files: new.files,
            created_dirs: new.created_dirs,
        };
        let staging = OsString::from(format!(".staging-{id}"));
        let result = (|| -> std::io::Result<()> {
            self.dir.remove_tree(&staging)?;
            let (stage, _) = self.dir.create_dir(&staging, 0o777)?;
            let (images, _) = stage.create_dir(OsStr::new("before"), 0o777)?;
            for (index, image) in new.images.iter().enumerate() {
                if let Some(bytes) = image {
                    step();
                    images.create_file(OsStr::new(&index.to_string()), 0o600, bytes)?;
                }
            }
            images.sync()?;
            if new.after_images.iter().any(Option::is_some) {
                let (after, _) = stage.create_dir(OsStr::new("after"), 0o777)?;
                for (index, image) in new.after_images.iter().enumerate() {
                    if let Some(bytes) = image {
                        after.create_file(OsStr::new(&index.to_string()), 0o600, bytes)?;
                    }
                }
                after.sync()?;
            }
            let json = serde_json::to_vec_pretty(&manifest).map_err(std::io::Error::other)?;
            stage.create_file(OsStr::new("manifest.json"), 0o600, &json)?;
            let mac = self.key.mac(&json);
            stage.create_file(OsStr::new(MAC_FILE), 0o600, mac.as_bytes())?;
            stage.sync()?;
            step();
            self.dir.rename(&staging, OsStr::new(&id))?;
            self.dir.sync()
        })();
        if let Err(e) = result {
            let _ = self.dir.remove_tree(&staging);
            return Err(io_error(&self.path.join(&id), e));
        }
        Ok(manifest)
    }

    /// The handle of entry `id` (a real directory; a link there is refused).
    fn entry_dir(&self, id: &str) -> std::io::Result<Dir> {
        self.dir
            .open_dir(OsStr::new(id))?
            .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::NotFound, "the entry is gone"))
    }

    /// Records the final state of a transaction (atomically: the old status or the new one).
    pub fn set_state(&self, id: &str, state: &State) -> Result<(), JournalError> {
        let (name, note) = match state {
            State::Pending => return Ok(()),
            State::Committed => ("committed", None),
            State::RolledBack { note } => ("rolled_back", note.clone()),
        };
        let status = StatusFile {
            state: name.to_string(),
            time_unix: now_unix(),
            note,
        };
        let path = self.path.join(id).join("status.json");
        let json = serde_json::to_vec_pretty(&status).map_err(|e| io_error(&path, e))?;
        let temp = OsStr::new(".status.tmp");
        let result = (|| -> std::io::Result<()> {
            let dir = self.entry_dir(id)?;
            let _ = dir.remove_file(temp);
            dir.create_file(temp, 0o600, &json)?;
            dir.rename(temp, OsStr::new("status.json"))?;
            dir.sync()
        })();
        result.map_err(|e| refused(&path, e))
    }

    /// The bytes file `index` of `manifest` had before, checked against its recorded hash.
    pub fn before_image(
        &self,
        manifest: &Manifest,
        index: usize,
    ) -> Result<Option<Vec<u8>>, JournalError> {
        let Some(record) = manifest.files.get(index) else {
            return Err(self.corrupt(&manifest.id, format!("it has no file number {index}")));
        };
        let Some(want) = &record.sha256_before else {
            return Ok(None);
        };
        let read = (|| -> std::io::Result<Vec<u8>> {
            let before = self
                .entry_dir(&manifest.id)?
                .open_dir(OsStr::new("before"))?
                .ok_or_else(|| std::io::Error::other("the folder is gone"))?;
            before
                .read_file(OsStr::new(&index.to_string()))?
                .ok_or_else(|| std::io::Error::other("the file is gone"))
        })();
        let bytes = read.map_err(|e| self.corrupt(&manifest.id, format!("before/{index}: {e}")))?;
        if sha256_hex(&bytes) != *want {
            return Err(self.corrupt(
                &manifest.id,
                format!(
                    "before/{index} does not hash to the recorded sha256 of {}",
                    record.path
                ),
            ));
        }
        Ok(Some(bytes))
    }

    /// The bytes file `index` of `manifest` held right after the write, checked against its
    /// recorded hash; `None` when the entry kept none (an older entry, or a file removed).
    pub fn after_image(
        &self,
        manifest: &Manifest,
        index: usize,
    ) -> Result<Option<Vec<u8>>, JournalError> {
        let Some(want) = manifest
            .files
            .get(index)
            .and_then(|r| r.sha256_after.as_ref())
        else {
            return Ok(None);
        };
        let read = (|| -> std::io::Result<Option<Vec<u8>>> {
            match self
                .entry_dir(&manifest.id)?
                .open_dir(OsStr::new("after"))?
            {
                Some(after) => after.read_file(OsStr::new(&index.to_string())),
                None => Ok(None),
            }
        })();
        let bytes = read.map_err(|e| self.corrupt(&manifest.id, format!("after/{index}: {e}")))?;
        match bytes {
            Some(bytes) if sha256_hex(&bytes) != *want => Err(self.corrupt(
                &manifest.id,
                format!("after/{index} does not hash to the recorded sha256 after the write"),
            )),
            other => Ok(other),
        }
    }

    /// Where the journal keeps the before-image of file `index` (for messages).
    pub fn image_path(&self, id: &str, index: usize) -> String {
        format!("{CANDOR_DIR}/journal/{id}/before/{index}")
    }

    fn corrupt(&self, id: &str, message: String) -> JournalError {
        JournalError::Corrupt {
            path: format!("{CANDOR_DIR}/journal/{id}"),
            message,
        }
    }

    /// Deletes what an interrupted journal write left behind (staging and trash folders).
    pub fn clean_leftovers(&self) {
        if let Ok(entries) = self.dir.entries() {
            for (name, _) in entries {
                let text = name.to_string_lossy();
                if text.starts_with(".staging-") || text.starts_with(".trash-") {
                    let _ = self.dir.remove_tree(&name);
                }
            }
        }
    }

    /// Keeps the newest `keep` finished transactions. An entry is first renamed aside, so a crash
    /// mid-deletion never leaves a half-deleted entry that looks pending.
    pub fn prune(&self, keep: usize) -> Result<(), JournalError> {
        let entries = self.entries()?;
        let finished: Vec<&Entry> = entries
            .iter()
            .filter(|e| e.state != State::Pending)
            .collect();
        let excess = finished.len().saturating_sub(keep);
        for entry in finished.into_iter().take(excess) {
            let id = OsStr::new(&entry.manifest.id);
            let trash = OsString::from(format!(".trash-{}", entry.manifest.id));
            self.dir
                .rename(id, &trash)
                .map_err(|e| io_error(&self.path.join(&entry.manifest.id), e))?;
            let _ = self.dir.remove_tree(&trash);
        }
        Ok(())
    }
}

/// Whether the journal of `root` holds an entry that may be pending (a published entry without
/// `status.json`): a look at names only, cheap enough to run before every preview.
pub fn may_have_pending(root: &Root) -> Result<bool, JournalError> {
    let Some(dir) = existing_journal_dir(root)? else {
        return Ok(false);
    };
    let path = root.path().join(CANDOR_DIR).join("journal");
    for (name, kind) in dir.entries().map_err(|e| io_error(&path, e))? {
        if kind != NodeKind::Dir || name.to_string_lossy().starts_with('.') {
            continue;
        }
        let Ok(Some(entry)) = dir.open_dir(&name) else {
            continue;
        };
        if entry
            .meta(OsStr::new("status.json"))
            .ok()
            .flatten()
            .is_none()
        {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The journal of `root` as it is, without taking the lock or creating anything (for listing):
/// the entries signed with the user's key (none when the user has no key yet).
pub fn read_history(root: &Root) -> Result<Vec<Entry>, JournalError> {
    let key = Key::user_existing();
    match existing_journal_dir(root)? {
        Some(dir) => Ok(read_entries(
            &dir,
            &root.path().join(CANDOR_DIR).join("journal"),
            key.as_ref(),
        )?
        .0),
        None => Ok(Vec::new()),
    }
}

/// Why the entry in `entry_dir` whose manifest is `bytes` is not signed by `key`, if it is not.
fn unsigned_because(entry_dir: &Dir, bytes: &[u8], key: Option<&Key>) -> Option<String> {
    let Some(key) = key else {
        return Some("this user has no journal key yet".to_string());
    };
    match entry_dir.read_file(OsStr::new(MAC_FILE)) {
        Ok(Some(mac)) if key.verifies(bytes, &String::from_utf8_lossy(&mac)) => None,
        Ok(Some(_)) => Some(format!(
            "its {MAC_FILE} does not verify with this user's key"
        )),
        Ok(None) => Some(format!("it has no {MAC_FILE}")),
        Err(e) => Some(format!("its {MAC_FILE} cannot be read ({e})")),
    }
}

/// The signed entries (oldest first) and the unsigned ones that look pending.
fn read_entries(
    dir: &Dir,
    path: &Path,
    key: Option<&Key>,
) -> Result<(Vec<Entry>, Vec<Unsigned>), JournalError> {
    let names = dir.entries().map_err(|e| io_error(path, e))?;
    let mut entries = Vec::new();
    let mut unsigned = Vec::new();
    for (name, kind) in names {
        let name = name.to_string_lossy().into_owned();
        // A link among the entries is never followed: it is not an entry.
        if name.starts_with('.') || kind != NodeKind::Dir {
            continue;
        }
        // An entry that cannot be read is skipped: it cannot be restored from, and a damaged
        // journal must not block every later write.
        let Ok(Some(entry_dir)) = dir.open_dir(OsStr::new(&name)) else {
            continue;
        };
        let Ok(Some(bytes)) = entry_dir.read_file(OsStr::new("manifest.json")) else {
            continue;
        };
        if let Some(why) = unsigned_because(&entry_dir, &bytes, key) {
            if let Ok(None) = entry_dir.meta(OsStr::new("status.json")) {
                let what = serde_json::from_slice::<serde_json::Value>(&bytes)
                    .ok()
                    .and_then(|v| v.get("tool")?.as_str().map(str::to_string))
                    .unwrap_or_else(|| "unknown".to_string());
                unsigned.push(Unsigned {
                    id: name.clone(),
                    what,
                    why,
                });
            }
            continue;
        }
        let Ok(manifest) = serde_json::from_slice::<Manifest>(&bytes) else {
            continue;
        };
        if manifest.id != name || manifest.format != FORMAT {
            continue;
        }
        let state = match entry_dir.read_file(OsStr::new("status.json")) {
            Ok(Some(bytes)) => match serde_json::from_slice::<StatusFile>(&bytes) {
                Ok(status) if status.state == "committed" => State::Committed,
                Ok(status) if status.state == "rolled_back" => {
                    State::RolledBack { note: status.note }
                }
                _ => continue,
            },
            Ok(None) => State::Pending,
            Err(_) => continue,
        };
        entries.push(Entry { manifest, state });
    }
    entries.sort_by_key(|e| e.manifest.seq);
    unsigned.sort_by(|a, b| a.id.cmp(&b.id));
    Ok((entries, unsigned))
}
fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// (year, month, day, hour, minute, second) in UTC of a Unix time.
fn civil(secs: u64) -> (i64, u32, u32, u32, u32, u32) {
    let days = (secs / 86_400) as i64;
    let rest = secs % 86_400;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        year,
        month,
        day,
        (rest / 3600) as u32,
        (rest % 3600 / 60) as u32,
        (rest % 60) as u32,
    )
}

/// `2026-03-21 10:15:30 UTC`.
pub fn human_utc(secs: u64) -> String {
    let (y, mo, d, h, mi, s) = civil(secs);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02} UTC")
}

/// `20260321T101530Z`.
fn compact_utc(secs: u64) -> String {
    let (y, mo, d, h, mi, s) = civil(secs);
    format!("{y:04}{mo:02}{d:02}T{h:02}{mi:02}{s:02}Z")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::OpenOptions;

    #[test]
    fn utc_formatting() {
        assert_eq!(human_utc(0), "1970-01-01 00:00:00 UTC");
        assert_eq!(human_utc(951_782_400), "2000-02-29 00:00:00 UTC");
        assert_eq!(human_utc(1_774_088_130), "2026-03-21 10:15:30 UTC");
        assert_eq!(compact_utc(1_774_088_130), "20260321T101530Z");
    }

    #[test]
    fn entries_are_staged_published_committed_and_pruned() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let journal = Journal::open(&root).unwrap();
        assert!(dir.path().join(".candor/.gitignore").exists());
        let mut ids = Vec::new();
        for n in 0..5u8 {
            let manifest = journal
                .begin(
                    NewEntry {
                        kind: Kind::Apply,
                        tool: Some("refactor_inline_function".into()),
                        undoes: None,
                        files: vec![FileRecord {
                            path: "a.py".into(),
                            sha256_before: Some(sha256_hex(&[n])),
                            sha256_after: Some(sha256_hex(b"after")),
                        }],
                        images: vec![Some(&[n])],
                        after_images: vec![Some(b"after")],
                        created_dirs: Vec::new(),
                    },
                    &|| {},
                )
                .unwrap();
            assert_eq!(
                journal.entries().unwrap().last().unwrap().state,
                State::Pending
            );
            assert_eq!(journal.before_image(&manifest, 0).unwrap(), Some(vec![n]));
            assert_eq!(
                journal.after_image(&manifest, 0).unwrap(),
                Some(b"after".to_vec())
            );
            journal.set_state(&manifest.id, &State::Committed).unwrap();
            ids.push(manifest.id);
        }
        let entries = journal.entries().unwrap();
        assert_eq!(
            entries.iter().map(|e| e.manifest.seq).collect::<Vec<_>>(),
            vec![1, 2, 3, 4, 5]
        );
        assert!(entries.iter().all(|e| e.state == State::Committed));
        journal.prune(2).unwrap();
        let kept: Vec<String> = journal
            .entries()
            .unwrap()
            .into_iter()
            .map(|e| e.manifest.id)
            .collect();
        assert_eq!(kept, ids[3..].to_vec());

        // A damaged image is refused, not restored.
        let last = journal.entries().unwrap().pop().unwrap().manifest;
        std::fs::write(journal.dir().join(&last.id).join("before/0"), b"tampered").unwrap();
        assert!(matches!(
            journal.before_image(&last, 0),
            Err(JournalError::Corrupt { .. })
        ));
    }

    #[test]
    fn a_second_writer_waits_for_the_lock() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let first = Journal::open(&root).unwrap();
        let lock = OpenOptions::new()
            .write(true)
            .open(dir.path().join(".candor/lock"))
            .unwrap();
        assert!(matches!(
            lock.try_lock(),
            Err(std::fs::TryLockError::WouldBlock)
        ));
        drop(first);
        assert!(lock.try_lock().is_ok());
    }

    #[test]
    fn an_unusable_candor_folder_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(".candor"), b"not a folder").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let err = Journal::open(&root).unwrap_err();
        assert!(matches!(err, JournalError::NotAFolder { .. }), "{err:?}");
        assert!(
            err.to_string()
                .contains("writes nothing without its journal")
        );
        assert!(!err.to_string().contains("writable"), "{err}");
        assert!(err.to_string().contains("move "), "{err}");

        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".candor")).unwrap();
        let root = Root::new(dir.path()).unwrap();
        assert!(Journal::open(&root).is_err());
        assert_eq!(
            std::fs::read_dir(outside.path()).unwrap().count(),
            0,
            "nothing written outside the root"
        );
    }

    #[test]
    fn symbolic_links_inside_candor_are_refused_never_followed() {
        // .candor/journal -> outside: the journal (copies of project files) must not land there.
        let outside = tempfile::tempdir().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".candor")).unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join(".candor/journal")).unwrap();
        let root = Root::new(dir.path()).unwrap();
        let err = Journal::open(&root).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(
            !err.to_string().contains("make the project folder writable"),
            "a link is not a permission problem: {err}"
        );
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
        assert!(read_history(&root).is_err());

        // .candor/lock -> a missing outside path: it must not be created.
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".candor")).unwrap();
        let target = outside.path().join("created-by-candor");
        std::os::unix::fs::symlink(&target, dir.path().join(".candor/lock")).unwrap();
        let root = Root::new(dir.path()).unwrap();
        let err = Journal::open(&root).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(!target.exists(), "the lock link was followed");

        // A journal entry that is a link to an outside folder is not an entry: nothing is
        // read from it and no status.json is written there.
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let journal = Journal::open(&root).unwrap();
        let fake = outside.path().join("000001-20260101T000000Z");
        std::fs::create_dir(&fake).unwrap();
        let manifest = Manifest {
            format: FORMAT,
            id: "000001-20260101T000000Z".into(),
            seq: 1,
            time_unix: 0,
            kind: Kind::Apply,
            tool: Some("refactor_inline_function".into()),
            undoes: None,
            files: Vec::new(),
            created_dirs: Vec::new(),
        };
        std::fs::write(
            fake.join("manifest.json"),
            serde_json::to_vec(&manifest).unwrap(),
        )
        .unwrap();
        std::os::unix::fs::symlink(&fake, journal.dir().join(&manifest.id)).unwrap();
        assert!(journal.entries().unwrap().is_empty());
        assert!(journal.set_state(&manifest.id, &State::Committed).is_err());
        assert!(!fake.join("status.json").exists());
    }
}
