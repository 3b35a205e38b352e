//! How the pure refactors see the project, the port of the core: a [`Sources`] answers "what
//! does this file hold" and "which files mention this name", and hands over the shell's
//! [`ParsedFiles`], the store the refactors ask for syntax trees (it keeps what it parsed by
//! content) and the workers they spread work on. The shell implements both on the disk
//! (`workspace::DiskSources`, with its tree cache and thread pool); tests and the fuzzer use
//! [`MemorySources`], which parses when asked and works on the calling thread.

use std::collections::BTreeMap;
use std::sync::Arc;

use tree_sitter::Tree;

use crate::cancel::Cancel;

use crate::edit::SourceFile;
use crate::lang::symbols::Symbol;
use crate::lang::{Language, SyntaxError};

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

/// The files of a project that hold a word, and where: what the references engine asks before
/// it parses anything ([`Sources::word_sites`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WordSites {
    /// Each file holding the word as a whole word (in code, a string or a comment), with the
    /// byte offsets of those occurrences, in path order.
    pub files: Vec<(SourceFile, Vec<usize>)>,
    /// (path, why) for files that were skipped (binary, not UTF-8, too large).
    pub skipped: Vec<(String, String)>,
}

/// Read access to the project for the refactors. `Sync`: the shell's workers read files too.
pub trait Sources: Sync {
    /// The file at a project-relative path; `Ok(None)` when it does not exist.
    fn file(&self, path: &str) -> Result<Option<SourceFile>, SourceError>;

    /// Every project file of `lang` whose text contains `word` as a substring (so callers still
    /// filter), in path order. Ignored files (.gitignore and the like) are left out.
    fn files_mentioning(&self, lang: Language, word: &str) -> Result<Mentioning, SourceError>;

    /// Whether the project-relative directory exists ("" is the root).
    fn dir_exists(&self, path: &str) -> bool;

    /// Searches now for what later [`files_mentioning`](Sources::files_mentioning) of each of
    /// `words` in this request will ask, so that the search can run beside other work: the
    /// answers are kept for those calls, and nothing of them is told (no skipped file reported)
    /// until then. By default nothing is searched.
    fn search_ahead(&self, _lang: Language, _words: &[&str]) {}

    /// Which files of `lang` can hold the name `word`, and where: every whole-word occurrence,
    /// in code, strings and comments. The one question the references engine asks of the
    /// project; an index answers it without reading every file. By default, the files
    /// [`files_mentioning`](Sources::files_mentioning) the word, searched.
    fn word_sites(&self, lang: Language, word: &str) -> Result<WordSites, SourceError> {
        Ok(sites_of(self.files_mentioning(lang, word)?, word))
    }

    /// The shell's parsed-file store; by default files are parsed when asked and nothing is
    /// kept.
    fn parsed(&self) -> &dyn ParsedFiles {
        &ParseOnDemand
    }

    /// The request's cancellation token: the refactors check it in their long loops (per file,
    /// per call site) and stop with [`Cancelled`](crate::cancel::Cancelled). Never set by
    /// default.
    fn cancel(&self) -> Cancel {
        Cancel::never()
    }

    /// A language server already running for the project, asked to check the references
    /// engine's list ([`Oracle`](crate::refactor::references::Oracle)). None by default.
    fn oracle(&self) -> Option<&dyn crate::refactor::references::Oracle> {
        None
    }
}

/// The whole-word occurrences of `word` in the files that mention it (those without one are
/// dropped).
pub fn sites_of(mentioning: Mentioning, word: &str) -> WordSites {
    let files = (mentioning.files.into_iter())
        .filter_map(|file| sites_in(file, word))
        .collect();
    WordSites {
        files,
        skipped: mentioning.skipped,
    }
}

/// `file` with the offsets of the whole-word occurrences of `word` in it, if it has any.
pub fn sites_in(file: SourceFile, word: &str) -> Option<(SourceFile, Vec<usize>)> {
    let offsets = crate::lang::calls::word_matches(&file.text, word);
    (!offsets.is_empty()).then_some((file, offsets))
}

/// A fact computed from one file's content (a verdict of the references engine, what it learned
/// there), which the store may keep: its maker knows its type.
pub type Fact = std::sync::Arc<dyn std::any::Any + Send + Sync>;

/// Work handed to the shell's workers: it runs once, on any thread.
pub type Job<'a> = Box<dyn FnOnce() + Send + 'a>;

/// What the shell knows of a file's content: its full tree and its syntax errors.
#[derive(Debug, Clone)]
pub struct KnownParse {
    pub tree: Tree,
    pub errors: Vec<SyntaxError>,
}

