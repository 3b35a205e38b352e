//! Receivers of `object.member` in Python, for the references engine: what the object is when
//! the code says so — the instance or class a method receives (`self`, `cls`), `super()`, a
//! class named directly or through its module, a constructor call, a variable whose every
//! binding gives it one class (`x = Formatter()`, `x: Formatter`) — and which classes a name
//! means.

use tree_sitter::Node;

use super::shape::dotted_text;
use super::view::{TopBinding, View};
use crate::lang::node_text;
use crate::lang::python::definitions;
use crate::lang::python::modules::module_parts;
use crate::lang::refs::Reach;

/// Builtin types: a receiver of one of them is never a project class.
const BUILTIN_TYPES: &[&str] = &[
    "str",
    "bytes",
    "bytearray",
    "int",
    "float",
    "complex",
    "bool",
    "list",
    "dict",
    "set",
    "frozenset",
    "tuple",
    "object",
    "type",
    "range",
    "memoryview",
];

/// What the object of `object.member` is.
#[derive(Debug, Clone, Copy)]
pub enum Receiver<'t> {
    /// The first parameter of a method (`self`, `cls`): the class whose body holds the method.
    Own(Node<'t>),
    /// `super()` in a method of this class.
    Super(Node<'t>),
    /// The class a name or dotted name designates (the expression).
    Class(Node<'t>),
    /// An instance built by calling this expression (`Formatter()`).
    Constructed(Node<'t>),
    /// A variable: its name node.
    Variable(Node<'t>),
    /// A literal (a string, a list...): a builtin type.
    Literal,
    /// Anything else.
    Unknown,
}

/// Reads the object of an attribute.
pub fn receiver<'t>(object: Node<'t>, text: &str) -> Receiver<'t> {
    match object.kind() {
        "identifier" => {
            if let Some(class) = own_class(object, text) {
                return Receiver::Own(class);
            }
            Receiver::Variable(object)
        }
        "attribute" => Receiver::Class(object),
        "call" => {
            let Some(function) = object.child_by_field_name("function") else {
                return Receiver::Unknown;
            };
            let no_arguments = object
                .child_by_field_name("arguments")
                .is_some_and(|a| a.named_child_count() == 0);
            if function.kind() == "identifier"
                && node_text(function, text) == "super"
                && no_arguments
            {
                return match enclosing_class(object) {
                    Some(class) => Receiver::Super(class),
                    None => Receiver::Unknown,
                };
            }
            if matches!(function.kind(), "identifier" | "attribute") {
                Receiver::Constructed(function)
            } else {
                Receiver::Unknown
            }
        }
        "string"
        | "concatenated_string"
        | "list"
        | "dictionary"
        | "set"
        | "tuple"
        | "integer"
        | "float"
        | "list_comprehension"
        | "dictionary_comprehension"
        | "set_comprehension" => Receiver::Literal,
        _ => Receiver::Unknown,
    }
}

/// The class a method receiving `identifier` as its first parameter belongs to: the nearest
/// function binding that name as a parameter must be a method (not a `@staticmethod`) whose
/// first parameter it is.
fn own_class<'t>(identifier: Node<'t>, text: &str) -> Option<Node<'t>> {
    let name = node_text(identifier, text);
    let mut current = identifier.parent();
    while let Some(node) = current {
        if node.kind() == "function_definition"
            && crate::lang::python::body::parameter_names(node, text).contains(name)
        {
            if definitions::first_parameter(node, text).as_deref() != Some(name) {
                return None;
            }
            if definitions::decorators(node, text)
                .iter()
                .any(|d| d == "staticmethod")
            {
                return None;
            }
            return class_of_method(node);
        }
        if node.kind() == "lambda" {
            return None;
        }
        current = node.parent();
    }
    None
}

