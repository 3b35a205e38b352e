//! Replacing, creating or removing one file so that the result is all-or-nothing and a file that
//! changed behind our back is never clobbered. New bytes go to a temp file in the same directory
//! (fsynced, with the old file's permissions), which is swapped with the original in one atomic
//! `renameat2(RENAME_EXCHANGE)`; the file swapped out is then hashed, and if it is not the one the
//! plan was computed from it is swapped back. This closes the window between "check" and "rename"
//! for writers that replace the file and for writers that truncate and rewrite it in place.
//! Every operation is relative to the handle of the file's own directory (`Dir`), so nothing is
//! ever reached through a symbolic link. Knows nothing of plans or journals: one name, one
//! expectation, one outcome.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::edit::sha256_hex;

use super::dir::{Dir, Kind};

/// Why one file could not be replaced.
#[derive(Debug)]
pub enum ReplaceError {
    /// The file does not hold what was expected (`found`: its sha256, `None` when absent). Nothing
    /// was changed.
    Changed {
        found: Option<String>,
    },
    /// Where a file was expected there is something else (a directory, a FIFO, a symbolic link).
    /// Nothing was changed.
    NotAFile {
        found: Kind,
    },
    /// A file was expected to be absent, and one is there. Nothing was changed.
    Exists,
    /// Other writers changed the file twice while we were swapping it: their newest version is in
    /// place, ours is gone, and an intermediate version of theirs was kept as `kept` (a name in
    /// the same directory).
    Stranded {
        kept: OsString,
    },
    Io(std::io::Error),
}

impl From<std::io::Error> for ReplaceError {
    fn from(error: std::io::Error) -> ReplaceError {
        ReplaceError::Io(error)
    }
}

/// What is at `name` in `dir` now: `Ok(None)` when nothing, the bytes of a regular file, or
/// `NotAFile` for anything else (a FIFO is never opened for a blocking read).
pub fn current(dir: &Dir, name: &OsStr) -> Result<Option<Vec<u8>>, ReplaceError> {
    match dir.meta(name)? {
        None => Ok(None),
        Some(meta) if meta.kind != Kind::File => Err(ReplaceError::NotAFile { found: meta.kind }),
        Some(_) => match dir.read_file(name) {
            Ok(bytes) => Ok(bytes),
            // Replaced by something else between the look and the open.
            Err(_) => match dir.meta(name)? {
                Some(meta) if meta.kind != Kind::File => {
                    Err(ReplaceError::NotAFile { found: meta.kind })
                }
                None => Ok(None),
                Some(_) => Ok(dir.read_file(name)?),
            },
        },
    }
}

/// The sha256 of what is at `name` (see [`current`]).
pub fn hash_at(dir: &Dir, name: &OsStr) -> Result<Option<String>, ReplaceError> {
    Ok(current(dir, name)?.map(|bytes| sha256_hex(&bytes)))
}

/// Makes `name` in `dir` go from `expected` (a sha256, or `None` for "no file") to `new` (`None`:
/// remove it). `tag` names the temp files (`.candor-<tag>-….tmp`) so that an interrupted write
/// can be cleaned up. On `Ok`, the change is on disk and the directory fsynced.
pub fn replace(
    dir: &Dir,
    name: &OsStr,
    expected: Option<&str>,
    new: Option<&[u8]>,
    tag: &str,
) -> Result<(), ReplaceError> {
    match (expected, new) {
        (Some(expected), Some(bytes)) => overwrite(dir, name, expected, bytes, tag),
        (None, Some(bytes)) => create(dir, name, bytes, tag),
        (Some(expected), None) => remove(dir, name, expected, tag),
        (None, None) => match hash_at(dir, name)? {
            None => Ok(()),
            Some(found) => Err(ReplaceError::Changed { found: Some(found) }),
        },
    }
}

