//! The project-wide searches of the shell, answered from the persistent index when the project
//! has one: the index is loaded once per process, brought up to date from `stat` before each
//! question (and saved when that changed it), and names the files to read; each of them is then
//! read and searched exactly as the walk would (so the answer is the walk's, byte for byte). No
//! index, or a broken one: `None`, and the walk answers (a broken one is noted on stderr once).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

use super::Root;
use super::index::{self, CallsAnswer, Candidates, Index, Match};
use super::store::{Stamp, Store};
use super::walk;
use crate::cancel::Cancel;
use crate::edit::SourceFile;
use crate::lang::Language;

/// The index of one project as a process sees it.
#[derive(Debug, Default)]
pub struct Indexed {
    state: Mutex<State>,
    /// The request the index was last brought up to date for: its other questions take the
    /// index as it is (one `stat` of every file per request, not per word it searches).
    refreshed_for: Mutex<Option<u64>>,
    /// The candidates of the questions asked of the index as it is (forgotten whenever it
    /// changes): a warm session's search does not decode every file's postings again.
    answers: Mutex<HashMap<(Vec<Language>, String, Match), Candidates>>,
    /// How many questions an answer remembered answered.
    reused: std::sync::atomic::AtomicUsize,
    /// The project's files listed and stated by [`Indexed::prefetch`], for the first refresh.
    prefetched: Mutex<Option<index::Scanned>>,
}

/// How many answers [`Indexed`] remembers at most (then it starts again).
const MAX_ANSWERS: usize = 4096;

#[derive(Debug, Default)]
enum State {
    #[default]
    Unread,
    Absent,
    Broken,
    Ready(Box<Index>),
}

impl Indexed {
    /// The files of `langs` that can hold `word` as `how` asks, from an up-to-date index; `None`
    /// when there is no usable index or it cannot answer for this word. Within one `request`
    /// (an id unique to it), the index is brought up to date for its first question only.
    pub fn candidates(
        &self,
        root: &Root,
        max_bytes: u64,
        langs: &[Language],
        word: &str,
        how: Match,
        request: Option<u64>,
    ) -> Option<Candidates> {
        let key = (langs.to_vec(), word.to_string(), how);
        self.ask(root, max_bytes, word, request, |index| {
            let mut answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(found) = answers.get(&key) {
                self.reused
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                return Some(found.clone());
            }
            let found = index.candidates(langs, word, how)?;
            if answers.len() >= MAX_ANSWERS {
                answers.clear();
            }
            answers.insert(key, found.clone());
            Some(found)
        })
    }

