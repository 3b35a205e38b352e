//! A shadow of the project in candor's cache, brought up to date before each check: every file the
//! project's own walk would see (.gitignore honoured, `.git`, build output and virtual
//! environments left out), as reflinks where the file system offers them (`FICLONE`), copies
//! otherwise — never hard links, so no project file ever gains a second name in candor's cache —
//! with the refactor's files written as new files. A manifest remembers what each shadow file
//! came from and its content hash, so an unchanged project costs one `stat` per file, keeps
//! cargo's fingerprints fresh, and names the project's content (for remembered results).
//!
//! The cache is treated as hostile input: every file candor writes or removes in a shadow is
//! reached from the shadow's directory handle one name at a time (`openat(O_NOFOLLOW)`); a
//! manifest key that is not a plain relative path is ignored, never acted on; a symbolic link
//! found inside a shadow is removed (the link, never its target). A file that cannot be mirrored
//! is left out with a note instead of failing the whole check. The user's files are only ever
//! read.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::workspace::dir::Dir;

use super::process::{Budget, Stop};

/// A project with more files than this is not shadowed (the check says so).
const MAX_FILES: usize = 200_000;
/// Nor one with more bytes than this.
const MAX_BYTES: u64 = 8 << 30;

/// Directory names never mirrored: version control, candor's own, caches.
const SKIPPED_DIRS: &[&str] = &[
    ".git",
    ".hg",
    ".svn",
    ".jj",
    ".candor",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".tox",
    ".nox",
];

/// How a sync went, for the notes and the tests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SyncStats {
    pub kept: usize,
    pub reflinked: usize,
    pub copied: usize,
    pub written: usize,
    pub removed: usize,
}

/// A shadow brought up to date.
#[derive(Debug, Clone, Default)]
pub(crate) struct Synced {
    pub stats: SyncStats,
    /// Every file now in the shadow (project-relative) → sha256 of its content.
    pub content: BTreeMap<String, String>,
    /// Project files left out of the shadow, each with why (`path: reason`).
    pub skipped: Vec<String>,
}

#[derive(Debug)]
pub(crate) enum SyncError {
    Stopped(Stop),
    Failed(String),
}

impl From<Stop> for SyncError {
    fn from(stop: Stop) -> SyncError {
        SyncError::Stopped(stop)
    }
}

/// Identity and version of a file, as `stat` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileId {
    dev: u64,
    ino: u64,
    size: u64,
    mtime_ns: i128,
    mode: u32,
}

impl FileId {
    fn of(meta: &std::fs::Metadata) -> FileId {
        FileId {
            dev: meta.dev(),
            ino: meta.ino(),
            size: meta.size(),
            mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
            mode: meta.mode(),
        }
    }

    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    fn of_stat(stat: &rustix::fs::Stat) -> FileId {
        FileId {
            dev: stat.st_dev as u64,
            ino: stat.st_ino as u64,
            size: stat.st_size as u64,
            mtime_ns: i128::from(stat.st_mtime) * 1_000_000_000 + i128::from(stat.st_mtime_nsec),
            mode: stat.st_mode as u32,
        }
    }
}

/// One file of the project as the walk found it.
#[derive(Debug, Clone)]
pub(crate) struct UserFile {
    /// Project-relative, `/`-separated.
    pub relative: String,
    /// The file to read (the target of a symbolic link inside the project).
    pub path: PathBuf,
    id: FileId,
    /// Whether `path` was reached through a symbolic link (then it may not be opened with
    /// `O_NOFOLLOW`).
    via_link: bool,
}

/// Where a shadow file's content came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum Origin {
    /// A reflink or copy of this version of the user's file.
    Copied(FileId),
    /// Bytes candor wrote (a refactored file), by sha256.
    Written(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    origin: Origin,
    /// The shadow file as it was left: anything else there now (a build script's write, a
    /// crash half-way, a hand in the cache) is replaced.
    stamp: FileId,
    /// sha256 of its content.
    sha256: String,
}

type Manifest = BTreeMap<String, Entry>;

/// What a shadow file should hold.
enum Desired<'a> {
    User(&'a UserFile),
    Bytes { bytes: &'a [u8], sha256: String },
}

/// A shadow to bring up to date: its directory and where its manifest is kept.
pub(crate) struct Target<'a> {
    pub dir: &'a Dir,
    /// Shown in messages.
    pub path: &'a Path,
    pub manifest_dir: &'a Dir,
    pub manifest_name: &'a str,
}

