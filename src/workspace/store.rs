//! The warm store: what `DiskSources` keeps across the requests of a long-lived front end (the
//! TUI, `candor mcp`) — each project file's full tree (by path and content hash), the partial
//! trees of files read in passing, and the decoded files themselves with their stamp (size,
//! mtime, inode), so that an unchanged file is neither read, hashed nor parsed again; and the
//! facts computed from a file's content (the references engine's verdicts on it for a question,
//! what it learns from it), so that an unchanged file is not judged again either. Bounded by an
//! estimate of the memory it holds; the least recently used entry goes first.

use std::any::Any;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use tree_sitter::Tree;

use crate::edit::SourceFile;
use crate::lang::SyntaxError;
use crate::lang::symbols::Symbol;

/// The default memory bound, in MB (`[store] max_mb` in a config file overrides it).
pub const DEFAULT_MAX_MB: u64 = 512;

/// What a file looked like on disk when it was read: a later read that sees the same stamp
/// trusts the decoded file it kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub size: u64,
    pub mtime_ns: i128,
    pub inode: u64,
}

impl Stamp {
    pub fn of(meta: &std::fs::Metadata) -> Stamp {
        use std::os::unix::fs::MetadataExt;
        Stamp {
            size: meta.len(),
            mtime_ns: nanos(meta.mtime(), meta.mtime_nsec()),
            inode: meta.ino(),
        }
    }

    /// [`Stamp::of`] from what `fstatat` gave (the same fields as the metadata's).
    pub fn of_stat(stat: &rustix::fs::Stat) -> Stamp {
        Stamp {
            size: stat.st_size as u64,
            mtime_ns: nanos(stat.st_mtime, stat.st_mtime_nsec as i64),
            inode: stat.st_ino,
        }
    }

    /// Whether the file was changed so shortly before `now_ns` that a change in the same clock
    /// tick would leave the stamp as it is (git's "racily clean" files): such a stamp is not
    /// trusted.
    pub fn is_racy(&self, now_ns: i128) -> bool {
        now_ns - self.mtime_ns < RACY_NS
    }
}

/// How long after a change a stamp is not trusted, in nanoseconds: longer than any file
/// system's clock tick.
pub const RACY_NS: i128 = 2_000_000_000;

/// A time a `stat` gives (seconds and nanoseconds since the epoch) in nanoseconds.
pub fn nanos(secs: i64, nsec: i64) -> i128 {
    i128::from(secs) * 1_000_000_000 + i128::from(nsec)
}

/// The time now in nanoseconds since the epoch (0 if the clock is before it).
pub fn now_ns() -> i128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}

/// What the store holds and how it was used since it was made.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct StoreStats {
    pub entries: usize,
    /// The estimate of the memory held (texts and trees).
    pub bytes: usize,
    pub max_bytes: usize,
    /// Trees and files asked for and found.
    pub hits: u64,
    /// Trees and files asked for and not found (then parsed or read).
    pub misses: u64,
    /// Parses the store made: full, incremental and partial.
    pub parses: u64,
    /// Facts computed from a file's content and kept (a verdict of the references engine, what
    /// it learned from the file): each one a file judged or read for facts.
    pub facts: u64,
    /// Facts asked for and found kept for the same content and question.
    pub fact_hits: u64,
    /// Facts read from the disk (`.candor/index/facts/`), written there, and entries found bad
    /// there and ignored.
    pub disk: super::index::facts::DiskCounts,
}

impl std::fmt::Display for StoreStats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "store: {} entries, {:.1} of {} MB, {} hits, {} misses, {} parses, {} facts made, {} reused, {} read from disk, {} written, {} bad",
            self.entries,
            self.bytes as f64 / 1e6,
            self.max_bytes / 1_000_000,
            self.hits,
            self.misses,
            self.parses,
            self.facts,
            self.fact_hits,
            self.disk.read,
            self.disk.written,
            self.disk.bad
        )
    }
}

/// Which of a file's things an entry is.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Kind {
    /// The full tree.
    Full,
    /// A partial tree around the whole-word occurrences of these words (joined by a space).
    Partial(String),
    /// The decoded file, with its stamp.
    Read,
    /// A fact of the content: the question it answers (which says what the answer depends on).
    Fact(String),
}

