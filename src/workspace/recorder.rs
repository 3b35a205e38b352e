//! One request's view of the project's sources ([`SkipRecorder`]): the files a project-wide
//! search had to skip, kept to be reported as findings; the request's cancellation, checked
//! before every read and search; and each project-wide search made once per request.

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;

use crate::cancel::Cancel;
use crate::edit::SourceFile;
use crate::lang::Language;
use crate::refactor::{Finding, Mentioning, ParsedFiles, SourceError, Sources, WordSites};

use super::DiskSources;
use super::index::Match;
use super::sources::cancelled;

/// Wraps the sources of one refactor and remembers every file a project-wide search had to skip
/// (binary, not UTF-8, over the size limit), so the response can say so as findings. Also where
/// a request is cancelled: every file read and every project-wide search checks the token
/// first and fails, and the refactors check it ([`Sources::cancel`]) in their own long loops.
/// Each project-wide search is made once per refactor: the search, the references engine and the
/// cross-checks ask for the same word several times, and a walk reads every file of the project.
pub struct SkipRecorder<'a> {
    inner: &'a DiskSources,
    skipped: Mutex<BTreeMap<String, String>>,
    cancel: Cancel,
    /// The answers of [`Sources::files_mentioning`] so far, by language and word.
    searched: Mutex<HashMap<(Language, String), Mentioning>>,
    /// This request's id: the index is brought up to date for its first search only.
    request: u64,
}

/// The id of the next request ([`SkipRecorder::new`]).
static NEXT_REQUEST: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

impl<'a> SkipRecorder<'a> {
    pub fn new(inner: &'a DiskSources) -> SkipRecorder<'a> {
        SkipRecorder {
            inner,
            skipped: Mutex::new(BTreeMap::new()),
            cancel: Cancel::never(),
            searched: Mutex::new(HashMap::new()),
            request: NEXT_REQUEST.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// [`Sources::files_mentioning`] through the inner sources, once per language and word.
    fn mentioning_once(&self, lang: Language, word: &str) -> Result<Mentioning, SourceError> {
        Ok(self
            .mentioning_each_once(lang, &[word])?
            .pop()
            .unwrap_or_default())
    }

    /// [`SkipRecorder::mentioning_once`] of each of `words`: the ones not searched yet are
    /// searched together (one walk for all of them when the project has no index), and kept.
    fn mentioning_each_once(
        &self,
        lang: Language,
        words: &[&str],
    ) -> Result<Vec<Mentioning>, SourceError> {
        let kept = |word: &str| -> Option<Mentioning> {
            let searched = self.searched.lock().ok()?;
            searched.get(&(lang, word.to_string())).cloned()
        };
        let mut found: Vec<Option<Mentioning>> = words.iter().map(|word| kept(word)).collect();
        let mut missing: Vec<&str> = (words.iter().zip(&found))
            .filter(|(_, found)| found.is_none())
            .map(|(word, _)| *word)
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return Ok(found.into_iter().flatten().collect());
        }
        let request = Some(self.request);
        let searched = (self.inner).mentioning_each(
            lang,
            &missing,
            Match::Substring,
            &self.cancel,
            request,
        )?;
        let searched: HashMap<&str, Mentioning> = missing.into_iter().zip(searched).collect();
        if let Ok(mut kept) = self.searched.lock() {
            for (word, mentioning) in &searched {
                kept.insert((lang, word.to_string()), mentioning.clone());
            }
        }
        for (word, slot) in words.iter().zip(&mut found) {
            if slot.is_none() {
                *slot = searched.get(word).cloned();
            }
        }
        Ok(found.into_iter().map(Option::unwrap_or_default).collect())
    }

    /// Stops reading files once `cancel` is set (the refactor then fails, nothing written).
    pub fn with_cancel(mut self, cancel: Cancel) -> SkipRecorder<'a> {
        self.cancel = cancel;
        self
    }

    fn record(&self, found: &[(String, String)]) {
        if let Ok(mut skipped) = self.skipped.lock() {
            for (path, reason) in found {
                skipped
                    .entry(path.clone())
                    .or_insert_with(|| reason.clone());
            }
        }
    }

    /// One warning per skipped file.
    pub fn findings(&self) -> Vec<Finding> {
        let skipped = self.skipped.lock().map(|s| s.clone()).unwrap_or_default();
        skipped
            .into_iter()
            .map(|(path, reason)| {
                Finding::warning(
                    &path,
                    1,
                    format!("{path} was not searched: it {reason}; references in it, if any, were not updated — check it by hand"),
                )
            })
            .collect()
    }
}

impl Drop for SkipRecorder<'_> {
    /// The request is over: the facts it computed go to disk as one pack.
    fn drop(&mut self) {
        self.inner.flush_facts();
    }
}

impl Sources for SkipRecorder<'_> {
    fn file(&self, path: &str) -> Result<Option<SourceFile>, SourceError> {
        self.cancel.check().map_err(|e| cancelled(path, e))?;
        self.inner.file(path)
    }

    fn files_mentioning(&self, lang: Language, word: &str) -> Result<Mentioning, SourceError> {
        self.cancel.check().map_err(|e| cancelled(word, e))?;
        let mentioning = self.mentioning_once(lang, word)?;
        self.record(&mentioning.skipped);
        Ok(mentioning)
    }

    fn search_ahead(&self, lang: Language, words: &[&str]) {
        // Kept by `mentioning_each_once`; a failed search is made again when asked.
        if self.cancel.check().is_ok() {
            let _ = self.mentioning_each_once(lang, words);
        }
    }

    /// The whole-word sites of the files that mention `word`: the same files, skipped ones
    /// included, as the inner sources' own whole-word search (the index's whole-word candidates
    /// are those of its substring candidates that hold the word whole).
    fn word_sites(&self, lang: Language, word: &str) -> Result<WordSites, SourceError> {
        let mentioning = self.files_mentioning(lang, word)?;
        Ok(self.inner.sites_on_every_core(mentioning, word))
    }

    fn dir_exists(&self, path: &str) -> bool {
        self.inner.dir_exists(path)
    }

    fn parsed(&self) -> &dyn ParsedFiles {
        self.inner.parsed()
    }

    fn cancel(&self) -> Cancel {
        self.cancel.clone()
    }
}
