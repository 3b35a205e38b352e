//! Lifetime elision in a Rust function's signature: whether its return type holds a reference
//! with no named lifetime (`&[u8]`, `Formatter<'_>`, `impl Iterator<Item = &u8>`) that the
//! elision rules cannot fill — no `&self`, and not exactly one lifetime among the inputs
//! (E0106). `fn(&T) -> &U` and `Fn(&T) -> &U` have their own elision and do not count.

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::lang::node_text;

/// Why the returned reference of a function gets no lifetime.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gap {
    /// No input has a lifetime: nothing for the result to borrow from.
    NoInput,
    /// This many lifetimes among the inputs and no `&self`: Rust cannot tell which one.
    Several(usize),
}

/// The return type's text and why its elided lifetime cannot be filled, for `function` (a
/// `function_item` or `function_signature_item`); `None` when the signature is fine or when an
/// input may hide a lifetime candor cannot see (`hides` says whether a type name of a parameter
/// may have a lifetime parameter, as `Formatter` or a struct of the crate with `<'a>`).
pub fn missing_lifetime(
    function: Node<'_>,
    text: &str,
    hides: &dyn Fn(&str) -> bool,
) -> Option<(String, Gap)> {
    let returned = function.child_by_field_name("return_type")?;
    if elided_positions(returned, text) == 0 {
        return None;
    }
    let parameters = function.child_by_field_name("parameters")?;
    let generics: BTreeSet<&str> = function
        .child_by_field_name("type_parameters")
        .map(|list| {
            list.named_children(&mut list.walk())
                .filter_map(|p| p.child_by_field_name("name").or_else(|| p.named_child(0)))
                .map(|n| node_text(n, text))
                .collect()
        })
        .unwrap_or_default();
    let mut inputs = Inputs::default();
    for parameter in parameters.named_children(&mut parameters.walk()) {
        match parameter.kind() {
            // `&self` lends its lifetime; `self` by value may hold one in `Self`.
            "self_parameter" => return None,
            "parameter" => {
                let Some(ty) = parameter.child_by_field_name("type") else {
                    continue;
                };
                let is_self = parameter
                    .child_by_field_name("pattern")
                    .is_some_and(|p| node_text(p, text) == "self");
                if is_self {
                    // `self: &Self`, `self: Box<Self>`, `self: Pin<&mut Self>`…
                    return None;
                }
                inputs.read(ty, text);
            }
            _ => {}
        }
    }
    let count = inputs.count();
    if count == 1 {
        return None;
    }
    if count == 0
        && inputs
            .names
            .iter()
            .any(|n| !generics.contains(n.as_str()) && (n == "Self" || hides(n)))
    {
        return None;
    }
    let gap = if count == 0 {
        Gap::NoInput
    } else {
        Gap::Several(count)
    };
    Some((node_text(returned, text).to_string(), gap))
}

/// Standard-library types that take a lifetime parameter and are often written without it.
pub const STD_WITH_LIFETIME: &[&str] = &[
    "Formatter",
    "Arguments",
    "Chars",
    "CharIndices",
    "Bytes",
    "Lines",
    "Split",
    "SplitWhitespace",
    "Iter",
    "IterMut",
    "Drain",
    "Cow",
    "Ref",
    "RefMut",
    "MutexGuard",
    "RwLockReadGuard",
    "RwLockWriteGuard",
    "Entry",
    "Keys",
    "Values",
    "Windows",
    "Chunks",
    "Components",
    "Display",
    "StdinLock",
    "StdoutLock",
    "StderrLock",
    "Location",
    "PanicInfo",
    "Context",
];

/// Whether `text` declares a type or trait `name` with a lifetime parameter (`struct
/// Cursor<'a>`), by its text: such a type may be written without it (`c: Cursor`).
pub fn declares_lifetime_parameter(text: &str, name: &str) -> bool {
    ["struct", "enum", "type", "union", "trait"]
        .iter()
        .any(|item| text.contains(&format!("{item} {name}<'")))
}

/// The references with no lifetime and the `'_` of a type, outside function-pointer and `Fn`
/// types (which elide on their own).
fn elided_positions(ty: Node<'_>, text: &str) -> usize {
    let mut count = 0;
    walk(ty, &mut |node| match node.kind() {
        "reference_type" => {
            let named = node
                .children(&mut node.walk())
                .any(|c| c.kind() == "lifetime");
            count += usize::from(!named);
        }
        "lifetime" => count += usize::from(lifetime_name(node, text) == "'_"),
        _ => {}
    });
    count
}

