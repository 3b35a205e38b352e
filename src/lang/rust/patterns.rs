//! Rust patterns the parser accepts and the compiler does not: an or-pattern whose alternatives
//! bind different names (E0408), a field pattern that spells `ref`/`mut` before `name: pattern`
//! (`Foo { ref baz: i }`). Syntactic facts for the cross-checks.

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::lang::{node_text, walk_tree_with_ancestors};

/// A pattern the compiler refuses: where it starts, its line (1-based), its text, and for an
/// or-pattern the names some alternatives bind and others do not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadPattern {
    pub offset: usize,
    pub line: usize,
    pub text: String,
    pub unmatched: Vec<String>,
}

/// Every or-pattern of `tree` whose alternatives do not bind the same names.
pub fn uneven_or_patterns(tree: &Tree, text: &str) -> Vec<BadPattern> {
    uneven_or_patterns_within(tree, text, |_| true)
}

/// [`uneven_or_patterns`] among the nodes whose byte range `within` accepts, and whose
/// ancestors' ranges it accepts too: the walk does not enter a node it refuses. A question
/// about the patterns that overlap some ranges is answered so without walking the whole tree
/// (a node overlaps a range only if its ancestors do).
pub fn uneven_or_patterns_within(
    tree: &Tree,
    text: &str,
    within: impl Fn(&Range<usize>) -> bool,
) -> Vec<BadPattern> {
    let mut found = Vec::new();
    // An or-pattern is written with `|`: a text without one has none (no walk).
    if memchr::memchr(b'|', text.as_bytes()).is_none() {
        return found;
    }
    walk_tree_with_ancestors(tree, |node, ancestors| {
        if !within(&node.byte_range()) {
            return false;
        }
        let outermost = ancestors.last().is_none_or(|p| p.kind() != "or_pattern");
        if node.kind() == "or_pattern" && outermost {
            let mut alternatives = Vec::new();
            flatten(node, &mut alternatives);
            let sets: Vec<BTreeSet<String>> =
                alternatives.iter().map(|a| bindings(*a, text)).collect();
            let all: BTreeSet<String> = sets.iter().flatten().cloned().collect();
            let unmatched: Vec<String> = all
                .into_iter()
                .filter(|name| !sets.iter().all(|s| s.contains(name)))
                .collect();
            if !unmatched.is_empty() {
                found.push(BadPattern {
                    offset: node.start_byte(),
                    line: node.start_position().row + 1,
                    text: node_text(node, text).to_string(),
                    unmatched,
                });
            }
        }
        true
    });
    found
}

/// Every field pattern with `ref` or `mut` before a `name: pattern` form.
pub fn invalid_field_patterns(tree: &Tree, text: &str) -> Vec<BadPattern> {
    invalid_field_patterns_within(tree, text, |_| true)
}

/// [`invalid_field_patterns`] among the nodes `within` accepts, as for
/// [`uneven_or_patterns_within`].
pub fn invalid_field_patterns_within(
    tree: &Tree,
    text: &str,
    within: impl Fn(&Range<usize>) -> bool,
) -> Vec<BadPattern> {
    let mut found = Vec::new();
    walk_tree_with_ancestors(tree, |node, _| {
        if !within(&node.byte_range()) {
            return false;
        }
        if node.kind() == "field_pattern" && node.child_by_field_name("pattern").is_some() {
            let mut cursor = node.walk();
            let modified = node
                .children(&mut cursor)
                .any(|c| c.kind() == "ref" || c.kind() == "mutable_specifier");
            if modified {
                found.push(BadPattern {
                    offset: node.start_byte(),
                    line: node.start_position().row + 1,
                    text: node_text(node, text).to_string(),
                    unmatched: Vec::new(),
                });
            }
        }
        true
    });
    found
}

/// The alternatives of an or-pattern (`a | b | c` nests to the left).
fn flatten<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    let mut cursor = node.walk();
    for child in node.named_children(&mut cursor) {
        if child.kind() == "or_pattern" {
            flatten(child, out);
        } else {
            out.push(child);
        }
    }
}

/// The names a pattern binds: lowercase identifiers in binding position (not paths, not the
/// type of a struct or tuple-struct pattern, not constants), and field shorthands.
fn bindings(pattern: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut stack = vec![(pattern, None::<Node<'_>>)];
    while let Some((node, parent)) = stack.pop() {
        match node.kind() {
            "identifier" | "shorthand_field_identifier" => {
                let is_type = parent.is_some_and(|p| {
                    matches!(p.kind(), "tuple_struct_pattern" | "struct_pattern")
                        && p.child_by_field_name("type") == Some(node)
                });
                let name = node_text(node, text);
                let lowercase = name
                    .chars()
                    .next()
                    .is_some_and(|c| c == '_' || c.is_lowercase());
                if !is_type && lowercase && name != "_" {
                    names.insert(name.to_string());
                }
            }
            "scoped_identifier"
            | "scoped_type_identifier"
            | "macro_invocation"
            | "range_pattern"
            | "field_identifier" => {}
            _ => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    stack.push((child, Some(node)));
                }
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    #[test]
    fn alternatives_must_bind_the_same_names() {
        let text = "fn f(x: (u8, u8, u8)) {\n    match x {\n        (foo, _, _) | (_, foo, _) | (_, _, foo) => {}\n    }\n    match x {\n        (bar, _, _) | (_, foo, _) | (_, _, foo) => {}\n    }\n    if let Some(a) | Some(a) = None::<u8> {}\n    if let E::A(v) | E::B { v, .. } | E::C(_) = e {}\n    if let None | Some(0) = o {}\n}\n";
        let tree = Language::Rust.parse(text);
        let found = uneven_or_patterns(&tree, text);
        let got: Vec<(usize, Vec<String>)> = found
            .iter()
            .map(|b| (b.line, b.unmatched.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                (6, vec!["bar".to_string(), "foo".to_string()]),
                (9, vec!["v".to_string()])
            ]
        );
    }

    #[test]
    fn the_walk_within_ranges_finds_the_bad_patterns_there_only() {
        // Two uneven or-patterns and two invalid field patterns; only the second of each
        // overlaps the range asked about.
        let text = "fn f(x: (u8, u8), y: Foo) {\n    match x {\n        (a, _) | (_, b) => {}\n    }\n    let Foo { ref i: j } = y;\n    match x {\n        (c, _) | (_, d) => {}\n    }\n    let Foo { mut k: l } = y;\n}\n";
        let tree = Language::Rust.parse(text);
        let from = text.find("match x {\n        (c").unwrap();
        let within = |r: &Range<usize>| r.start <= text.len() && r.end >= from;
        let lines = |found: Vec<BadPattern>| found.iter().map(|b| b.line).collect::<Vec<_>>();
        assert_eq!(lines(uneven_or_patterns(&tree, text)), [3, 7]);
        assert_eq!(lines(uneven_or_patterns_within(&tree, text, within)), [7]);
        assert_eq!(lines(invalid_field_patterns(&tree, text)), [5, 9]);
        assert_eq!(
            lines(invalid_field_patterns_within(&tree, text, within)),
            [9]
        );
    }

    #[test]
    fn ref_before_a_renamed_field() {
        let text = "fn f(x: Foo) {\n    let Foo { ref i } = x;\n    let Foo { ref baz: i } = x;\n    let Foo { baz: ref i } = x;\n    let Foo { mut baz: i } = x;\n}\n";
        let tree = Language::Rust.parse(text);
        let lines: Vec<usize> = invalid_field_patterns(&tree, text)
            .iter()
            .map(|b| b.line)
            .collect();
        assert_eq!(lines, vec![3, 5]);
    }
}
