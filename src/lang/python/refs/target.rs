//! The Python symbol a name stands for, as the references engine needs it: a module-level item,
//! a member of a class (method, attribute), or a binding of one function (local, parameter,
//! nested function) — from its definition, or from a use the file resolves (a local, an
//! import, `self.name`).

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::receiver::{Receiver, class_name, class_of_method, receiver};
use super::shape::{Shape, from_module, shape_of};
use super::view::{TopBinding, View};
use crate::lang::finder::NodeFinder;
use crate::lang::locals::Locals;
use crate::lang::python::definitions;
use crate::lang::python::imports::resolve_relative;
use crate::lang::python::modules::module_parts;
use crate::lang::refs::{LocalBinding, Member, MemberKind, NoTarget, Target, TargetKind};
use crate::lang::{Language, node_text};

/// Names that are no symbol of their own.
const SPECIAL: &[&str] = &["self", "cls", "super", "__class__"];

pub fn target_at(tree: &Tree, text: &str, path: &str, at: usize) -> Result<Target, NoTarget> {
    let mut finder = NodeFinder::new(tree);
    let end = text[at..]
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(text.len(), |(i, _)| at + i);
    if end == at {
        return Err(NoTarget::NotAName);
    }
    finder.seek(at, end);
    let path_nodes = finder.path().to_vec();
    let Some((&node, ancestors)) = path_nodes.split_last() else {
        return Err(NoTarget::NotAName);
    };
    if node.kind() != "identifier" || node.byte_range() != (at..end) {
        return Err(NoTarget::NotAName);
    }
    let name = node_text(node, text).to_string();
    let make = |kind: TargetKind, label: &'static str, range: Range<usize>| Target {
        lang: Language::Python,
        name: name.clone(),
        kind,
        label,
        path: path.to_string(),
        module: module_parts(path),
        name_range: node.byte_range(),
        range,
    };
    match shape_of(node, ancestors) {
        Shape::DefName(definition) => {
            let what = if definition.kind() == "class_definition" {
                "class"
            } else {
                "function"
            };
            definition_target(tree, text, node, definition, what, &make)
        }
        Shape::Parameter(function) => {
            if SPECIAL.contains(&name.as_str()) {
                return Err(NoTarget::Special { name });
            }
            if function.kind() == "function_definition"
                && class_of_method(function).is_some()
                && definitions::first_parameter(function, text).as_deref() == Some(name.as_str())
                && !definitions::decorators(function, text)
                    .iter()
                    .any(|d| d == "staticmethod")
            {
                return Err(NoTarget::Special { name });
            }
            let scope = Locals::new(Language::Python, tree, text, &name)
                .python_scope_at(at)
                .unwrap_or_else(|| function.byte_range());
            let parameter_of = (function.kind() == "function_definition")
                .then(|| function.child_by_field_name("name").map(|n| n.byte_range()))
                .flatten();
            Ok(make(
                TargetKind::Local(LocalBinding {
                    scope,
                    binding: at,
                    parameter_of,
                }),
                "parameter",
                function.byte_range(),
            ))
        }
        Shape::Attribute { object } => attribute_target(tree, text, path, node, object, &make),
        Shape::FromImport {
            statement,
            alias: false,
            ..
        } => Err(elsewhere(path, from_module(statement, text), &name)),
        Shape::Keyword { call: Some(call) } => keyword_target(tree, text, path, call, &name),
        // A part of a module path (`import pkg.mod`, `from pkg.mod import f`).
        Shape::OtherImport => {
            let module = ancestors
                .last()
                .filter(|p| p.kind() == "dotted_name")
                // `pkg` in `pkg.mod` is the package `pkg`: the path up to the name.
                .map_or(name.clone(), |p| {
                    text[p.start_byte()..node.end_byte()].to_string()
                });
            Err(NoTarget::Module { name, module })
        }
        Shape::Keyword { .. } | Shape::FromImport { .. } => Err(NoTarget::Unresolved { name }),
        Shape::Plain => plain_target(tree, text, path, node, ancestors, &make),
    }
}