/// The lifetimes of the inputs: elided positions, the distinct named lifetimes, and the type
/// names (a path type may hide a lifetime parameter).
#[derive(Default)]
struct Inputs {
    elided: usize,
    named: BTreeSet<String>,
    names: BTreeSet<String>,
}

impl Inputs {
    fn read(&mut self, ty: Node<'_>, text: &str) {
        walk(ty, &mut |node| match node.kind() {
            "reference_type" => {
                let named = node
                    .children(&mut node.walk())
                    .any(|c| c.kind() == "lifetime");
                self.elided += usize::from(!named);
            }
            "lifetime" => {
                let name = lifetime_name(node, text);
                if name == "'_" {
                    self.elided += 1;
                } else {
                    self.named.insert(name);
                }
            }
            "type_identifier" => {
                self.names.insert(node_text(node, text).to_string());
            }
            _ => {}
        });
    }

    fn count(&self) -> usize {
        self.elided + self.named.len()
    }
}

fn lifetime_name(node: Node<'_>, text: &str) -> String {
    node_text(node, text).split_whitespace().collect()
}

/// Every node of `node`'s subtree, but not into function-pointer or `Fn(…)` types.
fn walk<'t>(node: Node<'t>, visit: &mut dyn FnMut(Node<'t>)) {
    if node.kind() == "function_type" {
        return;
    }
    visit(node);
    for child in node.children(&mut node.walk()) {
        walk(child, visit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    fn gap(source: &str) -> Option<Gap> {
        let tree = Language::Rust.parse(source);
        let root = tree.root_node();
        let mut found = None;
        walk(root, &mut |n| {
            if found.is_none() && matches!(n.kind(), "function_item" | "function_signature_item") {
                found = Some(n);
            }
        });
        let hides = |name: &str| name == "Formatter";
        missing_lifetime(found.unwrap(), source, &hides).map(|(_, g)| g)
    }

    #[test]
    fn a_returned_borrow_needs_an_input_to_borrow_from() {
        // semver's extract by rust-analyzer: a raw pointer gives no lifetime.
        assert_eq!(
            gap("fn part(ptr: *const u8, len: usize) -> &[u8] { todo!() }"),
            Some(Gap::NoInput)
        );
        assert_eq!(
            gap("fn part() -> Cursor<'_> { todo!() }"),
            Some(Gap::NoInput)
        );
        assert_eq!(
            gap("fn part(n: usize) -> impl Iterator<Item = &u8> { todo!() }"),
            Some(Gap::NoInput)
        );
        assert_eq!(
            gap("fn part(a: &str, b: &str) -> &str { a }"),
            Some(Gap::Several(2))
        );
        assert_eq!(
            gap("fn part<'a, 'b>(a: &'a str, b: &'b str) -> &str { a }"),
            Some(Gap::Several(2))
        );
        // A generic parameter lends no lifetime.
        assert_eq!(
            gap("fn part<T>(t: T) -> &u8 { todo!() }"),
            Some(Gap::NoInput)
        );
    }

    #[test]
    fn what_elision_fills_is_no_concern() {
        for fine in [
            "fn part(a: &str) -> &str { a }",
            "fn part(a: &'a str, b: &'a str) -> &str { a }",
            "fn part(a: &'static str, n: usize) -> &str { a }",
            "fn part(a: Formatter<'_>) -> &str { todo!() }",
            "fn part(a: &mut Vec<u8>, b: usize) -> impl Iterator<Item = &u8> { a.iter() }",
            "impl S { fn part(&self, a: &str) -> &str { a } }",
            "impl S { fn part(self: &Self, a: &str) -> &str { a } }",
            "fn part(a: u8) -> &'static str { todo!() }",
            "fn part(a: u8) -> Box<dyn Fn(&u8) -> &u8> { todo!() }",
            "fn part(a: u8) -> fn(&u8) -> &u8 { todo!() }",
            "fn part(a: u8) -> Vec<u8> { todo!() }",
            // The input may hide a lifetime candor cannot see: no alarm.
            "fn part(f: Formatter) -> &str { todo!() }",
            "impl S { fn part(x: Self) -> &str { todo!() } }",
        ] {
            assert_eq!(gap(fine), None, "{fine}");
        }
    }
}
