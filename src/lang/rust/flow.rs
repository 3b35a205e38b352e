//! Rust data-flow facts for a new function: how each use of a local treats its value (moved,
//! borrowed, mutated), whether a node runs whenever its statement completes, the loop around a
//! node, and what a binding is (`mut`, an item). Syntactic: no types, no traits.

use tree_sitter::Node;

use crate::lang::names::field_of;
use crate::lang::node_text;
use crate::lang::syntax::{LocalUse, UseKind};

/// Macros whose arguments are taken by reference (formatting, assertions).
const BY_REFERENCE_MACROS: &[&str] = &[
    "print",
    "println",
    "eprint",
    "eprintln",
    "format",
    "format_args",
    "write",
    "writeln",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "unreachable",
    "todo",
    "unimplemented",
    "trace",
    "debug",
    "info",
    "warn",
    "error",
];

const COMPARISONS: &[&str] = &["==", "!=", "<", ">", "<=", ">="];

fn plain(kind: UseKind) -> LocalUse {
    LocalUse {
        kind,
        shorthand: false,
    }
}

/// How the use of a local at byte `at` under `region` treats its value.
pub fn local_use(region: Node<'_>, at: usize, text: &str) -> LocalUse {
    let Some(node) = region.descendant_for_byte_range(at, at + 1) else {
        return plain(UseKind::Value);
    };
    if matches!(
        node.kind(),
        "string_literal" | "raw_string_literal" | "string_content"
    ) {
        return plain(UseKind::Capture);
    }
    let Some(parent) = node.parent() else {
        return plain(UseKind::Value);
    };
    match parent.kind() {
        "token_tree" => token_use(node, parent, text),
        "shorthand_field_initializer" => LocalUse {
            kind: UseKind::Value,
            shorthand: true,
        },
        _ => plain(expression_use(node, parent, text)),
    }
}

/// A use in an expression: climbs through the place (`x.f[i]`) the name is the base of.
fn expression_use(node: Node<'_>, parent: Node<'_>, text: &str) -> UseKind {
    let field = field_of(parent, node);
    match parent.kind() {
        "field_expression" if field == Some("value") => place_use(parent, true),
        "index_expression" if parent.named_child(0) == Some(node) => place_use(parent, true),
        "call_expression" if field == Some("function") => UseKind::MethodCall,
        "reference_expression" => reference_use(parent),
        "assignment_expression" | "compound_assignment_expr" if field == Some("left") => {
            UseKind::Assign
        }
        "binary_expression" => {
            let operator = parent
                .child_by_field_name("operator")
                .map(|o| node_text(o, text));
            if operator.is_some_and(|o| COMPARISONS.contains(&o)) {
                UseKind::Read
            } else {
                UseKind::Value
            }
        }
        "unary_expression" if node_text(parent, text).starts_with('*') => UseKind::Read,
        "match_expression" if field == Some("value") => UseKind::Scrutinee,
        "parenthesized_expression" => match parent.parent() {
            Some(grand) => expression_use(parent, grand, text),
            None => UseKind::Value,
        },
        _ => UseKind::Value,
    }
}

/// `x` is the base of the place `place` (a field or an index): what happens to that place.
fn place_use(place: Node<'_>, read_is_place: bool) -> UseKind {
    let Some(parent) = place.parent() else {
        return UseKind::Place;
    };
    let field = field_of(parent, place);
    match parent.kind() {
        "field_expression" if field == Some("value") => place_use(parent, read_is_place),
        "index_expression" if parent.named_child(0) == Some(place) => {
            place_use(parent, read_is_place)
        }
        // `x.m(..)`: the field expression is the callee.
        "call_expression" if field == Some("function") => UseKind::MethodCall,
        "assignment_expression" | "compound_assignment_expr" if field == Some("left") => {
            UseKind::AssignThrough
        }
        "reference_expression" => match reference_use(parent) {
            UseKind::BorrowMut => UseKind::BorrowMut,
            _ => UseKind::Place,
        },
        _ if read_is_place => UseKind::Place,
        _ => UseKind::Value,
    }
}

fn reference_use(reference: Node<'_>) -> UseKind {
    let mutable = reference
        .children(&mut reference.walk())
        .any(|c| c.kind() == "mutable_specifier");
    if mutable {
        UseKind::BorrowMut
    } else {
        UseKind::Borrow
    }
}

