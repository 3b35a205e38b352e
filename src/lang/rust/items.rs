//! Rust items: what a function item says about itself (owner and impl type, receiver,
//! modifiers, generics, return type), the impls and traits around code, and the items a scope
//! defines.

pub use super::mod_decls::{ModDecl, is_file_mod, mod_declaration};
use tree_sitter::{Node, Tree};

use crate::edit::TextEdit;
use crate::lang::syntax::{Defined, Enclosing, Function, Owner, Receiver};
use crate::lang::{node_text, walk_node, walk_tree};

/// `Foo` for `impl<T> Trait for &'a mut crate::m::Foo<T>`: the key under which the impls of a
/// type are grouped.
pub fn impl_type_name(impl_node: Node<'_>, text: &str) -> String {
    let mut ty = match impl_node.child_by_field_name("type") {
        Some(t) => t,
        None => return String::from("?"),
    };
    loop {
        let inner = match ty.kind() {
            "reference_type" | "pointer_type" | "generic_type" => ty.child_by_field_name("type"),
            "scoped_type_identifier" => ty.child_by_field_name("name"),
            _ => None,
        };
        match inner {
            Some(next) => ty = next,
            None => return node_text(ty, text).to_string(),
        }
    }
}

/// The function around `node`, or the item level (a file, an impl or trait body, a `const` or
/// `static` initializer) met first.
pub fn enclosing(node: Node<'_>) -> Enclosing<'_> {
    let mut current = Some(node);
    while let Some(node) = current {
        match node.kind() {
            "function_item" => return Enclosing::Function(node),
            "source_file" | "declaration_list" | "const_item" | "static_item" => {
                return Enclosing::Item;
            }
            _ => current = node.parent(),
        }
    }
    Enclosing::Item
}

/// The `impl` or trait whose body holds the function item `function`.
pub fn owner_node(function: Node<'_>) -> Option<Node<'_>> {
    let container = function.parent()?;
    if container.kind() != "declaration_list" {
        return None;
    }
    container
        .parent()
        .filter(|p| matches!(p.kind(), "impl_item" | "trait_item"))
}

fn is_receiver(parameter: Node<'_>, text: &str) -> bool {
    parameter.kind() == "self_parameter"
        || (parameter.kind() == "parameter"
            && parameter
                .child_by_field_name("pattern")
                .is_some_and(|p| node_text(p, text) == "self"))
}

/// The facts of the function item `function`.
pub fn function<'t>(function: Node<'t>, text: &str) -> Function<'t> {
    let name = function
        .child_by_field_name("name")
        .map_or("", |n| node_text(n, text))
        .to_string();
    let parameters = function.child_by_field_name("parameters");
    let receiver = parameters
        .and_then(|p| {
            p.named_children(&mut p.walk())
                .find(|c| is_receiver(*c, text))
        })
        .map(|r| {
            let written = node_text(r, text).to_string();
            Receiver {
                by_value: !written.contains('&'),
                written,
                name: "self".to_string(),
                class: false,
            }
        });
    let modifiers = function
        .children(&mut function.walk())
        .find(|c| c.kind() == "function_modifiers")
        .map_or("", |m| node_text(m, text));
    let has_modifier = |word: &str| modifiers.split_whitespace().any(|m| m == word);
    let returns_value = function
        .child_by_field_name("return_type")
        .is_some_and(|t| node_text(t, text).trim() != "()");
    let type_parameters = function
        .child_by_field_name("type_parameters")
        .map(|tp| {
            tp.named_children(&mut tp.walk())
                .filter_map(|p| {
                    p.child_by_field_name("name")
                        .or_else(|| (p.kind() == "type_identifier").then_some(p))
                })
                .filter(|n| n.kind() == "type_identifier")
                .map(|n| node_text(n, text).to_string())
                .collect()
        })
        .unwrap_or_default();
    let container = function.parent();
    let owner_item = container.and_then(|c| c.parent());
    let owner = match (container.map(|c| c.kind()), owner_item.map(|o| o.kind())) {
        (Some("declaration_list"), Some("impl_item")) => {
            let impl_item = owner_item.unwrap_or(function);
            let type_name = impl_type_name(impl_item, text);
            match impl_item.child_by_field_name("trait") {
                Some(trait_node) => Owner::TraitImpl {
                    type_name,
                    trait_name: node_text(trait_node, text).to_string(),
                },
                None => Owner::Impl { type_name },
            }
        }
        (Some("declaration_list"), Some("trait_item")) => Owner::Trait {
            trait_name: owner_item
                .and_then(|t| t.child_by_field_name("name"))
                .map_or("", |n| node_text(n, text))
                .to_string(),
        },
        (Some("block"), _) => Owner::Function,
        _ => Owner::Module,
    };
    Function {
        node: function,
        outer: function,
        name,
        owner,
        receiver,
        first_parameter: None,
        decorators: Vec::new(),
        is_test: crate::lang::rust::use_edits::attributes_of(function, text)
            .iter()
            .any(|a| is_test_attribute(a)),
        is_async: has_modifier("async"),
        is_unsafe: has_modifier("unsafe"),
        is_const: has_modifier("const"),
        type_parameters,
        returns_value,
        parameters,
        body: function.child_by_field_name("body"),
    }
}

