//! The outline of a file: its functions, methods, classes, structs, impls and other named items,
//! with the byte ranges the refactors need (the item, its leading docs/attributes/decorators, its
//! name) and `name_path`s like `Type/method`. Also resolves a user's symbol query to one symbol.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::{Language, node_text};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SymbolKind {
    Function,
    Method,
    Class,
    Struct,
    Enum,
    Union,
    Trait,
    Impl,
    Module,
    Const,
    Static,
    TypeAlias,
    Macro,
    Variable,
}

impl SymbolKind {
    pub fn is_function(self) -> bool {
        matches!(self, SymbolKind::Function | SymbolKind::Method)
    }

    /// A short label for outlines and status lines (`fn`, `class`, ...).
    pub fn label(self, lang: Language) -> &'static str {
        match (self, lang) {
            (SymbolKind::Function | SymbolKind::Method, Language::Rust) => "fn",
            (SymbolKind::Function | SymbolKind::Method, Language::Python) => "def",
            (SymbolKind::Class, _) => "class",
            (SymbolKind::Struct, _) => "struct",
            (SymbolKind::Enum, _) => "enum",
            (SymbolKind::Union, _) => "union",
            (SymbolKind::Trait, _) => "trait",
            (SymbolKind::Impl, _) => "impl",
            (SymbolKind::Module, _) => "mod",
            (SymbolKind::Const, _) => "const",
            (SymbolKind::Static, _) => "static",
            (SymbolKind::TypeAlias, _) => "type",
            (SymbolKind::Macro, _) => "macro",
            (SymbolKind::Variable, _) => "var",
        }
    }
}

/// One named item of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Symbol {
    pub kind: SymbolKind,
    pub name: String,
    /// Containers and name joined by `/`: `Type/method`, `outer/inner`, `module/func`.
    pub name_path: String,
    /// The item itself; for a decorated Python definition, including its decorators.
    pub range: Range<usize>,
    /// `range` widened to the doc comments, attributes and comments directly above the item.
    pub full_range: Range<usize>,
    pub name_range: Range<usize>,
    /// 1-based line of the name.
    pub line: usize,
    /// 1-based line where `full_range` starts.
    pub first_line: usize,
    /// 1-based line where the item ends.
    pub end_line: usize,
    /// Index of the enclosing symbol in the outline, if any.
    pub container: Option<usize>,
    /// Whether the item sits directly in the file (not in a class, impl, function or module).
    pub top_level: bool,
}

/// Every named item of the file in document order. Walks only the nodes that can hold an item
/// ([`may_hold_symbols`]), not the expressions of every function body.
pub fn outline(lang: Language, tree: &Tree, text: &str) -> Vec<Symbol> {
    outline_walking(lang, tree, text, true)
}

/// Whether [`outline`] lists a function or method named `name`, without building the outline:
/// only the places that spell `name` are looked at, each asked whether it is the name of a
/// function's definition (what the outline makes a function or a method of).
pub fn defines_function_named(tree: &Tree, text: &str, name: &str) -> bool {
    if name.is_empty() {
        return false;
    }
    let root = tree.root_node();
    memchr::memmem::find_iter(text.as_bytes(), name.as_bytes()).any(|at| {
        root.descendant_for_byte_range(at, at + name.len())
            .filter(|node| node.byte_range() == (at..at + name.len()))
            .and_then(|node| {
                let definition = node.parent()?;
                let is_function = matches!(
                    definition.kind(),
                    "function_item" | "function_signature_item" | "function_definition"
                );
                Some(is_function && definition.child_by_field_name("name") == Some(node))
            })
            .unwrap_or(false)
    })
}

/// [`outline`] visiting every node of the tree: the reference it is checked against
/// (`examples/regions_check.rs`).
#[doc(hidden)]
pub fn outline_of_every_node(lang: Language, tree: &Tree, text: &str) -> Vec<Symbol> {
    outline_walking(lang, tree, text, false)
}

