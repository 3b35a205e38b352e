//! Rust `use` declarations: whether a file imports a name from a module (or all of it with a
//! glob), and the shape of the `use` a mention of a name stands in (a whole declaration, an item
//! of a list, an alias), with the edit that removes it.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::paths::{list_prefix, module_at, resolve_prefix};
use crate::lang::syntax::Binding;
use crate::lang::{node_text, walk_node};

/// Whether the file at `path` imports `name` from the module `module` (a path from the crate
/// root), by name or with a glob. Only `use` declarations outside functions count.
pub fn imports_from_module(
    tree: &Tree,
    text: &str,
    path: &str,
    name: &str,
    module: &[String],
) -> bool {
    uses_from_module(tree, text, path, name, module, false)
}

/// Whether the file at `path` re-exports `name` from the module `module` with a `pub use` (by
/// name or with a glob, `pub use money::*;`): other crates reach it through this file's module.
pub fn reexports_from_module(
    tree: &Tree,
    text: &str,
    path: &str,
    name: &str,
    module: &[String],
) -> bool {
    uses_from_module(tree, text, path, name, module, true)
}

fn uses_from_module(
    tree: &Tree,
    text: &str,
    path: &str,
    name: &str,
    module: &[String],
    only_pub: bool,
) -> bool {
    let mut found = false;
    walk_node(tree.root_node(), |n| {
        if n.kind() != "use_declaration" {
            return !matches!(n.kind(), "function_item");
        }
        if only_pub {
            let mut cursor = n.walk();
            let public = n
                .children(&mut cursor)
                .any(|c| c.kind() == "visibility_modifier" && node_text(c, text) == "pub");
            if !public {
                return false;
            }
        }
        let here = module_at(path, n, text);
        let names_module = |prefix: &str| resolve_prefix(prefix, &here).iter().any(|c| c == module);
        walk_node(n, |u| match u.kind() {
            "scoped_identifier" => {
                let named = u
                    .child_by_field_name("name")
                    .is_some_and(|x| node_text(x, text) == name);
                let in_list = u.parent().is_some_and(|p| p.kind() == "use_list");
                let prefix = u
                    .child_by_field_name("path")
                    .map(|p| node_text(p, text))
                    .unwrap_or("");
                let prefix = match (in_list, list_prefix(u, text)) {
                    (true, Some(outer)) => format!("{outer}::{prefix}"),
                    _ => prefix.to_string(),
                };
                if named && names_module(&prefix) {
                    found = true;
                }
                false
            }
            "identifier"
                if node_text(u, text) == name
                    && u.parent().is_some_and(|p| p.kind() == "use_list") =>
            {
                if let Some(prefix) = list_prefix(u, text)
                    && names_module(&prefix)
                {
                    found = true;
                }
                false
            }
            "use_wildcard" => {
                let prefix = node_text(u, text)
                    .trim_end_matches('*')
                    .trim_end_matches("::")
                    .to_string();
                let prefix = match list_prefix(u, text) {
                    Some(outer) if u.parent().is_some_and(|p| p.kind() == "use_list") => {
                        format!("{outer}::{prefix}")
                    }
                    _ => prefix,
                };
                if names_module(&prefix) {
                    found = true;
                }
                false
            }
            _ => true,
        });
        false
    });
    found
}

/// How a `use` declaration holds the name a mention is.
#[derive(Debug, Clone)]
pub enum ImportShape {
    /// `use m::name;`: the whole declaration.
    Whole,
    /// An item of a `{...}` list: the edit removing it, or `None` when the list has only that
    /// item and is nested (removing it would take more than the item).
    ListItem(Option<crate::edit::TextEdit>),
    /// `use m::name as other;`
    Aliased,
    /// Any other form.
    Other,
}

/// The `use` declaration a mention of a name (`node`) stands in, with what it imports it from.
#[derive(Debug, Clone)]
pub struct ImportAt<'t> {
    pub declaration: Node<'t>,
    /// The module path the name is imported from, as written (`crate::util`).
    pub prefix: String,
    /// The module the declaration is written in.
    pub here: Vec<String>,
    pub shape: ImportShape,
    /// `pub use`: a re-export.
    pub public: bool,
}

