//! Python's syntax errors that tree-sitter-python lets through: empty blocks and indentation
//! Python refuses.

use tree_sitter::Tree;

use crate::lang::lex::{Lexed, opens_python_block};
use crate::lang::{SyntaxError, node_text, walk_tree};

/// `def f():` followed by nothing indented parses without an error node in tree-sitter-python;
/// Python says "expected an indented block". Reports each such block (comments do not count).
///
/// A block follows the `:` of its header, so a node whose text has no `:` holds no block and is
/// not walked into, unless it holds an error (recovery may drop the `:`).
pub fn empty_blocks(tree: &Tree, text: &str) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    walk_tree(tree, |node| {
        if node.kind() == "block" {
            let mut cursor = node.walk();
            let has_statement = node
                .named_children(&mut cursor)
                .any(|c| c.kind() != "comment");
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
        node.has_error() || memchr::memchr(b':', node_text(node, text).as_bytes()).is_some()
    });
    errors
}

/// Indentation that Python rejects but tree-sitter-python reads leniently: an indent after a
/// line that opens no block ("unexpected indent"), no indent after one that does ("expected an
/// indented block"), and a dedent to a level that was never opened ("unindent does not match
/// any outer indentation level"). Works on logical lines, so brackets and strings spanning lines
/// are fine.
pub fn indentation_errors(text: &str, lexed: &Lexed) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    let mut levels: Vec<usize> = vec![0];
    let mut opens_block = false;
    let bounds = lexed.logical_lines.iter().copied().zip(
        lexed
            .logical_lines
            .iter()
            .copied()
            .skip(1)
            .chain(std::iter::once(text.len())),
    );
    let mut physical_line = 1;
    let mut counted_to = 0;
    for (start, end) in bounds {
        physical_line += memchr::memchr_iter(b'\n', &text.as_bytes()[counted_to..start]).count();
        counted_to = start;
        let line = &text[start..end];
        let content = line.trim_start_matches([' ', '\t', '\x0c']);
        if content.trim().is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = &line[..line.len() - content.len()];
        let width = crate::text::indent_width(indent);
        let top = *levels.last().unwrap_or(&0);
        let mut error = |description: &str| {
            errors.push(SyntaxError {
                line: physical_line,
                column: indent.chars().count() + 1,
                description: description.to_string(),
            });
        };
        if opens_block {
            if width > top {
                levels.push(width);
            } else {
                error("expected an indented block");
            }
        } else if width > top {
            error("unexpected indent");
        } else if width < top {
            while levels.last().is_some_and(|l| *l > width) {
                levels.pop();
            }
            if levels.last() != Some(&width) {
                error("unindent does not match any outer indentation level");
                levels.push(width);
            }
        }
        opens_block = opens_python_block(text, lexed, start, end);
    }
    errors
}
