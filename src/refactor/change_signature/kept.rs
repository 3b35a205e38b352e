//! Change signature's outcome in one file ([`FileOutcome`]: its edits and findings) asked of the
//! shell's store ([`ParsedFiles::fact`]), so that a second preview of the same change does not
//! rewrite the calls of an unchanged file again. The question names everything
//! `call_sites::rewrite_file` reads besides the file's content: the callee (name, owner,
//! old and new signatures, the definition and its file's outline — the new parameters are in
//! them), the references engine's verdicts on that file, and the tree it reads (its size and
//! the words it was parsed around). Python only: the Rust path keeps rewriting.

use std::sync::Arc;

use tree_sitter::Tree;

use super::call_sites::{Callee, FileOutcome};
use crate::edit::{SourceFile, sha256_hex};
use crate::lang::Language;
use crate::refactor::{Fact, ParsedFiles};

/// What every question of one change shares: the callee, in a digest.
pub(super) struct Asking<'a> {
    store: &'a dyn ParsedFiles,
    callee: String,
    keeps: bool,
}

/// An outcome kept, or the mark of one cut short by a cancel (never reused).
struct Kept(Option<FileOutcome>);

impl<'a> Asking<'a> {
    pub fn new(store: &'a dyn ParsedFiles, callee: &Callee<'_>) -> Asking<'a> {
        // Everything of the callee but the engine's verdicts, which are asked per file.
        let described = format!(
            "{:?} {} {:?} {} {:?} {:?} {} {:?} {:?}",
            callee.lang,
            callee.name,
            callee.owner,
            callee.has_receiver,
            callee.old,
            callee.new,
            callee.new_list,
            callee.definition,
            callee.definition_outline,
        );
        Asking {
            store,
            callee: sha256_hex(described.as_bytes()),
            keeps: callee.lang == Language::Python,
        }
    }

    /// The outcome of rewriting the calls in `file` read through `tree` (parsed around
    /// `words`, or whole when `words` is empty): `rewrite`'s, or the one kept for the same
    /// question. `cancelled` says whether `rewrite` stopped early (its outcome is then not
    /// kept for another request).
    pub fn outcome(
        &self,
        callee: &Callee<'_>,
        file: &SourceFile,
        tree: &Tree,
        words: &[&str],
        cancelled: &dyn Fn() -> bool,
        rewrite: impl Fn() -> FileOutcome,
    ) -> FileOutcome {
        if !self.keeps {
            return rewrite();
        }
        let question = format!(
            "change-signature {} {} {} {}",
            self.callee,
            verdicts_digest(callee, &file.path),
            tree.root_node().descendant_count(),
            words.join(" "),
        );
        let fact = self
            .store
            .fact(&file.path, &file.sha256, &question, &mut || {
                let outcome = rewrite();
                let bytes = bytes_of(&outcome);
                let kept = Kept((!cancelled()).then_some(outcome));
                (Arc::new(kept) as Fact, bytes)
            });
        match fact.downcast_ref::<Kept>() {
            Some(Kept(Some(outcome))) => outcome.clone(),
            _ => rewrite(),
        }
    }
}

/// The digest of the engine's verdicts on the occurrences in the file at `path`.
fn verdicts_digest(callee: &Callee<'_>, path: &str) -> String {
    let Some(engine) = callee.engine else {
        return "no-engine".to_string();
    };
    let from = (path.to_string(), 0);
    let to = (path.to_string(), usize::MAX);
    let certain: Vec<usize> = engine
        .certain
        .range(from.clone()..=to.clone())
        .map(|(_, at)| *at)
        .collect();
    let possible: Vec<(&usize, &String)> = engine
        .possible
        .range(from..=to)
        .map(|((_, at), why)| (at, why))
        .collect();
    sha256_hex(format!("{certain:?} {possible:?}").as_bytes())
}

/// An estimate of the memory an outcome holds, in bytes.
fn bytes_of(outcome: &FileOutcome) -> usize {
    let edits = |edits: &[crate::edit::TextEdit]| -> usize {
        edits.iter().map(|e| 48 + e.new_text.len()).sum()
    };
    256 + edits(&outcome.edits)
        + outcome.calls.iter().map(|c| 24 + edits(c)).sum::<usize>()
        + outcome
            .findings
            .iter()
            .map(|f| 96 + f.message.len() + f.file.len())
            .sum::<usize>()
}