/// `f(keyword=..)`: the parameter `keyword` of the function (or class) the call calls, when
/// the file resolves the callee (a definition here, `self.method`) or imports it.
fn keyword_target(
    tree: &Tree,
    text: &str,
    path: &str,
    call: Node<'_>,
    keyword: &str,
) -> Result<Target, NoTarget> {
    let unresolved = || NoTarget::Unresolved {
        name: keyword.to_string(),
    };
    let callee = call
        .child_by_field_name("function")
        .ok_or_else(unresolved)?;
    if callee.kind() == "attribute"
        && let Some(found) = method_keyword(tree, text, path, callee, keyword)
    {
        return found;
    }
    let callee = match callee.kind() {
        "identifier" => callee,
        "attribute" => callee
            .child_by_field_name("attribute")
            .ok_or_else(unresolved)?,
        _ => return Err(unresolved()),
    };
    match target_at(tree, text, path, callee.start_byte()) {
        Ok(function) => {
            let at = keyword_parameter(tree, text, &function, keyword).ok_or_else(unresolved)?;
            target_at(tree, text, path, at)
        }
        Err(NoTarget::Elsewhere { module, name }) => Err(NoTarget::Keyword {
            module,
            function: name,
            keyword: keyword.to_string(),
        }),
        Err(_) => Err(unresolved()),
    }
}

/// How many base classes deep a method is looked for.
const MAX_BASES: usize = 8;

/// `super().m(k=…)`, `Base.m(self, k=…)`, `self.m(k=…)`: the parameter `k` of the method `m` of
/// the class the receiver names (through `super()`, of the enclosing class's bases), or of the
/// nearest base class of the file that defines `m`. A base imported by name leads to its class
/// for `__init__`. `None`: not a receiver this reads (the caller tries what it knows).
fn method_keyword(
    tree: &Tree,
    text: &str,
    path: &str,
    callee: Node<'_>,
    keyword: &str,
) -> Option<Result<Target, NoTarget>> {
    let object = callee.child_by_field_name("object")?;
    let method = node_text(callee.child_by_field_name("attribute")?, text);
    let view = View::build(tree, text, path);
    let classes: Vec<String> = match receiver(object, text) {
        Receiver::Super(class) => base_names(class, text),
        Receiver::Own(class) => vec![class_name(class, text).to_string()],
        Receiver::Class(expression) | Receiver::Variable(expression) => {
            let name = node_text(expression, text);
            let imported = matches!(view.get(name).first(), Some(TopBinding::From { .. }));
            if class_defined_here(tree, text, name).is_none() && !imported {
                return None;
            }
            vec![name.to_string()]
        }
        _ => return None,
    };
    let unresolved = || NoTarget::Unresolved {
        name: keyword.to_string(),
    };
    let mut queue: Vec<(String, usize)> = classes.into_iter().map(|c| (c, 0)).collect();
    while !queue.is_empty() {
        let (class_name_, depth) = queue.remove(0);
        if let Some(class) = class_defined_here(tree, text, &class_name_) {
            if let Some(definition) = method_of(class, text, method) {
                let at = parameter_named(definition, text, keyword);
                return Some(
                    at.map_or_else(|| Err(unresolved()), |at| target_at(tree, text, path, at)),
                );
            }
            if depth < MAX_BASES {
                queue.extend(base_names(class, text).into_iter().map(|b| (b, depth + 1)));
            }
            continue;
        }
        if let Some(TopBinding::From {
            module, original, ..
        }) = view.get(&class_name_).first()
        {
            // An imported class: its `__init__` is found through the class in its module.
            return Some(Err(if method == "__init__" {
                NoTarget::Keyword {
                    module: absolute_module(path, module),
                    function: original.to_string(),
                    keyword: keyword.to_string(),
                }
            } else {
                unresolved()
            }));
        }
    }
    Some(Err(unresolved()))
}

