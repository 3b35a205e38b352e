//! The languages candor knows (Rust and Python): grammars, file extensions, keywords, identifier
//! rules, syntax checking, and every fact the refactors ask of a syntax tree. Grammar node kinds
//! are spelled here and nowhere else: [`syntax::Syntax`] is what a refactor asks, [`rust`] and
//! [`python`] answer it. Pure: no disk, no terminal.

pub mod callee;
pub mod calls;
pub mod expressions;
pub mod finder;
pub mod handed_back;
pub mod incremental;
pub mod jumps;
pub mod lex;
pub mod locals;
pub mod names;
pub mod params;
pub mod partial;
pub mod python;
pub mod refs;
pub mod regions;
pub mod removal;
pub mod roles;
pub mod rust;
pub mod symbols;
pub mod syntax;
pub mod vars;

use tree_sitter::{Node, Parser, Tree};

/// A language candor can refactor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    Rust,
    Python,
}

impl crate::edit::SourceFile {
    /// The language of the file, from its path (declared here: `edit` knows no language).
    pub fn language(&self) -> Option<Language> {
        Language::from_path(&self.path)
    }
}

impl Language {
    pub const ALL: [Language; 2] = [Language::Rust, Language::Python];

    /// The language of a path, from its extension (`.rs`, `.py`, `.pyi`).
    pub fn from_path(path: &str) -> Option<Language> {
        let ext = path.rsplit_once('.').map(|(_, e)| e)?;
        Language::ALL
            .into_iter()
            .find(|lang| lang.extensions().contains(&ext))
    }

    pub fn name(self) -> &'static str {
        match self {
            Language::Rust => "Rust",
            Language::Python => "Python",
        }
    }

    pub fn extensions(self) -> &'static [&'static str] {
        match self {
            Language::Rust => &["rs"],
            Language::Python => &["py", "pyi"],
        }
    }

    /// The syntax facts of the language.
    pub fn syntax(self) -> &'static dyn syntax::Syntax {
        match self {
            Language::Rust => &rust::Rust,
            Language::Python => &python::Python,
        }
    }

    /// The language's answers to the references engine.
    pub fn resolver(self) -> &'static dyn refs::Resolver {
        match self {
            Language::Rust => &rust::refs::RustRefs,
            Language::Python => &python::refs::PythonRefs,
        }
    }

    pub fn grammar(self) -> tree_sitter::Language {
        match self {
            Language::Rust => tree_sitter_rust::LANGUAGE.into(),
            Language::Python => tree_sitter_python::LANGUAGE.into(),
        }
    }

    /// Parses `text` from scratch.
    pub fn parse(self, text: &str) -> Tree {
        self.parse_incremental(text, None)
    }

    /// Parses `text`, reusing `old` (already `edit`ed to match `text`) when given.
    pub fn parse_incremental(self, text: &str, old: Option<&Tree>) -> Tree {
        let mut parser = Parser::new();
        parser
            .set_language(&self.grammar())
            .expect("bundled grammar matches the tree-sitter ABI");
        parser
            .parse(text, old)
            .expect("parsing without a timeout or cancellation flag always yields a tree")
    }

    /// Reserved words that can never be used as a plain identifier.
    pub fn keywords(self) -> &'static [&'static str] {
        match self {
            Language::Rust => rust::KEYWORDS,
            Language::Python => python::KEYWORDS,
        }
    }

    pub fn is_keyword(self, word: &str) -> bool {
        self.keywords().contains(&word)
    }

    /// Checks that `name` can be used as a new function or parameter name. The error says why not.
    pub fn validate_identifier(self, name: &str) -> Result<(), String> {
        if name.is_empty() {
            return Err("the name is empty".to_string());
        }
        let mut chars = name.chars();
        let first = chars.next().expect("non-empty");
        if !(first == '_' || unicode_ident::is_xid_start(first)) {
            return Err(format!(
                "`{name}` is not a valid {} identifier: it must start with a letter or `_`",
                self.name()
            ));
        }
        if let Some(bad) = chars.find(|c| !unicode_ident::is_xid_continue(*c)) {
            return Err(format!(
                "`{name}` is not a valid {} identifier: `{bad}` is not allowed in a name",
                self.name()
            ));
        }
        if self == Language::Rust && name == "_" {
            return Err("`_` is not a usable Rust name".to_string());
        }
        if self.is_keyword(name) {
            return Err(format!("`{name}` is a {} keyword", self.name()));
        }
        Ok(())
    }

    /// `name` as the language compares names: Python after NFKC (PEP 3131: `ｏｔｈｅｒ` is
    /// `other`), Rust after NFC (rustc normalises identifiers so).
    pub fn normalized_name(self, name: &str) -> String {
        match self {
            Language::Python => crate::text::normalize::nfkc(name),
            Language::Rust => crate::text::normalize::nfc(name),
        }
    }

    /// Refuses a new name that is not already in that form: it would not be the name written.
    pub fn check_normal_form(self, name: &str) -> Result<(), String> {
        let normal = self.normalized_name(name);
        if normal == name {
            return Ok(());
        }
        Err(format!(
            "`{name}` is not in the form {} reads names in ({}): it reads it as `{normal}`; write `{normal}` instead",
            self.name(),
            self.normal_form()
        ))
    }

    /// The Unicode normalisation form the language compares names in.
    pub fn normal_form(self) -> &'static str {
        match self {
            Language::Python => "NFKC",
            Language::Rust => "NFC",
        }
    }
}

