//! What a stretch of a function hands back to its caller besides the names it binds: the values
//! it yields (Python `yield`, `yield from`) or returns (`return x`), outside nested functions,
//! lambdas and closures; and whether a call's value is thrown away (the call is a statement of
//! its own). The behaviour guards of extract function ask these. Pure.

use std::ops::Range;

use tree_sitter::Node;

use super::Language;

/// 1-based lines of the `yield`s of the function's own body within `range` (Rust has none).
pub fn yield_lines(lang: Language, function: Node<'_>, range: &Range<usize>) -> Vec<usize> {
    match lang {
        Language::Python => own_nodes(lang, function, range, |n| n.kind() == "yield"),
        Language::Rust => Vec::new(),
    }
}

/// 1-based lines of the `return`s with a value of the function's own body within `range`.
pub fn value_return_lines(lang: Language, function: Node<'_>, range: &Range<usize>) -> Vec<usize> {
    let kind = match lang {
        Language::Python => "return_statement",
        Language::Rust => "return_expression",
    };
    own_nodes(lang, function, range, |n| {
        n.kind() == kind && n.named_child_count() > 0
    })
}

/// What becomes of the value of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallValue {
    /// Bound, returned, passed on, yielded from: some code receives it.
    Used,
    /// The call is a statement of its own (`helper(x)` / `helper(x);`, also `await helper(x)`).
    Dropped,
    /// Rust `helper(x)?;`: an error or `None` returns early, any other value is dropped.
    DroppedAfterTry,
}

/// What becomes of the value of the call whose whole expression spans `call`.
pub fn call_value(lang: Language, root: Node<'_>, call: &Range<usize>) -> CallValue {
    let Some(mut node) = root.descendant_for_byte_range(call.start, call.end) else {
        return CallValue::Used;
    };
    while node.byte_range() != *call || !is_call(lang, node) {
        match node.parent() {
            Some(parent) if parent.start_byte() == call.start => node = parent,
            _ => return CallValue::Used,
        }
    }
    // Wrappers that still hand the value on: `await`, Rust `?` and `.await`.
    let mut tried = false;
    while let Some(parent) = node.parent() {
        let wraps = match lang {
            Language::Python => parent.kind() == "await",
            Language::Rust => matches!(parent.kind(), "try_expression" | "await_expression"),
        };
        if !wraps {
            break;
        }
        tried |= parent.kind() == "try_expression";
        node = parent;
    }
    let statement = node
        .parent()
        .is_some_and(|p| p.kind() == "expression_statement" && p.named_child_count() == 1);
    match (statement, tried) {
        (false, _) => CallValue::Used,
        (true, false) => CallValue::Dropped,
        (true, true) => CallValue::DroppedAfterTry,
    }
}

fn is_call(lang: Language, node: Node<'_>) -> bool {
    match lang {
        Language::Python => node.kind() == "call",
        Language::Rust => matches!(node.kind(), "call_expression" | "macro_invocation"),
    }
}

/// Lines of the nodes under `function` within `range` that `keep` accepts, leaving out those in
/// nested functions, lambdas, classes and closures.
fn own_nodes(
    lang: Language,
    function: Node<'_>,
    range: &Range<usize>,
    keep: impl Fn(Node<'_>) -> bool,
) -> Vec<usize> {
    let nested = |n: Node<'_>| match lang {
        Language::Python => matches!(
            n.kind(),
            "function_definition" | "lambda" | "class_definition"
        ),
        Language::Rust => matches!(
            n.kind(),
            "function_item" | "closure_expression" | "impl_item" | "async_block"
        ),
    };
    let mut lines = Vec::new();
    let mut stack = vec![function];
    while let Some(node) = stack.pop() {
        if node.end_byte() <= range.start || node.start_byte() >= range.end {
            continue;
        }
        if node.id() != function.id() && nested(node) {
            continue;
        }
        if keep(node) && range.start <= node.start_byte() && node.end_byte() <= range.end {
            lines.push(node.start_position().row + 1);
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
    lines.sort_unstable();
    lines.dedup();
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root_function(tree: &tree_sitter::Tree) -> Node<'_> {
        tree.root_node().named_child(0).unwrap()
    }

    #[test]
    fn python_yields_and_returns_of_the_own_body_only() {
        let text = "def f(xs):\n    if xs:\n        yield from xs\n    g = lambda: (yield 1)\n    def h():\n        return 2\n    return 3\n";
        let tree = Language::Python.parse(text);
        let f = root_function(&tree);
        let all = 0..text.len();
        assert_eq!(yield_lines(Language::Python, f, &all), vec![3]);
        assert_eq!(value_return_lines(Language::Python, f, &all), vec![7]);
        let first_three = 0..text.find("    g =").unwrap();
        assert_eq!(
            value_return_lines(Language::Python, f, &first_three),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn rust_returns_outside_closures() {
        let text = "fn f(x: u8) -> u8 {\n    let c = || { return 1; };\n    if x > 1 { return 2; }\n    return;\n}\n";
        let tree = Language::Rust.parse(text);
        let f = root_function(&tree);
        assert_eq!(
            value_return_lines(Language::Rust, f, &(0..text.len())),
            vec![3]
        );
    }

    #[test]
    fn a_call_statement_drops_its_value() {
        use CallValue::*;
        let cases = [
            (Language::Python, "def f():\n    helper(x)\n", Dropped),
            (Language::Python, "def f():\n    y = helper(x)\n", Used),
            (
                Language::Python,
                "def f():\n    yield from helper(x)\n",
                Used,
            ),
            (
                Language::Python,
                "async def f():\n    await helper(x)\n",
                Dropped,
            ),
            (Language::Rust, "fn f() {\n    helper(x);\n}\n", Dropped),
            (
                Language::Rust,
                "fn f() {\n    helper(x)?;\n}\n",
                DroppedAfterTry,
            ),
            (Language::Rust, "fn f() -> u8 {\n    helper(x)\n}\n", Used),
            (
                Language::Rust,
                "fn f() {\n    let y = helper(x);\n}\n",
                Used,
            ),
        ];
        for (lang, text, expected) in cases {
            let tree = lang.parse(text);
            let start = text.find("helper").unwrap();
            let end = text.find("(x)").unwrap() + 3;
            assert_eq!(
                call_value(lang, tree.root_node(), &(start..end)),
                expected,
                "{text}"
            );
        }
    }
}