/// Brings the shadow up to date with `files` (from [`project_files`]), with `overrides`
/// (project-relative path → bytes) in place of the files on disk. `progress` hears (files done,
/// files in all) as it goes.
pub(crate) fn sync(
    files: &[UserFile],
    target: &Target<'_>,
    overrides: &BTreeMap<String, Vec<u8>>,
    budget: &Budget<'_>,
    progress: &dyn Fn(usize, usize),
) -> Result<Synced, SyncError> {
    let mut desired: BTreeMap<&str, Desired<'_>> = files
        .iter()
        .map(|file| (file.relative.as_str(), Desired::User(file)))
        .collect();
    for (path, bytes) in overrides {
        if split_key(path).is_none() {
            return Err(SyncError::Failed(format!(
                "`{path}` is not a plain project-relative path"
            )));
        }
        desired.insert(
            path.as_str(),
            Desired::Bytes {
                bytes,
                sha256: crate::edit::sha256_hex(bytes),
            },
        );
    }
    let old = read_manifest(target);
    let mut synced = Synced::default();
    let mut new = Manifest::new();
    let mut cursor = Cursor::new(target.dir);
    let total = desired.len();
    let result = (|| -> Result<(), SyncError> {
        for (i, (relative, want)) in desired.iter().enumerate() {
            if i % 256 == 0 {
                budget.check()?;
                progress(i, total);
            }
            let Some((parents, name)) = split_key(relative) else {
                synced
                    .skipped
                    .push(format!("{relative}: not a plain relative path"));
                continue;
            };
            let placed = cursor
                .dir(&parents, true)
                .and_then(|dir| place(dir, name, old.get(*relative), want, &mut synced.stats));
            match placed {
                Ok(entry) => {
                    synced
                        .content
                        .insert(relative.to_string(), entry.sha256.clone());
                    new.insert(relative.to_string(), entry);
                }
                Err(e) if matches!(want, Desired::Bytes { .. }) => {
                    return Err(SyncError::Failed(format!(
                        "cannot write {relative} into the shadow {}: {e}",
                        target.path.display()
                    )));
                }
                Err(e) => synced.skipped.push(format!("{relative}: {e}")),
            }
        }
        progress(total, total);
        for relative in old.keys().filter(|k| !desired.contains_key(k.as_str())) {
            let Some((parents, name)) = split_key(relative) else {
                continue;
            };
            if let Ok(dir) = cursor.dir(&parents, false)
                && dir.remove_tree(name).is_ok()
            {
                synced.stats.removed += 1;
            }
        }
        Ok(())
    })();
    // Whatever happened, remember what is there now (entries not reached keep their old
    // stamps and are checked again next time).
    for (relative, entry) in &old {
        if desired.contains_key(relative.as_str()) && !new.contains_key(relative) {
            new.insert(relative.clone(), entry.clone());
        }
    }
    write_manifest(target, &new).map_err(|e| {
        SyncError::Failed(format!(
            "cannot write {} in candor's cache: {e}",
            target.manifest_name
        ))
    })?;
    result.map(|()| synced)
}

/// `a/b/c.py` as its parent directories and its name; `None` for anything but a plain relative
/// path (empty, absolute, `.`, `..`, an empty component, a NUL): such a key is never acted on.
pub(crate) fn split_key(key: &str) -> Option<(Vec<&OsStr>, &OsStr)> {
    if key.is_empty() || key.starts_with('/') || key.contains('\0') {
        return None;
    }
    let mut parts: Vec<&OsStr> = Vec::new();
    for part in key.split('/') {
        if part.is_empty() || part == "." || part == ".." {
            return None;
        }
        parts.push(OsStr::new(part));
    }
    let name = parts.pop()?;
    Some((parts, name))
}

