//! Rust extract: the new function names a generic parameter of the function the selection came
//! from (`'b`, `Iter2`, a const `N`) that neither it nor an `impl` or `trait` around it declares
//! (E0261, E0412, E0425). rust-analyzer's extract of strsim's `b.into_iter().count()` wrote
//! `fn swept_19(b: &'b Iter2) -> usize` out of `generic_levenshtein<'a, 'b, Iter1, Iter2, …>`.

use std::collections::BTreeSet;

use tree_sitter::{Node, Tree};

use crate::lang::node_text;
use crate::lang::rust::generics::declared_name;
use crate::lang::symbols::{self, Symbol};
use crate::refactor::Finding;

use super::wording as w;

/// Items whose inside cannot see the generics of an item around them (E0401): a name there is
/// never one of the enclosing function's parameters.
const ITEMS: [&str; 8] = [
    "function_item",
    "struct_item",
    "enum_item",
    "union_item",
    "trait_item",
    "impl_item",
    "type_item",
    "mod_item",
];

/// The finding for the new function `created` of `path` (`after`, `after_tree`), extracted from
/// lines `start_line` on of `before` (`before_tree`).
pub(super) fn check(
    path: &str,
    (before, before_tree): (&str, &Tree),
    start_line: usize,
    (after, after_tree): (&str, &Tree),
    created: &Symbol,
) -> Option<Finding> {
    let lang = crate::lang::Language::Rust;
    let outline = symbols::outline(lang, before_tree, before);
    let source = outline
        .iter()
        .filter(|s| s.kind.is_function() && s.first_line <= start_line && start_line <= s.end_line)
        .min_by_key(|s| s.range.len())?;
    let source_node = lang
        .syntax()
        .function_named(before_tree, &source.name_range)?;
    let theirs = declared(source_node, before);
    if theirs.is_empty() {
        return None;
    }
    let node = lang
        .syntax()
        .function_named(after_tree, &created.name_range)?;
    let mut in_scope = declared(node, after);
    let mut around = node.parent();
    while let Some(item) = around {
        if matches!(item.kind(), "impl_item" | "trait_item") {
            in_scope.extend(declared(item, after));
        }
        around = item.parent();
    }
    let mut missing: Vec<String> = Vec::new();
    names_used(node, node, after, &mut |name| {
        if theirs.contains(name) && !in_scope.contains(name) && !missing.iter().any(|m| m == name) {
            missing.push(name.to_string());
        }
    });
    if missing.is_empty() {
        return None;
    }
    Some(
        Finding::error(
            path,
            created.line,
            w::undeclared_generics(&created.name, &source.name, &missing),
        )
        .with_kind(w::UNDECLARED_GENERICS),
    )
}

/// The generic parameters `item` declares: its parameter list's, and the lifetimes of the
/// `for<'x>` bounds in its signature.
fn declared(item: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    if let Some(list) = item.child_by_field_name("type_parameters") {
        for entry in list.named_children(&mut list.walk()) {
            let name = declared_name(node_text(entry, text));
            if !name.is_empty() {
                names.insert(name.to_string());
            }
        }
    }
    let body = item.child_by_field_name("body").map(|b| b.start_byte());
    let mut stack = vec![item];
    while let Some(node) = stack.pop() {
        if body.is_some_and(|b| node.start_byte() >= b) {
            continue;
        }
        if node.kind() == "for_lifetimes" {
            for lifetime in node.named_children(&mut node.walk()) {
                names.insert(node_text(lifetime, text).to_string());
            }
        }
        stack.extend(node.named_children(&mut node.walk()));
    }
    names
}

/// Calls `seen` with each lifetime, type name and plain name under `node` (the new function),
/// not inside an item nested in it.
fn names_used(node: Node<'_>, function: Node<'_>, text: &str, seen: &mut impl FnMut(&str)) {
    if node.id() != function.id() && ITEMS.contains(&node.kind()) {
        return;
    }
    match node.kind() {
        "lifetime" | "type_identifier" | "identifier" => seen(node_text(node, text)),
        _ => {
            for child in node.named_children(&mut node.walk()) {
                names_used(child, function, text, seen);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    fn run(before: &str, after: &str, new_name: &str) -> Option<Finding> {
        let lang = Language::Rust;
        let (before_tree, after_tree) = (lang.parse(before), lang.parse(after));
        let created = symbols::outline(lang, &after_tree, after)
            .into_iter()
            .find(|s| s.name == new_name)
            .expect("the new function");
        check(
            "src/lib.rs",
            (before, &before_tree),
            3,
            (after, &after_tree),
            &created,
        )
    }

    const BEFORE: &str = "pub fn g<'a, 'b, I, J: Clone, const N: usize>(a: &'a I, b: &'b J) -> usize\nwhere &'b J: IntoIterator {\n    b.into_iter().count() + N\n}\n";

    #[test]
    fn generics_of_the_source_the_new_function_does_not_declare_are_errors() {
        // rust-analyzer's result: none declared.
        let after = "pub fn g<'a, 'b, I, J: Clone, const N: usize>(a: &'a I, b: &'b J) -> usize\nwhere &'b J: IntoIterator {\n    part(b)\n}\n\nfn part(b: &'b J) -> usize {\n    b.into_iter().count() + N\n}\n";
        let found = run(BEFORE, after, "part").expect("a finding");
        assert_eq!(found.line, 6);
        assert_eq!(found.kind, Some(w::UNDECLARED_GENERICS));
        assert!(
            found.message.contains("`'b`, `J` and `N`"),
            "{}",
            found.message
        );

        // All declared, with their bounds: nothing to say.
        let after = "pub fn g<'a, 'b, I, J: Clone, const N: usize>(a: &'a I, b: &'b J) -> usize\nwhere &'b J: IntoIterator {\n    part::<J, N>(b)\n}\n\nfn part<'b, J: Clone, const N: usize>(b: &'b J) -> usize where &'b J: IntoIterator {\n    b.into_iter().count() + N\n}\n";
        assert_eq!(run(BEFORE, after, "part"), None);
    }

    #[test]
    fn an_impl_around_the_new_function_and_nested_items_declare_their_own() {
        let before = "impl<T: Copy> W<T> {\n    fn get(&self) -> T {\n        self.0\n    }\n}\n";
        let after = "impl<T: Copy> W<T> {\n    fn get(&self) -> T {\n        self.part()\n    }\n\n    fn part(&self) -> T {\n        self.0\n    }\n}\n";
        // `get` declares nothing: its `T` is the impl's.
        assert_eq!(run(before, after, "part"), None);

        // The source's `T` named inside an item nested in the new function is that item's own.
        let before = "fn f<T: Default>() -> T {\n    let x = 1;\n    x + 1;\n    T::default()\n}\n";
        let after = "fn f<T: Default>() -> T {\n    let x = 1;\n    part(x);\n    T::default()\n}\n\nfn part(x: i32) {\n    fn inner<T>(t: T) -> T { t }\n    x + 1;\n}\n";
        assert_eq!(run(before, after, "part"), None);
    }
}
