//! Python side of move to file: module paths from file paths (packages are directories with
//! `__init__.py`; without them, a sibling module or a path from the root, `src/` dropped), the
//! names a module binds and a moved definition reads, the `from … import …` added back to the
//! source, and the imports of the old location found in other files.

use std::collections::BTreeMap;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::{At, Binding, ImportBack, MAX_FINDINGS_PER_KIND, Move, Note, file_name, parent_dir};
use crate::lang::calls::word_matches;
use crate::lang::symbols::{leading_trivia_start, outer_node};
use crate::lang::{Language, node_text, walk_tree};
use crate::lang::{holding, up_from, walk_tree_with_ancestors};
use crate::refactor::{RefactorError, Severity, Sources};
use crate::text::LineIndex;

/// How one module is imported from one importer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ModulePath {
    /// Dotted parts, e.g. `["pkg", "sub", "helpers"]`.
    pub parts: Vec<String>,
    pub basis: Basis,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Basis {
    /// From the top of a chain of packages (directories with `__init__.py`).
    Package,
    /// A module in the importer's own directory (run as scripts from there).
    SameDirectory,
    /// From the project root (a leading `src/` dropped): a guess that the root is on `sys.path`.
    Root,
}

impl ModulePath {
    pub fn dotted(&self) -> String {
        self.parts.join(".")
    }
}

fn has_init(sources: &dyn Sources, dir: &str, cache: &mut BTreeMap<String, bool>) -> bool {
    if let Some(known) = cache.get(dir) {
        return *known;
    }
    let exists = ["__init__.py", "__init__.pyi"].iter().any(|init| {
        let path = if dir.is_empty() {
            init.to_string()
        } else {
            format!("{dir}/{init}")
        };
        // A file that exists but cannot be read still makes the directory a package.
        !matches!(sources.file(&path), Ok(None))
    });
    cache.insert(dir.to_string(), exists);
    exists
}

fn stem(path: &str) -> &str {
    let name = file_name(path);
    name.strip_suffix(".pyi")
        .or_else(|| name.strip_suffix(".py"))
        .unwrap_or(name)
}

/// The dotted parts of the package chain above `path` (empty when its directory is no package).
fn package_chain(
    sources: &dyn Sources,
    path: &str,
    cache: &mut BTreeMap<String, bool>,
) -> Vec<String> {
    let dir = parent_dir(path);
    let dirs: Vec<&str> = if dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    let mut top = dirs.len();
    while top > 0 && has_init(sources, &dirs[..top].join("/"), cache) {
        top -= 1;
    }
    dirs[top..].iter().map(|s| s.to_string()).collect()
}

/// The module path by which `importer` imports `module_file`, or why there is none.
pub(super) fn module_path(
    sources: &dyn Sources,
    importer: &str,
    module_file: &str,
    cache: &mut BTreeMap<String, bool>,
) -> Result<ModulePath, String> {
    let chain = package_chain(sources, module_file, cache);
    let own = stem(module_file);
    let (mut parts, basis) = if !chain.is_empty() {
        (chain, Basis::Package)
    } else if own != "__init__" && parent_dir(importer) == parent_dir(module_file) {
        (Vec::new(), Basis::SameDirectory)
    } else {
        let dir = parent_dir(module_file);
        let mut dirs: Vec<String> = if dir.is_empty() {
            Vec::new()
        } else {
            dir.split('/').map(str::to_string).collect()
        };
        if dirs.first().is_some_and(|d| d == "src") {
            dirs.remove(0);
        }
        (dirs, Basis::Root)
    };
    if own != "__init__" {
        parts.push(own.to_string());
    }
    if parts.is_empty() {
        return Err(format!(
            "`{module_file}` is not inside a package, so it has no module name"
        ));
    }
    if let Some(bad) = parts
        .iter()
        .find(|p| Language::Python.validate_identifier(p).is_err())
    {
        return Err(format!(
            "`{bad}` (from the path `{module_file}`) is not a valid Python module name"
        ));
    }
    Ok(ModulePath { parts, basis })
}

/// The package a module's relative imports start from: its parts without the module's own name
/// (a package's `__init__` is its own package). `None` outside packages.
fn own_package(
    sources: &dyn Sources,
    path: &str,
    cache: &mut BTreeMap<String, bool>,
) -> Option<Vec<String>> {
    let chain = package_chain(sources, path, cache);
    (!chain.is_empty()).then_some(chain)
}