/// The first line of the innermost `unsafe { }` block holding `node`, inside `function`.
pub fn unsafe_block_line(node: Node<'_>, function: Node<'_>) -> Option<usize> {
    let mut current = Some(node);
    while let Some(node) = current {
        if node.id() == function.id() {
            return None;
        }
        if node.kind() == "unsafe_block" {
            return Some(node.start_position().row + 1);
        }
        current = node.parent();
    }
    None
}

/// `impl<'a, T: Clone> Foo<'a, T> where T: Copy` for the trait impl
/// `impl<..> Trait for Foo<..> where ..`; for a blanket impl or a type that is no path, the type
/// as written.
pub fn inherent_impl_header(impl_item: Node<'_>, text: &str) -> Result<String, String> {
    let ty = impl_item.child_by_field_name("type");
    let generics = impl_item.child_by_field_name("type_parameters");
    let type_text = ty.map_or("", |t| node_text(t, text));
    let blanket = generics.is_some_and(|g| {
        g.named_children(&mut g.walk())
            .filter_map(|p| p.child_by_field_name("name"))
            .any(|n| node_text(n, text) == type_text)
    });
    if blanket
        || ty.is_none_or(|t| {
            !matches!(
                t.kind(),
                "type_identifier" | "generic_type" | "scoped_type_identifier"
            )
        })
    {
        return Err(type_text.to_string());
    }
    let mut header = String::from("impl");
    if let Some(g) = generics {
        header.push_str(node_text(g, text));
    }
    header.push(' ');
    header.push_str(type_text);
    if let Some(clause) = impl_item
        .children(&mut impl_item.walk())
        .find(|c| c.kind() == "where_clause")
    {
        header.push(' ');
        header.push_str(node_text(clause, text));
    }
    Ok(header)
}

/// Whether the file defines a struct, enum, union or type alias called `name`.
/// Whether the file (under `root`) declares `struct name(..)`, a tuple struct without generics:
/// `name(..)` then makes a value of type `name`.
pub fn plain_tuple_struct(root: Node<'_>, text: &str, name: &str) -> bool {
    plain_tuple_struct_fields(root, text, name).is_some()
}

/// The declared types of the fields of the file's `struct name(A, B);` (no generics), in order.
pub fn plain_tuple_struct_fields(root: Node<'_>, text: &str, name: &str) -> Option<Vec<String>> {
    let mut found = None;
    crate::lang::walk_node(root, |n| {
        if n.kind() == "struct_item"
            && n.child_by_field_name("name")
                .is_some_and(|x| node_text(x, text) == name)
            && n.child_by_field_name("type_parameters").is_none()
            && let Some(body) = n
                .child_by_field_name("body")
                .filter(|b| b.kind() == "ordered_field_declaration_list")
        {
            let mut cursor = body.walk();
            let fields = body.children_by_field_name("type", &mut cursor);
            found = Some(fields.map(|t| super::types::type_text(t, text)).collect());
        }
        found.is_none() && !matches!(n.kind(), "function_item" | "block")
    });
    found
}

