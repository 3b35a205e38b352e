//! A shadow of the project in candor's cache, brought up to date before each check: every file the
//! project's own walk would see (.gitignore honoured, `.git`, build output and virtual
//! environments left out), as reflinks or copies — or hard links where no checker writes — with
//! the refactor's files written as new files. A manifest remembers what each shadow file came
//! from, so an unchanged project costs one `stat` per file and keeps cargo's fingerprints fresh.
//!
//! Every file (re)written gets a new modification time, so cargo never mistakes a file put back
//! for the one it built last. The user's files are only ever read.

use std::collections::BTreeMap;
use std::fs::File;
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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

/// May a shadow file share its inode with the user's file?
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sharing {
    /// Hard links are fine: nothing that runs writes to project files.
    Links,
    /// Only reflinks or copies: something that runs may write to any file (build scripts,
    /// proc macros, tests, cargo rewriting `Cargo.lock`), and must not reach the user's.
    Copies,
}

/// How a sync went, for the notes and the tests.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SyncStats {
    pub kept: usize,
    pub linked: usize,
    pub reflinked: usize,
    pub copied: usize,
    pub written: usize,
    pub removed: usize,
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

/// Identity and version of a user file, as `stat` tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
struct FileId {
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
}

/// Where a shadow file's content came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
enum Origin {
    /// A hard link to this version of the user's file.
    Linked(FileId),
    /// A reflink or copy of this version of the user's file.
    Copied(FileId),
    /// Bytes candor wrote (a refactored file), by sha256.
    Written(String),
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Entry {
    origin: Origin,
    /// The shadow file as it was left: anything else there now (a build script's write, a
    /// crash half-way) is replaced.
    stamp: FileId,
}

type Manifest = BTreeMap<String, Entry>;

/// What a shadow file should hold.
enum Desired<'a> {
    User { path: PathBuf, id: FileId },
    Bytes { bytes: &'a [u8], sha256: String },
}

/// Brings `shadow` up to date with the project at `root`, with `overrides` (project-relative
/// path → bytes) in place of the files on disk. `manifest` is the file that remembers the shadow
/// between checks.
pub(crate) fn sync(
    root: &Path,
    shadow: &Path,
    manifest: &Path,
    overrides: &BTreeMap<String, Vec<u8>>,
    sharing: Sharing,
    budget: &Budget<'_>,
) -> Result<SyncStats, SyncError> {
    let mut desired: BTreeMap<String, Desired<'_>> = project_files(root, budget)?
        .into_iter()
        .map(|(relative, path, id)| (relative, Desired::User { path, id }))
        .collect();
    for (path, bytes) in overrides {
        desired.insert(
            path.clone(),
            Desired::Bytes {
                bytes,
                sha256: hex::encode(Sha256::digest(bytes)),
            },
        );
    }
    let old: Manifest = std::fs::read(manifest)
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default();
    let mut stats = SyncStats::default();
    let mut new = Manifest::new();
    let result = (|| -> Result<(), SyncError> {
        for (i, (relative, want)) in desired.iter().enumerate() {
            if i % 128 == 0 {
                budget.check()?;
            }
            let target = shadow.join(relative);
            if let Some(entry) = old.get(relative)
                && still_good(entry, want, sharing, &target)
            {
                new.insert(relative.clone(), entry.clone());
                stats.kept += 1;
                continue;
            }
            // The same bytes already there (a result that was since applied, a file put back):
            // kept as they are, so cargo's fingerprints stay fresh.
            if let Some(entry) = same_content(want, &target) {
                new.insert(relative.clone(), entry);
                stats.kept += 1;
                continue;
            }
            let origin = materialize(want, &target, sharing, &mut stats).map_err(|e| {
                SyncError::Failed(format!(
                    "cannot prepare {relative} in the shadow {}: {e}",
                    shadow.display()
                ))
            })?;
            let stamp = std::fs::symlink_metadata(&target)
                .map(|m| FileId::of(&m))
                .map_err(|e| SyncError::Failed(format!("{}: {e}", target.display())))?;
            new.insert(relative.clone(), Entry { origin, stamp });
        }
        for relative in old.keys().filter(|k| !desired.contains_key(*k)) {
            if remove_path(&shadow.join(relative)).is_ok() {
                stats.removed += 1;
            }
        }
        Ok(())
    })();
    // Whatever happened, remember what is there now (entries not reached keep their old
    // stamps and are checked again next time).
    for (relative, entry) in &old {
        if desired.contains_key(relative) && !new.contains_key(relative) {
            new.insert(relative.clone(), entry.clone());
        }
    }
    write_manifest(manifest, &new)
        .map_err(|e| SyncError::Failed(format!("cannot write {}: {e}", manifest.display())))?;
    result.map(|()| stats)
}

fn still_good(entry: &Entry, want: &Desired<'_>, sharing: Sharing, target: &Path) -> bool {
    let origin_ok = match (want, &entry.origin) {
        (Desired::User { id, .. }, Origin::Linked(was)) => sharing == Sharing::Links && was == id,
        (Desired::User { id, .. }, Origin::Copied(was)) => was == id,
        (Desired::Bytes { sha256, .. }, Origin::Written(was)) => was == sha256,
        _ => false,
    };
    origin_ok
        && std::fs::symlink_metadata(target)
            .is_ok_and(|m| m.is_file() && FileId::of(&m) == entry.stamp)
}

/// The entry of `target` when it is a file of its own (not a link to the user's) that already
/// holds what `want` asks for.
fn same_content(want: &Desired<'_>, target: &Path) -> Option<Entry> {
    let meta = std::fs::symlink_metadata(target).ok()?;
    if !meta.is_file() || meta.nlink() != 1 {
        return None;
    }
    let (bytes, origin) = match want {
        Desired::Bytes { bytes, sha256 } => (bytes.to_vec(), Origin::Written(sha256.clone())),
        Desired::User { path, id } => {
            if id.size != meta.size() {
                return None;
            }
            (std::fs::read(path).ok()?, Origin::Copied(*id))
        }
    };
    if bytes.len() as u64 != meta.size() || std::fs::read(target).ok()? != bytes {
        return None;
    }
    Some(Entry {
        origin,
        stamp: FileId::of(&meta),
    })
}

fn materialize(
    want: &Desired<'_>,
    target: &Path,
    sharing: Sharing,
    stats: &mut SyncStats,
) -> io::Result<Origin> {
    remove_path(target)?;
    make_parent(target)?;
    match want {
        Desired::Bytes { bytes, sha256 } => {
            std::fs::write(target, bytes)?;
            stats.written += 1;
            Ok(Origin::Written(sha256.clone()))
        }
        Desired::User { path, id } => {
            if sharing == Sharing::Links && std::fs::hard_link(path, target).is_ok() {
                stats.linked += 1;
                return Ok(Origin::Linked(*id));
            }
            if clone_or_copy(path, target)? {
                stats.reflinked += 1;
            } else {
                stats.copied += 1;
            }
            Ok(Origin::Copied(*id))
        }
    }
}

/// A reflink of `from` at `to` where the file system can (true), else a copy (false).
fn clone_or_copy(from: &Path, to: &Path) -> io::Result<bool> {
    let mut source = File::open(from)?;
    let mode = source.metadata()?.permissions().mode() & 0o7777;
    let mut dest = File::options()
        .write(true)
        .create_new(true)
        .mode(mode | 0o200)
        .open(to)?;
    if rustix::fs::ioctl_ficlone(&dest, &source).is_ok() {
        return Ok(true);
    }
    io::copy(&mut source, &mut dest)?;
    Ok(false)
}

/// Removes a file, link or directory at `path`; nothing there is fine.
fn remove_path(path: &Path) -> io::Result<()> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.is_dir() => std::fs::remove_dir_all(path),
        Ok(_) => std::fs::remove_file(path),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(e) => Err(e),
    }
}