/// A use among a macro's tokens: by reference in formatting macros, a place before `.`/`[`,
/// a borrow after `&`, an assignment before `=`; a value otherwise.
fn token_use(node: Node<'_>, tree: Node<'_>, text: &str) -> LocalUse {
    let next = node.next_sibling();
    let next_kind = next.map(|n| n.kind());
    let previous = node.prev_sibling();
    let before_previous = previous.and_then(|p| p.prev_sibling());
    let kind = if matches!(next_kind, Some(".")) {
        let called = next
            .and_then(|n| n.next_sibling())
            .and_then(|n| n.next_sibling())
            .is_some_and(|n| n.kind() == "token_tree" && node_text(n, text).starts_with('('));
        if called {
            UseKind::MethodCall
        } else {
            UseKind::Place
        }
    } else if next.is_some_and(|n| n.kind() == "token_tree" && node_text(n, text).starts_with('['))
    {
        UseKind::Place
    } else if previous
        .is_some_and(|p| p.kind() == "mutable_specifier" || node_text(p, text) == "mut")
        && before_previous.is_some_and(|p| node_text(p, text) == "&")
    {
        UseKind::BorrowMut
    } else if previous.is_some_and(|p| node_text(p, text) == "&") {
        UseKind::Borrow
    } else if next.is_some_and(|n| {
        matches!(
            node_text(n, text),
            "=" | "+=" | "-=" | "*=" | "/=" | "%=" | "|=" | "&=" | "^=" | "<<=" | ">>="
        )
    }) {
        UseKind::Assign
    } else if by_reference_macro(tree, text) {
        UseKind::Read
    } else {
        UseKind::Value
    };
    plain(kind)
}

/// Whether the macro whose tokens hold `tree` takes its arguments by reference.
fn by_reference_macro(tree: Node<'_>, text: &str) -> bool {
    let mut current = Some(tree);
    while let Some(node) = current {
        if node.kind() == "macro_invocation" {
            return node.child_by_field_name("macro").is_some_and(|m| {
                let name = node_text(m, text);
                let last = name.rsplit("::").next().unwrap_or(name);
                BY_REFERENCE_MACROS.contains(&last)
            });
        }
        if node.kind() != "token_tree" {
            return false;
        }
        current = node.parent();
    }
    false
}

/// Whether `node` runs whenever `statement` (an ancestor) completes normally.
pub fn always_runs(node: Node<'_>, statement: Node<'_>) -> bool {
    let mut child = node;
    while child.id() != statement.id() {
        let Some(parent) = child.parent() else {
            return false;
        };
        let field = field_of(parent, child);
        let conditional = match parent.kind() {
            "if_expression" | "while_expression" => field != Some("condition"),
            "for_expression" => field == Some("body"),
            "match_arm" | "match_block" | "loop_expression" | "closure_expression"
            | "function_item" | "async_block" | "else_clause" | "let_chain" => true,
            "match_expression" => field != Some("value"),
            "let_declaration" => field == Some("alternative"),
            "binary_expression" => {
                field == Some("right")
                    && parent
                        .child_by_field_name("operator")
                        .is_some_and(|o| matches!(o.kind(), "&&" | "||"))
            }
            _ => false,
        };
        if conditional {
            return false;
        }
        child = parent;
    }
    true
}

/// The innermost `for`, `while` or `loop` around `node` inside `within`.
pub fn loop_around<'t>(node: Node<'t>, within: Node<'t>) -> Option<Node<'t>> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.id() == within.id() || matches!(n.kind(), "closure_expression" | "function_item") {
            return None;
        }
        if matches!(
            n.kind(),
            "for_expression" | "while_expression" | "loop_expression"
        ) {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

/// `return ..;` or a tail `return ..`.
pub fn is_return(statement: Node<'_>) -> bool {
    let expression = if statement.kind() == "expression_statement" {
        statement.named_child(0)
    } else {
        Some(statement)
    };
    expression.is_some_and(|e| e.kind() == "return_expression")
}

/// Whether the binding whose name starts at `at` is declared `mut` (`let mut x`, `mut x: T`,
/// `(mut a, b)`).
pub fn binding_is_mutable(region: Node<'_>, at: usize) -> bool {
    let Some(node) = region.descendant_for_byte_range(at, at + 1) else {
        return false;
    };
    let Some(parent) = node.parent() else {
        return false;
    };
    let has_mut = |n: Node<'_>| {
        n.children(&mut n.walk())
            .any(|c| c.kind() == "mutable_specifier")
    };
    match parent.kind() {
        "mut_pattern" => true,
        "let_declaration" | "parameter" => {
            field_of(parent, node) == Some("pattern") && has_mut(parent)
        }
        _ => false,
    }
}