pub fn defines_type(tree: &Tree, text: &str, name: &str) -> bool {
    let mut found = false;
    walk_tree(tree, |node| {
        if found {
            return false;
        }
        if matches!(
            node.kind(),
            "struct_item" | "enum_item" | "union_item" | "type_item"
        ) {
            found = node
                .child_by_field_name("name")
                .is_some_and(|n| node_text(n, text) == name);
        }
        !matches!(node.kind(), "function_item" | "string_literal")
    });
    found
}

/// A definition named `name` in the scope a new function next to `function` joins: the inherent
/// impls of its type, or the items of its container.
pub fn definition_named(
    tree: &Tree,
    text: &str,
    owner: &Owner,
    function: Option<Node<'_>>,
    name: &str,
) -> Option<(usize, Defined)> {
    match owner {
        Owner::Impl { type_name } | Owner::TraitImpl { type_name, .. } => {
            let mut found = None;
            walk_tree(tree, |node| {
                if found.is_some() {
                    return false;
                }
                let body = node.child_by_field_name("body").filter(|_| {
                    node.kind() == "impl_item"
                        && node.child_by_field_name("trait").is_none()
                        && impl_type_name(node, text) == *type_name
                });
                if let Some(body) = body {
                    found = items_named(body, text, name);
                }
                true
            });
            found
        }
        _ => {
            let container = function.and_then(|f| f.parent())?;
            items_named(container, text, name)
        }
    }
}

