//! Macros defined by `macro_rules!` in the crate as rename targets: the name at the
//! definition and at every `name!` invocation (`crate::name!`, `$crate::name!` too). A file
//! that defines its own macro of the same name keeps its invocations.

use tree_sitter::{Node, Tree};

use crate::lang::refs::{Found, NoTarget, Role, Target, TargetKind, Verdict};
use crate::lang::rust::paths::module_at;
use crate::lang::{Language, node_text, walk_tree};

pub const MACRO: &str = "macro";

/// The name token of a `macro_rules!` definition, when `node` is one.
fn is_definition_name(node: Node<'_>, parent: Node<'_>) -> bool {
    parent.kind() == "macro_definition" && parent.child_by_field_name("name") == Some(node)
}

/// The macro an invocation's name token calls (`name!`, `crate::name!`): the invocation.
pub fn invocation_of(node: Node<'_>) -> Option<Node<'_>> {
    invocation_above(node, &[])
}

/// [`invocation_of`], with the ancestors of `node` already known (root first).
pub fn invocation_above<'t>(node: Node<'t>, ancestors: &[Node<'t>]) -> Option<Node<'t>> {
    let mut up = crate::lang::up_from(node, ancestors);
    let parent = up.next()?;
    if parent.kind() == "macro_invocation" && parent.child_by_field_name("macro") == Some(node) {
        return Some(parent);
    }
    let invocation = up.next()?;
    (parent.kind() == "scoped_identifier"
        && parent.child_by_field_name("name") == Some(node)
        && invocation.kind() == "macro_invocation"
        && invocation.child_by_field_name("macro") == Some(parent)
        && parent
            .child_by_field_name("path")
            .is_some_and(|p| matches!(p.kind(), "crate" | "identifier" | "metavariable")))
    .then_some(invocation)
}

/// Every `macro_rules!` definition of `name` in the file.
fn definitions<'t>(tree: &'t Tree, text: &str, name: &str) -> Vec<Node<'t>> {
    let mut found = Vec::new();
    walk_tree(tree, |n| {
        if n.kind() == "macro_definition" {
            if let Some(own) = n
                .child_by_field_name("name")
                .filter(|x| node_text(*x, text) == name)
            {
                found.push(own);
            }
            return false;
        }
        true
    });
    found
}

/// The macro `node` names: its definition, or an invocation (followed to the definition of
/// this file, or to the crate's).
pub fn target(
    tree: &Tree,
    node: Node<'_>,
    parent: Node<'_>,
    text: &str,
    path: &str,
) -> Option<Result<Target, NoTarget>> {
    let name = node_text(node, text);
    let definition = if is_definition_name(node, parent) {
        node
    } else {
        invocation_of(node)?;
        match definitions(tree, text, name).first() {
            Some(own) => *own,
            // Defined in another file of the crate (or not in the project: the driver says).
            None => {
                return Some(Err(NoTarget::Elsewhere {
                    module: Vec::new(),
                    name: name.to_string(),
                }));
            }
        }
    };
    let macro_definition = definition.parent()?;
    Some(Ok(Target {
        lang: Language::Rust,
        name: name.to_string(),
        kind: TargetKind::Item,
        label: MACRO,
        path: path.to_string(),
        module: module_at(path, definition, text),
        name_range: definition.byte_range(),
        range: macro_definition.byte_range(),
    }))
}

/// The verdict on an occurrence of a macro target's name: its definition, or an invocation
/// in a file that does not define a macro of that name itself.
pub fn judge(
    tree: &Tree,
    node: Node<'_>,
    target: &Target,
    path: &str,
    text: &str,
) -> Option<Found> {
    let parent = node.parent()?;
    let here = path == target.path;
    if here && node.byte_range() == target.name_range {
        return Some(Found::new(node, Role::Definition, Verdict::Certain));
    }
    if is_definition_name(node, parent) {
        return None;
    }
    // `name!(..)` among another macro's tokens (`println!("{}", name!(1))`).
    let in_tokens =
        parent.kind() == "token_tree" && node.next_sibling().is_some_and(|n| n.kind() == "!");
    if !in_tokens {
        invocation_of(node)?;
    }
    if !here && !definitions(tree, text, &target.name).is_empty() {
        return None;
    }
    Some(Found::new(node, Role::Call, Verdict::Certain))
}
