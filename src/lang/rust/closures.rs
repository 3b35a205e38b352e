//! Rust closures as the types of a new function's parameters: the body of a closure, and
//! `impl Fn(A, B) -> R` for a closure whose parameters are typed, whose body's type the
//! source says, and that neither moves nor mutates what it captures (such a closure is `Copy`,
//! so it is passed by value and stays usable after the call); the type of a closure's parameter
//! where an iterator adaptor it is handed to says it.

use tree_sitter::Node;

use crate::lang::node_text;

use super::iterators;
use super::types::{TypeScope, expression_type_at, type_text};

/// The body expression of a closure.
pub fn closure_body(closure: Node<'_>) -> Option<Node<'_>> {
    (closure.kind() == "closure_expression")
        .then(|| closure.child_by_field_name("body"))
        .flatten()
}

/// Whether a type text is the `impl Fn(..)` this module writes.
pub fn is_plain_closure_type(ty: &str) -> bool {
    ty.starts_with("impl Fn(")
}

/// Whether a type text is a closure that can be called once only (`impl FnOnce(..)`): a call
/// moves it.
pub fn is_once_closure_type(ty: &str) -> bool {
    ty.trim_start().starts_with("impl FnOnce(")
}

/// What calling a closure of type `impl Fn(..) -> R` (`FnMut`, `FnOnce`) gives: `R`, or `()`
/// with no arrow. `None` for any other type.
pub fn closure_return(ty: &str) -> Option<String> {
    let rest = ["impl Fn(", "impl FnMut(", "impl FnOnce("]
        .iter()
        .find_map(|p| ty.trim().strip_prefix(p))?;
    // The arguments' parentheses close before the arrow.
    let mut depth = 1usize;
    let close = rest.char_indices().find_map(|(i, c)| {
        match c {
            '(' | '<' | '[' => depth += 1,
            ')' | '>' | ']' => depth -= 1,
            _ => {}
        }
        (depth == 0).then_some(i)
    })?;
    let after = rest[close + 1..].trim();
    if after.is_empty() {
        return Some("()".to_string());
    }
    let returned = after.strip_prefix("->")?.trim();
    (!returned.is_empty() && !returned.contains('+') && !returned.contains("impl "))
        .then(|| returned.to_string())
}

/// `impl Fn(u32) -> bool` for a plain closure (see the module's note).
pub(super) fn closure_type(
    scope: &TypeScope<'_, '_>,
    closure: Node<'_>,
    depth: usize,
) -> Option<String> {
    let text = scope.text;
    if closure
        .children(&mut closure.walk())
        .any(|c| c.kind() == "move")
    {
        return None;
    }
    let parameters = closure.child_by_field_name("parameters")?;
    let mut types = Vec::new();
    for parameter in parameters.named_children(&mut parameters.walk()) {
        if parameter.kind() != "parameter" {
            return None;
        }
        types.push(type_text(parameter.child_by_field_name("type")?, text));
    }
    let body = closure_body(closure)?;
    if mutates_something(body) {
        return None;
    }
    let returned = match closure.child_by_field_name("return_type") {
        Some(ty) => type_text(ty, text),
        None => expression_type_at(scope, body, depth + 1)?,
    };
    let arrow = if returned == "()" {
        String::new()
    } else {
        format!(" -> {returned}")
    };
    Some(format!("impl Fn({}){arrow}", types.join(", ")))
}

/// Whether the body assigns, or borrows mutably, anything (a captured local would make the
/// closure `FnMut`; a closure bound by `let mut` is not asked about).
fn mutates_something(body: Node<'_>) -> bool {
    let mut found = false;
    crate::lang::walk_node(body, |n| {
        if matches!(
            n.kind(),
            "assignment_expression" | "compound_assignment_expr"
        ) || n.kind() == "reference_expression"
            && n.children(&mut n.walk())
                .any(|c| c.kind() == "mutable_specifier")
        {
            found = true;
        }
        !found
    });
    found
}

/// The type of the parameters of a closure handed to an iterator adaptor.
pub(super) fn adaptor_parameter(
    scope: &TypeScope<'_, '_>,
    parameters: Node<'_>,
    depth: usize,
) -> Option<String> {
    let closure = parameters.parent()?;
    let call = closure.parent()?.parent()?;
    let function = call.child_by_field_name("function")?;
    if call.kind() != "call_expression" || function.kind() != "field_expression" {
        return None;
    }
    if parameters.named_child_count() != 1 {
        return None;
    }
    let receiver = function.child_by_field_name("value")?;
    let method = node_text(function.child_by_field_name("field")?, scope.text);
    iterators::closure_parameter_type(scope, receiver, method, depth)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_calling_a_closure_type_gives() {
        assert_eq!(
            closure_return("impl FnOnce(usize) -> String").as_deref(),
            Some("String")
        );
        assert_eq!(
            closure_return("impl FnOnce(&mut fmt::Formatter) -> fmt::Result").as_deref(),
            Some("fmt::Result")
        );
        assert_eq!(closure_return("impl FnMut(u8)").as_deref(), Some("()"));
        assert_eq!(closure_return("impl Fn() -> impl Display"), None);
        assert_eq!(closure_return("Vec<u8>"), None);
        assert!(is_once_closure_type("impl FnOnce() -> usize"));
        assert!(!is_once_closure_type("impl Fn() -> usize"));
    }
}
