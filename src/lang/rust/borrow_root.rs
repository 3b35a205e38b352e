//! The one local a `let`'s value borrows from, when the source says so: a chain of field
//! reads, `&` and method calls with literal arguments, rooted at a name (`self.as_str().split('.')`);
//! or none at all: a borrow made from a raw pointer (`slice::from_raw_parts(p, n)`).

use tree_sitter::Node;

use crate::lang::node_text;

/// The name the value of the `let` that binds the identifier at byte `at` is rooted at
/// (`self`, `rhs`), or `None` when the value is anything else (a call of a function, an
/// argument that names a local, an index, a block).
pub fn let_value_root<'t>(root: Node<'t>, text: &'t str, at: usize) -> Option<&'t str> {
    chain_root(let_value(root, at)?, text)
}

/// The value of the plain `let` (no `else`) whose pattern holds the identifier at byte `at`.
pub fn let_value(root: Node<'_>, at: usize) -> Option<Node<'_>> {
    let name = root.descendant_for_byte_range(at, at + 1)?;
    let mut holder = name.parent()?;
    if holder.kind() == "mut_pattern" {
        holder = holder.parent()?;
    }
    if holder.kind() != "let_declaration" || holder.child_by_field_name("alternative").is_some() {
        return None;
    }
    let pattern = holder.child_by_field_name("pattern")?;
    if !(pattern.start_byte() <= at && at < pattern.end_byte()) {
        return None;
    }
    holder.child_by_field_name("value")
}

/// Whether `expr` is a borrow made from a raw pointer, which no input of a function lends (its
/// lifetime is unbounded): a call of std's `slice::from_raw_parts[_mut]`, or
/// `str::from_utf8_unchecked[_mut]` of such a borrow, through `unsafe` blocks, parentheses and
/// locals bound by a `let` to one (`resolve`: a name used at a byte → the byte of its binding).
pub fn is_raw_borrow<'t>(
    root: Node<'t>,
    text: &str,
    mut expr: Node<'t>,
    resolve: &dyn Fn(&str, usize) -> Option<usize>,
) -> bool {
    // Bounded: a chain of locals could name itself through shadowing.
    for _ in 0..16 {
        let next = match expr.kind() {
            "parenthesized_expression" => expr.named_child(0),
            // A block's tail `unsafe { .. }` parses as a statement with no `;`.
            "expression_statement" if !node_text(expr, text).ends_with(';') => expr.named_child(0),
            "unsafe_block" => expr
                .named_children(&mut expr.walk())
                .find(|c| c.kind() == "block")
                .and_then(block_tail),
            "block" => block_tail(expr),
            "identifier" => resolve(node_text(expr, text), expr.start_byte())
                .filter(|&at| at != expr.start_byte())
                .and_then(|at| let_value(root, at)),
            "call_expression" => {
                let Some(function) = expr
                    .child_by_field_name("function")
                    .filter(|f| f.kind() == "scoped_identifier")
                else {
                    return false;
                };
                let path = super::std_types::std_path(root, text, node_text(function, text));
                match path.as_deref() {
                    Some("std::slice::from_raw_parts" | "std::slice::from_raw_parts_mut") => {
                        return true;
                    }
                    Some("std::str::from_utf8_unchecked" | "std::str::from_utf8_unchecked_mut") => {
                        expr.child_by_field_name("arguments")
                            .and_then(|a| a.named_child(0))
                    }
                    _ => return false,
                }
            }
            _ => return false,
        };
        let Some(next) = next else {
            return false;
        };
        expr = next;
    }
    false
}

/// The value expression a block ends with, comments aside.
fn block_tail(block: Node<'_>) -> Option<Node<'_>> {
    let tail = block
        .named_children(&mut block.walk())
        .filter(|c| !c.kind().ends_with("comment"))
        .last()?;
    let statement = tail.kind().ends_with("_statement") || tail.kind().ends_with("_declaration");
    (!statement).then_some(tail)
}

/// The name a field / method / `&` chain starts from.
fn chain_root<'t>(mut expr: Node<'t>, text: &'t str) -> Option<&'t str> {
    // A loop, not recursion: a chain or a nest of parentheses can be thousands deep.
    loop {
        expr = match expr.kind() {
            "identifier" | "self" => return Some(node_text(expr, text)),
            "field_expression" => expr.child_by_field_name("value")?,
            "reference_expression" | "parenthesized_expression" => {
                expr.named_children(&mut expr.walk()).last()?
            }
            "call_expression" => {
                let function = expr.child_by_field_name("function")?;
                let arguments = expr.child_by_field_name("arguments")?;
                let literal_arguments = arguments
                    .named_children(&mut arguments.walk())
                    .all(|a| a.kind().ends_with("_literal") || a.kind() == "line_comment");
                if function.kind() != "field_expression" || !literal_arguments {
                    return None;
                }
                function.child_by_field_name("value")?
            }
            _ => return None,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn root_of(text: &str, name: &str) -> Option<String> {
        let tree = crate::lang::Language::Rust.parse_incremental(text, None);
        let at = text.find(&format!(" {name} = "))? + 1;
        let_value_root(tree.root_node(), text, at).map(str::to_string)
    }

    #[test]
    fn chains_of_fields_methods_and_borrows_with_literal_arguments() {
        let text = "fn f(&self, rhs: &Self, n: usize) {\n    let a = self.as_str().split('.');\n    let mut b = rhs.as_str().split('.');\n    let c = &rhs.parts[..];\n    let d = &rhs.name;\n    let e = rhs.get(n);\n    let g = make(rhs);\n    let h = (&rhs.name).trim();\n}\n";
        assert_eq!(root_of(text, "a").as_deref(), Some("self"));
        assert_eq!(root_of(text, "b").as_deref(), Some("rhs"));
        assert_eq!(root_of(text, "c"), None);
        assert_eq!(root_of(text, "d").as_deref(), Some("rhs"));
        assert_eq!(root_of(text, "e"), None);
        assert_eq!(root_of(text, "g"), None);
        assert_eq!(root_of(text, "h").as_deref(), Some("rhs"));
    }

    #[test]
    fn borrows_made_from_raw_pointers() {
        let text = "use core::{slice, str};\nunsafe fn f(p: *const u8, n: usize, s: &[u8]) -> &str {\n    let a = unsafe { slice::from_raw_parts(p, n) };\n    let b = unsafe { str::from_utf8_unchecked(a) };\n    let c = str::from_utf8_unchecked(s);\n    let d = other::from_raw_parts(p, n);\n    (b)\n}\n";
        let tree = crate::lang::Language::Rust.parse_incremental(text, None);
        let root = tree.root_node();
        // The last `let name =` before the use.
        let resolve =
            |name: &str, at: usize| text[..at].rfind(&format!("let {name} = ")).map(|i| i + 4);
        let value_of = |name: &str| {
            let at = text.find(&format!(" {name} = ")).unwrap() + 1;
            let_value(root, at).unwrap()
        };
        let raw = |name: &str| is_raw_borrow(root, text, value_of(name), &resolve);
        assert!(raw("a") && raw("b"));
        // `s` is a reference parameter: the borrow comes from it; `other::` is not std.
        assert!(!raw("c") && !raw("d"));
        let tail = root
            .descendant_for_byte_range(text.find("(b)").unwrap(), text.find("(b)").unwrap() + 3)
            .unwrap();
        assert!(is_raw_borrow(root, text, tail, &resolve));
    }
}