/// A place in the text where the parser found an error or had to invent a missing token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters.
    pub column: usize,
    pub description: String,
}

/// Every syntax error in `tree`, in document order. Iterative, so deeply nested code is fine.
pub fn syntax_errors(tree: &Tree, text: &str) -> Vec<SyntaxError> {
    let mut errors = Vec::new();
    if tree.language().node_kind_for_id(tree.root_node().kind_id()) == Some("module") {
        errors.extend(python::errors::empty_blocks(tree, text));
        let lexed = lex::lex(Language::Python, text);
        for error in python::errors::indentation_errors(text, &lexed) {
            if !errors.iter().any(|e| e.line == error.line) {
                errors.push(error);
            }
        }
    }
    if !tree.root_node().has_error() {
        return errors;
    }
    let mut cursor = tree.walk();
    loop {
        let node = cursor.node();
        let descend = if node.is_error() || node.is_missing() {
            let pos = node.start_position();
            let line_start = node.start_byte() - pos.column;
            let column = text
                .get(line_start..node.start_byte())
                .map_or(pos.column, |s| s.chars().count())
                + 1;
            let description = if node.is_missing() {
                format!("missing `{}`", node.kind())
            } else {
                let snippet: String = node_text(node, text)
                    .lines()
                    .next()
                    .unwrap_or("")
                    .chars()
                    .take(30)
                    .collect();
                format!("unexpected `{}`", snippet.trim())
            };
            errors.push(SyntaxError {
                line: pos.row + 1,
                column,
                description,
            });
            false
        } else {
            node.has_error()
        };
        if descend && cursor.goto_first_child() {
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                errors.sort_by_key(|e| (e.line, e.column));
                return errors;
            }
        }
    }
}

/// The source text of a node (empty when the node's range is not on char boundaries).
pub fn node_text<'a>(node: Node<'_>, text: &'a str) -> &'a str {
    text.get(node.byte_range()).unwrap_or("")
}

/// The tree-sitter points (row, byte column) of offsets of a text asked in increasing order:
/// one pass over the text however many are asked.
pub struct Points<'a> {
    bytes: &'a [u8],
    row: usize,
    line_start: usize,
    counted: usize,
}

impl<'a> Points<'a> {
    pub fn new(text: &'a str) -> Points<'a> {
        Points {
            bytes: text.as_bytes(),
            row: 0,
            line_start: 0,
            counted: 0,
        }
    }

    /// The point of byte `at`, which is not before the last one asked.
    pub fn at(&mut self, at: usize) -> tree_sitter::Point {
        for newline in memchr::memchr_iter(b'\n', &self.bytes[self.counted..at]) {
            self.row += 1;
            self.line_start = self.counted + newline + 1;
        }
        self.counted = at;
        tree_sitter::Point::new(self.row, at - self.line_start)
    }
}

/// The ancestors of `node`, nearest first (`node` itself left out).
pub fn ancestors<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    std::iter::successors(node.parent(), |n| n.parent())
}

/// The nearest ancestor of `node` of the node kind `kind`.
pub fn ancestor_of_kind<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    ancestors(node).find(|n| n.kind() == kind)
}

/// The alias an import clause of kind `clause` gives the name `node` (`g` in `f as g`) when it
/// is not the alias itself; only the path nodes of kind `path` may stand between them.
pub fn import_alias_of(node: Node<'_>, text: &str, clause: &str, path: &str) -> Option<String> {
    let found = ancestors(node).find(|n| n.kind() != path)?;
    if found.kind() != clause {
        return None;
    }
    let alias = found.child_by_field_name("alias")?;
    (alias.byte_range() != node.byte_range()).then(|| node_text(alias, text).to_string())
}

/// Visits every node of the tree in document order without recursion; `visit` returns whether
/// to descend into the node's children.
pub fn walk_tree<'t>(tree: &'t Tree, mut visit: impl FnMut(Node<'t>) -> bool) {
    walk_node(tree.root_node(), &mut visit);
}

/// Whether a node's text holds `word` (a substring test): the walks that look for a name skip
/// the subtrees that cannot contain it.
pub fn holding<'a>(text: &'a str, word: &str) -> impl Fn(Node<'_>) -> bool + 'a {
    let finder = memchr::memmem::Finder::new(word.as_bytes()).into_owned();
    move |node| {
        text.as_bytes()
            .get(node.byte_range())
            .is_some_and(|bytes| finder.find(bytes).is_some())
    }
}

/// Like [`walk_tree`], with each node's ancestors (root first): what [`Node::parent`] would
/// climb, without its walk down from the root at every step (quadratic in deep trees).
pub fn walk_tree_with_ancestors<'t>(
    tree: &'t Tree,
    visit: impl FnMut(Node<'t>, &[Node<'t>]) -> bool,
) {
    walk_node_with_ancestors(tree.root_node(), visit);
}

