//! Python statements and blocks: which nodes hold statements, what a statement is called in a
//! message, docstrings, and the control flow a statement contains.

use std::ops::Range;

use tree_sitter::Node;

use crate::lang::syntax::{BlockOwner, Flow, FlowKind};
use crate::lang::{node_text, walk_node};

pub fn is_comment(node: Node<'_>) -> bool {
    node.kind() == "comment"
}

pub fn is_string(node: Node<'_>) -> bool {
    node.kind() == "string"
}

/// The block of a `match` holds `case` clauses, not statements.
pub fn is_statement_list(node: Node<'_>) -> bool {
    node.kind() == "module"
        || (node.kind() == "block" && node.parent().is_none_or(|p| p.kind() != "match_statement"))
}

pub fn is_function(node: Node<'_>) -> bool {
    node.kind() == "function_definition"
}

pub fn is_definition(node: Node<'_>) -> bool {
    matches!(node.kind(), "function_definition" | "class_definition")
}

/// Definitions between which generated code keeps the file's spacing.
pub fn is_item(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "function_definition" | "decorated_definition" | "class_definition"
    )
}

/// A short name for the statement a message talks about.
pub fn describe(node: Node<'_>, text: &str) -> String {
    let inner = if node.kind() == "expression_statement" {
        node.named_child(0).unwrap_or(node)
    } else {
        node
    };
    let label = match inner.kind() {
        "if_statement" => "`if`",
        "for_statement" => "`for` loop",
        "while_statement" => "`while` loop",
        "match_statement" => "`match`",
        "with_statement" => "`with` block",
        "try_statement" => "`try` statement",
        "function_definition" | "decorated_definition" => {
            let function = if inner.kind() == "decorated_definition" {
                inner.child_by_field_name("definition").unwrap_or(inner)
            } else {
                inner
            };
            let name = function
                .child_by_field_name("name")
                .map_or("", |n| node_text(n, text));
            return format!("function `{name}`");
        }
        "class_definition" => "class",
        _ => "statement",
    };
    label.to_string()
}

/// The lines of a definition's body.
pub fn body_lines(definition: Node<'_>) -> Option<(usize, usize)> {
    let body = definition.child_by_field_name("body")?;
    Some((body.start_position().row + 1, body.end_position().row + 1))
}

/// A line belongs to a block when it is indented at least as its statements.
pub fn line_in_block(line: &Range<usize>, text: &str, statement_indent: usize) -> bool {
    crate::text::indent_width(crate::text::indentation_at(text, line.start)) >= statement_indent
}

/// The innermost block (or the module) holding `node`.
pub fn enclosing_block(node: Node<'_>) -> Option<Node<'_>> {
    let mut node = node;
    while let Some(parent) = node.parent() {
        if matches!(parent.kind(), "block" | "module") {
            return Some(parent);
        }
        node = parent;
    }
    None
}

pub fn block_owner(block: Node<'_>) -> BlockOwner {
    match block.parent().map(|o| o.kind()) {
        Some("function_definition") => BlockOwner::FunctionBody,
        _ => BlockOwner::Other,
    }
}

/// Whether `statement` is the first statement of a function body (`block`) and a string.
pub fn is_docstring(block: Node<'_>, statement: Node<'_>) -> bool {
    let first_in_body = block
        .named_children(&mut block.walk())
        .find(|c| c.kind() != "comment");
    first_in_body.is_some_and(|f| f.id() == statement.id())
        && block
            .parent()
            .is_some_and(|p| p.kind() == "function_definition")
        && is_string_statement(statement)
}

/// An expression statement that is one string (a docstring where it stands first).
pub fn is_string_statement(statement: Node<'_>) -> bool {
    statement.kind() == "expression_statement"
        && statement.named_child_count() == 1
        && statement
            .named_child(0)
            .is_some_and(|s| s.kind() == "string")
}

fn is_boundary(n: Node<'_>) -> bool {
    matches!(
        n.kind(),
        "function_definition" | "lambda" | "class_definition"
    )
}

fn is_async_token(n: Node<'_>) -> bool {
    matches!(
        n.kind(),
        "for_statement" | "with_statement" | "for_in_clause"
    ) && n.children(&mut n.walk()).any(|c| c.kind() == "async")
}

/// `return`, `break`/`continue` (with the loop they belong to, a loop's `else:` not counting),
/// `yield`, `await`, `async for`/`async with` and `nonlocal` in `statement`, nested functions
/// and classes left out.
pub fn control_flow(statement: Node<'_>) -> Vec<Flow<'_>> {
    let mut flows = Vec::new();
    walk_node(statement, |node| {
        let kind = match node.kind() {
            "return_statement" => Some(FlowKind::Return),
            "break_statement" => Some(FlowKind::Break),
            "continue_statement" => Some(FlowKind::Continue),
            "yield" => Some(FlowKind::Yield),
            "await" => Some(FlowKind::Await),
            "nonlocal_statement" => Some(FlowKind::Nonlocal),
            _ if is_async_token(node) => Some(FlowKind::Await),
            _ => None,
        };
        if let Some(kind) = kind {
            let mut flow = Flow::at(kind, node, is_boundary);
            if matches!(kind, FlowKind::Break | FlowKind::Continue) {
                // The loop a `break` belongs to, not counting a loop's `else:` clause.
                let mut child = node;
                while let Some(parent) = child.parent() {
                    if is_boundary(parent) {
                        break;
                    }
                    if matches!(parent.kind(), "for_statement" | "while_statement")
                        && child.kind() != "else_clause"
                    {
                        flow.target = Some(parent);
                        break;
                    }
                    child = parent;
                }
            }
            flows.push(flow);
        }
        // Nested functions and classes have their own control flow.
        !(node.id() != statement.id() && is_definition(node))
    });
    flows
}

/// The statement after `node` in its block, skipping comments.
pub fn next_statement(node: Node<'_>) -> Option<Node<'_>> {
    let mut next = node.next_named_sibling();
    while let Some(n) = next {
        if n.kind() != "comment" {
            return Some(n);
        }
        next = n.next_named_sibling();
    }
    None
}