/// `from ..a.b import x` in a module of package `package` → `["…", "a", "b"]`.
fn resolve_relative(package: &[String], dots: usize, module: &str) -> Option<Vec<String>> {
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
fn from_module(statement: Node<'_>, text: &str, package: Option<&[String]>) -> Option<Vec<String>> {
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
fn imported_names(statement: Node<'_>, text: &str) -> Vec<(String, Option<String>)> {
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
fn module_level_statements<'t>(tree: &'t Tree) -> Vec<Node<'t>> {
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

pub(super) fn bindings(tree: &Tree, text: &str) -> Vec<Binding> {
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
    out
}

/// `a` and `b` of the target `a, (b, c.d)` — names bound by an assignment, not attributes.
fn identifiers_in(target: Node<'_>) -> Vec<Node<'_>> {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Reads the name.
    Use,
    /// Binds the name (definition, parameter, assignment target, import, `as` target).
    Bind,
    /// Not a free name at all (attribute, keyword argument name).
    Other,
}

fn is_field<'t>(parent: Node<'t>, field: &str, node: Node<'t>) -> bool {
    parent.child_by_field_name(field) == Some(node)
}

/// `up`: the ancestors of `node`, nearest first ([`up_from`]); only the first few are asked.
fn role<'t>(node: Node<'t>, up: impl Iterator<Item = Node<'t>>) -> Role {
    let mut up = up;
    let Some(parent) = up.next() else {
        return Role::Use;
    };
    match parent.kind() {
        "attribute" if is_field(parent, "attribute", node) => return Role::Other,
        "keyword_argument" if is_field(parent, "name", node) => return Role::Other,
        "function_definition" | "class_definition" if is_field(parent, "name", node) => {
            // A method's name is an attribute of its class, not a name its code can read.
            let in_class_body = outer_node(Language::Python, parent)
                .parent()
                .filter(|b| b.kind() == "block")
                .and_then(|b| b.parent())
                .is_some_and(|c| c.kind() == "class_definition");
            return if in_class_body {
                Role::Other
            } else {
                Role::Bind
            };
        }
        "parameters"
        | "lambda_parameters"
        | "typed_parameter"
        | "list_splat_pattern"
        | "dictionary_splat_pattern"
        | "as_pattern_target" => return Role::Bind,
        "default_parameter" | "typed_default_parameter" | "named_expression"
            if is_field(parent, "name", node) =>
        {
            return Role::Bind;
        }
        "global_statement" | "nonlocal_statement" => return Role::Use,
        _ => {}
    }
    // Inside an import, or on the left of an assignment or `for`, through patterns.
    let mut child = node;
    for ancestor in std::iter::once(parent).chain(up) {
        match ancestor.kind() {
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                return Role::Bind;
            }
            "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "parenthesized_expression"
            | "tuple"
            | "list" => {}
            "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
                return if is_field(ancestor, "left", child) {
                    Role::Bind
                } else {
                    Role::Use
                };
            }
            _ => return Role::Use,
        }
        child = ancestor;
    }
    Role::Use
}

/// Offsets of the uses of `name` left in the source once the moved code is gone (including an
/// `__all__` entry, which `from module import *` needs bound).
pub(super) fn remaining_uses(m: &Move<'_>, name: &str) -> Vec<usize> {
    let text = &m.source.text;
    let mut uses = Vec::new();
    // A use is the name: nodes whose text does not hold it are not entered.
    let holds_name = holding(text, name);
    walk_tree_with_ancestors(m.tree, |node, ancestors| {
        if node.kind() == "identifier"
            && node_text(node, text) == name
            && !m.moves(node.start_byte())
            && role(node, up_from(node, ancestors)) == Role::Use
        {
            uses.push(node.start_byte());
        }
        holds_name(node)
    });
    for range in dunder_all_strings(m.tree, text) {
        if !m.moves(range.start) && string_value(&text[range.clone()]) == Some(name) {
            uses.push(range.start);
        }
    }
    uses.sort_unstable();
    uses
}

