//! `Sources` on the disk: reads project files through the root's containment check, with the
//! size limit, and finds the files that mention a name with the parallel prefiltered walk. A file
//! that is *the* file of a request and cannot be read is an error; one that is merely among the
//! searched files is skipped, and [`SkipRecorder`] turns the skips into findings. It is also the
//! project's parsed-file store (`ParsedFiles`): the trees the refactors ask for, kept by content
//! and re-parsed incrementally, and the thread pool their work runs on.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};

use tree_sitter::Tree;

use crate::cancel::Cancel;
use crate::edit::SourceFile;
use crate::lang::Language;
use crate::lang::symbols::Symbol;
use crate::refactor::lasting::Codec;
use crate::refactor::{
    Fact, Job, KnownParse, Mentioning, ParsedFiles, SourceError, Sources, WordSites,
};

use super::index::facts::FactsDir;
use super::index::{self, Match};
use super::indexed::{Found, Indexed};
use super::store::{self, Stamp, Store, StoreStats};
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
    /// The warm store: trees and decoded files kept across requests, by content and stamp.
    store: Store,
    /// The persistent index, when the project has one.
    index: Indexed,
    /// The trees of the latest results the syntax check parsed (language, path, sha256 after),
    /// for the cross-checks of the same request.
    results: Mutex<Vec<ResultTree>>,
    /// The facts kept on disk for the next process, beside the index (opened at the first
    /// lasting fact; `None` without an index, or when `CANDOR_DISK_FACTS=0`).
    facts: std::sync::OnceLock<Option<FactsDir>>,
}

/// A kept tree of a refactor's result: (language, path, sha256 of the text), tree.
type ResultTree = ((Language, String, String), Tree);

/// How many result trees [`DiskSources`] keeps (the latest): one request's changed files.
const KEPT_RESULTS: usize = 16;

impl DiskSources {
    pub fn new(root: Root, limits: Limits) -> DiskSources {
        DiskSources {
            root,
            limits,
            store: Store::new((store::DEFAULT_MAX_MB * 1_000_000) as usize),
            index: Indexed::default(),
            results: Mutex::new(Vec::new()),
            facts: std::sync::OnceLock::new(),
        }
    }

    /// Leaves what the store holds unfreed (an empty store takes its place): for a process about
    /// to exit, which need not free its trees node by node.
    pub fn forget_store(&mut self) {
        let kept = std::mem::replace(&mut self.store, Store::new(0));
        std::mem::forget(kept);
        let results = std::mem::take(&mut *self.results.lock().unwrap_or_else(|e| e.into_inner()));
        std::mem::forget(results);
    }

    /// The same sources with a store bounded by `max_mb` megabytes (`[store] max_mb`).
    pub fn with_store_mb(mut self, max_mb: u64) -> DiskSources {
        self.store = Store::new(max_mb.saturating_mul(1_000_000) as usize);
        self
    }

    /// What the warm store holds and how it was used (for `candor mcp`'s log and `candor
    /// debug store`).
    pub fn store_stats(&self) -> StoreStats {
        let mut stats = self.store.stats();
        if let Some(Some(facts)) = self.facts.get() {
            stats.disk = facts.counts();
        }
        stats
    }

    /// The project's facts on disk, opened once.
    fn facts_dir(&self) -> Option<&FactsDir> {
        self.facts
            .get_or_init(|| {
                let off = std::env::var("CANDOR_DISK_FACTS").is_ok_and(|v| v.trim() == "0");
                (!off).then(|| FactsDir::open(&self.root)).flatten()
            })
            .as_ref()
    }

    /// Writes the facts this process computed and has not written yet as one pack (the end of a
    /// request: [`SkipRecorder`]'s drop).
    pub fn flush_facts(&self) {
        if let Some(Some(facts)) = self.facts.get() {
            facts.flush();
        }
    }

    /// Remembers `tree` as the parse of `file` (the TUI hands over its trees this way).
    pub fn remember_tree(&self, file: &SourceFile, tree: Tree) {
        self.store.put_full(file, tree);
    }

    /// The full tree of the file at `path` parsed before with this content, if any.
    fn tree_of(&self, path: &str, sha256: &str) -> Option<Tree> {
        self.store.full(path, sha256).map(|full| full.tree)
    }

