//! The moved code as the text the target gets: the pieces with the edits inside them applied,
//! re-indented to the target's unit, with the target's line endings.

use super::Move;
use super::Piece;
use crate::edit::{self, TextEdit};
use crate::lang::walk_tree;
use crate::refactor::RefactorError;
use crate::text::surgery::{self, Reindent};
use crate::text::{LineIndex, TextStyle};

impl Move<'_> {
    /// The moved pieces as the text added to the target: visibility edits applied, indentation
    /// converted to the target's unit, line endings to the target's (the source's for a new file).
    pub(super) fn moved_block(&self, moved_edits: &[TextEdit]) -> Result<String, RefactorError> {
        let existing = self.target.filter(|t| !surgery::is_blank(&t.text));
        let line_ending = match existing {
            Some(t) => TextStyle::detect(&t.text).line_ending,
            None => self.source_style.line_ending,
        };
        let target_indent = existing
            .filter(|t| surgery::has_indented_line(&t.text))
            .map(|t| TextStyle::detect(&t.text).indent);
        let index = LineIndex::new(&self.source.text);
        let mut block = String::new();
        for (i, piece) in self.pieces.iter().enumerate() {
            let base = piece.bytes.start;
            let local: Vec<TextEdit> = moved_edits
                .iter()
                .filter(|e| piece.bytes.contains(&e.range.start))
                .map(|e| {
                    TextEdit::new(e.range.start - base..e.range.end - base, e.new_text.clone())
                })
                .collect();
            let raw =
                surgery::lines_text(&self.source.text, &index, piece.first_line, piece.last_line);
            let local = edit::validate(&raw, local)?;
            let mut text = edit::apply(&raw, &local);
            if let Some(to) = target_indent
                && surgery::has_indented_line(&text)
            {
                let from = TextStyle::detect(&text).indent;
                let keep = self.string_continuation_rows(piece);
                text = Reindent::units(from, to).block_strict(&text, &keep);
            }
            if i > 0 {
                block.push_str(line_ending);
            }
            block.push_str(&surgery::with_line_endings(&text, line_ending));
        }
        Ok(block)
    }

    /// Rows (0-based, relative to the piece) that start inside a multi-line string literal.
    fn string_continuation_rows(&self, piece: &Piece) -> Vec<usize> {
        let mut rows = Vec::new();
        walk_tree(self.tree, |node| {
            let range = node.byte_range();
            if range.end <= piece.bytes.start || range.start >= piece.bytes.end {
                return false;
            }
            if self.lang.syntax().is_string(node) {
                let (start, end) = (node.start_position().row, node.end_position().row);
                rows.extend((start + 1..=end).filter_map(|r| r.checked_sub(piece.first_line)));
                return false;
            }
            true
        });
        rows
    }
}