fn outline_walking(lang: Language, tree: &Tree, text: &str, prune: bool) -> Vec<Symbol> {
    let mut symbols: Vec<Symbol> = Vec::new();
    let mut lines = super::calls::LineCounter::new(text);
    // The ancestors of the current node, root first, each with the innermost symbol among
    // itself and its own ancestors: parents and containers without `Node::parent` (which
    // searches down from the root every time).
    let mut ancestors: Vec<Level<'_>> = Vec::new();
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let parent = ancestors.last().map(|l| l.node);
        let grandparent = ancestors.len().checked_sub(2).map(|i| ancestors[i].node);
        let container = ancestors.last().and_then(|l| l.symbol);
        let mut this_symbol = None;
        if let Some((kind, name_node)) = classify(lang, node, parent, grandparent, text) {
            let kind = match (kind, container) {
                (SymbolKind::Function, Some(c))
                    if matches!(
                        symbols[c].kind,
                        SymbolKind::Impl | SymbolKind::Trait | SymbolKind::Class
                    ) =>
                {
                    SymbolKind::Method
                }
                (k, _) => k,
            };
            let name = match kind {
                SymbolKind::Impl => impl_label(node, text),
                _ => node_text(name_node, text).to_string(),
            };
            let segment = match kind {
                SymbolKind::Impl => super::rust::items::impl_type_name(node, text),
                _ => name.clone(),
            };
            let name_path = match container {
                Some(c) => format!("{}/{}", path_segment_of(&symbols[c]), segment),
                None => segment.clone(),
            };
            // The item among its siblings, and what holds it (see `outer_node`).
            let wrapped = parent.filter(|p| {
                (lang == Language::Python && p.kind() == "decorated_definition")
                    || (node.kind() == "assignment" && p.kind() == "expression_statement")
            });
            let (outer, outer_parent) = match wrapped {
                Some(p) => (p, grandparent),
                None => (node, parent),
            };
            let range = outer.byte_range();
            // Where `outer` sits among the walked siblings: `node` is not recorded yet; its
            // parent is the last child recorded one level up.
            let mut at = if wrapped.is_some() {
                ancestors
                    .len()
                    .checked_sub(2)
                    .map(|l| (l, ancestors[l].children.len() - 1))
            } else {
                ancestors
                    .len()
                    .checked_sub(1)
                    .map(|l| (l, ancestors[l].children.len()))
            };
            let full_start = trivia_start(lang, outer, text, |_| {
                let (level, index) = at?;
                let previous = match index.checked_sub(1) {
                    Some(i) => (level, i),
                    // First child of a block: the node before the block.
                    None if ancestors[level].node.kind() == "block" => {
                        let up = level.checked_sub(1)?;
                        (up, ancestors[up].children.len().checked_sub(2)?)
                    }
                    None => return None,
                };
                at = Some(previous);
                Some(ancestors[previous.0].children[previous.1])
            });
            let top_level = container.is_none() && is_file_level_under(lang, outer_parent);

            symbols.push(Symbol {
                kind,
                name,
                name_path: if kind == SymbolKind::Impl {
                    // An impl block is addressed by its type: `Type` lists its methods.
                    match container {
                        Some(c) => format!("{}/{}", path_segment_of(&symbols[c]), segment),
                        None => segment,
                    }
                } else {
                    name_path
                },
                full_range: full_start..range.end,
                name_range: name_node.byte_range(),
                line: name_node.start_position().row + 1,
                first_line: lines.line_of(full_start) + 1,
                end_line: node.end_position().row + 1,
                range,
                container,
                top_level,
            });
            this_symbol = Some(symbols.len() - 1);
        }
        if let Some(level) = ancestors.last_mut() {
            level.children.push(node);
        }
        let descend = !prune || may_hold_symbols(lang, node, parent.is_none(), text);
        if descend && cursor.goto_first_child() {
            ancestors.push(Level {
                node,
                symbol: this_symbol.or(container),
                children: Vec::new(),
            });
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return symbols;
            }
            ancestors.pop();
        }
    }
}