/// Whether the binding at `at` is an item's name (a nested `fn`, `const`, `static`, type, `use`
/// leaf, macro).
pub fn binds_item(region: Node<'_>, at: usize) -> bool {
    let Some(node) = region.descendant_for_byte_range(at, at + 1) else {
        return false;
    };
    let mut current = node.parent();
    while let Some(n) = current {
        let kind = n.kind();
        if kind == "use_declaration" || kind == "macro_definition" {
            return true;
        }
        if kind.ends_with("_item") {
            return n.child_by_field_name("name") == Some(node) || kind != "function_item";
        }
        if matches!(
            kind,
            "block" | "let_declaration" | "parameter" | "closure_expression"
        ) {
            return false;
        }
        current = n.parent();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    fn uses(text: &str, name: &str) -> Vec<UseKind> {
        let tree = Language::Rust.parse(text);
        let root = tree.root_node();
        let mut out = Vec::new();
        let mut from = 0;
        while let Some(i) = text[from..].find(name) {
            let at = from + i;
            from = at + name.len();
            let before = text[..at].chars().last();
            let after = text[at + name.len()..].chars().next();
            let word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            if word(before) || word(after) || text[..at].ends_with("fn ") {
                continue;
            }
            out.push(local_use(root, at, text).kind);
        }
        out
    }

    #[test]
    fn uses_of_a_local() {
        use UseKind::*;
        let text = "fn f() { x.len(); x.f = 1; x[0] += 2; &x; &mut x; &mut x.f; x = 3; x += 1; g(x); x == y; *x; match x {} println!(\"{}\", x); v.push(x); x.a.b; y = x; (x).m(); vec![x]; assert_eq!(x, 1); m!(&mut x); }";
        assert_eq!(
            uses(text, "x"),
            [
                MethodCall,
                AssignThrough,
                AssignThrough,
                Borrow,
                BorrowMut,
                BorrowMut,
                Assign,
                Assign,
                Value,
                Read,
                Read,
                Scrutinee,
                Read,
                Value,
                Place,
                Value,
                MethodCall,
                Value,
                Read,
                BorrowMut,
            ]
        );
        let shorthand = "fn f() { S { x }; }";
        let tree = Language::Rust.parse(shorthand);
        let at = shorthand.find("x }").unwrap();
        assert!(local_use(tree.root_node(), at, shorthand).shorthand);
        let capture = "fn f() { println!(\"{x}\"); }";
        let tree = Language::Rust.parse(capture);
        let at = capture.find("x}").unwrap();
        assert_eq!(local_use(tree.root_node(), at, capture).kind, Capture);
    }

    #[test]
    fn mutability_items_and_runs() {
        let text = "fn f(mut a: u8, b: u8) { let mut c = 1; let (mut d, e) = t; const K: u8 = 1; fn g() {} if a > 0 { let z = 1; } let w = 2; }";
        let tree = Language::Rust.parse(text);
        let root = tree.root_node();
        let at = |s: &str| text.find(s).unwrap();
        assert!(binding_is_mutable(root, at("a:")));
        assert!(!binding_is_mutable(root, at("b:")));
        assert!(binding_is_mutable(root, at("c =")));
        assert!(binding_is_mutable(root, at("d,")));
        assert!(!binding_is_mutable(root, at("e)")));
        assert!(binds_item(root, at("K:")));
        assert!(binds_item(root, at("g()")));
        assert!(!binds_item(root, at("c =")));
        let body = root
            .child(0)
            .and_then(|f| f.child_by_field_name("body"))
            .unwrap();
        let statement_of = |at: usize| {
            let mut n = root.descendant_for_byte_range(at, at + 1).unwrap();
            while n.parent().unwrap().id() != body.id() {
                n = n.parent().unwrap();
            }
            n
        };
        let z = root
            .descendant_for_byte_range(at("z ="), at("z =") + 1)
            .unwrap();
        assert!(!always_runs(z, statement_of(at("z ="))));
        let w = root
            .descendant_for_byte_range(at("w ="), at("w =") + 1)
            .unwrap();
        assert!(always_runs(w, statement_of(at("w ="))));
    }
}
