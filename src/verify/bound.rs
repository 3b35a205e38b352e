//! The bound of candor's cache and `candor cache`: how much each project's check directory holds,
//! the least recently used ones removed once the whole passes the limit (default 1 GiB), and
//! clearing on request. A project whose check is running (its lock held) is never removed.
//! Everything is measured and removed through directory handles, never through a link.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::workspace::dir::{Dir, Kind};

use super::cache::{self, VERIFY};

/// The cache's limit unless `[verify] cache_limit_mib` says otherwise.
pub const DEFAULT_LIMIT_MIB: u64 = 1024;

/// The file that remembers a project directory's size after its last check.
const SIZE_FILE: &str = "size.txt";

/// What `candor cache` could not do.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct CacheError(String);

/// One project's check directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectUsage {
    /// Its folder under `verify/`.
    pub name: String,
    /// The project it checks (as recorded in `root.txt`).
    pub root: Option<String>,
    /// Bytes on disk.
    pub bytes: u64,
    pub last_used: Option<SystemTime>,
    /// A check of it is running now.
    pub in_use: bool,
}

/// The whole cache.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage {
    pub path: PathBuf,
    /// Most recently used first.
    pub projects: Vec<ProjectUsage>,
    /// Everything else under the cache root.
    pub other_bytes: u64,
}

impl Usage {
    pub fn total(&self) -> u64 {
        self.other_bytes + self.projects.iter().map(|p| p.bytes).sum::<u64>()
    }
}

/// What `candor cache --clear` did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cleared {
    pub removed: usize,
    pub bytes: u64,
    /// Projects kept because a check of them is running.
    pub in_use: Vec<String>,
    /// The cargo guards' folders removed (`backend::lsp::cargo_guard`), counted in `bytes`.
    pub guards: usize,
}

/// The cache root's handle and path, without creating anything; `None` when there is no cache.
fn open_existing(cache: Option<&Path>) -> Result<Option<(Dir, PathBuf)>, CacheError> {
    let base = match cache {
        Some(dir) => dir.to_path_buf(),
        None => cache::cache_root().ok_or_else(|| {
            CacheError("no cache directory: XDG_CACHE_HOME is not set and there is no home".into())
        })?,
    };
    if !base.exists() && std::fs::symlink_metadata(&base).is_err() {
        return Ok(None);
    }
    let (dir, path) = cache::open_root(Some(&base), None).map_err(CacheError)?;
    Ok(Some((dir, path)))
}

/// How much the cache holds, per project.
pub fn usage(cache: Option<&Path>) -> Result<Usage, CacheError> {
    let Some((root, path)) = open_existing(cache)? else {
        let path = cache.map(Path::to_path_buf).or_else(cache::cache_root);
        return Ok(Usage {
            path: path.unwrap_or_default(),
            projects: Vec::new(),
            other_bytes: 0,
        });
    };
    let mut projects = Vec::new();
    let mut other_bytes = 0;
    for (name, kind) in root.entries().map_err(|e| CacheError(e.to_string()))? {
        if name == VERIFY && kind == Kind::Dir {
            let verify = root
                .open_dir(&name)
                .map_err(|e| CacheError(e.to_string()))?;
            if let Some(verify) = verify {
                projects = project_usages(&verify, true);
            }
        } else {
            other_bytes += size_of(&root, &name);
        }
    }
    Ok(Usage {
        path,
        projects,
        other_bytes,
    })
}

/// Removes every project's check directory except those in use.
pub fn clear(cache: Option<&Path>) -> Result<Cleared, CacheError> {
    let mut cleared = Cleared::default();
    let Some((root, _)) = open_existing(cache)? else {
        return Ok(cleared);
    };
    clear_guards(&root, &mut cleared);
    let Ok(Some(verify)) = root.open_dir(OsStr::new(VERIFY)) else {
        return Ok(cleared);
    };
    for project in project_usages(&verify, true) {
        if project.in_use {
            cleared
                .in_use
                .push(project.root.unwrap_or_else(|| project.name.clone()));
            continue;
        }
        if remove_unlocked(&verify, &project.name) {
            cleared.removed += 1;
            cleared.bytes += project.bytes;
        }
    }
    Ok(cleared)
}

