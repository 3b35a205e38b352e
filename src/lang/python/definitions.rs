//! Python definitions: what a `def` says about itself (its class, its receiver, decorators,
//! first parameter, `async`), the classes and functions around code, and the names a scope
//! binds.

use tree_sitter::{Node, Tree};

use crate::lang::calls::word_matches;
use crate::lang::names::Names;
use crate::lang::syntax::{Defined, Enclosing, Function, Owner, Receiver};
use crate::lang::{Language, node_text};

/// The function around `node`; the class whose body holds it, when a class comes first; or the
/// module.
pub fn enclosing(node: Node<'_>) -> Enclosing<'_> {
    let mut current = Some(node);
    while let Some(node) = current {
        match node.kind() {
            "function_definition" => return Enclosing::Function(node),
            "class_definition" => return Enclosing::ClassBody(node),
            _ => current = node.parent(),
        }
    }
    Enclosing::Module
}

/// The decorated definition around `definition`, or the definition itself.
pub fn outer(definition: Node<'_>) -> Node<'_> {
    definition
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
        .unwrap_or(definition)
}

/// The decorators of a definition, as written after `@`.
pub fn decorators(definition: Node<'_>, text: &str) -> Vec<String> {
    decorators_with_lines(definition, text)
        .into_iter()
        .map(|(d, _)| d)
        .collect()
}

/// The decorators of a definition, as written after `@`, with their lines.
pub fn decorators_with_lines(definition: Node<'_>, text: &str) -> Vec<(String, usize)> {
    let outer = outer(definition);
    outer
        .children(&mut outer.walk())
        .filter(|c| c.kind() == "decorator")
        .map(|d| {
            (
                node_text(d, text)
                    .trim_start_matches('@')
                    .trim()
                    .to_string(),
                d.start_position().row + 1,
            )
        })
        .collect()
}

/// The module, class or function whose namespace the definition `outer` is bound in.
fn scope_of(outer: Node<'_>) -> Option<Node<'_>> {
    let mut scope = outer.parent();
    while let Some(node) = scope {
        if matches!(
            node.kind(),
            "function_definition" | "class_definition" | "module"
        ) {
            return Some(node);
        }
        scope = node.parent();
    }
    None
}

/// The name of a function's first parameter, whatever its form (`a`, `a: int`, `a=1`).
pub fn first_parameter(function: Node<'_>, text: &str) -> Option<String> {
    function
        .child_by_field_name("parameters")
        .and_then(|p| p.named_child(0))
        .and_then(|p| match p.kind() {
            "identifier" => Some(p),
            "typed_parameter" => p.named_child(0).filter(|n| n.kind() == "identifier"),
            "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
            _ => None,
        })
        .map(|n| node_text(n, text).to_string())
}

/// The facts of the function definition `function`.
/// Methods Python binds to the class without `@classmethod`.
const IMPLICIT_CLASS_METHODS: &[&str] = &["__init_subclass__", "__class_getitem__", "__new__"];

pub fn function<'t>(function: Node<'t>, text: &str) -> Function<'t> {
    let outer = outer(function);
    let name = function
        .child_by_field_name("name")
        .map_or("", |n| node_text(n, text))
        .to_string();
    let first_parameter = first_parameter(function, text);
    let decorators = decorators(function, text);
    let scope = scope_of(outer);
    let owner = match scope.map(|s| s.kind()) {
        Some("class_definition") => {
            let class = scope.unwrap_or(function);
            Owner::Class {
                name: class
                    .child_by_field_name("name")
                    .map_or("", |n| node_text(n, text))
                    .to_string(),
                qualified: qualified_class_name(class, text),
            }
        }
        Some("function_definition") => Owner::Function,
        _ => Owner::Module,
    };
    let has = |decorator: &str| decorators.iter().any(|d| d == decorator);
    // Python makes these class methods without a decorator (and `__new__` a static method that
    // takes the class first).
    let implicit_class = IMPLICIT_CLASS_METHODS.contains(&name.as_str());
    let receiver = match (&owner, &first_parameter) {
        (Owner::Class { .. }, Some(first)) if has("classmethod") || implicit_class => {
            Some(Receiver {
                written: first.clone(),
                name: first.clone(),
                by_value: false,
                class: true,
            })
        }
        (Owner::Class { .. }, Some(first)) if !has("staticmethod") => Some(Receiver {
            written: first.clone(),
            name: first.clone(),
            by_value: false,
            class: false,
        }),
        _ => None,
    };
    Function {
        node: function,
        outer,
        name,
        owner,
        receiver,
        first_parameter,
        decorators,
        is_test: false,
        is_async: function.child(0).is_some_and(|c| c.kind() == "async"),
        is_unsafe: false,
        is_const: false,
        type_parameters: Vec::new(),
        returns_value: false,
        parameters: function.child_by_field_name("parameters"),
        body: function.child_by_field_name("body"),
    }
}

/// `Outer.Inner` for a class nested in class bodies: how a method reaches it by name.
pub fn qualified_class_name(class: Node<'_>, text: &str) -> String {
    let mut parts = Vec::new();
    let mut current = Some(class);
    while let Some(node) = current {
        parts.push(
            node.child_by_field_name("name")
                .map_or("", |n| node_text(n, text)),
        );
        // class_definition < block < class_definition (possibly through decorated_definition)
        let mut parent = node.parent();
        if parent.is_some_and(|p| p.kind() == "decorated_definition") {
            parent = parent.and_then(|p| p.parent());
        }
        current = parent
            .filter(|p| p.kind() == "block")
            .and_then(|b| b.parent())
            .filter(|p| p.kind() == "class_definition");
    }
    parts.reverse();
    parts.join(".")
}

/// A name bound directly in the namespace a new function next to `function` (or in the module,
/// when `None`) joins: a definition, an import, an assignment, a parameter.
pub fn definition_named(
    tree: &Tree,
    text: &str,
    function: Option<Node<'_>>,
    name: &str,
) -> Option<(usize, Defined)> {
    let scope = match function {
        None => tree.root_node(),
        Some(function) => scope_of(function)?,
    };
    // A binding of `name` is an occurrence of the word: none in the scope, nothing to collect
    // (the scope may be the whole module).
    if word_matches(node_text(scope, text), name).is_empty() {
        return None;
    }
    let names = Names::collect(Language::Python, scope, text);
    let binding = names
        .bindings_of(name)
        .find(|o| o.scope == scope.byte_range())?;
    let node = scope.descendant_for_byte_range(binding.pos, binding.pos + binding.name.len());
    let what = match node.and_then(|n| n.parent()).map(|p| p.kind()) {
        Some("function_definition") => Defined::Function,
        Some("class_definition") => Defined::Class,
        _ => Defined::Binding,
    };
    Some((binding.line, what))
}