/// The parsed-file store: syntax trees by file content, and the workers to spread work on.
/// Refactors never parse a file of the project themselves; they ask here.
pub trait ParsedFiles: Sync {
    /// The full tree of `file`, the file a request starts from: the store keeps it (a preview
    /// of the same file reuses it, a new version is parsed again incrementally).
    fn tree(&self, lang: Language, file: &SourceFile) -> Tree {
        lang.parse(&file.text)
    }

    /// The full tree of a file read in passing: the store's own when it has one for this
    /// content, else a parse it does not keep (such files should not push the user's file out).
    fn tree_in_passing(&self, lang: Language, file: &SourceFile) -> Tree {
        lang.parse(&file.text)
    }

    /// A syntax tree of `file` that answers every question about the statements around the
    /// whole-word occurrences of `words` and the blocks that enclose them (what a project-wide
    /// search asks of the files it did not start from): a full tree the store has, or a partial
    /// tree in the file's coordinates (`lang::partial`), or the full tree when that one has an
    /// error.
    fn tree_around_words(&self, lang: Language, file: &SourceFile, words: &[&str]) -> Tree {
        crate::lang::partial::parse_around_words(lang, &file.text, words).0
    }

    /// Exactly `lang::partial::parse_around_words(lang, file, words)`'s tree (the store's when it
    /// kept one for this content and these words): the tree an answer kept under these words
    /// was read from, never a full tree or one around more words.
    fn tree_around_words_exactly(&self, lang: Language, file: &SourceFile, words: &[&str]) -> Tree {
        crate::lang::partial::parse_around_words(lang, &file.text, words).0
    }

    /// What the store knows of the file at `path` whose content has this sha256; never parses.
    /// The check of a result then re-parses only its edits.
    fn known(&self, _path: &str, _sha256: &str) -> Option<KnownParse> {
        None
    }

    /// The tree of a refactor's result (the text after a change of `path`, whose sha256 is
    /// `sha256`) kept by [`keep_result_tree`](ParsedFiles::keep_result_tree) for this request:
    /// the plan's syntax check parses it, the cross-checks ask again. `None` when not kept.
    fn result_tree(&self, _lang: Language, _path: &str, _sha256: &str) -> Option<Tree> {
        None
    }

    /// Keeps the tree of a refactor's result for the later checks of the same request (a few,
    /// the latest; the store may keep none).
    fn keep_result_tree(&self, _lang: Language, _path: &str, _sha256: &str, _tree: &Tree) {}

    /// The outline of `file`, whose full tree is `tree` (the store may keep it with the tree).
    fn outline(&self, lang: Language, file: &SourceFile, tree: &Tree) -> Vec<Symbol> {
        crate::lang::symbols::outline(lang, tree, &file.text)
    }

    /// The answer to `question` about the file at `path` whose content has this sha256: the one
    /// the store kept for the same content and question, else `make`'s (the answer and an
    /// estimate of its memory), which the store may keep. `question` must name everything else
    /// the answer depends on (the other files' facts it read, the tree it was computed from). By
    /// default nothing is kept.
    fn fact(
        &self,
        _path: &str,
        _sha256: &str,
        _question: &str,
        make: &mut dyn FnMut() -> (Fact, usize),
    ) -> Fact {
        make().0
    }

    /// The offsets of the whole-word occurrences of `word` in `file`: a request asks them of
    /// each file its search found several times (the sites, the planner's filter, the
    /// cross-checks), and a long-lived front end again at each request, so the shell's store
    /// keeps them by content (not a fact made: no file is judged for them). Computed here by
    /// default.
    fn word_offsets(&self, file: &SourceFile, word: &str) -> Arc<Vec<usize>> {
        Arc::new(crate::lang::calls::word_matches(&file.text, word))
    }

    /// [`fact`](ParsedFiles::fact) for a value `codec` can write to bytes and read back: the
    /// store may also keep it on disk for the next process (keyed besides by the codec's tag and
    /// the facts' format). By default, `fact`.
    fn lasting_fact(
        &self,
        path: &str,
        sha256: &str,
        question: &str,
        _codec: &dyn super::lasting::Codec,
        make: &mut dyn FnMut() -> (Fact, usize),
    ) -> Fact {
        self.fact(path, sha256, question, make)
    }

    /// Runs every job and returns when all are done: on the calling thread by default, on the
    /// shell's thread pool for the disk.
    fn run(&self, jobs: Vec<Job<'_>>) {
        for job in jobs {
            job();
        }
    }
}

/// The store of a project that keeps nothing and works on the calling thread.
#[derive(Debug, Clone, Copy, Default)]
pub struct ParseOnDemand;

impl ParsedFiles for ParseOnDemand {}

