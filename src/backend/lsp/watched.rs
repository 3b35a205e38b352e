//! What changed on disk between two requests, for a rust-analyzer that does not watch files
//! itself. In an untrusted project rust-analyzer runs with `files.watcher = "client"` (which it
//! honours only when the client can register watchers dynamically): it then reads a file again,
//! or reloads the workspace on a `Cargo.toml` change, only when candor tells it
//! (`workspace/didChangeWatchedFiles`) — at the start of a request, after the trust stamp was
//! checked (`trust_stamp`). So nothing that appears between two requests is read by the server
//! before the check that stops it.
//!
//! The files are those rust-analyzer asks a client to watch (`**/*.rs`, `**/Cargo.{toml,lock}`,
//! `**/*.md`; its `rust-analyzer.toml` glob is left out: an untrusted project's is never passed
//! on) under the server's workspace folder, skipping `target` and hidden folders and never
//! following a link; each seen by size, modification time and inode.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// At most this many folders are read per scan (a runaway tree is not walked to its end).
const MAX_FOLDERS: usize = 20_000;

/// How a file changed, with the protocol's numbers (`FileChangeType`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Change {
    Created = 1,
    Changed = 2,
    Deleted = 3,
}

/// The watched files of one folder as they were at the last scan.
#[derive(Debug, Clone, Default)]
pub struct Watched {
    folder: PathBuf,
    seen: BTreeMap<PathBuf, (u64, i128, u64)>,
}

/// Whether rust-analyzer asks to be told about a file of this name.
fn watched_name(name: &str) -> bool {
    name.ends_with(".rs") || name.ends_with(".md") || name == "Cargo.toml" || name == "Cargo.lock"
}

impl Watched {
    /// The watched files under `folder`, now.
    pub fn take(folder: &Path) -> Watched {
        let mut seen = BTreeMap::new();
        let mut pending = vec![folder.to_path_buf()];
        let mut folders = 0;
        while let Some(dir) = pending.pop() {
            folders += 1;
            if folders > MAX_FOLDERS {
                break;
            }
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(name) = name.to_str() else { continue };
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    if !name.starts_with('.') && name != "target" {
                        pending.push(entry.path());
                    }
                } else if kind.is_file()
                    && watched_name(name)
                    && let Ok(meta) = entry.metadata()
                {
                    let mtime =
                        i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec());
                    seen.insert(entry.path(), (meta.len(), mtime, meta.ino()));
                }
            }
        }
        Watched {
            folder: folder.to_path_buf(),
            seen,
        }
    }

    /// What changed since the last scan (which this one replaces), in path order.
    pub fn changes(&mut self) -> Vec<(PathBuf, Change)> {
        let now = Watched::take(&self.folder);
        let mut changes = Vec::new();
        for (path, seen) in &now.seen {
            match self.seen.get(path) {
                None => changes.push((path.clone(), Change::Created)),
                Some(before) if before != seen => changes.push((path.clone(), Change::Changed)),
                Some(_) => {}
            }
        }
        for path in self.seen.keys() {
            if !now.seen.contains_key(path) {
                changes.push((path.clone(), Change::Deleted));
            }
        }
        changes.sort();
        *self = now;
        changes
    }
}

/// Whether rust-analyzer reloads the workspace on these changes: a manifest or lock file
/// changed, or a file came or went.
pub fn reloads(changes: &[(PathBuf, Change)]) -> bool {
    changes.iter().any(|(path, change)| {
        *change != Change::Changed
            || path
                .file_name()
                .is_some_and(|n| n == "Cargo.toml" || n == "Cargo.lock")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_and_manifests_are_watched_outside_target_and_hidden_folders() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str, text: &str| {
            let full = root.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        };
        write("Cargo.toml", "[package]\n");
        write("src/lib.rs", "fn a() {}\n");
        let mut watched = Watched::take(root);
        assert_eq!(watched.changes(), []);
        write("src/lib.rs", "fn a() { }\n");
        write("src/new.rs", "");
        write("target/debug/build/x.rs", "");
        write(".git/x.rs", "");
        write("rust-analyzer.toml", "[check]\n");
        write(".cargo/config.toml", "[build]\n");
        let changes = watched.changes();
        assert_eq!(
            changes,
            [
                (root.join("src/lib.rs"), Change::Changed),
                (root.join("src/new.rs"), Change::Created),
            ]
        );
        assert!(reloads(&changes), "a file came");
        write("src/lib.rs", "fn a() {  }\n");
        let changes = watched.changes();
        assert_eq!(changes, [(root.join("src/lib.rs"), Change::Changed)]);
        assert!(
            !reloads(&changes),
            "an edit of a source file reloads nothing"
        );
        write("Cargo.toml", "[package]\nname = \"b\"\n");
        std::fs::remove_file(root.join("src/new.rs")).unwrap();
        let changes = watched.changes();
        assert_eq!(
            changes,
            [
                (root.join("Cargo.toml"), Change::Changed),
                (root.join("src/new.rs"), Change::Deleted),
            ]
        );
        assert!(reloads(&changes));
        assert_eq!(watched.changes(), []);
    }
}
