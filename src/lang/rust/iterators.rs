//! The item type of what a Rust `for` loop or an iterator chain walks, as far as the source
//! says it: ranges, `&v`/`&mut v`/`v` of a vector, slice, array or set, `HashMap`/`BTreeMap`
//! entries, `iter`/`iter_mut`/`into_iter`/`keys`/`values`/`values_mut`, `chars`/`bytes`/
//! `lines`/`split*`/`char_indices` of a string, and the common adaptors (`enumerate`, `zip`,
//! `map` with a closure whose body's type is plain, `filter`, `rev`, `copied`/`cloned`, ...).
//! Also the type of a closure's parameter when the closure is handed to such an adaptor.
//! No inference beyond that: an unknown piece leaves the whole unknown.

use tree_sitter::Node;

use crate::lang::node_text;

use super::types::{
    TypeScope, expression_type_at, generic_parts, split_top_level, strip_reference,
    strip_references,
};

/// Adaptors whose items are their receiver's.
const SAME_ITEMS: &[&str] = &[
    "rev",
    "skip",
    "take",
    "step_by",
    "filter",
    "skip_while",
    "take_while",
    "peekable",
    "fuse",
    "inspect",
    "cycle",
    "chain",
    "by_ref",
];

/// Adaptors that hand their closure the item itself, and those that hand it a reference to it.
const CLOSURE_GETS_ITEM: &[&str] = &[
    "map",
    "for_each",
    "filter_map",
    "flat_map",
    "any",
    "all",
    "find_map",
    "position",
    "map_while",
    "inspect_owned",
];
const CLOSURE_GETS_REFERENCE: &[&str] = &["filter", "find", "skip_while", "take_while", "inspect"];

/// The item type of iterating `expr` (a `for` loop's value, or an iterator expression).
pub(super) fn item_type(scope: &TypeScope<'_, '_>, expr: Node<'_>, depth: usize) -> Option<String> {
    let text = scope.text;
    match expr.kind() {
        "range_expression" => expr
            .named_children(&mut expr.walk())
            .find_map(|bound| expression_type_at(scope, bound, depth + 1)),
        "parenthesized_expression" => item_type(scope, expr.named_child(0)?, depth + 1),
        "reference_expression" => {
            let inner = expression_type_at(scope, expr.child_by_field_name("value")?, depth + 1)?;
            let mutable = expr
                .children(&mut expr.walk())
                .any(|c| c.kind() == "mutable_specifier");
            borrowed_items(strip_references(&inner), mutable)
        }
        "call_expression" => {
            let function = expr.child_by_field_name("function")?;
            if function.kind() != "field_expression" {
                return None;
            }
            let receiver = function.child_by_field_name("value")?;
            let method = node_text(function.child_by_field_name("field")?, text);
            let arguments = expr.child_by_field_name("arguments")?;
            adaptor_item(scope, receiver, method, arguments, depth)
        }
        _ => {
            // A value walked by `for`: a reference walks borrowed items, a collection its own.
            let ty = expression_type_at(scope, expr, depth + 1)?;
            match strip_reference(&ty) {
                Some(inner) => {
                    let mutable = super::types::is_mutable_reference(&ty);
                    borrowed_items(strip_references(inner), mutable)
                }
                None => owned_items(&ty),
            }
        }
    }
}

