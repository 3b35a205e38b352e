//! The private copy of the project rope works on: every Python module of the project (as the
//! `.gitignore`-aware walk lists them), written byte for byte as candor read it, in a temporary
//! directory only this user can open. rope reads these files and nothing else; nobody writes
//! them but [`Mirror::sync`]. A module that does not exist yet (the target of a move) is created
//! here, never in the project. What rope answers is checked against the hashes recorded here,
//! so a preview is computed from exactly the bytes its base hashes name.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::edit::SourceFile;
use crate::refactor::{SourceError, Sources};

/// A copy of the project's Python modules.
#[derive(Debug)]
pub struct Mirror {
    root: PathBuf,
    /// Project-relative path → sha256 of the bytes written there.
    written: BTreeMap<String, String>,
}

/// What one sync did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Synced {
    /// Files that could not be read (binary, not UTF-8, over the size limit), with the reason.
    pub skipped: Vec<(String, String)>,
    /// How many files were (re)written.
    pub written: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum MirrorError {
    #[error("{0}")]
    Source(#[from] SourceError),
    #[error("the private copy of the project for rope could not be written ({path}): {message}")]
    Io { path: String, message: String },
    #[error("`{0}` is not a path candor can copy for rope")]
    BadPath(String),
}

impl Mirror {
    /// An empty mirror rooted at `root` (a directory that does not exist yet, inside a private
    /// temporary directory).
    pub fn new(root: PathBuf) -> Result<Mirror, MirrorError> {
        std::fs::create_dir(&root).map_err(|e| io_error(&root, e))?;
        Ok(Mirror {
            root,
            written: BTreeMap::new(),
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Brings the mirror up to date with `sources`: every `.py` file of `project` (the project's
    /// Python files, as the walk lists them) plus `extra` (the request's files, even when the
    /// walk skips them). Files whose bytes did not change are not rewritten; files gone from the
    /// project are removed.
    pub fn sync(
        &mut self,
        sources: &dyn Sources,
        project: &[String],
        extra: &[&str],
    ) -> Result<Synced, MirrorError> {
        let mut paths: BTreeSet<String> = project
            .iter()
            .filter(|p| p.ends_with(".py"))
            .cloned()
            .collect();
        paths.extend(extra.iter().map(|p| p.to_string()));
        let read: Vec<(String, Result<Option<SourceFile>, SourceError>)> = paths
            .into_par_iter()
            .map(|path| {
                let file = sources.file(&path);
                (path, file)
            })
            .collect();
        let mut synced = Synced::default();
        let mut present = BTreeSet::new();
        for (path, file) in read {
            let file = match file {
                Ok(Some(file)) => file,
                Ok(None) => continue,
                Err(SourceError::Unreadable { reason, .. }) => {
                    synced.skipped.push((path, reason));
                    continue;
                }
                Err(e) => return Err(e.into()),
            };
            present.insert(path.clone());
            if self.written.get(&path) != Some(&file.sha256) {
                self.write(&path, &file.to_bytes(&file.text), &file.sha256)?;
                synced.written += 1;
            }
        }
        let gone: Vec<String> = self
            .written
            .keys()
            .filter(|p| !present.contains(*p))
            .cloned()
            .collect();
        for path in gone {
            self.remove(&path)?;
        }
        Ok(synced)
    }

    /// Creates an empty module at `path` (the new target of a move) in the mirror only.
    pub fn create_empty(&mut self, path: &str) -> Result<(), MirrorError> {
        self.write(path, b"", &crate::edit::sha256_hex(b""))
    }

    /// The file at `path` as it is in the mirror, checked against what [`Mirror::sync`] wrote
    /// there: the exact bytes rope read.
    pub fn read(&self, path: &str) -> Result<SourceFile, MirrorError> {
        let full = self.full_path(path)?;
        let bytes = std::fs::read(&full).map_err(|e| io_error(&full, e))?;
        let file = SourceFile::from_bytes(path, &bytes).map_err(|e| MirrorError::Io {
            path: path.to_string(),
            message: e.to_string(),
        })?;
        match self.written.get(path) {
            Some(sha) if *sha == file.sha256 => Ok(file),
            _ => Err(MirrorError::Io {
                path: path.to_string(),
                message: "it is not what candor wrote there".to_string(),
            }),
        }
    }

    /// The sha256 of what the mirror holds at `path`, if it holds it.
    pub fn sha256(&self, path: &str) -> Option<&str> {
        self.written.get(path).map(String::as_str)
    }

    fn write(&mut self, path: &str, bytes: &[u8], sha256: &str) -> Result<(), MirrorError> {
        let full = self.full_path(path)?;
        if let Some(parent) = full.parent() {
            std::fs::create_dir_all(parent).map_err(|e| io_error(parent, e))?;
        }
        // Forget the old content first: a failed write must not leave a stale record.
        self.written.remove(path);
        std::fs::write(&full, bytes).map_err(|e| io_error(&full, e))?;
        self.written.insert(path.to_string(), sha256.to_string());
        Ok(())
    }

    fn remove(&mut self, path: &str) -> Result<(), MirrorError> {
        let full = self.full_path(path)?;
        match std::fs::remove_file(&full) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_error(&full, e)),
        }
        self.written.remove(path);
        Ok(())
    }

    /// `root/path` for a project-relative path with `/` separators and no `..`.
    fn full_path(&self, path: &str) -> Result<PathBuf, MirrorError> {
        let parts: Vec<&str> = path.split('/').collect();
        if path.is_empty()
            || path.starts_with('/')
            || parts
                .iter()
                .any(|p| p.is_empty() || *p == "." || *p == ".." || p.contains('\0'))
        {
            return Err(MirrorError::BadPath(path.to_string()));
        }
        Ok(parts.iter().fold(self.root.clone(), |dir, p| dir.join(p)))
    }
}

fn io_error(path: &Path, error: std::io::Error) -> MirrorError {
    MirrorError::Io {
        path: path.display().to_string(),
        message: error.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::{DiskSources, Limits, Root};

    fn files(root: &std::path::Path) -> Vec<String> {
        let root = Root::new(root).unwrap();
        crate::workspace::walk::source_files(root.path(), &[crate::lang::Language::Python])
            .iter()
            .filter_map(|p| root.relative_of(p))
            .collect()
    }

    #[test]
    fn the_mirror_holds_exactly_the_bytes_candor_read() {
        let project = tempfile::tempdir().unwrap();
        let write = |path: &str, bytes: &[u8]| {
            let full = project.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, bytes).unwrap();
        };
        write("pkg/__init__.py", b"");
        write("pkg/a.py", b"\xef\xbb\xbfdef f():\r\n    return 1\r\n");
        write("pkg/bin.py", b"x = 1\0");
        write("notes.txt", b"not python");
        write("build/gen.py", b"ignored = 1\n");
        write(".gitignore", b"build/\n");
        let sources = DiskSources::new(Root::new(project.path()).unwrap(), Limits::default());
        let private = tempfile::tempdir().unwrap();
        let mut mirror = Mirror::new(private.path().join("project")).unwrap();
        let synced = mirror.sync(&sources, &files(project.path()), &[]).unwrap();
        assert_eq!(synced.written, 2);
        assert_eq!(synced.skipped.len(), 1, "{synced:?}");
        assert_eq!(synced.skipped[0].0, "pkg/bin.py");
        let copied = std::fs::read(mirror.root().join("pkg/a.py")).unwrap();
        assert_eq!(copied, b"\xef\xbb\xbfdef f():\r\n    return 1\r\n");
        assert!(!mirror.root().join("notes.txt").exists());
        assert!(!mirror.root().join("build/gen.py").exists());
        let a = mirror.read("pkg/a.py").unwrap();
        assert!(a.bom);
        assert_eq!(a.sha256, crate::edit::sha256_hex(&copied));

        // Unchanged files are not rewritten; changed ones are; deleted ones go.
        assert_eq!(
            mirror
                .sync(&sources, &files(project.path()), &[])
                .unwrap()
                .written,
            0
        );
        write("pkg/a.py", b"def f():\n    return 2\n");
        std::fs::remove_file(project.path().join("pkg/__init__.py")).unwrap();
        assert_eq!(
            mirror
                .sync(&sources, &files(project.path()), &[])
                .unwrap()
                .written,
            1
        );
        assert!(!mirror.root().join("pkg/__init__.py").exists());
        assert_eq!(
            &*mirror.read("pkg/a.py").unwrap().text,
            "def f():\n    return 2\n"
        );

        // A new module exists only in the mirror, until the next sync.
        mirror.create_empty("pkg/new.py").unwrap();
        assert_eq!(&*mirror.read("pkg/new.py").unwrap().text, "");
        assert!(!project.path().join("pkg/new.py").exists());
        mirror.sync(&sources, &files(project.path()), &[]).unwrap();
        assert!(!mirror.root().join("pkg/new.py").exists());

        // What the mirror holds is checked against what was written there.
        std::fs::write(mirror.root().join("pkg/a.py"), b"tampered = 1\n").unwrap();
        assert!(mirror.read("pkg/a.py").is_err());
        assert!(matches!(
            mirror.create_empty("../outside.py"),
            Err(MirrorError::BadPath(_))
        ));
    }
}
