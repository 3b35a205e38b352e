//! The function whose signature changes, found in its file's syntax tree: its nodes (parameter
//! list, body) and what owns it (an `impl`, a trait, a class), which decides whether it has a
//! receiver and how its calls are written.

use tree_sitter::{Node, Tree};

use crate::lang::symbols::{Symbol, SymbolKind};
use crate::lang::{Language, node_text};
use crate::refactor::RefactorError;

/// The type (or trait) a method belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Owner {
    /// `Foo` for `impl<T> Trait for Foo<T>` and for `class Foo(Base):`; the trait's name in a trait.
    pub type_name: String,
    /// `Trait` for `impl Trait for Foo` and inside `trait Trait`.
    pub trait_name: Option<String>,
    /// Declared in a trait (its implementations are elsewhere).
    pub in_trait: bool,
    /// Python `@staticmethod`: no receiver.
    pub static_method: bool,
    /// Python `@classmethod`: the receiver is the class and is never passed explicitly.
    pub class_method: bool,
}

pub(super) struct Target<'t> {
    /// The simple name (`method` for `Type/method`).
    pub name: String,
    pub name_path: String,
    /// 1-based line of the name.
    pub line: usize,
    pub parameters: Node<'t>,
    pub body: Option<Node<'t>>,
    pub owner: Option<Owner>,
}

impl Target<'_> {
    /// Whether a Python method's first parameter is its receiver.
    pub fn python_receiver(&self) -> bool {
        self.owner.as_ref().is_some_and(|o| !o.static_method)
    }
}

pub(super) fn locate<'t>(
    lang: Language,
    tree: &'t Tree,
    text: &str,
    symbol: &Symbol,
    symbols: &[Symbol],
) -> Result<Target<'t>, RefactorError> {
    let function = tree
        .root_node()
        .descendant_for_byte_range(symbol.name_range.start, symbol.name_range.end)
        .and_then(|name| name.parent())
        .filter(|f| lang.is_function_kind(f.kind()))
        .ok_or_else(|| {
            RefactorError::NotFound(format!(
                "`{}` at line {} is not a function definition the heuristic can read",
                symbol.name_path, symbol.line
            ))
        })?;
    let parameters = function.child_by_field_name("parameters").ok_or_else(|| {
        RefactorError::Unsupported(format!(
            "`{}` at line {} has no parameter list the heuristic can read (a syntax error?)",
            symbol.name_path, symbol.line
        ))
    })?;
    let container = symbol.container.and_then(|c| symbols.get(c));
    let owner = match (lang, container) {
        (Language::Rust, Some(c)) if matches!(c.kind, SymbolKind::Impl | SymbolKind::Trait) => {
            let segment = c
                .name_path
                .rsplit('/')
                .next()
                .unwrap_or(&c.name)
                .to_string();
            let in_trait = c.kind == SymbolKind::Trait;
            let trait_name = if in_trait {
                Some(segment.clone())
            } else {
                enclosing(function, "impl_item")
                    .and_then(|i| i.child_by_field_name("trait"))
                    .map(|t| last_path_segment(node_text(t, text)))
            };
            Some(Owner {
                type_name: segment,
                trait_name,
                in_trait,
                static_method: false,
                class_method: false,
            })
        }
        (Language::Python, Some(c))
            if symbol.kind == SymbolKind::Method && c.kind == SymbolKind::Class =>
        {
            let decorators = python_decorators(function, text);
            Some(Owner {
                type_name: c.name.clone(),
                trait_name: None,
                in_trait: false,
                static_method: decorators.iter().any(|d| d == "staticmethod"),
                class_method: decorators.iter().any(|d| d == "classmethod"),
            })
        }
        _ => None,
    };
    Ok(Target {
        name: symbol.name.clone(),
        name_path: symbol.name_path.clone(),
        line: symbol.line,
        parameters,
        body: function.child_by_field_name("body"),
        owner,
    })
}

/// The nearest ancestor of `node` of `kind`.
pub(super) fn enclosing<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut current = node.parent();
    while let Some(parent) = current {
        if parent.kind() == kind {
            return Some(parent);
        }
        current = parent.parent();
    }
    None
}

/// `Display` for `std::fmt::Display<T>` and `Foo` for `crate::m::Foo::<T>`.
pub(super) fn last_path_segment(path: &str) -> String {
    let mut depth = 0usize;
    let mut without_generics = String::new();
    for c in path.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => without_generics.push(c),
            _ => {}
        }
    }
    without_generics
        .trim_end_matches(':')
        .rsplit("::")
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

/// The decorator names of a Python function (`staticmethod`, `functools.cache` → `cache`).
fn python_decorators(function: Node<'_>, text: &str) -> Vec<String> {
    let Some(decorated) = function
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
    else {
        return Vec::new();
    };
    let mut cursor = decorated.walk();
    decorated
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .map(|d| {
            let body = node_text(d, text).trim_start_matches('@').trim();
            let callee = body.split('(').next().unwrap_or(body);
            callee
                .rsplit('.')
                .next()
                .unwrap_or(callee)
                .trim()
                .to_string()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments() {
        assert_eq!(last_path_segment("std::fmt::Display"), "Display");
        assert_eq!(last_path_segment("crate::m::Foo::<T>"), "Foo");
        assert_eq!(last_path_segment("Iterator<Item = u8>"), "Iterator");
        assert_eq!(last_path_segment("Self"), "Self");
    }
}