fn overwrite(
    dir: &Dir,
    name: &OsStr,
    expected: &str,
    bytes: &[u8],
    tag: &str,
) -> Result<(), ReplaceError> {
    let meta = match dir.meta(name)? {
        None => return Err(ReplaceError::Changed { found: None }),
        Some(meta) if meta.kind != Kind::File => {
            return Err(ReplaceError::NotAFile { found: meta.kind });
        }
        Some(meta) => meta,
    };
    let temp = write_temp(dir, tag, bytes, meta.mode, Some((meta.uid, meta.gid)))?;
    match dir.exchange(&temp, name) {
        Ok(true) => {}
        Ok(false) => return overwrite_by_rename(dir, name, expected, &temp),
        Err(e) => {
            let _ = dir.remove_file(&temp);
            if e.kind() == std::io::ErrorKind::NotFound {
                return Err(ReplaceError::Changed { found: None });
            }
            return Err(e.into());
        }
    }
    // `temp` now holds what was at `name` an instant ago: is it what the plan was computed from?
    let swapped_out = hash_at(dir, &temp);
    if matches!(&swapped_out, Ok(Some(found)) if found == expected) {
        dir.remove_file(&temp)?;
        dir.sync()?;
        return Ok(());
    }
    let refusal = match swapped_out {
        Err(ReplaceError::NotAFile { found }) => ReplaceError::NotAFile { found },
        other => ReplaceError::Changed {
            found: other.ok().flatten(),
        },
    };
    swap_back(dir, name, &temp, bytes)?;
    Err(refusal)
}

/// Undoes an exchange whose swapped-out entry was not the expected one: puts it back, then checks
/// that what came out is ours before deleting it. If a third write replaced ours in between, that
/// newest version goes back in place and the intermediate one is kept aside, visibly.
fn swap_back(dir: &Dir, name: &OsStr, temp: &OsStr, ours: &[u8]) -> Result<(), ReplaceError> {
    dir.exchange(temp, name)?;
    let ours_hash = sha256_hex(ours);
    if matches!(hash_at(dir, temp), Ok(Some(h)) if h == ours_hash) {
        dir.remove_file(temp)?;
        dir.sync()?;
        return Ok(());
    }
    dir.exchange(temp, name)?;
    let kept = keep_aside(dir, temp, name);
    dir.sync()?;
    Err(ReplaceError::Stranded { kept })
}

/// Gives a stranded file of another program a visible name next to `name` (temp names are
/// cleaned up by recovery; this one must not be).
fn keep_aside(dir: &Dir, temp: &OsStr, name: &OsStr) -> OsString {
    let base = name.to_string_lossy();
    for n in 1..1000 {
        let kept = OsString::from(format!("{base}.candor-kept-{n}"));
        if dir.rename_no_replace(temp, &kept).is_ok() {
            return kept;
        }
    }
    temp.to_os_string()
}

/// Where no atomic exchange exists (other systems, some file systems): check, then rename, as
/// close together as possible.
fn overwrite_by_rename(
    dir: &Dir,
    name: &OsStr,
    expected: &str,
    temp: &OsStr,
) -> Result<(), ReplaceError> {
    let found = match hash_at(dir, name) {
        Ok(found) => found,
        Err(e) => {
            let _ = dir.remove_file(temp);
            return Err(e);
        }
    };
    if found.as_deref() != Some(expected) {
        let _ = dir.remove_file(temp);
        return Err(ReplaceError::Changed { found });
    }
    if let Err(e) = dir.rename(temp, name) {
        let _ = dir.remove_file(temp);
        return Err(e.into());
    }
    dir.sync()?;
    Ok(())
}

fn create(dir: &Dir, name: &OsStr, bytes: &[u8], tag: &str) -> Result<(), ReplaceError> {
    let temp = write_temp(dir, tag, bytes, 0o666 & !current_umask(), None)?;
    match dir.rename_no_replace(&temp, name) {
        Ok(()) => {
            dir.sync()?;
            Ok(())
        }
        Err(e) => {
            let _ = dir.remove_file(&temp);
            if e.kind() == std::io::ErrorKind::AlreadyExists {
                Err(ReplaceError::Exists)
            } else {
                Err(e.into())
            }
        }
    }
}

