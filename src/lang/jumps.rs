//! Jumps and where they land: `return` (to its function or closure), `break`/`continue` (to a
//! loop, or a labelled block), `?` (to the function, which must return a `Result`/`Option`),
//! `await` (needs an async function) and Python's `yield` (makes its function a generator).
//! Syntactic facts for the cross-checks of inline and extract; no types.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::lang::{Language, node_text, walk_node_with_ancestors, walk_tree_with_ancestors};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JumpKind {
    Return,
    Break,
    Continue,
    /// Rust's `?`.
    Try,
    Await,
    Yield,
}

impl JumpKind {
    /// How the code spells it.
    pub fn spelling(self) -> &'static str {
        match self {
            JumpKind::Return => "return",
            JumpKind::Break => "break",
            JumpKind::Continue => "continue",
            JumpKind::Try => "?",
            JumpKind::Await => "await",
            JumpKind::Yield => "yield",
        }
    }
}

/// A jump of a text: its kind and where it is (byte offset, 1-based line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jump {
    pub kind: JumpKind,
    pub offset: usize,
    pub line: usize,
}

/// A `return` of a text and the start of the function, closure or lambda it returns from (`None`
/// at the top level).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Return {
    pub offset: usize,
    pub line: usize,
    pub function_start: Option<usize>,
    /// The name of the function it returns from when that is a named function (not a closure,
    /// a lambda or an async block).
    pub function: Option<String>,
}

fn is_function_like(lang: Language, node: Node<'_>) -> bool {
    match lang {
        Language::Rust => matches!(
            node.kind(),
            "function_item" | "closure_expression" | "async_block"
        ),
        Language::Python => matches!(node.kind(), "function_definition" | "lambda"),
    }
}

fn is_return(lang: Language, node: Node<'_>) -> bool {
    match lang {
        Language::Rust => node.kind() == "return_expression",
        Language::Python => node.kind() == "return_statement",
    }
}

/// Every `return` of `tree`, in order, with the function it returns from: one walk.
pub fn returns(lang: Language, tree: &Tree, text: &str) -> Vec<Return> {
    let mut found = Vec::new();
    walk_tree_with_ancestors(tree, |node, ancestors| {
        if is_return(lang, node) {
            let function = ancestors.iter().rev().find(|a| is_function_like(lang, **a));
            found.push(Return {
                offset: node.start_byte(),
                line: node.start_position().row + 1,
                function_start: function.map(|f| f.start_byte()),
                function: function
                    .filter(|f| matches!(f.kind(), "function_item" | "function_definition"))
                    .and_then(|f| f.child_by_field_name("name"))
                    .map(|n| node_text(n, text).to_string()),
            });
        }
        true
    });
    found
}

/// The returns of `all` that lie in `range` and leave it: their function starts before it.
pub fn returns_leaving(all: &[Return], range: &Range<usize>) -> Vec<Return> {
    let first = all.partition_point(|r| r.offset < range.start);
    all[first..]
        .iter()
        .take_while(|r| r.offset < range.end)
        .filter(|r| r.function_start.is_none_or(|s| s < range.start))
        .cloned()
        .collect()
}

/// The jumps of `function` (a function definition of `text`) that land outside it: a
/// `break`/`continue` with no loop (or block of its label) around it inside the function, a
/// `?` in a Rust function that returns neither a `Result` nor an `Option`, an `await` in a
/// function that is not async, a Python `yield` (which makes the function a generator).
/// Closures, nested functions and async blocks are their own targets and are not looked into.
pub fn jumps_leaving(lang: Language, function: Node<'_>, text: &str) -> Vec<Jump> {
    let Some(body) = function.child_by_field_name("body") else {
        return Vec::new();
    };
    let is_async = is_async(lang, function, text);
    let try_fits = lang == Language::Rust && returns_try_type(function, text);
    let mut found = Vec::new();
    walk_node_with_ancestors(body, |node, ancestors| {
        if is_function_like(lang, node)
            || (lang == Language::Python && node.kind() == "class_definition")
        {
            return false;
        }
        if !node.is_named() {
            return true;
        }
        let kind = match (lang, node.kind()) {
            (Language::Rust, "break_expression") | (Language::Python, "break_statement") => {
                Some(JumpKind::Break)
            }
            (Language::Rust, "continue_expression") | (Language::Python, "continue_statement") => {
                Some(JumpKind::Continue)
            }
            (Language::Rust, "try_expression") if !try_fits => Some(JumpKind::Try),
            (Language::Rust, "await_expression") | (Language::Python, "await") if !is_async => {
                Some(JumpKind::Await)
            }
            (Language::Python, "yield") => Some(JumpKind::Yield),
            _ => None,
        };
        if let Some(kind) = kind {
            let lands_inside = match kind {
                JumpKind::Break | JumpKind::Continue => {
                    let label = label_of(node, text);
                    ancestors
                        .iter()
                        .any(|a| is_jump_target(lang, *a, kind, label, text))
                }
                _ => false,
            };
            if !lands_inside {
                let offset = match kind {
                    // `expr?`: the `?` itself.
                    JumpKind::Try => node.end_byte().saturating_sub(1),
                    _ => node.start_byte(),
                };
                found.push(Jump {
                    kind,
                    offset,
                    line: node.start_position().row + 1,
                });
            }
        }
        true
    });
    found
}