/// The class whose body holds the function definition `function` directly.
pub fn class_of_method(function: Node<'_>) -> Option<Node<'_>> {
    definitions::outer(function)
        .parent()
        .filter(|b| b.kind() == "block")?
        .parent()
        .filter(|c| c.kind() == "class_definition")
}

/// The innermost class around `node` (through its methods).
pub fn enclosing_class(node: Node<'_>) -> Option<Node<'_>> {
    crate::lang::ancestor_of_kind(node, "class_definition")
}

/// The name of a class definition.
pub fn class_name<'a>(class: Node<'_>, text: &'a str) -> &'a str {
    class
        .child_by_field_name("name")
        .map_or("", |n| node_text(n, text))
}

/// Whether the class body defines `name` (a method, a nested class, a class-level assignment)
/// or its methods assign `self.name`.
pub fn class_defines(class: Node<'_>, text: &str, name: &str) -> Option<usize> {
    let body = class.child_by_field_name("body")?;
    let mut found = None;
    crate::lang::walk_node(body, |n| {
        if found.is_some() {
            return false;
        }
        match n.kind() {
            "function_definition" | "class_definition" => {
                if let Some(own) = n.child_by_field_name("name")
                    && node_text(own, text) == name
                    && class_of_method(n).is_some_and(|c| c.id() == class.id())
                {
                    found = Some(own.start_position().row + 1);
                }
                // Methods' bodies may assign `self.name`.
                n.kind() == "function_definition"
            }
            "assignment" | "augmented_assignment" => {
                if let Some(left) = n.child_by_field_name("left") {
                    let target = match left.kind() {
                        "identifier"
                            if crate::lang::python::statements::enclosing_block(n)
                                .and_then(|b| b.parent())
                                .is_some_and(|c| c.id() == class.id()) =>
                        {
                            Some(left)
                        }
                        "attribute" => left
                            .child_by_field_name("object")
                            .filter(|o| o.kind() == "identifier")
                            .filter(|o| own_class(*o, text).is_some_and(|c| c.id() == class.id()))
                            .and_then(|_| left.child_by_field_name("attribute")),
                        _ => None,
                    };
                    if let Some(target) = target
                        && node_text(target, text) == name
                    {
                        found = Some(target.start_position().row + 1);
                    }
                }
                true
            }
            _ => true,
        }
    });
    found
}

/// What a class name written here means: `Some(true)` one of the owner classes, `Some(false)`
/// a class known not to be one, `None` when the code does not say.
pub fn class_is_owner(
    view: &View,
    reach: &Reach,
    expression: Node<'_>,
    text: &str,
) -> Option<bool> {
    let dotted = dotted_text(expression, text)?;
    let (module, name) = match dotted.rsplit_once('.') {
        Some((module, name)) => (view.module_of(module), name.to_string()),
        None => (None, dotted.clone()),
    };
    if let Some(module) = module {
        return Some(
            reach
                .owners
                .iter()
                .any(|(parts, n)| *n == name && view.names_module(&module, parts)),
        );
    }
    if dotted.contains('.') {
        return None;
    }
    if BUILTIN_TYPES.contains(&name.as_str()) {
        return Some(false);
    }
    match view.get(&name).last() {
        Some(TopBinding::Defined { what: "class", .. }) => Some(
            reach
                .owners
                .iter()
                .any(|(parts, n)| *n == name && *parts == module_parts(&view.path)),
        ),
        Some(TopBinding::Defined { .. }) => None,
        Some(TopBinding::From {
            module, original, ..
        }) => {
            if reach
                .owners
                .iter()
                .any(|(parts, n)| n == original && view.names_module(module, parts))
            {
                Some(true)
            } else if starts_uppercase(original) {
                Some(false)
            } else {
                None
            }
        }
        Some(TopBinding::Module { .. }) => Some(false),
        None if starts_uppercase(&name) && view.stars.is_empty() => {
            if reach.owners.iter().any(|(_, n)| *n == name) {
                // A class of the same name defined in a function or a conditional block here.
                None
            } else {
                Some(false)
            }
        }
        None => None,
    }
}

fn starts_uppercase(name: &str) -> bool {
    crate::lang::names::starts_uppercase(name)
}

/// The type a variable evidently has where `variable` (its name node) is read: every binding
/// of the name in its scope gives the same class (`x = Formatter(...)`, `x: Formatter = ...`,
/// a parameter `x: Formatter`). The class expression's text.
pub fn evident_type(variable: Node<'_>, text: &str) -> Option<String> {
    let name = node_text(variable, text);
    let scope = scope_binding(variable, text, name)?;
    let mut types: Vec<Option<String>> = Vec::new();
    if scope.kind() == "function_definition"
        && let Some(parameters) = scope.child_by_field_name("parameters")
    {
        for parameter in parameters.named_children(&mut parameters.walk()) {
            let (own, ty) = match parameter.kind() {
                "identifier" => (Some(parameter), None),
                "typed_parameter" => (
                    parameter
                        .named_child(0)
                        .filter(|n| n.kind() == "identifier"),
                    parameter.child_by_field_name("type"),
                ),
                "default_parameter" => (parameter.child_by_field_name("name"), None),
                "typed_default_parameter" => (
                    parameter.child_by_field_name("name"),
                    parameter.child_by_field_name("type"),
                ),
                _ => (None, None),
            };
            if own.is_some_and(|n| node_text(n, text) == name) {
                types.push(ty.and_then(|t| class_text(t, text)));
            }
        }
    }
    let body = if scope.kind() == "module" {
        Some(scope)
    } else {
        scope.child_by_field_name("body")
    };
    if let Some(body) = body {
        bindings_in(body, text, name, &mut types);
    }
    let first = types.first()?.clone()?;
    types
        .iter()
        .all(|t| t.as_deref() == Some(first.as_str()))
        .then_some(first)
}

/// The function (or the module) whose local `name` is, seen from `node`.
fn scope_binding<'t>(node: Node<'t>, text: &str, name: &str) -> Option<Node<'t>> {
    let mut current = node.parent();
    let mut root = node;
    while let Some(n) = current {
        root = n;
        match n.kind() {
            "function_definition" => {
                let mut probe = Vec::new();
                let binds_parameter =
                    crate::lang::python::body::parameter_names(n, text).contains(name);
                if let Some(body) = n.child_by_field_name("body") {
                    bindings_in(body, text, name, &mut probe);
                }
                if binds_parameter || !probe.is_empty() {
                    return Some(n);
                }
            }
            "lambda" => return None,
            _ => {}
        }
        current = n.parent();
    }
    (root.kind() == "module").then_some(root)
}

