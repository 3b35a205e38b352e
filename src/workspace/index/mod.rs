//! The persistent index in `<root>/.candor/index/` (issue 22, item 2): for each project file the
//! walk lists, its stamp (size, mtime, inode), sha256 and identifier postings with their lexical
//! roles; brought up to date from `stat` before each question, so it answers "which files can
//! hold this name" without reading the files that cannot. Never required: a missing, corrupt or
//! older index leaves the question to the walk. `candor index` builds it.

mod build;
mod disk;
pub mod facts;
mod format;
mod inverted;
mod listing;
mod postings;
mod shared;
mod threads;
pub mod tokens;
mod vocab;

use std::collections::{BTreeMap, HashMap};
use std::sync::OnceLock;

use crate::lang::Language;
use crate::workspace::store::Stamp;
use inverted::Inverted;
use postings::Postings;

pub use build::{Refreshed, Scanned, refresh, refresh_from, scan_files};
pub use disk::{LoadError, forget_listing, load, save};
pub use format::{FormatError, VERSION};

/// The size of `index` on disk, in bytes.
pub fn encoded_len(index: &Index) -> usize {
    format::encode(index).len()
}

/// The index in memory.
#[derive(Debug, Clone)]
pub struct Index {
    /// The file size limit it was built with (a file over it is [`Held::Special`]).
    pub max_bytes: u64,
    vocab: vocab::Vocab,
    /// Word → id, for adding words; empty until then.
    ids: HashMap<String, u32>,
    /// By project-relative path, as the walk lists them.
    files: BTreeMap<String, Entry>,
    /// Which files hold each word (by their ordinal in `files`): read with the index, or built
    /// from the postings when first asked after a change.
    inverted: OnceLock<Inverted>,
}

/// Equal when they hold the same files and words (the lookup table is a cache).
impl PartialEq for Index {
    fn eq(&self, other: &Index) -> bool {
        (self.max_bytes, &self.vocab, &self.files) == (other.max_bytes, &other.vocab, &other.files)
    }
}

impl Eq for Index {}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    stamp: Stamp,
    /// Changed so shortly before it was indexed that its stamp is not trusted.
    racy: bool,
    sha256: [u8; 32],
    held: Held,
}

/// What the index knows of a file's content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Held {
    /// Not decodable text, or over the limit: a question reads it as the walk does.
    Special,
    /// A symbolic link: a question looks where it leads as the walk does.
    Link,
    /// Its words.
    Text(Postings),
}

/// How a name must occur in a file for the file to be a candidate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Match {
    /// As a whole word (`word_matches`).
    Whole,
    /// Anywhere, as a substring of the text (`files_mentioning`).
    Substring,
}

/// The files a question must read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Candidates {
    /// Project-relative paths, sorted; every file of the walk that can answer, and every file
    /// the index cannot see into (links, binary, over the limit).
    pub paths: Vec<String>,
    /// Of them, the symbolic links.
    pub links: Vec<String>,
    /// How many regular files of the languages the index lists (what the walk would visit).
    pub walked: usize,
    /// For each path, the stamp the index trusts it with and the sha256 of its content then
    /// (`None` for a link, a file it does not see into, or one changed just before it was
    /// indexed): a file that still has this stamp after it is read has this content.
    pub known: Vec<Option<(Stamp, [u8; 32])>>,
}

/// The index's answer to `candor calls NAME`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CallsAnswer {
    /// Files whose text holds the name, with the (line, column) of each of its calls there, as
    /// read when the index was brought up to date; sorted by path.
    pub known: Vec<(String, Vec<(usize, usize)>)>,
    /// Files to read and search as the walk does (what the index cannot answer for); sorted.
    pub read: Vec<String>,
    /// How many regular files of the languages the walk would visit.
    pub walked: usize,
}

/// Figures for `candor index --status`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Status {
    pub files: usize,
    pub text_files: usize,
    pub words: usize,
    pub postings: usize,
}

