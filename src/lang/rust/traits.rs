//! Rust traits a piece of code needs in scope for its method calls: moved or inlined into another
//! file, `s.write_char(c)` or `Version::from_str(t)` only resolve where `Write` / `FromStr` are
//! imported. Syntactic: the methods of the traits a file defines or imports from std, matched by
//! name against the calls of the code. Never recurses.

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::lang::{node_text, walk_node};

/// Traits of std whose methods are called through an import (not in the 2021 prelude).
/// The method name `write!(..)` and `writeln!(..)` stand for (see [`called_method`]).
const WRITE_MACRO: &str = "write!";

const STD_TRAITS: &[(&str, &[&str])] = &[
    ("FromStr", &["from_str"]),
    (
        "Write",
        // Not `write_str`/`write_fmt`: `fmt::Formatter` has them without the trait.
        // `write!`/`writeln!` call `write_fmt`, which a `String` has only through `fmt::Write`.
        &["write", "write_all", "write_char", "flush", WRITE_MACRO],
    ),
    (
        "Read",
        &[
            "read",
            "read_exact",
            "read_to_end",
            "read_to_string",
            "bytes",
        ],
    ),
    (
        "BufRead",
        &["read_line", "read_until", "lines", "fill_buf", "split"],
    ),
    ("Seek", &["seek", "rewind", "stream_position"]),
    ("Hash", &["hash"]),
    (
        "Hasher",
        &[
            "finish",
            "write_u8",
            "write_u32",
            "write_u64",
            "write_usize",
        ],
    ),
    ("Borrow", &["borrow"]),
    ("BorrowMut", &["borrow_mut"]),
    ("Deref", &["deref"]),
    ("DerefMut", &["deref_mut"]),
    ("Error", &["source"]),
    ("Any", &["type_id"]),
];

/// A trait the code calls a method of, that `file` imports or defines and `target` does not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NeededTrait {
    pub trait_name: String,
    pub method: String,
    /// Offset of the call in the code's file.
    pub at: usize,
}

/// The traits the code in `code` (a byte range of `text`, parsed as `tree`) calls methods of,
/// that its file imports or defines, and that the file `target` (text and tree) has no name for.
pub fn needed_traits(
    tree: &Tree,
    text: &str,
    code: &Range<usize>,
    target_tree: Option<&Tree>,
    target_text: &str,
) -> Vec<NeededTrait> {
    needed_traits_with(tree, text, code, target_tree, target_text, &[])
}

/// [`needed_traits`], also knowing `extra` traits the file imports (name, methods) — traits of
/// the crate, read from their own files by the caller.
pub fn needed_traits_with(
    tree: &Tree,
    text: &str,
    code: &Range<usize>,
    target_tree: Option<&Tree>,
    target_text: &str,
    extra: &[(String, BTreeSet<String>)],
) -> Vec<NeededTrait> {
    let mut available = trait_methods(tree, text);
    available.extend(
        extra
            .iter()
            .filter(|(name, _)| !available.iter().any(|(a, _)| a == name))
            .cloned()
            .collect::<Vec<_>>(),
    );
    if available.is_empty() {
        return Vec::new();
    }
    let target_names = target_tree.map_or_else(BTreeSet::new, |t| top_names(t, target_text));
    let mut needed: Vec<NeededTrait> = Vec::new();
    walk_node(tree.root_node(), |node| {
        let range = node.byte_range();
        if range.end <= code.start || range.start >= code.end {
            return false;
        }
        if let Some((at, method_name)) =
            called_method(node, text).filter(|(at, _)| code.contains(at))
        {
            for (trait_name, methods) in &available {
                let known = needed.iter().any(|n| &n.trait_name == trait_name);
                if !known
                    && methods.contains(method_name)
                    && !target_names.contains(trait_name.as_str())
                {
                    needed.push(NeededTrait {
                        trait_name: trait_name.clone(),
                        method: method_name.to_string(),
                        at,
                    });
                }
            }
        }
        true
    });
    needed
}

