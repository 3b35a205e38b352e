//! The type of a name a Rust pattern binds from what the pattern matches: the value of an
//! `if let`/`while let`/`let` (also `let .. else`), or the scrutinee of a `match`, through
//! `Some(..)`, `Ok(..)`, the file's own tuple structs (`Counter(n)`) and tuples, with Rust's
//! default binding modes (a constructor pattern matched against a reference binds references:
//! `if let Some(x) = &opt` gives `x: &T`). Anything else (or-patterns, `&mut` scrutinees, `mut`
//! bindings under a reference) is unknown. Also the value of an `if`/`match` used as a value:
//! the type of a branch the source says.

use tree_sitter::Node;

use crate::lang::node_text;

use super::iterators::tuple_element;
use super::types::{TypeScope, Wrapper, expression_type_at, strip_reference, wrapper};

/// The type of the identifier pattern `name` (a binding inside a pattern).
pub(super) fn binding_type(
    scope: &TypeScope<'_, '_>,
    name: Node<'_>,
    depth: usize,
) -> Option<String> {
    let mut pattern = name;
    let mut is_mut = false;
    if let Some(parent) = name.parent().filter(|p| p.kind() == "mut_pattern") {
        pattern = parent;
        is_mut = true;
    }
    let (ty, by_ref) = pattern_type(scope, pattern, depth)?;
    match (by_ref, is_mut) {
        (false, _) => Some(ty),
        // `mut x` under a reference: the binding mode rules differ between editions.
        (true, true) => None,
        (true, false) => Some(format!("&{ty}")),
    }
}

/// The type of the value the pattern `pattern` matches, and whether the names it binds are
/// bound by reference (a constructor pattern went through a reference).
fn pattern_type(
    scope: &TypeScope<'_, '_>,
    pattern: Node<'_>,
    depth: usize,
) -> Option<(String, bool)> {
    let parent = pattern.parent()?;
    let text = scope.text;
    let is_the_pattern = |holder: Node<'_>| {
        holder
            .child_by_field_name("pattern")
            .is_some_and(|p| p.id() == pattern.id())
    };
    match parent.kind() {
        // `let Counter(n) = c;`, `let Some(x) = v else { .. };`: a type written there, or
        // the value's.
        "let_declaration" if is_the_pattern(parent) => match parent.child_by_field_name("type") {
            Some(ty) => Some((super::types::type_text(ty, text), false)),
            None => {
                let value = parent.child_by_field_name("value")?;
                Some((expression_type_at(scope, value, depth + 1)?, false))
            }
        },
        "let_condition" if is_the_pattern(parent) => {
            let value = parent.child_by_field_name("value")?;
            Some((expression_type_at(scope, value, depth + 1)?, false))
        }
        "match_pattern" => {
            if parent.named_child(0)?.id() != pattern.id() {
                return None;
            }
            let arm = parent.parent().filter(|a| a.kind() == "match_arm")?;
            let expression = arm.parent()?.parent()?;
            if expression.kind() != "match_expression" {
                return None;
            }
            let value = expression.child_by_field_name("value")?;
            Some((expression_type_at(scope, value, depth + 1)?, false))
        }
        "tuple_struct_pattern" => {
            let constructor = node_text(parent.child_by_field_name("type")?, text);
            let parts: Vec<Node<'_>> = parent.named_children(&mut parent.walk()).skip(1).collect();
            let position = parts.iter().position(|p| p.id() == pattern.id())?;
            let (outer, by_ref) = peeled(pattern_type(scope, parent, depth)?)?;
            // `let Counter(n) = c;` of the file's `struct Counter(i32);`: the field's type.
            if outer == constructor {
                let fields = super::items::plain_tuple_struct_fields(scope.root, text, &outer)?;
                return Some((fields.get(position)?.clone(), by_ref))
                    .filter(|_| fields.len() == parts.len());
            }
            if parts.len() != 1 {
                return None;
            }
            let inner = match (constructor, wrapper(&outer)?) {
                ("Some", (Wrapper::Option, Some(value))) => value,
                ("Ok", (Wrapper::Result, Some(value))) => value,
                _ => return None,
            };
            Some((inner, by_ref))
        }
        "tuple_pattern" => {
            let position = parent
                .named_children(&mut parent.walk())
                .position(|c| c.id() == pattern.id())?;
            let (outer, by_ref) = peeled(pattern_type(scope, parent, depth)?)?;
            Some((tuple_element(&outer, position)?, by_ref))
        }
        _ => None,
    }
}

/// A constructor pattern matched against `&T` matches `T` and binds by reference (`&mut`:
/// unknown).
fn peeled((ty, by_ref): (String, bool)) -> Option<(String, bool)> {
    let mut ty = ty;
    let mut by_ref = by_ref;
    while ty.starts_with('&') {
        if super::types::is_mutable_reference(&ty) {
            return None;
        }
        ty = strip_reference(&ty)?.to_string();
        by_ref = true;
    }
    Some((ty, by_ref))
}

/// The type of an `if`/`match` used as a value: the first branch whose type the source says
/// (a branch that jumps away, `return ..`, has none). An `if` without `else` is `()`.
pub(super) fn branches_type(
    scope: &TypeScope<'_, '_>,
    expr: Node<'_>,
    depth: usize,
) -> Option<String> {
    let mut values: Vec<Node<'_>> = Vec::new();
    match expr.kind() {
        "if_expression" => {
            let mut current = Some(expr);
            while let Some(branch) = current {
                values.extend(branch.child_by_field_name("consequence"));
                let alternative = branch
                    .child_by_field_name("alternative")
                    .and_then(|a| a.named_child(0));
                current = None;
                match alternative {
                    Some(next) if next.kind() == "if_expression" => current = Some(next),
                    Some(block) => values.push(block),
                    None => return None,
                }
            }
        }
        _ => {
            let body = expr.child_by_field_name("body")?;
            for arm in body.named_children(&mut body.walk()) {
                values.extend(arm.child_by_field_name("value"));
            }
        }
    }
    values
        .into_iter()
        .find_map(|v| expression_type_at(scope, v, depth + 1))
        .filter(|t| t != "()")
}
