//! Replacing, creating or removing one file so that the result is all-or-nothing and a file that
//! changed behind our back is never clobbered. New bytes go to a temp file in the same directory
//! (fsynced, with the old file's permissions), which is swapped with the original in one atomic
//! `renameat2(RENAME_EXCHANGE)`; the file swapped out is then hashed, and if it is not the one the
//! plan was computed from it is swapped back. This closes the window between "check" and "rename"
//! for writers that replace the file and for writers that truncate and rewrite it in place.
//! Knows nothing of plans or journals: one path, one expectation, one outcome.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::edit::sha256_hex;

/// Why one file could not be replaced.
#[derive(Debug)]
pub enum ReplaceError {
    /// The file does not hold what was expected (`found`: its sha256, `None` when absent). Nothing
    /// was changed.
    Changed {
        found: Option<String>,
    },
    /// A file was expected to be absent, and one is there. Nothing was changed.
    Exists,
    /// Other writers changed the file twice while we were swapping it: their newest version is in
    /// place, ours is gone, and an intermediate version of theirs was kept at `kept`.
    Stranded {
        kept: PathBuf,
    },
    Io(std::io::Error),
}

impl From<std::io::Error> for ReplaceError {
    fn from(error: std::io::Error) -> ReplaceError {
        ReplaceError::Io(error)
    }
}

/// The sha256 of the file at `path`, `None` when there is none. Refuses what is not a regular
/// file (a directory, a FIFO that would block a read forever).
pub fn hash_of(path: &Path) -> std::io::Result<Option<String>> {
    Ok(read_regular(path)?.map(|bytes| sha256_hex(&bytes)))
}

/// The bytes of the regular file at `path`; `None` when there is none.
pub fn read_regular(path: &Path) -> std::io::Result<Option<Vec<u8>>> {
    // Look before opening: opening a FIFO would block until someone writes to it.
    match std::fs::metadata(path) {
        Ok(meta) if !meta.is_file() => return Err(std::io::Error::other("is not a regular file")),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    }
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(std::io::Error::other("is not a regular file"));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.read_to_end(&mut bytes)?;
    Ok(Some(bytes))
}

/// Makes `path` go from `expected` (a sha256, or `None` for "no file") to `new` (`None`: remove
/// it). `tag` names the temp files (`.candor-<tag>-….tmp`) so that an interrupted write can be
/// cleaned up. On `Ok`, the change is on disk and its directory entry fsynced.
pub fn replace(
    path: &Path,
    expected: Option<&str>,
    new: Option<&[u8]>,
    tag: &str,
) -> Result<(), ReplaceError> {
    match (expected, new) {
        (Some(expected), Some(bytes)) => overwrite(path, expected, bytes, tag),
        (None, Some(bytes)) => create(path, bytes, tag),
        (Some(expected), None) => remove(path, expected, tag),
        (None, None) => match hash_of(path)? {
            None => Ok(()),
            Some(found) => Err(ReplaceError::Changed { found: Some(found) }),
        },
    }
}

fn parent_of(path: &Path) -> std::io::Result<&Path> {
    path.parent()
        .ok_or_else(|| std::io::Error::other("the path has no parent directory"))
}

fn overwrite(path: &Path, expected: &str, bytes: &[u8], tag: &str) -> Result<(), ReplaceError> {
    let dir = parent_of(path)?;
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(ReplaceError::Changed { found: None });
        }
        Err(e) => return Err(e.into()),
    };
    if !meta.is_file() {
        return Err(std::io::Error::other("is not a regular file").into());
    }
    let temp = write_temp(
        dir,
        tag,
        bytes,
        meta.permissions().mode() & 0o7777,
        Some((meta.uid(), meta.gid())),
    )?;
    match exchange(&temp, path) {
        Ok(true) => {}
        Ok(false) => return overwrite_by_rename(path, expected, &temp, dir),
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            if e.kind() == std::io::ErrorKind::NotFound {
                return Err(ReplaceError::Changed { found: None });
            }
            return Err(e.into());
        }
    }
    // `temp` now holds what was at `path` an instant ago: is it what the plan was computed from?
    let swapped_out = hash_of(&temp);
    if matches!(&swapped_out, Ok(Some(found)) if found == expected) {
        std::fs::remove_file(&temp)?;
        sync_dir(dir)?;
        return Ok(());
    }
    let found = swapped_out.ok().flatten();
    swap_back(path, &temp, dir, bytes)?;
    Err(ReplaceError::Changed { found })
}