/// Removes every cargo guard folder (a server started later writes its own again); a link in
/// their place is removed, never followed.
fn clear_guards(root: &Dir, cleared: &mut Cleared) {
    let name = OsStr::new(crate::backend::lsp::cargo_guard::GUARDS);
    match root.open_dir(name) {
        Ok(Some(guards)) => {
            for (entry, _) in guards.entries().unwrap_or_default() {
                let bytes = size_of(&guards, &entry);
                if guards.remove_tree(&entry).is_ok() {
                    cleared.guards += 1;
                    cleared.bytes += bytes;
                }
            }
            let _ = root.remove_dir(name);
        }
        // A link or a file by that name: removed itself.
        Err(_) => {
            let _ = root.remove_tree(name);
        }
        Ok(None) => {}
    }
}

/// After a check of `current`: records its size, then removes the least recently used other
/// projects until the cache holds at most `limit` bytes. Returns the projects removed.
pub(crate) fn enforce(verify: &Dir, current: &Dir, current_name: &str, limit: u64) -> Vec<String> {
    let size = measure(current);
    let _ = cache::write_small(current, SIZE_FILE, size.to_string().as_bytes());
    let mut projects = project_usages(verify, false);
    let mut total: u64 = projects.iter().map(|p| p.bytes).sum();
    // Oldest first.
    projects.reverse();
    let mut removed = Vec::new();
    for project in projects {
        if total <= limit {
            break;
        }
        if project.name == current_name || project.in_use {
            continue;
        }
        if remove_unlocked(verify, &project.name) {
            total = total.saturating_sub(project.bytes);
            removed.push(project.root.unwrap_or(project.name));
        }
    }
    removed
}

/// Every project directory under `verify`, most recently used first; sizes measured afresh
/// (`fresh`) or as recorded after their last check.
fn project_usages(verify: &Dir, fresh: bool) -> Vec<ProjectUsage> {
    let mut found = Vec::new();
    let Ok(entries) = verify.entries() else {
        return found;
    };
    for (name, kind) in entries {
        let Some(text) = name.to_str() else { continue };
        if kind != Kind::Dir {
            continue;
        }
        let Ok(Some(dir)) = verify.open_dir(&name) else {
            continue;
        };
        let recorded = || {
            let bytes = dir.read_file(OsStr::new(SIZE_FILE)).ok()??;
            String::from_utf8(bytes).ok()?.trim().parse::<u64>().ok()
        };
        let bytes = if fresh {
            measure(&dir)
        } else {
            recorded().unwrap_or_else(|| measure(&dir))
        };
        let root = dir
            .read_file(OsStr::new("root.txt"))
            .ok()
            .flatten()
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        let lock = dir.open_file(OsStr::new("lock")).ok().flatten();
        let last_used = lock
            .as_ref()
            .and_then(|f| f.metadata().ok()?.modified().ok());
        let in_use = lock
            .as_ref()
            .is_some_and(|f| matches!(f.try_lock_shared(), Err(std::fs::TryLockError::WouldBlock)));
        found.push(ProjectUsage {
            name: text.to_string(),
            root,
            bytes,
            last_used,
            in_use,
        });
    }
    found.sort_by(|a, b| b.last_used.cmp(&a.last_used).then(a.name.cmp(&b.name)));
    found
}

/// Removes the project directory `name` unless a check holds its lock (taken for the removal).
fn remove_unlocked(verify: &Dir, name: &str) -> bool {
    let name = OsStr::new(name);
    let Ok(Some(dir)) = verify.open_dir(name) else {
        return false;
    };
    let lock = dir.open_or_create(OsStr::new("lock")).ok();
    if let Some(lock) = &lock
        && lock.try_lock().is_err()
    {
        return false;
    }
    verify.remove_tree(name).is_ok()
}

/// Bytes on disk under `dir` (allocated blocks, as `du` counts), never following a link.
pub(crate) fn measure(dir: &Dir) -> u64 {
    let Ok(entries) = dir.entries() else {
        return 0;
    };
    entries
        .into_iter()
        .map(|(name, kind)| match kind {
            Kind::Dir => {
                blocks(dir, &name)
                    + dir
                        .open_dir(&name)
                        .ok()
                        .flatten()
                        .map_or(0, |d| measure(&d))
            }
            _ => blocks(dir, &name),
        })
        .sum()
}

fn size_of(dir: &Dir, name: &OsStr) -> u64 {
    match dir.open_dir(name) {
        Ok(Some(sub)) => blocks(dir, name) + measure(&sub),
        _ => blocks(dir, name),
    }
}