/// The shadow file `name` in `dir` brought to what `want` asks for: kept when it already is.
fn place(
    dir: &Dir,
    name: &OsStr,
    old: Option<&Entry>,
    want: &Desired<'_>,
    stats: &mut SyncStats,
) -> io::Result<Entry> {
    let here = stat_of(dir, name)?;
    if let (Some(entry), Some(stamp)) = (old, here)
        && still_good(entry, want)
        && stamp == entry.stamp
    {
        stats.kept += 1;
        return Ok(entry.clone());
    }
    // The same bytes already there (a result that was since applied, a file put back): kept
    // as they are, so cargo's fingerprints stay fresh.
    if let Some(entry) = same_content(dir, name, want)? {
        stats.kept += 1;
        return Ok(entry);
    }
    materialize(dir, name, want, stats)
}

fn still_good(entry: &Entry, want: &Desired<'_>) -> bool {
    match (want, &entry.origin) {
        (Desired::User(file), Origin::Copied(was)) => *was == file.id,
        (Desired::Bytes { sha256, .. }, Origin::Written(was)) => was == sha256,
        _ => false,
    }
}

/// The stamp of the regular file `name` in `dir` (`None`: nothing, or not a regular file).
fn stat_of(dir: &Dir, name: &OsStr) -> io::Result<Option<FileId>> {
    match rustix::fs::statat(dir.as_fd(), name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
        Ok(stat) if rustix::fs::FileType::from_raw_mode(stat.st_mode).is_file() => {
            Ok(Some(FileId::of_stat(&stat)))
        }
        Ok(_) | Err(rustix::io::Errno::NOENT) => Ok(None),
        Err(e) => Err(e.into()),
    }
}

/// The entry of `name` when it is a file of its own that already holds what `want` asks for.
fn same_content(dir: &Dir, name: &OsStr, want: &Desired<'_>) -> io::Result<Option<Entry>> {
    let Ok(stat) = rustix::fs::statat(dir.as_fd(), name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
    else {
        return Ok(None);
    };
    #[allow(clippy::useless_conversion)]
    let links = u64::from(stat.st_nlink);
    if !rustix::fs::FileType::from_raw_mode(stat.st_mode).is_file() || links != 1 {
        return Ok(None);
    }
    let stamp = FileId::of_stat(&stat);
    let (bytes, origin) = match want {
        Desired::Bytes { bytes, sha256 } => (bytes.to_vec(), Origin::Written(sha256.clone())),
        Desired::User(file) => {
            if file.id.size != stamp.size {
                return Ok(None);
            }
            (read_user(file)?, Origin::Copied(file.id))
        }
    };
    if bytes.len() as u64 != stamp.size || dir.read_file(name)?.as_deref() != Some(&bytes[..]) {
        return Ok(None);
    }
    Ok(Some(Entry {
        origin,
        stamp,
        sha256: crate::edit::sha256_hex(&bytes),
    }))
}

fn materialize(
    dir: &Dir,
    name: &OsStr,
    want: &Desired<'_>,
    stats: &mut SyncStats,
) -> io::Result<Entry> {
    dir.remove_tree(name)?;
    match want {
        Desired::Bytes { bytes, sha256 } => {
            let mut file = dir.create_new(name)?;
            file.write_all(bytes)?;
            rustix::fs::fchmod(&file, rustix::fs::Mode::from_raw_mode(0o644))?;
            stats.written += 1;
            Ok(Entry {
                origin: Origin::Written(sha256.clone()),
                stamp: FileId::of(&file.metadata()?),
                sha256: sha256.clone(),
            })
        }
        Desired::User(file) => {
            let mut source = open_user(file)?;
            let mode = source.metadata()?.mode() & 0o7777;
            let mut dest = dir.create_new(name)?;
            let copied = (|| -> io::Result<String> {
                rustix::fs::fchmod(&dest, rustix::fs::Mode::from_raw_mode(mode | 0o200))?;
                if rustix::fs::ioctl_ficlone(&dest, &source).is_ok() {
                    stats.reflinked += 1;
                    return hash_of(&mut source);
                }
                stats.copied += 1;
                copy_hashing(&mut source, &mut dest)
            })();
            let sha256 = match copied {
                Ok(sha256) => sha256,
                Err(e) => {
                    let _ = dir.remove_file(name);
                    return Err(e);
                }
            };
            Ok(Entry {
                origin: Origin::Copied(file.id),
                stamp: FileId::of(&dest.metadata()?),
                sha256,
            })
        }
    }
}

/// Opens a user file for reading, never blocking on a FIFO, and never through a symbolic link
/// the walk did not see.
fn open_user(file: &UserFile) -> io::Result<File> {
    let mut options = File::options();
    options.read(true);
    let mut flags = rustix::fs::OFlags::NONBLOCK.bits() as i32;
    if !file.via_link {
        flags |= rustix::fs::OFlags::NOFOLLOW.bits() as i32;
    }
    let opened = options.custom_flags(flags).open(&file.path)?;
    if !opened.metadata()?.is_file() {
        return Err(io::Error::other("is not a regular file any more"));
    }
    Ok(opened)
}

fn read_user(file: &UserFile) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    open_user(file)?.read_to_end(&mut bytes)?;
    Ok(bytes)
}

