//! Rust: a returned borrow that elision cannot tie to an input (two or more reference inputs)
//! gets a named lifetime `'a` on the reference parameters its values come from, when the
//! source says where each one comes from (`let parts = rhs.as_str().split('.');` → `rhs`).
//! A borrow made from a raw pointer in an `unsafe fn` (`slice::from_raw_parts`) gets an
//! unbounded `'a`, as std's own functions declare it: the caller's use decides it.

use crate::lang::rust::types::has_elided_lifetime;

use super::diagnose::Context;
use super::flow::DataFlow;
use super::signature::{Exit, Shape};

/// The lifetime the new signature declares.
const NAME: &str = "'a";

/// Names the returned borrows' lifetime in `shape` (and `receiver`), when every returned value
/// whose type holds a borrow is rooted at a reference parameter or at `&self`. Returns whether
/// it did; otherwise nothing changes and the elided-lifetime warning stays.
pub fn name_returned_lifetime(
    shape: &mut Shape,
    receiver: &mut Option<String>,
    receiver_name: Option<&str>,
    flow: &DataFlow,
) -> bool {
    let Some(returned) = shape.return_type.as_deref() else {
        return false;
    };
    let borrowed_inputs = shape.parameters.iter().filter(|p| borrows(p)).count()
        + usize::from(receiver.as_deref().is_some_and(|r| r.starts_with('&')));
    let taken = |s: &str| s.contains(NAME);
    if !has_elided_lifetime(returned)
        || borrowed_inputs < 2
        || shape.exit != Exit::Names
        || shape.early_return.is_some()
        || shape.fallible
        || taken(returned)
        || shape.generics.as_deref().is_some_and(taken)
        || shape.parameters.iter().any(|p| taken(p))
        || flow.returns.is_empty()
    {
        return false;
    }
    // Each returned value that holds a borrow names the reference input it comes from.
    let mut roots: Vec<&str> = Vec::new();
    for value in &flow.returns {
        let Some(ty) = value.ty.as_deref() else {
            return false;
        };
        if !has_elided_lifetime(ty) {
            continue;
        }
        let Some(root) = value.root.as_deref() else {
            return false;
        };
        let is_receiver =
            receiver_name == Some(root) && receiver.as_deref().is_some_and(|r| r.starts_with('&'));
        let is_reference_parameter = shape
            .parameters
            .iter()
            .any(|p| parameter_name(p) == Some(root) && reference_type(p).is_some());
        if !is_receiver && !is_reference_parameter {
            return false;
        }
        roots.push(root);
    }
    if roots.is_empty() {
        return false;
    }
    for parameter in &mut shape.parameters {
        if parameter_name(parameter).is_some_and(|n| roots.contains(&n))
            && let Some(at) = reference_type(parameter)
        {
            parameter.insert_str(at + 1, &format!("{NAME} "));
        }
    }
    if let (Some(name), Some(written)) = (receiver_name, receiver.as_mut())
        && roots.contains(&name)
        && written.starts_with('&')
    {
        written.insert_str(1, &format!("{NAME} "));
    }
    shape.return_type = Some(named(returned));
    shape.generics = Some(match shape.generics.as_deref() {
        Some(list) => format!("<{NAME}, {}", list.trim_start_matches('<')),
        None => format!("<{NAME}>"),
    });
    true
}

/// Names the lifetime of a returned borrow made from a raw pointer (`slice::from_raw_parts`,
/// which no input lends) with a new, unbounded `'a`, when the new function is an `unsafe fn`
/// (it is whenever the selection sits in one or in an `unsafe` block) and every returned value
/// whose type holds a borrow is such a borrow. Returns whether it did.
pub fn name_raw_lifetime(cx: &Context<'_, '_>, shape: &mut Shape, flow: &DataFlow) -> bool {
    let Some(returned) = shape.return_type.as_deref() else {
        return false;
    };
    let taken = |s: &str| s.contains(NAME);
    let unsafe_fn = cx.target.is_unsafe || cx.target.unsafe_block.is_some();
    if !unsafe_fn
        || !has_elided_lifetime(returned)
        || shape.early_return.is_some()
        || shape.fallible
        || taken(returned)
        || shape.generics.as_deref().is_some_and(taken)
        || shape.parameters.iter().any(|p| taken(p))
    {
        return false;
    }
    let raw = match shape.exit {
        Exit::Names => {
            !flow.returns.is_empty()
                && flow.returns.iter().all(|value| {
                    value.raw || value.ty.as_deref().is_some_and(|t| !has_elided_lifetime(t))
                })
        }
        Exit::Tail => cx.selection.tail.is_some_and(|tail| {
            let resolve = |name: &str, at: usize| cx.names.resolve(name, at).map(|b| b.pos);
            let mut root = tail;
            while let Some(parent) = root.parent() {
                root = parent;
            }
            crate::lang::rust::borrow_root::is_raw_borrow(root, cx.text, tail, &resolve)
        }),
        _ => false,
    };
    if !raw {
        return false;
    }
    shape.return_type = Some(named(returned));
    shape.generics = Some(match shape.generics.as_deref() {
        Some(list) => format!("<{NAME}, {}", list.trim_start_matches('<')),
        None => format!("<{NAME}>"),
    });
    true
}

/// A parameter as the signature writes it (`rhs: &Self`) passes a borrow.
fn borrows(parameter: &str) -> bool {
    parameter.contains('&') || parameter.contains("'_")
}

fn parameter_name(parameter: &str) -> Option<&str> {
    let (name, _) = parameter.split_once(':')?;
    Some(name.trim().trim_start_matches("mut ").trim())
}

/// The byte of the `&` of a parameter whose type is a reference with no named lifetime
/// (`rhs: &Self`, `v: &mut Vec<u8>`).
fn reference_type(parameter: &str) -> Option<usize> {
    let (name, ty) = parameter.split_once(':')?;
    let ty_at = name.len() + 1 + (ty.len() - ty.trim_start().len());
    let ty = ty.trim_start();
    (ty.starts_with('&') && !ty[1..].trim_start().starts_with('\'')).then_some(ty_at)
}

/// `ty` with each elided lifetime named: `'_` → `'a`, `&T` → `&'a T`.
fn named(ty: &str) -> String {
    let ty = ty.replace("'_", NAME);
    let mut out = String::with_capacity(ty.len() + 8);
    for (i, c) in ty.char_indices() {
        out.push(c);
        if c == '&' {
            let after = ty[i + 1..].trim_start();
            if !after.starts_with('\'') && !after.starts_with('&') {
                out.push_str(NAME);
                out.push(' ');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elided_lifetimes_are_named() {
        assert_eq!(
            named("(std::str::Split<'_, char>, &str)"),
            "(std::str::Split<'a, char>, &'a str)"
        );
        assert_eq!(named("&&mut [u8]"), "&&'a mut [u8]");
        assert_eq!(reference_type("rhs: &Self"), Some(5));
        assert_eq!(reference_type("x: &'b u8"), None);
        assert_eq!(reference_type("n: usize"), None);
        assert_eq!(parameter_name("mut n: usize"), Some("n"));
    }
}