impl Kind {
    fn as_ref(&self) -> KindRef<'_> {
        match self {
            Kind::Full => KindRef::Full,
            Kind::Partial(words) => KindRef::Partial(words),
            Kind::Read => KindRef::Read,
            Kind::Fact(question) => KindRef::Fact(question),
        }
    }
}

/// A [`Kind`] as asked, borrowing the words or the question.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum KindRef<'a> {
    Full,
    Partial(&'a str),
    Read,
    Fact(&'a str),
}

/// An entry's key: the file's path and which of its things.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Key {
    path: String,
    kind: Kind,
}

/// A key by its parts: an entry is looked up with borrowed ones, not a copy of its path and
/// question (hundreds of lookups a request).
trait AsKey {
    fn parts(&self) -> (&str, KindRef<'_>);
}

impl AsKey for Key {
    fn parts(&self) -> (&str, KindRef<'_>) {
        (&self.path, self.kind.as_ref())
    }
}

impl AsKey for (&str, KindRef<'_>) {
    fn parts(&self) -> (&str, KindRef<'_>) {
        (self.0, self.1)
    }
}

// A key hashes and compares by its parts, kept or asked alike (what `Borrow` requires).
impl std::hash::Hash for Key {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.parts().hash(state)
    }
}

impl std::hash::Hash for dyn AsKey + '_ {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.parts().hash(state)
    }
}

impl PartialEq for dyn AsKey + '_ {
    fn eq(&self, other: &Self) -> bool {
        self.parts() == other.parts()
    }
}

impl Eq for dyn AsKey + '_ {}

impl<'a> std::borrow::Borrow<dyn AsKey + 'a> for Key {
    fn borrow(&self) -> &(dyn AsKey + 'a) {
        self
    }
}

/// A fact kept for a file's content: any value its maker knows the type of.
pub type Fact = Arc<dyn Any + Send + Sync>;

/// A full tree with what is computed from it once per content.
#[derive(Debug, Clone)]
pub struct FullTree {
    pub text: Arc<str>,
    pub tree: Tree,
    pub errors: Arc<OnceLock<Vec<SyntaxError>>>,
    pub outline: Arc<OnceLock<Vec<Symbol>>>,
}

#[derive(Debug)]
enum Held {
    Full(FullTree),
    Partial(Tree),
    Read(Stamp, SourceFile),
    /// With the estimate of its memory.
    Fact(Fact, usize),
}

#[derive(Debug)]
struct Entry {
    sha256: String,
    held: Held,
    bytes: usize,
    used: u64,
}

#[derive(Debug, Default)]
struct Inner {
    entries: HashMap<Key, Entry>,
    bytes: usize,
    tick: u64,
}

/// The store itself; shared by the workers of a request (every method takes `&self`).
#[derive(Debug)]
pub struct Store {
    inner: Mutex<Inner>,
    max_bytes: usize,
    hits: AtomicU64,
    misses: AtomicU64,
    parses: AtomicU64,
    facts: AtomicU64,
    fact_hits: AtomicU64,
}

/// The estimated memory of a tree: tree-sitter's nodes are a few dozen bytes each.
fn tree_bytes(tree: &Tree) -> usize {
    tree.root_node().descendant_count() * 48
}

