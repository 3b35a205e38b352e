//! Python imports: what a module imports from another (the names, the aliases of the module
//! itself, a `*`), and the shape of the import a mention of a name stands in, with the edit
//! that removes it.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::modules::import_names_module;
use super::statements::next_statement;
use crate::edit::TextEdit;
use crate::lang::syntax::Binding;
use crate::lang::{node_text, walk_node};
use crate::text::surgery::{remove_item_lines, remove_list_item};

/// What the file at `path` imports from the module `module` (its parts, `module_parts`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FromModule {
    /// It imports `name` itself, unaliased, or everything with `*`.
    pub name_imported: bool,
    /// Expressions naming the module (`utils` in `utils.helper(x)`).
    pub module_aliases: Vec<String>,
    /// Names it imports (unaliased) from the module; `*` for a wildcard.
    pub imported: Vec<String>,
}

pub fn from_module(
    tree: &Tree,
    text: &str,
    path: &str,
    name: &str,
    module: &[String],
) -> FromModule {
    let mut found = FromModule::default();
    walk_node(tree.root_node(), |n| match n.kind() {
        "import_from_statement" => {
            let from = n
                .child_by_field_name("module_name")
                .map(|m| node_text(m, text))
                .unwrap_or("");
            let names_target = import_names_module(from, path, module);
            let wildcard = n
                .named_children(&mut n.walk())
                .any(|c| c.kind() == "wildcard_import");
            if names_target && wildcard {
                found.name_imported = true;
                found.imported.push("*".to_string());
            }
            let mut cursor = n.walk();
            for item in n.children_by_field_name("name", &mut cursor) {
                let (imported, alias) = match item.kind() {
                    "aliased_import" => (
                        item.child_by_field_name("name")
                            .map(|x| node_text(x, text))
                            .unwrap_or(""),
                        item.child_by_field_name("alias")
                            .map(|x| node_text(x, text)),
                    ),
                    _ => (node_text(item, text), None),
                };
                if names_target && imported == name && alias.is_none() {
                    found.name_imported = true;
                }
                if names_target && alias.is_none() {
                    found.imported.push(imported.to_string());
                }
                let submodule = if from.ends_with('.') {
                    format!("{from}{imported}")
                } else {
                    format!("{from}.{imported}")
                };
                if import_names_module(&submodule, path, module) {
                    found
                        .module_aliases
                        .push(alias.unwrap_or(imported).to_string());
                }
            }
            false
        }
        "import_statement" => {
            let mut cursor = n.walk();
            for item in n.children_by_field_name("name", &mut cursor) {
                match item.kind() {
                    "aliased_import" => {
                        let imported = item
                            .child_by_field_name("name")
                            .map(|x| node_text(x, text))
                            .unwrap_or("");
                        if import_names_module(imported, path, module) {
                            found.module_aliases.extend(
                                item.child_by_field_name("alias")
                                    .map(|a| node_text(a, text).to_string()),
                            );
                        }
                    }
                    _ => {
                        let imported = node_text(item, text);
                        if import_names_module(imported, path, module) {
                            found.module_aliases.push(imported.to_string());
                        }
                    }
                }
            }
            false
        }
        _ => true,
    });
    found
}

/// How a `from … import …` holds the name a mention is.
#[derive(Debug, Clone)]
pub enum ImportShape {
    /// `from m import name as other`.
    Aliased,
    /// One of the imported names: the edit removing it (with its comma, or the whole statement
    /// when it is the only one).
    Item(TextEdit),
}