/// The string literals listed in a module-level `__all__ = [...]`.
pub(super) fn dunder_all_strings(tree: &Tree, text: &str) -> Vec<Range<usize>> {
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
fn attribute_lookup_object<'t>(string: Node<'_>, text: &'t str) -> Option<&'t str> {
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

fn string_value(literal: &str) -> Option<&str> {
    let quote = literal.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    literal.strip_prefix(quote)?.strip_suffix(quote)
}

/// Names the moved code reads, without those it binds itself, with their first offset. Names it
/// declares `global` are left out: `global_notes` reports them (an import would not do).
pub(super) fn used_names(m: &Move<'_>) -> Vec<(String, usize)> {
    let text = &m.source.text;
    let mut used: Vec<(String, usize)> = Vec::new();
    let mut bound: Vec<String> = Vec::new();
    let globals: Vec<String> = global_declarations(m).into_iter().map(|(n, _)| n).collect();
    m.walk_moved(m.tree, |node| {
        if node.kind() != "identifier" || !m.moves(node.start_byte()) {
            return;
        }
        let name = node_text(node, text).to_string();
        match role(node, up_from(node, &[])) {
            Role::Use if !used.iter().any(|(n, _)| *n == name) => {
                used.push((name, node.start_byte()))
            }
            Role::Bind => bound.push(name),
            _ => {}
        }
    });
    used.retain(|(name, _)| !bound.contains(name) && !globals.contains(name));
    used
}

/// `global name` statements of the moved code: (name, offset).
fn global_declarations(m: &Move<'_>) -> Vec<(String, usize)> {
    let text = &m.source.text;
    let mut out = Vec::new();
    m.walk_moved(m.tree, |node| {
        if node.kind() == "global_statement" && m.moves(node.start_byte()) {
            let mut cursor = node.walk();
            for name in node.named_children(&mut cursor) {
                out.push((node_text(name, text).to_string(), name.start_byte()));
            }
        }
    });
    out
}

/// Module-level state that does not travel with the code: a moved function that rebinds a
/// global of the source (`global count`), code left in the source that rebinds a moved
/// variable, and module attributes (`__name__`, `__file__`) whose value changes with the module.
pub(super) fn global_notes(m: &Move<'_>) -> Vec<Note> {
    let text = &m.source.text;
    let source_name = &m.source.path;
    let target_name = &m.target_path;
    let moved = m.moved_names();
    let mut notes = Vec::new();
    for (name, offset) in global_declarations(m) {
        if moved.contains(&name.as_str()) {
            continue;
        }
        notes.push(Note::new(
            At::Moved(offset),
            Severity::Warning,
            format!(
                "`{}` rebinds the module variable `{name}` (`global {name}`); in {target_name} that is {target_name}'s own `{name}`, not {source_name}'s: move `{name}` along, or keep `{}` in {source_name}",
                m.symbol.name, m.symbol.name
            ),
        ));
    }
    // Code that stays and rebinds a moved variable (only nodes whose text holds `global` can).
    let holds_keyword = holding(text, "global");
    walk_tree(m.tree, |node| {
        if !holds_keyword(node) {
            return false;
        }
        if node.kind() == "global_statement" && !m.moves(node.start_byte()) {
            let mut cursor = node.walk();
            for name in node.named_children(&mut cursor) {
                let name_text = node_text(name, text);
                if moved.contains(&name_text) {
                    notes.push(Note::new(
                        At::Source(node.start_byte()),
                        Severity::Warning,
                        format!(
                            "{source_name} rebinds `{name_text}` here (`global {name_text}`); after the move it rebinds {source_name}'s imported copy, and {target_name}'s `{name_text}` keeps the old value"
                        ),
                    ));
                }
            }
        }
        true
    });
    let mut seen: Vec<&str> = Vec::new();
    m.walk_moved(m.tree, |node| {
        let name = node_text(node, text);
        if node.kind() == "identifier"
            && m.moves(node.start_byte())
            && matches!(name, "__name__" | "__file__" | "__package__" | "__spec__")
            && role(node, up_from(node, &[])) == Role::Use
            && !seen.contains(&name)
        {
            seen.push(name);
            notes.push(Note::new(
                At::Moved(node.start_byte()),
                Severity::Warning,
                format!(
                    "`{}` reads `{name}`, which is the module's own: after the move it describes {target_name}, not {source_name}",
                    m.symbol.name
                ),
            ));
        }
    });
    notes
}

/// Where an import goes in a module: after the last import of its leading block of imports
/// (the docstring, `from __future__`, and `try`/`if` blocks of imports belong to it), else after
/// the docstring, else at the top after a shebang, encoding line or a license comment block.
/// Returns the offset and the text to insert for `statement`; a new import group gets the blank
/// lines PEP 8 asks for before the code that follows once `removals` are gone.
fn import_insertion(
    tree: &Tree,
    text: &str,
    statement: &str,
    line_ending: &str,
    removals: &[Range<usize>],
) -> (usize, String) {
    let index = LineIndex::new(text);
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
        let (blanks, next) = super::blank_lines_from(text, at, removals);
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
    if block_end > line && block_end < count && super::layout::is_blank(line_text(block_end)) {
        line = block_end;
        while line < count && super::layout::is_blank(line_text(line)) {
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
fn is_import_block(node: Node<'_>) -> bool {
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
pub(super) fn insertion_point(tree: &Tree, text: &str) -> Option<usize> {
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
        let start = leading_trivia_start(Language::Python, last, text);
        Some(text[..start].rfind('\n').map_or(0, |i| i + 1))
    } else {
        None
    }
}

/// Blank lines around the moved code: two around definitions (PEP 8), one between plain
/// statements.
pub(super) fn separator(m: &Move<'_>, tree: &Tree, before: Option<usize>) -> usize {
    use crate::lang::symbols::SymbolKind;
    if matches!(m.symbol.kind, SymbolKind::Function | SymbolKind::Class) || before.is_some() {
        return 2;
    }
    let root = tree.root_node();
    let mut cursor = root.walk();
    let last = root
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .last();
    match last.map(|n| n.kind()) {
        Some("function_definition" | "class_definition" | "decorated_definition") => 2,
        _ => 1,
    }
}

/// Adds `from <target module> import <name>` to the source when it still uses the name.
pub(super) fn import_back(m: &Move<'_>, uses: &[usize]) -> Result<ImportBack, RefactorError> {
    let mut back = ImportBack::default();
    let name = m.symbol.name.as_str();
    let source = &m.source.path;
    let Some(&first_use) = uses.first() else {
        back.notes.push(Note::new(
            At::Source(m.pieces[0].bytes.start),
            Severity::Info,
            format!("{source} no longer uses `{name}` once it has moved; no import added"),
        ));
        return Ok(back);
    };
    let mut cache = BTreeMap::new();
    let module = match module_path(m.sources, source, &m.target_path, &mut cache) {
        Ok(module) => module,
        Err(reason) => {
            back.notes.push(Note::new(
                At::Source(first_use),
                Severity::Warning,
                format!(
                    "could not add an import of `{name}` to {source}, which still uses it here: {reason}; import it by hand"
                ),
            ));
            return Ok(back);
        }
    };
    let source_package = own_package(m.sources, source, &mut cache);
    if already_imports(
        m.tree,
        &m.source.text,
        source_package.as_deref(),
        &module.parts,
        name,
    ) {
        back.notes.push(Note::new(
            At::Source(first_use),
            Severity::Info,
            format!(
                "{source} already imports `{name}` from `{}`; no import added",
                module.dotted()
            ),
        ));
        return Ok(back);
    }
    let relative = relative_form(m.tree, source_package.as_deref(), &module);
    let statement = format!(
        "from {} import {name}",
        relative.unwrap_or_else(|| module.dotted())
    );
    let style = m.source_style;
    let (at, text) = import_insertion(
        m.tree,
        &m.source.text,
        &statement,
        style.line_ending,
        &m.removals,
    );
    back.source_inserts.push((at, text));
    let basis = match module.basis {
        Basis::Package => "",
        Basis::SameDirectory => " (a module of the same directory)",
        Basis::Root => " (module path from the project root: it assumes the root is on sys.path)",
    };
    let more = if uses.len() > 1 {
        format!(" ({} uses)", uses.len())
    } else {
        String::new()
    };
    back.notes.push(Note::new(
        At::Inserted {
            path: source.clone(),
            at,
            line_text: statement.clone(),
        },
        Severity::Info,
        format!("added `{statement}`{basis}: {source} still uses `{name}`{more}"),
    ));
    if let (Some(target), Some(tree)) = (m.target, m.target_tree)
        && let Some(line) = imports_module_at(
            m.sources,
            tree,
            &target.text,
            &m.target_path,
            source,
            &mut cache,
        )
    {
        back.notes.push(Note::new(
            At::Line {
                path: m.target_path.clone(),
                line,
            },
            Severity::Warning,
            format!(
                "{} imports from {source} here, and {source} now imports from {}: a circular import that fails if a name is used at import time",
                m.target_path, m.target_path
            ),
        ));
    }
    back.import_added = Some(statement);
    Ok(back)
}

/// Whether the module already has `from <module> import name` (absolute or relative).
fn already_imports(
    tree: &Tree,
    text: &str,
    package: Option<&[String]>,
    module: &[String],
    name: &str,
) -> bool {
    module_level_statements(tree).into_iter().any(|s| {
        s.kind() == "import_from_statement"
            && from_module(s, text, package).as_deref() == Some(module)
            && imported_names(s, text)
                .iter()
                .any(|(n, alias)| n == name && alias.is_none())
    })
}

/// `.helpers` when the source already uses relative imports and both modules are in one package.
fn relative_form(tree: &Tree, package: Option<&[String]>, module: &ModulePath) -> Option<String> {
    let package = package?;
    if module.basis != Basis::Package || package.first() != module.parts.first() {
        return None;
    }
    let uses_relative = module_level_statements(tree).into_iter().any(|s| {
        s.kind() == "import_from_statement"
            && s.child_by_field_name("module_name")
                .is_some_and(|m| m.kind() == "relative_import")
    });
    if !uses_relative {
        return None;
    }
    let common = package
        .iter()
        .zip(&module.parts)
        .take_while(|(a, b)| a == b)
        .count();
    let dots = ".".repeat(1 + package.len() - common);
    Some(format!("{dots}{}", module.parts[common..].join(".")))
}

/// The first line (1-based) where `file` imports the module `imported` (any form).
fn imports_module_at(
    sources: &dyn Sources,
    tree: &Tree,
    text: &str,
    file: &str,
    imported: &str,
    cache: &mut BTreeMap<String, bool>,
) -> Option<usize> {
    let module = module_path(sources, file, imported, cache).ok()?;
    let package = own_package(sources, file, cache);
    let dotted = module.dotted();
    module_level_statements(tree).into_iter().find_map(|s| {
        let hit = match s.kind() {
            "import_from_statement" => {
                from_module(s, text, package.as_deref()).as_deref() == Some(&module.parts[..])
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

/// Other files that import the name from the source module (or reach it as `module.name`, or
/// name `module.name` in a string such as a `mock.patch` target): nothing rewrites them.
pub(super) fn third_file_notes(
    m: &Move<'_>,
    import_added: bool,
) -> Result<Vec<Note>, RefactorError> {
    let Some(name) = m.importable_name() else {
        return Ok(Vec::new());
    };
    let mentioning = m.sources.files_mentioning(Language::Python, name)?;
    let mut cache = BTreeMap::new();
    let mut notes = Vec::new();
    let mut skipped = 0usize;
    let source = &m.source.path;
    for file in &mentioning.files {
        if file.path == *source || file.path == m.target_path {
            continue;
        }
        let Ok(old) = module_path(m.sources, &file.path, source, &mut cache) else {
            continue;
        };
        let new = module_path(m.sources, &file.path, &m.target_path, &mut cache)
            .map(|p| p.dotted())
            .unwrap_or_else(|_| m.target_path.clone());
        let old_dotted = old.dotted();
        let tree = crate::refactor::tree_of(m.sources, Language::Python, file);
        let package = own_package(m.sources, &file.path, &mut cache);
        let still_works = if import_added {
            format!("; it works only through the import added to {source}")
        } else {
            ", which no longer defines it".to_string()
        };
        let mut found: Vec<(usize, String)> = Vec::new();
        let mut module_aliases: Vec<String> = Vec::new();
        walk_tree(&tree, |node| {
            match node.kind() {
                "import_from_statement" => {
                    let from = from_module(node, &file.text, package.as_deref());
                    // `from pkg import util` (or `from . import util`) binds the old module.
                    if let Some(from) = &from {
                        for (imported, alias) in imported_names(node, &file.text) {
                            let mut module = from.clone();
                            module.push(imported.clone());
                            if module == old.parts {
                                module_aliases.push(alias.unwrap_or(imported));
                            }
                        }
                    }
                    if from.as_deref() == Some(&old.parts[..])
                        && imported_names(node, &file.text)
                            .iter()
                            .any(|(n, _)| n == name)
                    {
                        found.push((
                            node.start_position().row + 1,
                            format!(
                                "imports `{name}` from `{old_dotted}`{still_works}: change it to `from {new} import {name}`"
                            ),
                        ));
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
                                    .map(|n| node_text(n, &file.text)),
                                imported
                                    .child_by_field_name("alias")
                                    .map(|n| node_text(n, &file.text)),
                            ),
                            _ => (Some(node_text(imported, &file.text)), None),
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
                        .map(|o| node_text(o, &file.text));
                    let attribute = node
                        .child_by_field_name("attribute")
                        .map(|a| node_text(a, &file.text));
                    if attribute == Some(name)
                        && object.is_some_and(|o| module_aliases.iter().any(|a| a == o))
                    {
                        found.push((
                            node.start_position().row + 1,
                            format!(
                                "uses `{}.{name}`{still_works}: use `{new}.{name}`",
                                object.unwrap_or("")
                            ),
                        ));
                    }
                }
                "string" => {
                    let dotted = format!("{old_dotted}.{name}");
                    let literal = node_text(node, &file.text);
                    if !word_matches(literal, &dotted).is_empty() {
                        found.push((
                            node.start_position().row + 1,
                            format!("a string names `{dotted}` (a patch target or a dotted path?); `{name}` now lives in `{new}`"),
                        ));
                    } else if string_value(literal) == Some(name)
                        && let Some(object) = attribute_lookup_object(node, &file.text)
                        && module_aliases.iter().any(|a| a == object)
                    {
                        found.push((
                            node.start_position().row + 1,
                            format!("looks `{name}` up on `{object}` by name, which no longer defines it: use `{new}`"),
                        ));
                    }
                    return false;
                }
                _ => {}
            }
            true
        });
        for (line, message) in found {
            if notes.len() >= MAX_FINDINGS_PER_KIND {
                skipped += 1;
                continue;
            }
            notes.push(Note::new(
                At::Line {
                    path: file.path.clone(),
                    line,
                },
                Severity::Warning,
                message,
            ));
        }
    }
    if skipped > 0 {
        notes.push(Note::new(
            At::Source(m.symbol.range.start),
            Severity::Warning,
            format!(
                "…and {skipped} more places in other files that reach `{name}` through {source}"
            ),
        ));
    }
    if let Some((path, why)) = mentioning.skipped.first() {
        notes.push(Note::new(
            At::Source(m.symbol.range.start),
            Severity::Info,
            format!(
                "{} file(s) that mention `{name}` could not be searched for imports of it (first: {path}: {why})",
                mentioning.skipped.len()
            ),
        ));
    }
    Ok(notes)
}

/// The source's `from __future__ import …` statements (text, offset): they change how the moved
/// code is compiled (e.g. postponed annotations), so the code needs them where it goes.
fn future_imports(tree: &Tree, text: &str) -> Vec<(String, usize)> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() == "future_import_statement")
        .map(|n| (node_text(n, text).to_string(), n.start_byte()))
        .collect()
}

/// The start of a created target: the source's `__future__` imports and the blank lines after
/// them (two before a definition), or nothing.
pub(super) fn future_header(m: &Move<'_>) -> String {
    let futures = future_imports(m.tree, &m.source.text);
    if futures.is_empty() {
        return String::new();
    }
    let line_ending = m.source_style.line_ending;
    let mut header: String = futures
        .iter()
        .map(|(s, _)| format!("{s}{line_ending}"))
        .collect();
    let blank_lines = if matches!(m.symbol.kind, crate::lang::symbols::SymbolKind::Variable) {
        1
    } else {
        2
    };
    header.push_str(&line_ending.repeat(blank_lines));
    header
}

/// What the `__future__` imports became: copied into a created target, or missing from an
/// existing one.
pub(super) fn future_notes(m: &Move<'_>) -> Vec<Note> {
    let futures = future_imports(m.tree, &m.source.text);
    let mut notes = Vec::new();
    match (m.target, m.target_tree) {
        (None, _) => {
            for (statement, _) in &futures {
                notes.push(Note::new(
                    At::Line {
                        path: m.target_path.clone(),
                        line: 1,
                    },
                    Severity::Info,
                    format!(
                        "copied `{statement}` from {}: it changes how the moved code is compiled",
                        m.source.path
                    ),
                ));
            }
        }
        (Some(target), Some(tree)) => {
            let present = future_imports(tree, &target.text);
            for (statement, _) in &futures {
                let features: Vec<&str> = statement
                    .rsplit("import")
                    .next()
                    .unwrap_or("")
                    .split(',')
                    .map(str::trim)
                    .collect();
                let missing = features
                    .iter()
                    .any(|f| !present.iter().any(|(p, _)| !word_matches(p, f).is_empty()));
                if missing {
                    notes.push(Note::new(
                        At::Line { path: m.target_path.clone(), line: 1 },
                        Severity::Warning,
                        format!(
                            "{} has `{statement}` and {} does not: the moved code compiles differently there (e.g. annotations are evaluated when defined); add it at the top of {}",
                            m.source.path, m.target_path, m.target_path
                        ),
                    ));
                }
            }
        }
        _ => {}
    }
    notes
}

/// `__file__` in moved code names the target afterwards: a warning when the directory changes.
pub(super) fn file_relative_notes(m: &Move<'_>) -> Vec<Note> {
    let mut notes = Vec::new();
    let text = &m.source.text;
    let moves_dir = parent_dir(&m.source.path) != parent_dir(&m.target_path);
    m.walk_moved(m.tree, |node| {
        if node.kind() != "identifier" || !m.moves(node.start_byte()) || notes.len() >= 2 {
            return;
        }
        let name = node_text(node, text);
        let message = match name {
            "__file__" if moves_dir => format!(
                "`__file__` will name {} in `{}/`, not {} in `{}/`; paths built from it change",
                m.target_path,
                parent_dir(&m.target_path),
                m.source.path,
                parent_dir(&m.source.path)
            ),
            "__name__" => format!(
                "`__name__` will be the target module's name, not {}'s",
                m.source.path
            ),
            _ => return,
        };
        let severity = if name == "__file__" {
            Severity::Warning
        } else {
            Severity::Info
        };
        if !notes.iter().any(|n: &Note| n.message == message) {
            notes.push(Note::new(At::Moved(node.start_byte()), severity, message));
        }
    });
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refactor::MemorySources;

    fn path_of(sources: &MemorySources, importer: &str, module: &str) -> Result<String, String> {
        module_path(sources, importer, module, &mut BTreeMap::new()).map(|p| p.dotted())
    }

    #[test]
    fn module_paths_follow_packages_and_layouts() {
        let sources = MemorySources::new()
            .with("app.py", "")
            .with("tools/run.py", "")
            .with("src/pkg/__init__.py", "")
            .with("src/pkg/sub/__init__.py", "")
            .with("src/pkg/sub/core.py", "")
            .with("scripts/my-tool/x.py", "");
        assert_eq!(
            path_of(&sources, "app.py", "helpers.py").unwrap(),
            "helpers"
        );
        assert_eq!(
            path_of(&sources, "tools/run.py", "tools/util.py").unwrap(),
            "util"
        );
        assert_eq!(
            path_of(&sources, "app.py", "tools/util.py").unwrap(),
            "tools.util"
        );
        assert_eq!(
            path_of(&sources, "src/pkg/sub/core.py", "src/pkg/sub/helpers.py").unwrap(),
            "pkg.sub.helpers"
        );
        assert_eq!(
            path_of(&sources, "app.py", "src/pkg/__init__.py").unwrap(),
            "pkg"
        );
        assert_eq!(
            path_of(&sources, "app.py", "src/loose.py").unwrap(),
            "loose"
        );
        assert!(
            path_of(&sources, "app.py", "scripts/my-tool/y.py")
                .unwrap_err()
                .contains("`my-tool`")
        );
        assert!(path_of(&sources, "app.py", "__init__.py").is_err());
    }

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

    #[test]
    fn roles_of_identifiers() {
        let text = "def f(a, b=1, *c, d: int = 2):\n    x, y = a, g\n    for i in h: pass\n    with k() as w: pass\n    return o.p(q=r)\nclass C:\n    @staticmethod\n    def os():\n        return os.sep\n";
        let tree = Language::Python.parse(text);
        let mut uses = Vec::new();
        walk_tree(&tree, |n| {
            if n.kind() == "identifier" && role(n, up_from(n, &[])) == Role::Use {
                uses.push(node_text(n, text).to_string());
            }
            true
        });
        assert_eq!(
            uses,
            ["int", "a", "g", "h", "k", "o", "r", "staticmethod", "os"]
        );
        let os_def = text.find("def os").unwrap() + 4;
        let mut os_role = None;
        walk_tree(&tree, |n| {
            if n.start_byte() == os_def && n.kind() == "identifier" {
                os_role = Some(role(n, up_from(n, &[])));
            }
            true
        });
        assert_eq!(os_role, Some(Role::Other));
    }
}
