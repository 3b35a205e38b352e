//! candor's own checks of every result, from either backend, in milliseconds: what it knows
//! about the refactor that was asked for, held against the files it produced.
//! - inline: no call of the function is left where its definition was removed, and each inlined
//!   call still uses the arguments it passed (`scale(factor, 2)` must not become `2 * 2`);
//! - extract: the new function is defined once and called where the selection was;
//! - extract and change signature: every call of the function passes what its definition takes;
//! - Python extract: no local of the new function is only ever updated in place;
//! - extract variable: the new local is bound once and read; inline variable: no read of the
//!   local is left without a binding;
//! - safe delete: no certain call of the deleted function is left;
//! - introduce parameter: every certain call passes what the new definition takes.
//!
//! Whether the result parses is checked where every plan is made (`refactor::findings`).
//! Pure: the project is read through [`Sources`], the result through the plan's changes.

mod arity;
mod extract;
mod inline;
mod introduced;
mod target;
mod unbound;
mod variables;

use std::collections::BTreeMap;
use std::ops::Range;

use crate::edit::{FileChange, SourceFile};
use crate::lang::Language;
use crate::refactor::{Finding, Request, Severity, Sources, guards};

pub use unbound::python_unbound_updates;

/// The findings of the cross-checks for a computed result of `request` in `lang`, leaving out
/// those on a line where `existing` already has a warning or an error (the refactor said it
/// itself).
pub fn check(
    request: &Request,
    lang: Language,
    changes: &[FileChange],
    sources: &dyn Sources,
    existing: &[Finding],
) -> Vec<Finding> {
    let project = Project {
        lang,
        changes,
        sources,
    };
    let mut findings = match request {
        Request::Inline(r) => inline::check(&project, r),
        Request::Extract(r) => {
            let mut found = extract::check(&project, r);
            found.extend(guards::dropped_result::check(lang, changes, r, existing));
            found
        }
        Request::ChangeSignature(r) => arity::check_changed(&project, &r.file, &r.function),
        Request::ExtractVariable(r) => variables::check_extract(&project, r),
        Request::InlineVariable(r) => variables::check_inline(&project, r),
        Request::SafeDelete(r) => introduced::deleted(&project, r),
        Request::IntroduceParameter(r) => introduced::introduced(&project, r),
        Request::Move(_) | Request::Rename(_) => {
            guards::public_api::check(request, lang, changes, sources)
        }
    };
    findings.retain(|f| {
        !existing
            .iter()
            .any(|e| e.file == f.file && e.line == f.line && e.severity >= Severity::Warning)
    });
    findings
}

/// The project as the result would leave it.
pub(crate) struct Project<'a> {
    pub lang: Language,
    pub changes: &'a [FileChange],
    pub sources: &'a dyn Sources,
}

impl Project<'_> {
    pub fn change(&self, path: &str) -> Option<&FileChange> {
        self.changes.iter().find(|c| c.path == path)
    }

    /// Every file of the language whose text after the refactor contains `word`, with that text,
    /// in path order (changed files as the result has them, created ones included).
    pub fn files_mentioning_after(&self, word: &str) -> Vec<(String, String)> {
        let mut files: BTreeMap<String, String> = self
            .sources
            .files_mentioning(self.lang, word)
            .map(|m| m.files)
            .unwrap_or_default()
            .into_iter()
            .map(|f: SourceFile| (f.path, f.text))
            .collect();
        for change in self.changes {
            if Language::from_path(&change.path) != Some(self.lang) {
                continue;
            }
            if change.after.contains(word) {
                files.insert(change.path.clone(), change.after.clone());
            } else {
                files.remove(&change.path);
            }
        }
        files.into_iter().collect()
    }
}

/// Where a byte range of a file before the refactor is after it: edits overlapping the range
/// widen it to everything they wrote.
pub(crate) fn after_range(change: &FileChange, range: Range<usize>) -> Range<usize> {
    // (before range, after range) of every edit.
    let mut shift: isize = 0;
    let spans: Vec<(Range<usize>, Range<usize>)> = change
        .edits
        .iter()
        .map(|e| {
            let start = (e.range.start as isize + shift) as usize;
            shift += e.new_text.len() as isize - e.range.len() as isize;
            (e.range.clone(), start..start + e.new_text.len())
        })
        .collect();
    // An offset outside every edit moves with the edits before it; one inside an edit lands
    // where that edit's text starts.
    let map = |offset: usize| -> usize {
        let mut shift: isize = 0;
        for (before, after) in &spans {
            if before.start < offset && offset < before.end {
                return after.start;
            }
            if before.end <= offset {
                shift = after.end as isize - before.end as isize;
            }
        }
        (offset as isize + shift) as usize
    };
    let mut start = map(range.start);
    let mut end = map(range.end).max(start);
    for (before, after) in &spans {
        let overlaps = (before.start < range.end && before.end > range.start)
            || (before.is_empty() && range.start <= before.start && before.start <= range.end);
        if overlaps {
            start = start.min(after.start);
            end = end.max(after.end);
        }
    }
    start..end.min(change.after.len())
}

/// 1-based line of a byte offset.
pub(crate) fn line_at(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::TextEdit;

    #[test]
    fn ranges_follow_the_edits() {
        let source = SourceFile::from_text("a.py", "one\ny = scale(f, 2)\nthree\n");
        // Line 2 replaced, a line inserted at the top.
        let change = FileChange::modify(
            &source,
            vec![
                TextEdit::insert(0, "zero\n"),
                TextEdit::new(4..20, "y = 2 * 2\n"),
            ],
        )
        .unwrap();
        assert_eq!(change.after, "zero\none\ny = 2 * 2\nthree\n");
        let call = source.text.find("scale").unwrap();
        let range = after_range(&change, call..call + 11);
        assert_eq!(&change.after[range], "y = 2 * 2\n");
        // Untouched text only moves.
        let three = source.text.find("three").unwrap();
        let range = after_range(&change, three..three + 5);
        assert_eq!(&change.after[range], "three");
        assert_eq!(
            line_at(&change.after, change.after.find("three").unwrap()),
            4
        );
    }
}