/// The `from … import …` a mention of a name (`node`) stands in, with the module it imports
/// from (as written) — `None` for a mention that is no imported name (`import helper` names a
/// module, the module path itself).
pub fn import_at<'t>(node: Node<'t>, text: &'t str) -> Option<(&'t str, ImportShape)> {
    let statement = crate::lang::ancestor_of_kind(node, "import_from_statement")?;
    let module = statement.child_by_field_name("module_name");
    if module
        .is_some_and(|m| m.start_byte() <= node.start_byte() && node.end_byte() <= m.end_byte())
    {
        return None;
    }
    let module_text = module.map(|m| node_text(m, text)).unwrap_or("");
    let item = node.parent()?;
    if item.parent().is_some_and(|p| p.kind() == "aliased_import")
        || item.kind() == "aliased_import"
    {
        return Some((module_text, ImportShape::Aliased));
    }
    let items: Vec<Node<'_>> = statement
        .children_by_field_name("name", &mut statement.walk())
        .collect();
    let index = items.iter().position(|i| i.id() == item.id())?;
    let ranges: Vec<Range<usize>> = items.iter().map(|i| i.byte_range()).collect();
    let edit = remove_list_item(&ranges, index).unwrap_or_else(|| {
        let last = next_statement(statement).is_none();
        remove_item_lines(text, statement.byte_range(), last, "#")
    });
    Some((module_text, ImportShape::Item(edit)))
}

/// The alias an import gives the name `node` (`g` in `from m import f as g`), when it is not the
/// alias itself.
pub fn alias_of(node: Node<'_>, text: &str) -> Option<String> {
    crate::lang::import_alias_of(node, text, "aliased_import", "dotted_name")
}

/// `from ..a.b import x` in a module of package `package` → `["…", "a", "b"]`.
pub fn resolve_relative(package: &[String], dots: usize, module: &str) -> Option<Vec<String>> {
    let up = dots.checked_sub(1)?;
    let keep = package.len().checked_sub(up)?;
    let mut parts: Vec<String> = package[..keep].to_vec();
    parts.extend(
        module
            .split('.')
            .filter(|s| !s.is_empty())
            .map(str::to_string),
    );
    Some(parts)
}

/// The module an import-from statement reads from, as absolute parts.
pub fn from_module_parts(
    statement: Node<'_>,
    text: &str,
    package: Option<&[String]>,
) -> Option<Vec<String>> {
    let module = statement.child_by_field_name("module_name")?;
    match module.kind() {
        "dotted_name" => Some(
            node_text(module, text)
                .split('.')
                .map(|s| s.trim().to_string())
                .collect(),
        ),
        "relative_import" => {
            let raw = node_text(module, text);
            let dots = raw.chars().take_while(|c| *c == '.').count();
            resolve_relative(package?, dots, raw[dots..].trim())
        }
        _ => None,
    }
}

/// The names an import-from statement imports without renaming, with the alias map.
pub fn imported_names(statement: Node<'_>, text: &str) -> Vec<(String, Option<String>)> {
    let mut cursor = statement.walk();
    statement
        .children_by_field_name("name", &mut cursor)
        .filter_map(|n| match n.kind() {
            "dotted_name" => Some((node_text(n, text).to_string(), None)),
            "aliased_import" => Some((
                node_text(n.child_by_field_name("name")?, text).to_string(),
                n.child_by_field_name("alias")
                    .map(|a| node_text(a, text).to_string()),
            )),
            _ => None,
        })
        .collect()
}

/// Statements of the module level, descending into `if`/`try`/`with` blocks but not into
/// function or class bodies.
pub fn module_level_statements<'t>(tree: &'t Tree) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![tree.root_node()];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
        for child in children.into_iter().rev() {
            match child.kind() {
                "if_statement" | "try_statement" | "with_statement" | "else_clause"
                | "elif_clause" | "except_clause" | "finally_clause" | "block"
                | "for_statement" | "while_statement" => stack.push(child),
                _ => out.push(child),
            }
        }
    }
    out.sort_by_key(|n| n.start_byte());
    out
}

