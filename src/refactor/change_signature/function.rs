//! The function whose signature changes, found in its file's syntax tree: its nodes (parameter
//! list, body) and what owns it (an `impl`, a trait, a class), which decides whether it has a
//! receiver and how its calls are written.

use super::wording as w;
use tree_sitter::{Node, Tree};

use crate::lang::Language;
use crate::lang::rust::items::implemented_trait;
use crate::lang::rust::paths::last_path_segment;
use crate::lang::symbols::{Symbol, SymbolKind};
use crate::refactor::RefactorError;

/// The type (or trait) a method belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct MethodOwner {
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

pub(crate) struct ChangedFunction<'t> {
    /// The simple name (`method` for `Type/method`).
    pub name: String,
    pub name_path: String,
    /// 1-based line of the name.
    pub line: usize,
    pub parameters: Node<'t>,
    pub body: Option<Node<'t>>,
    pub owner: Option<MethodOwner>,
    /// A test harness calls it (Rust `#[test]`): it can take no arguments.
    pub is_test: bool,
}

impl ChangedFunction<'_> {
    /// Whether a Python method's first parameter is its receiver.
    pub fn python_receiver(&self) -> bool {
        self.owner.as_ref().is_some_and(|o| !o.static_method)
    }
}

pub(crate) fn locate<'t>(
    lang: Language,
    tree: &'t Tree,
    text: &str,
    symbol: &Symbol,
    symbols: &[Symbol],
) -> Result<ChangedFunction<'t>, RefactorError> {
    let syntax = lang.syntax();
    let function = syntax
        .function_named(tree, &symbol.name_range)
        .ok_or_else(|| {
            RefactorError::NotFound(w::not_a_function(&symbol.name_path, symbol.line))
        })?;
    let facts = syntax.function(function, text);
    let parameters = facts.parameters.ok_or_else(|| {
        RefactorError::Unsupported(w::no_parameter_list(&symbol.name_path, symbol.line))
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
                implemented_trait(function, text).map(last_path_segment)
            };
            Some(MethodOwner {
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
            let decorators: Vec<String> = facts.decorators.iter().map(|d| callee_name(d)).collect();
            Some(MethodOwner {
                type_name: c.name.clone(),
                trait_name: None,
                in_trait: false,
                static_method: decorators.iter().any(|d| d == "staticmethod"),
                class_method: decorators.iter().any(|d| d == "classmethod"),
            })
        }
        _ => None,
    };
    Ok(ChangedFunction {
        name: symbol.name.clone(),
        name_path: symbol.name_path.clone(),
        line: symbol.line,
        parameters,
        body: facts.body,
        owner,
        is_test: facts.is_test,
    })
}

/// `cache` for the decorator `functools.cache(maxsize=1)`.
fn callee_name(decorator: &str) -> String {
    let callee = decorator.split('(').next().unwrap_or(decorator);
    callee
        .rsplit('.')
        .next()
        .unwrap_or(callee)
        .trim()
        .to_string()
}
