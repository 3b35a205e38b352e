//! Rust's answers to the variable facts: expression kinds, evaluation hazards, effects, how a
//! name occurs, `let` bindings and operator precedence.

use tree_sitter::Node;

use super::{Binding, Hazard, Occurrence};
use crate::lang::node_text;

pub(super) fn is_expression(node: Node<'_>) -> bool {
    let kind = node.kind();
    (kind.ends_with("_expression") && kind != "let_condition")
        || kind.ends_with("_literal")
        || matches!(
            kind,
            "identifier" | "self" | "scoped_identifier" | "macro_invocation" | "try_expression"
        )
}

/// A segment of a path (`Instant::now`), a macro's name, a label or an attribute's word: not a
/// use of a local.
pub(super) fn is_member_name(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "scoped_identifier"
                | "scoped_type_identifier"
                | "scoped_use_list"
                | "use_declaration"
                | "use_as_clause"
                | "macro_invocation"
                | "attribute"
                | "meta_item"
                | "lifetime"
                | "label"
        )
    })
}

/// The selection itself cannot be bound: a place borrowed (`&self.items`: select the borrow).
pub(super) fn own_hazard(expr: Node<'_>) -> Option<Hazard> {
    let parent = expr.parent()?;
    let place = matches!(
        expr.kind(),
        "field_expression" | "index_expression" | "identifier" | "self"
    );
    (place && parent.kind() == "reference_expression").then_some(Hazard::BorrowedPlace)
}

pub(super) fn hazard(child: Node<'_>, parent: Node<'_>) -> Option<Hazard> {
    let is = |field: &str| {
        parent
            .child_by_field_name(field)
            .is_some_and(|n| n.id() == child.id())
    };
    match parent.kind() {
        "binary_expression" if is("right") => {
            let op = parent.child_by_field_name("operator").map(|o| o.kind());
            matches!(op, Some("&&" | "||")).then_some(Hazard::ShortCircuit)
        }
        "else_clause" | "match_arm" | "match_pattern" => Some(Hazard::Branch),
        "while_expression" if is("condition") => Some(Hazard::LoopCondition),
        "closure_expression" => Some(Hazard::Closure),
        "assignment_expression" | "compound_assignment_expr" if is("left") => {
            Some(Hazard::AssignmentTarget)
        }
        _ => None,
    }
}

pub(super) fn is_effect(node: Node<'_>, text: &str) -> bool {
    match node.kind() {
        "call_expression"
        | "await_expression"
        | "try_expression"
        | "assignment_expression"
        | "compound_assignment_expr" => true,
        "macro_invocation" => {
            let name = node
                .child_by_field_name("macro")
                .map_or("", |m| node_text(m, text));
            !PURE_MACROS.contains(&name)
        }
        _ => false,
    }
}

/// Macros whose expansion computes a value and does nothing else.
const PURE_MACROS: &[&str] = &[
    "vec",
    "format",
    "concat",
    "stringify",
    "matches",
    "line",
    "column",
    "file",
    "env",
    "include_str",
];

pub(super) fn is_compound(statement: Node<'_>) -> bool {
    let expr = if statement.kind() == "expression_statement" {
        statement.named_child(0)
    } else {
        Some(statement)
    };
    expr.is_some_and(|e| {
        matches!(
            e.kind(),
            "if_expression"
                | "match_expression"
                | "while_expression"
                | "loop_expression"
                | "for_expression"
                | "block"
                | "unsafe_block"
                | "async_block"
        )
    }) || statement.kind().ends_with("_item")
}

/// Whether `node` may run more than once, or later, relative to the code around it.
pub(super) fn repeats(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "while_expression" | "loop_expression" | "for_expression" | "closure_expression"
    ) || node.kind().ends_with("_item")
}

/// `(must be mut, may have to be mut)` for a local bound from `expr`.
pub(super) fn needs_mut(expr: Node<'_>, text: &str) -> (bool, bool) {
    let Some(parent) = expr.parent() else {
        return (false, false);
    };
    let must = parent.kind() == "reference_expression"
        && (0..parent.child_count())
            .filter_map(|i| parent.child(i))
            .any(|c| c.kind() == "mutable_specifier");
    let receiver = parent.kind() == "field_expression"
        && parent
            .child_by_field_name("value")
            .is_some_and(|v| v.id() == expr.id())
        && parent
            .parent()
            .is_some_and(|g| g.kind() == "call_expression")
        && !parent
            .child_by_field_name("field")
            .is_some_and(|f| SHARED_RECEIVER.contains(&node_text(f, text)));
    (must, receiver && !must)
}

