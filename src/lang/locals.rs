//! Whether a name used at some point of a parsed file is a local binding there (a `let`, a
//! parameter, a closure or lambda parameter, a loop or pattern variable, a Python local) rather
//! than the item of that name: a call of `helper(..)` after `let helper = |x| ..;` does not call
//! the function `helper`. Syntactic and best effort, like the rest of `lang`. Built once per file
//! and name ([`Locals::new`], one walk), then asked per position without climbing the tree: deep
//! nesting stays linear, and nothing recurses.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::{Language, holding, node_text, up_from, walk_node, walk_tree};

/// The local bindings of one name in one file.
#[derive(Debug, Clone, Default)]
pub struct Locals {
    lang: Option<Language>,
    /// Rust: where each binding of the name is visible (`from` = where it starts to hold), with
    /// the function it belongs to (a nested `fn` item does not see its parent's locals).
    rust: Vec<RustBinding>,
    /// Rust: the byte ranges of every `fn` item.
    functions: Vec<Range<usize>>,
    /// Python: the scopes (function, lambda, comprehension) that say something about the name.
    python: Vec<PythonScope>,
}

#[derive(Debug, Clone)]
struct RustBinding {
    scope: Range<usize>,
    from: usize,
    function: Option<Range<usize>>,
}

#[derive(Debug, Clone)]
struct PythonScope {
    range: Range<usize>,
    verdict: PythonVerdict,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PythonVerdict {
    /// A parameter, or bound somewhere in the scope: a local.
    Local,
    /// `global name`: the module's, whatever the outer scopes do.
    Global,
}

impl Locals {
    /// Collects the local bindings of `name` in `tree`.
    pub fn new(lang: Language, tree: &Tree, text: &str, name: &str) -> Locals {
        let mut locals = Locals {
            lang: Some(lang),
            ..Locals::default()
        };
        if name.is_empty() || !text.contains(name) {
            return locals;
        }
        match lang {
            Language::Rust => locals.collect_rust(tree, text, name),
            Language::Python => locals.collect_python(tree, text, name),
        }
        locals
    }

    /// An estimate of the memory these bindings hold.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Locals>()
            + self.rust.len() * std::mem::size_of::<RustBinding>()
            + self.functions.len() * std::mem::size_of::<Range<usize>>()
            + self.python.len() * std::mem::size_of::<PythonScope>()
    }

    /// Whether the name at `node` is one of these local bindings (or is one itself).
    pub fn shadows(&self, at: usize) -> bool {
        match self.lang {
            Some(Language::Rust) => {
                // The function around `at` is looked for only when a binding's scope holds it:
                // it is a scan of every `fn` of the file, and most names have no local binding
                // (a file of 32,000 functions asked it at each of their 32,000 calls).
                let mut holding = self
                    .rust
                    .iter()
                    .filter(|b| b.from <= at && b.scope.contains(&at))
                    .peekable();
                if holding.peek().is_none() {
                    return false;
                }
                let function = innermost(&self.functions, at);
                holding.any(|b| b.function.as_ref() == function)
            }
            Some(Language::Python) => {
                let mut containing: Vec<&PythonScope> = self
                    .python
                    .iter()
                    .filter(|s| s.range.contains(&at))
                    .collect();
                containing.sort_by_key(|s| s.range.len());
                containing
                    .first()
                    .is_some_and(|s| s.verdict == PythonVerdict::Local)
            }
            None => false,
        }
    }

    /// Python: the innermost scope (function from its parameters on, lambda, comprehension)
    /// whose local the name at `at` is; `None` when it is the module's (or declared `global`).
    pub fn python_scope_at(&self, at: usize) -> Option<Range<usize>> {
        self.python
            .iter()
            .filter(|s| s.range.contains(&at))
            .min_by_key(|s| s.range.len())
            .filter(|s| s.verdict == PythonVerdict::Local)
            .map(|s| s.range.clone())
    }

