//! What a Rust file says about the paths that reach a name: its `use` leaves (where each is
//! visible, which module wrote it, whether it re-exports), the modules a path head may mean
//! (through `crate`/`super`/`self`, a `use` of a module, a crate name), and the type a receiver
//! evidently has (`self`, a typed binding, a constructor call).

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::lang::names::Names;
use crate::lang::rust::imports::use_leaves;
use crate::lang::rust::items::{impl_around, impl_type_name};
use crate::lang::rust::paths::{last_type_segment, module_at, resolve_prefix};
use crate::lang::{Language, node_text, walk_tree};

/// Crates whose paths never reach a project item.
const FOREIGN: &[&str] = &["std", "core", "alloc"];

/// One leaf of a `use` tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UseLeaf {
    /// The path as written (`["crate", "a", "f"]`, `["super", "*"]`).
    pub path: Vec<String>,
    pub alias: Option<String>,
    /// `pub use` (any visibility).
    pub public: bool,
    /// The module the `use` is written in.
    pub module: Vec<String>,
    /// Where it is visible: its module's body or its block.
    pub visible: Range<usize>,
    /// Written at module level (not in a function body).
    pub module_level: bool,
    pub line: usize,
}

impl UseLeaf {
    /// The name the leaf binds (`None` for a glob).
    pub fn binds(&self) -> Option<&str> {
        if let Some(alias) = &self.alias {
            return Some(alias);
        }
        match self.path.as_slice() {
            [.., last] if last == "*" => None,
            [.., parent, last] if last == "self" => Some(parent),
            [.., last] => Some(last),
            [] => None,
        }
    }

    /// The name it imports under its original spelling (`f` in `a::f as g`).
    pub fn original(&self) -> Option<&str> {
        match self.path.as_slice() {
            [.., last] if last == "*" => None,
            [.., parent, last] if last == "self" => Some(parent),
            [.., last] => Some(last),
            [] => None,
        }
    }

    pub fn is_glob(&self) -> bool {
        self.path.last().is_some_and(|l| l == "*")
    }

    /// The path before the last segment (the module it imports from, or the glob's module).
    pub fn head(&self) -> &[String] {
        let end = self.path.len().saturating_sub(1);
        let end = if self.path.last().is_some_and(|l| l == "self") {
            end.saturating_sub(1)
        } else {
            end
        };
        &self.path[..end]
    }
}

/// Every `use` leaf of the file, in document order. A `use` declaration holds the keyword as a
/// whole word: the walk goes down only into nodes around one of them.
pub fn uses(tree: &Tree, text: &str, path: &str) -> Vec<UseLeaf> {
    let mut out = Vec::new();
    let keywords = crate::lang::calls::word_matches(text, "use");
    let holds_keyword = |node: Node<'_>| {
        let range = node.byte_range();
        let first = keywords.partition_point(|at| *at < range.start);
        keywords.get(first).is_some_and(|at| *at < range.end)
    };
    walk_tree(tree, |node| {
        if node.kind() != "use_declaration" {
            return !matches!(
                node.kind(),
                "string_literal" | "line_comment" | "block_comment"
            ) && holds_keyword(node);
        }
        let Some(container) = node.parent() else {
            return false;
        };
        let module_level = matches!(container.kind(), "source_file" | "declaration_list");
        let public = node
            .children(&mut node.walk())
            .any(|c| c.kind() == "visibility_modifier");
        let module = module_at(path, node, text);
        for (leaf, alias) in use_leaves(node, text) {
            out.push(UseLeaf {
                path: leaf,
                alias,
                public,
                module: module.clone(),
                visible: container.byte_range(),
                module_level,
                line: node.start_position().row + 1,
            });
        }
        false
    });
    out
}

/// The modules a path head written in module `here` may mean: through `crate`/`self`/`super`,
/// a `use` visible at `at` that binds its first segment, a child module, or the crate's name.
pub fn modules_of(
    head: &[String],
    here: &[String],
    uses: &[UseLeaf],
    at: usize,
) -> Vec<Vec<String>> {
    let Some(first) = head.first() else {
        return vec![here.to_vec()];
    };
    if FOREIGN.contains(&first.as_str()) {
        return Vec::new();
    }
    if matches!(first.as_str(), "crate" | "self" | "super") {
        return resolve_prefix(&head.join("::"), here);
    }
    let bound = uses
        .iter()
        .filter(|u| u.visible.contains(&at) && u.binds() == Some(first.as_str()))
        .max_by_key(|u| u.visible.start);
    if let Some(leaf) = bound {
        let mut inner: Vec<String> = leaf.path.clone();
        if inner.last().is_some_and(|l| l == "self") {
            inner.pop();
        }
        return use_path_modules(&inner, &leaf.module)
            .into_iter()
            .map(|mut m| {
                m.extend(head[1..].iter().cloned());
                m
            })
            .collect();
    }
    resolve_prefix(&head.join("::"), here)
}

/// The modules a `use` path (to a module) written in `module` may mean.
pub fn use_path_modules(path: &[String], module: &[String]) -> Vec<Vec<String>> {
    if path.first().is_some_and(|f| FOREIGN.contains(&f.as_str())) {
        return Vec::new();
    }
    resolve_prefix(&path.join("::"), module)
}

/// The type a receiver evidently has, by its last segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Evident {
    Type(String),
    Unknown,
}

