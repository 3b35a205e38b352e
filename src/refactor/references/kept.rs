//! The references engine's answers about one file, asked of the shell's store
//! ([`ParsedFiles::fact`]) so that a file whose content did not change is not judged again (a
//! second preview, another refactor of the same symbol). What the engine learns from a file is
//! not kept: its question would hold the reach, which grows with every file learned from. Each question
//! names everything its answer depends on besides the file's content: the target, what the
//! project is known to reach it through ([`Reach`], which is all the judge knows of the other
//! files: a re-export in a package's `__init__.py` is in it), the word, and the tree it is read
//! from (whole, or partial around which words). Both languages: the Rust judge, too, reads nothing
//! of the project but its [`Reach`] (the modules that export the target, learned from every
//! candidate's `use`s and re-exports, and the types that have a member, from the project's trait
//! impls), the target, the word, and the file through the tree it is handed. The answer is plain
//! data (`Vec<Found>`: ranges, lines, roles, verdicts).

use std::collections::BTreeSet;
use std::sync::Arc;

use tree_sitter::Tree;

use super::super::{Fact, ParsedFiles};
use crate::edit::{SourceFile, sha256_hex};
use crate::lang::refs::{Found, Reach, Target};

/// What every question of one search shares: the target, in a digest.
pub(super) struct Asking<'a> {
    store: &'a dyn ParsedFiles,
    target: String,
}

impl<'a> Asking<'a> {
    pub fn new(store: &'a dyn ParsedFiles, target: &Target) -> Asking<'a> {
        Asking {
            store,
            target: sha256_hex(format!("{target:?}").as_bytes()),
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
