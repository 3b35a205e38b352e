//! Where checks work: one stable directory per project in candor's cache
//! (`$XDG_CACHE_HOME/candor/verify/<hash of the root>/`), never inside the project, holding the
//! shadows (`base/` and `edit/` for Python: the project as it is and with the refactor;
//! `cargo/` for Rust, switched from one to the other), the persistent `CARGO_TARGET_DIR`
//! (`target/`) and a scratch directory; and the lock that keeps two checks of one project from
//! sharing them at once.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use super::process::{Budget, Stop};

/// `$XDG_CACHE_HOME/candor` (or the platform's cache directory), when there is one.
pub fn cache_root() -> Option<PathBuf> {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(dirs::cache_dir)
        .map(|dir| dir.join("candor"))
}

/// The cache directory of one project.
#[derive(Debug, Clone)]
pub(crate) struct ProjectCache {
    pub dir: PathBuf,
}

/// Held for the length of a check; dropping it releases the lock.
pub(crate) struct CacheLock {
    _file: Option<File>,
}

impl ProjectCache {
    /// The directory of `root` under `cache` (default [`cache_root`]), created when missing.
    /// Refuses a cache inside the project: the check must not write into the user's tree.
    pub fn open(root: &Path, cache: Option<&Path>) -> Result<ProjectCache, String> {
        let base = match cache {
            Some(dir) => dir.to_path_buf(),
            None => cache_root().ok_or_else(|| {
                "no cache directory: set XDG_CACHE_HOME to a directory candor may use".to_string()
            })?,
        };
        let inside = |dir: &Path| {
            dir.starts_with(root).then(|| {
                format!(
                    "candor's cache directory {} is inside the project; set XDG_CACHE_HOME to a directory outside it so checks never write into the project",
                    dir.display()
                )
            })
        };
        if let Some(refusal) = inside(&base) {
            return Err(refusal);
        }
        create_private_dir(&base).map_err(|e| {
            format!(
                "cannot create candor's cache directory {}: {e}",
                base.display()
            )
        })?;
        let base = base
            .canonicalize()
            .map_err(|e| format!("cannot open {}: {e}", base.display()))?;
        if let Some(refusal) = inside(&base) {
            return Err(refusal);
        }
        let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
        let dir = base.join("verify").join(hex::encode(&digest[..12]));
        for sub in ["", "base", "edit", "cargo", "target", "scratch"] {
            create_private_dir(&dir.join(sub))
                .map_err(|e| format!("cannot create {}: {e}", dir.join(sub).display()))?;
        }
        // For whoever looks at the cache: which project this is.
        let _ = std::fs::write(dir.join("root.txt"), root.as_os_str().as_encoded_bytes());
        Ok(ProjectCache { dir })
    }

    /// The shadow of the project as it is on disk.
    pub fn base(&self) -> PathBuf {
        self.dir.join("base")
    }

    /// The shadow with the refactor applied.
    pub fn edit(&self) -> PathBuf {
        self.dir.join("edit")
    }

    /// The one shadow cargo checks in, before and after.
    pub fn cargo(&self) -> PathBuf {
        self.dir.join("cargo")
    }

    /// `CARGO_TARGET_DIR` of every check of this project: kept, so the next check is
    /// incremental.
    pub fn target(&self) -> PathBuf {
        self.dir.join("target")
    }

    /// An empty directory to run tools from (so none of them starts inside a project).
    pub fn scratch(&self) -> PathBuf {
        self.dir.join("scratch")
    }

    /// The manifest of what a shadow holds.
    pub fn manifest(&self, shadow: &Path) -> PathBuf {
        let name = shadow
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.dir.join(format!("{name}.manifest.json"))
    }

    /// Waits for the project's lock (another check may hold it), within the budget.
    pub fn lock(&self, budget: &Budget<'_>) -> Result<CacheLock, Stop> {
        let path = self.dir.join("lock");
        loop {
            budget.check()?;
            let file = match File::options()
                .create(true)
                .truncate(false)
                .write(true)
                .open(&path)
            {
                Ok(file) => file,
                // An unusable lock file: go on without it rather than not check at all.
                Err(_) => return Ok(CacheLock { _file: None }),
            };
            match file.try_lock() {
                Ok(()) => return Ok(CacheLock { _file: Some(file) }),
                Err(std::fs::TryLockError::WouldBlock) => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(std::fs::TryLockError::Error(_)) => return Ok(CacheLock { _file: None }),
            }
        }
    }
}

fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
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
        assert_eq!(a.dir, b.dir);
        assert!(a.base().is_dir() && a.edit().is_dir() && a.target().is_dir());
        let other = tempfile::tempdir().unwrap();
        let c =
            ProjectCache::open(&other.path().canonicalize().unwrap(), Some(cache.path())).unwrap();
        assert_ne!(a.dir, c.dir);
        let inside = ProjectCache::open(&root, Some(&root.join("cache"))).unwrap_err();
        assert!(inside.contains("inside the project"), "{inside}");
        assert!(
            !root.join("cache").exists(),
            "refused before anything was created"
        );
    }
}
