//! Change signature's rewrite of one file the refactor did not start from, as a fact of the
//! file's content ([`Lasting`]): asked by everything else it depends on — the callee (name,
//! owner, old and new signatures, definition and its file's outline), the references engine's
//! verdicts on this file's occurrences, the words its tree is parsed around — so that an
//! unchanged file is neither parsed nor rewritten again, in this process or (on disk) the next.
//! Python only; an outcome cut short by a cancelled request is not kept.

use std::collections::BTreeMap;

use super::call_sites::{Callee, Done, FileOutcome};
use crate::edit::{SourceFile, TextEdit, sha256_hex};
use crate::lang::Language;
use crate::refactor::lasting::{Bytes, Lasting, Reader, lasting_fact_kept_if};
use crate::refactor::{Finding, ParsedFiles};

/// What every file's question of one request shares: the callee without the engine's verdicts
/// (asked per file), in a digest.
pub(super) fn callee_digest(callee: &Callee<'_>) -> String {
    let described = format!(
        "{:?} {} {:?} {} {:?} {:?} {:?} {:?} {:?} {}",
        callee.lang,
        callee.name,
        callee.owner,
        callee.has_receiver,
        callee.old,
        callee.new,
        callee.new_list,
        callee.definition,
        callee.definition_outline,
        callee.engine.is_some()
    );
    sha256_hex(described.as_bytes())
}

/// The engine's verdicts on the occurrences in `path`, in a digest.
fn verdicts_digest(callee: &Callee<'_>, path: &str) -> String {
    let Some(engine) = callee.engine else {
        return "none".to_string();
    };
    // This file's entries only (a range of the sorted sets: not a walk of every file's).
    let this_file = (path.to_string(), 0)..=(path.to_string(), usize::MAX);
    use std::fmt::Write;
    let mut described = String::new();
    for (_, at) in engine.certain.range(this_file.clone()) {
        let _ = write!(described, "c{at};");
    }
    for ((_, at), why) in engine.possible.range(this_file) {
        let _ = write!(described, "p{at}:{why};");
    }
    sha256_hex(described.as_bytes())
}

/// [`rewrite_file`](super::call_sites::rewrite_file) of `file` read through a tree holding the
/// statements around `words` (parsed only when the outcome is not kept).
pub(super) fn rewrite_file(
    callee: &Callee<'_>,
    callee_digest: &str,
    store: &dyn ParsedFiles,
    file: &SourceFile,
    words: &[&str],
    cancel: &crate::cancel::Cancel,
) -> FileOutcome {
    let rewrite = |tree: &tree_sitter::Tree| {
        super::call_sites::rewrite_file(callee, store, file, tree, cancel)
    };
    if callee.lang != Language::Python {
        let tree = store.tree_around_words(callee.lang, file, words);
        return rewrite(&tree);
    }
    let question = format!(
        "rewrite {callee_digest} {} around {}",
        verdicts_digest(callee, &file.path),
        words.join(" ")
    );
    let outcome = lasting_fact_kept_if(store, &file.path, &file.sha256, &question, || {
        // Any tree that holds the statements around the words answers alike (the premise the
        // rewrite has always read partial trees on, checked against full trees): the one the
        // references engine parsed is reused.
        let tree = store.tree_around_words(callee.lang, file, words);
        let outcome = rewrite(&tree);
        let whole = !cancel.is_cancelled();
        (outcome, whole)
    });
    FileOutcome::clone(&outcome)
}

fn encode_edits(out: &mut Bytes, edits: &[TextEdit]) {
    out.num(edits.len() as u64);
    for edit in edits {
        out.num(edit.range.start as u64);
        out.num(edit.range.end as u64);
        out.str(&edit.new_text);
    }
}

fn decode_edits(from: &mut Reader<'_>) -> Option<Vec<TextEdit>> {
    (0..from.count()?)
        .map(|_| {
            let range = from.usize()?..from.usize()?;
            Some(TextEdit::new(range, from.str()?))
        })
        .collect()
}

fn encode_counts(out: &mut Bytes, counts: &BTreeMap<String, usize>) {
    out.num(counts.len() as u64);
    for (name, n) in counts {
        out.str(name);
        out.num(*n as u64);
    }
}

fn decode_counts(from: &mut Reader<'_>) -> Option<BTreeMap<String, usize>> {
    (0..from.count()?)
        .map(|_| Some((from.str()?.to_string(), from.usize()?)))
        .collect()
}

impl Lasting for FileOutcome {
    const TAG: &'static str = "change-signature-file";

    fn encode(&self, out: &mut Bytes) {
        encode_edits(out, &self.edits);
        out.num(self.calls.len() as u64);
        for call in &self.calls {
            encode_edits(out, call);
        }
        self.findings.encode(out);
        out.num(self.updated as u64);
        out.num(self.done.reordered as u64);
        encode_counts(out, &self.done.dropped);
        encode_counts(out, &self.done.defaults);
        encode_counts(out, &self.done.left_to_default);
    }

    fn decode(from: &mut Reader<'_>) -> Option<Self> {
        let edits = decode_edits(from)?;
        let calls = (0..from.count()?)
            .map(|_| decode_edits(from))
            .collect::<Option<Vec<_>>>()?;
        let findings = Vec::<Finding>::decode(from)?;
        let updated = from.usize()?;
        let done = Done {
            reordered: from.usize()?,
            dropped: decode_counts(from)?,
            defaults: decode_counts(from)?,
            left_to_default: decode_counts(from)?,
        };
        Some(FileOutcome {
            edits,
            calls,
            findings,
            updated,
            done,
        })
    }

    fn memory(&self) -> usize {
        let edits = |e: &[TextEdit]| e.iter().map(|e| 48 + e.new_text.len()).sum::<usize>();
        128 + edits(&self.edits)
            + self.calls.iter().map(|c| 24 + edits(c)).sum::<usize>()
            + self.findings.memory()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_outcome_reads_back_as_written() {
        let mut done = Done {
            reordered: 2,
            ..Done::default()
        };
        done.dropped.insert("a".into(), 3);
        done.left_to_default.insert("b".into(), 1);
        let outcome = FileOutcome {
            edits: vec![TextEdit::new(3..9, "x, y"), TextEdit::new(20..20, "")],
            calls: vec![vec![TextEdit::new(3..9, "x, y")], vec![]],
            findings: vec![Finding::warning("a.py", 4, "possible call")],
            updated: 1,
            done,
        };
        let mut out = Bytes::default();
        outcome.encode(&mut out);
        let back = crate::refactor::lasting::decode_all::<FileOutcome>(&out.0).unwrap();
        assert_eq!(format!("{back:?}"), format!("{outcome:?}"));
        for cut in 0..out.0.len() {
            assert!(crate::refactor::lasting::decode_all::<FileOutcome>(&out.0[..cut]).is_none());
        }
    }
}
