//! `Sources` on the disk: reads project files through the root's containment check, with the
//! size limit, and finds the files that mention a name with the parallel prefiltered walk.

use std::sync::Mutex;

use tree_sitter::Tree;

use crate::edit::SourceFile;
use crate::lang::Language;
use crate::refactor::{Mentioning, SourceError, Sources};

use super::{Root, walk};

/// Limits on what candor agrees to read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Files larger than this are refused (default 5 MiB).
    pub max_file_bytes: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file_bytes: 5 * 1024 * 1024,
        }
    }
}

/// The project on disk, as the refactors see it.
#[derive(Debug)]
pub struct DiskSources {
    pub root: Root,
    pub limits: Limits,
    /// Recently parsed trees by (path, sha256): previews of the same file reuse them.
    trees: Mutex<Vec<(String, String, Tree)>>,
}

/// How many parsed trees the cache keeps.
const CACHED_TREES: usize = 32;

impl DiskSources {
    pub fn new(root: Root, limits: Limits) -> DiskSources {
        DiskSources {
            root,
            limits,
            trees: Mutex::new(Vec::new()),
        }
    }

    /// Remembers `tree` as the parse of `file` (the TUI hands over its incrementally
    /// re-parsed trees this way).
    pub fn remember_tree(&self, file: &SourceFile, tree: Tree) {
        let mut trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        trees.retain(|(path, _, _)| *path != file.path);
        trees.push((file.path.clone(), file.sha256.clone(), tree));
        if trees.len() > CACHED_TREES {
            trees.remove(0);
        }
    }

    /// The full tree of `file` parsed before (same path and content), if any.
    fn cached_tree(&self, file: &SourceFile) -> Option<Tree> {
        let trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        trees
            .iter()
            .find(|(p, sha, _)| *p == file.path && *sha == file.sha256)
            .map(|(_, _, tree)| tree.clone())
    }

    /// Reads and decodes one file; `Ok(None)` when it does not exist.
    pub fn read(&self, path: &str) -> Result<Option<SourceFile>, SourceError> {
        let resolved = self.root.resolve(path)?;
        if !resolved.exists {
            return Ok(None);
        }
        let io = |e: std::io::Error| SourceError::Io {
            path: resolved.relative.clone(),
            message: e.to_string(),
        };
        let meta = std::fs::metadata(&resolved.real).map_err(io)?;
        if meta.is_dir() {
            return Err(SourceError::Unreadable {
                path: resolved.relative.clone(),
                reason: "is a directory, not a file".to_string(),
            });
        }
        if meta.len() > self.limits.max_file_bytes {
            return Err(too_large(
                &resolved.relative,
                meta.len(),
                self.limits.max_file_bytes,
            ));
        }
        let bytes = std::fs::read(&resolved.real).map_err(io)?;
        decode(&resolved.relative, &bytes).map(Some)
    }
}

fn too_large(path: &str, len: u64, max: u64) -> SourceError {
    SourceError::Unreadable {
        path: path.to_string(),
        reason: format!(
            "is {len} bytes, over the {max}-byte limit (raise `max_file_bytes` in the config file to allow it)"
        ),
    }
}

fn decode(path: &str, bytes: &[u8]) -> Result<SourceFile, SourceError> {
    SourceFile::from_bytes(path, bytes).map_err(|e| SourceError::Unreadable {
        path: path.to_string(),
        reason: e.to_string(),
    })
}

impl Sources for DiskSources {
    fn file(&self, path: &str) -> Result<Option<SourceFile>, SourceError> {
        self.read(path)
    }

    fn files_mentioning(&self, lang: Language, word: &str) -> Result<Mentioning, SourceError> {
        let mut mentioning = Mentioning::default();
        for (absolute, bytes) in
            walk::files_containing(self.root.path(), lang, word, self.limits.max_file_bytes)
        {
            let Some(relative) = self.root.relative_of(&absolute) else {
                continue;
            };
            match bytes {
                None => mentioning
                    .skipped
                    .push((relative, "is over the file size limit".to_string())),
                Some(bytes) => match SourceFile::from_bytes(relative.clone(), &bytes) {
                    Ok(file) => mentioning.files.push(file),
                    Err(e) => mentioning.skipped.push((relative, e.to_string())),
                },
            }
        }
        Ok(mentioning)
    }

    fn dir_exists(&self, path: &str) -> bool {
        if path.is_empty() {
            return true;
        }
        self.root
            .resolve(path)
            .map(|r| r.exists && r.real.is_dir())
            .unwrap_or(false)
    }

    fn parse(&self, lang: Language, file: &SourceFile) -> Tree {
        if let Some(tree) = self.cached_tree(file) {
            return tree;
        }
        let tree = lang.parse(&file.text);
        self.remember_tree(file, tree.clone());
        tree
    }

    fn parse_around_words(&self, lang: Language, file: &SourceFile, words: &[&str]) -> Tree {
        // A full tree at hand beats a partial one; a partial tree is never cached.
        self.cached_tree(file)
            .unwrap_or_else(|| crate::lang::partial::parse_around_words(lang, &file.text, words).0)
    }

    fn files_of(&self, lang: Language) -> Result<Vec<String>, SourceError> {
        Ok(walk::source_files(self.root.path(), &[lang])
            .iter()
            .filter_map(|p| self.root.relative_of(p))
            .collect())
    }
}