#[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
fn blocks(dir: &Dir, name: &OsStr) -> u64 {
    rustix::fs::statat(dir.as_fd(), name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW)
        .map(|s| (s.st_blocks as u64) * 512)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(cache: &Path, root: &str, bytes: usize, age_secs: u64) -> String {
        let project = cache::ProjectCache::open(Path::new(root), Some(cache)).unwrap();
        let edit = project.path_of("edit");
        std::fs::write(edit.join("big.bin"), vec![7u8; bytes]).unwrap();
        let lock = project.path.join("lock");
        std::fs::write(&lock, "").unwrap();
        let when = SystemTime::now() - std::time::Duration::from_secs(age_secs);
        std::fs::File::options()
            .write(true)
            .open(&lock)
            .unwrap()
            .set_modified(when)
            .unwrap();
        project.name
    }

    #[test]
    fn the_least_recently_used_projects_go_first_and_the_current_one_stays() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("candor");
        let old = fill(&cache, "/p/old", 400_000, 300);
        let middle = fill(&cache, "/p/middle", 400_000, 200);
        let current = fill(&cache, "/p/current", 400_000, 0);
        let verify = Dir::open_path(&cache.join(VERIFY)).unwrap();
        let current_dir = verify.open_dir(OsStr::new(&current)).unwrap().unwrap();
        // Room for two projects: the oldest goes.
        let removed = enforce(&verify, &current_dir, &current, 900_000);
        assert_eq!(removed, vec!["/p/old".to_string()]);
        assert!(!cache.join(VERIFY).join(&old).exists());
        assert!(cache.join(VERIFY).join(&middle).exists());
        // Room for none: the current project is kept all the same.
        let removed = enforce(&verify, &current_dir, &current, 0);
        assert_eq!(removed, vec!["/p/middle".to_string()]);
        assert!(cache.join(VERIFY).join(&current).exists());

        let usage = usage(Some(&cache)).unwrap();
        assert_eq!(usage.projects.len(), 1);
        assert!(usage.projects[0].bytes >= 400_000, "{usage:?}");
        assert_eq!(usage.projects[0].root.as_deref(), Some("/p/current"));
    }

    #[test]
    fn clear_removes_the_cargo_guards_without_following_a_link() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("candor");
        let guards = cache.join(crate::backend::lsp::cargo_guard::GUARDS);
        for name in ["a1b2", "c3d4"] {
            std::fs::create_dir_all(guards.join(name).join("bin")).unwrap();
            std::fs::write(guards.join(name).join("bin/cargo"), "#!/bin/sh\n").unwrap();
        }
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep.txt"), "mine").unwrap();
        std::os::unix::fs::symlink(outside.path(), guards.join("a1b2/bin/out")).unwrap();
        std::os::unix::fs::symlink(outside.path(), guards.join("e5f6")).unwrap();
        let cleared = clear(Some(&cache)).unwrap();
        assert_eq!(cleared.guards, 3);
        assert!(cleared.bytes > 0);
        assert!(!guards.exists());
        assert!(outside.path().join("keep.txt").exists());

        // The guards' folder itself a link: the link goes, its target stays.
        std::os::unix::fs::symlink(outside.path(), &guards).unwrap();
        clear(Some(&cache)).unwrap();
        assert!(std::fs::symlink_metadata(&guards).is_err());
        assert!(outside.path().join("keep.txt").exists());
    }

    #[test]
    fn clear_keeps_a_project_whose_check_is_running() {
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("candor");
        fill(&cache, "/p/idle", 1000, 10);
        let busy = fill(&cache, "/p/busy", 1000, 0);
        let lock = std::fs::File::options()
            .write(true)
            .open(cache.join(VERIFY).join(&busy).join("lock"))
            .unwrap();
        lock.lock().unwrap();
        let cleared = clear(Some(&cache)).unwrap();
        assert_eq!(cleared.removed, 1);
        assert_eq!(cleared.in_use, vec!["/p/busy".to_string()]);
        assert!(cache.join(VERIFY).join(&busy).exists());
        drop(lock);
        assert_eq!(clear(Some(&cache)).unwrap().removed, 1);
        assert!(usage(Some(&cache)).unwrap().projects.is_empty());
    }
}
