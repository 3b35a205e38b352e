//! Python's answers to the variable facts: expression kinds, evaluation hazards, effects, how a
//! name occurs, assignment bindings and operator precedence.

use tree_sitter::Node;

use super::{Binding, Hazard, Occurrence};
use crate::lang::node_text;

pub(super) fn is_expression(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "identifier"
            | "call"
            | "attribute"
            | "subscript"
            | "binary_operator"
            | "boolean_operator"
            | "comparison_operator"
            | "not_operator"
            | "unary_operator"
            | "conditional_expression"
            | "lambda"
            | "integer"
            | "float"
            | "string"
            | "concatenated_string"
            | "true"
            | "false"
            | "none"
            | "list"
            | "tuple"
            | "dictionary"
            | "set"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression"
            | "parenthesized_expression"
            | "await"
    )
}

/// `x.name`, `f(name=1)`: the name of a member or keyword, not a use of a local.
pub(super) fn is_member_name(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| {
        let field = match p.kind() {
            "attribute" => "attribute",
            "keyword_argument" => "name",
            _ => return false,
        };
        p.child_by_field_name(field)
            .is_some_and(|n| n.id() == node.id())
    })
}

pub(super) fn hazard(child: Node<'_>, parent: Node<'_>) -> Option<Hazard> {
    let is = |field: &str| {
        parent
            .child_by_field_name(field)
            .is_some_and(|n| n.id() == child.id())
    };
    match parent.kind() {
        "boolean_operator" if is("right") => Some(Hazard::ShortCircuit),
        "conditional_expression" => {
            // `a if cond else b`: the condition (the second expression) runs first.
            let condition = parent.named_child(1).is_some_and(|n| n.id() == child.id());
            (!condition).then_some(Hazard::Branch)
        }
        "elif_clause" | "case_clause" => Some(Hazard::Branch),
        "while_statement" if is("condition") => Some(Hazard::LoopCondition),
        "lambda" => Some(Hazard::Closure),
        "default_parameter" | "typed_default_parameter" => Some(Hazard::DefaultArgument),
        "for_in_clause" => {
            // Only the first clause's iterable is evaluated once, where the comprehension is.
            let first = parent.parent().and_then(|c| {
                let mut cursor = c.walk();
                c.named_children(&mut cursor)
                    .find(|n| n.kind() == "for_in_clause")
            });
            let first = first.is_some_and(|n| n.id() == parent.id());
            (!(first && is("right"))).then_some(Hazard::Comprehension)
        }
        "list_comprehension"
        | "set_comprehension"
        | "dictionary_comprehension"
        | "generator_expression" => {
            (child.kind() != "for_in_clause").then_some(Hazard::Comprehension)
        }
        "if_clause" => Some(Hazard::Comprehension),
        "assignment" | "augmented_assignment" | "for_statement" if is("left") => {
            Some(Hazard::AssignmentTarget)
        }
        "delete_statement" | "pattern_list" | "tuple_pattern" => Some(Hazard::AssignmentTarget),
        _ => None,
    }
}

pub(super) fn is_effect(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "call" | "await" | "yield" | "named_expression" | "assignment" | "augmented_assignment"
    )
}

pub(super) fn builds_object(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "list"
            | "dictionary"
            | "set"
            | "list_comprehension"
            | "dictionary_comprehension"
            | "set_comprehension"
            | "generator_expression"
    )
}

pub(super) fn is_compound(statement: Node<'_>) -> bool {
    matches!(
        statement.kind(),
        "if_statement"
            | "for_statement"
            | "while_statement"
            | "try_statement"
            | "with_statement"
            | "match_statement"
            | "function_definition"
            | "class_definition"
            | "decorated_definition"
    )
}

pub(super) fn repeats(node: Node<'_>) -> bool {
    matches!(
        node.kind(),
        "for_statement"
            | "while_statement"
            | "function_definition"
            | "lambda"
            | "list_comprehension"
            | "set_comprehension"
            | "dictionary_comprehension"
            | "generator_expression"
    )
}

