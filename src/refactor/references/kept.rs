//! The references engine's answers about one file, asked of the shell's store
//! ([`ParsedFiles::fact`]) so that a file whose content did not change is not judged again (a
//! second preview, another refactor of the same symbol). What the engine learns from a file is
//! kept as the file's lessons, whatever the reach ([`crate::lang::refs::Resolver::lessons`]):
//! the driver folds them into the reach, a question holding the reach would grow with every file
//! learned from (quadratic). Every other question
//! names everything its answer depends on besides the file's content: the target, what the
//! project is known to reach it through ([`Reach`], which is all the judge knows of the other
//! files: a re-export in a package's `__init__.py` is in it), the word, and the tree it is read
//! from (whole, or partial around which words). Python only: the Rust path keeps judging.

use std::collections::BTreeSet;
use std::sync::Arc;

use tree_sitter::Tree;

use super::super::{Fact, ParsedFiles};
use crate::edit::{SourceFile, sha256_hex};
use crate::lang::Language;
use crate::lang::refs::{Found, Lessons, Reach, Target};

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

    /// The verdicts on the occurrences of `word` in `file` (read through `tree`, parsed around
    /// `parsed_for` or whole), for what is known of the project (`reach`): `judge`'s, or the
    /// ones kept for the same question.
    pub fn judged(
        &self,
        file: &SourceFile,
        tree: &Tree,
        parsed_for: Option<&BTreeSet<String>>,
        reach: &str,
        word: &str,
        judge: impl Fn() -> Vec<Found>,
    ) -> Vec<Found> {
        if !self.keeps {
            return judge();
        }
        let question = format!(
            "judge {} {reach} {word} {}",
            self.target,
            tree_mark(tree, parsed_for)
        );
        let fact = self
            .store
            .fact(&file.path, &file.sha256, &question, &mut || {
                let found = judge();
                let bytes = 64 + found.len() * std::mem::size_of::<Found>();
                (Arc::new(found) as Fact, bytes)
            });
        match fact.downcast_ref::<Vec<Found>>() {
            Some(found) => found.clone(),
            None => judge(),
        }
    }
}

impl Asking<'_> {
    /// What `file` (read through `tree`, parsed around `parsed_for` or whole) teaches for lessons
    /// of `kind`: `teach`'s, or the ones kept for the same content, tree and kind. The question
    /// holds no reach (the reach grows with every file learned from): the driver folds the
    /// lessons into it.
    pub fn lessons(
        &self,
        file: &SourceFile,
        tree: &Tree,
        parsed_for: Option<&BTreeSet<String>>,
        kind: &str,
        teach: impl Fn() -> (Lessons, usize),
    ) -> Lessons {
        if !self.keeps {
            return teach().0;
        }
        let question = format!("lessons {kind} {}", tree_mark(tree, parsed_for));
        self.store
            .fact(&file.path, &file.sha256, &question, &mut || teach())
    }
}

/// The digest of what the project is known to reach a target through (part of a question).
pub(super) fn reach_digest(reach: &Reach) -> String {
    sha256_hex(format!("{reach:?}").as_bytes())
}

/// Which tree of the content an answer was read from: whole, or partial around which words (and
/// its size, so that a whole tree handed out for a partial one is another question).
fn tree_mark(tree: &Tree, parsed_for: Option<&BTreeSet<String>>) -> String {
    let nodes = tree.root_node().descendant_count();
    match parsed_for {
        Some(words) => {
            let words: Vec<&str> = words.iter().map(String::as_str).collect();
            format!("{nodes} around {}", words.join(" "))
        }
        None => format!("{nodes} whole"),
    }
}