fn remove(dir: &Dir, name: &OsStr, expected: &str, tag: &str) -> Result<(), ReplaceError> {
    match dir.meta(name)? {
        None => return Err(ReplaceError::Changed { found: None }),
        Some(meta) if meta.kind != Kind::File => {
            return Err(ReplaceError::NotAFile { found: meta.kind });
        }
        Some(_) => {}
    }
    let aside = temp_name(tag);
    // Move whatever is there now out of the way in one step, then look at it.
    if let Err(e) = dir.rename(name, &aside) {
        if e.kind() == std::io::ErrorKind::NotFound {
            return Err(ReplaceError::Changed { found: None });
        }
        return Err(e.into());
    }
    let found = hash_at(dir, &aside);
    if matches!(&found, Ok(Some(h)) if h == expected) {
        dir.remove_file(&aside)?;
        dir.sync()?;
        return Ok(());
    }
    let refusal = match found {
        Err(ReplaceError::NotAFile { found }) => ReplaceError::NotAFile { found },
        other => ReplaceError::Changed {
            found: other.ok().flatten(),
        },
    };
    match dir.rename_no_replace(&aside, name) {
        Ok(()) => {
            dir.sync()?;
            Err(refusal)
        }
        Err(_) => Err(ReplaceError::Stranded {
            kept: keep_aside(dir, &aside, name),
        }),
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The prefix of every temp file of the transaction `tag`.
pub fn temp_prefix(tag: &str) -> String {
    format!(".candor-{tag}-")
}

fn temp_name(tag: &str) -> OsString {
    let n = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    OsString::from(format!(
        "{}{}-{n}.tmp",
        temp_prefix(tag),
        std::process::id()
    ))
}

/// Writes `bytes` to a new temp file in `dir` with exactly `mode` (and the owner, when we may),
/// fsynced; returns its name.
fn write_temp(
    dir: &Dir,
    tag: &str,
    bytes: &[u8],
    mode: u32,
    owner: Option<(u32, u32)>,
) -> std::io::Result<OsString> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let name = temp_name(tag);
    let mut file = dir.create_new(&name)?;
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
        let _ = dir.remove_file(&name);
        return Err(e);
    }
    Ok(name)
}

/// Deletes the temp files of transaction `tag` in `dir` (left by an interrupted write).
pub fn remove_temps(dir: &Dir, tag: &str) {
    let prefix = temp_prefix(tag);
    if let Ok(entries) = dir.entries() {
        for (name, kind) in entries {
            if kind != Kind::Dir && name.to_string_lossy().starts_with(&prefix) {
                let _ = dir.remove_file(&name);
            }
        }
    }
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
    use std::os::unix::fs::PermissionsExt;

    fn sha(bytes: &[u8]) -> String {
        sha256_hex(bytes)
    }

    fn open(dir: &std::path::Path) -> Dir {
        Dir::open_path(dir).unwrap()
    }

    #[test]
    fn overwrite_keeps_mode_and_refuses_a_changed_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.py");
        let name = OsStr::new("a.py");
        std::fs::write(&path, b"old\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o751)).unwrap();
        let handle = open(dir.path());
        replace(&handle, name, Some(&sha(b"old\n")), Some(b"new\n"), "t1").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"new\n");
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o7777,
            0o751
        );

        let err = replace(&handle, name, Some(&sha(b"old\n")), Some(b"newer\n"), "t1").unwrap_err();
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
        let name = OsStr::new("new.py");
        let handle = open(dir.path());
        replace(&handle, name, None, Some(b"x = 1\n"), "t2").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"x = 1\n");
        assert!(matches!(
            replace(&handle, name, None, Some(b"y\n"), "t2"),
            Err(ReplaceError::Exists)
        ));
        assert!(matches!(
            replace(&handle, name, Some(&sha(b"other")), None, "t2"),
            Err(ReplaceError::Changed { .. })
        ));
        assert!(path.exists());
        replace(&handle, name, Some(&sha(b"x = 1\n")), None, "t2").unwrap();
        assert!(!path.exists());
        assert!(matches!(
            replace(&handle, name, Some(&sha(b"x = 1\n")), None, "t2"),
            Err(ReplaceError::Changed { found: None })
        ));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_directory_or_fifo_where_a_file_was_is_not_a_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("d.py")).unwrap();
        let handle = open(dir.path());
        let err = replace(
            &handle,
            OsStr::new("d.py"),
            Some(&sha(b"x")),
            Some(b"y"),
            "t3",
        )
        .unwrap_err();
        assert!(
            matches!(err, ReplaceError::NotAFile { found: Kind::Dir }),
            "{err:?}"
        );
        let fifo = dir.path().join("pipe.py");
        let status = std::process::Command::new("mkfifo").arg(&fifo).status();
        if status.is_ok_and(|s| s.success()) {
            assert!(matches!(
                hash_at(&handle, OsStr::new("pipe.py")),
                Err(ReplaceError::NotAFile { found: Kind::Other })
            ));
        }
    }
}
