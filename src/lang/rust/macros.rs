//! Rust macros as far as the syntax tree sees them: calls written in a macro's arguments (token
//! trees, which tree-sitter does not parse as expressions), the macro a token belongs to, and
//! attributes around a mention.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::lang::calls::{Argument, CallForm, CallSite};
use crate::lang::finder::NodeFinder;
use crate::lang::{holding, node_text, walk_node};

/// Macros whose arguments are ordinary expressions.
const EXPRESSION_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "write",
    "writeln",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "vec",
    "dbg",
    "format_args",
    "todo",
    "unimplemented",
    "unreachable",
];
/// Whether the macro named `name` (a path or its last segment) takes ordinary expressions as
/// arguments (a std formatting, assertion or `vec!` macro); a macro of the project's own may
/// match its tokens as anything (`$i:ident`, `$t:tt`).
pub fn takes_expressions(name: &str) -> bool {
    EXPRESSION_MACROS.contains(&name.rsplit("::").next().unwrap_or(name).trim())
}

/// The calls of `name` written in the arguments of the macros whose name (last path segment)
/// `accept` takes, in document order.
pub fn calls_in_macros(
    tree: &Tree,
    text: &str,
    name: &str,
    accept: impl Fn(&str) -> bool,
) -> Vec<CallSite> {
    let mut calls = Vec::new();
    // A call of the name holds the name: nodes whose text does not are not entered.
    let may_hold = holding(text, name);
    walk_node(tree.root_node(), |n| {
        if n.kind() != "macro_invocation" {
            return may_hold(n);
        }
        let macro_name = n
            .child_by_field_name("macro")
            .map(|m| node_text(m, text))
            .unwrap_or("");
        let last = macro_name.rsplit("::").next().unwrap_or(macro_name);
        if !accept(last) {
            return may_hold(n);
        }
        walk_node(n, |t| {
            if let Some(call) = macro_argument_call(t, text, name) {
                calls.push(call);
            }
            may_hold(t)
        });
        false
    });
    calls
}

/// The identifier at `name_range` when it is a token of a macro's arguments (a call found by
/// [`calls_in_macros`]).
pub fn macro_token_at<'t>(tree: &'t Tree, name_range: &Range<usize>) -> Option<Node<'t>> {
    let node = NodeFinder::new(tree).exact(name_range, "identifier")?;
    node.parent()
        .is_some_and(|p| p.kind() == "token_tree")
        .then_some(node)
}

/// The name of the macro whose tokens hold `node`, when `node` is one of them directly.
pub fn macro_of_token<'t>(node: Node<'_>, text: &'t str) -> Option<&'t str> {
    if node.parent().is_none_or(|p| p.kind() != "token_tree") {
        return None;
    }
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "macro_invocation" {
            return Some(
                n.child_by_field_name("macro")
                    .map(|m| node_text(m, text))
                    .unwrap_or("?"),
            );
        }
        current = n.parent();
    }
    Some("?")
}

/// Whether the bytes at `range` sit inside an attribute (`#[serde(default = "name")]`).
pub fn in_attribute(tree: &Tree, range: &Range<usize>) -> bool {
    let mut current = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end);
    while let Some(node) = current {
        if matches!(node.kind(), "attribute_item" | "inner_attribute_item") {
            return true;
        }
        current = node.parent();
    }
    false
}

/// A call `name(args)` written in macro arguments: the identifier token followed by a
/// parenthesised token tree, not after `.`, `::` or `fn`, not followed by `!`.
fn macro_argument_call(token: Node<'_>, text: &str, name: &str) -> Option<CallSite> {
    if token.kind() != "identifier" || node_text(token, text) != name {
        return None;
    }
    if token.parent().is_none_or(|p| p.kind() != "token_tree") {
        return None;
    }
    if token
        .prev_sibling()
        .is_some_and(|p| matches!(p.kind(), "." | "::" | "fn" | "'"))
    {
        return None;
    }
    let arguments = token.next_sibling().filter(|n| n.kind() == "token_tree")?;
    if !node_text(arguments, text).starts_with('(') || arguments.start_byte() != token.end_byte() {
        return None;
    }
    // Split the arguments at the commas of their own level.
    let mut args = Vec::new();
    let mut start: Option<usize> = None;
    let mut end = 0;
    let mut cursor = arguments.walk();
    for child in arguments.children(&mut cursor) {
        match child.kind() {
            "(" if child.start_byte() == arguments.start_byte() => {}
            ")" if child.end_byte() == arguments.end_byte() => {}
            "," => {
                if let Some(s) = start.take() {
                    args.push(s..end);
                }
            }
            _ => {
                start.get_or_insert(child.start_byte());
                end = child.end_byte();
            }
        }
    }
    if let Some(s) = start {
        args.push(s..end);
    }
    Some(CallSite {
        range: token.start_byte()..arguments.end_byte(),
        callee_range: token.byte_range(),
        name_range: token.byte_range(),
        arguments_range: arguments.byte_range(),
        args: args
            .into_iter()
            .map(|r| Argument {
                range: r.clone(),
                value_range: r,
                keyword: None,
                splat: false,
            })
            .collect(),
        form: CallForm::Plain,
        line: token.start_position().row + 1,
    })
}

/// Whether `node` is written inside a macro call (its tokens).
pub fn in_macro(node: Node<'_>) -> bool {
    let mut current = node.parent();
    while let Some(parent) = current {
        if matches!(parent.kind(), "token_tree" | "macro_invocation") {
            return true;
        }
        current = parent.parent();
    }
    false
}

/// The macro calls starting inside `ranges`: the macro's name (its last path segment) and where
/// the call starts, in walk order.
pub fn macro_calls_in(tree: &Tree, text: &str, ranges: &[Range<usize>]) -> Vec<(String, usize)> {
    let inside = |at: usize| ranges.iter().any(|r| r.contains(&at));
    let mut calls = Vec::new();
    crate::lang::walk_overlapping(tree, ranges, |node| {
        if node.kind() != "macro_invocation" || !inside(node.start_byte()) {
            return;
        }
        if let Some(name) = node
            .child_by_field_name("macro")
            .map(|n| node_text(n, text))
        {
            calls.push((
                name.rsplit("::").next().unwrap_or(name).to_string(),
                node.start_byte(),
            ));
        }
    });
    calls
}

/// What in an item depends on where its file is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FileRelative {
    /// `include_str!`, `include_bytes!` or `include!` (the macro as written): a path relative
    /// to the file.
    Include(String),
    /// A path starting with `super::`.
    Super,
}

/// The places of `item` that depend on where its file is, with their offsets, in walk order.
pub fn file_relative(item: Node<'_>, text: &str) -> Vec<(FileRelative, usize)> {
    let mut found = Vec::new();
    walk_node(item, |node| {
        match node.kind() {
            "macro_invocation" => {
                let macro_name = node
                    .child_by_field_name("macro")
                    .map(|n| node_text(n, text))
                    .unwrap_or("");
                if matches!(macro_name, "include_str" | "include_bytes" | "include") {
                    found.push((
                        FileRelative::Include(macro_name.to_string()),
                        node.start_byte(),
                    ));
                }
            }
            "scoped_identifier" | "scoped_type_identifier" | "scoped_use_list"
                if node
                    .child_by_field_name("path")
                    .is_some_and(|h| h.kind() == "super") =>
            {
                found.push((FileRelative::Super, node.start_byte()));
            }
            _ => {}
        }
        true
    });
    found
}
