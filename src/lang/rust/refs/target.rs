//! The Rust symbol a name stands for, as the references engine needs it: an item of a module
//! (function, struct, enum, trait, union, type alias, constant, static), a member of a type
//! (method or associated function, field, associated constant, enum variant), or a binding of
//! one function (local, parameter) — from its definition, or from a use the file resolves (a
//! local, a `use`, `self.name`, `Type::name`).

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::scope::{Evident, UseLeaf, outermost_function, receiver_type, self_type, uses};
use crate::lang::finder::NodeFinder;
use crate::lang::names::{Names, Role as NameRole};
use crate::lang::refs::{LocalBinding, Member, MemberKind, NoTarget, Target, TargetKind};
use crate::lang::rust::items::{impl_type_name, is_definition_kind};
use crate::lang::rust::paths::{last_path_segment, module_at, resolve_prefix};
use crate::lang::{Language, node_text, walk_tree};

const SPECIAL: &[&str] = &["self", "Self", "super", "crate"];

pub fn target_at(tree: &Tree, text: &str, path: &str, at: usize) -> Result<Target, NoTarget> {
    let end = text[at..]
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(text.len(), |(i, _)| at + i);
    if end == at {
        return Err(NoTarget::NotAName);
    }
    let name = text[at..end].to_string();
    if SPECIAL.contains(&name.as_str()) {
        return Err(NoTarget::Special { name });
    }
    let mut finder = NodeFinder::new(tree);
    finder.seek(at, end);
    let Some(&node) = finder.path().last() else {
        return Err(NoTarget::NotAName);
    };
    let is_name = matches!(
        node.kind(),
        "identifier" | "type_identifier" | "field_identifier" | "shorthand_field_identifier"
    );
    if !is_name || node.byte_range() != (at..end) {
        return Err(NoTarget::NotAName);
    }
    let Some(parent) = node.parent() else {
        return Err(NoTarget::NotAName);
    };
    if let Some(target) = super::generic::target(node, text, path) {
        return Ok(target);
    }
    if let Some(target) = super::macros::target(tree, node, parent, text, path) {
        return target;
    }
    if let Some(target) = definition(node, parent, text, path) {
        return Ok(target);
    }
    if let Some(target) = local(node, text, path) {
        return Ok(target);
    }
    use_target(tree, node, parent, text, path)
}

fn make(
    node: Node<'_>,
    text: &str,
    path: &str,
    kind: TargetKind,
    label: &'static str,
    range: Range<usize>,
) -> Target {
    Target {
        lang: Language::Rust,
        name: node_text(node, text).to_string(),
        kind,
        label,
        path: path.to_string(),
        module: module_at(path, node, text),
        name_range: node.byte_range(),
        range,
    }
}

fn item_label(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "function_item" | "function_signature_item" => "function",
        "struct_item" => "struct",
        "enum_item" => "enum",
        "union_item" => "union",
        "trait_item" => "trait",
        "type_item" => "type alias",
        "const_item" => "constant",
        "static_item" => "static",
        _ => return None,
    })
}

/// The name of a definition: an item, a member of an impl or trait, a field, a variant.
fn definition(node: Node<'_>, parent: Node<'_>, text: &str, path: &str) -> Option<Target> {
    let is_name = parent.child_by_field_name("name") == Some(node);
    if !is_name {
        return None;
    }
    match parent.kind() {
        "field_declaration" => {
            let owner = crate::lang::ancestors(parent)
                .find(|a| matches!(a.kind(), "struct_item" | "union_item" | "enum_variant"))?;
            let owner_name = owner.child_by_field_name("name")?;
            let owner_name = if owner.kind() == "enum_variant" {
                return None;
            } else {
                node_text(owner_name, text).to_string()
            };
            Some(make(
                node,
                text,
                path,
                member(owner_name, None, MemberKind::Field),
                "field",
                parent.byte_range(),
            ))
        }
        "enum_variant" => {
            let enum_item = crate::lang::ancestor_of_kind(parent, "enum_item")?;
            let owner = node_text(enum_item.child_by_field_name("name")?, text).to_string();
            Some(make(
                node,
                text,
                path,
                member(owner, None, MemberKind::Field),
                "variant",
                parent.byte_range(),
            ))
        }
        kind if is_definition_kind(kind) => {
            let label = item_label(kind)?;
            let container = parent.parent()?;
            let owner = (container.kind() == "declaration_list")
                .then(|| container.parent())
                .flatten()
                .filter(|o| matches!(o.kind(), "impl_item" | "trait_item"));
            let Some(owner) = owner else {
                return Some(make(
                    node,
                    text,
                    path,
                    TargetKind::Item,
                    label,
                    parent.byte_range(),
                ));
            };
            let (owner_name, trait_name) = owner_and_trait(owner, text);
            let member_kind = if label == "function" {
                MemberKind::Method
            } else {
                MemberKind::Field
            };
            let label = match (label, member_kind) {
                ("function", _) => "method",
                ("constant", _) => "associated constant",
                ("type alias", _) => "associated type",
                (other, _) => other,
            };
            Some(make(
                node,
                text,
                path,
                member(owner_name, trait_name, member_kind),
                label,
                parent.byte_range(),
            ))
        }
        _ => None,
    }
}