    /// How many questions were answered by an answer remembered.
    #[cfg(test)]
    pub fn answers_reused(&self) -> usize {
        self.reused.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Forgets the answers of the index as it was (it changed, or was loaded or emptied).
    fn forget_answers(&self) {
        self.answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    /// Puts what was loaded in place of the index not read yet ([`loaded_state`]).
    fn take_loaded(
        &self,
        state: &mut State,
        loaded: Result<Option<Index>, index::LoadError>,
        max_bytes: u64,
        note: impl Fn(&dyn std::fmt::Display),
    ) {
        self.forget_answers();
        *state = loaded_state(loaded, max_bytes, note);
    }

    /// Empties `index` when it was built with another size limit (what it holds of large files
    /// is not this one's); whether it did.
    fn empty_if_other_limit(&self, index: &mut Index, max_bytes: u64) -> bool {
        if index.max_bytes == max_bytes {
            return false;
        }
        *index = Index::empty(max_bytes);
        self.forget_answers();
        true
    }

    /// The index's answer to `candor calls word` over `langs`, from an up-to-date index; `None`
    /// when there is no usable index or it cannot answer for this word.
    pub fn calls(
        &self,
        root: &Root,
        max_bytes: u64,
        langs: &[Language],
        word: &str,
    ) -> Option<CallsAnswer> {
        self.ask(root, max_bytes, word, None, |index| {
            index.calls_of(langs, word)
        })
    }

    /// `question` of the index brought up to date (loaded first if need be, saved when the
    /// refresh changed it), unless it already was for the same `request`.
    fn ask<T>(
        &self,
        root: &Root,
        max_bytes: u64,
        word: &str,
        request: Option<u64>,
        question: impl FnOnce(&Index) -> Option<T>,
    ) -> Option<T> {
        if !index::tokens::is_word(word) {
            return None;
        }
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let mut scanned = None;
        if let State::Unread = *state {
            scanned = self.load(&mut state, root, max_bytes);
        }
        let State::Ready(index) = &mut *state else {
            return None;
        };
        let mut refreshed_for = self.refreshed_for.lock().unwrap_or_else(|e| e.into_inner());
        if self.empty_if_other_limit(index, max_bytes) {
            *refreshed_for = None;
        }
        if request.is_some() && *refreshed_for == request {
            return question(index);
        }
        *refreshed_for = request;
        let prefetched = || {
            self.prefetched
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
        };
        let scanned = (scanned.or_else(prefetched)).unwrap_or_else(|| index::scan_files(root));
        if index::refresh_from(index, scanned, None).changed() {
            self.forget_answers();
            if let Err(e) = index::save(root, index) {
                eprintln!(
                    "candor: the index could not be saved ({e}); it is used as it is in memory"
                );
            }
        }
        question(index)
    }
}

impl Indexed {
    /// Reads the index into `state` (not read yet), listing and stating the project's files
    /// meanwhile when there is one; that scan, for the refresh that follows.
    fn load(&self, state: &mut State, root: &Root, max_bytes: u64) -> Option<index::Scanned> {
        let present = root.path().join(".candor/index/index.bin").is_file();
        let mut scanned = None;
        let loaded = std::thread::scope(|s| {
            let scan = present.then(|| s.spawn(|| index::scan_files(root)));
            let loaded = index::load(root);
            scanned = scan.and_then(|scan| scan.join().ok());
            loaded
        });
        self.take_loaded(state, loaded, max_bytes, |e| eprintln!("candor: {e}"));
        scanned
    }

    /// For a request about to ask the index (a `candor call` of a tool that searches the
    /// project), on a thread of its own while the request reads its own file: reads the index
    /// and lists and states the project's files, so that its first question finds both done.
    /// Nothing when the index was read already. The scan is the request's: it is taken by the
    /// first refresh, as a scan made then would be.
    pub fn prefetch(&self, root: &Root, max_bytes: u64) {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let State::Unread = *state {
            let scanned = self.load(&mut state, root, max_bytes);
            *self.prefetched.lock().unwrap_or_else(|e| e.into_inner()) = scanned;
        }
    }
}

impl Indexed {
    /// The project's Rust and Python files as the walk lists them (sorted), from the index
    /// brought up to date from `stat` (and saved when that changed it); with `build`, a project
    /// with no index gets one, built now. `progress` hears (done, to read) as files are read.
    /// `None` when there is no usable index (a broken one is left to `candor index --rebuild`):
    /// the caller walks. Says nothing on stderr (the TUI owns the terminal).
    pub fn source_files(
        &self,
        root: &Root,
        max_bytes: u64,
        build: bool,
        progress: Option<&(dyn Fn(usize, usize) + Sync)>,
    ) -> Option<Vec<String>> {
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let State::Unread = *state {
            self.take_loaded(&mut state, index::load(root), max_bytes, |_| {});
        }
        if build && let State::Absent = *state {
            *state = State::Ready(Box::new(Index::empty(max_bytes)));
        }
        let State::Ready(index) = &mut *state else {
            return None;
        };
        self.empty_if_other_limit(index, max_bytes);
        if index::refresh(index, root, progress).changed() {
            self.forget_answers();
            // Not saved: the list is right all the same, and the next save tries again.
            let _ = index::save(root, index);
        }
        Some(index.source_paths())
    }
}

impl Indexed {
    /// For a long-lived session (`candor mcp`): when the project has no index, builds one and
    /// saves it, without holding up the questions asked meanwhile (they walk, as without an
    /// index, until it is ready). Returns how many files it holds, `None` when the project
    /// already had one (used as it is), has a broken one, or it could not be saved.
    pub fn build_when_absent(&self, root: &Root, max_bytes: u64) -> Option<Result<usize, String>> {
        {
            let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
            if let State::Unread = *state {
                let loaded = index::load(root);
                self.take_loaded(&mut state, loaded, max_bytes, |e| eprintln!("candor: {e}"));
            }
            if !matches!(*state, State::Absent) {
                return None;
            }
        }
        let mut built = Index::empty(max_bytes);
        index::refresh(&mut built, &root, None);
        let files = built.paths().len();
        let saved = index::save(root, &built);
        let mut state = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if let State::Absent = *state {
            self.forget_answers();
            *state = State::Ready(Box::new(built));
        }
        Some(saved.map(|()| files))
    }
}

/// What a process makes of the index it loaded. An index another candor wrote in another format
/// was made by the user (`candor index`) and is only out of date: it is built again from the
/// files (the refresh that follows reads them all, and saves it), with a note. A corrupt or
/// unreadable one is left alone: the walk answers until `candor index --rebuild`.
fn loaded_state(
    loaded: Result<Option<Index>, index::LoadError>,
    max_bytes: u64,
    note: impl Fn(&dyn std::fmt::Display),
) -> State {
    match loaded {
        Ok(Some(index)) => State::Ready(Box::new(index)),
        Ok(None) => State::Absent,
        Err(index::LoadError::Format(index::FormatError::Version { found })) => {
            note(&format_args!(
                "the index .candor/index was written by another candor (format {found}, this one reads {}); candor builds it again",
                index::VERSION
            ));
            State::Ready(Box::new(Index::empty(max_bytes)))
        }
        Err(e) => {
            note(&e);
            State::Broken
        }
    }
}

/// One file the search found: its bytes as read (with the stamp seen just before the read, when
/// it is a regular file), or the decoded file the store kept for the stamp it has now.
#[derive(Debug)]
pub enum Found {
    Read(Read),
    Kept(SourceFile),
}

/// A file's bytes as read, in the buffer its decoded text keeps (no copy when they are UTF-8
/// without a BOM).
#[derive(Debug)]
pub struct Read {
    pub bytes: std::sync::Arc<[u8]>,
    /// Its stamp seen before the read (by the request's scan, or a `stat` just before), when it
    /// is a regular file.
    pub stamp: Option<Stamp>,
    /// The sha256 the index holds for them, when the file had the index's trusted stamp once
    /// read (then they are the bytes the index hashed).
    pub sha256: Option<[u8; 32]>,
}

impl Found {
    /// Bytes read with nothing known of them.
    pub fn bytes(bytes: std::sync::Arc<[u8]>) -> Found {
        Found::Read(Read {
            bytes,
            stamp: None,
            sha256: None,
        })
    }
}

impl Read {
    /// The file at `relative` these bytes hold (hashed unless the index vouched for the hash),
    /// with the stamp and length it was read with (when it is a regular file).
    pub fn decode(
        self,
        relative: &str,
    ) -> Result<(SourceFile, Option<(Stamp, usize)>), crate::edit::DecodeError> {
        let len = self.bytes.len();
        let sha256 = self.sha256.map(hex::encode);
        let file = SourceFile::from_shared_bytes(relative, self.bytes, sha256)?;
        Ok((file, self.stamp.map(|stamp| (stamp, len))))
    }
}

/// What the walk's `files_containing` gives for `word`, for the candidate files only: each read
/// with the walk's limits and kept when its bytes contain the word; each link looked through as
/// the walk does. A candidate whose stamp (size, mtime, inode) is the one `store` kept its
/// decoded file with is not read or hashed again (the store only keeps a stamp that was not
/// racy when read), nor searched when that content is the one the index holds the word for.
/// The stamp of a file the index trusts is the one the request's refresh saw. Sorted by path.
pub fn containing(
    root: &Root,
    candidates: &Candidates,
    lang: Language,
    word: &str,
    max_bytes: u64,
    store: &Store,
    cancel: &Cancel,
) -> Vec<(PathBuf, Result<Found, String>)> {
    use rayon::prelude::*;
    let finder = memchr::memmem::Finder::new(word.as_bytes());
    let mut found: Vec<_> = (candidates.paths.par_iter().enumerate())
        .flat_map_iter(|(at, path)| {
            let absolute = root.path().join(path);
            if cancel.is_cancelled() {
                return Vec::new();
            }
            if candidates.links.binary_search(path).is_ok() {
                let linked = walk::linked_outside(root.path(), &absolute, lang, &finder, max_bytes);
                return linked
                    .into_iter()
                    .map(|(path, bytes)| (path, bytes.map(Found::bytes)))
                    .collect();
            }
            if !Language::from_path(path).is_some_and(|l| l == lang) {
                return Vec::new();
            }
            // The index was brought up to date for this request: a file it sees into has the
            // stamp the request's scan found, as a `stat` now would say.
            let known = candidates.known.get(at).copied().flatten();
            let stamp = match known {
                Some((trusted, _)) => Some(trusted),
                None => std::fs::symlink_metadata(&absolute)
                    .ok()
                    .filter(|meta| meta.is_file() && meta.len() <= max_bytes)
                    .map(|meta| Stamp::of(&meta)),
            };
            if let Some(file) = stamp.and_then(|stamp| store.read(path, stamp)) {
                // The index holds the word for this very content (its runs are slices of the
                // text): nothing to look for. Else the BOM is no part of the text, and no word
                // holds U+FEFF.
                let indexed = known.is_some_and(|(_, sha256)| file.sha256_bytes() == Some(sha256));
                return match indexed || finder.find(file.text.as_bytes()).is_some() {
                    false => Vec::new(),
                    true => vec![(absolute, Ok(Found::Kept(file)))],
                };
            }
            match walk::read_shared_stamped(&absolute, max_bytes) {
                Ok((bytes, after)) => {
                    let sha256 = known
                        .filter(|(trusted, _)| after == Some(*trusted))
                        .map(|(_, sha256)| sha256);
                    // The bytes the index holds the word for need no search.
                    if sha256.is_none() && finder.find(&bytes).is_none() {
                        return Vec::new();
                    }
                    let read = Read {
                        bytes,
                        stamp,
                        sha256,
                    };
                    vec![(absolute, Ok(Found::Read(read)))]
                }
                Err(e) => vec![(absolute, Err(e))],
            }
        })
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn age(path: &std::path::Path, secs_ago: u64) {
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(secs_ago);
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(when).unwrap();
    }

    fn sha(text: &str) -> [u8; 32] {
        let hex = crate::edit::sha256_hex(text.as_bytes());
        hex::decode(hex).unwrap().try_into().unwrap()
    }

    /// The candidates for `helper` of an index built and saved for the project now.
    fn candidates_for_helper(root: &Root) -> Candidates {
        let mut built = Index::empty(1000);
        index::refresh(&mut built, root, None);
        index::save(root, &built).unwrap();
        (Indexed::default())
            .candidates(
                root,
                1000,
                &[Language::Python],
                "helper",
                Match::Whole,
                None,
            )
            .expect("the index answers")
    }

    /// [`containing`] `helper` among `candidates`.
    fn containing_helper(
        root: &Root,
        candidates: &Candidates,
        store: &Store,
    ) -> Vec<(PathBuf, Result<Found, String>)> {
        let never = Cancel::never();
        containing(
            root,
            candidates,
            Language::Python,
            "helper",
            1000,
            store,
            &never,
        )
    }

    #[test]
    fn a_prefetched_index_answers_as_one_read_at_the_question_and_its_scan_serves_once() {
        let dir = tempfile::tempdir().unwrap();
        for (name, text) in [("a.py", "helper(1)\n"), ("b.py", "other()\n")] {
            std::fs::write(dir.path().join(name), text).unwrap();
            age(&dir.path().join(name), 60);
        }
        let root = Root::new(dir.path()).unwrap();
        let langs = [Language::Python];
        let ask = |indexed: &Indexed| {
            indexed.candidates(&root, 1000, &langs, "helper", index::Match::Whole, None)
        };
        // No index: nothing read, nothing scanned, the walk answers.
        let without = Indexed::default();
        without.prefetch(&root, 1000);
        assert!(without.prefetched.lock().unwrap().is_none());
        assert_eq!(ask(&without), None);

        let mut built = Index::empty(1000);
        index::refresh(&mut built, &root, None);
        index::save(&root, &built).unwrap();
        // c.py comes after the index was saved: the refresh finds it from the scan.
        std::fs::write(dir.path().join("c.py"), "helper(3)\n").unwrap();
        let prefetched = Indexed::default();
        prefetched.prefetch(&root, 1000);
        assert!(prefetched.prefetched.lock().unwrap().is_some());
        let answer = ask(&prefetched).expect("the index answers");
        assert_eq!(answer.paths, ["a.py", "c.py"]);
        assert_eq!(Some(answer), ask(&Indexed::default()));
        assert!(
            prefetched.prefetched.lock().unwrap().is_none(),
            "taken once"
        );
    }

    #[test]
    fn a_candidate_read_with_the_stamp_the_index_trusts_takes_its_hash_from_the_index() {
        let dir = tempfile::tempdir().unwrap();
        let files = [
            ("a.py", "helper(1)\n"),
            ("b.py", "helper(2)\n"),
            ("c.py", "helper(3)\n"),
        ];
        for (name, text) in files {
            std::fs::write(dir.path().join(name), text).unwrap();
        }
        // c.py was changed just before the index was built: its stamp is not trusted.
        age(&dir.path().join("a.py"), 60);
        age(&dir.path().join("b.py"), 60);
        let root = Root::new(dir.path()).unwrap();
        let candidates = candidates_for_helper(&root);
        // b.py changes after the question's refresh, before it is read (same size, another
        // mtime): its bytes are not the ones the index hashed.
        std::fs::write(dir.path().join("b.py"), "helper(4)\n").unwrap();
        age(&dir.path().join("b.py"), 30);
        let found = containing_helper(&root, &candidates, &Store::new(1 << 20));
        let taken: Vec<(String, Option<[u8; 32]>)> = found
            .into_iter()
            .map(|(path, found)| {
                let name = path.file_name().unwrap().to_string_lossy().to_string();
                match found {
                    Ok(Found::Read(read)) => (name, read.sha256),
                    other => panic!("{name}: {other:?}"),
                }
            })
            .collect();
        let expected = [
            ("a.py".to_string(), Some(sha("helper(1)\n"))),
            ("b.py".to_string(), None),
            ("c.py".to_string(), None),
        ];
        assert_eq!(taken, expected);
    }

    #[test]
    fn a_kept_file_is_taken_on_the_index_word_only_when_it_is_the_content_the_index_saw() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "helper(1)\n").unwrap();
        age(&dir.path().join("a.py"), 60);
        let root = Root::new(dir.path()).unwrap();
        let candidates = candidates_for_helper(&root);
        let (stamp, _) = candidates.known[0].expect("a trusted stamp");
        let found = |kept: &str| {
            let store = Store::new(1 << 20);
            store.put_read(stamp, &SourceFile::from_text("a.py", kept));
            let found = containing_helper(&root, &candidates, &store);
            let texts: Vec<String> = (found.into_iter())
                .map(|(_, found)| match found {
                    Ok(Found::Kept(file)) => file.text.to_string(),
                    other => panic!("{other:?}"),
                })
                .collect();
            texts
        };
        // The content the index saw: taken as it is kept.
        assert_eq!(found("helper(1)\n"), ["helper(1)\n"]);
        // Another content kept with that stamp: searched, and it does not hold the word.
        assert!(found("other(1)\n").is_empty());
    }
}