impl Index {
    pub fn empty(max_bytes: u64) -> Index {
        Index {
            max_bytes,
            vocab: vocab::Vocab::default(),
            ids: HashMap::new(),
            files: BTreeMap::new(),
            inverted: OnceLock::new(),
        }
    }

    /// Which files hold each word, as the files are now.
    fn inverted(&self) -> &Inverted {
        self.inverted.get_or_init(|| {
            let files: Vec<(u32, Vec<u32>)> = (self.files.values().enumerate())
                .filter_map(|(ordinal, entry)| match &entry.held {
                    Held::Text(postings) => {
                        Some((ordinal as u32, postings.iter().map(|p| p.0).collect()))
                    }
                    _ => None,
                })
                .collect();
            Inverted::build(self.vocab.len(), &files)
        })
    }

    /// Forgets what was derived from the files (one was added, replaced or removed).
    fn files_changed(&mut self) {
        self.inverted = OnceLock::new();
    }

    /// Sets a file's entry; what was derived from the files is forgotten unless it held the
    /// same (a link or a file the index does not see into is set again at every refresh).
    fn put(&mut self, path: &str, entry: Entry) {
        let same = (self.files.get(path)).is_some_and(|old| old.held == entry.held);
        self.files.insert(path.to_string(), entry);
        if !same {
            self.files_changed();
        }
    }

    /// Removes the files `listed` does not hold; how many. What was derived from the files is
    /// forgotten when any went.
    fn keep_only(&mut self, listed: &std::collections::HashSet<&str>) -> usize {
        let before = self.files.len();
        self.files.retain(|path, _| listed.contains(path.as_str()));
        let removed = before - self.files.len();
        if removed > 0 {
            self.files_changed();
        }
        removed
    }

    /// For each file, in order, whether its postings hold one of the words `ids`.
    fn holding(&self, ids: &[u32]) -> Vec<bool> {
        self.inverted().holding(self.files.len(), ids)
    }

    fn id(&mut self, word: &str) -> u32 {
        // Filled only when words are added (a load leaves it empty: most questions add none).
        if self.ids.len() != self.vocab.len() {
            self.ids = (self.vocab.iter().enumerate())
                .map(|(id, w)| (w.to_string(), id as u32))
                .collect();
        }
        if let Some(id) = self.ids.get(word) {
            return *id;
        }
        let id = self.vocab.push(word);
        self.ids.insert(word.to_string(), id);
        id
    }

    /// Indexes a decoded text file.
    #[cfg(test)]
    pub(crate) fn add_text(
        &mut self,
        path: &str,
        stamp: Stamp,
        sha256: [u8; 32],
        lang: Language,
        text: &str,
    ) {
        let runs = tokens::runs(lang, text);
        self.add_runs(path, stamp, sha256, runs.iter().map(|(w, r)| (*w, r)));
    }