/// A node on the outline's way down: the innermost symbol among it and its ancestors, and its
/// children walked so far.
struct Level<'t> {
    node: Node<'t>,
    symbol: Option<usize>,
    children: Vec<Node<'t>>,
}

/// Whether an item of the outline can lie strictly inside `node`; a superset, read from the
/// text, so that skipping the other nodes changes nothing:
/// - Rust: items sit in the file, in blocks and in declaration lists, and the last two open
///   with `{`; a node without `{` in its text holds none (macro token trees hold tokens only);
/// - Python: definitions and classes contain `def` or `class`; module-level assignments sit in
///   expression statements.
///
/// Error nodes are always entered: recovery can put anything there.
fn may_hold_symbols(lang: Language, node: Node<'_>, is_root: bool, text: &str) -> bool {
    if is_root || node.is_error() {
        return true;
    }
    let body = node_text(node, text).as_bytes();
    match lang {
        Language::Rust => node.kind() != "token_tree" && memchr::memchr(b'{', body).is_some(),
        Language::Python => {
            node.kind() == "expression_statement"
                || memchr::memmem::find(body, b"def").is_some()
                || memchr::memmem::find(body, b"class").is_some()
        }
    }
}

/// The node that stands for the item among its siblings (a decorated definition for Python).
pub fn outer_node<'t>(lang: Language, node: Node<'t>) -> Node<'t> {
    if lang == Language::Python
        && let Some(parent) = node.parent()
        && parent.kind() == "decorated_definition"
    {
        return parent;
    }
    if node.kind() == "assignment"
        && let Some(parent) = node.parent()
        && parent.kind() == "expression_statement"
    {
        return parent;
    }
    node
}

fn path_segment_of(symbol: &Symbol) -> &str {
    symbol.name_path.rsplit('/').next().unwrap_or(&symbol.name)
}

/// Whether a node whose parent is `parent` sits directly in the file.
fn is_file_level_under(lang: Language, parent: Option<Node<'_>>) -> bool {
    parent.is_some_and(|p| match lang {
        Language::Rust => p.kind() == "source_file",
        Language::Python => p.kind() == "module",
    })
}

/// Whether `node` is a named item, with its kind and the node holding its name.
fn classify<'t>(
    lang: Language,
    node: Node<'t>,
    parent: Option<Node<'t>>,
    grandparent: Option<Node<'t>>,
    text: &str,
) -> Option<(SymbolKind, Node<'t>)> {
    let kind = match (lang, node.kind()) {
        (Language::Rust, "function_item" | "function_signature_item") => SymbolKind::Function,
        (Language::Rust, "struct_item") => SymbolKind::Struct,
        (Language::Rust, "enum_item") => SymbolKind::Enum,
        (Language::Rust, "union_item") => SymbolKind::Union,
        (Language::Rust, "trait_item") => SymbolKind::Trait,
        (Language::Rust, "impl_item") => {
            return Some((SymbolKind::Impl, node.child_by_field_name("type")?));
        }
        (Language::Rust, "mod_item") => SymbolKind::Module,
        (Language::Rust, "const_item") => SymbolKind::Const,
        (Language::Rust, "static_item") => SymbolKind::Static,
        (Language::Rust, "type_item") => SymbolKind::TypeAlias,
        (Language::Rust, "macro_definition") => SymbolKind::Macro,
        (Language::Python, "function_definition") => SymbolKind::Function,
        (Language::Python, "class_definition") => SymbolKind::Class,
        (Language::Python, "assignment") => {
            // Only `NAME = ...` statements directly in the module are outline entries.
            parent.filter(|p| p.kind() == "expression_statement")?;
            if !is_file_level_under(lang, grandparent) {
                return None;
            }
            let left = node.child_by_field_name("left")?;
            if left.kind() != "identifier" {
                return None;
            }
            return Some((SymbolKind::Variable, left));
        }
        _ => return None,
    };
    let name = node.child_by_field_name("name")?;
    if node_text(name, text).is_empty() {
        return None;
    }
    Some((kind, name))
}