    /// The full tree of `file`: the kept one when the content is the same; re-parsed
    /// incrementally from the kept tree of an earlier version of the file (only the changed
    /// part is parsed again); parsed from scratch otherwise. Kept for the next time.
    pub fn parse_reusing(&self, lang: Language, file: &SourceFile) -> Tree {
        if let Some(full) = self.store.full(&file.path, &file.sha256) {
            return full.tree;
        }
        self.store.count_parse();
        let tree = match self.store.any_full(&file.path) {
            Some((_, old)) => {
                crate::lang::incremental::reparse(lang, &old.text, &old.tree, &file.text)
            }
            None => lang.parse(&file.text),
        };
        self.remember_tree(file, tree.clone());
        tree
    }

    /// Reads and decodes one file; `Ok(None)` when it does not exist. A file whose stamp (size,
    /// mtime, inode) is the one it had when it was last read, long enough after its last change,
    /// is not read or hashed again.
    pub fn read(&self, path: &str) -> Result<Option<SourceFile>, SourceError> {
        let resolved = self.root.resolve(path)?;
        if !resolved.exists {
            return Ok(None);
        }
        let stamp = std::fs::symlink_metadata(&resolved.real)
            .ok()
            .filter(|meta| meta.is_file())
            .map(|meta| Stamp::of(&meta));
        if let Some(stamp) = stamp
            && let Some(file) = self.store.read(&resolved.relative, stamp)
        {
            return Ok(Some(file));
        }
        // Through the root's handle, one name at a time: never through a link swapped in since.
        let bytes = self
            .root
            .read_limited(&resolved, self.limits.max_file_bytes)
            .map_err(|reason| SourceError::Unreadable {
                path: resolved.relative.clone(),
                reason,
            })?;
        let file = decode(&resolved.relative, &bytes)?;
        self.keep_read(stamp, bytes.len(), &file);
        Ok(Some(file))
    }

    /// Keeps `file` (decoded from `len` bytes) for its stamp when the stamp can be trusted
    /// (seen before the read, the same size as what was read, not racy); forgets what was kept
    /// of the path otherwise.
    fn keep_read(&self, stamp: Option<Stamp>, len: usize, file: &SourceFile) {
        match stamp {
            Some(stamp) if !stamp.is_racy(store::now_ns()) && stamp.size == len as u64 => {
                self.store.put_read(stamp, file)
            }
            _ => self.store.forget_read(&file.path),
        }
    }
}

impl DiskSources {
    /// [`Sources::files_mentioning`], stopping early once `cancel` is set.
    pub fn mentioning(
        &self,
        lang: Language,
        word: &str,
        cancel: &Cancel,
    ) -> Result<Mentioning, SourceError> {
        self.mentioning_as(lang, word, Match::Substring, cancel, None)
    }

    /// The files of `lang` whose text holds `word` as `how` asks (a superset for
    /// [`Match::Whole`]: the walk's substring search, or the index's whole words): the index
    /// names the files to read when the project has one, else the walk reads them all.
    fn mentioning_as(
        &self,
        lang: Language,
        word: &str,
        how: Match,
        cancel: &Cancel,
        request: Option<u64>,
    ) -> Result<Mentioning, SourceError> {
        let mut each = self.mentioning_each(lang, &[word], how, cancel, request)?;
        Ok(each.pop().unwrap_or_default())
    }

    /// [`DiskSources::mentioning_as`] of each of `words`, in order: without an index one walk
    /// reads every file once for all of them.
    pub(super) fn mentioning_each(
        &self,
        lang: Language,
        words: &[&str],
        how: Match,
        cancel: &Cancel,
        request: Option<u64>,
    ) -> Result<Vec<Mentioning>, SourceError> {
        pause_before_first_search();
        let max = self.limits.max_file_bytes;
        let Some(first) = words.first() else {
            return Ok(Vec::new());
        };
        let candidates =
            |word: &str| (self.index).candidates(&self.root, max, &[lang], word, how, request);
        let mut each = Vec::with_capacity(words.len());
        match candidates(first) {
            Some(first_candidates) => {
                let mut asked = Some(first_candidates);
                for word in words {
                    let Some(candidates) = asked.take().or_else(|| candidates(word)) else {
                        break;
                    };
                    cancel.check().map_err(|e| cancelled(word, e))?;
                    let found = super::indexed::containing(
                        &self.root,
                        &candidates,
                        lang,
                        word,
                        max,
                        &self.store,
                        cancel,
                    );
                    // Decoded and kept before the next word: a file that holds both is read once.
                    each.push(self.decoded(found));
                }
            }
            None => {
                let found_each =
                    walk::files_containing_each(self.root.path(), lang, words, max, cancel);
                cancel.check().map_err(|e| cancelled(first, e))?;
                each = self.decoded_each(found_each);
            }
        }
        // The index went away between two words (another process removed it): the rest walk.
        for word in &words[each.len()..] {
            each.push(self.mentioning_as(lang, word, how, cancel, request)?);
        }
        Ok(each)
    }