/// The method a node calls, with the offset of its name: `x.m(..)`, `T::m(..)`, and
/// `write!(..)`/`writeln!(..)` as [`WRITE_MACRO`].
fn called_method<'t>(node: Node<'_>, text: &'t str) -> Option<(usize, &'t str)> {
    let method = match node.kind() {
        "field_expression" if is_callee(node) => node.child_by_field_name("field"),
        "scoped_identifier" if is_callee(node) => node.child_by_field_name("name"),
        "macro_invocation" => {
            let name = node.child_by_field_name("macro")?;
            return matches!(node_text(name, text), "write" | "writeln")
                .then_some((name.start_byte(), WRITE_MACRO));
        }
        // `println!("{}", x.method())`: a macro's arguments are tokens, `.` `method` `(..)`.
        "identifier" if in_token_tree(node) => {
            let dot = node.prev_sibling().is_some_and(|p| p.kind() == ".");
            let arguments = node
                .next_sibling()
                .is_some_and(|n| n.kind() == "token_tree" && node_text(n, text).starts_with('('));
            (dot && arguments).then_some(node)
        }
        _ => None,
    }?;
    Some((method.start_byte(), node_text(method, text)))
}

fn in_token_tree(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| p.kind() == "token_tree")
}

fn is_callee(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| {
        p.kind() == "call_expression" && p.child_by_field_name("function") == Some(node)
    })
}

/// The methods of the trait `name` defined at the top level of a file.
pub fn methods_of_trait(tree: &Tree, text: &str, name: &str) -> Option<BTreeSet<String>> {
    trait_methods(tree, text)
        .into_iter()
        .find(|(n, _)| n == name && defines_trait(tree, text, name))
        .map(|(_, methods)| methods)
}

fn defines_trait(tree: &Tree, text: &str, name: &str) -> bool {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor).any(|item| {
        item.kind() == "trait_item"
            && item
                .child_by_field_name("name")
                .is_some_and(|n| node_text(n, text) == name)
    })
}

/// The methods of a std trait the heuristic knows (`Write`, `FromStr`, …).
pub fn std_trait_methods(name: &str) -> Option<BTreeSet<String>> {
    STD_TRAITS
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, methods)| methods.iter().map(|m| m.to_string()).collect())
}

/// Whether the file calls one of `methods` (`x.m(..)`, `T::m(..)`) outside the offsets `skip`
/// accepts.
pub fn calls_any_method(
    tree: &Tree,
    text: &str,
    methods: &BTreeSet<String>,
    skip: impl Fn(usize) -> bool,
) -> bool {
    let mut found = false;
    walk_node(tree.root_node(), |node| {
        if found {
            return false;
        }
        if let Some((at, method)) = called_method(node, text)
            && !skip(at)
            && methods.contains(method)
        {
            found = true;
        }
        true
    });
    found
}

