//! Call sites and other references of a function name in one parsed file: the shared search
//! behind inline, change signature and the project-wide call-site search. Purely syntactic: a
//! call to another function with the same name is found too (the caveats say so).

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::finder::NodeFinder;
use super::{Language, node_text, walk_tree};

/// How the function is named at a call site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallForm {
    /// `name(...)`
    Plain,
    /// `receiver.name(...)`
    Method { receiver: Range<usize> },
    /// `path::name(...)` (Rust) — `qualifier` is the text before the last `::`.
    Path { qualifier: String },
}

/// One argument of a call, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Argument {
    /// The whole argument (`x`, `key=x`, `*xs`).
    pub range: Range<usize>,
    /// The value part (`x` in `key=x`); equals `range` for a positional argument.
    pub value_range: Range<usize>,
    /// Python keyword argument name.
    pub keyword: Option<String>,
    /// `*args` / `**kwargs` in Python.
    pub splat: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSite {
    /// The whole call expression.
    pub range: Range<usize>,
    /// The callee expression (`obj.name`, `Type::name`, `name::<T>`).
    pub callee_range: Range<usize>,
    /// The name token itself.
    pub name_range: Range<usize>,
    /// The argument list including its parentheses.
    pub arguments_range: Range<usize>,
    pub args: Vec<Argument>,
    pub form: CallForm,
    /// 1-based line of the name.
    pub line: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReferenceKind {
    /// The name used as a value, not called (`map(name, xs)`, `let f = name;`).
    Use,
    /// The name in an import or `use` declaration.
    Import,
    /// A whole-word match inside a string literal.
    InString,
    /// A whole-word match inside a comment.
    InComment,
    /// Python decorator `@name` (applied, but not as a call we can rewrite).
    Decorator,
}

/// A mention of the name that is not a call site (and not a definition's own name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub range: Range<usize>,
    /// 1-based line.
    pub line: usize,
    pub kind: ReferenceKind,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Mentions {
    pub calls: Vec<CallSite>,
    pub references: Vec<Reference>,
}

/// Every call of a function called `name` in the file, and every other mention of the name.
/// Names of definitions (the `fn name`/`def name` itself) are neither.
///
/// Looks only at the whole-word occurrences of `name` in the text, each located in the tree, so
/// the cost follows the occurrences rather than the size of the file; the answer is that of
/// [`find_mentions_walk`], which visits every node.
pub fn find_mentions(lang: Language, tree: &Tree, text: &str, name: &str) -> Mentions {
    let mut mentions = Mentions::default();
    if name.is_empty() {
        return mentions;
    }
    let offsets = word_matches(text, name);
    let root = tree.root_node();
    let mut lines = LineCounter::new(text);
    // The offsets come in order: the finder climbs back from one mention only as far as the next
    // one needs, which keeps nested mentions (`f(f(f(..)))`) linear.
    let mut finder = NodeFinder::new(tree);
    // For each node of the finder's path: the outermost string or comment among it and its
    // ancestors.
    let mut in_text: Vec<Option<ReferenceKind>> = Vec::new();
    for offset in offsets {
        let end = offset + name.len();
        in_text.truncate(finder.seek(offset, end));
        let path = finder.path();
        for node in &path[in_text.len()..] {
            let outer = in_text.last().copied().flatten();
            in_text.push(outer.or_else(|| text_kind_of(lang, *node)));
        }
        let node = *path.last().unwrap_or(&root);
        // Inside a string or a comment (the outermost one, as a walk from the root meets it).
        let text_kind = in_text.last().copied().flatten();
        if let Some(kind) = text_kind {
            mentions.references.push(Reference {
                range: offset..end,
                line: lines.line_of(offset) + 1,
                kind,
            });
            continue;
        }
        if !matches!(classify_leaf(lang, node), Leaf::Name)
            || node.byte_range() != (offset..end)
            || node_text(node, text) != name
        {
            continue;
        }
        let ancestors = &path[..path.len() - 1];
        let call = call_of_name(lang, ancestors, node)
            .and_then(|call| call_site(lang, call, text, name))
            .filter(|call| call.name_range == (offset..end));
        match call {
            Some(call) => mentions.calls.push(call),
            None if !defines(lang, ancestors.last().copied(), node) => {
                mentions.references.push(Reference {
                    range: node.byte_range(),
                    line: node.start_position().row + 1,
                    kind: kind_among(lang, ancestors),
                })
            }
            None => {}
        }
    }
    // Calls sharing a start (`a.f().f()`) come outer first, as a walk from the root meets them.
    mentions
        .calls
        .sort_by_key(|c| (c.range.start, std::cmp::Reverse(c.range.end)));
    mentions.references.sort_by_key(|r| r.range.start);
    mentions
}

fn text_kind_of(lang: Language, node: Node<'_>) -> Option<ReferenceKind> {
    match classify_leaf(lang, node) {
        Leaf::Text(kind) => Some(kind),
        _ => None,
    }
}

/// The call expression whose callee is named by `name` (`name(..)`, `x.name(..)`,
/// `path::name(..)`, `name::<T>(..)`), climbing the way [`callee_name`] descends; `ancestors`
/// are those of `name`, root first.
fn call_of_name<'t>(lang: Language, ancestors: &[Node<'t>], name: Node<'t>) -> Option<Node<'t>> {
    let mut up = ancestors.len();
    let mut callee = name;
    if let Some(&parent) = ancestors.last() {
        let field = match (lang, parent.kind()) {
            (Language::Rust, "field_expression") => Some("field"),
            (Language::Rust, "scoped_identifier") => Some("name"),
            (Language::Python, "attribute") => Some("attribute"),
            _ => None,
        };
        if field.is_some_and(|f| parent.child_by_field_name(f) == Some(name)) {
            callee = parent;
            up -= 1;
        }
    }
    while let Some(&parent) = up.checked_sub(1).and_then(|i| ancestors.get(i)) {
        if lang == Language::Rust
            && parent.kind() == "generic_function"
            && parent.child_by_field_name("function") == Some(callee)
        {
            callee = parent;
            up -= 1;
        } else {
            break;
        }
    }
    let call = *up.checked_sub(1).and_then(|i| ancestors.get(i))?;
    let is_call = matches!(
        (lang, call.kind()),
        (Language::Rust, "call_expression") | (Language::Python, "call")
    );
    (is_call && call.child_by_field_name("function") == Some(callee)).then_some(call)
}

