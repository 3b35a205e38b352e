//! The file changes of a move: the target gets the imports the moved code needs and the code
//! itself; the source loses the code and the imports it no longer needs and gets its import back;
//! other files get their module declarations and rewritten paths. Insertions at one point merge
//! (in order); an insertion strictly inside a removed range moves to its start.

use std::collections::BTreeMap;
use std::ops::Range;

use super::carry::ImportBack;
use super::{Move, internal, python};
use crate::edit::{ChangeSetBuilder, FileChange, SourceFile, TextEdit};
use crate::honesty::Tool;
use crate::lang::Language;
use crate::lang::python::imports as py_imports;
use crate::lang::rust::imports::line_insertion;
use crate::lang::rust::items::{is_file_mod, is_use};
use crate::refactor::RefactorError;
use crate::refactor::sites::{Site, SiteKind, SiteTags};
use crate::text::TextStyle;
use crate::text::surgery;

impl Move<'_> {
    /// The changes of the move, where the moved block starts in the target's new text, and the
    /// sites: each rewrite of a third file's import or path.
    pub(super) fn assemble(
        &self,
        back: &ImportBack,
    ) -> Result<(Vec<FileChange>, usize, Vec<Site>), RefactorError> {
        let block = self.moved_block(&back.moved_edits)?;
        let mut builder = ChangeSetBuilder::new();
        let block_start = self.place_in_target(&mut builder, back, &block)?;
        self.edit_source(&mut builder, back);
        let mut tags = SiteTags::new();
        for (file, edits) in &back.other_edits {
            for edit in merge_same_point(edits.clone()) {
                tags.tag(&file.path, vec![edit.clone()], SiteKind::Import);
                builder.edit(&file.path, edit);
            }
        }
        let mut loaded: BTreeMap<&str, &SourceFile> = BTreeMap::new();
        loaded.insert(&self.source.path, self.source);
        if let Some(target) = self.target {
            loaded.insert(&self.target_path, target);
        }
        for (file, _) in &back.other_edits {
            loaded.insert(&file.path, file);
        }
        let changes = builder.build(|path| loaded.get(path).copied())?;
        let sites = tags.finish(Tool::MoveToFile, |path| loaded.get(path).map(|f| &*f.text));
        Ok((changes, block_start, sites))
    }

    /// Creates the target (or fills a blank one) or adds the imports and the block to it;
    /// returns the block's offset in the target's new text.
    fn place_in_target(
        &self,
        builder: &mut ChangeSetBuilder,
        back: &ImportBack,
        block: &str,
    ) -> Result<usize, RefactorError> {
        let Some(target) = self.target.filter(|t| !surgery::is_blank(&t.text)) else {
            let (text, block_start) = self.new_target_text(back, block);
            match self.target {
                None => {
                    builder.create(&self.target_path, text);
                }
                Some(blank) => {
                    builder.edit(&self.target_path, TextEdit::new(0..blank.text.len(), text));
                }
            }
            return Ok(block_start);
        };
        let tree = self
            .target_tree
            .ok_or_else(|| internal("target tree missing"))?;
        let line_ending = TextStyle::detect(&target.text).line_ending;
        let before = match self.lang {
            Language::Python => py_imports::main_guard_start(tree, &target.text),
            Language::Rust => crate::lang::rust::items::test_module_start(tree, &target.text),
        };
        let separator = match self.lang {
            Language::Python => python::separator(self, tree, before),
            Language::Rust => 1,
        };
        let placement = surgery::place_block(&target.text, block, before, separator, line_ending);
        let mut edits = back.target_edits.clone();
        if !back.target_imports.is_empty() {
            let removed: Vec<Range<usize>> = edits.iter().map(|e| e.range.clone()).collect();
            let statement =
                surgery::with_line_endings(&back.target_imports.join("\n"), line_ending);
            let (at, text) = match self.lang {
                Language::Python => py_imports::import_insertion(
                    tree,
                    &target.text,
                    &statement,
                    line_ending,
                    &removed,
                ),
                Language::Rust => line_insertion(
                    tree,
                    &target.text,
                    &statement,
                    line_ending,
                    &removed,
                    is_use,
                    is_file_mod,
                ),
            };
            let at = removed
                .iter()
                .find(|r| r.start < at && at < r.end)
                .map_or(at, |r| r.start);
            edits.push(TextEdit::insert(at, text));
        }
        let start = placement.edit.range.start;
        let shift: isize = edits
            .iter()
            .filter(|e| e.range.end <= start)
            .map(|e| e.new_text.len() as isize - e.range.len() as isize)
            .sum();
        edits.push(placement.edit.clone());
        for edit in merge_same_point(edits) {
            builder.edit(&self.target_path, edit);
        }
        Ok((placement.block_start as isize + shift).max(0) as usize)
    }

    /// The text of a created (or blank) target: its header (Python's `__future__` imports),
    /// the imports, then the block; and the block's offset in it.
    fn new_target_text(&self, back: &ImportBack, block: &str) -> (String, usize) {
        let line_ending = self.source_style.line_ending;
        let futures = match (self.lang, self.target) {
            (Language::Python, None) => python::future_lines(self),
            _ => Vec::new(),
        };
        let groups: Vec<String> = [futures, back.target_imports.clone()]
            .into_iter()
            .filter(|g| !g.is_empty())
            .map(|g| {
                g.iter()
                    .map(|line| surgery::with_line_endings(&format!("{line}\n"), line_ending))
                    .collect::<String>()
            })
            .collect();
        if groups.is_empty() {
            return (block.to_string(), 0);
        }
        let mut text = groups.join(line_ending);
        let blank_lines = match self.lang {
            Language::Python => python::created_separator(self),
            Language::Rust => 1,
        };
        text.push_str(&line_ending.repeat(blank_lines));
        let block_start = text.len();
        text.push_str(block);
        (text, block_start)
    }

    /// The source: the pieces go, the imports it no longer needs go (with the blank lines that
    /// went with them, unless something is inserted right there), its import back comes in.
    fn edit_source(&self, builder: &mut ChangeSetBuilder, back: &ImportBack) {
        let insert_points: Vec<usize> = back.source_inserts.iter().map(|(at, _)| *at).collect();
        let mut deleted: Vec<Range<usize>> = self.removals.clone();
        let mut removals: Vec<TextEdit> = Vec::new();
        for removal in &back.source_removals {
            let clashes = |edits: &[TextEdit]| {
                edits.iter().any(|e| {
                    insert_points
                        .iter()
                        .any(|p| e.range.start < *p && *p < e.range.end)
                        || deleted.iter().any(|d| overlaps(d, &e.range))
                        || back.source_edits.iter().any(|s| {
                            overlaps(&s.range, &e.range) || e.range.contains(&s.range.start)
                        })
                })
            };
            let chosen = if clashes(&removal.wide) {
                &removal.narrow
            } else {
                &removal.wide
            };
            if chosen
                .iter()
                .any(|e| deleted.iter().any(|d| overlaps(d, &e.range)))
            {
                continue;
            }
            deleted.extend(chosen.iter().map(|e| e.range.clone()));
            removals.extend(chosen.iter().cloned());
        }
        for range in &self.removals {
            builder.edit(&self.source.path, TextEdit::delete(range.clone()));
        }
        let touched: Vec<usize> = insert_points
            .iter()
            .copied()
            .chain(back.source_edits.iter().map(|e| e.range.start))
            .collect();
        for range in stranded_blank_lines(&self.source.text, &deleted, &touched) {
            removals.push(TextEdit::delete(range));
        }
        for edit in removals {
            builder.edit(&self.source.path, edit);
        }
        for (at, text) in merge_inserts(&back.source_inserts, &deleted) {
            builder.edit(&self.source.path, TextEdit::insert(at, text));
        }
        for edit in &back.source_edits {
            builder.edit(&self.source.path, edit.clone());
        }
    }
}

