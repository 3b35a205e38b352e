//! Rust statements and blocks: which nodes hold statements, what a statement is called in a
//! message, which statement is a block's value, and the control flow a statement contains.

use std::ops::Range;

use tree_sitter::Node;

use crate::lang::syntax::{BlockOwner, Flow, FlowKind};
use crate::lang::{node_text, walk_node};

pub fn is_comment(node: Node<'_>) -> bool {
    matches!(node.kind(), "line_comment" | "block_comment")
}

pub fn is_string(node: Node<'_>) -> bool {
    matches!(node.kind(), "string_literal" | "raw_string_literal")
}

pub fn is_attribute(node: Node<'_>) -> bool {
    node.kind() == "attribute_item"
}

pub fn is_statement_list(node: Node<'_>) -> bool {
    node.kind() == "block"
}

/// `{` and `}` (and a label) belong to the block, not to its statements.
pub fn inside_delimiters(node: Node<'_>, code: &Range<usize>) -> bool {
    let open = node.children(&mut node.walk()).find(|c| c.kind() == "{");
    let close = node.child(node.child_count().saturating_sub(1));
    open.is_some_and(|o| code.start >= o.end_byte())
        && close.is_some_and(|c| c.kind() == "}" && code.end <= c.start_byte())
}

pub fn is_item_container(node: Node<'_>) -> bool {
    matches!(node.kind(), "source_file" | "declaration_list")
}

pub fn is_function(node: Node<'_>) -> bool {
    matches!(node.kind(), "function_item" | "function_signature_item")
}

/// Definitions between which generated code keeps the file's spacing.
pub fn is_item(node: Node<'_>) -> bool {
    is_function(node)
        || matches!(
            node.kind(),
            "impl_item"
                | "struct_item"
                | "enum_item"
                | "union_item"
                | "trait_item"
                | "mod_item"
                | "macro_definition"
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
        "if_expression" => "`if`",
        "for_expression" => "`for` loop",
        "while_expression" => "`while` loop",
        "loop_expression" => "`loop`",
        "match_expression" => "`match`",
        "let_declaration" => "`let` statement",
        "unsafe_block" => "`unsafe` block",
        "async_block" => "`async` block",
        "block" => "block",
        _ if is_function(inner) => {
            let name = inner
                .child_by_field_name("name")
                .map_or("", |n| node_text(n, text));
            return format!("function `{name}`");
        }
        _ => "statement",
    };
    label.to_string()
}

/// The lines inside the braces of a definition's body.
pub fn body_lines(definition: Node<'_>) -> Option<(usize, usize)> {
    let body = definition.child_by_field_name("body")?;
    Some((
        body.start_position().row + 2,
        (body.end_position().row + 1).saturating_sub(1),
    ))
}

/// Whether `last` is the value expression that ends `block` (no `;`, not a statement).
pub fn is_tail_value(block: Node<'_>, last: Node<'_>) -> bool {
    let kind = last.kind();
    // `if .. else ..`, `match`, a block, without `;` at the end of a block: the block's value.
    let valued_block_like = kind == "expression_statement"
        && last.child_by_field_name("expression").is_none()
        && last.named_child(0).is_some_and(|e| match e.kind() {
            "match_expression" | "block" | "unsafe_block" | "loop_expression" => true,
            "if_expression" => e.child_by_field_name("alternative").is_some(),
            _ => false,
        })
        && !last.children(&mut last.walk()).any(|c| c.kind() == ";");
    let statement = (kind == "expression_statement" && !valued_block_like)
        || kind == "let_declaration"
        || kind == "empty_statement"
        || kind == "attribute_item"
        || kind == "inner_attribute_item"
        || kind == "macro_invocation" && last.next_sibling().is_some_and(|n| n.kind() == ";")
        || kind.ends_with("_item")
        || kind.ends_with("_declaration")
        || kind == "line_comment"
        || kind == "block_comment";
    if statement {
        return false;
    }
    let mut cursor = block.walk();
    let last_code = block
        .named_children(&mut cursor)
        .filter(|c| !matches!(c.kind(), "line_comment" | "block_comment" | "label"))
        .last();
    last_code.is_some_and(|n| n.id() == last.id())
}