fn line_of(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

fn items_named(container: Node<'_>, text: &str, name: &str) -> Option<(usize, Defined)> {
    let mut cursor = container.walk();
    for item in container.named_children(&mut cursor) {
        match item.kind() {
            "function_item" | "function_signature_item" => {
                if let Some(n) = item
                    .child_by_field_name("name")
                    .filter(|n| node_text(*n, text) == name)
                {
                    return Some((line_of(n), Defined::Function));
                }
            }
            "const_item" | "static_item" => {
                if let Some(n) = item
                    .child_by_field_name("name")
                    .filter(|n| node_text(*n, text) == name)
                {
                    let word = if item.kind() == "const_item" {
                        "const"
                    } else {
                        "static"
                    };
                    return Some((line_of(n), Defined::Item(word)));
                }
            }
            "use_declaration" => {
                let mut hit = None;
                walk_node(item, |n| {
                    if hit.is_none()
                        && n.kind() == "identifier"
                        && node_text(n, text) == name
                        && imports_name(n)
                    {
                        hit = Some(line_of(n));
                    }
                    hit.is_none()
                });
                if let Some(line) = hit {
                    return Some((line, Defined::Import));
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether an identifier of a `use` declaration is a name it brings into scope (not a path
/// segment before `::`).
fn imports_name(identifier: Node<'_>) -> bool {
    let Some(parent) = identifier.parent() else {
        return false;
    };
    match parent.kind() {
        "use_list" | "use_declaration" => true,
        "use_as_clause" => parent
            .child_by_field_name("alias")
            .is_some_and(|n| n.id() == identifier.id()),
        // `use a::b::c` brings `c`: the name of the whole path, not of a prefix of it.
        "scoped_identifier" => {
            parent
                .child_by_field_name("name")
                .is_some_and(|n| n.id() == identifier.id())
                && parent
                    .parent()
                    .is_some_and(|g| matches!(g.kind(), "use_list" | "use_declaration"))
        }
        _ => false,
    }
}

/// The function item whose name is at `name_range`.
pub fn function_named<'t>(tree: &'t Tree, name_range: &std::ops::Range<usize>) -> Option<Node<'t>> {
    tree.root_node()
        .descendant_for_byte_range(name_range.start, name_range.end)
        .and_then(|n| n.parent())
        .filter(|n| super::statements::is_function(*n))
}

/// `inline` for `#[inline(always)]`, `serde` for `#[serde(default = "x")]`.
pub fn attribute_name(attribute: &str) -> String {
    let inner = attribute
        .trim()
        .trim_start_matches("#")
        .trim_start_matches('!')
        .trim();
    let inner = inner.trim_start_matches('[').trim_end_matches(']').trim();
    let end = inner.find(['(', '=', ' ']).unwrap_or(inner.len());
    inner[..end].trim().to_string()
}

/// The innermost impl containing `node`, skipping nothing (a closure or a nested fn in a
/// method still sees the impl's `Self`, but a nested fn item does not see `self`).
pub fn impl_around(node: Node<'_>) -> Option<Node<'_>> {
    crate::lang::ancestor_of_kind(node, "impl_item")
}

/// Names declared by a `<...>` generic parameter list (types, lifetimes with their `'`, consts).
pub fn generic_names(list: Option<Node<'_>>, text: &str) -> Vec<String> {
    let Some(list) = list else { return Vec::new() };
    let mut names = Vec::new();
    let mut cursor = list.walk();
    for p in list.named_children(&mut cursor) {
        let name = p.child_by_field_name("name").or_else(|| p.named_child(0));
        if let Some(n) = name {
            names.push(node_text(n, text).to_string());
        }
    }
    names
}

/// One entry of a function item's parameter list, as inlining reads it.
#[derive(Debug, Clone)]
pub enum ItemParam<'t> {
    /// `self`, `&self`, `&mut self`, `mut self`: the type `self` has (`&mut Self`, `&Self`,
    /// `Self`) and whether the binding is mutable.
    SelfParam { ty: &'static str, mutable: bool },
    /// `self: Box<Self>`, `mut self: T`.
    TypedSelf { ty: String, mutable: bool },
    /// `pattern: Type`: the pattern as written with its `mut`, the name when the pattern is a
    /// plain identifier without `mut`, and the type.
    Typed {
        pattern: String,
        simple: Option<String>,
        ty: Node<'t>,
    },
    /// A parameter without a pattern or a type (a syntax error): its line.
    Unreadable { line: usize },
    /// C-variadic `...`: its line.
    Variadic { line: usize },
}

/// A function item read for inlining.
#[derive(Debug, Clone)]
pub struct FunctionItem<'t> {
    pub node: Node<'t>,
    /// A declaration without a body (`fn f();`).
    pub signature_only: bool,
    pub is_async: bool,
    /// Exactly `pub`.
    pub is_pub: bool,
    pub params: Vec<ItemParam<'t>>,
    pub parameters: Option<Node<'t>>,
    /// The names of its generic parameters (types, `'lifetimes`, consts).
    pub generics: Vec<String>,
    pub return_type: Option<Node<'t>>,
    /// No return type, or `()`.
    pub unit_return: bool,
    pub body: Option<Node<'t>>,
    /// Nothing but the end of its container follows it.
    pub last_in_container: bool,
}

impl<'t> FunctionItem<'t> {
    pub fn read(item: Node<'t>, text: &str) -> FunctionItem<'t> {
        let mut is_async = false;
        let mut is_pub = false;
        for child in item.children(&mut item.walk()) {
            match child.kind() {
                "function_modifiers" => {
                    is_async |= node_text(child, text)
                        .split_whitespace()
                        .any(|w| w == "async");
                }
                "visibility_modifier" => is_pub = node_text(child, text).trim() == "pub",
                _ => {}
            }
        }
        let parameters = item.child_by_field_name("parameters");
        let params = parameters.map_or_else(Vec::new, |list| {
            list.named_children(&mut list.walk())
                .filter_map(|p| item_param(p, text))
                .collect()
        });
        let return_type = item.child_by_field_name("return_type");
        FunctionItem {
            node: item,
            signature_only: item.kind() == "function_signature_item",
            is_async,
            is_pub,
            params,
            parameters,
            generics: generic_names(item.child_by_field_name("type_parameters"), text),
            unit_return: return_type
                .is_none_or(|r| node_text(r, text).split_whitespace().collect::<String>() == "()"),
            return_type,
            body: item.child_by_field_name("body"),
            last_in_container: item.next_named_sibling().is_none(),
        }
    }

    /// The attributes directly above the item, from `from` on, nearest first: (name, line).
    pub fn attributes_from(&self, from: usize, text: &str) -> Vec<(String, usize)> {
        let mut attributes = Vec::new();
        let mut previous = self.node.prev_named_sibling();
        while let Some(p) = previous {
            if p.start_byte() < from {
                break;
            }
            if p.kind() == "attribute_item" {
                attributes.push((
                    attribute_name(node_text(p, text)),
                    p.start_position().row + 1,
                ));
            }
            previous = p.prev_named_sibling();
        }
        attributes
    }
}

fn item_param<'t>(p: Node<'t>, text: &str) -> Option<ItemParam<'t>> {
    let line = p.start_position().row + 1;
    match p.kind() {
        "self_parameter" => {
            let written = node_text(p, text);
            let reference = written.trim_start().starts_with('&');
            let mutable = written.contains("mut");
            let ty = match (reference, mutable) {
                (true, true) => "&mut Self",
                (true, false) => "&Self",
                (false, _) => "Self",
            };
            Some(ItemParam::SelfParam {
                ty,
                mutable: mutable && !reference,
            })
        }
        "parameter" => {
            let pattern = p.child_by_field_name("pattern");
            let ty = p.child_by_field_name("type");
            let (Some(pattern), Some(ty)) = (pattern, ty) else {
                return Some(ItemParam::Unreadable { line });
            };
            if pattern.kind() == "self" {
                return Some(ItemParam::TypedSelf {
                    ty: node_text(ty, text).to_string(),
                    mutable: node_text(p, text).trim_start().starts_with("mut"),
                });
            }
            let mutable = p
                .children(&mut p.walk())
                .any(|x| x.kind() == "mutable_specifier");
            Some(ItemParam::Typed {
                simple: (pattern.kind() == "identifier" && !mutable)
                    .then(|| node_text(pattern, text).to_string()),
                pattern: text[p.start_byte()..pattern.end_byte()].to_string(),
                ty,
            })
        }
        "variadic_parameter" => Some(ItemParam::Variadic { line }),
        _ => None,
    }
}

/// An impl block as the owner of a method.
#[derive(Debug, Clone)]
pub struct ImplFacts {
    /// `Display` for `impl Display for Foo`.
    pub trait_text: Option<String>,
    /// The self type as written (`Point<T>`).
    pub type_text: String,
    /// The names of its generic parameters.
    pub generics: Vec<String>,
}

/// The impl a method item is directly in.
pub fn impl_of_method(item: Node<'_>, text: &str) -> Option<ImplFacts> {
    let impl_node = owner_node(item).filter(|n| n.kind() == "impl_item")?;
    Some(ImplFacts {
        trait_text: impl_node
            .child_by_field_name("trait")
            .map(|t| node_text(t, text).to_string()),
        type_text: impl_node
            .child_by_field_name("type")
            .map(|t| node_text(t, text).to_string())
            .unwrap_or_default(),
        generics: generic_names(impl_node.child_by_field_name("type_parameters"), text),
    })
}

/// Whether the owner of a method item is a trait or an impl block at all.
pub fn has_owner(item: Node<'_>) -> bool {
    owner_node(item).is_some()
}

/// How many free functions (not in an impl or trait) called `name` the file defines.
pub fn free_functions_named(tree: &Tree, text: &str, name: &str) -> usize {
    let mut count = 0;
    // A function named `name` holds the name: nodes whose text does not are not entered.
    let holds_name = crate::lang::holding(text, name);
    walk_node(tree.root_node(), |n| {
        if n.kind() == "function_item"
            && owner_node(n).is_none()
            && n.child_by_field_name("name")
                .is_some_and(|x| node_text(x, text) == name)
        {
            count += 1;
        }
        holds_name(n)
    });
    count
}

/// Whether the file defines a function `name` at its top level.
pub fn defines_top_level_function(tree: &Tree, text: &str, name: &str) -> bool {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor).any(|item| {
        item.kind() == "function_item"
            && item
                .child_by_field_name("name")
                .is_some_and(|n| node_text(n, text) == name)
    })
}

/// The function item around `node`: whether it has a `self` parameter, and the type name of
/// the inherent or trait impl it is a method of (`None` outside an impl).
pub fn method_around(node: Node<'_>, text: &str) -> Option<(bool, Option<String>)> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "function_item" {
            let has_self = n.child_by_field_name("parameters").is_some_and(|p| {
                let mut c = p.walk();
                p.named_children(&mut c).any(|x| {
                    x.kind() == "self_parameter"
                        || (x.kind() == "parameter"
                            && x.child_by_field_name("pattern")
                                .is_some_and(|pat| pat.kind() == "self"))
                })
            });
            let impl_type = owner_node(n)
                .filter(|i| i.kind() == "impl_item")
                .and_then(|i| impl_type_name_text(i, text));
            return Some((has_self, impl_type));
        }
        current = n.parent();
    }
    None
}

/// The impl types around `node`, innermost first (the last segment of each self type as
/// written: `Foo` for `impl<T> Foo<T>`; `None` for an impl without one, a syntax error).
pub fn impl_types_around(node: Node<'_>, text: &str) -> Vec<Option<String>> {
    let mut types = Vec::new();
    let mut current = impl_around(node);
    while let Some(i) = current {
        types.push(impl_type_name_text(i, text));
        current = impl_around(i);
    }
    types
}

/// The type name of an impl from its self type's text (`&'a mut m::Foo<T>` → `Foo`).
fn impl_type_name_text(impl_node: Node<'_>, text: &str) -> Option<String> {
    impl_node
        .child_by_field_name("type")
        .map(|t| super::paths::last_type_segment(node_text(t, text)))
}

/// What `Self` means at a node: the impl around it (its self type and trait as written), or
/// the trait around it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelfOwner {
    Impl {
        type_text: String,
        trait_text: String,
    },
    Trait {
        name: String,
    },
}