/// The traits a file defines (with their methods) or imports from the list of std traits.
fn trait_methods(tree: &Tree, text: &str) -> Vec<(String, BTreeSet<String>)> {
    let mut out: Vec<(String, BTreeSet<String>)> = Vec::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for item in root.named_children(&mut cursor) {
        match item.kind() {
            "trait_item" => {
                let Some(name) = item.child_by_field_name("name") else {
                    continue;
                };
                let mut methods = BTreeSet::new();
                if let Some(body) = item.child_by_field_name("body") {
                    let mut members = body.walk();
                    for member in body.named_children(&mut members) {
                        if matches!(member.kind(), "function_item" | "function_signature_item")
                            && let Some(m) = member.child_by_field_name("name")
                        {
                            methods.insert(node_text(m, text).to_string());
                        }
                    }
                }
                out.push((node_text(name, text).to_string(), methods));
            }
            "use_declaration" => {
                for leaf in use_leaves(item, text) {
                    if let Some((name, methods)) = STD_TRAITS.iter().find(|(n, _)| *n == leaf) {
                        out.push((
                            name.to_string(),
                            methods.iter().map(|m| m.to_string()).collect(),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Names a file binds at its top level that could name a trait: its `use` leaves (an `as`
/// alias counts as the trait being in scope, as does `as _`), its items, and glob imports
/// (`use std::io::prelude::*` brings `Write`).
fn top_names(tree: &Tree, text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for item in root.named_children(&mut cursor) {
        match item.kind() {
            "use_declaration" => {
                let written = node_text(item, text);
                if written.contains("prelude") {
                    names.extend(STD_TRAITS.iter().map(|(n, _)| n.to_string()));
                }
                names.extend(use_leaves(item, text));
                // `use std::fmt::Write as _;` keeps the trait in scope under no name.
                let mut stack = vec![item];
                while let Some(n) = stack.pop() {
                    if n.kind() == "use_as_clause"
                        && let Some(path) = n.child_by_field_name("path")
                    {
                        let path = node_text(path, text);
                        names.insert(path.rsplit("::").next().unwrap_or(path).to_string());
                    }
                    stack.extend(n.named_children(&mut n.walk()));
                }
            }
            _ => {
                if let Some(name) = item.child_by_field_name("name") {
                    names.insert(node_text(name, text).to_string());
                }
            }
        }
    }
    names
}

/// The last segments (or aliases) a `use` declaration binds.
fn use_leaves(item: Node<'_>, text: &str) -> Vec<String> {
    let mut leaves = Vec::new();
    let mut stack: Vec<Node<'_>> = item.child_by_field_name("argument").into_iter().collect();
    while let Some(node) = stack.pop() {
        match node.kind() {
            "identifier" | "type_identifier" => leaves.push(node_text(node, text).to_string()),
            "scoped_identifier" => {
                if let Some(name) = node.child_by_field_name("name") {
                    leaves.push(node_text(name, text).to_string());
                }
            }
            "use_as_clause" => {
                if let Some(alias) = node.child_by_field_name("alias") {
                    leaves.push(node_text(alias, text).to_string());
                }
            }
            "use_list" => stack.extend(node.named_children(&mut node.walk())),
            "scoped_use_list" => stack.extend(node.child_by_field_name("list")),
            _ => {}
        }
    }
    leaves
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    #[test]
    fn a_method_called_in_a_macro_argument_is_a_call() {
        let text =
            "fn run() {\n    println!(\"{}\", ().bar_func());\n    println!(\"{}\", y.len);\n}\n";
        let tree = Language::Rust.parse(text);
        let methods = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
        assert!(calls_any_method(
            &tree,
            text,
            &methods(&["bar_func"]),
            |_| false
        ));
        // A field read in the tokens (`y.len`, no parentheses) is not a call.
        assert!(!calls_any_method(&tree, text, &methods(&["len"]), |_| {
            false
        }));
    }

    #[test]
    fn methods_of_imported_std_traits_and_local_traits_are_found() {
        let text = "use core::fmt::{self, Write};\nuse core::str::FromStr;\n\ntrait Shape {\n    fn area(&self) -> f64;\n}\n\nfn pad(f: &mut fmt::Formatter) -> fmt::Result {\n    f.write_char(' ')?;\n    let v = Version::from_str(\"1\");\n    let a = s.area();\n    f.write_char('x')\n}\n";
        let tree = Language::Rust.parse(text);
        let code = text.find("fn pad").unwrap()..text.len();
        let target = "use std::fmt::Write as _;\n";
        let target_tree = Language::Rust.parse(target);
        let needed = needed_traits(&tree, text, &code, Some(&target_tree), target);
        let names: Vec<(&str, &str)> = needed
            .iter()
            .map(|n| (n.trait_name.as_str(), n.method.as_str()))
            .collect();
        assert_eq!(names, vec![("FromStr", "from_str"), ("Shape", "area")]);
        let needed = needed_traits(&tree, text, &code, None, "");
        assert_eq!(needed.len(), 3);
        assert_eq!(needed[0].trait_name, "Write");
    }

    #[test]
    fn write_macros_need_the_imported_write_trait() {
        let text = "use std::fmt::Write;\n\nfn show(n: u8) -> String {\n    let mut s = String::new();\n    let _ = writeln!(s, \"{n}\");\n    s\n}\n\nfn other() {}\n";
        let tree = Language::Rust.parse(text);
        let code = text.find("fn show").unwrap()..text.find("fn other").unwrap();
        let needed = needed_traits(&tree, text, &code, None, "");
        assert_eq!(needed.len(), 1);
        assert_eq!(needed[0].trait_name, "Write");
        assert_eq!(needed[0].at, text.find("writeln").unwrap());
        let methods = std_trait_methods("Write").unwrap();
        assert!(calls_any_method(&tree, text, &methods, |_| false));
        assert!(!calls_any_method(&tree, text, &methods, |at| code.contains(&at)));
        // Without an imported `Write`, `write!` needs nothing (a `Formatter` has `write_fmt`).
        let bare = "fn show(f: &mut Formatter) {\n    write!(f, \"x\");\n}\n";
        let tree = Language::Rust.parse(bare);
        assert!(needed_traits(&tree, bare, &(0..bare.len()), None, "").is_empty());
    }
}
