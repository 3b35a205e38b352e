//! The project root and containment: a user path is resolved against the root and refused when
//! it leads outside, whether through `..`, an absolute path or a symlink. The root is opened
//! once as a directory handle; reads and writes reach a file from it one name at a time
//! (`Dir`), so a directory swapped for a symbolic link after the check cannot redirect them.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::refactor::SourceError;

use super::dir::{Dir, Kind};

/// The canonical project root, and a handle to it opened once.
#[derive(Debug, Clone)]
pub struct Root {
    path: PathBuf,
    dir: Arc<Dir>,
}

impl PartialEq for Root {
    fn eq(&self, other: &Root) -> bool {
        self.path == other.path
    }
}

impl Eq for Root {}

/// A user path resolved inside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Project-relative path with `/` separators, as shown to users (the link's own path for a
    /// symlink).
    pub relative: String,
    /// The absolute path as the user named it (under the canonical root).
    pub absolute: PathBuf,
    /// The absolute path with symlinks resolved (where reads and writes go); for a file that does
    /// not exist yet, its canonical parent joined with its name.
    pub real: PathBuf,
    /// `real` relative to the root, with `/` separators: the names the writer opens one by one.
    pub real_relative: String,
    pub exists: bool,
}

impl Root {
    /// Opens a project root; it must be an existing directory.
    pub fn new(path: impl AsRef<Path>) -> std::io::Result<Root> {
        let path = path.as_ref().canonicalize()?;
        if !path.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", path.display()),
            ));
        }
        let dir = Arc::new(Dir::open_path(&path)?);
        Ok(Root { path, dir })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Which folder the root is (from its handle), even when another one is later created at
    /// the same path: its device, inode and, where the file system records it, birth time in
    /// nanoseconds (an inode number can be reused once the old folder is gone).
    pub fn identity(&self) -> std::io::Result<(u64, u64, Option<i64>)> {
        use rustix::fs::{AtFlags, StatxFlags};
        let stat = rustix::fs::fstat(self.dir.as_fd())?;
        let born = rustix::fs::statx(
            self.dir.as_fd(),
            "",
            AtFlags::EMPTY_PATH,
            StatxFlags::BASIC_STATS | StatxFlags::BTIME,
        )
        .ok()
        .filter(|x| StatxFlags::from_bits_retain(x.stx_mask).contains(StatxFlags::BTIME))
        .map(|x| x.stx_btime.tv_sec * 1_000_000_000 + i64::from(x.stx_btime.tv_nsec));
        #[allow(clippy::useless_conversion)]
        Ok((u64::from(stat.st_dev), u64::from(stat.st_ino), born))
    }

    /// The handle of the root directory, opened once by [`Root::new`].
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// The directory that holds `real_relative` (a path with no symbolic link in it, as in
    /// [`Resolved::real_relative`]), reached from the root one name at a time, and the file's
    /// name. `None` when a directory on the way does not exist; a symbolic link on the way is
    /// an error.
    pub fn parent_of(&self, real_relative: &str) -> std::io::Result<Option<(Dir, OsString)>> {
        let (dirs, name) = split_relative(real_relative)?;
        Ok(self
            .dir
            .open_path_under(Path::new(dirs))?
            .map(|dir| (dir, name)))
    }

    /// The directories above `real_relative` that do not exist yet, as project-relative paths,
    /// outermost first. An existing name on the way that is not a directory is an error.
    pub fn missing_dirs_of(&self, real_relative: &str) -> std::io::Result<Vec<String>> {
        let (dirs, _) = split_relative(real_relative)?;
        let mut current = self.dir.try_clone()?;
        let mut walked = String::new();
        let mut missing = Vec::new();
        for part in dirs.split('/').filter(|p| !p.is_empty()) {
            if !walked.is_empty() {
                walked.push('/');
            }
            walked.push_str(part);
            if !missing.is_empty() {
                missing.push(walked.clone());
                continue;
            }
            match current.open_dir(OsStr::new(part)) {
                Ok(Some(next)) => current = next,
                Ok(None) => missing.push(walked.clone()),
                Err(e) => return Err(std::io::Error::other(format!("{walked} {e}"))),
            }
        }
        Ok(missing)
    }

    /// Like [`Root::parent_of`], creating the missing directories on the way (each with
    /// `mkdirat` in the handle of its parent, and that parent fsynced). Returns the directories it
    /// created, project-relative, outermost first.
    pub fn create_parent_of(
        &self,
        real_relative: &str,
    ) -> std::io::Result<(Dir, OsString, Vec<String>)> {
        let (dirs, name) = split_relative(real_relative)?;
        let mut current = self.dir.try_clone()?;
        let mut walked = String::new();
        let mut created = Vec::new();
        for part in dirs.split('/').filter(|p| !p.is_empty()) {
            if !walked.is_empty() {
                walked.push('/');
            }
            walked.push_str(part);
            let (next, fresh) = current.create_dir(OsStr::new(part), 0o777)?;
            if fresh {
                current.sync()?;
                created.push(walked.clone());
            }
            current = next;
        }
        Ok((current, name, created))
    }

    /// The bytes of the regular file at `real_relative`, read through the root's handle
    /// (`None` when it does not exist).
    pub fn read_regular(&self, real_relative: &str) -> std::io::Result<Option<Vec<u8>>> {
        match self.parent_of(real_relative)? {
            Some((dir, name)) => dir.read_file(&name),
            None => Ok(None),
        }
    }

    /// The sha256 of the regular file at `real_relative` (`None` when it does not exist).
    pub fn sha256_of(&self, real_relative: &str) -> std::io::Result<Option<String>> {
        Ok(self
            .read_regular(real_relative)?
            .map(|bytes| crate::edit::sha256_hex(&bytes)))
    }

    /// Reads a resolved file of at most `max_bytes` through the root's handle; the error says why
    /// not, as a clause ("is …"). The limit holds for what is read, not only for the size seen
    /// before (the file may grow).
    pub fn read_limited(&self, resolved: &Resolved, max_bytes: u64) -> Result<Vec<u8>, String> {
        use super::walk::{read_capped, too_large, unreadable};
        let (dir, name) = self
            .parent_of(&resolved.real_relative)
            .map_err(unreadable)?
            .ok_or_else(|| "does not exist".to_string())?;
        if let Some(meta) = dir.meta(&name).map_err(unreadable)?
            && meta.kind == Kind::Dir
        {
            return Err("is a directory, not a file".to_string());
        }
        let file = match dir.open_file(&name) {
            Ok(Some(file)) => file,
            Ok(None) => return Err("does not exist".to_string()),
            Err(e) => return Err(e.to_string()),
        };
        let len = file.metadata().map_err(unreadable)?.len();
        if len > max_bytes {
            return Err(too_large(len, max_bytes));
        }
        read_capped(&file, len, max_bytes)
    }

    /// Resolves a user path (relative to the root, or absolute under it). Refuses a path that
    /// leaves the root lexically or through a symlink.
    pub fn resolve(&self, user_path: &str) -> Result<Resolved, SourceError> {
        let outside = || SourceError::OutsideRoot {
            path: user_path.to_string(),
        };
        if user_path.is_empty() || user_path.contains('\0') {
            return Err(SourceError::Io {
                path: user_path.to_string(),
                message: "is not a usable path".to_string(),
            });
        }
        let given = Path::new(user_path);
        let relative = if given.is_absolute() {
            let lexical = normalize(given).ok_or_else(outside)?;
            match lexical.strip_prefix(&self.path) {
                Ok(rest) => rest.to_path_buf(),
                // An absolute path through a symlinked root (e.g. /tmp vs /private/tmp).
                Err(_) => match given
                    .canonicalize()
                    .ok()
                    .and_then(|c| c.strip_prefix(&self.path).ok().map(Path::to_path_buf))
                {
                    Some(rest) => rest,
                    None => return Err(outside()),
                },
            }
        } else {
            normalize(given).ok_or_else(outside)?
        };
        if relative.as_os_str().is_empty() {
            return Err(SourceError::Io {
                path: user_path.to_string(),
                message: "is the project root itself, not a file".to_string(),
            });
        }
        let absolute = self.path.join(&relative);
        let (real, exists) = match absolute.canonicalize() {
            Ok(real) => (real, true),
            Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
                return Err(SourceError::Io {
                    path: user_path.to_string(),
                    message: "is a loop of symbolic links (following them leads back to a link already followed); fix or remove the link".to_string(),
                });
            }
            Err(_) => (self.resolve_missing(&absolute, user_path)?, false),
        };
        if !real.starts_with(&self.path) {
            return Err(outside());
        }
        let relative = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        let real_relative = self.relative_of(&real).ok_or_else(outside)?;
        if real_relative.is_empty() {
            return Err(SourceError::Io {
                path: user_path.to_string(),
                message: "is the project root itself, not a file".to_string(),
            });
        }
        Ok(Resolved {
            relative,
            absolute,
            real,
            real_relative,
            exists,
        })
    }

    /// Where a path that does not resolve would be created: its nearest existing ancestor with
    /// symlinks resolved, joined with the missing rest (so a symlinked directory on the way that
    /// points outside is caught). A dangling symlink is refused: writing through it would create
    /// its target, possibly outside, and replacing it would turn the link into a file.
    fn resolve_missing(&self, absolute: &Path, user_path: &str) -> Result<PathBuf, SourceError> {
        let outside = || SourceError::OutsideRoot {
            path: user_path.to_string(),
        };
        if let Ok(meta) = std::fs::symlink_metadata(absolute)
            && meta.file_type().is_symlink()
        {
            let target = std::fs::read_link(absolute).map_err(|e| SourceError::Io {
                path: user_path.to_string(),
                message: e.to_string(),
            })?;
            let target = absolute
                .parent()
                .map_or(target.clone(), |p| p.join(&target));
            if !normalize(&target).is_some_and(|t| t.starts_with(&self.path)) {
                return Err(outside());
            }
            return Err(SourceError::Io {
                path: user_path.to_string(),
                message: format!(
                    "is a symbolic link to {}, which does not exist; fix or remove the link",
                    target.display()
                ),
            });
        }
        let mut missing = Vec::new();
        let mut ancestor = absolute;
        loop {
            match ancestor.canonicalize() {
                Ok(existing) => {
                    let mut real = existing;
                    for part in missing.iter().rev() {
                        real.push(part);
                    }
                    return Ok(real);
                }
                Err(_) => {
                    missing.push(ancestor.file_name().ok_or_else(outside)?.to_os_string());
                    ancestor = ancestor.parent().ok_or_else(outside)?;
                }
            }
        }
    }

    /// The project-relative `/` path of an absolute path under the root.
    pub fn relative_of(&self, absolute: &Path) -> Option<String> {
        let rest = absolute.strip_prefix(&self.path).ok()?;
        Some(
            rest.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/"),
        )
    }
}

