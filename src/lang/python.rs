//! Python's quirks: its reserved words, and the empty blocks tree-sitter-python accepts but
//! Python refuses.

use tree_sitter::Tree;

use super::{SyntaxError, walk_tree};

/// Hard keywords. Soft keywords (`match`, `case`, `type`, `_`) stay usable as names.
pub(super) const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class",
    "continue", "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if",
    "import", "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try",
    "while", "with", "yield",
];

/// `def f():` followed by nothing indented parses without an error node in tree-sitter-python;
/// Python says "expected an indented block". Reports each such block (comments do not count).
pub(super) fn empty_blocks(tree: &Tree) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    walk_tree(tree, |node| {
        if node.kind() == "block" {
            let mut cursor = node.walk();
            let has_statement = node.named_children(&mut cursor).any(|c| c.kind() != "comment");
            if !has_statement {
                // Report on the line of the header that owns the block.
                let owner = node.parent().unwrap_or(node);
                errors.push(SyntaxError {
                    line: owner.start_position().row + 1,
                    column: owner.start_position().column + 1,
                    description: "expected an indented block".to_string(),
                });
            }
        }
        true
    });
    errors
}