fn hash_of(source: &mut File) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 << 10];
    loop {
        let n = source.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
    }
    Ok(hex::encode(hasher.finalize()))
}

fn copy_hashing(source: &mut File, dest: &mut File) -> io::Result<String> {
    let mut hasher = Sha256::new();
    let mut buffer = vec![0u8; 64 << 10];
    loop {
        let n = source.read(&mut buffer)?;
        if n == 0 {
            break;
        }
        hasher.update(&buffer[..n]);
        dest.write_all(&buffer[..n])?;
    }
    Ok(hex::encode(hasher.finalize()))
}

/// The directories of a shadow, opened one name at a time from its handle and kept open along
/// the current path (files come in path order, so each directory is opened once).
struct Cursor<'a> {
    root: &'a Dir,
    stack: Vec<(OsString, Dir)>,
}

impl<'a> Cursor<'a> {
    fn new(root: &'a Dir) -> Cursor<'a> {
        Cursor {
            root,
            stack: Vec::new(),
        }
    }

    /// The directory at `parts` under the shadow. With `create`, missing directories are made
    /// and anything else in the way (a file, a symbolic link) is removed first — the link, never
    /// what it points to. Without, a missing one is an error.
    fn dir(&mut self, parts: &[&OsStr], create: bool) -> io::Result<&Dir> {
        let common = self
            .stack
            .iter()
            .zip(parts)
            .take_while(|((have, _), want)| have.as_os_str() == **want)
            .count();
        self.stack.truncate(common);
        for part in &parts[common..] {
            let parent = self.stack.last().map_or(self.root, |(_, d)| d);
            let next = match parent.open_dir(part) {
                Ok(Some(dir)) => dir,
                Ok(None) if create => parent.create_dir(part, 0o755)?.0,
                Ok(None) => {
                    return Err(io::Error::new(io::ErrorKind::NotFound, "no such folder"));
                }
                Err(_) if create => {
                    parent.remove_tree(part)?;
                    parent.create_dir(part, 0o755)?.0
                }
                Err(e) => return Err(e),
            };
            self.stack.push((part.to_os_string(), next));
        }
        Ok(self.stack.last().map_or(self.root, |(_, d)| d))
    }
}

/// The manifest as written by the last sync; unreadable or foreign entries are dropped (the
/// files they named are made again).
fn read_manifest(target: &Target<'_>) -> Manifest {
    let Ok(Some(bytes)) = target
        .manifest_dir
        .read_file(OsStr::new(target.manifest_name))
    else {
        return Manifest::new();
    };
    let manifest: Manifest = serde_json::from_slice(&bytes).unwrap_or_default();
    manifest
        .into_iter()
        .filter(|(key, _)| split_key(key).is_some())
        .collect()
}

fn write_manifest(target: &Target<'_>, manifest: &Manifest) -> io::Result<()> {
    let bytes = serde_json::to_vec(manifest).map_err(io::Error::other)?;
    let temp = format!("{}.tmp", target.manifest_name);
    let temp = OsStr::new(&temp);
    target.manifest_dir.remove_tree(temp)?;
    target.manifest_dir.create_new(temp)?.write_all(&bytes)?;
    target
        .manifest_dir
        .rename(temp, OsStr::new(target.manifest_name))
}

/// Every file of the project a check may need. A symlink counts as the file it points to when
/// that file is inside the project; other symlinks are left out.
#[cfg(test)]
pub(crate) fn project_files(root: &Path, budget: &Budget<'_>) -> Result<Vec<UserFile>, SyncError> {
    project_files_noting(root, budget, &mut Vec::new())
}

/// [`project_files`], adding to `left_out` each part of the project the walk could not enter or
/// read (a path longer than the system allows, a folder without permission): the check goes on
/// without it, and says so.
pub(crate) fn project_files_noting(
    root: &Path,
    budget: &Budget<'_>,
    left_out: &mut Vec<String>,
) -> Result<Vec<UserFile>, SyncError> {
    let mut files = Vec::new();
    let mut bytes: u64 = 0;
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            let is_dir = entry.file_type().is_some_and(|t| t.is_dir());
            !(entry.depth() > 0 && is_dir && skipped_dir(entry.path()))
        })
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                left_out.push(walk_error(root, &e));
                continue;
            }
        };
        let Some(kind) = entry.file_type() else {
            continue;
        };
        let (path, meta, via_link) = if kind.is_file() {
            match entry.metadata() {
                Ok(meta) => (entry.path().to_path_buf(), meta, false),
                Err(_) => continue,
            }
        } else if kind.is_symlink() {
            match entry.path().canonicalize() {
                Ok(real) if real.starts_with(root) => match std::fs::metadata(&real) {
                    Ok(meta) if meta.is_file() => (real, meta, true),
                    _ => continue,
                },
                _ => continue,
            }
        } else {
            continue;
        };
        let Ok(relative) = entry.path().strip_prefix(root) else {
            continue;
        };
        let Some(relative) = relative.to_str() else {
            continue;
        };
        bytes += meta.len();
        if files.len() % 256 == 0 {
            budget.check()?;
        }
        if files.len() >= MAX_FILES || bytes > MAX_BYTES {
            return Err(SyncError::Failed(format!(
                "the project has more than {MAX_FILES} files or {} GiB outside .gitignore; it is too large to copy into a shadow for checking",
                MAX_BYTES >> 30
            )));
        }
        files.push(UserFile {
            relative: relative.to_string(),
            path,
            id: FileId::of(&meta),
            via_link,
        });
    }
    Ok(files)
}