/// 0-based line numbers of increasing offsets, counting newlines only once.
pub(crate) struct LineCounter<'t> {
    text: &'t [u8],
    offset: usize,
    line: usize,
}

impl<'t> LineCounter<'t> {
    pub(crate) fn new(text: &'t str) -> LineCounter<'t> {
        LineCounter {
            text: text.as_bytes(),
            offset: 0,
            line: 0,
        }
    }

    pub(crate) fn line_of(&mut self, offset: usize) -> usize {
        if offset < self.offset {
            self.offset = 0;
            self.line = 0;
        }
        let offset = offset.min(self.text.len());
        self.line += memchr::memchr_iter(b'\n', &self.text[self.offset..offset]).count();
        self.offset = offset;
        self.line
    }
}

/// The 1-based line and character column `candor calls` prints for the name at `at`; `lines`
/// has been asked only of smaller offsets of the same text.
pub(crate) fn line_column(text: &str, lines: &mut LineCounter<'_>, at: usize) -> (usize, usize) {
    let line = lines.line_of(at);
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    (line + 1, text[line_start..at].chars().count() + 1)
}

/// [`find_mentions`] by visiting every node of the tree: the reference it is checked against.
pub fn find_mentions_walk(lang: Language, tree: &Tree, text: &str, name: &str) -> Mentions {
    let mut mentions = Mentions::default();
    if name.is_empty() || !text.contains(name) {
        return mentions;
    }
    let mut callee_names: Vec<usize> = Vec::new();
    walk_tree(tree, |node| {
        if let Some(call) = call_site(lang, node, text, name) {
            callee_names.push(call.name_range.start);
            mentions.calls.push(call);
        }
        match classify_leaf(lang, node) {
            Leaf::Name => {
                if node_text(node, text) == name && !is_definition_name(lang, node) {
                    mentions.references.push(Reference {
                        range: node.byte_range(),
                        line: node.start_position().row + 1,
                        kind: reference_kind(lang, node),
                    });
                }
                false
            }
            Leaf::Text(kind) => {
                let body = node_text(node, text);
                for offset in word_matches(body, name) {
                    let start = node.start_byte() + offset;
                    let line = node.start_position().row + body[..offset].matches('\n').count() + 1;
                    mentions.references.push(Reference {
                        range: start..start + name.len(),
                        line,
                        kind,
                    });
                }
                false
            }
            Leaf::Other => true,
        }
    });
    // A name that is the callee of a call is a call site, not a plain reference.
    mentions
        .references
        .retain(|r| !callee_names.contains(&r.range.start));
    mentions.calls.sort_by_key(|c| c.range.start);
    mentions.references.sort_by_key(|r| r.range.start);
    mentions
}

enum Leaf {
    Name,
    Text(ReferenceKind),
    Other,
}

fn classify_leaf(lang: Language, node: Node<'_>) -> Leaf {
    match (lang, node.kind()) {
        (Language::Rust, "identifier" | "field_identifier") => Leaf::Name,
        (Language::Rust, "string_literal" | "raw_string_literal") => {
            Leaf::Text(ReferenceKind::InString)
        }
        (Language::Rust, "line_comment" | "block_comment") => Leaf::Text(ReferenceKind::InComment),
        (Language::Python, "identifier") => Leaf::Name,
        (Language::Python, "string") => Leaf::Text(ReferenceKind::InString),
        (Language::Python, "comment") => Leaf::Text(ReferenceKind::InComment),
        _ => Leaf::Other,
    }
}

fn is_definition_name(lang: Language, node: Node<'_>) -> bool {
    defines(lang, node.parent(), node)
}

/// Whether `parent` is a function definition whose name is `node`.
fn defines(lang: Language, parent: Option<Node<'_>>, node: Node<'_>) -> bool {
    let Some(parent) = parent else {
        return false;
    };
    let is_def = match lang {
        Language::Rust => matches!(parent.kind(), "function_item" | "function_signature_item"),
        Language::Python => parent.kind() == "function_definition",
    };
    is_def && parent.child_by_field_name("name") == Some(node)
}

fn reference_kind(lang: Language, node: Node<'_>) -> ReferenceKind {
    let mut ancestors = Vec::new();
    let mut current = node.parent();
    while let Some(parent) = current {
        ancestors.push(parent);
        current = parent.parent();
    }
    ancestors.reverse();
    kind_among(lang, &ancestors)
}

/// The kind of a plain mention whose ancestors are `ancestors` (root first): an import, a
/// decorator, or a use, as the nearest statement around it says.
fn kind_among(lang: Language, ancestors: &[Node<'_>]) -> ReferenceKind {
    for parent in ancestors.iter().rev() {
        match (lang, parent.kind()) {
            (Language::Rust, "use_declaration")
            | (Language::Python, "import_statement" | "import_from_statement") => {
                return ReferenceKind::Import;
            }
            (Language::Python, "decorator") => return ReferenceKind::Decorator,
            (_, k) if k.ends_with("statement") || k.ends_with("declaration") || k == "block" => {
                break;
            }
            _ => {}
        }
    }
    ReferenceKind::Use
}

/// Byte offsets of whole-word occurrences of `word` in `haystack`.
pub fn word_matches(haystack: &str, word: &str) -> Vec<usize> {
    if word.is_empty() {
        // Every char boundary matches an empty word, as `str::match_indices` has it.
        return haystack
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(haystack.len()))
            .filter(|i| is_whole_word(haystack, *i, 0))
            .collect();
    }
    memchr::memmem::find_iter(haystack.as_bytes(), word.as_bytes())
        .filter(|i| is_whole_word(haystack, *i, word.len()))
        .collect()
}

fn is_whole_word(haystack: &str, at: usize, len: usize) -> bool {
    let is_word = |c: char| c == '_' || c.is_alphanumeric();
    let before = haystack.get(..at).and_then(|s| s.chars().next_back());
    let after = haystack.get(at + len..).and_then(|s| s.chars().next());
    !before.is_some_and(is_word) && !after.is_some_and(is_word)
}

/// What a whole-word match inside a string or a comment most likely is. Best effort, from the
/// text around the match only; the refactors use it to tell prose (harmless) from text that
/// code or tests act on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextMention {
    /// A comment or a message that happens to use the word.
    Prose,
    /// Code in executable documentation: inside a fenced block of a Rust `///` or `//!` comment
    /// (a doc test, unless the fence says `ignore` or another language), or on a Python doctest
    /// line (`>>> ` or `... `).
    DocExample,
    /// A string whose whole value is the name, or a path ending in it (`"helper"`,
    /// `"pkg.mod.helper"`, `"pkg.mod:helper"`, `"crate::m::helper"`): a `getattr`, a patch
    /// target, an entry point, a serde `default = "…"`.
    NameString,
}

