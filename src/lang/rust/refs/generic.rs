//! Type and lifetime parameters as rename targets: `T` in `fn f<T>(x: T)`, `'a` in
//! `impl<'a> Holder<'a>`. Each is bound by the generic parameter list of its item (a function,
//! an impl, a trait, a type) and used anywhere inside that item; an inner item that declares
//! the same name shadows it.

use tree_sitter::Node;

use crate::lang::refs::{Found, LocalBinding, Role, Target, TargetKind, Verdict};
use crate::lang::rust::paths::module_at;
use crate::lang::{Language, node_text};

pub const TYPE_PARAMETER: &str = "type parameter";
pub const LIFETIME_PARAMETER: &str = "lifetime parameter";

/// Items with a generic parameter list.
const GENERIC_ITEMS: &[&str] = &[
    "function_item",
    "function_signature_item",
    "impl_item",
    "trait_item",
    "struct_item",
    "enum_item",
    "union_item",
    "type_item",
];

/// What a name token may be as a generic parameter: a type (`T`, `T::new`) or a lifetime (the
/// identifier of `'a`).
fn kind_of(node: Node<'_>) -> Option<&'static str> {
    let parent = node.parent()?;
    match node.kind() {
        "type_identifier" => Some(TYPE_PARAMETER),
        "identifier" if parent.kind() == "lifetime" => Some(LIFETIME_PARAMETER),
        // `T::default()`: the path's head.
        "identifier"
            if parent.kind() == "scoped_identifier"
                && parent.child_by_field_name("path") == Some(node) =>
        {
            Some(TYPE_PARAMETER)
        }
        _ => None,
    }
}

/// The innermost item declaring `name` as a parameter of kind `kind` around `node`, with the
/// declared name's token.
fn declaration<'t>(
    node: Node<'t>,
    name: &str,
    kind: &str,
    text: &str,
) -> Option<(Node<'t>, Node<'t>)> {
    crate::lang::ancestors(node)
        .filter(|n| GENERIC_ITEMS.contains(&n.kind()))
        .find_map(|item| {
            let parameters = item.child_by_field_name("type_parameters")?;
            parameters
                .named_children(&mut parameters.walk())
                .filter_map(|p| declared_name(p, kind))
                .find(|declared| node_text(*declared, text) == name)
                .map(|declared| (item, declared))
        })
}

/// The name token a generic parameter declares, when it is of kind `kind`.
fn declared_name<'t>(parameter: Node<'t>, kind: &str) -> Option<Node<'t>> {
    match (parameter.kind(), kind) {
        (
            "type_parameter" | "constrained_type_parameter" | "optional_type_parameter",
            TYPE_PARAMETER,
        ) => {
            let name = parameter
                .child_by_field_name("name")
                .or_else(|| parameter.named_child(0))?;
            (name.kind() == "type_identifier").then_some(name)
        }
        ("lifetime_parameter", LIFETIME_PARAMETER) => {
            let lifetime = parameter
                .child_by_field_name("name")
                .or_else(|| parameter.named_child(0))?;
            lifetime.named_child(0).filter(|i| i.kind() == "identifier")
        }
        _ => None,
    }
}

/// The generic parameter `node` names, as a target: bound at its declaration, used in its
/// item.
pub fn target(node: Node<'_>, text: &str, path: &str) -> Option<Target> {
    let kind = kind_of(node)?;
    let name = node_text(node, text);
    let (item, declared) = declaration(node, name, kind, text)?;
    Some(Target {
        lang: Language::Rust,
        name: name.to_string(),
        kind: TargetKind::Local(LocalBinding {
            scope: item.byte_range(),
            binding: declared.start_byte(),
            parameter_of: None,
        }),
        label: kind,
        path: path.to_string(),
        module: module_at(path, node, text),
        name_range: declared.byte_range(),
        range: item.byte_range(),
    })
}

/// Whether a target is a generic parameter.
pub fn is_generic(target: &Target) -> bool {
    target.label == TYPE_PARAMETER || target.label == LIFETIME_PARAMETER
}

/// The verdict on an occurrence of a generic parameter's name: its own when the innermost
/// declaration around it is the target's.
pub fn judge(node: Node<'_>, target: &Target, local: &LocalBinding, text: &str) -> Option<Found> {
    if !local.scope.contains(&node.start_byte()) || kind_of(node)? != target.label {
        return None;
    }
    let (_, declared) = declaration(node, &target.name, target.label, text)?;
    if declared.start_byte() != local.binding {
        return None;
    }
    let role = if node.start_byte() == local.binding {
        Role::Definition
    } else {
        Role::Use
    };
    Some(Found::new(node, role, Verdict::Certain))
}
