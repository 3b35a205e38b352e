//! What a Python identifier is, syntactically, for the references engine: the name of a
//! definition, the attribute of `object.name`, a keyword argument, a parameter, a name in an
//! import, or a plain name; and whether it is called.

use tree_sitter::Node;

use crate::lang::node_text;
use crate::lang::refs::Role;

/// The form of an occurrence.
#[derive(Debug, Clone, Copy)]
pub enum Shape<'t> {
    /// The name of a `def` or `class` (the definition node).
    DefName(Node<'t>),
    /// `object.name`.
    Attribute { object: Node<'t> },
    /// `f(name=...)`: the call, when the argument list belongs to one.
    Keyword { call: Option<Node<'t>> },
    /// A parameter of a function or lambda (the function or lambda node).
    Parameter(Node<'t>),
    /// In `from module import name [as alias]`: the statement, whether the occurrence is the
    /// alias, and the original name's node.
    FromImport {
        statement: Node<'t>,
        alias: bool,
        original: Node<'t>,
    },
    /// Any other part of an import (a module path, `import name`).
    OtherImport,
    /// A plain name: read, assigned, called, decorated with.
    Plain,
}

/// The shape of the identifier `node` whose ancestors are `ancestors` (root first).
pub fn shape_of<'t>(node: Node<'t>, ancestors: &[Node<'t>]) -> Shape<'t> {
    let up = |k: usize| {
        ancestors
            .len()
            .checked_sub(k + 1)
            .and_then(|i| ancestors.get(i))
            .copied()
    };
    let Some(parent) = up(0) else {
        return Shape::Plain;
    };
    let is = |field: &str| parent.child_by_field_name(field) == Some(node);
    match parent.kind() {
        "function_definition" | "class_definition" if is("name") => Shape::DefName(parent),
        "attribute" if is("attribute") => match parent.child_by_field_name("object") {
            Some(object) => Shape::Attribute { object },
            None => Shape::Plain,
        },
        "keyword_argument" if is("name") => Shape::Keyword {
            call: up(1)
                .filter(|a| a.kind() == "argument_list")
                .and_then(|_| up(2))
                .filter(|c| c.kind() == "call"),
        },
        "parameters" | "lambda_parameters" => parameter_owner(up(1)),
        "default_parameter" | "typed_default_parameter" if is("name") => parameter_owner(up(2)),
        "typed_parameter" => parameter_owner(up(2)),
        "list_splat_pattern" | "dictionary_splat_pattern"
            if up(1).is_some_and(|p| matches!(p.kind(), "parameters" | "lambda_parameters")) =>
        {
            parameter_owner(up(2))
        }
        "aliased_import" if is("alias") => from_import(parent, up(1), true),
        "dotted_name" => {
            let Some(owner) = up(1) else {
                return Shape::OtherImport;
            };
            match owner.kind() {
                "import_from_statement"
                    if owner.child_by_field_name("module_name") != Some(parent) =>
                {
                    if parent.named_child_count() == 1 {
                        Shape::FromImport {
                            statement: owner,
                            alias: false,
                            original: node,
                        }
                    } else {
                        Shape::OtherImport
                    }
                }
                "aliased_import" if owner.child_by_field_name("name") == Some(parent) => {
                    match up(2).filter(|s| s.kind() == "import_from_statement") {
                        Some(statement) if parent.named_child_count() == 1 => Shape::FromImport {
                            statement,
                            alias: false,
                            original: node,
                        },
                        _ => Shape::OtherImport,
                    }
                }
                "import_from_statement"
                | "import_statement"
                | "aliased_import"
                | "relative_import"
                | "future_import_statement" => Shape::OtherImport,
                _ => Shape::Plain,
            }
        }
        _ => Shape::Plain,
    }
}

fn parameter_owner(function: Option<Node<'_>>) -> Shape<'_> {
    match function.filter(|f| matches!(f.kind(), "function_definition" | "lambda")) {
        Some(function) => Shape::Parameter(function),
        None => Shape::Plain,
    }
}

fn from_import<'t>(aliased: Node<'t>, statement: Option<Node<'t>>, alias: bool) -> Shape<'t> {
    let original = aliased
        .child_by_field_name("name")
        .filter(|n| n.named_child_count() == 1)
        .and_then(|n| n.named_child(0));
    match (
        statement.filter(|s| s.kind() == "import_from_statement"),
        original,
    ) {
        (Some(statement), Some(original)) => Shape::FromImport {
            statement,
            alias,
            original,
        },
        _ => Shape::OtherImport,
    }
}

/// `Call` when the occurrence (or the attribute it ends) is the callee of a call, else `Use`.
pub fn role_of(node: Node<'_>, ancestors: &[Node<'_>]) -> Role {
    let mut callee = node;
    let mut index = ancestors.len();
    if let Some(&parent) = ancestors.last()
        && parent.kind() == "attribute"
        && parent.child_by_field_name("attribute") == Some(node)
    {
        callee = parent;
        index -= 1;
    }
    let call = index.checked_sub(1).and_then(|i| ancestors.get(i));
    match call {
        Some(call)
            if call.kind() == "call" && call.child_by_field_name("function") == Some(callee) =>
        {
            Role::Call
        }
        Some(decorator) if decorator.kind() == "decorator" => Role::Call,
        _ => Role::Use,
    }
}

/// The module `from module import ...` reads from, as written.
pub fn from_module<'a>(statement: Node<'_>, text: &'a str) -> &'a str {
    statement
        .child_by_field_name("module_name")
        .map_or("", |m| node_text(m, text))
}

/// A dotted chain of names (`a`, `a.b.c`) as text, when `node` is one.
pub fn dotted_text(node: Node<'_>, text: &str) -> Option<String> {
    match node.kind() {
        "identifier" => Some(node_text(node, text).to_string()),
        "attribute" => {
            let object = dotted_text(node.child_by_field_name("object")?, text)?;
            let attribute = node.child_by_field_name("attribute")?;
            Some(format!("{object}.{}", node_text(attribute, text)))
        }
        _ => None,
    }
}

/// The first identifier of a dotted chain.
pub fn head_of(node: Node<'_>) -> Option<Node<'_>> {
    match node.kind() {
        "identifier" => Some(node),
        "attribute" => head_of(node.child_by_field_name("object")?),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;
    use crate::lang::finder::NodeFinder;

    fn shape_name(text: &str, needle: &str, nth: usize) -> (String, Role) {
        let tree = Language::Python.parse(text);
        let at = crate::lang::calls::word_matches(text, needle)[nth];
        let mut finder = NodeFinder::new(&tree);
        finder.seek(at, at + needle.len());
        let path = finder.path().to_vec();
        let node = *path.last().unwrap();
        let ancestors = &path[..path.len() - 1];
        let shape = match shape_of(node, ancestors) {
            Shape::DefName(_) => "def",
            Shape::Attribute { .. } => "attribute",
            Shape::Keyword { call } => {
                if call.is_some() {
                    "keyword-in-call"
                } else {
                    "keyword"
                }
            }
            Shape::Parameter(_) => "parameter",
            Shape::FromImport { alias: true, .. } => "from-alias",
            Shape::FromImport { .. } => "from",
            Shape::OtherImport => "import",
            Shape::Plain => "plain",
        };
        (shape.to_string(), role_of(node, ancestors))
    }

    #[test]
    fn shapes_of_occurrences() {
        let text = "from m import f, g as f2\nfrom f import x\nimport f\n\n@f\ndef f(f, *, k=f):\n    f(k=1)\n    o.f()\n    return lambda f: f\n";
        let cases = [
            ("f", 0, "from", Role::Use),
            ("f2", 0, "from-alias", Role::Use),
            ("f", 1, "import", Role::Use),
            ("f", 2, "import", Role::Use),
            ("f", 3, "plain", Role::Call),
            ("f", 4, "def", Role::Use),
            ("f", 5, "parameter", Role::Use),
            ("f", 6, "plain", Role::Use),
            ("f", 7, "plain", Role::Call),
            ("k", 0, "parameter", Role::Use),
            ("k", 1, "keyword-in-call", Role::Use),
            ("f", 8, "attribute", Role::Call),
            ("f", 9, "parameter", Role::Use),
            ("f", 10, "plain", Role::Use),
        ];
        for (needle, nth, shape, role) in cases {
            assert_eq!(
                shape_name(text, needle, nth),
                (shape.to_string(), role),
                "{needle} #{nth}"
            );
        }
    }
}