/// Methods of the standard library that take `&self` or `self`, never `&mut self`: a receiver
/// of one of them needs no `let mut`.
const SHARED_RECEIVER: &[&str] = &[
    "len",
    "is_empty",
    "iter",
    "chars",
    "bytes",
    "char_indices",
    "as_str",
    "as_ref",
    "as_bytes",
    "as_slice",
    "to_string",
    "to_owned",
    "clone",
    "get",
    "first",
    "last",
    "contains",
    "starts_with",
    "ends_with",
    "trim",
    "trim_start",
    "trim_end",
    "split",
    "lines",
    "to_lowercase",
    "to_uppercase",
    "to_ascii_lowercase",
    "to_ascii_uppercase",
    "parse",
    "map",
    "and_then",
    "unwrap",
    "unwrap_or",
    "unwrap_or_default",
    "expect",
    "ok",
    "is_some",
    "is_none",
    "is_ok",
    "is_err",
    "cmp",
    "eq",
    "keys",
    "values",
    "find",
    "into_iter",
    "collect",
    "count",
    "sum",
    "max",
    "min",
    "rev",
    "enumerate",
    "zip",
    "filter",
    "copied",
    "cloned",
    "fmt",
    "hash",
];

/// Methods that return a borrow of their receiver.
const BORROWING: &[&str] = &[
    "as_str",
    "as_ref",
    "as_mut",
    "as_slice",
    "as_bytes",
    "as_path",
    "as_deref",
    "borrow",
    "borrow_mut",
    "iter",
    "iter_mut",
    "chars",
    "lines",
    "trim",
    "trim_start",
    "trim_end",
    "split",
    "split_whitespace",
    "keys",
    "values",
    "get",
    "first",
    "last",
    "deref",
];

pub(super) fn borrows_temporary(expr: Node<'_>, text: &str) -> bool {
    let mut current = expr;
    loop {
        let (receiver, method) = match method_call(current) {
            Some(parts) => parts,
            None => return false,
        };
        if BORROWING.contains(&node_text(method, text)) && is_temporary(receiver) {
            return true;
        }
        current = receiver;
    }
}

/// `receiver.method(..)`: the receiver and the method's name.
fn method_call(node: Node<'_>) -> Option<(Node<'_>, Node<'_>)> {
    if node.kind() != "call_expression" {
        return None;
    }
    let function = node.child_by_field_name("function")?;
    if function.kind() != "field_expression" {
        return None;
    }
    Some((
        function.child_by_field_name("value")?,
        function.child_by_field_name("field")?,
    ))
}

/// A value made by the expression itself, dropped at the end of the statement unless bound.
fn is_temporary(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "call_expression" | "macro_invocation" | "struct_expression" | "binary_expression"
    )
}

/// A write of `name` in a macro's tokens: `&mut name`, `name = `, `name += `, `name.m(`.
pub(super) fn token_write(tokens: &str, name: &str) -> bool {
    let compact: String = tokens.chars().filter(|c| !c.is_whitespace()).collect();
    compact.match_indices(name).any(|(at, _)| {
        let before = &compact[..at];
        let rest = &compact[at + name.len()..];
        let word_start = !before
            .chars()
            .last()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
        let word_end = !rest
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_');
        if !word_start || !word_end {
            return false;
        }
        let assigned = rest.starts_with('=') && !rest.starts_with("==") && !rest.starts_with("=>");
        let compound = ["+=", "-=", "*=", "/=", "%=", "|=", "&=", "^=", "<<=", ">>="]
            .iter()
            .any(|op| rest.starts_with(op));
        let method = rest.strip_prefix('.').is_some_and(|r| {
            let word: String = r
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            !word.is_empty() && r[word.len()..].starts_with('(')
        });
        before.ends_with("&mut") || assigned || compound || method
    })
}

pub(super) fn occurrence(name: Node<'_>) -> Occurrence {
    let Some(parent) = name.parent() else {
        return Occurrence::Read;
    };
    let is = |node: Node<'_>, field: &str| {
        node.child_by_field_name(field)
            .is_some_and(|n| n.id() == name.id())
    };
    match parent.kind() {
        "let_declaration" if is(parent, "pattern") => return Occurrence::Binding,
        "assignment_expression" | "compound_assignment_expr" if is(parent, "left") => {
            return Occurrence::Write;
        }
        "parameter" | "self_parameter" | "closure_parameters" => return Occurrence::Parameter,
        "function_item" | "struct_item" | "enum_item" | "const_item" | "static_item" => {
            return Occurrence::Definition;
        }
        "reference_expression" => {
            let mutable = (0..parent.child_count())
                .filter_map(|i| parent.child(i))
                .any(|c| c.kind() == "mutable_specifier");
            return if mutable {
                Occurrence::Mutation
            } else {
                Occurrence::Read
            };
        }
        "field_expression" if is(parent, "value") => {
            return match parent.parent() {
                Some(g) if g.kind() == "call_expression" => Occurrence::Mutation,
                Some(g)
                    if matches!(
                        g.kind(),
                        "assignment_expression" | "compound_assignment_expr"
                    ) && is_field(g, "left", parent) =>
                {
                    Occurrence::Write
                }
                _ => Occurrence::Read,
            };
        }
        "index_expression" => {
            let first = parent.named_child(0).is_some_and(|c| c.id() == name.id());
            let written = parent.parent().is_some_and(|g| {
                matches!(
                    g.kind(),
                    "assignment_expression" | "compound_assignment_expr"
                ) && is_field(g, "left", parent)
            });
            if first && written {
                return Occurrence::Write;
            }
        }
        _ => {}
    }
    if in_pattern(name) {
        Occurrence::Pattern
    } else {
        Occurrence::Read
    }
}