/// `f` of every item, in order, computed by the store's workers.
pub fn map_in_parallel<T: Sync, R: Send>(
    store: &dyn ParsedFiles,
    items: &[T],
    f: &(dyn Fn(&T) -> R + Sync),
) -> Vec<R> {
    let mut slots: Vec<Option<R>> = (0..items.len()).map(|_| None).collect();
    let jobs: Vec<Job<'_>> = slots
        .iter_mut()
        .zip(items)
        .map(|(slot, item)| Box::new(move || *slot = Some(f(item))) as Job<'_>)
        .collect();
    store.run(jobs);
    // `run` runs every job: every slot is filled.
    slots.into_iter().flatten().collect()
}

/// [`ParsedFiles::tree_around_words`] for those of `words` that `file` holds as whole words (and
/// [`WHOLE_FUNCTIONS`](crate::lang::partial::WHOLE_FUNCTIONS)): a word without an occurrence adds
/// nothing to the tree, and left out of the question, the store's tree around the words that are
/// there serves it (the references judge's tree of the file, for a rename's new name).
pub fn tree_around_present_words(
    store: &dyn ParsedFiles,
    lang: Language,
    file: &SourceFile,
    words: &[&str],
) -> Tree {
    let words: Vec<&str> = words
        .iter()
        .copied()
        .filter(|w| {
            *w == crate::lang::partial::WHOLE_FUNCTIONS
                || !crate::lang::calls::word_matches(&file.text, w).is_empty()
        })
        .collect();
    store.tree_around_words(lang, file, &words)
}

/// The full tree of `file`: the one the shell already has for this content, else a new parse
/// that is not kept.
pub fn tree_of(sources: &dyn Sources, lang: Language, file: &SourceFile) -> Tree {
    sources.parsed().tree_in_passing(lang, file)
}

/// The local bindings of `name` in `file` read through `tree` (`Locals::new`), computed once per
/// content, name and tree and kept by the store: the references engine's judge and the refactor
/// that rewrites the file after it ask the same. The tree is told apart by its size (a partial
/// tree and the whole tree of one content answer alike for the places they share).
pub fn locals_of(
    store: &dyn ParsedFiles,
    lang: Language,
    file: &SourceFile,
    tree: &Tree,
    name: &str,
) -> std::sync::Arc<crate::lang::locals::Locals> {
    let question = format!(
        "locals {lang:?} {name} {}",
        tree.root_node().descendant_count()
    );
    let fact = store.fact(&file.path, &file.sha256, &question, &mut || {
        let locals = crate::lang::locals::Locals::new(lang, tree, &file.text, name);
        let bytes = locals.bytes();
        (std::sync::Arc::new(locals) as Fact, bytes)
    });
    match fact.downcast::<crate::lang::locals::Locals>() {
        Ok(locals) => locals,
        Err(_) => std::sync::Arc::new(crate::lang::locals::Locals::new(
            lang, tree, &file.text, name,
        )),
    }
}

/// Another [`Sources`] whose every tree is a full parse: the reference that the partial trees of
/// [`ParsedFiles::tree_around_words`] are checked against (same plans, byte for byte).
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

    fn search_ahead(&self, lang: Language, words: &[&str]) {
        self.0.search_ahead(lang, words)
    }

    fn word_sites(&self, lang: Language, word: &str) -> Result<WordSites, SourceError> {
        self.0.word_sites(lang, word)
    }

    fn parsed(&self) -> &dyn ParsedFiles {
        self
    }

    fn cancel(&self) -> Cancel {
        self.0.cancel()
    }
}

impl ParsedFiles for FullTrees<'_> {
    fn tree(&self, lang: Language, file: &SourceFile) -> Tree {
        self.0.parsed().tree(lang, file)
    }

    fn tree_in_passing(&self, lang: Language, file: &SourceFile) -> Tree {
        self.0.parsed().tree_in_passing(lang, file)
    }

    fn tree_around_words(&self, lang: Language, file: &SourceFile, _words: &[&str]) -> Tree {
        lang.parse(&file.text)
    }

    // Full too (it keeps no fact, so no answer read from this tree is kept under the words).
    fn tree_around_words_exactly(&self, lang: Language, file: &SourceFile, _: &[&str]) -> Tree {
        lang.parse(&file.text)
    }

    fn known(&self, path: &str, sha256: &str) -> Option<KnownParse> {
        self.0.parsed().known(path, sha256)
    }

    fn outline(&self, lang: Language, file: &SourceFile, tree: &Tree) -> Vec<Symbol> {
        self.0.parsed().outline(lang, file, tree)
    }

    fn word_offsets(&self, file: &SourceFile, word: &str) -> Arc<Vec<usize>> {
        self.0.parsed().word_offsets(file, word)
    }

    fn run(&self, jobs: Vec<Job<'_>>) {
        self.0.parsed().run(jobs)
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
}