/// Creates the directories above `path`, replacing a file that stands where one must go (the
/// project turned a file into a directory since the last check).
fn make_parent(path: &Path) -> io::Result<()> {
    let Some(parent) = path.parent() else {
        return Ok(());
    };
    match std::fs::create_dir_all(parent) {
        Ok(()) => Ok(()),
        Err(_) => {
            let mut dir = PathBuf::new();
            for component in parent.components() {
                dir.push(component);
                if std::fs::symlink_metadata(&dir).is_ok_and(|m| !m.is_dir()) {
                    std::fs::remove_file(&dir)?;
                }
            }
            std::fs::create_dir_all(parent)
        }
    }
}

fn write_manifest(path: &Path, manifest: &Manifest) -> io::Result<()> {
    let bytes = serde_json::to_vec(manifest).map_err(io::Error::other)?;
    let temp = path.with_extension("json.tmp");
    std::fs::write(&temp, bytes)?;
    std::fs::rename(&temp, path)
}

/// Every file of the project a check may need: (project-relative path, file to read, its id).
/// A symlink counts as the file it points to when that file is inside the project; other
/// symlinks are left out.
fn project_files(
    root: &Path,
    budget: &Budget<'_>,
) -> Result<Vec<(String, PathBuf, FileId)>, SyncError> {
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
        let Ok(entry) = entry else { continue };
        let Some(kind) = entry.file_type() else {
            continue;
        };
        let (path, meta) = if kind.is_file() {
            match entry.metadata() {
                Ok(meta) => (entry.path().to_path_buf(), meta),
                Err(_) => continue,
            }
        } else if kind.is_symlink() {
            match entry.path().canonicalize() {
                Ok(real) if real.starts_with(root) => match std::fs::metadata(&real) {
                    Ok(meta) if meta.is_file() => (real, meta),
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
        files.push((relative.to_string(), path, FileId::of(&meta)));
    }
    Ok(files)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cancel::Cancel;
    use std::time::{Duration, Instant};

    fn budget(cancel: &Cancel) -> Budget<'_> {
        Budget::new(Instant::now() + Duration::from_secs(60), cancel)
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap()
    }

    /// Every path under `dir`, relative, sorted.
    fn listing(dir: &Path) -> Vec<String> {
        let mut out: Vec<String> = walk_all(dir)
            .into_iter()
            .map(|p| p.strip_prefix(dir).unwrap().display().to_string())
            .collect();
        out.sort();
        out
    }

    fn walk_all(dir: &Path) -> Vec<PathBuf> {
        let mut out = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() && !path.is_symlink() {
                out.extend(walk_all(&path));
            }
            out.push(path);
        }
        out
    }

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::create_dir_all(root.join("target/debug")).unwrap();
        std::fs::create_dir_all(root.join(".venv/bin")).unwrap();
        std::fs::create_dir_all(root.join("ignored")).unwrap();
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"x\"\n").unwrap();
        std::fs::write(root.join("src/lib.rs"), "pub fn a() {}\n").unwrap();
        std::fs::write(root.join(".cargo-like"), "hidden files are mirrored\n").unwrap();
        std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
        std::fs::write(root.join("ignored/big.bin"), "x").unwrap();
        std::fs::write(root.join(".git/HEAD"), "ref: refs/heads/main\n").unwrap();
        std::fs::write(root.join("target/debug/out"), "build output").unwrap();
        std::fs::write(root.join(".venv/pyvenv.cfg"), "home = /usr\n").unwrap();
        std::os::unix::fs::symlink("lib.rs", root.join("src/alias.rs")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", root.join("src/outside.rs")).unwrap();
        dir
    }

    #[test]
    fn a_shadow_mirrors_the_project_with_the_overrides() {
        let project = project();
        let root = project.path().canonicalize().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let shadow = cache.path().join("edit");
        let manifest = cache.path().join("edit.json");
        let cancel = Cancel::new();
        let overrides = BTreeMap::from([("src/lib.rs".to_string(), b"pub fn b() {}\n".to_vec())]);
        let stats = sync(
            &root,
            &shadow,
            &manifest,
            &overrides,
            Sharing::Copies,
            &budget(&cancel),
        )
        .unwrap();
        assert_eq!(
            listing(&shadow),
            vec![
                ".cargo-like",
                ".gitignore",
                "Cargo.toml",
                "src",
                "src/alias.rs",
                "src/lib.rs"
            ]
        );
        assert_eq!(read(&shadow.join("src/lib.rs")), "pub fn b() {}\n");
        assert_eq!(read(&shadow.join("src/alias.rs")), "pub fn a() {}\n");
        assert_eq!(stats.written, 1);
        assert_eq!(stats.copied + stats.reflinked, 4);
        // Copies, not links: a write in the shadow never reaches the project.
        std::fs::write(shadow.join("Cargo.toml"), "changed by a build script").unwrap();
        assert_eq!(read(&root.join("Cargo.toml")), "[package]\nname = \"x\"\n");

        // Again: only what changed is redone (the file the build script wrote is put back).
        let again = sync(
            &root,
            &shadow,
            &manifest,
            &overrides,
            Sharing::Copies,
            &budget(&cancel),
        )
        .unwrap();
        assert_eq!((again.kept, again.copied + again.reflinked), (4, 1));
        assert_eq!(
            read(&shadow.join("Cargo.toml")),
            "[package]\nname = \"x\"\n"
        );

        // Without the override the file comes back as a new file (a new mtime for cargo), and a
        // file deleted from the project leaves the shadow.
        std::fs::remove_file(root.join(".cargo-like")).unwrap();
        let before = std::fs::metadata(shadow.join("src/lib.rs"))
            .unwrap()
            .modified()
            .unwrap();
        std::thread::sleep(Duration::from_millis(20));
        let back = sync(
            &root,
            &shadow,
            &manifest,
            &BTreeMap::new(),
            Sharing::Copies,
            &budget(&cancel),
        )
        .unwrap();
        assert_eq!(back.removed, 1);
        assert_eq!(read(&shadow.join("src/lib.rs")), "pub fn a() {}\n");
        let after = std::fs::metadata(shadow.join("src/lib.rs"))
            .unwrap()
            .modified()
            .unwrap();
        assert!(after > before);
        assert!(!shadow.join(".cargo-like").exists());
    }

    #[test]
    fn the_same_bytes_are_not_written_again() {
        let project = project();
        let root = project.path().canonicalize().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let shadow = cache.path().join("cargo");
        let manifest = cache.path().join("cargo.json");
        let cancel = Cancel::new();
        let result = BTreeMap::from([("src/lib.rs".to_string(), b"pub fn b() {}\n".to_vec())]);
        sync(
            &root,
            &shadow,
            &manifest,
            &result,
            Sharing::Copies,
            &budget(&cancel),
        )
        .unwrap();
        let written = std::fs::metadata(shadow.join("src/lib.rs"))
            .unwrap()
            .modified()
            .unwrap();
        // The user applies the result: the shadow already holds it, untouched.
        std::thread::sleep(Duration::from_millis(20));
        std::fs::write(root.join("src/lib.rs"), "pub fn b() {}\n").unwrap();
        let stats = sync(
            &root,
            &shadow,
            &manifest,
            &BTreeMap::new(),
            Sharing::Copies,
            &budget(&cancel),
        )
        .unwrap();
        // Only the symbolic link to it is copied again (its target's content changed).
        assert_eq!(stats.kept, 4);
        assert_eq!((stats.copied + stats.reflinked, stats.written), (1, 0));
        let after = std::fs::metadata(shadow.join("src/lib.rs"))
            .unwrap()
            .modified()
            .unwrap();
        assert_eq!(written, after);
    }

    #[test]
    fn links_are_used_only_where_allowed() {
        let project = project();
        let root = project.path().canonicalize().unwrap();
        // The cache beside the project, on the same file system, so hard links can work.
        let cache = tempfile::tempdir_in(project.path().parent().unwrap()).unwrap();
        let shadow = cache.path().join("base");
        let manifest = cache.path().join("base.json");
        let cancel = Cancel::new();
        let stats = sync(
            &root,
            &shadow,
            &manifest,
            &BTreeMap::new(),
            Sharing::Links,
            &budget(&cancel),
        )
        .unwrap();
        assert_eq!(stats.linked, 5);
        let ino = |p: &Path| std::fs::metadata(p).unwrap().ino();
        assert_eq!(
            ino(&shadow.join("Cargo.toml")),
            ino(&root.join("Cargo.toml"))
        );
        // Asking for copies replaces the links.
        let stats = sync(
            &root,
            &shadow,
            &manifest,
            &BTreeMap::new(),
            Sharing::Copies,
            &budget(&cancel),
        )
        .unwrap();
        assert_eq!(stats.copied + stats.reflinked, 5);
        assert_ne!(
            ino(&shadow.join("Cargo.toml")),
            ino(&root.join("Cargo.toml"))
        );
    }

    #[test]
    fn a_cancelled_sync_leaves_a_shadow_the_next_sync_repairs() {
        let project = project();
        let root = project.path().canonicalize().unwrap();
        let cache = tempfile::tempdir().unwrap();
        let shadow = cache.path().join("edit");
        let manifest = cache.path().join("edit.json");
        let cancel = Cancel::new();
        cancel.cancel();
        let result = sync(
            &root,
            &shadow,
            &manifest,
            &BTreeMap::new(),
            Sharing::Copies,
            &budget(&cancel),
        );
        assert!(matches!(result, Err(SyncError::Stopped(Stop::Cancelled))));
        // A file half-written by a killed check: different size and time than recorded.
        std::fs::create_dir_all(shadow.join("src")).unwrap();
        std::fs::write(shadow.join("src/lib.rs"), "pub fn").unwrap();
        let ok = Cancel::new();
        sync(
            &root,
            &shadow,
            &manifest,
            &BTreeMap::new(),
            Sharing::Copies,
            &budget(&ok),
        )
        .unwrap();
        assert_eq!(read(&shadow.join("src/lib.rs")), "pub fn a() {}\n");
    }
}