pub fn self_owner(node: Node<'_>, text: &str) -> Option<SelfOwner> {
    if let Some(item) = crate::lang::ancestor_of_kind(node, "impl_item") {
        return Some(SelfOwner::Impl {
            type_text: item
                .child_by_field_name("type")
                .map_or("", |t| node_text(t, text))
                .to_string(),
            trait_text: item
                .child_by_field_name("trait")
                .map_or("", |t| node_text(t, text))
                .to_string(),
        });
    }
    crate::lang::ancestor_of_kind(node, "trait_item").map(|item| SelfOwner::Trait {
        name: item
            .child_by_field_name("name")
            .map_or("", |n| node_text(n, text))
            .to_string(),
    })
}

/// The trait a method item implements (`impl Trait for T`), as written.
pub fn implemented_trait<'a>(function: Node<'_>, text: &'a str) -> Option<&'a str> {
    crate::lang::ancestor_of_kind(function, "impl_item")
        .and_then(|i| i.child_by_field_name("trait"))
        .map(|t| node_text(t, text))
}

/// Item kinds whose `name` field is a definition.
const DEFINITIONS: &[&str] = &[
    "function_item",
    "function_signature_item",
    "struct_item",
    "enum_item",
    "union_item",
    "enum_variant",
    "const_item",
    "static_item",
    "type_item",
    "trait_item",
    "mod_item",
    "macro_definition",
    "associated_type",
];