impl TextMention {
    /// Whether the mention is followed by an argument list (`name(`), as a call in a doc
    /// example is.
    pub fn is_call(text: &str, range: &Range<usize>) -> bool {
        text.get(range.end..)
            .is_some_and(|rest| rest.trim_start_matches([' ', '\t']).starts_with('('))
    }
}

/// Classifies a mention of the kind `InString` or `InComment` (anything else is `Prose`).
pub fn text_mention(lang: Language, text: &str, reference: &Reference) -> TextMention {
    let range = &reference.range;
    if text.get(range.clone()).is_none() {
        return TextMention::Prose;
    }
    match reference.kind {
        ReferenceKind::InString | ReferenceKind::InComment => {}
        _ => return TextMention::Prose,
    }
    if reference.kind == ReferenceKind::InString && is_whole_string_value(text, range) {
        return TextMention::NameString;
    }
    let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let line = text[line_start..].split('\n').next().unwrap_or("");
    let in_doc_example = match lang {
        Language::Python => {
            let code = line.trim_start();
            code == ">>>" || code.starts_with(">>> ") || code.starts_with("... ")
        }
        Language::Rust => {
            reference.kind == ReferenceKind::InComment && in_rust_doc_test(text, line_start)
        }
    };
    if in_doc_example {
        TextMention::DocExample
    } else {
        TextMention::Prose
    }
}

