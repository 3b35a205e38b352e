//! Rust `use` declarations as things a refactor edits: each leaf with its node (so that it can
//! be replaced or taken out), the edits that take a set of leaves out (a list shrinks, a list
//! left empty goes from its parent list, a declaration left empty goes whole), the attributes
//! of a declaration, and the `self::`/`super::` heads of the paths in a piece of code. Facts and
//! edits only: what to write is the refactor's business.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::imports::segments_of;
use crate::edit::TextEdit;
use crate::lang::node_text;
use crate::text::surgery::{remove_item_lines, remove_list_items, remove_statement};

/// One leaf of a `use` tree.
#[derive(Debug, Clone)]
pub struct UseLeaf<'t> {
    /// The whole path, with the paths of the lists around it (`std::fmt::Write`, `a::*`).
    pub path: Vec<String>,
    pub alias: Option<String>,
    /// The leaf as written: an identifier, a path, `x as y`, `self`, `a::*`.
    pub node: Node<'t>,
    /// How many segments of `path` the leaf writes itself (the others come from its lists).
    pub own: usize,
    pub declaration: Node<'t>,
}

impl UseLeaf<'_> {
    /// The name the leaf brings into scope (`None` for a glob or `as _`).
    pub fn bound_name(&self) -> Option<String> {
        if let Some(alias) = &self.alias {
            return (alias != "_").then(|| alias.clone());
        }
        match self.path.as_slice() {
            [.., last] if last == "*" => None,
            [.., parent, last] if last == "self" => Some(parent.clone()),
            [.., last] => Some(last.clone()),
            [] => None,
        }
    }

    pub fn is_glob(&self) -> bool {
        self.path.last().is_some_and(|l| l == "*")
    }

    /// The segments the lists around the leaf write (`std::fmt` for `Write` in
    /// `use std::fmt::{self, Write}`).
    pub fn list_prefix(&self) -> &[String] {
        &self.path[..self.path.len() - self.own]
    }
}

/// The leaves of one `use` declaration, in the order written.
pub fn leaves<'t>(declaration: Node<'t>, text: &str) -> Vec<UseLeaf<'t>> {
    let mut out = Vec::new();
    if let Some(argument) = declaration.child_by_field_name("argument") {
        collect(argument, &[], declaration, text, &mut out);
    }
    out
}

fn collect<'t>(
    node: Node<'t>,
    prefix: &[String],
    declaration: Node<'t>,
    text: &str,
    out: &mut Vec<UseLeaf<'t>>,
) {
    let leaf = |own: Vec<String>, alias: Option<String>| {
        let mut path = prefix.to_vec();
        let count = own.len();
        path.extend(own);
        UseLeaf {
            path,
            alias,
            node,
            own: count,
            declaration,
        }
    };
    match node.kind() {
        "use_as_clause" => {
            let own = node
                .child_by_field_name("path")
                .map(|p| segments_of(node_text(p, text)))
                .unwrap_or_default();
            let alias = node
                .child_by_field_name("alias")
                .map(|a| node_text(a, text).to_string());
            out.push(leaf(own, alias));
        }
        "use_wildcard" => {
            let mut own = node
                .named_child(0)
                .map(|p| segments_of(node_text(p, text)))
                .unwrap_or_default();
            own.push("*".to_string());
            out.push(leaf(own, None));
        }
        "scoped_use_list" => {
            let mut inner = prefix.to_vec();
            if let Some(path) = node.child_by_field_name("path") {
                inner.extend(segments_of(node_text(path, text)));
            }
            if let Some(list) = node.child_by_field_name("list") {
                collect(list, &inner, declaration, text, out);
            }
        }
        "use_list" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                collect(child, prefix, declaration, text, out);
            }
        }
        "line_comment" | "block_comment" | "attribute_item" => {}
        _ => out.push(leaf(segments_of(node_text(node, text)), None)),
    }
}

/// The leaves of the file's top-level `use` declarations.
pub fn top_level_leaves<'t>(tree: &'t Tree, text: &str) -> Vec<UseLeaf<'t>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let declarations: Vec<Node<'t>> = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() == "use_declaration")
        .collect();
    declarations
        .into_iter()
        .flat_map(|d| leaves(d, text))
        .collect()
}

/// The leaf of a `use` declaration anywhere in the file whose node is at `range`.
pub fn leaf_at<'t>(tree: &'t Tree, text: &str, range: &Range<usize>) -> Option<UseLeaf<'t>> {
    let node = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end)?;
    let declaration = crate::lang::ancestor_of_kind(node, "use_declaration")
        .or_else(|| (node.kind() == "use_declaration").then_some(node))?;
    leaves(declaration, text)
        .into_iter()
        .find(|l| l.node.byte_range() == *range)
}

/// The visibility an item or declaration is written with (`pub`, `pub(crate)`), if any.
pub fn visibility_of<'a>(item: Node<'_>, text: &'a str) -> Option<&'a str> {
    visibility_range(item).map(|r| &text[r])
}