/// "d/…/deep: File name too long (os error 36)": what could not be walked, its path relative to
/// the root and shortened in the middle when long.
fn walk_error(root: &Path, error: &ignore::Error) -> String {
    fn parts(error: &ignore::Error) -> (Option<&Path>, String) {
        match error {
            ignore::Error::WithPath { path, err } => (Some(path.as_path()), parts(err).1),
            ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
                parts(err)
            }
            other => (
                None,
                // The OS's own words: the wrapped message ("IO error for operation on PATH: …")
                // repeats the whole, possibly very long, path.
                match other.io_error().and_then(std::io::Error::raw_os_error) {
                    Some(code) => std::io::Error::from_raw_os_error(code).to_string(),
                    None => {
                        let text = other.to_string();
                        match text.strip_prefix("IO error for operation on ") {
                            Some(rest) => rest
                                .rsplit_once(": ")
                                .map_or(text.clone(), |(_, why)| why.to_string()),
                            None => text,
                        }
                    }
                },
            ),
        }
    }
    let (path, message) = parts(error);
    let Some(path) = path else {
        return message;
    };
    let relative = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let chars: Vec<char> = relative.chars().collect();
    let shown = if chars.len() > 100 {
        let head: String = chars[..40].iter().collect();
        let tail: String = chars[chars.len() - 40..].iter().collect();
        format!("{head}…{tail}")
    } else {
        relative
    };
    format!("{shown}: {message}")
}

/// Directories never mirrored: [`SKIPPED_DIRS`], a Cargo `target/` (beside a `Cargo.toml`) and
/// Python virtual environments (they hold a `pyvenv.cfg`).
fn skipped_dir(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else {
        return true;
    };
    SKIPPED_DIRS.contains(&name)
        || (name == "target"
            && path
                .parent()
                .is_some_and(|p| p.join("Cargo.toml").is_file()))
        || path.join("pyvenv.cfg").is_file()
}

/// The content key of a project state: a hash over every (path, content hash), in path order.
pub(crate) fn content_key<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut hasher = Sha256::new();
    for (path, sha) in files {
        hasher.update(path.as_bytes());
        hasher.update(b"\0");
        hasher.update(sha.as_bytes());
        hasher.update(b"\n");
    }
    hex::encode(hasher.finalize())
}

#[cfg(test)]
mod tests;