pub(super) fn occurrence(name: Node<'_>) -> Occurrence {
    let Some(parent) = name.parent() else {
        return Occurrence::Read;
    };
    let is = |node: Node<'_>, field: &str| {
        node.child_by_field_name(field)
            .is_some_and(|n| n.id() == name.id())
    };
    match parent.kind() {
        "assignment" if is(parent, "left") => {
            let simple = parent
                .parent()
                .is_some_and(|s| s.kind() == "expression_statement")
                && parent
                    .child_by_field_name("right")
                    .is_none_or(|r| r.kind() != "assignment");
            if simple {
                Occurrence::Binding
            } else {
                Occurrence::Write
            }
        }
        "augmented_assignment" if is(parent, "left") => Occurrence::Write,
        "named_expression" if is(parent, "name") => Occurrence::Write,
        "delete_statement" => Occurrence::Write,
        "pattern_list" | "tuple_pattern" | "list_pattern" | "as_pattern_target"
        | "case_pattern" => Occurrence::Pattern,
        // Only the target: the iterable of `for x in items` and the value of `with v as y` are
        // reads.
        "for_in_clause" if is(parent, "left") => Occurrence::Pattern,
        "as_pattern" if is(parent, "alias") => Occurrence::Pattern,
        "for_statement" if is(parent, "left") => Occurrence::Pattern,
        "parameters"
        | "lambda_parameters"
        | "typed_parameter"
        | "list_splat_pattern"
        | "dictionary_splat_pattern" => Occurrence::Parameter,
        "default_parameter" | "typed_default_parameter" if is(parent, "name") => {
            Occurrence::Parameter
        }
        "global_statement" | "nonlocal_statement" => Occurrence::Global,
        "function_definition" | "class_definition" if is(parent, "name") => Occurrence::Definition,
        "aliased_import" | "dotted_name" | "import_from_statement" | "import_statement" => {
            Occurrence::Definition
        }
        "attribute" if is(parent, "object") => {
            let called = parent
                .parent()
                .is_some_and(|g| g.kind() == "call" && is_field(g, "function", parent));
            let assigned = parent.parent().is_some_and(|g| {
                matches!(g.kind(), "assignment" | "augmented_assignment")
                    && is_field(g, "left", parent)
            });
            if called || assigned {
                Occurrence::Mutation
            } else {
                Occurrence::Read
            }
        }
        "subscript" if is(parent, "value") => {
            let assigned = parent.parent().is_some_and(|g| {
                matches!(
                    g.kind(),
                    "assignment" | "augmented_assignment" | "delete_statement"
                ) && (is_field(g, "left", parent) || g.kind() == "delete_statement")
            });
            if assigned {
                Occurrence::Mutation
            } else {
                Occurrence::Read
            }
        }
        _ => Occurrence::Read,
    }
}

fn is_field(node: Node<'_>, field: &str, child: Node<'_>) -> bool {
    node.child_by_field_name(field)
        .is_some_and(|n| n.id() == child.id())
}

pub(super) fn binding_of(name: Node<'_>) -> Option<Binding<'_>> {
    let assignment = name.parent()?;
    let statement = assignment.parent()?;
    if assignment.kind() != "assignment" || statement.kind() != "expression_statement" {
        return None;
    }
    Some(Binding {
        statement,
        value: assignment.child_by_field_name("right")?,
        written_type: assignment.child_by_field_name("type"),
        mutable: false,
    })
}

/// Higher binds tighter.
fn precedence(node: Node<'_>, text: &str) -> u8 {
    match node.kind() {
        "expression_list" | "named_expression" | "yield" => 0,
        "lambda" => 1,
        "conditional_expression" => 2,
        "boolean_operator" => {
            let op = node
                .child_by_field_name("operator")
                .map_or("", |o| node_text(o, text));
            if op == "or" { 3 } else { 4 }
        }
        "not_operator" => 5,
        "comparison_operator" => 6,
        "binary_operator" => {
            let op = node
                .child_by_field_name("operator")
                .map_or("", |o| node_text(o, text));
            binary_precedence(op)
        }
        "unary_operator" => 13,
        "await" => 15,
        "call" | "attribute" | "subscript" => 16,
        _ => 17,
    }
}

fn binary_precedence(op: &str) -> u8 {
    match op {
        "|" => 7,
        "^" => 8,
        "&" => 9,
        "<<" | ">>" => 10,
        "+" | "-" => 11,
        "**" => 14,
        _ => 12,
    }
}

pub(super) fn needs_parens(value: Node<'_>, read: Node<'_>, text: &str) -> bool {
    let own = precedence(value, text);
    let Some(parent) = read.parent() else {
        return false;
    };
    let is = |field: &str| is_field(parent, field, read);
    let needs = match parent.kind() {
        "binary_operator" | "boolean_operator" => {
            let theirs = precedence(parent, text);
            let right_assoc = theirs == 14;
            let left = is("left");
            own < theirs || (own == theirs && (left == right_assoc))
        }
        "comparison_operator" => own <= 6,
        "not_operator" => own < 5,
        "unary_operator" => own < 13,
        "await" => own < 15,
        "attribute" | "call" | "subscript" => {
            (is("object") || is("function") || is("value"))
                && (own < 16 || matches!(value.kind(), "integer" | "float"))
        }
        "conditional_expression" => own <= 2,
        "expression_statement" | "assignment" | "return_statement" | "parenthesized_expression" => {
            false
        }
        _ => own == 0,
    };
    needs || (own == 0 && parent.kind() != "parenthesized_expression")
}