/// Where the visibility of an item or declaration is written.
pub fn visibility_range(item: Node<'_>) -> Option<Range<usize>> {
    let mut cursor = item.walk();
    item.named_children(&mut cursor)
        .find(|c| c.kind() == "visibility_modifier")
        .map(|v| v.byte_range())
}

/// The outer attributes written before an item (`#[cfg(test)]`), as written.
pub fn attributes_of<'a>(item: Node<'_>, text: &'a str) -> Vec<&'a str> {
    let mut found = Vec::new();
    let mut previous = item.prev_named_sibling();
    while let Some(p) = previous {
        if p.kind() != "attribute_item" {
            break;
        }
        found.push(node_text(p, text));
        previous = p.prev_named_sibling();
    }
    found.reverse();
    found
}

/// The edits that take the leaves at `gone` (their nodes) out of `declaration`: each list loses
/// them, a list left empty goes from the list around it, and a declaration left with nothing goes
/// whole (`narrow`: its own lines only; otherwise with the blank lines that went with it).
pub fn leaves_removal(
    text: &str,
    declaration: Node<'_>,
    gone: &[Node<'_>],
    narrow: bool,
) -> Vec<TextEdit> {
    let mut removed: Vec<usize> = gone.iter().map(|n| n.id()).collect();
    // A list whose every item goes goes itself (its `path::{…}` with it), up to the argument.
    loop {
        let mut grew = false;
        for list in lists_in(declaration) {
            let items = list_items(list);
            let owner = list_owner(list);
            if !items.is_empty()
                && items.iter().all(|i| removed.contains(&i.id()))
                && !removed.contains(&owner.id())
            {
                removed.push(owner.id());
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let argument = declaration.child_by_field_name("argument");
    if argument.is_some_and(|a| removed.contains(&a.id())) {
        let range = declaration.byte_range();
        return vec![if narrow {
            remove_statement(text, range, "//")
        } else {
            let last = declaration.next_named_sibling().is_none();
            remove_item_lines(text, range, last, "//")
        }];
    }
    let mut edits = Vec::new();
    for list in lists_in(declaration) {
        let items = list_items(list);
        if removed.contains(&list_owner(list).id()) {
            continue;
        }
        let ranges: Vec<Range<usize>> = items.iter().map(|i| i.byte_range()).collect();
        let indices: Vec<usize> = items
            .iter()
            .enumerate()
            .filter(|(_, i)| removed.contains(&i.id()))
            .map(|(i, _)| i)
            .collect();
        // `a::{b, c}` losing `c` becomes `a::b` (not `a::{self}`, which is not `a`).
        let kept: Vec<&Node<'_>> = items
            .iter()
            .filter(|i| !removed.contains(&i.id()))
            .collect();
        if let [only] = kept.as_slice()
            && !indices.is_empty()
            && only.kind() != "self"
            && !has_comment(list)
            && !lists_in(declaration).iter().any(|inner| {
                inner.id() != list.id()
                    && contains(list, *inner)
                    && !removed.contains(&list_owner(*inner).id())
            })
        {
            edits.push(TextEdit::new(
                list.byte_range(),
                node_text(**only, text).to_string(),
            ));
            continue;
        }
        if !indices.is_empty()
            && let Some(list_edits) = remove_list_items(&ranges, &indices)
        {
            edits.extend(list_edits);
        }
    }
    edits
}

/// The `{…}` lists of a declaration, outermost first.
fn lists_in(declaration: Node<'_>) -> Vec<Node<'_>> {
    let mut lists = Vec::new();
    crate::lang::walk_node(declaration, |n| {
        if n.kind() == "use_list" {
            lists.push(n);
        }
        true
    });
    lists
}

fn has_comment(list: Node<'_>) -> bool {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .any(|i| i.kind().ends_with("comment"))
}

fn contains(outer: Node<'_>, inner: Node<'_>) -> bool {
    outer.start_byte() <= inner.start_byte() && inner.end_byte() <= outer.end_byte()
}

fn list_items(list: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = list.walk();
    list.named_children(&mut cursor)
        .filter(|i| !i.kind().ends_with("comment"))
        .collect()
}

/// What stands for a list in the list around it: its `path::{…}`, or the list itself.
fn list_owner(list: Node<'_>) -> Node<'_> {
    list.parent()
        .filter(|p| p.kind() == "scoped_use_list")
        .unwrap_or(list)
}

/// The heads of the paths in `ranges` that start with `self` or `super` (`super::super` in
/// `super::super::x()`, `self` in `self::y`), with their segments; not those inside a module
/// written in the code (its `self` and `super` are other modules) nor a visibility (`pub(super)`).
pub fn relative_heads(tree: &Tree, text: &str, ranges: &[Range<usize>]) -> Vec<RelativeHead> {
    let mut found = Vec::new();
    let inside = |at: usize| ranges.iter().any(|r| r.contains(&at));
    crate::lang::walk_overlapping(tree, ranges, |node| {
        if !matches!(node.kind(), "self" | "super") || !inside(node.start_byte()) {
            return;
        }
        let Some(parent) = node.parent() else { return };
        let is_path_head = matches!(
            parent.kind(),
            "scoped_identifier" | "scoped_type_identifier" | "scoped_use_list" | "use_wildcard"
        ) && parent
            .child_by_field_name("path")
            .is_none_or(|p| p.id() == node.id())
            && parent.child(0).is_some_and(|c| c.id() == node.id());
        if !is_path_head
            || crate::lang::ancestors(node).any(|a| {
                a.kind() == "visibility_modifier"
                    || (a.kind() == "mod_item" && inside(a.start_byte()))
            })
        {
            return;
        }
        // `super::super::x`: the head grows while the parent's name is `super` too.
        let mut head = node;
        let mut segments = vec![node_text(node, text).to_string()];
        while let Some(up) = head.parent() {
            let name = up.child_by_field_name("name");
            match name {
                Some(n) if n.kind() == "super" && up.kind() == "scoped_identifier" => {
                    segments.push("super".to_string());
                    head = up;
                }
                _ => break,
            }
        }
        let next = head
            .parent()
            .and_then(|p| p.child_by_field_name("name"))
            .map(|n| node_text(n, text).to_string());
        found.push(RelativeHead {
            range: head.byte_range(),
            segments,
            next,
        });
    });
    found
}

/// A path head relative to the module the code is in (see [`relative_heads`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelativeHead {
    pub range: Range<usize>,
    /// `["super", "super"]`, `["self"]`.
    pub segments: Vec<String>,
    /// The segment after the head (`x` in `super::x::y`), when it is a name.
    pub next: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    fn apply(text: &str, edits: Vec<TextEdit>) -> String {
        let edits = crate::edit::validate(text, edits).unwrap();
        crate::edit::apply(text, &edits)
    }

    fn remove(text: &str, names: &[&str]) -> String {
        let tree = Language::Rust.parse(text);
        let all = top_level_leaves(&tree, text);
        let declaration = all[0].declaration;
        let gone: Vec<Node<'_>> = all
            .iter()
            .filter(|l| l.declaration.id() == declaration.id())
            .filter(|l| l.bound_name().is_some_and(|n| names.contains(&n.as_str())))
            .map(|l| l.node)
            .collect();
        apply(text, leaves_removal(text, declaration, &gone, false))
    }

    #[test]
    fn leaves_know_their_path_and_name() {
        let text = "use std::{fmt::{self, Write as W}, io::*};\npub use crate::a::b;\n";
        let tree = Language::Rust.parse(text);
        let leaves = top_level_leaves(&tree, text);
        let shown: Vec<(String, Option<String>, usize)> = leaves
            .iter()
            .map(|l| (l.path.join("::"), l.bound_name(), l.own))
            .collect();
        assert_eq!(
            shown,
            vec![
                ("std::fmt::self".to_string(), Some("fmt".to_string()), 1),
                ("std::fmt::Write".to_string(), Some("W".to_string()), 1),
                ("std::io::*".to_string(), None, 2),
                ("crate::a::b".to_string(), Some("b".to_string()), 3),
            ]
        );
        assert_eq!(leaves[1].list_prefix(), ["std", "fmt"]);
        assert_eq!(visibility_of(leaves[3].declaration, text), Some("pub"));
        let found = leaf_at(&tree, text, &leaves[1].node.byte_range()).unwrap();
        assert_eq!(found.alias.as_deref(), Some("W"));
    }

    #[test]
    fn leaves_leave_their_lists() {
        assert_eq!(
            remove(
                "use crate::{lowercase, transform};\n\nfn f() {}\n",
                &["lowercase"]
            ),
            "use crate::transform;\n\nfn f() {}\n"
        );
        assert_eq!(
            remove(
                "use std::{fmt::{self, Write}, io};\nfn f() {}\n",
                &["fmt", "Write"]
            ),
            "use std::io;\nfn f() {}\n"
        );
        assert_eq!(
            remove("use a::{b, self, c};\n", &["b", "c"]),
            "use a::{self};\n"
        );
        assert_eq!(
            remove("use a::{b::{c, d}, e};\n", &["e", "d"]),
            "use a::{b::c};\n"
        );
        assert_eq!(
            remove(
                "use std::{fmt::{self, Write}, io};\nfn f() {}\n",
                &["fmt", "Write", "io"]
            ),
            "fn f() {}\n"
        );
        assert_eq!(
            remove("use core::fmt;\nuse core::str;\n", &["fmt"]),
            "use core::str;\n"
        );
    }

    #[test]
    fn relative_heads_are_found_outside_nested_modules() {
        let text = "fn f() -> super::T {\n    self::g();\n    super::super::h::i();\n    mod m { fn x() { super::y(); } }\n}\npub(super) fn z() {}\n";
        let tree = Language::Rust.parse(text);
        let whole = 0..text.len();
        let heads = relative_heads(&tree, text, std::slice::from_ref(&whole));
        let shown: Vec<(&str, Vec<String>)> = heads
            .iter()
            .map(|h| (&text[h.range.clone()], h.segments.clone()))
            .collect();
        assert_eq!(
            shown,
            vec![
                ("super", vec!["super".to_string()]),
                ("self", vec!["self".to_string()]),
                (
                    "super::super",
                    vec!["super".to_string(), "super".to_string()]
                ),
            ]
        );
    }
}