/// The class each binding of `name` in `body` gives it (`None` for a binding that gives none
/// the code shows); nested functions and classes are not entered.
fn bindings_in(body: Node<'_>, text: &str, name: &str, types: &mut Vec<Option<String>>) {
    crate::lang::walk_node(body, |n| match n.kind() {
        "function_definition" | "class_definition" | "lambda" => {
            if n.child_by_field_name("name")
                .is_some_and(|own| node_text(own, text) == name)
            {
                types.push(None);
            }
            false
        }
        "assignment" => {
            let left = n.child_by_field_name("left");
            if left.is_some_and(|l| l.kind() == "identifier" && node_text(l, text) == name) {
                let annotated = n
                    .child_by_field_name("type")
                    .and_then(|t| class_text(t, text));
                let constructed = n
                    .child_by_field_name("right")
                    .filter(|r| r.kind() == "call")
                    .and_then(|r| r.child_by_field_name("function"))
                    .and_then(|f| dotted_text(f, text))
                    .filter(|f| starts_uppercase(f.rsplit('.').next().unwrap_or(f)));
                types.push(annotated.or(constructed));
            } else if left.is_some_and(|l| {
                crate::lang::python::imports::identifiers_in(l)
                    .iter()
                    .any(|i| node_text(*i, text) == name)
            }) {
                types.push(None);
            }
            true
        }
        "augmented_assignment"
        | "for_statement"
        | "for_in_clause"
        | "named_expression"
        | "as_pattern"
        | "import_statement"
        | "import_from_statement"
        | "global_statement"
        | "nonlocal_statement" => {
            if crate::lang::python::imports::identifiers_in(n)
                .iter()
                .chain(n.child_by_field_name("left").iter())
                .chain(n.child_by_field_name("name").iter())
                .chain(n.child_by_field_name("alias").iter())
                .any(|i| i.kind() == "identifier" && node_text(*i, text) == name)
                || crate::lang::python::names::bound_names(n, text).contains(name)
            {
                types.push(None);
            }
            true
        }
        _ => true,
    });
}

/// A class written as a type annotation (`Formatter`, `m.Formatter`, `"Formatter"`).
fn class_text(ty: Node<'_>, text: &str) -> Option<String> {
    let raw = node_text(ty, text).trim().trim_matches(['"', '\'']);
    let simple = raw
        .chars()
        .all(|c| c.is_alphanumeric() || c == '_' || c == '.');
    (simple && !raw.is_empty()).then(|| raw.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    fn node_at<'t>(tree: &'t tree_sitter::Tree, at: usize, len: usize) -> Node<'t> {
        tree.root_node()
            .descendant_for_byte_range(at, at + len)
            .unwrap()
    }

    #[test]
    fn evident_types_of_variables() {
        let text = "def use(p: Formatter, q):\n    f = Formatter()\n    g = make()\n    h = Formatter()\n    h = Other()\n    f.dedent()\n    g.dedent()\n    h.dedent()\n    p.dedent()\n    q.dedent()\n";
        let tree = Language::Python.parse(text);
        let ty = |needle: &str| {
            let at = text.find(needle).unwrap();
            evident_type(node_at(&tree, at, 1), text)
        };
        assert_eq!(ty("f.dedent").as_deref(), Some("Formatter"));
        assert_eq!(ty("g.dedent"), None);
        assert_eq!(ty("h.dedent"), None);
        assert_eq!(ty("p.dedent").as_deref(), Some("Formatter"));
        assert_eq!(ty("q.dedent"), None);
    }

    #[test]
    fn receivers_of_methods() {
        let text = "class A(B):\n    def m(self):\n        self.x()\n        super().x()\n    @staticmethod\n    def s(self):\n        self.x()\n";
        let tree = Language::Python.parse(text);
        let object = |nth: usize| {
            let at = crate::lang::calls::word_matches(text, "x")[nth];
            node_at(&tree, at, 1)
                .parent()
                .and_then(|a| a.child_by_field_name("object"))
                .unwrap()
        };
        assert!(matches!(receiver(object(0), text), Receiver::Own(_)));
        assert!(matches!(receiver(object(1), text), Receiver::Super(_)));
        assert!(matches!(receiver(object(2), text), Receiver::Variable(_)));
        let class = tree.root_node().child(0).unwrap();
        assert_eq!(class_defines(class, text, "m"), Some(2));
        assert_eq!(class_defines(class, text, "x"), None);
    }
}