    /// [`crate::refactor::sites_of`], each file searched on any core (the same answer, in
    /// order), its offsets as the store keeps them for its content
    /// ([`ParsedFiles::word_offsets`]).
    pub(super) fn sites_on_every_core(&self, mentioning: Mentioning, word: &str) -> WordSites {
        use rayon::prelude::*;
        let Mentioning { files, skipped } = mentioning;
        let files = (files.into_par_iter())
            .filter_map(|file| {
                let offsets = self.word_offsets(&file, word);
                (!offsets.is_empty()).then(|| (file, offsets.to_vec()))
            })
            .collect();
        WordSites { files, skipped }
    }

    /// [`DiskSources::decoded`] of each of the walk's lists, a file found for several words
    /// decoded (and hashed) once and shared by their lists, which keep their order.
    fn decoded_each(&self, lists: Vec<Vec<walk::FoundFile>>) -> Vec<Mentioning> {
        let mut distinct = BTreeMap::new();
        for (path, read) in lists.iter().flatten() {
            distinct.entry(path).or_insert(read);
        }
        let found = (distinct.into_iter())
            .map(|(path, read)| (path.clone(), read.clone().map(Found::bytes)))
            .collect();
        let all = self.decoded(found);
        let files: HashMap<&str, &SourceFile> =
            (all.files.iter()).map(|f| (f.path.as_str(), f)).collect();
        let skipped: HashMap<&str, &String> = (all.skipped.iter())
            .map(|(path, why)| (path.as_str(), why))
            .collect();
        (lists.iter())
            .map(|list| {
                let mut mentioning = Mentioning::default();
                for relative in list
                    .iter()
                    .filter_map(|(path, _)| self.root.relative_of(path))
                {
                    if let Some(file) = files.get(relative.as_str()) {
                        mentioning.files.push((*file).clone());
                    } else if let Some(why) = skipped.get(relative.as_str()) {
                        mentioning.skipped.push((relative, (*why).clone()));
                    }
                }
                mentioning
            })
            .collect()
    }

    /// The files found, decoded (UTF-8 checked, hashed unless the index vouches for the hash)
    /// on every core, each one read kept by its stamp; the ones that cannot be decoded skipped.
    fn decoded(&self, found: Vec<(std::path::PathBuf, Result<Found, String>)>) -> Mentioning {
        use rayon::prelude::*;
        let mut mentioning = Mentioning::default();
        let decoded: Vec<_> = found
            .into_par_iter()
            .filter_map(|(absolute, found)| {
                let relative = self.root.relative_of(&absolute)?;
                let decoded = match found {
                    Err(reason) => Err(reason),
                    Ok(Found::Kept(file)) => Ok((file, None)),
                    Ok(Found::Read(read)) => read.decode(&relative).map_err(|e| e.to_string()),
                };
                Some((relative, decoded))
            })
            .collect();
        for (relative, decoded) in decoded {
            match decoded {
                Err(reason) => mentioning.skipped.push((relative, reason)),
                Ok((file, read_as)) => {
                    if let Some((stamp, len)) = read_as {
                        self.keep_read(Some(stamp), len, &file);
                    }
                    mentioning.files.push(file)
                }
            }
        }
        mentioning
    }
}

impl DiskSources {
    /// [`Sources::word_sites`], stopping early once `cancel` is set: the files the index names
    /// (or the walk finds), each searched for the word's whole-word occurrences.
    pub fn word_sites_cancellable(
        &self,
        lang: Language,
        word: &str,
        cancel: &Cancel,
    ) -> Result<WordSites, SourceError> {
        let mentioning = self.mentioning_as(lang, word, Match::Whole, cancel, None)?;
        Ok(self.sites_on_every_core(mentioning, word))
    }