pub fn top_level_node<'t>(tree: &'t Tree, range: &std::ops::Range<usize>) -> Option<Node<'t>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .find(|n| n.byte_range() == *range)
}

/// Whether an item has a visibility that reaches beyond its module (`pub`, `pub(crate)`, …).
pub fn is_visible(item: Node<'_>, text: &str) -> bool {
    visibility(item).is_some_and(|v| node_text(v, text).replace(' ', "") != "pub(self)")
}

pub(super) fn visibility(item: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = item.walk();
    item.named_children(&mut cursor)
        .find(|c| c.kind() == "visibility_modifier")
}

/// `pub(crate) ` before an item without visibility (or instead of `pub(self)`).
pub fn widen_visibility(item: Node<'_>, text: &str) -> Option<TextEdit> {
    match visibility(item) {
        Some(v) if node_text(v, text).replace(' ', "") == "pub(self)" => {
            Some(TextEdit::new(v.byte_range(), "pub(crate)"))
        }
        Some(_) => None,
        None => Some(TextEdit::insert(item.start_byte(), "pub(crate) ")),
    }
}

/// The variants of the enum `name` defined at the top level of a file.
pub fn enum_variants(tree: &Tree, text: &str, name: &str) -> Option<Vec<String>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let item = root.named_children(&mut cursor).find(|n| {
        n.kind() == "enum_item"
            && n.child_by_field_name("name")
                .is_some_and(|x| node_text(x, text) == name)
    })?;
    let body = item.child_by_field_name("body")?;
    let mut members = body.walk();
    Some(
        body.named_children(&mut members)
            .filter(|v| v.kind() == "enum_variant")
            .filter_map(|v| v.child_by_field_name("name"))
            .map(|n| node_text(n, text).to_string())
            .collect(),
    )
}