    /// Top down: each construct that binds (a `let` of a block, the parameters of a `fn` or a
    /// closure, a `for`, a `match` arm, an `if let`/`while let`) looks at its own pattern, so no
    /// node is asked for its parent (a walk from the root in tree-sitter).
    fn collect_rust(&mut self, tree: &Tree, text: &str, name: &str) {
        let mut stack: Vec<(Node<'_>, Option<Range<usize>>)> = vec![(tree.root_node(), None)];
        let holds_name = holding(text, name);
        while let Some((node, function)) = stack.pop() {
            // A binding of the name, and any place that asks about it, hold the name.
            if !holds_name(node) {
                continue;
            }
            let function = if node.kind() == "function_item" {
                self.functions.push(node.byte_range());
                Some(node.byte_range())
            } else {
                function
            };
            let mut bind = |pattern: Node<'_>, scope: Range<usize>, from: usize| {
                if pattern_binds(pattern, name, text) {
                    self.rust.push(RustBinding {
                        scope,
                        from,
                        function: function.clone(),
                    });
                }
            };
            match node.kind() {
                "block" => {
                    let mut cursor = node.walk();
                    for statement in node.named_children(&mut cursor) {
                        if statement.kind() == "let_declaration"
                            && let Some(pattern) = statement.child_by_field_name("pattern")
                        {
                            bind(pattern, node.byte_range(), statement.end_byte());
                        }
                    }
                }
                "function_item" | "closure_expression" => {
                    if let Some(parameters) = node.child_by_field_name("parameters") {
                        let mut cursor = parameters.walk();
                        for parameter in parameters.named_children(&mut cursor) {
                            let pattern = if parameter.kind() == "parameter" {
                                parameter.child_by_field_name("pattern")
                            } else {
                                Some(parameter)
                            };
                            if let Some(pattern) = pattern {
                                bind(pattern, node.byte_range(), parameters.start_byte());
                            }
                        }
                    }
                }
                "for_expression" => {
                    if let (Some(pattern), Some(body)) = (
                        node.child_by_field_name("pattern"),
                        node.child_by_field_name("body"),
                    ) {
                        bind(pattern, body.byte_range(), body.start_byte());
                    }
                }
                "match_arm" => {
                    if let Some(pattern) = node.child_by_field_name("pattern") {
                        bind(pattern, node.byte_range(), pattern.end_byte());
                    }
                }
                "if_expression" | "while_expression" => {
                    let mut conditions: Vec<Node<'_>> =
                        node.child_by_field_name("condition").into_iter().collect();
                    while let Some(condition) = conditions.pop() {
                        match condition.kind() {
                            "let_condition" => {
                                if let Some(pattern) = condition.child_by_field_name("pattern") {
                                    bind(pattern, node.byte_range(), condition.end_byte());
                                }
                            }
                            "let_chain" => {
                                conditions.extend(condition.named_children(&mut condition.walk()))
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                stack.push((child, function.clone()));
            }
        }
    }

    fn collect_python(&mut self, tree: &Tree, text: &str, name: &str) {
        let holds_name = holding(text, name);
        walk_tree(tree, |node| {
            // A scope that binds the name, and any place that asks about it, hold the name.
            if !holds_name(node) {
                return false;
            }
            let verdict = match node.kind() {
                "function_definition" => {
                    let body = node.child_by_field_name("body");
                    let (global, nonlocal) = body
                        .map(|b| declarations(b, name, text))
                        .unwrap_or_default();
                    if global {
                        Some(PythonVerdict::Global)
                    } else {
                        let local = node
                            .child_by_field_name("parameters")
                            .is_some_and(|p| binds_parameter(p, name, text))
                            || body.is_some_and(|b| python_binds(b, name, text));
                        (local && !nonlocal).then_some(PythonVerdict::Local)
                    }
                }
                "lambda" => node
                    .child_by_field_name("parameters")
                    .is_some_and(|p| binds_parameter(p, name, text))
                    .then_some(PythonVerdict::Local),
                kind if COMPREHENSIONS.contains(&kind) => {
                    let mut cursor = node.walk();
                    node.named_children(&mut cursor)
                        .any(|clause| {
                            clause.kind() == "for_in_clause"
                                && clause
                                    .child_by_field_name("left")
                                    .is_some_and(|left| target_binds(left, name, text))
                        })
                        .then_some(PythonVerdict::Local)
                }
                _ => None,
            };
            if let Some(verdict) = verdict {
                // The definition's own name and decorators are in the outer scope.
                let start = match node.kind() {
                    "function_definition" => node
                        .child_by_field_name("parameters")
                        .map_or(node.start_byte(), |p| p.start_byte()),
                    _ => node.start_byte(),
                };
                self.python.push(PythonScope {
                    range: start..node.end_byte(),
                    verdict,
                });
            }
            true
        });
    }
}

/// The smallest range of `ranges` containing `at`.
fn innermost(ranges: &[Range<usize>], at: usize) -> Option<&Range<usize>> {
    ranges
        .iter()
        .filter(|r| r.contains(&at))
        .min_by_key(|r| r.len())
}

// ---------------------------------------------------------------------------------------------
// Rust

/// Whether a pattern binds `name` (`op`, `Some(op)`, `(a, op)`, `Point { op, .. }`); the type
/// of a pattern (`Some`) and paths do not bind.
fn pattern_binds(pattern: Node<'_>, name: &str, text: &str) -> bool {
    let mut found = false;
    walk_node(pattern, |n| match n.kind() {
        "identifier" | "shorthand_field_identifier" => {
            // The type of `Some(x)` or `Point { .. }` is no binding (asked only on a match).
            found |= node_text(n, text) == name
                && !n.parent().is_some_and(|p| {
                    matches!(p.kind(), "tuple_struct_pattern" | "struct_pattern")
                        && p.child_by_field_name("type") == Some(n)
                });
            false
        }
        "scoped_identifier" | "type_identifier" | "closure_expression" | "block" => false,
        _ => !found,
    });
    found
}

/// Whether a Rust identifier is itself bound by a pattern (`op` in `let op = ..`, a parameter,
/// a closure parameter, a `for`, `match` or `if let` pattern); not the type of a pattern (`Some`
/// in `Some(x)`). `ancestors`: those already known, root first (see [`up_from`]); climbs only
/// through the pattern, a few levels.
pub fn is_rust_binding<'t>(node: Node<'t>, ancestors: &[Node<'t>]) -> bool {
    let mut up = up_from(node, ancestors);
    let Some(parent) = up.next() else {
        return false;
    };
    if matches!(parent.kind(), "tuple_struct_pattern" | "struct_pattern")
        && parent.child_by_field_name("type") == Some(node)
    {
        return false;
    }
    let mut child = node;
    for p in std::iter::once(parent).chain(up) {
        match p.kind() {
            "closure_parameters" => return true,
            "let_declaration" | "parameter" | "for_expression" | "let_condition" | "match_arm" => {
                return p.child_by_field_name("pattern") == Some(child);
            }
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
    }
    false
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

/// Whether a function body declares `name` `global` and whether `nonlocal` (nested scopes not
/// looked into), in one walk.
fn declarations(body: Node<'_>, name: &str, text: &str) -> (bool, bool) {
    let (mut global, mut nonlocal) = (false, false);
    let holds_name = holding(text, name);
    walk_node(body, |n| {
        // Such a statement names `name`, and is never part of an expression statement.
        if global || !holds_name(n) || n.kind() == "expression_statement" {
            return false;
        }
        let names_it = || {
            n.named_children(&mut n.walk())
                .any(|c| node_text(c, text) == name)
        };
        match n.kind() {
            "global_statement" => global |= names_it(),
            "nonlocal_statement" => nonlocal |= names_it(),
            _ => {}
        }
        !global && !matches!(n.kind(), "function_definition" | "class_definition")
    });
    (global, nonlocal)
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
            found |= !in_default;
        }
        !found && !matches!(n.kind(), "type" | "lambda")
    });
    found
}

/// Whether a function body binds `name`: an assignment, loop or `with` target, an `as` name,
/// an import, a nested `def`/`class`; nested scopes are not looked into.
fn python_binds(body: Node<'_>, name: &str, text: &str) -> bool {
    let mut found = false;
    let holds_name = holding(text, name);
    walk_node(body, |n| {
        // A binding of `name` holds its text.
        if found || !holds_name(n) {
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
            "case_pattern" => {
                found |= captures(n, name, text);
                return false;
            }
            // A walrus in a comprehension binds in the function around it.
            kind if COMPREHENSIONS.contains(&kind) => {
                found |= walrus_binds(n, name, text);
                return false;
            }
            "lambda" => return false,
            _ => {}
        }
        true
    });
    found
}

/// Whether a `match` pattern captures `name` (`case x`, `case [x, *y]`, `case P(k=x)`,
/// `case (x | x)`, `case _ as x`).
fn captures(pattern: Node<'_>, name: &str, text: &str) -> bool {
    let mut found = false;
    walk_node(pattern, |n| {
        if n.kind() == "identifier"
            && node_text(n, text) == name
            && let Some(parent) = n.parent()
        {
            found |= super::python::names::is_match_capture(n, parent, parent.parent());
        }
        !found
    });
    found
}

/// Whether a comprehension holds `(name := ...)` (not inside a lambda).
fn walrus_binds(comprehension: Node<'_>, name: &str, text: &str) -> bool {
    let mut found = false;
    walk_node(comprehension, |n| {
        if n.kind() == "named_expression" {
            found |= n
                .child_by_field_name("name")
                .is_some_and(|left| node_text(left, text) == name);
        }
        !found && n.kind() != "lambda"
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether each `name(` of the text (in order) is a local.
    fn verdicts(lang: Language, text: &str, name: &str) -> Vec<bool> {
        let tree = lang.parse(text);
        let locals = Locals::new(lang, &tree, text, name);
        let needle = format!("{name}(");
        text.match_indices(&needle)
            .map(|(at, _)| {
                let node = tree
                    .root_node()
                    .descendant_for_byte_range(at, at + name.len())
                    .unwrap();
                locals.shadows(node.start_byte())
            })
            .collect()
    }

    #[test]
    fn rust_lets_parameters_closures_and_patterns() {
        let text = "fn op(x: i32) -> i32 { x }\nfn main(f: fn(i32) -> i32) {\n    op(1);\n    let op = |x: i32| x;\n    op(2);\n    {\n        let inner = 1;\n    }\n    if let Some(op) = Some(f) { op(3); }\n    fn nested() -> i32 { op(9) }\n}\nfn g(op: fn(i32) -> i32) { op(4); }\nfn h() { match 1 { Some(x) => op(5), _ => 0 }; let op = op(6); }\n";
        assert_eq!(
            verdicts(Language::Rust, text, "op"),
            vec![false, false, true, true, false, true, false, false]
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