/// `"name"` or `"a.b:name"`: the match ends the literal, and everything from the opening quote
/// to it is a path (identifier characters, `.`, `:`).
fn is_whole_string_value(text: &str, range: &Range<usize>) -> bool {
    let before = &text[..range.start];
    let path_start = before
        .char_indices()
        .rev()
        .find(|(_, c)| !(c.is_alphanumeric() || matches!(c, '_' | '.' | ':')))
        .map(|(i, _)| i);
    let Some(quote_at) = path_start else {
        return false;
    };
    let quote = before[quote_at..].chars().next();
    let closes = text[range.end..].chars().next();
    matches!(quote, Some('"' | '\'')) && closes == quote
}

/// Whether the line starting at `line_start` is inside a fenced code block of a Rust doc
/// comment whose fence does not opt out of doc testing.
fn in_rust_doc_test(text: &str, line_start: usize) -> bool {
    let doc_prefix = |line: &str| -> Option<&'static str> {
        let t = line.trim_start();
        if t.starts_with("////") {
            None
        } else if t.starts_with("///") {
            Some("///")
        } else if t.starts_with("//!") {
            Some("//!")
        } else {
            None
        }
    };
    let line = text[line_start..].split('\n').next().unwrap_or("");
    let Some(prefix) = doc_prefix(line) else {
        return false;
    };
    // The fences above this line, in the same run of doc comment lines.
    let mut fences: Vec<&str> = Vec::new();
    for above in text[..line_start].lines().rev() {
        if doc_prefix(above) != Some(prefix) {
            break;
        }
        let content = above.trim_start()[prefix.len()..].trim();
        if content.starts_with("```") || content.starts_with("~~~") {
            fences.push(content);
        }
    }
    if fences.len().is_multiple_of(2) {
        return false;
    }
    // The innermost open fence is the first one found walking up.
    let info = fences[0].trim_start_matches(['`', '~']).trim();
    let opts_out = |word: &str| {
        matches!(word, "ignore" | "text")
            || !(word.is_empty()
                || word == "rust"
                || word.starts_with("edition")
                || matches!(
                    word,
                    "should_panic" | "no_run" | "compile_fail" | "allow_fail" | "test_harness"
                ))
    };
    !info
        .split(|c: char| c == ',' || c.is_whitespace())
        .any(|word| !word.is_empty() && opts_out(word))
}

