//! Where checks work: one stable directory per project in candor's cache
//! (`$XDG_CACHE_HOME/candor/verify/<hash of the root>/`), never inside the project, holding the
//! shadows (`base/` and `edit/` for Python: the project as it is and with the refactor;
//! `cargo/` for Rust, switched from one to the other), the persistent `CARGO_TARGET_DIR`
//! (`target/`), remembered results (`memo/`) and a scratch directory; and the lock that keeps two
//! checks of one project from sharing them at once.
//!
//! Every folder from `candor/` down is opened one name at a time with `O_NOFOLLOW` from the
//! handle of the folder above: a symbolic link anywhere there is refused with a sentence, never
//! followed (a shared or restored cache may hold one). `$XDG_CACHE_HOME` itself is the user's
//! choice and may be a link.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::workspace::dir::Dir;

use super::process::{Budget, Stop};

/// `$XDG_CACHE_HOME/candor` (or the platform's cache directory), when there is one.
pub fn cache_root() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(dirs::cache_dir)
        .map(|dir| dir.join("candor"))
}

/// How many names of the project file `relative` (of `root`), identified by device and inode,
/// are files of candor's own cache: shadows an older candor made of hard links. Read only; the
/// next check replaces them with copies.
pub fn links_in_cache(root: &Path, relative: &str, dev: u64, ino: u64) -> u64 {
    use std::os::unix::fs::MetadataExt;
    let Some(base) = cache_root() else {
        return 0;
    };
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let project = base.join(VERIFY).join(hex::encode(&digest[..12]));
    ["base", "edit", "cargo"]
        .iter()
        .filter(|shadow| {
            std::fs::symlink_metadata(project.join(shadow).join(relative))
                .is_ok_and(|m| m.dev() == dev && m.ino() == ino)
        })
        .count() as u64
}

/// The folder of every project's checks under the cache root.
pub(crate) const VERIFY: &str = "verify";

/// The folders of one project's cache directory.
const SUBDIRS: &[&str] = &["base", "edit", "cargo", "target", "scratch", "memo"];

/// The cache directory of one project, open.
#[derive(Debug)]
pub(crate) struct ProjectCache {
    /// Its path (for the checkers, which take paths).
    pub path: PathBuf,
    /// Its name under `verify/` (the hash of the root).
    pub name: String,
    dir: Dir,
    /// `verify/`, for the cache bound.
    pub verify: Dir,
}

/// Held for the length of a check; dropping it releases the lock.
pub(crate) struct CacheLock {
    _file: Option<File>,
}

/// Why candor's cache cannot be used; the sentence says what to do.
pub(crate) fn refusal_of_link(path: &Path) -> String {
    format!(
        "candor's cache folder {} is a symbolic link or not a folder; candor never follows links in its cache (a shared or restored cache could point it anywhere): remove it, or run `candor cache --clear`",
        path.display()
    )
}

/// Opens (creating when missing, mode 0700) the folder `name` under `parent`, refusing a link.
pub(crate) fn private_dir(parent: &Dir, parent_path: &Path, name: &str) -> Result<Dir, String> {
    let path = parent_path.join(name);
    match parent.create_dir(OsStr::new(name), 0o700) {
        Ok((dir, _)) => Ok(dir),
        Err(e) if e.kind() == std::io::ErrorKind::Other => Err(refusal_of_link(&path)),
        Err(e) => Err(format!("cannot create {}: {e}", path.display())),
    }
}

/// The cache root (`cache` or [`cache_root`]) open, checked to lie outside `project` when one is
/// given: its parent is followed (the user's choice), the root itself must be a real folder.
pub(crate) fn open_root(
    cache: Option<&Path>,
    project: Option<&Path>,
) -> Result<(Dir, PathBuf), String> {
    let base = match cache {
        Some(dir) => dir.to_path_buf(),
        None => cache_root().ok_or_else(|| {
            "no cache directory: set XDG_CACHE_HOME to a directory candor may use".to_string()
        })?,
    };
    let inside = |dir: &Path| {
        project.filter(|root| dir.starts_with(root)).map(|_| {
            format!(
                "candor's cache directory {} is inside the project; set XDG_CACHE_HOME to a directory outside it so checks never write into the project",
                dir.display()
            )
        })
    };
    if let Some(refusal) = inside(&base) {
        return Err(refusal);
    }
    let (Some(parent), Some(name)) = (base.parent(), base.file_name().and_then(OsStr::to_str))
    else {
        return Err(format!(
            "candor's cache directory {} must be a folder below another one",
            base.display()
        ));
    };
    std::fs::create_dir_all(parent).map_err(|e| {
        format!(
            "cannot create the cache directory {}: {e}",
            parent.display()
        )
    })?;
    let parent = parent
        .canonicalize()
        .map_err(|e| format!("cannot open {}: {e}", parent.display()))?;
    let base = parent.join(name);
    if let Some(refusal) = inside(&base) {
        return Err(refusal);
    }
    let parent_dir =
        Dir::open_path(&parent).map_err(|e| format!("cannot open {}: {e}", parent.display()))?;
    let dir = private_dir(&parent_dir, &parent, name)?;
    Ok((dir, base))
}