/// Undoes an exchange whose swapped-out file was not the expected one: puts it back, then checks
/// that what came out is ours before deleting it. If a third write replaced ours in between, that
/// newest version goes back in place and the intermediate one is kept aside, visibly.
fn swap_back(path: &Path, temp: &Path, dir: &Path, ours: &[u8]) -> Result<(), ReplaceError> {
    exchange(temp, path)?;
    let ours_hash = sha256_hex(ours);
    if matches!(hash_of(temp), Ok(Some(h)) if h == ours_hash) {
        std::fs::remove_file(temp)?;
        sync_dir(dir)?;
        return Ok(());
    }
    exchange(temp, path)?;
    let kept = keep_aside(temp, path);
    sync_dir(dir)?;
    Err(ReplaceError::Stranded { kept })
}

/// Gives a stranded file of another program a visible name next to `path` (temp names are
/// cleaned up by recovery; this one must not be).
fn keep_aside(temp: &Path, path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map_or_else(|| "file".into(), |n| n.to_string_lossy().into_owned());
    for n in 1..1000 {
        let kept = path.with_file_name(format!("{name}.candor-kept-{n}"));
        if rename_no_replace(temp, &kept).is_ok() {
            return kept;
        }
    }
    temp.to_path_buf()
}

/// Where no atomic exchange exists (other systems, some file systems): check, then rename, as
/// close together as possible.
fn overwrite_by_rename(
    path: &Path,
    expected: &str,
    temp: &Path,
    dir: &Path,
) -> Result<(), ReplaceError> {
    let found = match hash_of(path) {
        Ok(found) => found,
        Err(e) => {
            let _ = std::fs::remove_file(temp);
            return Err(e.into());
        }
    };
    if found.as_deref() != Some(expected) {
        let _ = std::fs::remove_file(temp);
        return Err(ReplaceError::Changed { found });
    }
    if let Err(e) = std::fs::rename(temp, path) {
        let _ = std::fs::remove_file(temp);
        return Err(e.into());
    }
    sync_dir(dir)?;
    Ok(())
}

fn create(path: &Path, bytes: &[u8], tag: &str) -> Result<(), ReplaceError> {
    let dir = parent_of(path)?;
    let temp = write_temp(dir, tag, bytes, 0o666 & !current_umask(), None)?;
    match rename_no_replace(&temp, path) {
        Ok(()) => {
            sync_dir(dir)?;
            Ok(())
        }
        Err(e) => {
            let _ = std::fs::remove_file(&temp);
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Err(ReplaceError::Exists)
            } else {
                Err(e.into())
            }
        }
    }
}

fn remove(path: &Path, expected: &str, tag: &str) -> Result<(), ReplaceError> {
    let dir = parent_of(path)?;
    let aside = temp_name(dir, tag);
    // Move whatever is there now out of the way in one step, then look at it.
    if let Err(e) = std::fs::rename(path, &aside) {
        if e.kind() == std::io::ErrorKind::NotFound {
            return Err(ReplaceError::Changed { found: None });
        }
        return Err(e.into());
    }
    let found = hash_of(&aside).ok().flatten();
    if found.as_deref() == Some(expected) {
        std::fs::remove_file(&aside)?;
        sync_dir(dir)?;
        return Ok(());
    }
    match rename_no_replace(&aside, path) {
        Ok(()) => {
            sync_dir(dir)?;
            Err(ReplaceError::Changed { found })
        }
        Err(_) => Err(ReplaceError::Stranded {
            kept: keep_aside(&aside, path),
        }),
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The prefix of every temp file of the transaction `tag`.
pub fn temp_prefix(tag: &str) -> String {
    format!(".candor-{tag}-")
}

fn temp_name(dir: &Path, tag: &str) -> PathBuf {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(
        "{}{}-{n}.tmp",
        temp_prefix(tag),
        std::process::id()
    ))
}

/// Writes `bytes` to a new temp file in `dir` with exactly `mode` (and the owner, when we may),
/// fsynced.
fn write_temp(
    dir: &Path,
    tag: &str,
    bytes: &[u8],
    mode: u32,
    owner: Option<(u32, u32)>,
) -> std::io::Result<PathBuf> {
    let path = temp_name(dir, tag);
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(&path)?;
    let written = (|| {
        file.write_all(bytes)?;
        if let Some((uid, gid)) = owner {
            let meta = file.metadata()?;
            if meta.uid() != uid || meta.gid() != gid {
                // Best effort: only a privileged process may give a file away.
                let _ = std::os::unix::fs::fchown(&file, Some(uid), Some(gid));
            }
        }
        // After chown, which clears set-id bits.
        file.set_permissions(std::fs::Permissions::from_mode(mode))?;
        file.sync_all()
    })();
    if let Err(e) = written {
        let _ = std::fs::remove_file(&path);
        return Err(e);
    }
    Ok(path)
}

/// Atomically swaps two paths. `Ok(false)` when the system or file system cannot.
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios"
    ))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, a, CWD, b, RenameFlags::EXCHANGE) {
            Ok(()) => Ok(true),
            Err(e)
                if e == rustix::io::Errno::INVAL
                    || e == rustix::io::Errno::NOSYS
                    || e == rustix::io::Errno::NOTSUP =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }
    #[cfg(not(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios"
    )))]
    {
        let _ = (a, b);
        Ok(false)
    }
}