/// The names of a class's bases written as plain names (`class C(A, B, metaclass=M)`: A, B).
fn base_names(class: Node<'_>, text: &str) -> Vec<String> {
    class
        .child_by_field_name("superclasses")
        .map(|bases| {
            bases
                .named_children(&mut bases.walk())
                .filter(|b| b.kind() == "identifier")
                .map(|b| node_text(b, text).to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The method `name` defined in the body of `class` (decorated or not).
fn method_of<'t>(class: Node<'t>, text: &str, name: &str) -> Option<Node<'t>> {
    let body = class.child_by_field_name("body")?;
    body.named_children(&mut body.walk())
        .map(|s| {
            if s.kind() == "decorated_definition" {
                s.child_by_field_name("definition").unwrap_or(s)
            } else {
                s
            }
        })
        .find(|d| {
            d.kind() == "function_definition"
                && d.child_by_field_name("name")
                    .is_some_and(|n| node_text(n, text) == name)
        })
}

/// The parameter `keyword` of the function `function` (a class: of its `__init__`).
pub fn keyword_parameter(
    tree: &Tree,
    text: &str,
    function: &Target,
    keyword: &str,
) -> Option<usize> {
    let name = tree
        .root_node()
        .descendant_for_byte_range(function.name_range.start, function.name_range.end)?;
    let mut definition = name.parent()?;
    if definition.kind() == "class_definition" {
        definition = method_of(definition, text, "__init__")?;
    }
    if definition.kind() != "function_definition" {
        return None;
    }
    parameter_named(definition, text, keyword)
}

/// The offset of the parameter `keyword` of the function definition `definition`.
fn parameter_named(definition: Node<'_>, text: &str, keyword: &str) -> Option<usize> {
    let parameters = definition.child_by_field_name("parameters")?;
    parameters
        .named_children(&mut parameters.walk())
        .filter_map(|p| match p.kind() {
            "identifier" => Some(p),
            "typed_parameter" => p.named_child(0).filter(|n| n.kind() == "identifier"),
            "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
            _ => None,
        })
        .find(|n| node_text(*n, text) == keyword)
        .map(|n| n.start_byte())
}

/// The class whose `__init__` is `function`: the offset of the class's name.
pub fn constructed_by(tree: &Tree, function: &Target) -> Option<usize> {
    if function.name != "__init__" || !matches!(function.kind, TargetKind::Member(_)) {
        return None;
    }
    let name = tree
        .root_node()
        .descendant_for_byte_range(function.name_range.start, function.name_range.end)?;
    let definition = name
        .parent()
        .filter(|d| d.kind() == "function_definition")?;
    let class = class_of_method(definition)?;
    class.child_by_field_name("name").map(|n| n.start_byte())
}

type Make<'a> = dyn Fn(TargetKind, &'static str, Range<usize>) -> Target + 'a;

/// The scope a definition binds its name in: a module, a class body or a function.
fn binding_scope(definition: Node<'_>) -> Option<Node<'_>> {
    let mut current = definitions::outer(definition).parent();
    while let Some(node) = current {
        if matches!(
            node.kind(),
            "function_definition" | "class_definition" | "module" | "lambda"
        ) {
            return Some(node);
        }
        current = node.parent();
    }
    None
}

fn definition_target(
    tree: &Tree,
    text: &str,
    name: Node<'_>,
    definition: Node<'_>,
    what: &'static str,
    make: &Make<'_>,
) -> Result<Target, NoTarget> {
    let range = definitions::outer(definition).byte_range();
    match binding_scope(definition).map(|s| (s.kind(), s)) {
        Some(("class_definition", class)) => {
            let kind = if what == "class" {
                MemberKind::Field
            } else {
                MemberKind::Method
            };
            Ok(make(
                TargetKind::Member(Member {
                    owner: class_name(class, text).to_string(),
                    trait_name: None,
                    kind,
                }),
                if what == "class" {
                    "nested class"
                } else {
                    "method"
                },
                range,
            ))
        }
        Some(("function_definition" | "lambda", function)) => {
            let own = node_text(name, text);
            let scope = Locals::new(Language::Python, tree, text, own)
                .python_scope_at(name.start_byte())
                .unwrap_or_else(|| function.byte_range());
            Ok(make(
                TargetKind::Local(LocalBinding {
                    scope,
                    binding: name.start_byte(),
                    parameter_of: None,
                }),
                if what == "class" {
                    "local class"
                } else {
                    "nested function"
                },
                range,
            ))
        }
        _ => Ok(make(TargetKind::Item, what, range)),
    }
}

fn attribute_target(
    tree: &Tree,
    text: &str,
    path: &str,
    node: Node<'_>,
    object: Node<'_>,
    make: &Make<'_>,
) -> Result<Target, NoTarget> {
    let name = node_text(node, text).to_string();
    let member = |class: Node<'_>| {
        let owner = class_name(class, text).to_string();
        let method = is_method_of(class, text, &name);
        make(
            TargetKind::Member(Member {
                owner,
                trait_name: None,
                kind: if method {
                    MemberKind::Method
                } else {
                    MemberKind::Field
                },
            }),
            if method { "method" } else { "attribute" },
            node.byte_range(),
        )
    };
    match receiver(object, text) {
        Receiver::Own(class) => Ok(member(class)),
        Receiver::Variable(variable) | Receiver::Class(variable) => {
            let dotted = super::shape::dotted_text(variable, text).unwrap_or_default();
            let view = View::build(tree, text, path);
            if let Some(module) = view.module_of(&dotted) {
                return Err(elsewhere(path, &module, &name));
            }
            if let Some(class) = class_defined_here(tree, text, &dotted) {
                return Ok(member(class));
            }
            Err(NoTarget::Unresolved { name })
        }
        _ => Err(NoTarget::Unresolved { name }),
    }
}

fn is_method_of(class: Node<'_>, text: &str, name: &str) -> bool {
    let Some(body) = class.child_by_field_name("body") else {
        return false;
    };
    body.named_children(&mut body.walk()).any(|statement| {
        let definition = if statement.kind() == "decorated_definition" {
            statement.child_by_field_name("definition")
        } else {
            Some(statement)
        };
        definition.is_some_and(|d| {
            d.kind() == "function_definition"
                && d.child_by_field_name("name")
                    .is_some_and(|n| node_text(n, text) == name)
        })
    })
}

/// A top-level class of the file called `name`.
fn class_defined_here<'t>(tree: &'t Tree, text: &str, name: &str) -> Option<Node<'t>> {
    crate::lang::python::imports::module_level_statements(tree)
        .into_iter()
        .map(|s| {
            if s.kind() == "decorated_definition" {
                s.child_by_field_name("definition").unwrap_or(s)
            } else {
                s
            }
        })
        .find(|s| {
            s.kind() == "class_definition"
                && s.child_by_field_name("name")
                    .is_some_and(|n| node_text(n, text) == name)
        })
}