    fn add_runs<'a>(
        &mut self,
        path: &str,
        stamp: Stamp,
        sha256: [u8; 32],
        runs: impl Iterator<Item = (&'a str, &'a tokens::Run)>,
    ) {
        let mut runs: Vec<(u32, &tokens::Run)> =
            runs.map(|(word, run)| (self.id(word), run)).collect();
        runs.sort_unstable_by_key(|(id, _)| *id);
        let postings = Postings::encode(
            runs.iter()
                .map(|(id, run)| (*id, run.roles, run.calls.as_slice())),
        );
        let entry = Entry {
            stamp,
            racy: stamp.is_racy(crate::workspace::store::now_ns()),
            sha256,
            held: Held::Text(postings),
        };
        self.put(path, entry);
    }

    /// Records a file the index does not see into. A link's stamp is its own, not what it
    /// leads to: never trusted. Any other's is, as a text file's (a question reads such a file
    /// as the walk does whatever its entry says; the stamp only spares the refresh a read).
    pub(crate) fn add_special(&mut self, path: &str, stamp: Stamp, held: Held) {
        let racy = match held {
            Held::Link => true,
            _ => stamp.is_racy(crate::workspace::store::now_ns()),
        };
        let entry = Entry {
            stamp,
            racy,
            sha256: [0; 32],
            held,
        };
        self.put(path, entry);
    }

    /// The files of `langs` that can hold `word` as `how` asks; `None` when the index cannot
    /// answer for such a word (empty, or with a character that is not a word character).
    pub fn candidates(&self, langs: &[Language], word: &str, how: Match) -> Option<Candidates> {
        if !tokens::is_word(word) {
            return None;
        }
        let holding = self.holding(&self.wanted(word, how));
        let mut found = Candidates::default();
        for ((path, entry), holds) in self.files.iter().zip(holding) {
            if let Held::Link = entry.held {
                found.paths.push(path.clone());
                found.links.push(path.clone());
                found.known.push(None);
                continue;
            }
            if !Language::from_path(path).is_some_and(|l| langs.contains(&l)) {
                continue;
            }
            found.walked += 1;
            if holds || !matches!(entry.held, Held::Text(_)) {
                found.paths.push(path.clone());
                let trusted = matches!(entry.held, Held::Text(_)) && !entry.racy;
                found
                    .known
                    .push(trusted.then_some((entry.stamp, entry.sha256)));
            }
        }
        Some(found)
    }

    /// The word ids a file holding `word` as `how` asks holds one of.
    fn wanted(&self, word: &str, how: Match) -> Vec<u32> {
        match how {
            Match::Whole => self.vocab.position(word).into_iter().collect(),
            Match::Substring => self.vocab.contained(word),
        }
    }

    /// What the index knows of the calls of `word` in the files of `langs` (`None` when it
    /// cannot answer for such a word): for each file whose text holds `word` (as the walk's
    /// byte search has it), its calls when every one is stored, else the file to read.
    pub fn calls_of(&self, langs: &[Language], word: &str) -> Option<CallsAnswer> {
        if !tokens::is_word(word) {
            return None;
        }
        let holding = self.holding(&self.wanted(word, Match::Substring));
        let exact = self.vocab.position(word);
        let mut found = CallsAnswer::default();
        for ((path, entry), holds) in self.files.iter().zip(holding) {
            if matches!(entry.held, Held::Link)
                || !Language::from_path(path).is_some_and(|l| langs.contains(&l))
            {
                continue;
            }
            found.walked += 1;
            let Held::Text(postings) = &entry.held else {
                found.read.push(path.clone());
                continue;
            };
            if !holds {
                continue;
            }
            let posting = exact.and_then(|id| postings.find(id));
            match posting {
                // Changed so recently that its stamp is not trusted: read as the walk does.
                _ if entry.racy => found.read.push(path.clone()),
                Some((_, roles, _)) if roles & tokens::UNSURE != 0 => found.read.push(path.clone()),
                Some((_, _, Some(at))) => {
                    found.known.push((path.clone(), postings.calls_at(at)));
                }
                _ => found.known.push((path.clone(), Vec::new())),
            }
        }
        Some(found)
    }

    pub fn status(&self) -> Status {
        let mut status = Status {
            files: self.files.len(),
            words: self.vocab.len(),
            ..Status::default()
        };
        for entry in self.files.values() {
            if let Held::Text(postings) = &entry.held {
                status.text_files += 1;
                status.postings += postings.count as usize;
            }
        }
        status
    }

    /// The project-relative paths it lists, in order (for tests: the walk's files).
    pub fn paths(&self) -> Vec<String> {
        self.files.keys().cloned().collect()
    }

    /// The Rust and Python files it lists that are files, not links, in order: exactly what
    /// `walk::stream_source_files` lists for every language (the walk does not follow a link,
    /// the index keeps one as a link), for the TUI's file picker.
    pub fn source_paths(&self) -> Vec<String> {
        self.files
            .iter()
            .filter(|(_, entry)| !matches!(entry.held, Held::Link))
            .map(|(path, _)| path.clone())
            .collect()
    }
}