/// The import a mention of a name (`node`, in the file at `path`) stands in, if it is the name
/// a `use` binds.
pub fn import_at<'t>(node: Node<'t>, text: &str, path: &str) -> Option<ImportAt<'t>> {
    let declaration = crate::lang::ancestor_of_kind(node, "use_declaration")?;
    let here = module_at(path, declaration, text);
    let parent = node.parent()?;
    let (prefix, shape) = match parent.kind() {
        "scoped_identifier"
            if parent
                .child_by_field_name("name")
                .is_some_and(|n| n.id() == node.id()) =>
        {
            let own = parent
                .child_by_field_name("path")
                .map(|p| node_text(p, text).to_string())
                .unwrap_or_default();
            match parent.parent().map(|g| g.kind()) {
                Some("use_declaration") => (own, ImportShape::Whole),
                Some("use_list") => (
                    list_prefix(parent, text)
                        .map_or(own.clone(), |outer| format!("{outer}::{own}")),
                    list_item(parent, declaration),
                ),
                Some("use_as_clause") => (own, ImportShape::Aliased),
                _ => (own, ImportShape::Other),
            }
        }
        "use_list" => (
            list_prefix(node, text).unwrap_or_default(),
            list_item(node, declaration),
        ),
        "use_as_clause" => (
            list_prefix(parent, text).unwrap_or_default(),
            ImportShape::Aliased,
        ),
        _ => return None,
    };
    let public = declaration
        .children(&mut declaration.walk())
        .any(|x| x.kind() == "visibility_modifier");
    Some(ImportAt {
        declaration,
        prefix,
        here,
        shape,
        public,
    })
}

/// The removal of `item` from its `use` list: the item with its comma, the whole declaration
/// when the list is its only argument and holds only the item, `None` otherwise.
fn list_item(item: Node<'_>, declaration: Node<'_>) -> ImportShape {
    let Some(list) = item.parent() else {
        return ImportShape::Other;
    };
    let items: Vec<Node<'_>> = list
        .named_children(&mut list.walk())
        .filter(|i| !i.kind().ends_with("comment"))
        .collect();
    let ranges: Vec<Range<usize>> = items.iter().map(|i| i.byte_range()).collect();
    let index = items.iter().position(|i| i.id() == item.id()).unwrap_or(0);
    match crate::text::surgery::remove_list_item(&ranges, index) {
        Some(edit) => ImportShape::ListItem(Some(edit)),
        None if list
            .parent()
            .and_then(|l| l.parent())
            .is_some_and(|d| d.id() == declaration.id()) =>
        {
            ImportShape::Whole
        }
        None => ImportShape::ListItem(None),
    }
}

/// The alias a `use` gives the name `node` (`g` in `use m::f as g;`), when it is not the alias
/// itself.
pub fn alias_of(node: Node<'_>, text: &str) -> Option<String> {
    crate::lang::import_alias_of(node, text, "use_as_clause", "scoped_identifier")
}

/// The `mod`/`use` line insertion: joining the group of the last top-level node `in_group`
/// accepts, else starting a group after the last one `after` accepts, else after the file's
/// header (inner attributes, `//!` docs, `extern crate`), else at the top; a new group is set
/// apart by blank lines from the code around it once `removals` are gone.
pub fn line_insertion(
    tree: &Tree,
    text: &str,
    line: &str,
    line_ending: &str,
    removals: &[std::ops::Range<usize>],
    in_group: impl Fn(Node<'_>) -> bool,
    after: impl Fn(Node<'_>) -> bool,
) -> (usize, String) {
    let index = crate::text::LineIndex::new(text);
    let root = tree.root_node();
    let mut cursor = root.walk();
    let children: Vec<Node<'_>> = root.named_children(&mut cursor).collect();
    let end_of_line = |node: Node<'_>| {
        index.line_start(index.line_of(node.end_byte().max(node.start_byte() + 1) - 1) + 1)
    };
    let missing_newline = |at: usize| {
        if at == text.len() && !text.is_empty() && !text.ends_with('\n') {
            line_ending
        } else {
            ""
        }
    };
    let next_is_blank = |at: usize| {
        let (blanks, next) = crate::text::surgery::blank_lines_from(text, at, removals);
        blanks > 0 || next.is_none()
    };
    if let Some(anchor) = children.iter().rev().find(|n| in_group(**n)) {
        let at = end_of_line(*anchor);
        return (at, format!("{}{line}{line_ending}", missing_newline(at)));
    }
    let header = children
        .iter()
        .take_while(|n| match n.kind() {
            "inner_attribute_item" | "extern_crate_declaration" => true,
            "line_comment" | "block_comment" => {
                let t = node_text(**n, text);
                t.starts_with("//!") || t.starts_with("/*!")
            }
            _ => false,
        })
        .last();
    let previous_group = children.iter().rev().find(|n| after(**n)).or(header);
    if let Some(last) = previous_group {
        let at = end_of_line(*last);
        let after = if next_is_blank(at) { "" } else { line_ending };
        return (
            at,
            format!(
                "{}{line_ending}{line}{line_ending}{after}",
                missing_newline(at)
            ),
        );
    }
    let after = if next_is_blank(0) { "" } else { line_ending };
    (0, format!("{line}{line_ending}{after}"))
}

/// Every leaf of the top-level `use` trees: (path segments, alias, the declaration).
pub fn use_paths<'t>(tree: &'t Tree, text: &str) -> Vec<(Vec<String>, Option<String>, Node<'t>)> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let declarations: Vec<Node<'t>> = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() == "use_declaration")
        .collect();
    declarations
        .into_iter()
        .flat_map(|d| use_leaves(d, text).into_iter().map(move |(p, a)| (p, a, d)))
        .collect()
}