fn call_site(lang: Language, node: Node<'_>, text: &str, name: &str) -> Option<CallSite> {
    let (callee, arguments) = match (lang, node.kind()) {
        (Language::Rust, "call_expression") | (Language::Python, "call") => (
            node.child_by_field_name("function")?,
            node.child_by_field_name("arguments")?,
        ),
        _ => return None,
    };
    let (name_node, form) = callee_name(lang, callee, text)?;
    if node_text(name_node, text) != name {
        return None;
    }
    let args = if arguments.kind() == "generator_expression" {
        vec![Argument {
            range: arguments.byte_range(),
            value_range: arguments.byte_range(),
            keyword: None,
            splat: false,
        }]
    } else {
        call_arguments(lang, arguments, text)
    };
    Some(CallSite {
        range: node.byte_range(),
        callee_range: callee.byte_range(),
        name_range: name_node.byte_range(),
        arguments_range: arguments.byte_range(),
        args,
        form,
        line: name_node.start_position().row + 1,
    })
}

fn callee_name<'t>(lang: Language, callee: Node<'t>, text: &str) -> Option<(Node<'t>, CallForm)> {
    match (lang, callee.kind()) {
        (_, "identifier") => Some((callee, CallForm::Plain)),
        (Language::Rust, "generic_function") => {
            callee_name(lang, callee.child_by_field_name("function")?, text)
        }
        (Language::Rust, "field_expression") => Some((
            callee.child_by_field_name("field")?,
            CallForm::Method {
                receiver: callee.child_by_field_name("value")?.byte_range(),
            },
        )),
        (Language::Rust, "scoped_identifier") => Some((
            callee.child_by_field_name("name")?,
            CallForm::Path {
                qualifier: callee
                    .child_by_field_name("path")
                    .map(|p| node_text(p, text).to_string())
                    .unwrap_or_default(),
            },
        )),
        (Language::Python, "attribute") => Some((
            callee.child_by_field_name("attribute")?,
            CallForm::Method {
                receiver: callee.child_by_field_name("object")?.byte_range(),
            },
        )),
        _ => None,
    }
}