/// The label a Rust `break 'a`/`continue 'a` names.
fn label_of<'t>(node: Node<'_>, text: &'t str) -> Option<&'t str> {
    let mut cursor = node.walk();
    let label = node
        .named_children(&mut cursor)
        .find(|c| c.kind() == "label")
        .map(|l| node_text(l, text));
    label
}

/// Whether `node` is what a `break`/`continue` (with `label`) lands on.
fn is_jump_target(
    lang: Language,
    node: Node<'_>,
    kind: JumpKind,
    label: Option<&str>,
    text: &str,
) -> bool {
    match lang {
        Language::Python => matches!(node.kind(), "for_statement" | "while_statement"),
        Language::Rust => {
            let is_loop = matches!(
                node.kind(),
                "loop_expression" | "while_expression" | "for_expression"
            );
            // A labelled block is a target of `break 'label` only.
            let is_block = kind == JumpKind::Break && node.kind() == "block" && label.is_some();
            if !is_loop && !is_block {
                return false;
            }
            match label {
                None => is_loop,
                Some(label) => {
                    let mut cursor = node.walk();
                    let own = node
                        .named_children(&mut cursor)
                        .find(|c| c.kind() == "label")
                        .map(|l| node_text(l, text));
                    own == Some(label)
                }
            }
        }
    }
}

fn is_async(lang: Language, function: Node<'_>, text: &str) -> bool {
    let mut cursor = function.walk();
    let found = function.children(&mut cursor).any(|c| match lang {
        Language::Python => c.kind() == "async",
        Language::Rust => {
            c.kind() == "function_modifiers"
                && node_text(c, text).split_whitespace().any(|w| w == "async")
        }
    });
    found
}

/// Whether a Rust function's return type takes `?`: a `Result` or an `Option` (by name, any
/// path), or a type the crate may have made one (anything but `()`, a primitive or a reference).
fn returns_try_type(function: Node<'_>, text: &str) -> bool {
    let Some(ty) = function.child_by_field_name("return_type") else {
        return false;
    };
    let ty = node_text(ty, text).trim();
    let head = ty.split('<').next().unwrap_or(ty).trim();
    let last = head.rsplit("::").next().unwrap_or(head);
    if last.contains("Result") || last.contains("Option") || last == "Poll" {
        return true;
    }
    let certain_not = ty.starts_with('(')
        || ty.starts_with('&')
        || ty.starts_with('[')
        || ty == "!"
        || matches!(
            ty,
            "bool"
                | "char"
                | "str"
                | "String"
                | "u8"
                | "u16"
                | "u32"
                | "u64"
                | "u128"
                | "usize"
                | "i8"
                | "i16"
                | "i32"
                | "i64"
                | "i128"
                | "isize"
                | "f32"
                | "f64"
        );
    !certain_not
}

#[cfg(test)]
mod tests {
    use super::*;

    fn function_jumps(lang: Language, text: &str, name: &str) -> Vec<(JumpKind, usize)> {
        let tree = lang.parse(text);
        let outline = crate::lang::symbols::outline(lang, &tree, text);
        let symbol = outline.iter().find(|s| s.name == name).unwrap();
        let node = lang
            .syntax()
            .function_named(&tree, &symbol.name_range)
            .unwrap();
        jumps_leaving(lang, node, text)
            .into_iter()
            .map(|j| (j.kind, j.line))
            .collect()
    }

    #[test]
    fn rust_jumps_that_leave_the_function() {
        let text = "fn f(v: &[u8]) -> u8 {\n    break;\n    for x in v { if *x == 0 { continue; } }\n    'a: loop { break 'a; }\n    'b: { break 'b; }\n    continue 'outer;\n    let c = || { loop { break; } };\n    let y = g()?;\n    h().await;\n    0\n}\n";
        assert_eq!(
            function_jumps(Language::Rust, text, "f"),
            vec![
                (JumpKind::Break, 2),
                (JumpKind::Continue, 6),
                (JumpKind::Try, 8),
                (JumpKind::Await, 9)
            ]
        );
        let fits =
            "async fn f() -> Result<u8, E> {\n    let y = g()?;\n    h().await;\n    Ok(y)\n}\n";
        assert!(function_jumps(Language::Rust, fits, "f").is_empty());
    }

    #[test]
    fn python_jumps_that_leave_the_function() {
        let text = "def f(xs):\n    for x in xs:\n        if x:\n            continue\n    break\n    yield 1\n    await g()\n    def inner():\n        yield 2\n";
        assert_eq!(
            function_jumps(Language::Python, text, "f"),
            vec![
                (JumpKind::Break, 5),
                (JumpKind::Yield, 6),
                (JumpKind::Await, 7)
            ]
        );
    }

    #[test]
    fn returns_know_their_function() {
        let text = "fn f() -> i32 {\n    let baz = { return 10i32; };\n    let c = |x: i32| { return x; };\n    baz\n}\n";
        let tree = Language::Rust.parse(text);
        let all = returns(Language::Rust, &tree, text);
        assert_eq!(all[0].function.as_deref(), Some("f"));
        assert_eq!(all[1].function, None);
        assert_eq!(all.len(), 2);
        let block = text.find("{ return 10").unwrap();
        let leaving = returns_leaving(&all, &(block..block + 20));
        assert_eq!(leaving.len(), 1);
        assert_eq!(leaving[0].line, 2);
        // The closure's return stays in the closure.
        let closure = text.find("|x: i32|").unwrap();
        assert!(returns_leaving(&all, &(closure..closure + 30)).is_empty());
    }
}