fn plain_target(
    tree: &Tree,
    text: &str,
    path: &str,
    node: Node<'_>,
    ancestors: &[Node<'_>],
    make: &Make<'_>,
) -> Result<Target, NoTarget> {
    let name = node_text(node, text).to_string();
    if SPECIAL.contains(&name.as_str()) {
        return Err(NoTarget::Special { name });
    }
    let at = node.start_byte();
    let locals = Locals::new(Language::Python, tree, text, &name);
    if let Some(scope) = locals.python_scope_at(at) {
        let binding = first_binding(tree, text, &name, &scope, &locals).unwrap_or(at);
        if binding != at {
            // The variable's own binding decides what it is (a nested function, a parameter).
            if let Ok(target) = target_at(tree, text, path, binding)
                && matches!(target.kind, TargetKind::Local(_))
            {
                return Ok(target);
            }
        }
        return Ok(make(
            TargetKind::Local(LocalBinding {
                scope: scope.clone(),
                binding,
                parameter_of: None,
            }),
            "local variable",
            scope,
        ));
    }
    // A class attribute assigned in the class body.
    if let Some(class) = class_body_of(ancestors) {
        return Ok(make(
            TargetKind::Member(Member {
                owner: class_name(class, text).to_string(),
                trait_name: None,
                kind: MemberKind::Field,
            }),
            "class attribute",
            node.byte_range(),
        ));
    }
    let view = View::build(tree, text, path);
    match view.get(&name).first() {
        Some(TopBinding::Defined { at: own, .. }) if *own != at => {
            target_at(tree, text, path, *own)
        }
        Some(TopBinding::Defined { what, .. }) => {
            let statement = ancestors
                .iter()
                .rev()
                .find(|a| {
                    matches!(
                        a.kind(),
                        "expression_statement" | "for_statement" | "with_statement"
                    )
                })
                .map_or(node.byte_range(), |s| s.byte_range());
            Ok(make(TargetKind::Item, what, statement))
        }
        Some(TopBinding::From {
            module, original, ..
        }) => Err(elsewhere(path, module, original)),
        Some(TopBinding::Module { module, .. }) => Err(NoTarget::Module {
            name,
            module: module.clone(),
        }),
        None => Err(NoTarget::Unresolved { name }),
    }
}

/// The class whose body holds the statement an identifier is in (not through a function).
fn class_body_of<'t>(ancestors: &[Node<'t>]) -> Option<Node<'t>> {
    for (i, node) in ancestors.iter().enumerate().rev() {
        match node.kind() {
            "function_definition" | "lambda" => return None,
            "class_definition" => {
                // Only code of the body: not the class's name, bases or decorators.
                return ancestors
                    .get(i + 1)
                    .filter(|b| b.kind() == "block")
                    .map(|_| *node);
            }
            _ => {}
        }
    }
    None
}