/// The blank lines that would open the file or double a blank line once the whole-line
/// `deleted` ranges go (imports removed one statement at a time leave the blank line that
/// followed their group); none where something is inserted or edited (`touched`).
fn stranded_blank_lines(
    text: &str,
    deleted: &[Range<usize>],
    touched: &[usize],
) -> Vec<Range<usize>> {
    let mut runs: Vec<Range<usize>> = deleted.to_vec();
    runs.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::new();
    for run in runs {
        match merged.last_mut() {
            Some(last) if run.start <= last.end => last.end = last.end.max(run.end),
            _ => merged.push(run),
        }
    }
    let at_line_start = |at: usize| at == 0 || text[..at].ends_with('\n');
    let mut stranded = Vec::new();
    for run in &merged {
        if !at_line_start(run.start) || !at_line_start(run.end) || run.end >= text.len() {
            continue;
        }
        let before_blank = run.start == 0 || {
            let above = surgery::line_start(text, run.start - 1);
            surgery::is_blank(&text[above..run.start])
        };
        if !before_blank {
            continue;
        }
        let mut end = run.end;
        while end < text.len() {
            let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
            if !surgery::is_blank(&text[end..line_end]) {
                break;
            }
            end = line_end;
        }
        let free = |at: usize| !(run.start..=end).contains(&at);
        if end > run.end
            && touched.iter().all(|t| free(*t))
            && !merged.iter().any(|m| m.start > run.start && m.start < end)
        {
            stranded.push(run.end..end);
        }
    }
    stranded
}

fn overlaps(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

/// Insertions at one offset become one (in the given order); an insertion strictly inside a
/// removed range moves to its start.
pub(super) fn merge_inserts(
    inserts: &[(usize, String)],
    removals: &[Range<usize>],
) -> Vec<(usize, String)> {
    let mut merged: Vec<(usize, String)> = Vec::new();
    for (at, text) in inserts {
        let at = removals
            .iter()
            .find(|r| r.start < *at && *at < r.end)
            .map_or(*at, |r| r.start);
        match merged.iter_mut().find(|(a, _)| *a == at) {
            Some((_, existing)) => existing.push_str(text),
            None => merged.push((at, text.clone())),
        }
    }
    merged
}

/// Pure insertions at one offset become one (in the given order); other edits stay as they are.
pub(super) fn merge_same_point(edits: Vec<TextEdit>) -> Vec<TextEdit> {
    let mut merged: Vec<TextEdit> = Vec::new();
    for edit in edits {
        if edit.range.is_empty()
            && let Some(existing) = merged
                .iter_mut()
                .find(|e| e.range.is_empty() && e.range.start == edit.range.start)
        {
            existing.new_text.push_str(&edit.new_text);
            continue;
        }
        merged.push(edit);
    }
    merged
}