/// The top-level item called `name` (not an impl, not a `use`).
pub fn top_level_item<'t>(tree: &'t Tree, text: &str, name: &str) -> Option<Node<'t>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor).find(|n| {
        is_definition_kind(n.kind())
            && n.child_by_field_name("name")
                .is_some_and(|x| node_text(x, text) == name)
    })
}

/// Where a moved item goes in an existing target: before a trailing `#[cfg(test)] mod tests`,
/// else at the end.
pub fn test_module_start(tree: &Tree, text: &str) -> Option<usize> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let last = root
        .named_children(&mut cursor)
        .filter(|c| !matches!(c.kind(), "line_comment" | "block_comment"))
        .last()?;
    if last.kind() != "mod_item" || last.child_by_field_name("body").is_none() {
        return None;
    }
    let start = crate::lang::symbols::leading_trivia_start(crate::lang::Language::Rust, last, text);
    let attributes = &text[start..last.start_byte()];
    if attributes.replace(' ', "").contains("#[cfg(test)]") {
        Some(text[..start].rfind('\n').map_or(0, |i| i + 1))
    } else {
        None
    }
}

/// Whether the top-level item at `range` has a body (`mod m { .. }`, not `mod m;`).
pub fn has_body_at(tree: &Tree, range: &std::ops::Range<usize>) -> bool {
    top_level_node(tree, range).is_some_and(|n| n.child_by_field_name("body").is_some())
}

/// Whether a `use` declaration.
pub fn is_use(node: Node<'_>) -> bool {
    node.kind() == "use_declaration"
}

/// Whether the item's visibility is exactly `pub`.
pub fn is_exactly_pub(item: Node<'_>, text: &str) -> bool {
    visibility(item).is_some_and(|v| node_text(v, text) == "pub")
}

/// For each file module (`mod m;`) at the top of the file: whether it is exactly `pub`.
pub fn file_mods_public(tree: &Tree, text: &str) -> Vec<bool> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| is_file_mod(*n))
        .map(|n| is_exactly_pub(n, text))
        .collect()
}

/// What of a moved item is private to its module: the members of an inherent impl without
/// visibility, the fields of a struct or union without visibility, the field list of a tuple
/// struct.
#[derive(Debug, Clone, Default)]
pub struct PrivateParts<'t> {
    /// (name, member node) of `fn`s and `const`s without visibility.
    pub members: Vec<(&'t str, Node<'t>)>,
    /// Names of named fields without visibility.
    pub fields: Vec<&'t str>,
    /// Where each of `fields` starts (where a visibility goes).
    pub field_starts: Vec<usize>,
    /// The field list of a tuple struct (`(T, pub U)`).
    pub tuple_fields: Option<Node<'t>>,
}

pub fn private_parts<'t>(item: Node<'t>, text: &'t str) -> PrivateParts<'t> {
    let mut parts = PrivateParts::default();
    match item.kind() {
        "impl_item" if item.child_by_field_name("trait").is_none() => {
            let Some(body) = item.child_by_field_name("body") else {
                return parts;
            };
            for member in body.named_children(&mut body.walk()) {
                if matches!(member.kind(), "function_item" | "const_item")
                    && visibility(member).is_none()
                    && let Some(name) = member.child_by_field_name("name")
                {
                    parts.members.push((node_text(name, text), member));
                }
            }
        }
        "struct_item" | "union_item" => {
            let Some(body) = item.child_by_field_name("body") else {
                return parts;
            };
            if body.kind() == "ordered_field_declaration_list" {
                parts.tuple_fields = Some(body);
                return parts;
            }
            for field in body.named_children(&mut body.walk()) {
                if field.kind() == "field_declaration"
                    && visibility(field).is_none()
                    && let Some(name) = field.child_by_field_name("name")
                {
                    parts.fields.push(node_text(name, text));
                    parts.field_starts.push(field.start_byte());
                }
            }
        }
        _ => {}
    }
    parts
}