fn impl_label(node: Node<'_>, text: &str) -> String {
    let ty = node
        .child_by_field_name("type")
        .map(|t| node_text(t, text))
        .unwrap_or("?");
    match node.child_by_field_name("trait") {
        Some(tr) => format!("impl {} for {}", node_text(tr, text), ty),
        None => format!("impl {ty}"),
    }
}

/// Start of the doc comments, attributes and comments directly above `node` (no blank line
/// between), or of `node` itself when there are none.
pub fn leading_trivia_start(lang: Language, node: Node<'_>, text: &str) -> usize {
    trivia_start(lang, node, text, previous_node)
}

/// [`leading_trivia_start`] with the way to the node before another given (the outline knows
/// the siblings it has walked, which saves tree-sitter's search for them).
fn trivia_start<'t>(
    lang: Language,
    node: Node<'t>,
    text: &str,
    mut previous: impl FnMut(Node<'t>) -> Option<Node<'t>>,
) -> usize {
    let mut start = node.start_byte();
    let mut current = node;
    // The first statement of a Python block: tree-sitter hangs the comments above it on the
    // header (`class A:` (comment) (block ...)), so look before the block.
    while let Some(prev) = previous(current) {
        let attached = match (lang, prev.kind()) {
            (Language::Rust, "attribute_item") => true,
            (Language::Rust, "line_comment" | "block_comment") => {
                !node_text(prev, text).starts_with("//!")
                    && !node_text(prev, text).starts_with("/*!")
            }
            (Language::Python, "comment") => true,
            _ => false,
        };
        if !attached || blank_line_between(text, prev.end_byte(), start) {
            break;
        }
        // A comment that trails code on its own line (`x = 1  # note`) belongs to that code.
        if !only_whitespace_before(text, prev.start_byte()) {
            break;
        }
        start = prev.start_byte();
        current = prev;
    }
    start
}

fn previous_node(node: Node<'_>) -> Option<Node<'_>> {
    node.prev_sibling().or_else(|| {
        let parent = node.parent()?;
        if parent.kind() == "block" {
            parent.prev_sibling()
        } else {
            None
        }
    })
}

fn blank_line_between(text: &str, from: usize, to: usize) -> bool {
    let gap = &text[from.min(to)..to];
    gap.matches('\n').count() > 1
}

fn only_whitespace_before(text: &str, at: usize) -> bool {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..at].chars().all(|c| c == ' ' || c == '\t')
}

/// What the user asked for: a plain name, a `Type/method` path, and optionally a position.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SymbolQuery {
    /// A name, or a name path such as `Type/method`.
    pub name: String,
    /// 1-based line that the symbol spans (its definition), to disambiguate.
    pub line: Option<usize>,
    /// 1-based column on `line` (characters), to disambiguate further.
    pub column: Option<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    #[error("no {wanted} named `{name}` in this file{}", hint(.similar))]
    NotFound {
        name: String,
        wanted: String,
        similar: Vec<String>,
    },
    #[error(
        "`{name}` is ambiguous: {} match ({}); pass `name_path` (e.g. `{}`) or `line` to pick one",
        .candidates.len(),
        .candidates.iter().map(|(p, l)| format!("{p} at line {l}")).collect::<Vec<_>>().join(", "),
        .candidates.first().map(|(p, _)| p.as_str()).unwrap_or("Type/name")
    )]
    Ambiguous {
        name: String,
        candidates: Vec<(String, usize)>,
    },
}