fn is_field(node: Node<'_>, field: &str, child: Node<'_>) -> bool {
    node.child_by_field_name(field)
        .is_some_and(|n| n.id() == child.id())
}

/// Whether `name` is bound by a pattern (of a `let`, a `match` arm, `if let`, `for`, a
/// parameter or a closure's parameters).
fn in_pattern(name: Node<'_>) -> bool {
    let mut child = name;
    while let Some(parent) = child.parent() {
        let kind = parent.kind();
        if kind.ends_with("_pattern") || kind == "field_pattern" {
            child = parent;
            continue;
        }
        return match kind {
            "let_declaration" | "for_expression" | "let_condition" => {
                is_field(parent, "pattern", child)
            }
            "match_pattern" | "parameter" | "closure_parameters" => true,
            _ => false,
        };
    }
    false
}

pub(super) fn binding_of(name: Node<'_>) -> Option<Binding<'_>> {
    let statement = name.parent()?;
    if statement.kind() != "let_declaration"
        || statement.child_by_field_name("alternative").is_some()
    {
        return None;
    }
    let mutable = (0..statement.child_count())
        .filter_map(|i| statement.child(i))
        .any(|c| c.kind() == "mutable_specifier");
    Some(Binding {
        statement,
        value: statement.child_by_field_name("value")?,
        written_type: statement.child_by_field_name("type"),
        mutable,
    })
}

/// Higher binds tighter.
fn precedence(node: Node<'_>, text: &str) -> u8 {
    match node.kind() {
        "closure_expression"
        | "assignment_expression"
        | "compound_assignment_expr"
        | "return_expression"
        | "break_expression"
        | "yield_expression" => 1,
        "range_expression" => 2,
        "binary_expression" => {
            let op = node
                .child_by_field_name("operator")
                .map_or("", |o| node_text(o, text));
            binary_precedence(op)
        }
        "type_cast_expression" => 12,
        "unary_expression" | "reference_expression" => 13,
        "try_expression" | "call_expression" | "field_expression" | "index_expression"
        | "await_expression" => 14,
        _ => 15,
    }
}

fn binary_precedence(op: &str) -> u8 {
    match op {
        "||" => 3,
        "&&" => 4,
        "==" | "!=" | "<" | ">" | "<=" | ">=" => 5,
        "|" => 6,
        "^" => 7,
        "&" => 8,
        "<<" | ">>" => 9,
        "+" | "-" => 10,
        _ => 11,
    }
}

pub(super) fn needs_parens(value: Node<'_>, read: Node<'_>, text: &str) -> bool {
    let own = precedence(value, text);
    if own >= 15 {
        return false;
    }
    let Some(parent) = read.parent() else {
        return false;
    };
    let is = |field: &str| is_field(parent, field, read);
    match parent.kind() {
        "binary_expression" => {
            let op = parent
                .child_by_field_name("operator")
                .map_or("", |o| node_text(o, text));
            let theirs = binary_precedence(op);
            own < theirs || (own == theirs && (is("right") || theirs == 5))
        }
        "type_cast_expression" => own < 13,
        "unary_expression" | "reference_expression" => own < 13,
        "try_expression" | "await_expression" | "index_expression" => own < 14,
        "field_expression" => is("value") && own < 14,
        "call_expression" => is("function") && own < 14,
        "range_expression" => own <= 2,
        // Macro arguments are tokens: whatever is around the name, keep the value whole
        // unless it binds as tightly as a call.
        "token_tree" => own < 14,
        _ => false,
    }
}

/// A place expression: a field, an element, or what a reference points to (`*r`, `(**r)`).
pub fn is_place(expr: Node<'_>) -> bool {
    match expr.kind() {
        "field_expression" | "index_expression" => true,
        "unary_expression" => expr.child(0).is_some_and(|op| op.kind() == "*"),
        "parenthesized_expression" => expr.named_child(0).is_some_and(is_place),
        _ => false,
    }
}
