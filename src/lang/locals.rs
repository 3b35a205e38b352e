//! Whether a name used at some point of a parsed file is a local binding there (a `let`, a
//! parameter, a closure or lambda parameter, a loop or pattern variable, a Python local) rather
//! than the item of that name: a call of `helper(..)` after `let helper = |x| ..;` does not call
//! the function `helper`. Syntactic and best effort, like the rest of `lang`; never recurses.

use tree_sitter::Node;

use super::{Language, node_text, walk_node};

/// Whether `name` at `node` resolves to a local binding of the code around it.
pub fn shadowed_by_local(lang: Language, node: Node<'_>, name: &str, text: &str) -> bool {
    match lang {
        Language::Rust => rust_shadowed(node, name, text),
        Language::Python => python_shadowed(node, name, text),
    }
}

/// Whether `node` (an identifier) is itself a local binding: a Rust pattern binding, or a
/// Python name inside a function that binds it there.
pub fn is_local_binding(lang: Language, node: Node<'_>, text: &str) -> bool {
    match lang {
        Language::Rust => is_rust_binding(node),
        Language::Python => {
            let name = node_text(node, text);
            python_shadowed(node, name, text)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Rust: a pattern binding visible at `node`, in the enclosing `fn`.

fn rust_shadowed(node: Node<'_>, name: &str, text: &str) -> bool {
    let Some(function) = ancestor(node, "function_item") else {
        return false;
    };
    let at = node.start_byte();
    let mut shadowed = false;
    walk_node(function, |n| {
        if shadowed || n.start_byte() >= at {
            return false;
        }
        if n.kind() == "function_item" && n.id() != function.id() {
            return false;
        }
        if n.kind() == "identifier" && node_text(n, text) == name && is_rust_binding(n) {
            shadowed = rust_binding_scope(n)
                .is_some_and(|scope| scope.start_byte() <= at && at < scope.end_byte());
        }
        true
    });
    shadowed
}

/// Whether an identifier is bound by a pattern (`let`, parameter, closure, `for`, `match`,
/// `if let`); not the type of a pattern (`Some` in `Some(x)`).
fn is_rust_binding(node: Node<'_>) -> bool {
    if node.parent().is_some_and(|p| {
        matches!(p.kind(), "tuple_struct_pattern" | "struct_pattern")
            && p.child_by_field_name("type") == Some(node)
    }) {
        return false;
    }
    let mut child = node;
    let mut current = node.parent();
    while let Some(p) = current {
        match p.kind() {
            "let_declaration" | "parameter" | "for_expression" | "let_condition" | "match_arm" => {
                return p
                    .child_by_field_name("pattern")
                    .is_some_and(|pattern| pattern.id() == child.id());
            }
            "closure_parameters" => return true,
            "tuple_pattern"
            | "struct_pattern"
            | "tuple_struct_pattern"
            | "slice_pattern"
            | "ref_pattern"
            | "mut_pattern"
            | "captured_pattern"
            | "or_pattern"
            | "field_pattern"
            | "match_pattern"
            | "reference_pattern" => {}
            _ => return false,
        }
        child = p;
        current = p.parent();
    }
    false
}

/// Where a pattern binding is visible: the block of a `let` (from the statement on; callers
/// check the position), a function or closure for a parameter, the body of a `for`, a `match`
/// arm, the `if`/`while` of an `if let`.
fn rust_binding_scope(binding: Node<'_>) -> Option<Node<'_>> {
    let mut current = binding.parent();
    while let Some(p) = current {
        match p.kind() {
            "let_declaration" => return p.parent(),
            "parameter" => return p.parent().and_then(|list| list.parent()),
            "closure_parameters" => return p.parent(),
            "for_expression" => return p.child_by_field_name("body"),
            "match_arm" => return Some(p),
            "let_condition" => return p.parent(),
            _ => {}
        }
        current = p.parent();
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Python: a local of an enclosing function (anywhere in it: a Python scope is the whole
// function), lambda or comprehension.

const COMPREHENSIONS: &[&str] = &[
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
];

fn python_shadowed(node: Node<'_>, name: &str, text: &str) -> bool {
    let mut current = node.parent();
    while let Some(scope) = current {
        match scope.kind() {
            "function_definition" => {
                let body = scope.child_by_field_name("body");
                if body.is_some_and(|b| declares(b, "global_statement", name, text)) {
                    return false;
                }
                let local = scope
                    .child_by_field_name("parameters")
                    .is_some_and(|p| binds_parameter(p, name, text))
                    || body.is_some_and(|b| python_binds(b, name, text));
                if local && !body.is_some_and(|b| declares(b, "nonlocal_statement", name, text)) {
                    return true;
                }
            }
            "lambda"
                if scope
                    .child_by_field_name("parameters")
                    .is_some_and(|p| binds_parameter(p, name, text)) =>
            {
                return true;
            }
            kind if COMPREHENSIONS.contains(&kind) => {
                let mut cursor = scope.walk();
                let binds = scope.named_children(&mut cursor).any(|clause| {
                    clause.kind() == "for_in_clause"
                        && clause
                            .child_by_field_name("left")
                            .is_some_and(|left| target_binds(left, name, text))
                });
                if binds {
                    return true;
                }
            }
            _ => {}
        }
        current = scope.parent();
    }
    false
}

/// `global name` / `nonlocal name` in a function body (not in nested functions or classes).
fn declares(body: Node<'_>, kind: &str, name: &str, text: &str) -> bool {
    let mut found = false;
    walk_node(body, |n| {
        if n.kind() == kind
            && n.named_children(&mut n.walk())
                .any(|c| node_text(c, text) == name)
        {
            found = true;
        }
        !found && !matches!(n.kind(), "function_definition" | "class_definition")
    });
    found
}

fn binds_parameter(parameters: Node<'_>, name: &str, text: &str) -> bool {
    let mut found = false;
    walk_node(parameters, |n| {
        if n.kind() == "identifier" && node_text(n, text) == name {
            // A default value's names are reads (`def f(x=helper)`).
            let in_default = n.parent().is_some_and(|p| {
                matches!(p.kind(), "default_parameter" | "typed_default_parameter")
                    && p.child_by_field_name("value") == Some(n)
            });
            let in_annotation = n.parent().is_some_and(|p| p.kind() == "type");
            found |= !in_default && !in_annotation;
        }
        !found && !matches!(n.kind(), "type" | "lambda")
    });
    found
}

/// Whether a function body binds `name`: an assignment, loop or `with` target, an `as` name,
/// an import, a nested `def`/`class`; nested scopes are not looked into.
fn python_binds(body: Node<'_>, name: &str, text: &str) -> bool {
    let mut found = false;
    walk_node(body, |n| {
        if found {
            return false;
        }
        match n.kind() {
            "assignment" | "augmented_assignment" | "for_statement" => {
                found |= n
                    .child_by_field_name("left")
                    .is_some_and(|left| target_binds(left, name, text));
            }
            "named_expression" => {
                found |= n
                    .child_by_field_name("name")
                    .is_some_and(|left| node_text(left, text) == name);
            }
            "as_pattern" => {
                found |= n
                    .child_by_field_name("alias")
                    .is_some_and(|alias| target_binds(alias, name, text));
            }
            "import_statement" | "import_from_statement" => {
                let mut cursor = n.walk();
                found |= n.children_by_field_name("name", &mut cursor).any(|item| {
                    let bound = match item.kind() {
                        "aliased_import" => item
                            .child_by_field_name("alias")
                            .map(|a| node_text(a, text)),
                        _ => node_text(item, text).split('.').next(),
                    };
                    bound == Some(name)
                });
                return false;
            }
            "function_definition" | "class_definition" => {
                found |= n
                    .child_by_field_name("name")
                    .is_some_and(|x| node_text(x, text) == name);
                return false;
            }
            "except_clause" => {
                let mut cursor = n.walk();
                let children: Vec<Node<'_>> = n.children(&mut cursor).collect();
                found |= children.windows(2).any(|pair| {
                    pair[0].kind() == "as"
                        && pair[1].kind() == "identifier"
                        && node_text(pair[1], text) == name
                });
            }
            kind if kind == "lambda" || COMPREHENSIONS.contains(&kind) => return false,
            _ => {}
        }
        true
    });
    found
}

/// Whether an assignment target binds `name` (`x`, `a, x`, `[x, *y]`; not `o.x` or `o[x]`).
fn target_binds(target: Node<'_>, name: &str, text: &str) -> bool {
    let mut found = false;
    walk_node(target, |n| match n.kind() {
        "identifier" => {
            found |= node_text(n, text) == name;
            false
        }
        "attribute" | "subscript" => false,
        _ => !found,
    });
    found
}

fn ancestor<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == kind {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether each `name(` of the text (in order) is a local.
    fn verdicts(lang: Language, text: &str, name: &str) -> Vec<bool> {
        let tree = lang.parse(text);
        let needle = format!("{name}(");
        text.match_indices(&needle)
            .map(|(at, _)| {
                let node = tree
                    .root_node()
                    .descendant_for_byte_range(at, at + name.len())
                    .unwrap();
                shadowed_by_local(lang, node, name, text)
            })
            .collect()
    }

    #[test]
    fn rust_lets_parameters_closures_and_patterns() {
        let text = "fn op(x: i32) -> i32 { x }\nfn main(f: fn(i32) -> i32) {\n    op(1);\n    let op = |x: i32| x;\n    op(2);\n    {\n        let inner = 1;\n    }\n    if let Some(op) = Some(f) { op(3); }\n}\nfn g(op: fn(i32) -> i32) { op(4); }\nfn h() { match 1 { Some(x) => op(5), _ => 0 }; }\n";
        assert_eq!(
            verdicts(Language::Rust, text, "op"),
            vec![false, false, true, true, true, false]
        );
    }

    #[test]
    fn python_function_scopes_lambdas_and_comprehensions() {
        let text = "def op(x):\n    return x\n\n\ndef a():\n    return op(1)\n\n\ndef b():\n    op = lambda v: v\n    return op(2)\n\n\ndef c(op):\n    return op(3)\n\n\ndef d():\n    global op\n    op = None\n    return op(4)\n\n\ndef e():\n    f = lambda op: op(5)\n    return [op(6) for op in []] + [op(7)]\n\n\ndef outer():\n    op = 1\n\n    def inner():\n        return op(8)\n";
        assert_eq!(
            verdicts(Language::Python, text, "op"),
            vec![false, false, true, true, false, true, true, false, true]
        );
    }
}