/// The innermost block holding `node`.
pub fn enclosing_block(node: Node<'_>) -> Option<Node<'_>> {
    let mut node = node;
    while let Some(parent) = node.parent() {
        if parent.kind() == "block" {
            return Some(parent);
        }
        node = parent;
    }
    None
}

pub fn block_owner(block: Node<'_>) -> BlockOwner {
    let owner = block.parent();
    match owner.map(|o| o.kind()) {
        Some("function_item") => BlockOwner::FunctionBody,
        Some("for_expression" | "while_expression" | "loop_expression") => BlockOwner::Loop,
        Some("if_expression")
            if owner.is_some_and(|o| o.child_by_field_name("alternative").is_none()) =>
        {
            BlockOwner::IfWithoutElse
        }
        _ => BlockOwner::Other,
    }
}

/// Whether the statement is `panic!(..)`, `unreachable!(..)`, `todo!(..)`,
/// `unimplemented!(..)` or `std::process::exit(..)`.
pub fn diverges(statement: Node<'_>, text: &str) -> bool {
    let expression = if statement.kind() == "expression_statement" {
        statement.named_child(0)
    } else {
        Some(statement)
    };
    let Some(expression) = expression else {
        return false;
    };
    let last_segment = |path: &str| path.rsplit("::").next().unwrap_or(path).trim().to_string();
    match expression.kind() {
        "macro_invocation" => expression
            .child_by_field_name("macro")
            .map(|m| last_segment(&text[m.byte_range()]))
            .is_some_and(|m| {
                matches!(
                    m.as_str(),
                    "panic" | "unreachable" | "todo" | "unimplemented"
                )
            }),
        "call_expression" => expression.child_by_field_name("function").is_some_and(|f| {
            let callee = text[f.byte_range()].split_whitespace().collect::<String>();
            callee == "std::process::exit" || callee == "process::exit"
        }),
        _ => false,
    }
}

fn is_boundary(n: Node<'_>) -> bool {
    matches!(
        n.kind(),
        "closure_expression" | "function_item" | "async_block"
    )
}

/// Whether a `break` hands a value to its loop or block (`break 'a value`, `break x`).
pub fn jump_carries_value(node: Node<'_>) -> bool {
    node.kind() == "break_expression"
        && node
            .named_children(&mut node.walk())
            .any(|c| c.kind() != "label")
}

/// The `ref name` pattern (its bytes) and the value of `let ref name = value;` whose name is at
/// byte `at`: the whole pattern of the `let`, neither `ref mut` nor nested, and a value that is
/// not a place (`let ref r = v;` borrows `v` where it is; binding it would move it).
pub fn plain_ref_let(root: Node<'_>, at: usize) -> Option<(Range<usize>, Node<'_>)> {
    let pattern = root.descendant_for_byte_range(at, at + 1)?.parent()?;
    let declaration = pattern.parent()?;
    let whole = pattern.kind() == "ref_pattern"
        && pattern.named_child_count() == 1
        && declaration.kind() == "let_declaration"
        && declaration
            .child_by_field_name("pattern")
            .is_some_and(|p| p.id() == pattern.id())
        && declaration.child_by_field_name("alternative").is_none();
    let value = declaration.child_by_field_name("value")?;
    let place = matches!(
        value.kind(),
        "identifier"
            | "self"
            | "field_expression"
            | "index_expression"
            | "unary_expression"
            | "parenthesized_expression"
    );
    (whole && !place).then(|| (pattern.byte_range(), value))
}

/// Whether the value of `block` is the value of the function item `function`: `block` is a
/// branch of `if`/`else`/`match` expressions that are, in turn, the tail of the function's body.
pub fn block_value_is_function_value(block: Node<'_>, function: Node<'_>) -> bool {
    let Some(body) = function.child_by_field_name("body") else {
        return false;
    };
    let mut node = block;
    while node.id() != body.id() {
        let Some(parent) = node.parent() else {
            return false;
        };
        let passes = match parent.kind() {
            "if_expression" => ["consequence", "alternative"].iter().any(|field| {
                parent
                    .child_by_field_name(field)
                    .is_some_and(|c| c.id() == node.id())
            }),
            "else_clause" | "match_block" => true,
            "match_arm" => parent
                .child_by_field_name("value")
                .is_some_and(|v| v.id() == node.id()),
            "match_expression" => parent
                .child_by_field_name("body")
                .is_some_and(|b| b.id() == node.id()),
            "expression_statement" => node.next_sibling().is_none_or(|n| n.kind() != ";"),
            "block" => is_block_tail(parent, node),
            _ => false,
        };
        if !passes {
            return false;
        }
        node = parent;
    }
    true
}

/// Whether `node` is the last code of `block` and gives its value (no `;` after it).
fn is_block_tail(block: Node<'_>, node: Node<'_>) -> bool {
    let mut last = None;
    for child in block.named_children(&mut block.walk()) {
        if !is_comment(child) {
            last = Some(child);
        }
    }
    last.is_some_and(|l| l.id() == node.id())
        && node.next_sibling().is_none_or(|n| n.kind() != ";")
        && (node.kind() != "expression_statement"
            || node
                .child(node.child_count().saturating_sub(1))
                .is_none_or(|c| c.kind() != ";"))
}

/// The value of a `return_expression` (`e` of `return e`), `None` for a bare `return`.
pub fn returned_value(node: Node<'_>) -> Option<Node<'_>> {
    (node.kind() == "return_expression")
        .then(|| node.named_child(0))
        .flatten()
}

/// Whether a closure or an `async` block lies between `node` and the function item `function`
/// around it: a `return` there leaves that closure or block, not the function.
pub fn inside_closure(node: Node<'_>, function: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.id() == function.id() {
            return false;
        }
        if matches!(
            n.kind(),
            "closure_expression" | "async_block" | "function_item"
        ) {
            return true;
        }
        current = n.parent();
    }
    false
}