pub fn segments_of(path: &str) -> Vec<String> {
    path.split("::")
        .map(|s| s.split_whitespace().collect::<String>())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The leaves of one `use` declaration, flattened: `use a::{b, c::d as e, f::*}` →
/// `a::b`, `a::c::d as e`, `a::f::*`.
pub fn use_leaves(declaration: Node<'_>, text: &str) -> Vec<(Vec<String>, Option<String>)> {
    let mut leaves = Vec::new();
    let Some(argument) = declaration.child_by_field_name("argument") else {
        return leaves;
    };
    let mut stack: Vec<(Node<'_>, Vec<String>)> = vec![(argument, Vec::new())];
    while let Some((node, prefix)) = stack.pop() {
        let join =
            |tail: Vec<String>| -> Vec<String> { prefix.iter().cloned().chain(tail).collect() };
        match node.kind() {
            "use_as_clause" => {
                let path = node
                    .child_by_field_name("path")
                    .map(|p| segments_of(node_text(p, text)))
                    .unwrap_or_default();
                let alias = node
                    .child_by_field_name("alias")
                    .map(|a| node_text(a, text).to_string());
                leaves.push((join(path), alias));
            }
            "use_wildcard" => {
                let inner = node
                    .named_child(0)
                    .map(|p| segments_of(node_text(p, text)))
                    .unwrap_or_default();
                let mut path = join(inner);
                path.push("*".to_string());
                leaves.push((path, None));
            }
            "scoped_use_list" => {
                let path = node
                    .child_by_field_name("path")
                    .map(|p| segments_of(node_text(p, text)))
                    .unwrap_or_default();
                if let Some(list) = node.child_by_field_name("list") {
                    stack.push((list, join(path)));
                }
            }
            "use_list" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    stack.push((child, prefix.clone()));
                }
            }
            "line_comment" | "block_comment" | "attribute_item" => {}
            _ => leaves.push((join(segments_of(node_text(node, text))), None)),
        }
    }
    leaves
}

pub fn top_level_bindings(tree: &Tree, text: &str) -> Vec<Binding> {
    let mut out = Vec::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for node in root.named_children(&mut cursor) {
        let offset = node.start_byte();
        match node.kind() {
            "use_declaration" => {
                let public = node
                    .children(&mut node.walk())
                    .any(|c| c.kind() == "visibility_modifier");
                for (path, alias) in use_leaves(node, text) {
                    let name = match (alias, path.as_slice()) {
                        (Some(alias), _) => alias,
                        (None, [.., last]) if last == "*" => continue,
                        (None, [.., parent, last]) if last == "self" => parent.clone(),
                        (None, [.., last]) => last.clone(),
                        (None, []) => continue,
                    };
                    out.push(Binding {
                        name,
                        offset,
                        imported: true,
                        public,
                        module: false,
                    });
                }
            }
            "extern_crate_declaration" => {
                let name = node
                    .child_by_field_name("alias")
                    .or_else(|| node.child_by_field_name("name"));
                if let Some(name) = name {
                    out.push(Binding {
                        name: node_text(name, text).to_string(),
                        offset,
                        imported: true,
                        public: false,
                        module: true,
                    });
                }
            }
            kind if super::items::is_definition_kind(kind) => {
                if let Some(name) = node.child_by_field_name("name") {
                    out.push(Binding {
                        name: node_text(name, text).to_string(),
                        offset,
                        imported: false,
                        public: super::items::is_visible(node, text),
                        module: kind == "mod_item",
                    });
                }
            }
            _ => {}
        }
    }
    out
}