/// Renames `from` to `to` only if `to` does not exist (`AlreadyExists` otherwise), atomically.
fn rename_no_replace(from: &Path, to: &Path) -> std::io::Result<()> {
    #[cfg(any(
        target_os = "linux",
        target_os = "android",
        target_os = "macos",
        target_os = "ios"
    ))]
    {
        use rustix::fs::{CWD, RenameFlags, renameat_with};
        match renameat_with(CWD, from, CWD, to, RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(()),
            Err(e)
                if e == rustix::io::Errno::INVAL
                    || e == rustix::io::Errno::NOSYS
                    || e == rustix::io::Errno::NOTSUP => {}
            Err(e) => return Err(e.into()),
        }
    }
    // A hard link fails when the name exists, atomically, on any Unix file system that has them.
    std::fs::hard_link(from, to)?;
    std::fs::remove_file(from)
}

/// fsyncs a directory so that a rename or removal in it survives a power loss.
pub fn sync_dir(dir: &Path) -> std::io::Result<()> {
    File::open(dir)?.sync_all()
}

/// The process umask, read without changing it (`/proc` when available, else the usual 022).
pub fn current_umask() -> u32 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("Umask:"))
                .and_then(|v| u32::from_str_radix(v.trim(), 8).ok())
        })
        .unwrap_or(0o022)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sha(bytes: &[u8]) -> String {
        sha256_hex(bytes)
    }

    #[test]
    fn overwrite_keeps_mode_and_refuses_a_changed_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.py");
        std::fs::write(&path, b"old\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
        replace(&path, Some(&sha(b"old\n")), Some(b"new\n"), "t1").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new\n");
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
            0o751
        );

        let err = replace(&path, Some(&sha(b"old\n")), Some(b"newer\n"), "t1").unwrap_err();
        assert!(
            matches!(err, ReplaceError::Changed { found: Some(ref h) } if *h == sha(b"new\n")),
            "{err:?}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), b"new\n");
        let leftovers: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(leftovers.len(), 1, "no temp file left: {leftovers:?}");
    }

    #[test]
    fn create_refuses_an_existing_file_and_remove_checks_the_content() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.py");
        replace(&path, None, Some(b"x = 1\n"), "t2").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"x = 1\n");
        assert!(matches!(
            replace(&path, None, Some(b"y\n"), "t2"),
            Err(ReplaceError::Exists)
        ));
        assert!(matches!(
            replace(&path, Some(&sha(b"other")), None, "t2"),
            Err(ReplaceError::Changed { .. })
        ));
        assert!(path.exists());
        replace(&path, Some(&sha(b"x = 1\n")), None, "t2").unwrap();
        assert!(!path.exists());
        assert!(matches!(
            replace(&path, Some(&sha(b"x = 1\n")), None, "t2"),
            Err(ReplaceError::Changed { found: None })
        ));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_fifo_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.py");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status();
        if status.is_ok_and(|s| s.success()) {
            assert!(hash_of(&fifo).is_err());
        }
    }
}
