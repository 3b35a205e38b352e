//! The languages candor knows (Rust and Python): grammars, file extensions, keywords, identifier
//! rules and syntax checking. Pure: no disk, no terminal.

pub mod calls;
pub mod finder;
pub mod incremental;
pub mod lex;
pub mod locals;
pub mod partial;
mod python;
pub mod regions;
mod rust;
pub mod symbols;
pub mod traits;

use tree_sitter::{Node, Parser, Tree};

/// A language candor can refactor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Language {
    Rust,
    Python,
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

    /// Node kinds that hold a function definition.
    pub fn is_function_kind(self, kind: &str) -> bool {
        match self {
            Language::Rust => matches!(kind, "function_item" | "function_signature_item"),
            Language::Python => kind == "function_definition",
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
        errors.extend(python::empty_blocks(tree, text));
        let lexed = regions::lex(Language::Python, text);
        for error in python::indentation_errors(text, &lexed) {
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