impl ProjectCache {
    /// The directory of `root` under `cache` (default [`cache_root`]), created when missing.
    /// Refuses a cache inside the project (the check must not write into the user's tree) and
    /// any symbolic link from the cache root down.
    pub fn open(root: &Path, cache: Option<&Path>) -> Result<ProjectCache, String> {
        let (base, base_path) = open_root(cache, Some(root))?;
        let verify_path = base_path.join(VERIFY);
        let verify = private_dir(&base, &base_path, VERIFY)?;
        let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
        let name = hex::encode(&digest[..12]);
        let path = verify_path.join(&name);
        let dir = private_dir(&verify, &verify_path, &name)?;
        for sub in SUBDIRS {
            private_dir(&dir, &path, sub)?;
        }
        // For whoever looks at the cache (and `candor cache`): which project this is.
        let _ = write_small(&dir, "root.txt", root.as_os_str().as_encoded_bytes());
        Ok(ProjectCache {
            path,
            name,
            dir,
            verify,
        })
    }

    /// The handle of one of its folders (`base`, `edit`, `cargo`, `memo`…), opened again
    /// without following a link.
    pub fn sub(&self, name: &str) -> Result<Dir, String> {
        private_dir(&self.dir, &self.path, name)
    }

    /// The handle of the project's cache directory.
    pub fn dir(&self) -> &Dir {
        &self.dir
    }

    /// The path of one of its folders.
    pub fn path_of(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }

    /// `CARGO_TARGET_DIR` of every check of this project: kept, so the next check is
    /// incremental.
    pub fn target(&self) -> PathBuf {
        self.path_of("target")
    }

    /// An empty directory to run tools from (so none of them starts inside a project).
    pub fn scratch(&self) -> PathBuf {
        self.path_of("scratch")
    }

    /// Waits for the project's lock (another check may hold it), within the budget.
    pub fn lock(&self, budget: &Budget<'_>) -> Result<CacheLock, Stop> {
        loop {
            budget.check()?;
            let file = match self.dir.open_or_create(OsStr::new("lock")) {
                Ok(file) => file,
                // An unusable lock file: go on without it rather than not check at all.
                Err(_) => return Ok(CacheLock { _file: None }),
            };
            match file.try_lock() {
                Ok(()) => {
                    let _ = file.set_modified(std::time::SystemTime::now());
                    return Ok(CacheLock { _file: Some(file) });
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(std::fs::TryLockError::Error(_)) => return Ok(CacheLock { _file: None }),
            }
        }
    }
}

/// Replaces the small file `name` in `dir` (through a temp file and a rename, never a link).
pub(crate) fn write_small(dir: &Dir, name: &str, bytes: &[u8]) -> std::io::Result<()> {
    let temp = format!(".{name}.tmp");
    let temp = OsStr::new(&temp);
    dir.remove_tree(temp)?;
    dir.create_new(temp)?.write_all(bytes)?;
    dir.rename(temp, OsStr::new(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_stable_directory_per_project_outside_it() {
        let cache = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let root = project.path().canonicalize().unwrap();
        let a = ProjectCache::open(&root, Some(cache.path())).unwrap();
        let b = ProjectCache::open(&root, Some(cache.path())).unwrap();
        assert_eq!(a.path, b.path);
        assert!(a.path_of("base").is_dir() && a.path_of("edit").is_dir() && a.target().is_dir());
        let other = tempfile::tempdir().unwrap();
        let c =
            ProjectCache::open(&other.path().canonicalize().unwrap(), Some(cache.path())).unwrap();
        assert_ne!(a.path, c.path);
        let inside = ProjectCache::open(&root, Some(&root.join("cache"))).unwrap_err();
        assert!(inside.contains("inside the project"), "{inside}");
        assert!(
            !root.join("cache").exists(),
            "refused before anything was created"
        );
    }

    #[test]
    fn a_cache_folder_that_is_a_symbolic_link_is_refused() {
        let project = tempfile::tempdir().unwrap();
        let root = project.path().canonicalize().unwrap();
        let victim = tempfile::tempdir().unwrap();
        // Each level from the cache root down, in turn a link to the victim's folder.
        for level in 0..3 {
            let cache = tempfile::tempdir().unwrap();
            let base = cache.path().join("candor");
            let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
            let project_dir = base.join(VERIFY).join(hex::encode(&digest[..12]));
            let link = match level {
                0 => base.clone(),
                1 => base.join(VERIFY),
                _ => project_dir.join("edit"),
            };
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            std::os::unix::fs::symlink(victim.path(), &link).unwrap();
            let refused = ProjectCache::open(&root, Some(&base)).unwrap_err();
            assert!(refused.contains("is a symbolic link"), "{refused}");
            assert!(refused.contains(&link.display().to_string()), "{refused}");
            assert_eq!(
                std::fs::read_dir(victim.path()).unwrap().count(),
                0,
                "nothing was created in the link's target (level {level})"
            );
        }
    }
}