    /// The project's Rust and Python files from the persistent index, as the walk lists them
    /// ([`Indexed::source_files`]; `build`: one is built when the project has none).
    pub fn indexed_source_files(
        &self,
        build: bool,
        progress: Option<&(dyn Fn(usize, usize) + Sync)>,
    ) -> Option<Vec<String>> {
        let max = self.limits.max_file_bytes;
        self.index.source_files(&self.root, max, build, progress)
    }

    /// Reads the persistent index and scans the project now, for a request about to search it
    /// ([`Indexed::prefetch`]), and then the tables of the facts kept beside it.
    pub fn prefetch_index(&self) {
        self.index.prefetch(&self.root, self.limits.max_file_bytes);
        // Then the tables of the facts kept on disk, which the engine asks once it has searched.
        if let Some(facts) = self.facts_dir() {
            facts.read_tables();
        }
    }

    /// For a long-lived session: builds the project's index when it has none, without holding
    /// up the searches meanwhile ([`Indexed::build_when_absent`]).
    pub fn index_when_absent(&self) -> Option<Result<usize, String>> {
        let max = self.limits.max_file_bytes;
        self.index.build_when_absent(&self.root, max)
    }

    /// The persistent index's answer for `candor calls`: the calls of `word` it holds, and the
    /// files it cannot answer for (`None` without a usable index).
    pub fn indexed_calls(&self, langs: &[Language], word: &str) -> Option<index::CallsAnswer> {
        let max = self.limits.max_file_bytes;
        self.index.calls(&self.root, max, langs, word)
    }
}

/// A test hook, inert unless a `test-hooks` build (the tests' own) finds
/// `CANDOR_TEST_PAUSE_BEFORE_SEARCH_MS=N`: before the process's first word search (a rename has
/// read its definition's file, not yet the others), the file `CANDOR_TEST_SEARCH_READY` names is
/// created and the search waits N ms, so a test can have another process write the project
/// between the two reads.
fn pause_before_first_search() {
    #[cfg(feature = "test-hooks")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let pause = std::env::var("CANDOR_TEST_PAUSE_BEFORE_SEARCH_MS")
                .ok()
                .and_then(|v| v.trim().parse::<u64>().ok());
            if let Some(ms) = pause {
                if let Some(ready) = std::env::var_os("CANDOR_TEST_SEARCH_READY") {
                    let _ = std::fs::write(ready, b"");
                }
                std::thread::sleep(std::time::Duration::from_millis(ms));
            }
        });
    }
}

