//! Where a Python module binds a name by an import, read so that a refactor can carry that
//! import to another module or take the name out of it: the statement's form (`import a.b as c`,
//! `from .m import n as a`), the `try`/`if` block around it, the edit that removes one name, and
//! the parts of a `from … import …` a rewrite replaces. Facts only: what to write is the
//! refactor's business.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::imports::module_level_statements;
use super::statements::next_statement;
use crate::edit::TextEdit;
use crate::lang::node_text;
use crate::text::surgery::{remove_item_lines, remove_list_items, remove_statement};

/// How an import statement binds one name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ImportForm {
    /// `import a.b` (binds `a`) or `import a.b as c`.
    Module {
        dotted: String,
        alias: Option<String>,
    },
    /// `from m import n` or `from m import n as a`; `module` as written (`pkg.m`, `..m`, `.`).
    From {
        module: String,
        name: String,
        alias: Option<String>,
    },
}

/// One name bound by a module-level import.
#[derive(Debug, Clone)]
pub struct ImportedName<'t> {
    pub form: ImportForm,
    /// The import statement.
    pub statement: Node<'t>,
    /// The top-level statement that holds it: the import itself, or a `try`/`if` around it.
    pub top: Node<'t>,
}

impl ImportedName<'_> {
    /// The import sits in a `try`/`if` block (an optional dependency, `if TYPE_CHECKING:`).
    pub fn in_block(&self) -> bool {
        self.top.id() != self.statement.id()
    }
}

/// The first module-level import (blocks of the module level included, function and class
/// bodies not) that binds `name`.
pub fn imported_name<'t>(tree: &'t Tree, text: &str, name: &str) -> Option<ImportedName<'t>> {
    module_level_statements(tree)
        .into_iter()
        .find_map(|statement| {
            let form = forms(statement, text)
                .into_iter()
                .find(|(bound, _, _)| bound == name)
                .map(|(_, form, _)| form)?;
            Some(ImportedName {
                form,
                statement,
                top: top_statement(statement),
            })
        })
}

/// Each name an import statement binds, with its form and its item's byte range.
fn forms(statement: Node<'_>, text: &str) -> Vec<(String, ImportForm, Range<usize>)> {
    let mut out = Vec::new();
    let mut cursor = statement.walk();
    let items: Vec<Node<'_>> = statement
        .children_by_field_name("name", &mut cursor)
        .collect();
    match statement.kind() {
        "import_statement" => {
            for item in items {
                let (dotted, alias) = item_parts(item, text);
                let bound = alias
                    .clone()
                    .unwrap_or_else(|| dotted.split('.').next().unwrap_or("").trim().to_string());
                out.push((
                    bound,
                    ImportForm::Module { dotted, alias },
                    item.byte_range(),
                ));
            }
        }
        "import_from_statement" => {
            let module = statement
                .child_by_field_name("module_name")
                .map(|m| node_text(m, text).to_string())
                .unwrap_or_default();
            for item in items {
                let (name, alias) = item_parts(item, text);
                let bound = alias.clone().unwrap_or_else(|| name.clone());
                let form = ImportForm::From {
                    module: module.clone(),
                    name,
                    alias,
                };
                out.push((bound, form, item.byte_range()));
            }
        }
        _ => {}
    }
    out
}

/// `a.b as c` → (`a.b`, `c`); `a.b` → (`a.b`, none).
fn item_parts(item: Node<'_>, text: &str) -> (String, Option<String>) {
    match item.kind() {
        "aliased_import" => (
            item.child_by_field_name("name")
                .map(|n| node_text(n, text).to_string())
                .unwrap_or_default(),
            item.child_by_field_name("alias")
                .map(|a| node_text(a, text).to_string()),
        ),
        _ => (node_text(item, text).to_string(), None),
    }
}

/// The child of the module that holds `node`.
fn top_statement(node: Node<'_>) -> Node<'_> {
    let mut current = node;
    while let Some(parent) = current.parent() {
        if parent.kind() == "module" {
            return current;
        }
        current = parent;
    }
    current
}

/// The edits that take `names` out of their import statement: their items with the commas, or
/// the whole statement when it binds nothing else. `narrow` keeps the blank lines around a
/// removed statement (when something is inserted right there); otherwise the spacing of the
/// neighbours stays as after any removed item.
pub fn names_removal(
    text: &str,
    imported: &ImportedName<'_>,
    names: &[&str],
    narrow: bool,
) -> Vec<TextEdit> {
    let items = forms(imported.statement, text);
    let ranges: Vec<Range<usize>> = items.iter().map(|(_, _, r)| r.clone()).collect();
    let indices: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, (bound, _, _))| names.contains(&bound.as_str()))
        .map(|(i, _)| i)
        .collect();
    if let Some(edits) = remove_list_items(&ranges, &indices) {
        return edits;
    }
    let range = imported.statement.byte_range();
    vec![if narrow {
        remove_statement(text, range, "#")
    } else {
        let last = next_statement(imported.statement).is_none();
        remove_item_lines(text, range, last, "#")
    }]
}