/// `return`, `break`/`continue` (with the loop or labelled block they target), `?` and
/// `.await` in `statement`, nested functions left out.
pub fn control_flow<'t>(statement: Node<'t>, text: &str) -> Vec<Flow<'t>> {
    let mut flows = Vec::new();
    walk_node(statement, |node| {
        let kind = match node.kind() {
            "return_expression" => Some(FlowKind::Return),
            "break_expression" => Some(FlowKind::Break),
            "continue_expression" => Some(FlowKind::Continue),
            "try_expression" => Some(FlowKind::Try),
            "await_expression" => Some(FlowKind::Await),
            _ => None,
        };
        if let Some(kind) = kind {
            let mut flow = Flow::at(kind, node, is_boundary);
            if matches!(kind, FlowKind::Break | FlowKind::Continue) {
                let label = node
                    .children(&mut node.walk())
                    .find(|c| c.kind() == "label")
                    .map(|l| node_text(l, text).to_string());
                let target = crate::lang::ancestors(node).find(|n| {
                    is_boundary(*n)
                        || match &label {
                            None => matches!(
                                n.kind(),
                                "loop_expression" | "while_expression" | "for_expression"
                            ),
                            Some(label) => {
                                matches!(
                                    n.kind(),
                                    "loop_expression"
                                        | "while_expression"
                                        | "for_expression"
                                        | "block"
                                ) && n
                                    .children(&mut n.walk())
                                    .any(|c| c.kind() == "label" && node_text(c, text) == label)
                            }
                        }
                });
                flow.target = target.filter(|t| !is_boundary(*t));
                flow.label = label;
            }
            flows.push(flow);
        }
        // Nested functions and items have their own control flow.
        !(node.id() != statement.id() && node.kind() == "function_item")
    });
    flows
}