/// The type an impl is for (or the trait's name) and the trait it implements (or is).
pub fn owner_and_trait(owner: Node<'_>, text: &str) -> (String, Option<String>) {
    if owner.kind() == "trait_item" {
        let name = owner
            .child_by_field_name("name")
            .map_or("", |n| node_text(n, text))
            .to_string();
        return (name.clone(), Some(name));
    }
    let trait_name = owner
        .child_by_field_name("trait")
        .map(|t| last_path_segment(node_text(t, text)));
    (impl_type_name(owner, text), trait_name)
}

fn member(owner: String, trait_name: Option<String>, kind: MemberKind) -> TargetKind {
    TargetKind::Member(Member {
        owner,
        trait_name,
        kind,
    })
}

/// A local variable or parameter: the binding itself, or a use that resolves to one.
fn local(node: Node<'_>, text: &str, path: &str) -> Option<Target> {
    if !matches!(node.kind(), "identifier" | "shorthand_field_identifier") {
        return None;
    }
    let function = outermost_function(node)?;
    let names = Names::collect(Language::Rust, function, text);
    let name = node_text(node, text);
    let at = node.start_byte();
    let binding = match names.all.iter().find(|o| o.pos == at && o.name == name) {
        Some(o) if o.role == NameRole::Bind => o,
        Some(_) => names.resolve(name, at)?,
        None => return None,
    };
    // A nested `fn` or local item is no local variable.
    if is_item_binding(function, binding.pos) {
        return None;
    }
    // The first alternative of an or-pattern stands for the variable all of them bind.
    let first = names.variable(binding.pos);
    let bound = function.descendant_for_byte_range(first, first + name.len())?;
    let label = if binding.parameter
        || crate::lang::ancestors(bound)
            .any(|a| a.kind() == "parameters" || a.kind() == "closure_parameters")
    {
        "parameter"
    } else {
        "local variable"
    };
    Some(Target {
        lang: Language::Rust,
        name: name.to_string(),
        kind: TargetKind::Local(LocalBinding {
            scope: function.byte_range(),
            binding: first,
            parameter_of: None,
        }),
        label,
        path: path.to_string(),
        module: module_at(path, node, text),
        name_range: bound.byte_range(),
        range: bound.byte_range(),
    })
}

fn is_item_binding(function: Node<'_>, pos: usize) -> bool {
    function
        .descendant_for_byte_range(pos, pos + 1)
        .and_then(|n| n.parent())
        .is_some_and(|p| is_definition_kind(p.kind()))
}