impl Store {
    pub fn new(max_bytes: usize) -> Store {
        Store {
            inner: Mutex::new(Inner::default()),
            max_bytes,
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            parses: AtomicU64::new(0),
            facts: AtomicU64::new(0),
            fact_hits: AtomicU64::new(0),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts one parse made for the store.
    pub fn count_parse(&self) {
        self.parses.fetch_add(1, Ordering::Relaxed);
    }

    fn counted<T>(&self, found: Option<T>) -> Option<T> {
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    fn get(&self, path: &str, kind: KindRef<'_>, sha256: Option<&str>) -> Option<HeldRef> {
        self.get_with(path, kind, sha256, |_| ())
            .map(|(held, ())| held)
    }

    /// [`Store::get`], with what `also` takes of the entry.
    fn get_with<R>(
        &self,
        path: &str,
        kind: KindRef<'_>,
        sha256: Option<&str>,
        also: impl FnOnce(&Entry) -> R,
    ) -> Option<(HeldRef, R)> {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        let entry = inner.entries.get_mut(&(path, kind) as &dyn AsKey)?;
        if sha256.is_some_and(|sha| sha != entry.sha256) {
            return None;
        }
        entry.used = tick;
        let held = match &entry.held {
            Held::Full(full) => HeldRef::Full(full.clone()),
            Held::Partial(tree) => HeldRef::Partial(tree.clone()),
            Held::Read(stamp, file) => HeldRef::Read(*stamp, file.clone()),
            Held::Fact(fact, _) => HeldRef::Fact(fact.clone()),
        };
        Some((held, also(entry)))
    }

    fn put(&self, path: &str, kind: Kind, sha256: &str, held: Held) {
        let bytes = path.len()
            + match &held {
                Held::Full(full) => full.text.len() + tree_bytes(&full.tree),
                Held::Partial(tree) => tree_bytes(tree),
                Held::Read(_, file) => file.text.len(),
                Held::Fact(_, bytes) => *bytes,
            };
        let mut inner = self.lock();
        inner.tick += 1;
        let entry = Entry {
            sha256: sha256.to_string(),
            held,
            bytes,
            used: inner.tick,
        };
        let key = Key {
            path: path.to_string(),
            kind,
        };
        if let Some(old) = inner.entries.insert(key, entry) {
            inner.bytes -= old.bytes;
        }
        inner.bytes += bytes;
        evict(&mut inner, self.max_bytes);
    }

    /// The full tree of `path` with this content.
    pub fn full(&self, path: &str, sha256: &str) -> Option<FullTree> {
        let found = match self.get(path, KindRef::Full, Some(sha256)) {
            Some(HeldRef::Full(full)) => Some(full),
            _ => None,
        };
        self.counted(found)
    }

    /// The full tree of `path` kept for any content, with that content's hash (the base of an
    /// incremental parse); not counted as a hit or miss.
    pub fn any_full(&self, path: &str) -> Option<(String, FullTree)> {
        match self.get_with(path, KindRef::Full, None, |e| e.sha256.clone()) {
            Some((HeldRef::Full(full), sha)) => Some((sha, full)),
            _ => None,
        }
    }

    pub fn put_full(&self, file: &SourceFile, tree: Tree) -> FullTree {
        let full = FullTree {
            text: Arc::from(&*file.text),
            tree,
            errors: Default::default(),
            outline: Default::default(),
        };
        self.put(
            &file.path,
            Kind::Full,
            &file.sha256,
            Held::Full(full.clone()),
        );
        full
    }

    /// The partial tree of `file` around `words`, made once per content; or one kept for this
    /// content around more words (it holds every statement a tree around `words` holds, and
    /// answers the same questions about them: a search for `dedent` reuses the tree the
    /// references engine parsed around `dedent`, `textwrap` and `import`).
    pub fn partial(&self, file: &SourceFile, words: &[&str]) -> Option<Tree> {
        let words_joined = words.join(" ");
        let kind = KindRef::Partial(&words_joined);
        let found = match self.get(&file.path, kind, Some(&file.sha256)) {
            Some(HeldRef::Partial(tree)) => Some(tree),
            _ => self.partial_around_more(file, words),
        };
        self.counted(found)
    }

    /// The partial tree of `file` kept for exactly `words`.
    pub fn partial_exactly(&self, file: &SourceFile, words: &[&str]) -> Option<Tree> {
        let words_joined = words.join(" ");
        let kind = KindRef::Partial(&words_joined);
        let found = match self.get(&file.path, kind, Some(&file.sha256)) {
            Some(HeldRef::Partial(tree)) => Some(tree),
            _ => None,
        };
        self.counted(found)
    }

    /// A partial tree of `file`'s content kept for a set of words that holds every one of
    /// `words` (the fewest such words when there are several).
    fn partial_around_more(&self, file: &SourceFile, words: &[&str]) -> Option<Tree> {
        let mut inner = self.lock();
        inner.tick += 1;
        let tick = inner.tick;
        let entry = inner
            .entries
            .iter_mut()
            .filter(|(key, entry)| key.path == file.path && entry.sha256 == file.sha256)
            .filter_map(|(key, entry)| match &key.kind {
                Kind::Partial(kept) => {
                    let kept: Vec<&str> = kept.split(' ').collect();
                    words
                        .iter()
                        .all(|w| kept.contains(w))
                        .then_some((kept.len(), entry))
                }
                _ => None,
            })
            .min_by_key(|(count, _)| *count)
            .map(|(_, entry)| entry)?;
        entry.used = tick;
        match &entry.held {
            Held::Partial(tree) => Some(tree.clone()),
            _ => None,
        }
    }

    pub fn put_partial(&self, file: &SourceFile, words: &[&str], tree: Tree) {
        let kind = Kind::Partial(words.join(" "));
        self.put(&file.path, kind, &file.sha256, Held::Partial(tree));
    }

    /// The fact of `path` with this content that answers `question`, if one is kept. The
    /// question must name everything else the answer depends on.
    pub fn fact(&self, path: &str, sha256: &str, question: &str) -> Option<Fact> {
        let found = match self.get(path, KindRef::Fact(question), Some(sha256)) {
            Some(HeldRef::Fact(fact)) => Some(fact),
            _ => None,
        };
        if found.is_some() {
            self.fact_hits.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// Keeps `fact` (about `bytes` of memory) as the answer to `question` for this content of
    /// `path`; it replaces the answer for an earlier content.
    pub fn put_fact(&self, path: &str, sha256: &str, question: &str, fact: Fact, bytes: usize) {
        self.facts.fetch_add(1, Ordering::Relaxed);
        self.keep_fact(path, sha256, question, fact, bytes);
    }

    /// Keeps `fact` as [`put_fact`](Store::put_fact) does, for a fact that was not made here
    /// (read from the disk): not counted as made.
    pub fn keep_fact(&self, path: &str, sha256: &str, question: &str, fact: Fact, bytes: usize) {
        let kind = Kind::Fact(question.to_string());
        let bytes = bytes + question.len();
        self.put(path, kind, sha256, Held::Fact(fact, bytes));
    }

    /// The decoded file at `path` if it was read with this stamp.
    pub fn read(&self, path: &str, stamp: Stamp) -> Option<SourceFile> {
        let found = match self.get(path, KindRef::Read, None) {
            Some(HeldRef::Read(kept, file)) if kept == stamp => Some(file),
            _ => None,
        };
        self.counted(found)
    }

    pub fn put_read(&self, stamp: Stamp, file: &SourceFile) {
        let held = Held::Read(stamp, file.clone());
        self.put(&file.path, Kind::Read, &file.sha256, held);
    }

    /// Forgets the decoded file at `path` (it changed and its stamp is not trusted).
    pub fn forget_read(&self, path: &str) {
        let mut inner = self.lock();
        if let Some(old) = inner.entries.remove(&(path, KindRef::Read) as &dyn AsKey) {
            inner.bytes -= old.bytes;
        }
    }

    pub fn stats(&self) -> StoreStats {
        let inner = self.lock();
        StoreStats {
            entries: inner.entries.len(),
            bytes: inner.bytes,
            max_bytes: self.max_bytes,
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            parses: self.parses.load(Ordering::Relaxed),
            facts: self.facts.load(Ordering::Relaxed),
            fact_hits: self.fact_hits.load(Ordering::Relaxed),
            disk: Default::default(),
        }
    }
}

/// A copy of what an entry holds (trees are reference-counted: cheap to copy).
enum HeldRef {
    Full(FullTree),
    Partial(Tree),
    Read(Stamp, SourceFile),
    Fact(Fact),
}

/// Removes the least recently used entries until the store is within its bound (the entry just
/// put stays, even alone over the bound, so that its request gets it).
fn evict(inner: &mut Inner, max_bytes: usize) {
    while inner.bytes > max_bytes && inner.entries.len() > 1 {
        let newest = inner.tick;
        let Some(oldest) = inner
            .entries
            .iter()
            .filter(|(_, e)| e.used != newest)
            .min_by_key(|(_, e)| e.used)
            .map(|(k, _)| k.clone())
        else {
            return;
        };
        if let Some(old) = inner.entries.remove(&oldest) {
            inner.bytes -= old.bytes;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    fn full(store: &Store, path: &str, text: &str) -> SourceFile {
        let file = SourceFile::from_text(path, text);
        store.put_full(&file, Language::Python.parse(text));
        file
    }

    #[test]
    fn the_least_recently_used_goes_first_when_over_the_bound() {
        let text = "x = 1\n".repeat(100);
        let one = {
            let store = Store::new(usize::MAX);
            full(&store, "a.py", &text);
            store.stats().bytes
        };
        // Room for two entries, not three.
        let store = Store::new(one * 2 + one / 2);
        let a = full(&store, "a.py", &text);
        let b = full(&store, "b.py", &text);
        assert!(store.full("a.py", &a.sha256).is_some());
        full(&store, "c.py", &text);
        assert!(store.full("a.py", &a.sha256).is_some(), "a was used last");
        assert!(store.full("b.py", &b.sha256).is_none(), "b was the oldest");
        let stats = store.stats();
        assert_eq!(stats.entries, 2);
        assert!(stats.bytes <= stats.max_bytes, "{stats:?}");
        assert_eq!((stats.hits, stats.misses), (2, 1));
    }

    #[test]
    fn a_partial_tree_around_more_words_serves_fewer_for_the_same_content_only() {
        let store = Store::new(usize::MAX);
        let text = "import textwrap\nx = textwrap.dedent(y)\n";
        let file = SourceFile::from_text("a.py", text);
        let tree = Language::Python.parse(text);
        store.put_partial(&file, &["dedent", "import", "textwrap"], tree);
        assert!(store.partial(&file, &["dedent"]).is_some());
        assert!(store.partial(&file, &["import", "dedent"]).is_some());
        assert!(store.partial(&file, &["dedent", "indent"]).is_none());
        assert!(store.partial(&file, &["dede"]).is_none());
        let changed = SourceFile::from_text("a.py", "x = dedent(y)\n");
        assert!(store.partial(&changed, &["dedent"]).is_none());
        let other = SourceFile::from_text("b.py", text);
        assert!(store.partial(&other, &["dedent"]).is_none());
    }

    #[test]
    fn a_tree_is_found_only_for_its_content_and_a_file_only_for_its_stamp() {
        let store = Store::new(usize::MAX);
        let a = full(&store, "a.py", "x = 1\n");
        assert!(store.full("a.py", &a.sha256).is_some());
        let changed = SourceFile::from_text("a.py", "x = 2\n");
        assert!(store.full("a.py", &changed.sha256).is_none());
        assert_eq!(store.any_full("a.py").unwrap().0, a.sha256);
        let stamp = Stamp {
            size: 6,
            mtime_ns: 1,
            inode: 7,
        };
        store.put_read(stamp, &a);
        assert_eq!(store.read("a.py", stamp), Some(a.clone()));
        let touched = Stamp {
            mtime_ns: 2,
            ..stamp
        };
        assert_eq!(store.read("a.py", touched), None);
        store.forget_read("a.py");
        assert_eq!(store.read("a.py", stamp), None);
    }

    #[test]
    fn a_fact_is_found_only_for_its_content_and_question_and_counts_in_the_bound() {
        let store = Store::new(usize::MAX);
        let a = SourceFile::from_text("a.py", "x = 1\n");
        let fact: Fact = Arc::new(vec![1u32, 2]);
        store.put_fact("a.py", &a.sha256, "judge t r x", fact, 1000);
        assert!(store.stats().bytes >= 1000, "{:?}", store.stats());
        let kept = store.fact("a.py", &a.sha256, "judge t r x").unwrap();
        assert_eq!(kept.downcast_ref::<Vec<u32>>(), Some(&vec![1, 2]));
        assert!(store.fact("a.py", &a.sha256, "judge t r2 x").is_none());
        let changed = SourceFile::from_text("a.py", "x = 2\n");
        assert!(store.fact("a.py", &changed.sha256, "judge t r x").is_none());
        assert!(store.fact("b.py", &a.sha256, "judge t r x").is_none());
        let stats = store.stats();
        assert_eq!((stats.facts, stats.fact_hits), (1, 1));
    }
}