/// `a/b/c.py` → (`a/b`, `c.py`).
fn split_relative(relative: &str) -> std::io::Result<(&str, OsString)> {
    let (dirs, name) = relative.rsplit_once('/').unwrap_or(("", relative));
    if name.is_empty() || name == "." || name == ".." {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("`{relative}` does not name a file"),
        ));
    }
    Ok((dirs, OsStr::new(name).to_os_string()))
}

/// Removes `.` and resolves `..` lexically; `None` when `..` climbs above the start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if depth == 0 {
                    return None;
                }
                out.pop();
                depth -= 1;
            }
            Component::Normal(part) => {
                out.push(part);
                depth += 1;
            }
            Component::RootDir | Component::Prefix(_) => {
                out.push(component.as_os_str());
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containment() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 1\n").unwrap();
        std::fs::write(outside.path().join("secret.py"), "y = 2\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.py"), dir.path().join("link.py"))
            .unwrap();
        let root = Root::new(dir.path()).unwrap();

        let ok = root.resolve("src/../src/a.py").unwrap();
        assert_eq!(ok.relative, "src/a.py");
        assert!(ok.exists);
        let abs = root
            .resolve(root.path().join("src/a.py").to_str().unwrap())
            .unwrap();
        assert_eq!(abs.relative, "src/a.py");
        assert!(!root.resolve("src/new.py").unwrap().exists);

        std::os::unix::fs::symlink(outside.path(), dir.path().join("linkdir")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("gone.py"),
            dir.path().join("dangling.py"),
        )
        .unwrap();
        std::os::unix::fs::symlink(
            dir.path().join("src/gone.py"),
            dir.path().join("dangling_in.py"),
        )
        .unwrap();
        assert!(
            matches!(root.resolve("dangling_in.py"), Err(SourceError::Io { .. })),
            "a dangling link is refused"
        );
        for bad in [
            "../x.py",
            "src/../../x.py",
            outside.path().join("secret.py").to_str().unwrap(),
            "link.py",
            "linkdir/new/x.py",
            "linkdir/x.py",
            "dangling.py",
        ] {
            assert!(
                matches!(root.resolve(bad), Err(SourceError::OutsideRoot { .. })),
                "{bad} must be refused"
            );
        }
    }
}