/// The type of `receiver` (the value of a field expression): `self` (the impl's type, or the
/// trait in a trait's default method), `Self`/`Type` constructors, struct literals, and local
/// bindings or parameters whose type is written or whose value is such a constructor.
pub fn receiver_type(receiver: Node<'_>, text: &str) -> Evident {
    match receiver.kind() {
        "self" => self_type(receiver, text),
        "parenthesized_expression" | "reference_expression" => match receiver.named_child(0) {
            Some(inner) if receiver.named_child_count() == 1 => receiver_type(inner, text),
            _ => receiver
                .child_by_field_name("value")
                .map_or(Evident::Unknown, |v| receiver_type(v, text)),
        },
        "identifier" => binding_type(receiver, text),
        _ => value_type(receiver, text),
    }
}

/// `Self` at a node: the impl's type (`Foo` for `impl<T> Tr for Foo<T>`), or the trait whose
/// default method it is in.
pub fn self_type(node: Node<'_>, text: &str) -> Evident {
    if let Some(item) = impl_around(node) {
        return Evident::Type(impl_type_name(item, text));
    }
    match crate::lang::ancestor_of_kind(node, "trait_item")
        .and_then(|t| t.child_by_field_name("name"))
    {
        Some(name) => Evident::Type(node_text(name, text).to_string()),
        None => Evident::Unknown,
    }
}

/// The type a value expression constructs: `T::new(..)`, `T { .. }`, `T(..)`, `Self::..`.
fn value_type(value: Node<'_>, text: &str) -> Evident {
    let type_name = |written: Node<'_>| -> Evident {
        let name = last_type_segment(node_text(written, text));
        if name == "Self" {
            return self_type(written, text);
        }
        if name.starts_with(|c: char| c.is_uppercase()) {
            Evident::Type(name)
        } else {
            Evident::Unknown
        }
    };
    match value.kind() {
        // A unit struct's value.
        "identifier" => type_name(value),
        "struct_expression" => value
            .child_by_field_name("name")
            .map_or(Evident::Unknown, type_name),
        "call_expression" => {
            let Some(function) = value.child_by_field_name("function") else {
                return Evident::Unknown;
            };
            match function.kind() {
                // `Type::new(..)`: a constructor by the convention of associated functions
                // returning `Self` (`new`, `with_*`, `from_*`, `default`).
                "scoped_identifier" => {
                    let constructor = function
                        .child_by_field_name("name")
                        .map(|n| node_text(n, text))
                        .is_some_and(|n| {
                            n == "new"
                                || n == "default"
                                || n.starts_with("with_")
                                || n.starts_with("from_")
                        });
                    match function.child_by_field_name("path") {
                        Some(path) if constructor => type_name(path),
                        _ => Evident::Unknown,
                    }
                }
                "identifier" => type_name(function),
                _ => Evident::Unknown,
            }
        }
        _ => Evident::Unknown,
    }
}

/// The type of a local binding used at `name`: from its `let` (written type or constructor
/// value) or its parameter's type.
fn binding_type(name: Node<'_>, text: &str) -> Evident {
    let Some(function) = outermost_function(name) else {
        return Evident::Unknown;
    };
    let names = Names::collect(Language::Rust, function, text);
    let Some(binding) = names.resolve(node_text(name, text), name.start_byte()) else {
        return Evident::Unknown;
    };
    let Some(bound) =
        function.descendant_for_byte_range(binding.pos, binding.pos + binding.name.len())
    else {
        return Evident::Unknown;
    };
    let Some(parent) = bound.parent() else {
        return Evident::Unknown;
    };
    // Only a binding that is the whole pattern has the declared type.
    match parent.kind() {
        "let_declaration" => {
            if let Some(written) = parent.child_by_field_name("type") {
                return declared(written, text);
            }
            parent
                .child_by_field_name("value")
                .map_or(Evident::Unknown, |v| value_type(v, text))
        }
        "parameter" => parent
            .child_by_field_name("type")
            .map_or(Evident::Unknown, |t| declared(t, text)),
        _ => Evident::Unknown,
    }
}

/// A written type: its last segment, through references; `impl Tr`/`dyn Tr` give the trait;
/// smart pointers and generic parameters are not evident.
fn declared(written: Node<'_>, text: &str) -> Evident {
    let mut ty = written;
    loop {
        match ty.kind() {
            "reference_type" | "pointer_type" => match ty.child_by_field_name("type") {
                Some(inner) => ty = inner,
                None => return Evident::Unknown,
            },
            "abstract_type" => match ty.child_by_field_name("trait") {
                Some(inner) => ty = inner,
                None => return Evident::Unknown,
            },
            "dynamic_type" => match ty.child_by_field_name("trait") {
                Some(inner) => ty = inner,
                None => return Evident::Unknown,
            },
            _ => break,
        }
    }
    let name = last_type_segment(node_text(ty, text));
    if matches!(
        name.as_str(),
        "Box" | "Rc" | "Arc" | "Cow" | "Pin" | "RefCell" | "Mutex"
    ) {
        return Evident::Unknown;
    }
    if name == "Self" {
        return self_type(ty, text);
    }
    if is_generic_parameter(ty, &name, text) {
        return Evident::Unknown;
    }
    if name.starts_with(|c: char| c.is_uppercase()) {
        Evident::Type(name)
    } else {
        Evident::Unknown
    }
}

/// Whether `name` is a generic parameter of a function or impl around `node`.
fn is_generic_parameter(node: Node<'_>, name: &str, text: &str) -> bool {
    crate::lang::ancestors(node)
        .filter(|n| matches!(n.kind(), "function_item" | "impl_item" | "trait_item"))
        .filter_map(|n| n.child_by_field_name("type_parameters"))
        .any(|params| {
            crate::lang::rust::items::generic_names(Some(params), text)
                .iter()
                .any(|g| g == name)
        })
}

/// The function item whose locals a node sees (the innermost: a nested `fn` sees none of its
/// parent's locals).
pub fn outermost_function(node: Node<'_>) -> Option<Node<'_>> {
    crate::lang::ancestor_of_kind(node, "function_item")
}