/// The name of a struct (or union) item.
pub fn struct_name<'t>(item: Node<'_>, text: &'t str) -> Option<&'t str> {
    matches!(item.kind(), "struct_item" | "union_item")
        .then(|| item.child_by_field_name("name"))
        .flatten()
        .map(|n| node_text(n, text))
}

/// Whether a tuple struct's field list (`(T, pub U)`) has a field without visibility.
pub fn has_private_tuple_field(fields: Node<'_>) -> bool {
    // A field is private unless a visibility modifier comes right before its type.
    let mut private = false;
    let mut after_visibility = false;
    for child in fields.named_children(&mut fields.walk()) {
        match child.kind() {
            "visibility_modifier" => after_visibility = true,
            "attribute_item" | "line_comment" | "block_comment" => {}
            _ => {
                private |= !after_visibility;
                after_visibility = false;
            }
        }
    }
    private
}

/// Where a visibility goes for each field without one in a tuple struct's field list (before
/// its type, after its attributes).
pub fn private_tuple_field_starts(fields: Node<'_>) -> Vec<usize> {
    let mut starts = Vec::new();
    let mut after_visibility = false;
    for child in fields.named_children(&mut fields.walk()) {
        match child.kind() {
            "visibility_modifier" => after_visibility = true,
            "attribute_item" | "line_comment" | "block_comment" => {}
            _ => {
                if !after_visibility {
                    starts.push(child.start_byte());
                }
                after_visibility = false;
            }
        }
    }
    starts
}

/// The private members (`fn`, `const` without visibility) of the inherent impls at the top of
/// the file that `keep` accepts: (type name before its generics, member, offset of the member).
pub fn private_impl_members(
    tree: &Tree,
    text: &str,
    keep: impl Fn(Node<'_>) -> bool,
) -> Vec<(String, String, usize)> {
    let mut private = Vec::new();
    let root = tree.root_node();
    for item in root.named_children(&mut root.walk()) {
        if item.kind() != "impl_item" || item.child_by_field_name("trait").is_some() || !keep(item)
        {
            continue;
        }
        let Some(ty) = item.child_by_field_name("type") else {
            continue;
        };
        let ty = node_text(ty, text);
        let ty = ty.split('<').next().unwrap_or(ty).trim().to_string();
        for (name, member) in private_parts(item, text).members {
            private.push((ty.clone(), name.to_string(), member.start_byte()));
        }
    }
    private
}

/// Whether items of this kind define the name in their `name` field.
pub(crate) fn is_definition_kind(kind: &str) -> bool {
    DEFINITIONS.contains(&kind)
}

/// `#[test]`, `#[bench]`, `#[tokio::test]`, `#[async_std::test(flavor = ..)]`: an attribute that
/// hands the function to a test harness, which calls it without arguments.
fn is_test_attribute(attribute: &str) -> bool {
    let inner = attribute
        .trim()
        .trim_start_matches("#[")
        .trim_end_matches(']')
        .trim();
    let path = inner.split(['(', '=', ' ']).next().unwrap_or("");
    matches!(path.rsplit("::").next(), Some("test" | "bench"))
}

#[cfg(test)]
mod test_attribute_tests {
    use super::is_test_attribute;

    #[test]
    fn test_harness_attributes_are_recognised() {
        assert!(is_test_attribute("#[test]"));
        assert!(is_test_attribute("#[bench]"));
        assert!(is_test_attribute("#[tokio::test]"));
        assert!(is_test_attribute(
            "#[tokio::test(flavor = \"multi_thread\")]"
        ));
        assert!(!is_test_attribute("#[cfg(test)]"));
        assert!(!is_test_attribute("#[test_case(1)]"));
        assert!(!is_test_attribute("#[inline]"));
    }
}
