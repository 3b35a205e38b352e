//! `mod` declarations at the top of a Rust file: whether `name` is declared there, how visible it
//! is, whether it is inline, and the `#[cfg(…)]` that decide in which builds it exists.

use tree_sitter::{Node, Tree};

use super::items::{is_visible, visibility};
use crate::lang::node_text;

/// A `mod name;` (or `mod name { … }`) at the top level of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModDecl {
    /// Any visibility that reaches beyond the declaring module (`pub`, `pub(crate)`, …).
    pub public: bool,
    /// Plain `pub`: reachable from other crates when its parents are.
    pub exported: bool,
    pub inline: bool,
    /// The `#[cfg(…)]` attributes directly above it, as written (`None` when there are none):
    /// the module exists only in the builds they select.
    pub cfg: Option<String>,
}

pub fn mod_declaration(tree: &Tree, text: &str, name: &str) -> Option<ModDecl> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() == "mod_item")
        .find(|n| {
            n.child_by_field_name("name")
                .is_some_and(|x| node_text(x, text) == name)
        })
        .map(|n| ModDecl {
            public: is_visible(n, text),
            exported: visibility(n).is_some_and(|v| node_text(v, text) == "pub"),
            inline: n.child_by_field_name("body").is_some(),
            cfg: cfg_above(n, text),
        })
}

/// The `#[cfg(…)]` attributes directly above `item`, joined by a space.
fn cfg_above(item: Node<'_>, text: &str) -> Option<String> {
    let mut found = Vec::new();
    let mut previous = item.prev_named_sibling();
    while let Some(p) = previous {
        match p.kind() {
            "attribute_item" => {
                let written = node_text(p, text).trim();
                if written.replace(' ', "").starts_with("#[cfg(") {
                    found.push(written.to_string());
                }
            }
            "line_comment" | "block_comment" => {}
            _ => break,
        }
        previous = p.prev_named_sibling();
    }
    found.reverse();
    (!found.is_empty()).then(|| found.join(" "))
}

pub fn is_file_mod(node: Node<'_>) -> bool {
    node.kind() == "mod_item" && node.child_by_field_name("body").is_none()
}
