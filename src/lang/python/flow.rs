//! Python data-flow facts for a new function: whether a node runs whenever its statement
//! completes, the loop around a node, `return` statements. Python passes every value the same
//! way, so each use of a local is a plain value.

use tree_sitter::Node;

use crate::lang::names::field_of;

/// Whether `node` runs whenever `statement` (an ancestor) completes normally: not in a branch,
/// a loop (or its `else:`), a `try` body or handler, a `case`, a lambda, a comprehension, or the
/// right side of `and`/`or` or of a conditional expression.
pub fn always_runs(node: Node<'_>, statement: Node<'_>) -> bool {
    let mut child = node;
    while child.id() != statement.id() {
        let Some(parent) = child.parent() else {
            return false;
        };
        let field = field_of(parent, child);
        let conditional = match parent.kind() {
            "if_statement" | "while_statement" | "elif_clause" => field != Some("condition"),
            "for_statement" => field != Some("right"),
            "try_statement"
            | "except_clause"
            | "except_group_clause"
            | "finally_clause"
            | "else_clause"
            | "case_clause"
            | "match_statement"
            | "lambda"
            | "conditional_expression"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression" => true,
            // A definition binds its name when it runs; its body runs later, if ever.
            "function_definition" | "class_definition" => field != Some("name"),
            "boolean_operator" => field == Some("right"),
            _ => false,
        };
        if conditional {
            return false;
        }
        child = parent;
    }
    true
}

/// The innermost `for` or `while` loop around `node` inside `within` (functions and classes
/// stop the climb).
pub fn loop_around<'t>(node: Node<'t>, within: Node<'t>) -> Option<Node<'t>> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.id() == within.id()
            || matches!(
                n.kind(),
                "function_definition" | "class_definition" | "lambda"
            )
        {
            return None;
        }
        if matches!(n.kind(), "for_statement" | "while_statement") {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

pub fn is_return(statement: Node<'_>) -> bool {
    statement.kind() == "return_statement"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    #[test]
    fn what_always_runs() {
        let text = "def f():\n    a = 1\n    if c:\n        b = 2\n    else:\n        b = 3\n    for i in xs:\n        d = i\n    with o as e:\n        g = 1\n    h = x or (k := 2)\n";
        let tree = Language::Python.parse(text);
        let root = tree.root_node();
        let body = root
            .child(0)
            .and_then(|f| f.child_by_field_name("body"))
            .unwrap();
        let check = |name: &str| {
            let at = text.find(name).unwrap() + name.find(' ').map_or(0, |_| 0);
            let node = root.descendant_for_byte_range(at, at + 1).unwrap();
            let mut statement = node;
            while statement.parent().unwrap().id() != body.id() {
                statement = statement.parent().unwrap();
            }
            always_runs(node, statement)
        };
        assert!(check("a ="));
        assert!(!check("b = 2"));
        assert!(!check("b = 3"));
        assert!(!check("i in"));
        assert!(!check("d ="));
        assert!(check("e:\n        g"));
        assert!(check("g ="));
        assert!(check("h ="));
        assert!(!check("k :="));
        let d = text.find("d =").unwrap();
        let node = root.descendant_for_byte_range(d, d + 1).unwrap();
        assert!(loop_around(node, root.child(0).unwrap()).is_some());
    }
}
