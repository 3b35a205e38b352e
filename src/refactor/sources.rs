//! How the pure refactors see the project: a [`Sources`] answers "what does this file hold" and
//! "which files mention this name". The shell implements it on the disk
//! (`workspace::DiskSources`); tests and the fuzzer use [`MemorySources`].

use std::collections::BTreeMap;

use crate::edit::SourceFile;
use crate::lang::Language;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    #[error("{path} does not exist; check the path (it is relative to the project root)")]
    Missing { path: String },
    #[error("{path} {reason}; candor only edits text source files")]
    Unreadable { path: String, reason: String },
    #[error(
        "{path} resolves outside the project root; only files under the root can be read or written"
    )]
    OutsideRoot { path: String },
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

/// Files of a project that mention a name, and those that could not be read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mentioning {
    pub files: Vec<SourceFile>,
    /// (path, why) for files that were skipped (binary, not UTF-8, too large).
    pub skipped: Vec<(String, String)>,
}

/// Read access to the project for the refactors. `Sync`: the refactors read files on every core.
pub trait Sources: Sync {
    /// The file at a project-relative path; `Ok(None)` when it does not exist.
    fn file(&self, path: &str) -> Result<Option<SourceFile>, SourceError>;

    /// Every project file of `lang` whose text contains `word` as a substring (so callers still
    /// filter), in path order. Ignored files (.gitignore and the like) are left out.
    fn files_mentioning(&self, lang: Language, word: &str) -> Result<Mentioning, SourceError>;

    /// Whether the project-relative directory exists ("" is the root).
    fn dir_exists(&self, path: &str) -> bool;

    /// Every project file of `lang`, in path order (for module-path resolution and the like).
    fn files_of(&self, lang: Language) -> Result<Vec<String>, SourceError>;

    /// The syntax tree of `file`. Refactors parse through this so that the shell can reuse
    /// trees it already has (same content hash) instead of parsing a large file again.
    fn parse(&self, lang: Language, file: &SourceFile) -> tree_sitter::Tree {
        lang.parse(&file.text)
    }

    /// The full tree of the file at `path` whose content has this sha256, when the shell already
    /// has it (the result check then re-parses only the edits); never parses.
    fn cached_tree(&self, _path: &str, _sha256: &str) -> Option<tree_sitter::Tree> {
        None
    }

    /// The syntax errors of the file at `path` with this content, when the shell keeps them with
    /// its tree ([`Sources::cached_tree`]); `None` lets the caller compute them from the tree.
    fn cached_syntax_errors(
        &self,
        _path: &str,
        _sha256: &str,
    ) -> Option<Vec<crate::lang::SyntaxError>> {
        None
    }

    /// The outline of `file`, whose full tree is `tree` (from [`Sources::parse`]); the shell may
    /// keep it with the tree, as the code view has computed it already.
    fn outline(
        &self,
        lang: Language,
        file: &SourceFile,
        tree: &tree_sitter::Tree,
    ) -> Vec<crate::lang::symbols::Symbol> {
        crate::lang::symbols::outline(lang, tree, &file.text)
    }

    /// A syntax tree of `file` that answers every question about the statements around the
    /// whole-word occurrences of `words` and the blocks that enclose them (what a project-wide
    /// search asks of the files it did not start from): by default a partial tree in the file's
    /// coordinates (`lang::partial`), the full tree when that one has an error.
    fn parse_around_words(
        &self,
        lang: Language,
        file: &SourceFile,
        words: &[&str],
    ) -> tree_sitter::Tree {
        crate::lang::partial::parse_around_words(lang, &file.text, words).0
    }
}

/// The full tree of `file`: the one the shell already has for this content, else a new parse
/// that is not kept (for the files a refactor reads in passing, which should not push the
/// user's file out of the shell's cache).
pub fn tree_of(sources: &dyn Sources, lang: Language, file: &SourceFile) -> tree_sitter::Tree {
    sources
        .cached_tree(&file.path, &file.sha256)
        .unwrap_or_else(|| lang.parse(&file.text))
}

/// Another [`Sources`] whose every tree is a full parse: the reference that the partial trees of
/// [`Sources::parse_around_words`] are checked against (same plans, byte for byte).
pub struct FullTrees<'a>(pub &'a dyn Sources);

impl Sources for FullTrees<'_> {
    fn file(&self, path: &str) -> Result<Option<SourceFile>, SourceError> {
        self.0.file(path)
    }

    fn files_mentioning(&self, lang: Language, word: &str) -> Result<Mentioning, SourceError> {
        self.0.files_mentioning(lang, word)
    }

    fn dir_exists(&self, path: &str) -> bool {
        self.0.dir_exists(path)
    }

    fn files_of(&self, lang: Language) -> Result<Vec<String>, SourceError> {
        self.0.files_of(lang)
    }

    fn parse(&self, lang: Language, file: &SourceFile) -> tree_sitter::Tree {
        self.0.parse(lang, file)
    }

    fn cached_tree(&self, path: &str, sha256: &str) -> Option<tree_sitter::Tree> {
        self.0.cached_tree(path, sha256)
    }

    fn cached_syntax_errors(
        &self,
        path: &str,
        sha256: &str,
    ) -> Option<Vec<crate::lang::SyntaxError>> {
        self.0.cached_syntax_errors(path, sha256)
    }

    fn outline(
        &self,
        lang: Language,
        file: &SourceFile,
        tree: &tree_sitter::Tree,
    ) -> Vec<crate::lang::symbols::Symbol> {
        self.0.outline(lang, file, tree)
    }

    fn parse_around_words(
        &self,
        lang: Language,
        file: &SourceFile,
        _words: &[&str],
    ) -> tree_sitter::Tree {
        lang.parse(&file.text)
    }
}

/// An in-memory project: path → file.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemorySources {
    pub files: BTreeMap<String, SourceFile>,
}

impl MemorySources {
    pub fn new() -> MemorySources {
        MemorySources::default()
    }

    pub fn with(mut self, path: &str, text: &str) -> MemorySources {
        self.insert(SourceFile::from_text(path, text));
        self
    }

    pub fn insert(&mut self, file: SourceFile) {
        self.files.insert(file.path.clone(), file);
    }
}

impl Sources for MemorySources {
    fn file(&self, path: &str) -> Result<Option<SourceFile>, SourceError> {
        Ok(self.files.get(path).cloned())
    }

    fn files_mentioning(&self, lang: Language, word: &str) -> Result<Mentioning, SourceError> {
        Ok(Mentioning {
            files: self
                .files
                .values()
                .filter(|f| f.language() == Some(lang) && f.text.contains(word))
                .cloned()
                .collect(),
            skipped: Vec::new(),
        })
    }

    fn dir_exists(&self, path: &str) -> bool {
        let prefix = path.trim_end_matches('/');
        prefix.is_empty()
            || self
                .files
                .keys()
                .any(|p| p.starts_with(prefix) && p[prefix.len()..].starts_with('/'))
    }

    fn files_of(&self, lang: Language) -> Result<Vec<String>, SourceError> {
        Ok(self
            .files
            .values()
            .filter(|f| f.language() == Some(lang))
            .map(|f| f.path.clone())
            .collect())
    }
}