pub fn top_level_bindings(tree: &Tree, text: &str) -> Vec<Binding> {
    let mut out = Vec::new();
    let mut bind = |name: &str, offset: usize, imported: bool| {
        out.push(Binding {
            name: name.to_string(),
            offset,
            imported,
            public: true,
            module: false,
        })
    };
    for statement in module_level_statements(tree) {
        let offset = statement.start_byte();
        match statement.kind() {
            "import_statement" => {
                let mut cursor = statement.walk();
                for name in statement.children_by_field_name("name", &mut cursor) {
                    match name.kind() {
                        "dotted_name" => {
                            let first =
                                node_text(name, text).split('.').next().unwrap_or("").trim();
                            bind(first, offset, true);
                        }
                        "aliased_import" => {
                            if let Some(alias) = name.child_by_field_name("alias") {
                                bind(node_text(alias, text), offset, true);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "import_from_statement" => {
                for (name, alias) in imported_names(statement, text) {
                    bind(alias.as_deref().unwrap_or(&name), offset, true);
                }
            }
            "function_definition" | "class_definition" | "decorated_definition" => {
                let definition = statement
                    .child_by_field_name("definition")
                    .unwrap_or(statement);
                if let Some(name) = definition.child_by_field_name("name") {
                    bind(node_text(name, text), offset, false);
                }
            }
            "expression_statement" => {
                let mut cursor = statement.walk();
                for assignment in statement
                    .named_children(&mut cursor)
                    .filter(|c| c.kind() == "assignment")
                {
                    if let Some(left) = assignment.child_by_field_name("left") {
                        for name in identifiers_in(left) {
                            bind(node_text(name, text), offset, false);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    for (name, statement) in compound_targets(tree, text) {
        bind(node_text(name, text), statement, false);
    }
    out
}

/// Names the module binds other than by `=`, `def`, `class` or an import: `for` targets, `with …
/// as` and `except … as` names, and walrus targets anywhere at the module level (a walrus in a
/// comprehension binds in the module too); not inside functions, classes or lambdas. With the
/// offset of the statement that binds them, in document order. The statements are walked, not
/// the expressions, unless the text has a `:=`.
pub fn compound_targets<'t>(tree: &'t Tree, text: &str) -> Vec<(Node<'t>, usize)> {
    let mut out = Vec::new();
    let mut bind = |target: Node<'t>, statement: usize| {
        let target = match target.kind() {
            "as_pattern_target" => target.named_child(0).unwrap_or(target),
            _ => target,
        };
        out.extend(identifiers_in(target).into_iter().map(|n| (n, statement)));
    };
    let walrus = text.contains(":=");
    let mut stack = vec![(tree.root_node(), 0)];
    while let Some((node, statement)) = stack.pop() {
        let statement = if node
            .parent()
            .is_some_and(|p| matches!(p.kind(), "module" | "block") && node.kind() != "block")
        {
            node.start_byte()
        } else {
            statement
        };
        let descend = match node.kind() {
            "function_definition" | "class_definition" | "decorated_definition" | "lambda" => {
                continue;
            }
            "for_statement" => {
                if let Some(left) = node.child_by_field_name("left") {
                    bind(left, statement);
                }
                true
            }
            "as_pattern" => {
                if let Some(alias) = node.child_by_field_name("alias") {
                    bind(alias, statement);
                }
                walrus
            }
            "named_expression" => {
                if let Some(name) = node.child_by_field_name("name") {
                    bind(name, statement);
                }
                true
            }
            "module"
            | "block"
            | "if_statement"
            | "while_statement"
            | "with_statement"
            | "try_statement"
            | "else_clause"
            | "elif_clause"
            | "except_clause"
            | "except_group_clause"
            | "finally_clause"
            | "with_clause"
            | "with_item" => true,
            // An expression (or a simple statement) can hold a walrus only.
            _ => walrus,
        };
        if descend {
            let mut cursor = node.walk();
            let children: Vec<Node<'t>> = node.named_children(&mut cursor).collect();
            stack.extend(children.into_iter().rev().map(|c| (c, statement)));
        }
    }
    out.sort_by_key(|(n, _)| n.start_byte());
    out
}

/// `a` and `b` of the target `a, (b, c.d)` — names bound by an assignment, not attributes.
pub fn identifiers_in(target: Node<'_>) -> Vec<Node<'_>> {
    let mut out = Vec::new();
    let mut stack = vec![target];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "identifier" => out.push(node),
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "parenthesized_expression"
            | "list_splat_pattern"
            | "tuple"
            | "list" => {
                let mut cursor = node.walk();
                stack.extend(node.named_children(&mut cursor));
            }
            _ => {}
        }
    }
    out
}

/// The string literals listed in a module-level `__all__ = [...]`.
pub fn dunder_all_strings(tree: &Tree, text: &str) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for statement in module_level_statements(tree) {
        if statement.kind() != "expression_statement" {
            continue;
        }
        let mut cursor = statement.walk();
        for assignment in statement.named_children(&mut cursor) {
            let is_all = matches!(assignment.kind(), "assignment" | "augmented_assignment")
                && assignment
                    .child_by_field_name("left")
                    .is_some_and(|l| node_text(l, text) == "__all__");
            if let (true, Some(right)) = (is_all, assignment.child_by_field_name("right")) {
                let mut inner = right.walk();
                out.extend(
                    right
                        .named_children(&mut inner)
                        .filter(|n| n.kind() == "string")
                        .map(|n| n.byte_range()),
                );
            }
        }
    }
    out
}

/// `'name'` / `"name"` → `name` (no prefixes, no escapes).
/// `m` in `getattr(m, "name")` (or `hasattr`, `setattr`, `delattr`) when `string` is the name.
pub fn attribute_lookup_object<'t>(string: Node<'_>, text: &'t str) -> Option<&'t str> {
    let arguments = string.parent().filter(|p| p.kind() == "argument_list")?;
    let call = arguments.parent().filter(|c| c.kind() == "call")?;
    let function = call.child_by_field_name("function")?;
    if !matches!(
        node_text(function, text),
        "getattr" | "hasattr" | "setattr" | "delattr"
    ) {
        return None;
    }
    let object = arguments.named_child(0)?;
    (arguments.named_child(1) == Some(string)).then(|| node_text(object, text))
}

pub fn string_value(literal: &str) -> Option<&str> {
    let quote = literal.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    literal.strip_prefix(quote)?.strip_suffix(quote)
}

/// Where an import goes in a module: after the last import of its leading block of imports
/// (the docstring, `from __future__`, and `try`/`if` blocks of imports belong to it), else after
/// the docstring, else at the top after a shebang, encoding line or a license comment block.
/// Returns the offset and the text to insert for `statement`; a new import group gets the blank
/// lines PEP 8 asks for before the code that follows once `removals` are gone.
pub fn import_insertion(
    tree: &Tree,
    text: &str,
    statement: &str,
    line_ending: &str,
    removals: &[Range<usize>],
) -> (usize, String) {
    let index = crate::text::LineIndex::new(text);
    let root = tree.root_node();
    let mut cursor = root.walk();
    let children: Vec<Node<'_>> = root.named_children(&mut cursor).collect();
    let mut anchor: Option<Node<'_>> = None;
    let mut docstring: Option<Node<'_>> = None;
    let mut first_statement = true;
    for child in &children {
        match child.kind() {
            "comment" => continue,
            "expression_statement" if first_statement && is_docstring(*child) => {
                docstring = Some(*child)
            }
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                anchor = Some(*child)
            }
            "if_statement" | "try_statement" if is_import_block(*child) => anchor = Some(*child),
            _ => break,
        }
        first_statement = false;
    }
    let end_of_line = |node: Node<'_>| {
        let last_line = index.line_of(node.end_byte().max(node.start_byte() + 1) - 1);
        index.line_start(last_line + 1)
    };
    let missing_newline = |at: usize| {
        if at == text.len() && !text.is_empty() && !text.ends_with('\n') {
            line_ending
        } else {
            ""
        }
    };
    // Blank lines between the new group and the code after it: two before a definition.
    let suffix = |at: usize| {
        let (blanks, next) = crate::text::surgery::blank_lines_from(text, at, removals);
        let Some(next) = next else {
            return String::new();
        };
        let next_is_definition = children
            .iter()
            .find(|c| c.start_byte() >= next && c.kind() != "comment")
            .is_some_and(|c| {
                matches!(
                    c.kind(),
                    "function_definition" | "class_definition" | "decorated_definition"
                )
            });
        let wanted: usize = if next_is_definition { 2 } else { 1 };
        line_ending.repeat(wanted.saturating_sub(blanks))
    };
    if let Some(node) = anchor {
        let at = end_of_line(node);
        return (
            at,
            format!("{}{statement}{line_ending}", missing_newline(at)),
        );
    }
    if let Some(node) = docstring {
        let at = end_of_line(node);
        return (
            at,
            format!(
                "{}{line_ending}{statement}{line_ending}{}",
                missing_newline(at),
                suffix(at)
            ),
        );
    }
    // Skip a shebang and an encoding line, then a comment block followed by a blank line.
    let count = index.line_count();
    let line_text = |l: usize| &text[index.line_range(text, l)];
    let mut line = 0;
    while line < count.min(2) && {
        let t = line_text(line);
        t.starts_with("#!") || (t.starts_with('#') && t.contains("coding"))
    } {
        line += 1;
    }
    let mut block_end = line;
    while block_end < count && line_text(block_end).trim_start().starts_with('#') {
        block_end += 1;
    }
    if block_end > line && block_end < count && crate::text::surgery::is_blank(line_text(block_end))
    {
        line = block_end;
        while line < count && crate::text::surgery::is_blank(line_text(line)) {
            line += 1;
        }
    }
    let at = index.line_start(line);
    (
        at,
        format!(
            "{}{statement}{line_ending}{}",
            missing_newline(at),
            suffix(at)
        ),
    )
}

fn is_docstring(statement: Node<'_>) -> bool {
    statement.named_child_count() == 1
        && statement
            .named_child(0)
            .is_some_and(|c| c.kind() == "string")
}

/// A `try`/`if` block at the top that holds imports and no definitions.
pub fn is_import_block(node: Node<'_>) -> bool {
    let mut has_import = false;
    let mut has_definition = false;
    crate::lang::walk_node(node, |n| {
        match n.kind() {
            "import_statement" | "import_from_statement" => has_import = true,
            "function_definition" | "class_definition" => has_definition = true,
            _ => {}
        }
        true
    });
    has_import && !has_definition
}

/// Where a moved definition goes in an existing target: before a trailing
/// `if __name__ == "__main__":` block (code after it would not be defined when it runs), else at
/// the end.
pub fn main_guard_start(tree: &Tree, text: &str) -> Option<usize> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let last = root
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .last()?;
    let condition = last.child_by_field_name("condition")?;
    let condition_text = node_text(condition, text);
    if last.kind() == "if_statement"
        && condition_text.contains("__name__")
        && condition_text.contains("__main__")
    {
        let start =
            crate::lang::symbols::leading_trivia_start(crate::lang::Language::Python, last, text);
        Some(text[..start].rfind('\n').map_or(0, |i| i + 1))
    } else {
        None
    }
}

/// The source's `from __future__ import …` statements (text, offset): they change how the moved
/// code is compiled (e.g. postponed annotations), so the code needs them where it goes.
pub fn future_imports(tree: &Tree, text: &str) -> Vec<(String, usize)> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() == "future_import_statement")
        .map(|n| (node_text(n, text).to_string(), n.start_byte()))
        .collect()
}

/// Whether the module has `from <module> import name` (absolute or relative), unaliased.
pub fn imports_name_from(
    tree: &Tree,
    text: &str,
    package: Option<&[String]>,
    module: &[String],
    name: &str,
) -> bool {
    module_level_statements(tree).into_iter().any(|s| {
        s.kind() == "import_from_statement"
            && from_module_parts(s, text, package).as_deref() == Some(module)
            && imported_names(s, text)
                .iter()
                .any(|(n, alias)| n == name && alias.is_none())
    })
}

/// Whether the module uses relative imports (`from .x import y`).
pub fn uses_relative_imports(tree: &Tree) -> bool {
    module_level_statements(tree).into_iter().any(|s| {
        s.kind() == "import_from_statement"
            && s.child_by_field_name("module_name")
                .is_some_and(|m| m.kind() == "relative_import")
    })
}

/// The first line (1-based) where the module imports the module `parts` (dotted `dotted`), in
/// any form.
pub fn first_import_of(
    tree: &Tree,
    text: &str,
    package: Option<&[String]>,
    parts: &[String],
    dotted: &str,
) -> Option<usize> {
    module_level_statements(tree).into_iter().find_map(|s| {
        let hit = match s.kind() {
            "import_from_statement" => {
                from_module_parts(s, text, package).as_deref() == Some(parts)
            }
            "import_statement" => {
                let mut cursor = s.walk();
                s.children_by_field_name("name", &mut cursor).any(|n| {
                    let dotted_name = n.child_by_field_name("name").unwrap_or(n);
                    node_text(dotted_name, text) == dotted
                })
            }
            _ => false,
        };
        hit.then(|| s.start_position().row + 1)
    })
}

/// Whether the module's last statement (comments aside) is a definition.
pub fn ends_with_definition(tree: &Tree) -> bool {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let last = root
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .last();
    matches!(
        last.map(|n| n.kind()),
        Some("function_definition" | "class_definition" | "decorated_definition")
    )
}

/// How a file reaches a name through another module (see [`references_through`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Through {
    /// `from old import name`.
    FromImport,
    /// `from old import *`.
    Star,
    /// `alias.name`, the module imported as `alias`.
    Attribute(String),
    /// A string naming `old.name` (a patch target?).
    DottedString(String),
    /// `getattr(alias, "name")` and friends.
    Lookup(String),
}

/// One place where a module reaches a name through another module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    /// 1-based.
    pub line: usize,
    pub through: Through,
    /// The import statement, the whole `alias.name` expression, or the string.
    pub range: Range<usize>,
}

