//! Facts for taking an item out of a file: where it sits among its siblings (is anything after
//! it in its container, is it the only statement of a Python block), how an import of it is
//! removed (the edit, or why it cannot be), and how its entry leaves a Python `__all__` list.
//! Pure: a tree and its text in, data and edits out.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::Language;
use crate::edit::TextEdit;
use crate::text::surgery::{remove_item_lines, remove_list_item};

/// Where an item sits among its siblings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Placement {
    /// Nothing but comments and the container's end follow it.
    pub last_in_container: bool,
    /// Python: it is the only statement (comments aside) of its block, which then needs `pass`.
    pub alone_in_block: bool,
}

/// The outermost node whose range is exactly `range` below the block that holds it, if any.
fn node_spanning<'t>(tree: &'t Tree, range: &Range<usize>) -> Option<Node<'t>> {
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.start)?;
    let mut found = None;
    loop {
        // A block that holds only the item has its range too; the item is inside it.
        if node.start_byte() < range.start
            || node.end_byte() > range.end
            || matches!(node.kind(), "block" | "declaration_list")
        {
            break;
        }
        if node.byte_range() == *range && node.parent().is_some() {
            found = Some(node);
        }
        match node.parent() {
            Some(parent) => node = parent,
            None => break,
        }
    }
    found
}

/// Where the item whose node spans exactly `range` sits (the outline's `Symbol::range`).
pub fn placement(lang: Language, tree: &Tree, range: &Range<usize>) -> Placement {
    let Some(node) = node_spanning(tree, range) else {
        return Placement::default();
    };
    let comment = |n: Node<'_>| n.kind().ends_with("comment");
    let mut next = node.next_named_sibling();
    while next.is_some_and(comment) {
        next = next.and_then(|n| n.next_named_sibling());
    }
    let alone_in_block = lang == Language::Python
        && node.parent().is_some_and(|parent| {
            parent.kind() == "block"
                && parent
                    .named_children(&mut parent.walk())
                    .all(|c| c.id() == node.id() || comment(c))
        });
    Placement {
        last_in_container: next.is_none(),
        alone_in_block,
    }
}

/// Why an import of the item cannot simply be removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImportKept {
    /// `from m import f as g`, `use m::f as g`: the alias may be what is used.
    Aliased,
    /// Rust: the only item of a nested `{...}` list.
    NestedList,
    /// Any other form (`import m.f`, a glob, a path candor does not take apart).
    OtherForm,
}

/// How the import whose name is at `range` goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImportRemoval {
    /// The edit removing the name (with its comma), or the whole statement when it is its only
    /// name; or why it stays.
    pub edit: Result<TextEdit, ImportKept>,
    /// Rust `pub use`, or a Python import in an `__init__.py`: a re-export.
    pub reexport: bool,
}

/// The removal of the import (or re-export) that binds the name at `range` in `text`
/// (the file at `path`); `None` when the name there is in no import.
pub fn import_removal(
    lang: Language,
    tree: &Tree,
    text: &str,
    path: &str,
    range: &Range<usize>,
) -> Option<ImportRemoval> {
    let node = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end)?;
    match lang {
        Language::Python => {
            let (_, shape) = super::python::imports::import_at(node, text)?;
            let edit = match shape {
                super::python::imports::ImportShape::Aliased => Err(ImportKept::Aliased),
                super::python::imports::ImportShape::Item(edit) => Ok(edit),
            };
            Some(ImportRemoval {
                edit,
                reexport: path.ends_with("__init__.py"),
            })
        }
        Language::Rust => {
            use super::rust::imports::ImportShape;
            let import = super::rust::imports::import_at(node, text, path)?;
            let edit = match import.shape {
                ImportShape::Whole => {
                    let last = import.declaration.next_named_sibling().is_none();
                    Ok(remove_item_lines(
                        text,
                        import.declaration.byte_range(),
                        last,
                        "//",
                    ))
                }
                ImportShape::ListItem(Some(edit)) => Ok(edit),
                ImportShape::ListItem(None) => Err(ImportKept::NestedList),
                ImportShape::Aliased => Err(ImportKept::Aliased),
                ImportShape::Other => Err(ImportKept::OtherForm),
            };
            Some(ImportRemoval {
                edit,
                reexport: import.public,
            })
        }
    }
}

/// The removal of the `__all__` entry whose name is at `range` (inside its string): the string
/// with its comma, or everything between the brackets when it is the only entry
/// (`__all__ = []` stays).
pub fn dunder_all_removal(tree: &Tree, range: &Range<usize>) -> Option<TextEdit> {
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end)?;
    while node.kind() != "string" {
        node = node.parent()?;
    }
    let list = node
        .parent()
        .filter(|p| matches!(p.kind(), "list" | "tuple"))?;
    let items: Vec<Range<usize>> = list
        .named_children(&mut list.walk())
        .filter(|c| !c.kind().ends_with("comment"))
        .map(|c| c.byte_range())
        .collect();
    let index = items.iter().position(|r| *r == node.byte_range())?;
    // The only entry: everything between the brackets goes (a trailing comma too).
    let inside = items[index].start..list.end_byte().saturating_sub(1);
    Some(remove_list_item(&items, index).unwrap_or_else(|| TextEdit::delete(inside)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(text: &str, edit: &TextEdit) -> String {
        let mut out = text.to_string();
        out.replace_range(edit.range.clone(), &edit.new_text);
        out
    }

    #[test]
    fn an_all_entry_leaves_with_its_comma_and_the_last_one_leaves_an_empty_list() {
        let text = "__all__ = [\"a\", \"f\", \"b\"]\n";
        let tree = Language::Python.parse(text);
        let at = text.find("f\"").unwrap();
        let edit = dunder_all_removal(&tree, &(at..at + 1)).unwrap();
        assert_eq!(apply(text, &edit), "__all__ = [\"a\", \"b\"]\n");
        let text = "__all__ = ('f',)\n";
        let tree = Language::Python.parse(text);
        let at = text.find("f'").unwrap();
        let edit = dunder_all_removal(&tree, &(at..at + 1)).unwrap();
        assert_eq!(apply(text, &edit), "__all__ = ()\n");
    }

    #[test]
    fn placement_tells_the_last_item_and_the_lone_statement() {
        let text = "class A:\n    def f(self):\n        pass\n\n\ndef g():\n    pass\n";
        let tree = Language::Python.parse(text);
        let f = text.find("def f").unwrap()..text.find("        pass").unwrap() + 12;
        assert_eq!(
            placement(Language::Python, &tree, &f),
            Placement {
                last_in_container: true,
                alone_in_block: true
            }
        );
    }
}