/// Like [`walk_node`], with each node's ancestors from `root` on (root first; empty for `root`
/// itself). [`up_from`] goes on above `root` when a caller needs to.
pub fn walk_node_with_ancestors<'t>(
    root: Node<'t>,
    mut visit: impl FnMut(Node<'t>, &[Node<'t>]) -> bool,
) {
    let mut cursor = root.walk();
    let mut ancestors: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        if visit(node, &ancestors) && cursor.goto_first_child() {
            ancestors.push(node);
            continue;
        }
        loop {
            if ancestors.is_empty() {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            ancestors.pop();
        }
    }
}

/// The ancestors of `node`, nearest first: those of `known` (root first, as the walks above
/// give them), then on up through [`Node::parent`], which is only asked when reached.
pub fn up_from<'t, 'a>(
    node: Node<'t>,
    known: &'a [Node<'t>],
) -> impl Iterator<Item = Node<'t>> + 'a {
    let mut above = Some(known.first().copied().unwrap_or(node));
    let beyond = std::iter::from_fn(move || {
        let parent = above?.parent();
        above = parent;
        parent
    });
    known.iter().rev().copied().chain(beyond)
}

/// Visits the nodes of the tree that overlap one of `ranges` (and only those: a node that does
/// not is not entered).
pub fn walk_overlapping<'t>(
    tree: &'t Tree,
    ranges: &[std::ops::Range<usize>],
    mut visit: impl FnMut(Node<'t>),
) {
    walk_tree(tree, |node| {
        let range = node.byte_range();
        let overlaps = ranges
            .iter()
            .any(|r| range.start < r.end && r.start < range.end);
        if overlaps {
            visit(node);
        }
        overlaps
    });
}

/// Like [`walk_tree`], from `root` (inclusive) down.
pub fn walk_node<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
    walk_node_with_ancestors(root, |node, _| visit(node));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn language_from_extension() {
        assert_eq!(Language::from_path("src/lib.rs"), Some(Language::Rust));
        assert_eq!(Language::from_path("pkg/mod.py"), Some(Language::Python));
        assert_eq!(Language::from_path("pkg/mod.pyi"), Some(Language::Python));
        assert_eq!(Language::from_path("web/app.js"), None);
        assert_eq!(Language::from_path("Makefile"), None);
    }

    #[test]
    fn identifiers_are_checked() {
        assert!(Language::Rust.validate_identifier("parse_header").is_ok());
        assert!(Language::Rust.validate_identifier("größe").is_ok());
        assert!(Language::Rust.validate_identifier("fn").is_err());
        assert!(Language::Rust.validate_identifier("async").is_err());
        assert!(Language::Rust.validate_identifier("1abc").is_err());
        assert!(Language::Rust.validate_identifier("a-b").is_err());
        assert!(Language::Rust.validate_identifier("_").is_err());
        assert!(Language::Python.validate_identifier("lambda").is_err());
        assert!(Language::Python.validate_identifier("None").is_err());
        assert!(Language::Python.validate_identifier("match").is_ok());
        assert!(Language::Python.validate_identifier("").is_err());
    }

    #[test]
    fn syntax_errors_are_located() {
        let text = "fn main() {\n    let x = ;\n}\n";
        let tree = Language::Rust.parse(text);
        let errors = syntax_errors(&tree, text);
        assert!(!errors.is_empty());
        assert_eq!(errors[0].line, 2);
        let ok = "def f():\n    return 1\n";
        assert!(syntax_errors(&Language::Python.parse(ok), ok).is_empty());
        // tree-sitter-python accepts a block with no statement; Python does not.
        for empty in [
            "def f():\nreturn 1\n",
            "class A:\n    # nothing\nx = 1\n",
            "if x:\n",
        ] {
            let errors = syntax_errors(&Language::Python.parse(empty), empty);
            assert!(!errors.is_empty(), "{empty:?}");
        }
        for fine in [
            "if x:\n    y = (1,\n  2)\n    s = \"\"\"\nno indent\n\"\"\"\nelse:\n\tpass\n",
            "class A:\n\n    # c\n    def f(self): return 1\n\n\ndef g(): pass\n",
            "x = [\n    1,\n]\nif a: b()\n",
            "def f(\n    a,  # one\n    b,  # two\n):  # header\n    pass\n",
        ] {
            assert!(
                syntax_errors(&Language::Python.parse(fine), fine).is_empty(),
                "{fine:?}"
            );
        }
    }

    #[test]
    fn walking_a_deeply_nested_tree_does_not_overflow() {
        let depth = 20_000;
        let text = format!("x = {}1{}\n", "(".repeat(depth), ")".repeat(depth));
        let tree = Language::Python.parse(&text);
        let mut count = 0usize;
        walk_tree(&tree, |_| {
            count += 1;
            true
        });
        assert!(count > depth);
        let _ = syntax_errors(&tree, &text);
    }
}