fn hint(similar: &[String]) -> String {
    if similar.is_empty() {
        String::new()
    } else {
        format!(
            "; did you mean {}?",
            similar
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

/// Finds the one symbol that `query` designates among those `accept`ed. `wanted` names the kind
/// of symbol in error messages ("function", "top-level item").
pub fn resolve<'a>(
    symbols: &'a [Symbol],
    query: &SymbolQuery,
    wanted: &str,
    accept: impl Fn(&Symbol) -> bool,
) -> Result<&'a Symbol, LookupError> {
    let wanted_path: Vec<&str> = query.name.split('/').filter(|s| !s.is_empty()).collect();
    let matches_path = |s: &Symbol| {
        let path: Vec<&str> = s.name_path.split('/').collect();
        path.len() >= wanted_path.len() && path[path.len() - wanted_path.len()..] == wanted_path[..]
    };
    let mut found: Vec<&Symbol> = symbols
        .iter()
        .filter(|s| accept(s) && !wanted_path.is_empty() && matches_path(s))
        .collect();
    if found.is_empty() {
        let last = wanted_path.last().copied().unwrap_or("");
        let mut similar: Vec<String> = symbols
            .iter()
            .filter(|s| accept(s))
            .filter(|s| {
                s.name == last
                    || s.name.eq_ignore_ascii_case(last)
                    || (last.len() >= 3
                        && (s.name.contains(last) || last.contains(s.name.as_str())))
            })
            .map(|s| s.name_path.clone())
            .collect();
        similar.dedup();
        similar.truncate(5);
        return Err(LookupError::NotFound {
            name: query.name.clone(),
            wanted: wanted.to_string(),
            similar,
        });
    }
    if found.len() > 1
        && let Some(line) = query.line
    {
        let on_line: Vec<&Symbol> = found.iter().copied().filter(|s| s.line == line).collect();
        found = if on_line.is_empty() {
            // The innermost symbol whose lines contain `line`.
            let mut spanning: Vec<&Symbol> = found
                .iter()
                .copied()
                .filter(|s| s.first_line <= line && line <= s.end_line)
                .collect();
            spanning.sort_by_key(|s| s.end_line - s.first_line);
            spanning.truncate(1);
            spanning
        } else {
            on_line
        };
    }
    match found.as_slice() {
        [one] => Ok(one),
        [] => Err(LookupError::NotFound {
            name: format!("{} at line {}", query.name, query.line.unwrap_or(0)),
            wanted: wanted.to_string(),
            similar: Vec::new(),
        }),
        many => Err(LookupError::Ambiguous {
            name: query.name.clone(),
            candidates: many.iter().map(|s| (s.name_path.clone(), s.line)).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outline_of(lang: Language, text: &str) -> Vec<Symbol> {
        outline(lang, &lang.parse(text), text)
    }

    #[test]
    fn a_function_is_named_exactly_where_the_outline_lists_one() {
        let python = "import helper

@deco
async def run(x):
    def inner(): return helper(x)
    return inner

class K:
    def meth(self):
        s = 'def helper'
        return self.run

runner = run
# def ghost(): pass
";
        let rust = "trait T {
    fn sig(&self);
    fn with_body(&self) {}
}

impl K {
    pub fn meth(&self) -> u8 { helper(1) }
}

macro_rules! m { () => { fn in_macro() {} } }

fn r#raw() {}

fn outer() { fn nested() {} let s = \"fn ghost\"; }

extern \"C\" { fn ext(); }
";
        let names = [
            "run",
            "inner",
            "meth",
            "helper",
            "runner",
            "K",
            "ghost",
            "sig",
            "with_body",
            "in_macro",
            "raw",
            "r#raw",
            "outer",
            "nested",
            "ext",
            "T",
            "",
        ];
        for (lang, text) in [(Language::Python, python), (Language::Rust, rust)] {
            let tree = lang.parse(text);
            let symbols = outline(lang, &tree, text);
            for name in names {
                let listed = symbols.iter().any(|s| {
                    matches!(s.kind, SymbolKind::Function | SymbolKind::Method) && s.name == name
                });
                assert_eq!(
                    defines_function_named(&tree, text, name),
                    listed,
                    "{lang:?} {name:?}"
                );
            }
        }
        // Some of each answer, or the comparison proves nothing.
        let tree = Language::Python.parse(python);
        assert!(defines_function_named(&tree, python, "inner"));
        assert!(!defines_function_named(&tree, python, "helper"));
    }

    #[test]
    fn rust_outline_has_methods_with_type_paths_and_docs() {
        let text = "/// Adds.\n#[inline]\nfn add(a: i32) -> i32 { a }\n\nstruct Foo;\n\nimpl<T> Display for &'a Foo<T> {\n    // fmt it\n    fn fmt(&self) {}\n}\n\nmod inner {\n    pub fn deep() {}\n}\n";
        let symbols = outline_of(Language::Rust, text);
        let paths: Vec<(&str, SymbolKind)> = symbols
            .iter()
            .map(|s| (s.name_path.as_str(), s.kind))
            .collect();
        assert_eq!(
            paths,
            vec![
                ("add", SymbolKind::Function),
                ("Foo", SymbolKind::Struct),
                ("Foo", SymbolKind::Impl),
                ("Foo/fmt", SymbolKind::Method),
                ("inner", SymbolKind::Module),
                ("inner/deep", SymbolKind::Function),
            ]
        );
        let add = &symbols[0];
        assert_eq!(
            &text[add.full_range.clone()],
            "/// Adds.\n#[inline]\nfn add(a: i32) -> i32 { a }"
        );
        assert_eq!(add.first_line, 1);
        assert_eq!(add.line, 3);
        assert!(add.top_level);
        let fmt = &symbols[3];
        assert!(text[fmt.full_range.clone()].starts_with("// fmt it"));
        assert!(!fmt.top_level);
        assert_eq!(symbols[2].name, "impl Display for &'a Foo<T>");
    }

    #[test]
    fn python_outline_has_decorators_and_class_methods() {
        let text = "import os\n\nLIMIT = 3\n\n@cache\ndef load(p):\n    def inner():\n        pass\n    return p\n\nclass Box:\n    # helper\n    @property\n    def size(self):\n        return 1\n";
        let symbols = outline_of(Language::Python, text);
        let paths: Vec<(&str, SymbolKind)> = symbols
            .iter()
            .map(|s| (s.name_path.as_str(), s.kind))
            .collect();
        assert_eq!(
            paths,
            vec![
                ("LIMIT", SymbolKind::Variable),
                ("load", SymbolKind::Function),
                ("load/inner", SymbolKind::Function),
                ("Box", SymbolKind::Class),
                ("Box/size", SymbolKind::Method),
            ]
        );
        assert!(text[symbols[1].range.clone()].starts_with("@cache\ndef load"));
        assert!(text[symbols[4].full_range.clone()].starts_with("# helper\n    @property"));
    }

    #[test]
    fn resolve_by_path_line_and_reports_ambiguity() {
        let text =
            "struct A;\nstruct B;\nimpl A {\n    fn new() {}\n}\nimpl B {\n    fn new() {}\n}\n";
        let symbols = outline_of(Language::Rust, text);
        let query = |name: &str, line: Option<usize>| SymbolQuery {
            name: name.to_string(),
            line,
            column: None,
        };
        let is_fn = |s: &Symbol| s.kind.is_function();
        assert_eq!(
            resolve(&symbols, &query("B/new", None), "function", is_fn)
                .unwrap()
                .line,
            7
        );
        assert_eq!(
            resolve(&symbols, &query("new", Some(4)), "function", is_fn)
                .unwrap()
                .line,
            4
        );
        let err = resolve(&symbols, &query("new", None), "function", is_fn).unwrap_err();
        assert!(
            matches!(err, LookupError::Ambiguous { ref candidates, .. } if candidates.len() == 2)
        );
        assert!(err.to_string().contains("A/new at line 4"));
        let err = resolve(&symbols, &query("nwe", None), "function", is_fn).unwrap_err();
        assert!(matches!(err, LookupError::NotFound { .. }));
    }
}