/// The edits that take the imported names at `indices` out of the `from … import …` statement
/// `statement`: the items, or the whole statement's lines when none is left.
pub fn from_items_removal(text: &str, statement: &FromImport, indices: &[usize]) -> Vec<TextEdit> {
    let ranges: Vec<Range<usize>> = statement.items.iter().map(|(_, _, r)| r.clone()).collect();
    remove_list_items(&ranges, indices)
        .unwrap_or_else(|| vec![remove_statement(text, statement.range.clone(), "#")])
}

/// The parts of a `from … import …` statement a rewrite replaces.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromImport {
    /// The module as written, and where.
    pub module: String,
    pub module_range: Range<usize>,
    /// The imported names: (name, alias, the item's range).
    pub items: Vec<(String, Option<String>, Range<usize>)>,
    /// The statement's range, and its indentation (the text before it on its line).
    pub range: Range<usize>,
    pub indent: String,
}

/// The `from … import …` statement at `range` (as a reference search reports it).
pub fn from_import_at(tree: &Tree, text: &str, range: &Range<usize>) -> Option<FromImport> {
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end)?;
    while node.kind() != "import_from_statement" {
        node = node.parent()?;
    }
    let module = node.child_by_field_name("module_name")?;
    let items = forms(node, text)
        .into_iter()
        .filter_map(|(_, form, range)| match form {
            ImportForm::From { name, alias, .. } => Some((name, alias, range)),
            ImportForm::Module { .. } => None,
        })
        .collect();
    let line_start = text[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    Some(FromImport {
        module: node_text(module, text).to_string(),
        module_range: module.byte_range(),
        items,
        range: node.byte_range(),
        indent: text[line_start..node.start_byte()].to_string(),
    })
}

/// Where a statement ends, so that a new statement can follow it on the next line: the end of
/// its last line (after a trailing comment), and whether the file ends without a newline there.
pub fn end_of_statement_line(text: &str, statement: &Range<usize>) -> (usize, bool) {
    match text[statement.end..].find('\n') {
        Some(at) => (statement.end + at + 1, false),
        None => (text.len(), true),
    }
}

/// The names a module-level statement binds, when it is an import or an import block (what
/// copying it into another module would bind there).
pub fn names_bound_by(statement: Node<'_>, text: &str) -> Vec<String> {
    let mut names = Vec::new();
    crate::lang::walk_node(statement, |n| {
        if matches!(n.kind(), "import_statement" | "import_from_statement") {
            names.extend(forms(n, text).into_iter().map(|(bound, _, _)| bound));
            return false;
        }
        if n.kind() == "assignment"
            && let Some(left) = n.child_by_field_name("left")
        {
            names.extend(
                super::imports::identifiers_in(left)
                    .into_iter()
                    .map(|id| node_text(id, text).to_string()),
            );
        }
        !matches!(n.kind(), "function_definition" | "class_definition")
    });
    names
}

/// The identifiers a statement reads outside its imports (the condition of an
/// `if TYPE_CHECKING:` block, the names an `except` clause catches).
pub fn names_read_by(statement: Node<'_>, text: &str) -> Vec<String> {
    let mut names = Vec::new();
    crate::lang::walk_node(statement, |n| {
        if matches!(n.kind(), "import_statement" | "import_from_statement") {
            return false;
        }
        if n.kind() == "identifier"
            && super::names::role(n, crate::lang::up_from(n, &[]))
                == crate::lang::names::NameRole::Use
        {
            let name = node_text(n, text).to_string();
            if !names.contains(&name) {
                names.push(name);
            }
        }
        true
    });
    names
}