/// The first binding of `name` in the scope `scope` (a parameter, an assignment...).
fn first_binding(
    tree: &Tree,
    text: &str,
    name: &str,
    scope: &Range<usize>,
    locals: &Locals,
) -> Option<usize> {
    let mut found = None;
    crate::lang::walk_tree_with_ancestors(tree, |node, ancestors| {
        if found.is_some() || node.end_byte() <= scope.start || node.start_byte() >= scope.end {
            return false;
        }
        if node.kind() == "identifier"
            && node_text(node, text) == name
            && scope.contains(&node.start_byte())
            && locals.python_scope_at(node.start_byte()).as_ref() == Some(scope)
            && crate::lang::python::names::role(node, crate::lang::up_from(node, ancestors))
                == crate::lang::names::NameRole::Bind
        {
            found = Some(node.start_byte());
        }
        true
    });
    found
}

/// The definition `name` of the module `module` (as written in the file at `path`): the
/// driver looks for it.
fn elsewhere(path: &str, module: &str, name: &str) -> NoTarget {
    NoTarget::Elsewhere {
        module: absolute_module(path, module),
        name: name.to_string(),
    }
}

/// A module as written in the file at `path` (`.util`, `pkg.util`), as parts from the root
/// (relative) or as written (absolute; matched on its trailing parts).
pub fn absolute_module(path: &str, module: &str) -> Vec<String> {
    let dots = module.len() - module.trim_start_matches('.').len();
    if dots == 0 {
        return module.split('.').map(|s| s.trim().to_string()).collect();
    }
    let mut package = module_parts(path);
    if !path.ends_with("__init__.py") && !path.ends_with("__init__.pyi") {
        package.pop();
    }
    resolve_relative(&package, dots, module[dots..].trim()).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(text: &str, path: &str, needle: &str, nth: usize) -> Result<Target, NoTarget> {
        let tree = Language::Python.parse(text);
        let at = crate::lang::calls::word_matches(text, needle)[nth];
        target_at(&tree, text, path, at)
    }

    #[test]
    fn targets_of_every_kind() {
        let text = "from .a import dedent\nimport b\n\nclass F:\n    size = 1\n    def dedent(self, n):\n        self.width = n\n        return self.width\n\ndef use(x):\n    y = x\n    def inner():\n        return y\n    return inner\n\nb.go()\n";
        let path = "pkg/m.py";
        let t = target(text, path, "dedent", 1).unwrap();
        assert_eq!(t.label, "method");
        assert!(matches!(&t.kind, TargetKind::Member(m) if m.owner == "F"));
        let t = target(text, path, "width", 1).unwrap();
        assert_eq!(t.label, "attribute");
        let t = target(text, path, "size", 0).unwrap();
        assert_eq!(t.label, "class attribute");
        let t = target(text, path, "x", 0).unwrap();
        assert_eq!(t.label, "parameter");
        let t = target(text, path, "x", 1).unwrap();
        assert_eq!(t.label, "parameter", "a use resolves to its binding");
        let t = target(text, path, "y", 1).unwrap();
        assert_eq!(t.label, "local variable");
        let t = target(text, path, "inner", 1).unwrap();
        assert_eq!(t.label, "nested function");
        let t = target(text, path, "use", 0).unwrap();
        assert_eq!(t.label, "function");
        assert_eq!(t.kind, TargetKind::Item);
        assert_eq!(
            target(text, path, "dedent", 0).unwrap_err(),
            NoTarget::Elsewhere {
                module: vec!["pkg".into(), "a".into()],
                name: "dedent".into()
            }
        );
        assert_eq!(
            target(text, path, "go", 0).unwrap_err(),
            NoTarget::Elsewhere {
                module: vec!["b".into()],
                name: "go".into()
            }
        );
        assert!(matches!(
            target(text, path, "self", 0),
            Err(NoTarget::Special { .. })
        ));
    }

    #[test]
    fn a_module_name_is_a_module_not_an_unknown_name() {
        let text = "import pkg.mod as m
from pkg.other import f
import b

b.go(m, f)
";
        let module = |needle: &str, nth: usize| match target(text, "x.py", needle, nth) {
            Err(NoTarget::Module { module, .. }) => module,
            other => panic!("{needle}: {other:?}"),
        };
        assert_eq!(module("pkg", 0), "pkg");
        assert_eq!(module("mod", 0), "pkg.mod");
        assert_eq!(module("other", 0), "pkg.other");
        assert_eq!(module("b", 0), "b");
        assert_eq!(module("b", 1), "b", "a use of a module bound by `import`");
    }
}
