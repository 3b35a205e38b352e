//! The references engine's answers about one file, asked of the shell's store
//! ([`ParsedFiles::fact`]) so that a file whose content did not change is not judged again (a
//! second preview, another refactor of the same symbol). What the engine learns from a file is
//! not kept: its question would hold the reach, which grows with every file learned from. Each question
//! names everything its answer depends on besides the file's content: the target, what the
//! project is known to reach it through ([`Reach`], which is all the judge knows of the other
//! files: a re-export in a package's `__init__.py` is in it), the word, and the tree it is read
//! from (whole, or exactly the partial tree around which words: no tree is parsed to ask). The
//! verdicts and a file's top imports (what the engine learns re-exports from, whatever the reach)
//! are [`Lasting`](crate::refactor::lasting::Lasting): the store may keep them on disk for the
//! next process. Python only: the Rust path keeps judging.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::super::ParsedFiles;
use super::super::lasting::lasting_fact;
use crate::edit::{SourceFile, sha256_hex};
use crate::lang::Language;
use crate::lang::refs::{Found, Reach, Target, TopImports};

/// What every question of one search shares: the target, in a digest.
pub(super) struct Asking<'a> {
    store: &'a dyn ParsedFiles,
    target: String,
    /// Only Python's answers are kept.
    keeps: bool,
}

impl<'a> Asking<'a> {
    pub fn new(store: &'a dyn ParsedFiles, target: &Target) -> Asking<'a> {
        Asking {
            store,
            target: sha256_hex(format!("{target:?}").as_bytes()),
            keeps: target.lang == Language::Python,
        }
    }

    /// Whether the answers are kept (Python's).
    pub fn keeps(&self) -> bool {
        self.keeps
    }

    /// The verdicts on the occurrences of `word` in `file` (read through its tree parsed around
    /// `parsed_for` or whole), for what is known of the project (`reach`): `judge`'s, or the ones
    /// kept for the same question. The question names the tree by what determines it (content
    /// and words), so a kept answer parses nothing: `judge` makes exactly that tree when asked.
    pub fn judged(
        &self,
        file: &SourceFile,
        parsed_for: Option<&BTreeSet<String>>,
        reach: &str,
        word: &str,
        judge: impl FnOnce() -> Vec<Found>,
    ) -> Vec<Found> {
        if !self.keeps {
            return judge();
        }
        let question = format!(
            "judge {} {reach} {word} {}",
            self.target,
            tree_mark(parsed_for)
        );
        let found = lasting_fact(self.store, &file.path, &file.sha256, &question, judge);
        Vec::clone(&found)
    }

    /// The `from … import` statements at the top of `file` (read through its tree parsed around
    /// `parsed_for` or whole, which `read` makes when asked), kept by the file's content: they do
    /// not depend on the target or the reach.
    pub fn top_imports(
        &self,
        file: &SourceFile,
        parsed_for: Option<&BTreeSet<String>>,
        read: impl FnOnce() -> TopImports,
    ) -> Arc<TopImports> {
        let question = format!("top-imports {}", tree_mark(parsed_for));
        lasting_fact(self.store, &file.path, &file.sha256, &question, read)
    }
}

/// The digest of what the project is known to reach a target through (part of a question).
pub(super) fn reach_digest(reach: &Reach) -> String {
    sha256_hex(format!("{reach:?}").as_bytes())
}

/// Which tree of the content an answer was read from: whole, or exactly the partial tree around
/// which words (a function of the content and the words).
fn tree_mark(parsed_for: Option<&BTreeSet<String>>) -> String {
    match parsed_for {
        Some(words) => {
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            format!("around {}", words.join(" "))
        }
        None => "whole".to_string(),
    }
}