/// Whether a use of a name at `offset` runs only when a function is called (inside the body of a
/// `def` or a `lambda` that starts inside `range`), not when the module is imported (a base
/// class, a decorator, a default value, an annotation, a class body).
pub fn runs_at_call_time(tree: &Tree, range: &Range<usize>, offset: usize) -> bool {
    let Some(mut node) = tree.root_node().descendant_for_byte_range(offset, offset) else {
        return false;
    };
    while let Some(parent) = node.parent() {
        if parent.start_byte() < range.start {
            return false;
        }
        if matches!(parent.kind(), "function_definition" | "lambda")
            && parent
                .child_by_field_name("body")
                .is_some_and(|b| b.id() == node.id())
        {
            return true;
        }
        node = parent;
    }
    false
}

/// The module name of the top-level `import <dotted>` statement (for a plain name, also `from
/// pkg import <name>`) that imports only that module under its own name (its range), when every
/// use of `dotted` in the file is one of `rewritten` uses `dotted.name` (offsets of their
/// start): a rewrite of those uses can rewrite the import itself.
pub fn sole_module_import(
    tree: &Tree,
    text: &str,
    dotted: &str,
    rewritten: &[usize],
) -> Option<Range<usize>> {
    let same = |n: Node<'_>| {
        node_text(n, text)
            .split('.')
            .map(str::trim)
            .eq(dotted.split('.'))
    };
    // `import a.b`, or for a plain name also `from pkg import b`: one name, no alias.
    let sole_name = |s: &Node<'_>| -> Option<Range<usize>> {
        let name = match s.kind() {
            "import_statement" if s.named_child_count() == 1 => s.named_child(0)?,
            "import_from_statement" if !dotted.contains('.') => {
                let mut cursor = s.walk();
                let names: Vec<Node<'_>> = s.children_by_field_name("name", &mut cursor).collect();
                match names.as_slice() {
                    [one] => *one,
                    _ => return None,
                }
            }
            _ => return None,
        };
        (name.kind() == "dotted_name" && same(name)).then(|| name.byte_range())
    };
    let name_range = module_level_statements(tree).iter().find_map(sole_name)?;
    let mut other_uses = false;
    crate::lang::walk_node(tree.root_node(), |n| {
        if other_uses || matches!(n.kind(), "import_statement" | "import_from_statement") {
            return false;
        }
        if n.kind() == "attribute" && same(n) {
            other_uses |= !rewritten.contains(&n.start_byte());
            return false;
        }
        // `pkg` alone (`pkg.text` reached through it some other way) keeps the import too.
        if n.kind() == "identifier" && !dotted.contains('.') && node_text(n, text) == dotted {
            other_uses |= !rewritten.contains(&n.start_byte());
        }
        true
    });
    (!other_uses).then_some(name_range)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    #[test]
    fn a_module_import_serving_only_rewritten_uses_is_found() {
        let text = "import os\nimport pkg.text\n\n\ndef run(s):\n    return pkg.text.shout(s) + pkg . text.shout(s)\n";
        let tree = Language::Python.parse(text);
        let first = text.find("pkg.text.shout").unwrap();
        let second = text.find("pkg . text").unwrap();
        let found = sole_module_import(&tree, text, "pkg.text", &[first, second]).unwrap();
        assert_eq!(&text[found], "pkg.text");
        // Another use keeps it.
        assert!(sole_module_import(&tree, text, "pkg.text", &[first]).is_none());
        let more = format!("{text}\n\ndef other():\n    return pkg.text.whisper\n");
        let tree = Language::Python.parse(&more);
        assert!(sole_module_import(&tree, &more, "pkg.text", &[first, second]).is_none());
        // `import pkg.text as t` is not the module under its own name.
        let relative = "from . import text\nfrom .text import whisper\n\nx = text.shout(1)\n";
        let tree = Language::Python.parse(relative);
        let at = relative.find("text.shout").unwrap();
        let found = sole_module_import(&tree, relative, "text", &[at]).unwrap();
        assert_eq!(found.start, relative.find("text\n").unwrap());
        let two = "from . import text, other\n\nx = text.shout(1)\n";
        let tree = Language::Python.parse(two);
        let at = two.find("text.shout").unwrap();
        assert!(sole_module_import(&tree, two, "text", &[at]).is_none());
        let aliased = "import pkg.text as t\n";
        let tree = Language::Python.parse(aliased);
        assert!(sole_module_import(&tree, aliased, "pkg.text", &[]).is_none());
    }

    fn apply(text: &str, edits: Vec<TextEdit>) -> String {
        let edits = crate::edit::validate(text, edits).unwrap();
        crate::edit::apply(text, &edits)
    }

    #[test]
    fn imports_are_found_by_the_name_they_bind() {
        let text = "import os.path\nimport numpy as np\nfrom .util import (\n    helper,\n    other as o,\n)\ntry:\n    import simplejson as json\nexcept ImportError:\n    import json\n";
        let tree = Language::Python.parse(text);
        let os = imported_name(&tree, text, "os").unwrap();
        assert_eq!(
            os.form,
            ImportForm::Module {
                dotted: "os.path".into(),
                alias: None
            }
        );
        let o = imported_name(&tree, text, "o").unwrap();
        assert_eq!(
            o.form,
            ImportForm::From {
                module: ".util".into(),
                name: "other".into(),
                alias: Some("o".into())
            }
        );
        assert!(!o.in_block());
        let json = imported_name(&tree, text, "json").unwrap();
        assert!(json.in_block());
        assert_eq!(json.top.kind(), "try_statement");
        assert!(imported_name(&tree, text, "path").is_none());
        assert_eq!(
            names_bound_by(json.top, text),
            vec!["json".to_string(), "json".to_string()]
        );
        assert_eq!(names_read_by(json.top, text), vec!["ImportError"]);
    }

    #[test]
    fn one_name_leaves_its_statement() {
        let text = "import os, sys\nfrom a import (\n    b,\n    c,\n)\nimport re\n\nx = 1\n";
        let tree = Language::Python.parse(text);
        let sys = imported_name(&tree, text, "sys").unwrap();
        assert_eq!(
            apply(text, names_removal(text, &sys, &["sys"], false)),
            "import os\nfrom a import (\n    b,\n    c,\n)\nimport re\n\nx = 1\n"
        );
        assert_eq!(
            apply(text, names_removal(text, &sys, &["sys", "os"], false)),
            "from a import (\n    b,\n    c,\n)\nimport re\n\nx = 1\n"
        );
        let b = imported_name(&tree, text, "b").unwrap();
        assert_eq!(
            apply(text, names_removal(text, &b, &["b"], false)),
            "import os, sys\nfrom a import (\n    c,\n)\nimport re\n\nx = 1\n"
        );
        let re = imported_name(&tree, text, "re").unwrap();
        assert_eq!(
            apply(text, names_removal(text, &re, &["re"], false)),
            "import os, sys\nfrom a import (\n    b,\n    c,\n)\n\nx = 1\n"
        );
        let alone = "import re\n\n\ndef f():\n    pass\n";
        let tree = Language::Python.parse(alone);
        let re = imported_name(&tree, alone, "re").unwrap();
        assert_eq!(
            apply(alone, names_removal(alone, &re, &["re"], false)),
            "def f():\n    pass\n"
        );
        assert_eq!(
            apply(alone, names_removal(alone, &re, &["re"], true)),
            "\n\ndef f():\n    pass\n"
        );
    }

    #[test]
    fn from_imports_are_read_for_a_rewrite() {
        let text = "def f():\n    from pkg.a import x, y as z  # note\n    return x\n";
        let tree = Language::Python.parse(text);
        let at = text.find("from").unwrap();
        let found = from_import_at(&tree, text, &(at..at + 4)).unwrap();
        assert_eq!(found.module, "pkg.a");
        assert_eq!(&text[found.module_range.clone()], "pkg.a");
        assert_eq!(found.indent, "    ");
        assert_eq!(found.items.len(), 2);
        assert_eq!(found.items[1].1.as_deref(), Some("z"));
        let (end, no_newline) = end_of_statement_line(text, &found.range);
        assert_eq!(&text[end..], "    return x\n");
        assert!(!no_newline);
        assert_eq!(
            apply(text, from_items_removal(text, &found, &[0])),
            "def f():\n    from pkg.a import y as z  # note\n    return x\n"
        );
        assert_eq!(
            apply(text, from_items_removal(text, &found, &[0, 1])),
            "def f():\n    return x\n"
        );
    }

    #[test]
    fn call_time_uses_are_told_from_import_time_uses() {
        let text =
            "@deco\nclass A(Base):\n    x = K\n\n    def m(self, d=D):\n        return helper(d)\n";
        let tree = Language::Python.parse(text);
        let range = 0..text.len();
        let at = |word: &str| text.find(word).unwrap();
        assert!(!runs_at_call_time(&tree, &range, at("deco")));
        assert!(!runs_at_call_time(&tree, &range, at("Base")));
        assert!(!runs_at_call_time(&tree, &range, at("K")));
        assert!(!runs_at_call_time(&tree, &range, at("D)")));
        assert!(runs_at_call_time(&tree, &range, at("helper")));
    }
}