/// A use of a name: a path through the module or a `use`, `Type::member`, `self.member`.
fn use_target(
    tree: &Tree,
    node: Node<'_>,
    parent: Node<'_>,
    text: &str,
    path: &str,
) -> Result<Target, NoTarget> {
    let name = node_text(node, text).to_string();
    let here = module_at(path, node, text);
    let leaves = uses(tree, text, path);
    let at = node.start_byte();
    // `recv.name`: a member of the receiver's type, when it is evident and defined here.
    if parent.kind() == "field_expression" && parent.child_by_field_name("field") == Some(node) {
        let owner = parent
            .child_by_field_name("value")
            .map_or(Evident::Unknown, |v| receiver_type(v, text));
        return match owner {
            Evident::Type(owner) => member_here(tree, text, path, &owner, &name),
            Evident::Unknown => Err(NoTarget::Unresolved { name }),
        };
    }
    let head: Option<Vec<String>> = if matches!(
        parent.kind(),
        "scoped_identifier" | "scoped_type_identifier"
    ) && parent.child_by_field_name("name") == Some(node)
    {
        parent
            .child_by_field_name("path")
            .map(|p| crate::lang::rust::imports::segments_of(node_text(p, text)))
    } else {
        None
    };
    let in_use = crate::lang::ancestor_of_kind(node, "use_declaration").is_some();
    if in_use {
        let mut full: Vec<String> = crate::lang::rust::paths::list_prefix(node, text)
            .map(|p| crate::lang::rust::imports::segments_of(&p))
            .unwrap_or_default();
        full.extend(head.unwrap_or_default());
        let modules = resolve_prefix(&full.join("::"), &here);
        return Err(elsewhere(&full, modules, name));
    }
    if let Some(head) = head {
        // `Type::member` / `Self::member`.
        let last = head.last().cloned().unwrap_or_default();
        if last == "Self"
            && let Evident::Type(owner) = self_type(node, text)
        {
            return member_here(tree, text, path, &owner, &name);
        }
        if last.starts_with(|c: char| c.is_uppercase()) {
            return member_here(tree, text, path, &last, &name);
        }
        let modules = super::scope::modules_of(&head, &here, &leaves, at);
        if modules.contains(&here) {
            return item_here(tree, text, path, &here, &name);
        }
        return Err(elsewhere(&head, modules, name));
    }
    // A plain name: an item of this module, or one a `use` brings.
    if let Ok(target) = item_here(tree, text, path, &here, &name) {
        return Ok(target);
    }
    let imported: Option<&UseLeaf> = leaves
        .iter()
        .filter(|u| u.visible.contains(&at) && u.binds() == Some(name.as_str()))
        .max_by_key(|u| u.visible.start);
    if let Some(leaf) = imported {
        let original = leaf.original().unwrap_or(&name).to_string();
        let modules = resolve_prefix(&leaf.head().join("::"), &leaf.module);
        return Err(elsewhere(leaf.head(), modules, original));
    }
    Err(NoTarget::Unresolved { name })
}

fn elsewhere(head: &[String], modules: Vec<Vec<String>>, name: String) -> NoTarget {
    let module = if head
        .first()
        .is_some_and(|f| matches!(f.as_str(), "crate" | "self" | "super"))
    {
        modules.into_iter().next()
    } else {
        // A crate name first: the path after it.
        let mut modules = modules;
        if modules.len() > 1 {
            Some(modules.swap_remove(1))
        } else {
            modules.into_iter().next()
        }
    };
    match module {
        Some(module) => NoTarget::Elsewhere { module, name },
        None => NoTarget::Unresolved { name },
    }
}

/// The item `name` defined in module `here` of this file.
fn item_here(
    tree: &Tree,
    text: &str,
    path: &str,
    here: &[String],
    name: &str,
) -> Result<Target, NoTarget> {
    let mut found = None;
    walk_tree(tree, |node| {
        if found.is_some() {
            return false;
        }
        if item_label(node.kind()).is_some()
            && let Some(n) = node.child_by_field_name("name")
            && node_text(n, text) == name
            && module_at(path, node, text) == here
        {
            found = definition(n, node, text, path);
            return false;
        }
        // Not into bodies: their items are local to them.
        !matches!(node.kind(), "function_item" | "impl_item" | "trait_item")
    });
    found.ok_or_else(|| NoTarget::Unresolved {
        name: name.to_string(),
    })
}

/// The member `name` of type (or trait) `owner` defined in this file: a method or associated
/// item of one of its impls, a field of the struct, a variant of the enum.
fn member_here(
    tree: &Tree,
    text: &str,
    path: &str,
    owner: &str,
    name: &str,
) -> Result<Target, NoTarget> {
    let mut found: Option<Target> = None;
    walk_tree(tree, |node| {
        if found.is_some() {
            return false;
        }
        let owns = match node.kind() {
            "impl_item" => impl_type_name(node, text) == owner,
            "trait_item" | "struct_item" | "enum_item" | "union_item" => node
                .child_by_field_name("name")
                .is_some_and(|n| node_text(n, text) == owner),
            _ => return true,
        };
        if !owns {
            return true;
        }
        crate::lang::walk_node(node, |inner| {
            if found.is_some() {
                return false;
            }
            if let Some(n) = inner.child_by_field_name("name")
                && node_text(n, text) == name
                && let Some(target) = definition(n, inner, text, path)
            {
                found = Some(target);
                return false;
            }
            // Not into the bodies of the methods.
            !matches!(inner.kind(), "block")
        });
        false
    });
    found.ok_or_else(|| NoTarget::Unresolved {
        name: name.to_string(),
    })
}
