//! candor's own checks of every result, from either backend, in milliseconds: what it knows
//! about the refactor that was asked for, held against the files it produced.
//! - inline: no call of the function is left where its definition was removed, each inlined
//!   call still uses the arguments it passed (`scale(factor, 2)` must not become `2 * 2`), and
//!   (Python) no generator's `yield` is pasted into a caller;
//! - extract: the new function is defined once and called where the selection was, and (Rust)
//!   a borrow it returns gets a lifetime from its parameters (E0106);
//! - extract and change signature: every call of the function passes what its definition takes;
//! - Python extract: no local of the new function is only ever updated in place;
//! - extract variable: the new local is bound once and read, and (Rust) not bound by value to a
//!   place (`let s = *v;` moves out of a borrow); inline variable: no read of the local is left
//!   without a binding;
//! - safe delete: no certain call of the deleted function is left;
//! - Rust rename: no documentation example still calls the old name through its type;
//! - introduce parameter: every certain call passes what the new definition takes;
//! - Python move: no dotted path in a string (a `mock.patch` target) still names the moved code
//!   or a name it reads under the module it left;
//! - the behaviour guards (`refactor::guards`): an extract's call keeps what the selection
//!   handed on; a move or rename that loses a public name says how to keep it.
//!
//! Whether the result parses is checked where every plan is made (`refactor::findings`).
//! Pure: the project is read through [`Sources`], the result through the plan's changes.

mod arity;
mod around;
mod doctests;
mod extract;
mod generators;
mod generics;
mod imports;
mod inline;
mod inline_traits;
mod introduced;
mod introspection;
mod jumps;
mod keywords;
mod lifetimes;
mod members;
mod patches;
mod patterns;
mod public;
mod returns;
mod traits;
mod unbound;
mod variables;
mod wording;

use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::ops::Range;

use tree_sitter::Tree;

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
    let project = Project::new(lang, changes, sources);
    let names = match request {
        Request::Rename(r) if members::asks_trees(lang, r) => {
            Some([r.symbol.name.as_str(), r.new_name.as_str()])
        }
        _ => None,
    };
    project.prepare_trees_around_edits(names);
    let mut findings = match request {
        Request::Inline(r) => {
            let mut found = inline::check(&project, r);
            found.extend(returns::check(&project, r));
            found.extend(public::check(&project, r));
            found.extend(inline_traits::check(&project, r));
            found.extend(generators::check(&project, r));
            found
        }
        Request::Extract(r) => {
            let mut found = extract::check(&project, r);
            // The heuristic diagnoses the jumps of its selection itself (or refuses them as the
            // syntax errors they make in Python): one finding per jump is enough.
            if existing.iter().any(|f| {
                f.kind == Some(crate::refactor::extract::JUMP_OUTSIDE) || f.is_syntax_error()
            }) {
                found.retain(|f| f.kind != Some(wording::JUMP_LEAVES));
            }
            found.extend(guards::dropped_result::check(lang, changes, r, existing));
            found
        }
        Request::ChangeSignature(r) => arity::check_changed(&project, &r.file, &r.function),
        Request::ExtractVariable(r) => variables::check_extract(&project, r),
        Request::InlineVariable(r) => variables::check_inline(&project, r),
        Request::SafeDelete(r) => introduced::deleted(&project, r),
        Request::IntroduceParameter(r) => introduced::introduced(&project, r),
        Request::Move(r) => {
            let mut found = traits::check(&project, r);
            found.extend(patches::check(&project, r));
            found.extend(introspection::check_move(&project, r));
            found.extend(guards::public_api::check(request, lang, changes, sources));
            found
        }
        Request::Rename(r) => {
            let mut found = members::check(&project, r);
            found.extend(keywords::check(&project, r));
            found.extend(doctests::check(&project, r));
            found.extend(introspection::check_rename(&project, r));
            found.extend(guards::public_api::check(request, lang, changes, sources));
            found
        }
    };
    // What no refactor may write, whichever was asked.
    findings.extend(patterns::check(&project));
    findings.extend(imports::check(&project));
    findings.retain(|f| {
        !existing
            .iter()
            .any(|e| e.file == f.file && e.line == f.line && e.severity >= Severity::Warning)
    });
    findings
}

/// A change's text before (`after` false) or after, as the file it is (its path, BOM and
/// sha256); `None` for the text before of a created file.
pub(crate) fn text_of(change: &FileChange, after: bool) -> Option<SourceFile> {
    let (text, sha256) = match (after, &change.sha256_before) {
        (true, _) => (&change.after, &change.sha256_after),
        (false, Some(sha256)) => (&change.before, sha256),
        (false, None) => return None,
    };
    Some(SourceFile {
        path: change.path.clone(),
        text: text.as_str().into(),
        bom: change.bom,
        sha256: sha256.clone(),
    })
}

/// The project as the result would leave it, with the trees of the changed files: each text is
/// parsed once, whatever the number of checks that ask.
pub(crate) struct Project<'a> {
    pub lang: Language,
    pub changes: &'a [FileChange],
    pub sources: &'a dyn Sources,
    /// (path, after?) → tree.
    trees: RefCell<HashMap<(String, bool), Tree>>,
}

