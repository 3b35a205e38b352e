//! Rust members of a name: each place a field named `name` is declared, read, initialised or
//! matched, and each place a method (or associated function) named `name` is declared or called.
//! Syntactic, for the check that a rename stayed with one kind of symbol.

use tree_sitter::{Node, Tree};

use crate::lang::{holding, node_text, walk_tree_with_ancestors};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    Field,
    Method,
}

/// Every field or method site of `name` in `tree`: (byte offset of the name, kind), in order.
/// A plain name that is neither (a local, a free function) is left out.
pub fn member_sites(tree: &Tree, text: &str, name: &str) -> Vec<(usize, MemberKind)> {
    let mut sites = Vec::new();
    let holds = holding(text, name);
    walk_tree_with_ancestors(tree, |node, ancestors| {
        if !holds(node) {
            return false;
        }
        if node_text(node, text) == name
            && let Some(kind) = member_kind(node, ancestors)
        {
            sites.push((node.start_byte(), kind));
        }
        true
    });
    sites
}

fn member_kind(node: Node<'_>, ancestors: &[Node<'_>]) -> Option<MemberKind> {
    let parent = *ancestors.last()?;
    let grandparent = ancestors.len().checked_sub(2).map(|i| ancestors[i]);
    match (node.kind(), parent.kind()) {
        ("field_identifier", "field_declaration" | "field_initializer" | "field_pattern") => {
            Some(MemberKind::Field)
        }
        ("field_identifier", "field_expression") => {
            let called = grandparent.is_some_and(|g| {
                g.kind() == "call_expression" && g.child_by_field_name("function") == Some(parent)
            });
            Some(if called {
                MemberKind::Method
            } else {
                MemberKind::Field
            })
        }
        ("shorthand_field_identifier", _) => Some(MemberKind::Field),
        ("identifier", "shorthand_field_initializer") => Some(MemberKind::Field),
        ("identifier", "function_item" | "function_signature_item") => {
            let in_impl = grandparent.is_some_and(|g| g.kind() == "declaration_list");
            (in_impl && parent.child_by_field_name("name") == Some(node))
                .then_some(MemberKind::Method)
        }
        ("identifier", "scoped_identifier") => {
            (parent.child_by_field_name("name") == Some(node)).then_some(MemberKind::Method)
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    #[test]
    fn fields_and_methods_of_one_name() {
        let text = "struct Foo { i: u8 }\nimpl Foo {\n    fn i(&self) -> u8 { self.i }\n}\nfn f(x: Foo) -> u8 {\n    let Foo { i } = x;\n    let y = Foo { i: 1 };\n    x.i() + Foo::i(&y) + i\n}\n";
        let tree = Language::Rust.parse(text);
        let kinds: Vec<MemberKind> = member_sites(&tree, text, "i")
            .into_iter()
            .map(|(_, k)| k)
            .collect();
        use MemberKind::*;
        assert_eq!(
            kinds,
            vec![Field, Method, Field, Field, Field, Method, Method]
        );
    }
}