fn call_arguments(lang: Language, arguments: Node<'_>, text: &str) -> Vec<Argument> {
    let mut cursor = arguments.walk();
    arguments
        .named_children(&mut cursor)
        .filter(|arg| {
            !matches!(
                arg.kind(),
                "line_comment" | "block_comment" | "comment" | "attribute_item"
            )
        })
        .map(|arg| match (lang, arg.kind()) {
            (Language::Python, "keyword_argument") => Argument {
                range: arg.byte_range(),
                value_range: arg
                    .child_by_field_name("value")
                    .map_or(arg.byte_range(), |v| v.byte_range()),
                keyword: arg
                    .child_by_field_name("name")
                    .map(|n| node_text(n, text).to_string()),
                splat: false,
            },
            (Language::Python, "list_splat" | "dictionary_splat") => Argument {
                range: arg.byte_range(),
                value_range: arg.byte_range(),
                keyword: None,
                splat: true,
            },
            _ => Argument {
                range: arg.byte_range(),
                value_range: arg.byte_range(),
                keyword: None,
                splat: false,
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mentions(lang: Language, text: &str, name: &str) -> Mentions {
        let tree = lang.parse(text);
        let found = find_mentions(lang, &tree, text, name);
        assert_eq!(found, find_mentions_walk(lang, &tree, text, name));
        found
    }

    #[test]
    fn rust_calls_in_every_form() {
        let text = "fn go(a: i32) {}\nfn main() {\n    go(1);\n    x.go(2, 3);\n    Self::go::<u8>(4);\n    let f = go;\n    // go here\n    println!(\"go\");\n}\n";
        let m = mentions(Language::Rust, text, "go");
        assert_eq!(m.calls.len(), 3);
        assert_eq!(m.calls[0].form, CallForm::Plain);
        assert_eq!(m.calls[0].line, 3);
        assert_eq!(m.calls[1].args.len(), 2);
        assert!(matches!(m.calls[1].form, CallForm::Method { .. }));
        assert_eq!(
            m.calls[2].form,
            CallForm::Path {
                qualifier: "Self".into()
            }
        );
        let kinds: Vec<(usize, ReferenceKind)> =
            m.references.iter().map(|r| (r.line, r.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (6, ReferenceKind::Use),
                (7, ReferenceKind::InComment),
                (8, ReferenceKind::InString)
            ]
        );
    }

    #[test]
    fn python_calls_keywords_and_references() {
        let text = "from m import go\n\ndef go(a, b=1):\n    pass\n\ngo(1, b=2)\nobj.go(*xs)\nprint(\"go away\")\nmap(go, [])\n";
        let m = mentions(Language::Python, text, "go");
        assert_eq!(m.calls.len(), 2);
        assert_eq!(m.calls[0].args[1].keyword.as_deref(), Some("b"));
        assert_eq!(&text[m.calls[0].args[1].value_range.clone()], "2");
        assert!(m.calls[1].args[0].splat);
        let kinds: Vec<(usize, ReferenceKind)> =
            m.references.iter().map(|r| (r.line, r.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (1, ReferenceKind::Import),
                (8, ReferenceKind::InString),
                (9, ReferenceKind::Use)
            ]
        );
    }

    fn mention_kinds(lang: Language, text: &str, name: &str) -> Vec<(usize, TextMention)> {
        let m = mentions(lang, text, name);
        m.references
            .iter()
            .filter(|r| matches!(r.kind, ReferenceKind::InString | ReferenceKind::InComment))
            .map(|r| (r.line, text_mention(lang, text, r)))
            .collect()
    }

    #[test]
    fn text_mentions_tell_code_from_prose() {
        let text = "import mock\n\n\ndef f():\n    \"\"\"Use go for this.\n\n    >>> go(1)\n    ... go(2)\n    \"\"\"\n    getattr(m, \"go\")\n    mock.patch('pkg.mod.go')\n    x = \"go away\"\n    y = \"pkg.mod:go\"\n    # see go\n";
        assert_eq!(
            mention_kinds(Language::Python, text, "go"),
            vec![
                (5, TextMention::Prose),
                (7, TextMention::DocExample),
                (8, TextMention::DocExample),
                (10, TextMention::NameString),
                (11, TextMention::NameString),
                (12, TextMention::Prose),
                (13, TextMention::NameString),
                (14, TextMention::Prose),
            ]
        );
    }

    #[test]
    fn rust_doc_tests_are_fenced_blocks_that_do_not_opt_out() {
        let text = "/// Call go to start.\n///\n/// ```\n/// let x = go(1);\n/// ```\n///\n/// ```text\n/// go(2)\n/// ```\n/// ```no_run\n/// go(3);\n/// ```\n// ```\n// go(4)\nfn main() {\n    #[serde(default = \"go\")]\n    let s = \"go\";\n}\n";
        assert_eq!(
            mention_kinds(Language::Rust, text, "go"),
            vec![
                (1, TextMention::Prose),
                (4, TextMention::DocExample),
                (8, TextMention::Prose),
                (11, TextMention::DocExample),
                (14, TextMention::Prose),
                (16, TextMention::NameString),
                (17, TextMention::NameString),
            ]
        );
        let range = text.find("go(1)").unwrap();
        assert!(TextMention::is_call(text, &(range..range + 2)));
        assert!(!TextMention::is_call(text, &(3..5)));
    }

    #[test]
    fn whole_words_only() {
        assert_eq!(word_matches("go gone ago go_ go", "go"), vec![0, 16]);
        assert_eq!(word_matches("über go", "go"), vec![6]);
    }
}