impl<'a> Project<'a> {
    pub fn new(lang: Language, changes: &'a [FileChange], sources: &'a dyn Sources) -> Project<'a> {
        Project {
            lang,
            changes,
            sources,
            trees: RefCell::new(HashMap::new()),
        }
    }

    /// A tree of a change's text before or after that answers every question about the
    /// statements around the whole-word occurrences of `words` and the blocks enclosing them
    /// (`ParsedFiles::tree_around_words`): the full tree when a check already has it or the
    /// syntax check kept the result's, else a partial tree (the store keeps it by content).
    /// Words with no whole-word occurrence in the text add nothing to the tree and are left
    /// out of the question, so that the store's tree around the words that are there serves it.
    pub fn tree_around(&self, change: &FileChange, after: bool, words: &[&str]) -> Tree {
        if let Some(tree) = self.known_tree(change, after) {
            return tree;
        }
        let lang = Language::from_path(&change.path).unwrap_or(self.lang);
        let Some(file) = text_of(change, after) else {
            return self.tree(change, false);
        };
        crate::refactor::sources::tree_around_present_words(
            self.sources.parsed(),
            lang,
            &file,
            words,
        )
    }

    /// The full tree of a change's text that a check already asked for, or (after) the result's
    /// tree the syntax check kept, or (before) the store's full tree of the file on disk; the
    /// tree before of a created file (empty). `None` otherwise.
    fn known_tree(&self, change: &FileChange, after: bool) -> Option<Tree> {
        if let Some(tree) = self.trees.borrow().get(&(change.path.clone(), after)) {
            return Some(tree.clone());
        }
        let lang = Language::from_path(&change.path).unwrap_or(self.lang);
        if after {
            return self
                .sources
                .parsed()
                .result_tree(lang, &change.path, &change.sha256_after);
        }
        match &change.sha256_before {
            Some(sha256) => self
                .sources
                .parsed()
                .known(&change.path, sha256)
                .map(|known| known.tree),
            None => Some(self.tree(change, false)),
        }
    }

    /// The tree before a change to a file on disk (`sha256` before) that its result is re-parsed
    /// from around the edits: the one a check already asked for, or the store's whole tree when
    /// the edits are few (the definition's file a search parsed: a new parameter of a function
    /// with 100,000 calls in its own file is one edit, and 1.2 s for a whole parse). `None`: one
    /// parse of the result costs less than parsing the text before and then re-parsing it
    /// around every edit (a change of signature with 100,000 calls: 0.5 s).
    fn tree_to_reparse_from(&self, change: &FileChange, sha256: &str) -> Option<Tree> {
        if (self.trees.borrow()).contains_key(&(change.path.clone(), false)) {
            return Some(self.tree(change, false));
        }
        if change.edits.len() >= crate::refactor::findings::WHOLE_FROM_EDITS {
            return None;
        }
        let known = self.sources.parsed().known(&change.path, sha256)?;
        Some(known.tree)
    }

    /// The tree of a change's text before (`after` false) or after the refactor, parsed in the
    /// language of its path (the request's when the path says none).
    pub fn tree(&self, change: &FileChange, after: bool) -> Tree {
        let key = (change.path.clone(), after);
        if let Some(tree) = self.trees.borrow().get(&key) {
            return tree.clone();
        }
        let lang = Language::from_path(&change.path).unwrap_or(self.lang);
        // The result's tree, when the plan's syntax check parsed it and the store kept it.
        let kept = match after {
            true => self
                .sources
                .parsed()
                .result_tree(lang, &change.path, &change.sha256_after),
            false => None,
        };
        let tree = match (&change.sha256_before, after) {
            _ if let Some(tree) = kept => tree,
            // The text on disk: the store's tree when it has one (the next preview asks again).
            (Some(sha256), false) => {
                let before = SourceFile {
                    path: change.path.clone(),
                    text: change.before.as_str().into(),
                    bom: change.bom,
                    sha256: sha256.clone(),
                };
                self.sources.parsed().tree_in_passing(lang, &before)
            }
            // The result of a change to a file on disk: re-parsed from the tree before, only
            // around its edits (as the syntax check of every plan does), when that tree is at
            // hand ([`Project::tree_to_reparse_from`]).
            (Some(sha256), true)
                if let Some(before) = self.tree_to_reparse_from(change, sha256) =>
            {
                let edits = change
                    .edits
                    .iter()
                    .map(|e| (e.range.clone(), e.new_text.as_str()));
                crate::lang::incremental::reparse_edits(
                    lang,
                    &change.before,
                    &before,
                    edits,
                    &change.after,
                )
            }
            _ => lang.parse(if after { &change.after } else { &change.before }),
        };
        self.trees.borrow_mut().insert(key, tree.clone());
        tree
    }

    /// The changes of files in the request's language.
    pub fn own_changes(&self) -> impl Iterator<Item = &'a FileChange> + '_ {
        self.changes
            .iter()
            .filter(|c| Language::from_path(&c.path) == Some(self.lang))
    }

    pub fn change(&self, path: &str) -> Option<&FileChange> {
        self.changes.iter().find(|c| c.path == path)
    }

    /// An inline's function as its file had it before (with that file's change): what the
    /// inline checks hold the result against.
    pub fn inlined(
        &self,
        request: &crate::refactor::InlineRequest,
    ) -> Option<(&FileChange, crate::lang::callee::Function)> {
        let change = self.change(&request.file)?;
        let function = crate::lang::callee::Function::find_in(
            self.lang,
            &request.file,
            &change.before,
            &self.tree(change, false),
            &request.function,
        )?;
        Some((change, function))
    }

    /// Every file of the language whose text after the refactor contains `word`, with that text,
    /// in path order (changed files as the result has them, created ones included). The texts
    /// are shared, not copied: a search touches megabytes of files.
    pub fn files_mentioning_after(&self, word: &str) -> Vec<(String, ResultText<'a>)> {
        let mut files: BTreeMap<String, ResultText<'a>> = self
            .sources
            .files_mentioning(self.lang, word)
            .map(|m| m.files)
            .unwrap_or_default()
            .into_iter()
            .map(|f: SourceFile| (f.path.clone(), ResultText::Unchanged(f)))
            .collect();
        for change in self.changes {
            if Language::from_path(&change.path) != Some(self.lang) {
                continue;
            }
            if change.after.contains(word) {
                files.insert(change.path.clone(), ResultText::Changed(change));
            } else {
                files.remove(&change.path);
            }
        }
        files.into_iter().collect()
    }
}