/// The places where a module reaches `name` through the module `old` (its parts and dotted
/// name), in document order. `package` is the module's own package, for its relative imports.
pub fn references_through(
    tree: &Tree,
    text: &str,
    package: Option<&[String]>,
    old: &[String],
    name: &str,
) -> Vec<Reference> {
    let old_dotted = old.join(".");
    let mut found: Vec<Reference> = Vec::new();
    let mut push = |node: Node<'_>, through: Through| {
        found.push(Reference {
            line: node.start_position().row + 1,
            through,
            range: node.byte_range(),
        })
    };
    let mut module_aliases: Vec<String> = Vec::new();
    crate::lang::walk_tree(tree, |node| {
        match node.kind() {
            "import_from_statement" => {
                let from = from_module_parts(node, text, package);
                // `from pkg import util` (or `from . import util`) binds the old module.
                if let Some(from) = &from {
                    for (imported, alias) in imported_names(node, text) {
                        let mut module = from.clone();
                        module.push(imported.clone());
                        if module == old {
                            module_aliases.push(alias.unwrap_or(imported));
                        }
                    }
                }
                if from.as_deref() == Some(old) {
                    if imported_names(node, text).iter().any(|(n, _)| n == name) {
                        push(node, Through::FromImport);
                    } else if node
                        .named_children(&mut node.walk())
                        .any(|c| c.kind() == "wildcard_import")
                    {
                        push(node, Through::Star);
                    }
                }
                return false;
            }
            "import_statement" => {
                let mut cursor = node.walk();
                for imported in node.children_by_field_name("name", &mut cursor) {
                    let (module, alias) = match imported.kind() {
                        "aliased_import" => (
                            imported
                                .child_by_field_name("name")
                                .map(|n| node_text(n, text)),
                            imported
                                .child_by_field_name("alias")
                                .map(|n| node_text(n, text)),
                        ),
                        _ => (Some(node_text(imported, text)), None),
                    };
                    if module == Some(old_dotted.as_str()) {
                        module_aliases.push(alias.unwrap_or(&old_dotted).to_string());
                    }
                }
                return false;
            }
            "attribute" => {
                let object = node
                    .child_by_field_name("object")
                    .map(|o| node_text(o, text));
                let attribute = node
                    .child_by_field_name("attribute")
                    .map(|a| node_text(a, text));
                if attribute == Some(name)
                    && let Some(object) = object.filter(|o| module_aliases.iter().any(|a| a == o))
                {
                    push(node, Through::Attribute(object.to_string()));
                }
            }
            "string" => {
                let dotted = format!("{old_dotted}.{name}");
                let literal = node_text(node, text);
                if !crate::lang::calls::word_matches(literal, &dotted).is_empty() {
                    push(node, Through::DottedString(dotted));
                } else if string_value(literal) == Some(name)
                    && let Some(object) = attribute_lookup_object(node, text)
                    && module_aliases.iter().any(|a| a == object)
                {
                    push(node, Through::Lookup(object.to_string()));
                }
                return false;
            }
            _ => {}
        }
        true
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    #[test]
    fn relative_imports_resolve_against_the_package() {
        let pkg = vec!["pkg".to_string(), "sub".to_string()];
        assert_eq!(
            resolve_relative(&pkg, 1, "helpers").unwrap(),
            ["pkg", "sub", "helpers"]
        );
        assert_eq!(
            resolve_relative(&pkg, 2, "other").unwrap(),
            ["pkg", "other"]
        );
        assert_eq!(resolve_relative(&pkg, 3, "").unwrap(), Vec::<String>::new());
        assert_eq!(resolve_relative(&pkg, 4, "x"), None);
    }

    fn insert(text: &str) -> String {
        let tree = Language::Python.parse(text);
        let (at, new) = import_insertion(&tree, text, "from h import f", "\n", &[]);
        format!("{}{new}{}", &text[..at], &text[at..])
    }

    #[test]
    fn imports_go_after_the_leading_imports_docstring_or_header() {
        assert_eq!(
            insert("import os\nimport sys\n\nx = f()\n"),
            "import os\nimport sys\nfrom h import f\n\nx = f()\n"
        );
        assert_eq!(
            insert("\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\n\nx = f()\n"),
            "\"\"\"Doc.\"\"\"\nfrom __future__ import annotations\nfrom h import f\n\nx = f()\n"
        );
        assert_eq!(
            insert("\"\"\"Doc.\"\"\"\n\n\ndef g():\n    f()\n"),
            "\"\"\"Doc.\"\"\"\n\nfrom h import f\n\n\ndef g():\n    f()\n"
        );
        assert_eq!(
            insert("#!/usr/bin/env python\nx = f()\n"),
            "#!/usr/bin/env python\nfrom h import f\n\nx = f()\n"
        );
        assert_eq!(
            insert("def g():\n    f()\n"),
            "from h import f\n\n\ndef g():\n    f()\n"
        );
        assert_eq!(
            insert("# Copyright\n# MIT\n\nx = f()\n"),
            "# Copyright\n# MIT\n\nfrom h import f\n\nx = f()\n"
        );
        assert_eq!(
            insert("# about x\nx = f()\n"),
            "from h import f\n\n# about x\nx = f()\n"
        );
        assert_eq!(
            insert("try:\n    import a\nexcept ImportError:\n    a = None\nx = f()\n"),
            "try:\n    import a\nexcept ImportError:\n    a = None\nfrom h import f\nx = f()\n"
        );
        assert_eq!(insert("import os"), "import os\nfrom h import f\n");
    }
}