/// A path in a file that reaches a name (see [`paths_to`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathTo {
    /// `use head::name;` (the whole path).
    Use(Vec<String>),
    /// `use head::*;` (the whole path) in a file that mentions the name.
    Glob(Vec<String>),
    /// `head::name` in code (the head).
    Qualified(Vec<String>),
}

/// The paths of a file that reach `name` through a module `reaches` accepts (given the
/// segments before the name, and the inline modules the path is written in), with their 1-based
/// lines and ranges (a `use` leaf's node, the head of a qualified path), in document order.
pub fn paths_to(
    tree: &Tree,
    text: &str,
    name: &str,
    reaches: impl Fn(&[String], &[String]) -> bool,
) -> Vec<(usize, PathTo, Range<usize>)> {
    let mut found = Vec::new();
    let mentions_name = text.contains(name);
    crate::lang::walk_tree(tree, |node| match node.kind() {
        "use_declaration" => {
            for leaf in super::use_edits::leaves(node, text) {
                let Some((last, head)) = leaf.path.split_last() else {
                    continue;
                };
                let line = leaf.node.start_position().row + 1;
                let range = leaf.node.byte_range();
                let inline = inline_modules(node, text);
                if last == name && reaches(head, &inline) {
                    found.push((line, PathTo::Use(leaf.path.clone()), range));
                } else if last == "*" && reaches(head, &inline) && mentions_name {
                    found.push((line, PathTo::Glob(leaf.path.clone()), range));
                }
            }
            false
        }
        "scoped_identifier" | "scoped_type_identifier" => {
            let tail = node.child_by_field_name("name").map(|n| node_text(n, text));
            let head = node.child_by_field_name("path");
            if let (Some(tail), Some(head)) = (tail, head)
                && tail == name
                && reaches(
                    &segments_of(node_text(head, text)),
                    &inline_modules(node, text),
                )
            {
                found.push((
                    node.start_position().row + 1,
                    PathTo::Qualified(segments_of(node_text(head, text))),
                    head.byte_range(),
                ));
                return false;
            }
            true
        }
        "token_tree" if mentions_name => {
            let paths = token_tree_paths(node, text, name);
            // The modules around are looked up only for a path found (an ancestor walk).
            let inline = if paths.is_empty() {
                Vec::new()
            } else {
                inline_modules(node, text)
            };
            for (row, head, range) in paths {
                if reaches(&head, &inline) {
                    found.push((row + 1, PathTo::Qualified(head), range));
                }
            }
            true
        }
        _ => true,
    });
    found
}

/// The paths `a::b::name` written as tokens of a macro's arguments (`assert_eq!(a::name(1),
/// 2)`): (0-based row, the head's segments, the head's range).
fn token_tree_paths(
    tree: Node<'_>,
    text: &str,
    name: &str,
) -> Vec<(usize, Vec<String>, Range<usize>)> {
    let tokens: Vec<Node<'_>> = {
        let mut cursor = tree.walk();
        tree.children(&mut cursor).collect()
    };
    let is_segment = |n: &Node<'_>| matches!(n.kind(), "identifier" | "crate" | "self" | "super");
    let mut found = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        // A maximal run `segment (:: segment)*`, not itself after a `::`.
        if !is_segment(&tokens[i]) || (i > 0 && tokens[i - 1].kind() == "::") {
            i += 1;
            continue;
        }
        let mut run = vec![tokens[i]];
        let mut j = i + 1;
        while j + 1 < tokens.len() && tokens[j].kind() == "::" && is_segment(&tokens[j + 1]) {
            run.push(tokens[j + 1]);
            j += 2;
        }
        if let Some((last, head)) = run.split_last()
            && !head.is_empty()
            && node_text(*last, text) == name
        {
            found.push((
                head[0].start_position().row,
                head.iter()
                    .map(|n| node_text(*n, text).to_string())
                    .collect(),
                head[0].start_byte()..head[head.len() - 1].end_byte(),
            ));
        }
        i = j;
    }
    found
}