/// The text of one file of the result ([`Project::files_mentioning_after`]), read as a `str`.
#[derive(Debug, Clone)]
pub(crate) enum ResultText<'a> {
    /// A file the refactor left as it was: as the project's search read it.
    Unchanged(SourceFile),
    /// A file the refactor changed or created: its text after.
    Changed(&'a FileChange),
}

impl std::ops::Deref for ResultText<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        match self {
            ResultText::Unchanged(file) => &file.text,
            ResultText::Changed(change) => &change.after,
        }
    }
}

/// Where a byte range of a file before the refactor is after it: edits overlapping the range
/// widen it to everything they wrote. Builds an [`AfterMap`]; a check that maps many ranges of
/// one change builds the map once.
pub(crate) fn after_range(change: &FileChange, range: Range<usize>) -> Range<usize> {
    AfterMap::new(change).range(range)
}

/// The edits of one change as (before range, after range) pairs, in order: maps a range of the
/// text before to the text after in `O(log edits)`.
pub(crate) struct AfterMap {
    spans: Vec<(Range<usize>, Range<usize>)>,
    after_len: usize,
}

impl AfterMap {
    pub fn new(change: &FileChange) -> AfterMap {
        let mut shift: isize = 0;
        let spans = change
            .edits
            .iter()
            .map(|e| {
                let start = (e.range.start as isize + shift) as usize;
                shift += e.new_text.len() as isize - e.range.len() as isize;
                (e.range.clone(), start..start + e.new_text.len())
            })
            .collect();
        AfterMap {
            spans,
            after_len: change.after.len(),
        }
    }

    /// The (before, after) range of every edit, in order.
    pub fn spans(&self) -> &[(Range<usize>, Range<usize>)] {
        &self.spans
    }

    /// An offset outside every edit moves with the edits before it; one inside an edit lands
    /// where that edit's text starts.
    fn offset(&self, offset: usize) -> usize {
        // The edits are sorted and do not overlap: those before `index` end at or before it.
        let index = self
            .spans
            .partition_point(|(before, _)| before.end <= offset);
        if let Some((before, after)) = self.spans.get(index)
            && before.start < offset
            && offset < before.end
        {
            return after.start;
        }
        let shift = match index.checked_sub(1).map(|i| &self.spans[i]) {
            Some((before, after)) => after.end as isize - before.end as isize,
            None => 0,
        };
        (offset as isize + shift) as usize
    }

    /// Whether an edit overlaps `range` of the text before.
    pub fn touches(&self, range: &Range<usize>) -> bool {
        let first = self
            .spans
            .partition_point(|(before, _)| before.end <= range.start);
        self.spans
            .get(first)
            .is_some_and(|(before, _)| before.start < range.end)
    }

    /// Where `range` of the text before is in the text after.
    pub fn range(&self, range: Range<usize>) -> Range<usize> {
        let mut start = self.offset(range.start);
        let mut end = self.offset(range.end).max(start);
        let first = self
            .spans
            .partition_point(|(before, _)| before.end < range.start);
        for (before, after) in &self.spans[first..] {
            if before.start > range.end {
                break;
            }
            let overlaps = (before.start < range.end && before.end > range.start)
                || (before.is_empty() && range.start <= before.start);
            if overlaps {
                start = start.min(after.start);
                end = end.max(after.end);
            }
        }
        start..end.min(self.after_len)
    }
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