fn adaptor_item(
    scope: &TypeScope<'_, '_>,
    receiver: Node<'_>,
    method: &str,
    arguments: Node<'_>,
    depth: usize,
) -> Option<String> {
    let receiver_type = || expression_type_at(scope, receiver, depth + 1);
    let inner = || item_type(scope, receiver, depth + 1);
    match method {
        "iter" => borrowed_items(strip_references(&receiver_type()?), false),
        "iter_mut" => borrowed_items(strip_references(&receiver_type()?), true),
        "into_iter" => item_type(scope, receiver, depth + 1),
        "keys" | "values" | "values_mut" => {
            let ty = receiver_type()?;
            let (key, value) = map_types(strip_references(&ty))?;
            Some(match method {
                "keys" => format!("&{key}"),
                "values" => format!("&{value}"),
                _ => format!("&mut {value}"),
            })
        }
        "chars"
        | "bytes"
        | "lines"
        | "split_whitespace"
        | "split_ascii_whitespace"
        | "split"
        | "rsplit"
        | "split_terminator"
        | "splitn"
        | "rsplitn"
        | "char_indices" => {
            if !super::types::is_str(&receiver_type()?) {
                return None;
            }
            Some(
                match method {
                    "chars" => "char",
                    "bytes" => "u8",
                    "char_indices" => "(usize, char)",
                    _ => "&str",
                }
                .to_string(),
            )
        }
        "enumerate" => Some(format!("(usize, {})", inner()?)),
        "zip" => {
            let other = arguments.named_child(0)?;
            Some(format!(
                "({}, {})",
                inner()?,
                item_type(scope, other, depth + 1)?
            ))
        }
        "copied" | "cloned" => strip_reference(&inner()?).map(str::to_string),
        "map" => {
            let closure = arguments.named_child(0)?;
            let body = super::closures::closure_body(closure)?;
            expression_type_at(scope, body, depth + 1)
        }
        _ if SAME_ITEMS.contains(&method) => inner(),
        _ => None,
    }
}

/// The item of a local bound to an iterator chain (`let mut chars = s.chars().peekable();`):
/// `char`. Unknown for anything else (a collection, a parameter).
pub(super) fn local_iterator_item(
    scope: &TypeScope<'_, '_>,
    local: Node<'_>,
    depth: usize,
) -> Option<String> {
    if local.kind() != "identifier" {
        return None;
    }
    let at = (scope.resolve)(node_text(local, scope.text), local.start_byte())?;
    let mut holder = scope.root.descendant_for_byte_range(at, at + 1)?.parent()?;
    if holder.kind() == "mut_pattern" {
        holder = holder.parent()?;
    }
    if holder.kind() != "let_declaration" || holder.child_by_field_name("type").is_some() {
        return None;
    }
    let value = holder.child_by_field_name("value")?;
    (value.kind() == "call_expression")
        .then(|| item_type(scope, value, depth + 1))
        .flatten()
}

/// The type the closure handed to `method` (called on `receiver`) gets as its parameter.
pub(super) fn closure_parameter_type(
    scope: &TypeScope<'_, '_>,
    receiver: Node<'_>,
    method: &str,
    depth: usize,
) -> Option<String> {
    let item = item_type(scope, receiver, depth + 1)?;
    if CLOSURE_GETS_ITEM.contains(&method) {
        Some(item)
    } else if CLOSURE_GETS_REFERENCE.contains(&method) {
        Some(format!("&{item}"))
    } else {
        None
    }
}

/// The items of iterating a borrowed collection (`&Vec<T>` → `&T`, `&HashMap<K, V>` →
/// `(&K, &V)`).
fn borrowed_items(collection: &str, mutable: bool) -> Option<String> {
    let reference = if mutable { "&mut " } else { "&" };
    if let Some((key, value)) = map_types(collection) {
        return Some(format!("(&{key}, {reference}{value})"));
    }
    let element = super::types::element_of(collection)?;
    // A set hands out shared references only.
    Some(format!("{reference}{element}"))
}

/// The items of iterating an owned collection (`Vec<T>` → `T`, `HashMap<K, V>` → `(K, V)`).
fn owned_items(collection: &str) -> Option<String> {
    if let Some((key, value)) = map_types(collection) {
        return Some(format!("({key}, {value})"));
    }
    if collection.starts_with('[') && !collection.contains(';') {
        return None;
    }
    super::types::element_of(collection)
}

/// `HashMap<K, V>` / `BTreeMap<K, V>` → (`K`, `V`).
fn map_types(ty: &str) -> Option<(String, String)> {
    let (head, arguments) = generic_parts(ty)?;
    let last = head.rsplit("::").next().unwrap_or(&head);
    match (last, arguments.as_slice()) {
        ("HashMap" | "BTreeMap", [key, value, ..]) => Some((key.clone(), value.clone())),
        _ => None,
    }
}

/// The element of a tuple type at `position` (`(usize, &T)`, 1 → `&T`).
pub(super) fn tuple_element(tuple: &str, position: usize) -> Option<String> {
    let inner = tuple.trim().strip_prefix('(')?.strip_suffix(')')?;
    let parts = split_top_level(inner, ',');
    let part = parts.get(position)?.trim();
    (!part.is_empty() && parts.len() > 1).then(|| part.to_string())
}