/// The inline modules (`mod tests { … }`) around a node, outermost first.
fn inline_modules(node: Node<'_>, text: &str) -> Vec<String> {
    let mut names: Vec<String> = crate::lang::ancestors(node)
        .filter(|a| a.kind() == "mod_item")
        .filter_map(|a| a.child_by_field_name("name"))
        .map(|n| node_text(n, text).to_string())
        .collect();
    names.reverse();
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;
    use crate::lang::rust::items::is_file_mod;

    #[test]
    fn paths_in_macro_arguments_are_found() {
        let text = "fn t() {\n    assert_eq!(crate::a::f(1), super::f(2));\n    println!(\"{}\", x::g::f);\n}\n";
        let tree = Language::Rust.parse(text);
        let found = paths_to(&tree, text, "f", |_, _| true);
        let heads: Vec<(usize, String, &str)> = found
            .iter()
            .map(|(line, path, range)| match path {
                PathTo::Qualified(head) => (*line, head.join("::"), &text[range.clone()]),
                other => panic!("{other:?}"),
            })
            .collect();
        assert_eq!(
            heads,
            vec![
                (2, "crate::a".to_string(), "crate::a"),
                (2, "super".to_string(), "super"),
                (3, "x::g".to_string(), "x::g"),
            ]
        );
    }

    fn insert(text: &str, line: &str, anchor: fn(Node<'_>) -> bool) -> String {
        let tree = Language::Rust.parse(text);
        let (at, new) = line_insertion(&tree, text, line, "\n", &[], anchor, is_file_mod);
        format!("{}{new}{}", &text[..at], &text[at..])
    }

    #[test]
    fn use_and_mod_lines_join_their_group_or_start_one() {
        let is_use = |n: Node<'_>| n.kind() == "use_declaration";
        assert_eq!(
            insert("use a::b;\n\nfn f() {}\n", "use c::d;", is_use),
            "use a::b;\nuse c::d;\n\nfn f() {}\n"
        );
        assert_eq!(
            insert("mod x;\n\nfn f() {}\n", "use c::d;", is_file_mod),
            "mod x;\nuse c::d;\n\nfn f() {}\n"
        );
        assert_eq!(
            insert(
                "//! Crate docs.\n#![allow(dead_code)]\nfn f() {}\n",
                "mod m;",
                is_file_mod
            ),
            "//! Crate docs.\n#![allow(dead_code)]\n\nmod m;\n\nfn f() {}\n"
        );
        assert_eq!(
            insert("fn f() {}\n", "mod m;", is_file_mod),
            "mod m;\n\nfn f() {}\n"
        );
        assert_eq!(insert("", "mod m;", is_file_mod), "mod m;\n");
        assert_eq!(
            insert("use a::b;", "use c::d;", is_use),
            "use a::b;\nuse c::d;\n"
        );
    }

    #[test]
    fn use_trees_are_flattened() {
        let text = "use std::{io::{self, Read}, collections::HashMap as Map};\nuse crate::a::*;\npub use b;\n";
        let tree = Language::Rust.parse(text);
        let mut leaves: Vec<String> = use_paths(&tree, text)
            .into_iter()
            .map(|(p, a, _)| {
                format!(
                    "{}{}",
                    p.join("::"),
                    a.map(|a| format!(" as {a}")).unwrap_or_default()
                )
            })
            .collect();
        leaves.sort();
        assert_eq!(
            leaves,
            [
                "b",
                "crate::a::*",
                "std::collections::HashMap as Map",
                "std::io::Read",
                "std::io::self"
            ]
        );
        let names: Vec<String> = top_level_bindings(&tree, text)
            .into_iter()
            .map(|b| b.name)
            .collect();
        assert_eq!(names.len(), 4);
        assert!(
            names.contains(&"io".to_string())
                && names.contains(&"Map".to_string())
                && names.contains(&"b".to_string())
        );
    }
}