pub(super) fn cancelled(path: &str, e: crate::cancel::Cancelled) -> SourceError {
    SourceError::Io {
        path: path.to_string(),
        message: e.to_string(),
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
        self.mentioning(lang, word, &Cancel::never())
    }

    fn word_sites(&self, lang: Language, word: &str) -> Result<WordSites, SourceError> {
        self.word_sites_cancellable(lang, word, &Cancel::never())
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

    fn parsed(&self) -> &dyn ParsedFiles {
        self
    }
}

/// The parsed-file store of the project: trees by content, kept across requests, and rayon's
/// pool for the work of a request.
impl ParsedFiles for DiskSources {
    fn tree(&self, lang: Language, file: &SourceFile) -> Tree {
        self.parse_reusing(lang, file)
    }

    fn tree_in_passing(&self, lang: Language, file: &SourceFile) -> Tree {
        // Kept too: the store is bounded by memory, and the next preview asks again.
        self.parse_reusing(lang, file)
    }

    fn tree_around_words(&self, lang: Language, file: &SourceFile, words: &[&str]) -> Tree {
        // A full tree at hand beats a partial one; a partial one is kept for these words.
        if let Some(tree) = self.tree_of(&file.path, &file.sha256) {
            return tree;
        }
        if let Some(tree) = self.store.partial(file, words) {
            return tree;
        }
        self.store.count_parse();
        let tree = crate::lang::partial::parse_around_words(lang, &file.text, words).0;
        self.store.put_partial(file, words, tree.clone());
        tree
    }

    fn tree_around_words_exactly(&self, lang: Language, file: &SourceFile, words: &[&str]) -> Tree {
        if let Some(tree) = self.store.partial_exactly(file, words) {
            return tree;
        }
        self.store.count_parse();
        let tree = crate::lang::partial::parse_around_words(lang, &file.text, words).0;
        self.store.put_partial(file, words, tree.clone());
        tree
    }

    fn known(&self, path: &str, sha256: &str) -> Option<KnownParse> {
        let full = self.store.full(path, sha256)?;
        // Computed once per content, outside the store's lock.
        let errors = full
            .errors
            .get_or_init(|| crate::lang::syntax_errors(&full.tree, &full.text))
            .clone();
        Some(KnownParse {
            tree: full.tree,
            errors,
        })
    }

    fn result_tree(&self, lang: Language, path: &str, sha256: &str) -> Option<Tree> {
        let results = self.results.lock().unwrap_or_else(|e| e.into_inner());
        results
            .iter()
            .find(|((l, p, s), _)| *l == lang && p == path && s == sha256)
            .map(|(_, tree)| tree.clone())
    }

    fn keep_result_tree(&self, lang: Language, path: &str, sha256: &str, tree: &Tree) {
        let mut results = self.results.lock().unwrap_or_else(|e| e.into_inner());
        results.retain(|((l, p, _), _)| !(*l == lang && p == path));
        if results.len() >= KEPT_RESULTS {
            results.remove(0);
        }
        results.push(((lang, path.to_string(), sha256.to_string()), tree.clone()));
    }

    fn outline(&self, lang: Language, file: &SourceFile, tree: &Tree) -> Vec<Symbol> {
        // The kept tree is the tree of this content, so its outline is this outline.
        match self.store.full(&file.path, &file.sha256) {
            Some(full) => full
                .outline
                .get_or_init(|| crate::lang::symbols::outline(lang, tree, &file.text))
                .clone(),
            None => crate::lang::symbols::outline(lang, tree, &file.text),
        }
    }

    fn word_offsets(&self, file: &SourceFile, word: &str) -> Arc<Vec<usize>> {
        let question = format!("word offsets\0{word}");
        let kept = self.store.fact(&file.path, &file.sha256, &question);
        if let Some(offsets) = kept.and_then(|fact| fact.downcast::<Vec<usize>>().ok()) {
            return offsets;
        }
        let offsets = Arc::new(crate::lang::calls::word_matches(&file.text, word));
        let bytes = 64 + offsets.len() * std::mem::size_of::<usize>();
        (self.store).keep_fact(&file.path, &file.sha256, &question, offsets.clone(), bytes);
        offsets
    }

    fn fact(
        &self,
        path: &str,
        sha256: &str,
        question: &str,
        make: &mut dyn FnMut() -> (Fact, usize),
    ) -> Fact {
        if let Some(fact) = self.store.fact(path, sha256, question) {
            return fact;
        }
        let (fact, bytes) = make();
        self.store
            .put_fact(path, sha256, question, fact.clone(), bytes);
        fact
    }

    fn lasting_fact(
        &self,
        path: &str,
        sha256: &str,
        question: &str,
        codec: &dyn Codec,
        make: &mut dyn FnMut() -> (Fact, usize),
    ) -> Fact {
        if let Some(fact) = self.store.fact(path, sha256, question) {
            return fact;
        }
        let disk = self.facts_dir().map(|facts| {
            (
                facts,
                disk_key(facts.build(), codec.tag(), path, sha256, question),
            )
        });
        if let Some((facts, key)) = &disk
            && let Some((fact, bytes)) = facts.get(key, |payload| codec.decode(payload))
        {
            self.store
                .keep_fact(path, sha256, question, fact.clone(), bytes);
            return fact;
        }
        let (fact, bytes) = make();
        self.store
            .put_fact(path, sha256, question, fact.clone(), bytes);
        if let Some((facts, key)) = &disk
            && let Some(payload) = codec.encode(&fact)
        {
            facts.put(key, &payload);
        }
        fact
    }

    fn run(&self, jobs: Vec<Job<'_>>) {
        // Split as rayon splits any list: no task and wake-up per job.
        use rayon::prelude::*;
        jobs.into_par_iter().for_each(|job| job());
    }
}

/// The key of a fact on disk: everything its answer depends on (the facts' format, the candor
/// that computed it, the value's type, the file's path and content, the question).
fn disk_key(build: &str, tag: &str, path: &str, sha256: &str, question: &str) -> String {
    let format = crate::refactor::lasting::FORMAT;
    format!("{format}\0{build}\0{tag}\0{path}\0{sha256}\0{question}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refactor::Finding;
    use crate::workspace::SkipRecorder;

    fn sources(dir: &std::path::Path, max: u64) -> DiskSources {
        DiskSources::new(
            Root::new(dir).unwrap(),
            Limits {
                max_file_bytes: max,
            },
        )
    }

    /// Sets the file's mtime `secs_ago` seconds back (older than the racy window).
    fn age(path: &std::path::Path, secs_ago: u64) {
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(secs_ago);
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(when).unwrap();
    }

    #[test]
    fn an_indexed_search_takes_an_unchanged_file_from_the_store_and_reads_a_changed_one() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.py");
        std::fs::write(&a, "helper(1)\n").unwrap();
        std::fs::write(dir.path().join("b.py"), "x = 1\n").unwrap();
        age(&a, 60);
        let s = sources(dir.path(), 1000);
        assert!(s.indexed_source_files(true, None).is_some());
        let text = |m: &Mentioning| {
            m.files
                .iter()
                .map(|f| f.text.to_string())
                .collect::<Vec<_>>()
        };
        let first = s
            .mentioning(Language::Python, "helper", &Cancel::never())
            .unwrap();
        assert_eq!(text(&first), ["helper(1)\n"]);
        let hits = s.store_stats().hits;
        let again = s
            .mentioning(Language::Python, "helper", &Cancel::never())
            .unwrap();
        assert_eq!(again, first);
        assert_eq!(
            s.store_stats().hits,
            hits + 1,
            "the unchanged file is not read again"
        );
        // Rewritten in place (same inode), the same size, another mtime: read again.
        std::fs::write(&a, "helper(2)\n").unwrap();
        age(&a, 30);
        let changed = s
            .mentioning(Language::Python, "helper", &Cancel::never())
            .unwrap();
        assert_eq!(text(&changed), ["helper(2)\n"]);
        assert_eq!(
            changed.files[0].sha256,
            crate::edit::sha256_hex(b"helper(2)\n")
        );
    }

    #[test]
    fn the_facts_a_request_made_are_on_disk_as_one_pack_when_it_ends() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a.py");
        std::fs::write(&a, "helper(1)\n").unwrap();
        age(&a, 60);
        let s = sources(dir.path(), 1000);
        assert!(s.indexed_source_files(true, None).is_some());
        let facts = dir.path().join(".candor/index/facts");
        let packs = || {
            std::fs::read_dir(&facts).map_or(0, |d| {
                d.filter(|e| {
                    e.as_ref()
                        .unwrap()
                        .path()
                        .to_string_lossy()
                        .ends_with(".pack")
                })
                .count()
            })
        };
        for (n, question) in ["first request", "second request"].into_iter().enumerate() {
            let request = SkipRecorder::new(&s);
            crate::refactor::lasting::lasting_fact(
                request.parsed(),
                "a.py",
                "sha",
                question,
                Vec::<Finding>::new,
            );
            assert_eq!(packs(), n, "written before the request ended");
            drop(request);
            assert_eq!(packs(), n + 1, "not written when the request ended");
        }
    }

    #[test]
    fn a_request_searches_each_word_once_and_its_word_sites_are_the_whole_words() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "helper(1)\n").unwrap();
        std::fs::write(dir.path().join("b.py"), "helpers = 1\n").unwrap();
        std::fs::write(dir.path().join("c.py"), "x = 1\n").unwrap();
        let s = sources(dir.path(), 1000);
        let paths = |m: &Mentioning| m.files.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
        let request = SkipRecorder::new(&s);
        let first = request
            .files_mentioning(Language::Python, "helper")
            .unwrap();
        assert_eq!(paths(&first), ["a.py", "b.py"]);
        // Written while the request runs: the request keeps the answer it searched once.
        std::fs::write(dir.path().join("d.py"), "helper(2)\n").unwrap();
        let again = request
            .files_mentioning(Language::Python, "helper")
            .unwrap();
        assert_eq!(again, first);
        let sites = request.word_sites(Language::Python, "helper").unwrap();
        let site_paths: Vec<&str> = sites.files.iter().map(|(f, _)| f.path.as_str()).collect();
        assert_eq!(site_paths, ["a.py"]);
        assert_eq!(sites.files[0].1, [0]);
        // The next request searches again.
        let next = SkipRecorder::new(&s);
        let found = next.files_mentioning(Language::Python, "helper").unwrap();
        assert_eq!(paths(&found), ["a.py", "b.py", "d.py"]);
        assert_eq!(
            next.word_sites(Language::Python, "helper").unwrap(),
            s.word_sites(Language::Python, "helper").unwrap()
        );
    }

    #[test]
    fn a_request_brings_the_index_up_to_date_for_its_first_search_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "helper(1)\n").unwrap();
        let s = sources(dir.path(), 1000);
        assert!(s.indexed_source_files(true, None).is_some());
        let paths = |m: &Mentioning| m.files.iter().map(|f| f.path.clone()).collect::<Vec<_>>();
        let request = SkipRecorder::new(&s);
        let first = request
            .files_mentioning(Language::Python, "helper")
            .unwrap();
        assert_eq!(paths(&first), ["a.py"]);
        // Written while the request runs: its other words are searched in the index as it was
        // at its first search (no second `stat` of every file).
        std::fs::write(dir.path().join("b.py"), "other(2)\n").unwrap();
        let other = request.files_mentioning(Language::Python, "other").unwrap();
        assert_eq!(paths(&other), Vec::<String>::new());
        // The next request brings the index up to date, and so does a search outside a request.
        let next = SkipRecorder::new(&s);
        let found = next.files_mentioning(Language::Python, "other").unwrap();
        assert_eq!(paths(&found), ["b.py"]);
        std::fs::write(dir.path().join("c.py"), "other(3)\n").unwrap();
        let outside = s
            .mentioning(Language::Python, "other", &Cancel::never())
            .unwrap();
        assert_eq!(paths(&outside), ["b.py", "c.py"]);
        // Another request of the same word, nothing changed since (the files old enough for
        // their stamps to be trusted): the index's answer is remembered, not worked out again.
        for name in ["a.py", "b.py", "c.py"] {
            age(&dir.path().join(name), 60);
        }
        let warm = SkipRecorder::new(&s);
        let found = warm.files_mentioning(Language::Python, "other").unwrap();
        let reused = s.index.answers_reused();
        let again = SkipRecorder::new(&s);
        assert_eq!(
            again.files_mentioning(Language::Python, "other").unwrap(),
            found
        );
        assert_eq!(s.index.answers_reused(), reused + 1);
    }

    #[test]
    fn the_file_itself_is_an_error_when_binary_large_or_not_utf8() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bin.py"), b"x = 1\n\0\0").unwrap();
        std::fs::write(dir.path().join("latin.py"), b"x = 'caf\xe9'\n").unwrap();
        std::fs::write(dir.path().join("big.py"), "x = 1\n".repeat(50)).unwrap();
        std::fs::write(dir.path().join("ok.py"), "x = 1\n").unwrap();
        let s = sources(dir.path(), 100);
        for (file, reason) in [
            ("bin.py", "binary"),
            ("latin.py", "not valid UTF-8"),
            ("big.py", "over the 100-byte limit"),
        ] {
            let err = s.read(file).unwrap_err();
            assert!(
                matches!(err, SourceError::Unreadable { .. }),
                "{file}: {err:?}"
            );
            assert!(err.to_string().contains(reason), "{file}: {err}");
        }
        assert!(s.read("ok.py").unwrap().is_some());
        assert!(s.read("missing.py").unwrap().is_none());
    }

    #[test]
    fn searched_files_that_cannot_be_read_become_findings() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "helper()\n").unwrap();
        std::fs::write(dir.path().join("b.py"), b"helper()\n\0").unwrap();
        std::fs::write(
            dir.path().join("c.py"),
            format!("helper()\n{}", "#\n".repeat(100)),
        )
        .unwrap();
        let s = sources(dir.path(), 100);
        let recorder = SkipRecorder::new(&s);
        let found = recorder
            .files_mentioning(Language::Python, "helper")
            .unwrap();
        assert_eq!(
            found
                .files
                .iter()
                .map(|f| f.path.as_str())
                .collect::<Vec<_>>(),
            vec!["a.py"]
        );
        let findings = recorder.findings();
        assert_eq!(findings.len(), 2, "{findings:?}");
        assert_eq!(findings[0].file, "b.py");
        assert!(
            findings[0].message.contains("binary"),
            "{}",
            findings[0].message
        );
        assert_eq!(findings[1].file, "c.py");
        assert!(
            findings[1].message.contains("limit"),
            "{}",
            findings[1].message
        );
    }
}
