//! Parsing less than the whole file. A linear lexer finds strings and comments, Python's logical
//! lines and Rust's braces; then only the small region around each place of interest is parsed
//! with tree-sitter, wrapped in a few bytes of scaffolding so it stands alone. When a region does
//! not parse cleanly the caller falls back to the whole file, so answers stay those of a full
//! parse. This is what makes the project-wide call-site search and the syntax check of a large
//! file cheap. Pure.

use std::ops::Range;

use super::Language;
use super::calls::{Mentions, Reference, ReferenceKind, find_mentions, word_matches};

/// What the lexer learned about a text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexed {
    /// String literals and comments, in order, never overlapping.
    pub spans: Vec<(Range<usize>, ReferenceKind)>,
    /// Python: byte offsets where logical lines start (0 first).
    pub logical_lines: Vec<usize>,
    /// Rust: matched `{` `}` pairs outside strings and comments, sorted by the opening brace.
    pub braces: Vec<(usize, usize)>,
    /// Rust: offsets just after each top-level `;` or closing `}` (item boundaries), 0 first.
    pub item_starts: Vec<usize>,
}

impl Lexed {
    /// The string or comment span containing `offset`, if any.
    pub fn span_at(&self, offset: usize) -> Option<&(Range<usize>, ReferenceKind)> {
        let index = self.spans.partition_point(|(r, _)| r.start <= offset);
        index
            .checked_sub(1)
            .map(|i| &self.spans[i])
            .filter(|(r, _)| r.contains(&offset))
    }
}

/// Lexes `text` in one pass.
pub fn lex(lang: Language, text: &str) -> Lexed {
    match lang {
        Language::Python => lex_python(text.as_bytes()),
        Language::Rust => lex_rust(text.as_bytes()),
    }
}

fn is_ident_byte(b: u8) -> bool {
    b == b'_' || b.is_ascii_alphanumeric() || b >= 0x80
}

fn lex_python(b: &[u8]) -> Lexed {
    let mut lexed = Lexed {
        logical_lines: vec![0],
        ..Lexed::default()
    };
    let mut depth = 0usize;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'#' => {
                let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                let end = if end > i && b[end - 1] == b'\r' {
                    end - 1
                } else {
                    end
                };
                lexed.spans.push((i..end, ReferenceKind::InComment));
                i = end;
                continue;
            }
            quote @ (b'\'' | b'"') => {
                let start = python_prefix_start(b, i);
                let end = python_string_end(b, i, quote);
                lexed.spans.push((start..end, ReferenceKind::InString));
                i = end;
                continue;
            }
            b'\\' => {
                // A line continuation joins physical lines into one logical line.
                i += if b.get(i + 1) == Some(&b'\r') { 3 } else { 2 };
                continue;
            }
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b'\n' if depth == 0 => lexed.logical_lines.push(i + 1),
            _ => {}
        }
        i += 1;
    }
    lexed
}

/// Start of a string literal whose quote is at `quote`, including a prefix such as `rb` or `f`.
fn python_prefix_start(b: &[u8], quote: usize) -> usize {
    let mut start = quote;
    while start > 0 && quote - start < 3 && b"rRbBuUfFtT".contains(&b[start - 1]) {
        start -= 1;
    }
    if start < quote && start > 0 && is_ident_byte(b[start - 1]) {
        // `name"..."` is not a prefix; the letters belong to an identifier.
        return quote;
    }
    start
}

/// Offset just after the string literal starting with the quote at `at`.
fn python_string_end(b: &[u8], at: usize, quote: u8) -> usize {
    let triple = b.get(at + 1) == Some(&quote) && b.get(at + 2) == Some(&quote);
    let mut i = at + if triple { 3 } else { 1 };
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            c if c == quote => {
                if !triple {
                    return i + 1;
                }
                if b.get(i + 1) == Some(&quote) && b.get(i + 2) == Some(&quote) {
                    return i + 3;
                }
                i += 1;
            }
            b'\n' if !triple => return i,
            _ => i += 1,
        }
    }
    b.len()
}

fn lex_rust(b: &[u8]) -> Lexed {
    let mut lexed = Lexed {
        item_starts: vec![0],
        ..Lexed::default()
    };
    // Open delimiters: (byte, offset, inside a macro's token tree).
    let mut stack: Vec<(u8, usize, bool)> = Vec::new();
    // Set by `name!`; the next delimiter opens a macro token tree (`macro_rules! name {` too).
    let mut macro_pending = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |n| i + n);
                let end = if end > i && b[end - 1] == b'\r' {
                    end - 1
                } else {
                    end
                };
                lexed.spans.push((i..end, ReferenceKind::InComment));
                i = end;
                continue;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let end = rust_block_comment_end(b, i);
                lexed.spans.push((i..end, ReferenceKind::InComment));
                i = end;
                continue;
            }
            b'"' => {
                let start = if i > 0
                    && matches!(b[i - 1], b'b' | b'c')
                    && (i < 2 || !is_ident_byte(b[i - 2]))
                {
                    i - 1
                } else {
                    i
                };
                let end = rust_string_end(b, i);
                lexed.spans.push((start..end, ReferenceKind::InString));
                macro_pending = false;
                i = end;
                continue;
            }
            b'r' | b'b' | b'c' if i == 0 || !is_ident_byte(b[i - 1]) => {
                if let Some(end) = rust_raw_string_end(b, i) {
                    lexed.spans.push((i..end, ReferenceKind::InString));
                    macro_pending = false;
                    i = end;
                    continue;
                }
                // An identifier: skip it whole so its letters are not read as prefixes.
                i = skip_identifier(b, i, &mut macro_pending);
                continue;
            }
            b'\'' => {
                macro_pending = false;
                i = rust_char_or_lifetime_end(b, i);
                continue;
            }
            open @ (b'{' | b'(' | b'[') => {
                // Attributes (`#[...]`, `#![...]`) are token trees too.
                let attribute = open == b'[' && (b[..i].ends_with(b"#") || b[..i].ends_with(b"#!"));
                let in_macro =
                    macro_pending || attribute || stack.last().is_some_and(|(_, _, m)| *m);
                stack.push((open, i, in_macro));
                macro_pending = false;
            }
            b'}' | b')' | b']' => {
                if let Some((open, at, in_macro)) = stack.pop() {
                    if open == b'{' && !in_macro {
                        lexed.braces.push((at, i));
                    }
                }
                // A closing brace at the top ends an item unless a `;` follows
                // (`use a::{b, c};`, `const S: T = T { .. };`), which then ends it.
                if stack.is_empty() && b[i] == b'}' {
                    let next = b[i + 1..].iter().find(|c| !c.is_ascii_whitespace());
                    if next != Some(&b';') {
                        lexed.item_starts.push(i + 1);
                    }
                }
                macro_pending = false;
            }
            b';' => {
                if stack.is_empty() {
                    lexed.item_starts.push(i + 1);
                }
                macro_pending = false;
            }
            b'!' => {
                // `name!` (not `!=`) announces a macro invocation or `macro_rules!`.
                macro_pending = i > 0 && is_ident_byte(b[i - 1]) && b.get(i + 1) != Some(&b'=');
            }
            c if is_ident_byte(c) => {
                i = skip_identifier(b, i, &mut macro_pending);
                continue;
            }
            c if c.is_ascii_whitespace() => {}
            _ => macro_pending = false,
        }
        i += 1;
    }
    lexed.braces.sort_unstable();
    lexed
}

/// Skips an identifier; after `macro_rules!` the macro's name keeps the macro flag.
fn skip_identifier(b: &[u8], mut i: usize, macro_pending: &mut bool) -> usize {
    let start = i;
    while i < b.len() && is_ident_byte(b[i]) {
        i += 1;
    }
    if *macro_pending {
        // Only `macro_rules! name {`: the flag survives the name, nothing else.
        let before_bang = b[..start].iter().rposition(|c| !c.is_ascii_whitespace());
        let after_rules =
            before_bang.is_some_and(|p| b[p] == b'!' && b[..p].ends_with(b"macro_rules"));
        *macro_pending = after_rules;
    }
    i
}

fn rust_block_comment_end(b: &[u8], at: usize) -> usize {
    let mut depth = 0usize;
    let mut i = at;
    while i + 1 < b.len() {
        if b[i] == b'/' && b[i + 1] == b'*' {
            depth += 1;
            i += 2;
        } else if b[i] == b'*' && b[i + 1] == b'/' {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    b.len()
}

fn rust_string_end(b: &[u8], at: usize) -> usize {
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    b.len()
}

/// `r"…"`, `r#"…"#`, `br"…"`, `cr#"…"#` starting at `at`, or `None` when `at` starts an
/// ordinary identifier.
fn rust_raw_string_end(b: &[u8], at: usize) -> Option<usize> {
    let mut i = at;
    if matches!(b[i], b'b' | b'c') {
        i += 1;
    }
    if b.get(i) != Some(&b'r') {
        return None;
    }
    i += 1;
    let hashes = b[i..].iter().take_while(|c| **c == b'#').count();
    i += hashes;
    if b.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    while i < b.len() {
        if b[i] == b'"'
            && b[i + 1..]
                .iter()
                .take(hashes)
                .filter(|c| **c == b'#')
                .count()
                == hashes
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    Some(b.len())
}

/// Skips a char literal (`'a'`, `'\n'`, `'é'`) or just the quote of a lifetime or label.
fn rust_char_or_lifetime_end(b: &[u8], at: usize) -> usize {
    match b.get(at + 1) {
        Some(b'\\') => {
            let mut i = at + 2;
            while i < b.len() && b[i] != b'\'' && b[i] != b'\n' {
                i += 1;
            }
            i + 1
        }
        Some(&first) => {
            let width = utf8_width(first);
            if b.get(at + 1 + width) == Some(&b'\'') {
                at + 2 + width
            } else {
                at + 1
            }
        }
        None => at + 1,
    }
}

fn utf8_width(first: u8) -> usize {
    match first {
        0xF0..=0xF7 => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// A piece of the text made to parse alone: `prefix + text[range] + suffix`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    pub range: Range<usize>,
    pub prefix: String,
    pub suffix: String,
}

impl Region {
    fn source(&self, text: &str) -> String {
        let mut s = String::with_capacity(self.prefix.len() + self.range.len() + self.suffix.len());
        s.push_str(&self.prefix);
        s.push_str(&text[self.range.clone()]);
        s.push_str(&self.suffix);
        s
    }
}

/// The regions to try, innermost first, for a place of interest at `offset` (in code).
fn regions_around(lang: Language, text: &str, lexed: &Lexed, offset: usize) -> Vec<Region> {
    match lang {
        Language::Python => python_region(text, lexed, offset).into_iter().collect(),
        Language::Rust => rust_regions(lexed, offset),
    }
}

/// The logical line containing `offset`, with an opener and a body so that it parses alone.
fn python_region(text: &str, lexed: &Lexed, offset: usize) -> Option<Region> {
    let index = lexed
        .logical_lines
        .partition_point(|s| *s <= offset)
        .checked_sub(1)?;
    let start = lexed.logical_lines[index];
    let end = lexed
        .logical_lines
        .get(index + 1)
        .copied()
        .unwrap_or(text.len());
    let line = &text[start..end];
    let indent_len = line.len() - line.trim_start_matches([' ', '\t']).len();
    let indent = &line[..indent_len];
    let body = &line[indent_len..];
    let first_word: String = body
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    let opens_block = opens_python_block(text, lexed, start, end);

    let nested = if indent.is_empty() { "" } else { "if 1:\n" };
    let prefix = match first_word.as_str() {
        "elif" | "else" => format!("{nested}{indent}if 1:\n{indent} pass\n"),
        "except" | "finally" => format!("{nested}{indent}try:\n{indent} pass\n"),
        "case" if !indent.is_empty() => "match 1:\n".to_string(),
        _ => nested.to_string(),
    };
    let newline = if line.ends_with('\n') { "" } else { "\n" };
    let suffix = if body.starts_with('@') {
        format!("{newline}{indent}def _(): pass\n")
    } else if opens_block && first_word == "match" {
        format!("{newline}{indent} case _:\n{indent}  pass\n")
    } else if opens_block {
        format!("{newline}{indent} pass\n")
    } else {
        newline.to_string()
    };
    Some(Region {
        range: start..end,
        prefix,
        suffix,
    })
}

/// Whether the Python logical line `start..end` opens a block: its code, without a comment at
/// its very end, ends with `:`.
pub(crate) fn opens_python_block(text: &str, lexed: &Lexed, start: usize, end: usize) -> bool {
    let last_comment = lexed.spans[..lexed.spans.partition_point(|(r, _)| r.start < end)]
        .last()
        .filter(|(r, k)| {
            *k == ReferenceKind::InComment && r.start >= start && text[r.end..end].trim().is_empty()
        });
    let code_end = last_comment.map_or(end, |(r, _)| r.start);
    text[start..code_end].trim_end().ends_with(':')
}

/// Enclosing brace pairs from the innermost out, each wrapped as a function body, then the
/// top-level item.
fn rust_regions(lexed: &Lexed, offset: usize) -> Vec<Region> {
    let mut regions = Vec::new();
    let mut upto = lexed.braces.partition_point(|(open, _)| *open < offset);
    let mut outer_limit = usize::MAX;
    while upto > 0 && regions.len() < 4 {
        upto -= 1;
        let (open, close) = lexed.braces[upto];
        if close >= offset && close < outer_limit {
            regions.push(Region {
                range: open..close + 1,
                prefix: "fn __candor_region() ".to_string(),
                suffix: String::new(),
            });
            outer_limit = close;
        }
    }
    let item = lexed.item_starts.partition_point(|s| *s <= offset);
    if let Some(start) = item.checked_sub(1).map(|i| lexed.item_starts[i]) {
        if let Some(&end) = lexed.item_starts.get(item) {
            regions.push(Region {
                range: start..end,
                prefix: String::new(),
                suffix: String::new(),
            });
        }
    }
    regions
}

/// Parses the first of `regions` that parses without errors; `None` when none does.
fn parse_first_clean(
    lang: Language,
    text: &str,
    regions: &[Region],
) -> Option<(Region, tree_sitter::Tree, String)> {
    regions.iter().find_map(|region| {
        let source = region.source(text);
        let tree = lang.parse(&source);
        (!tree.root_node().has_error() && super::syntax_errors(&tree, &source).is_empty())
            .then(|| (region.clone(), tree, source))
    })
}

/// The same answer as [`find_mentions`] on a full parse, obtained by lexing the file and parsing
/// only the regions around code matches of `name`. Falls back to the full parse when a region
/// does not parse alone.
pub fn find_mentions_fast(lang: Language, text: &str, name: &str) -> Mentions {
    find_mentions_by_regions(lang, text, name).0
}

/// [`find_mentions_fast`], also saying whether it had to parse the whole file.
pub fn find_mentions_by_regions(lang: Language, text: &str, name: &str) -> (Mentions, bool) {
    let matches = word_matches(text, name);
    if matches.is_empty() {
        return (Mentions::default(), false);
    }
    let lexed = lex(lang, text);
    let mut mentions = Mentions::default();
    let mut covered: Vec<Range<usize>> = Vec::new();
    let mut lines = LineCounter::new(text);
    for offset in matches {
        if let Some((_, kind)) = lexed.span_at(offset) {
            mentions.references.push(Reference {
                range: offset..offset + name.len(),
                line: lines.line_of(offset) + 1,
                kind: *kind,
            });
            continue;
        }
        if covered.iter().any(|r| r.contains(&offset)) {
            continue;
        }
        let regions = regions_around(lang, text, &lexed, offset);
        let Some((region, tree, source)) = parse_first_clean(lang, text, &regions) else {
            return (find_mentions(lang, &lang.parse(text), text, name), true);
        };
        let shift = region.prefix.len();
        let inside = |r: &Range<usize>| r.start >= shift && r.end <= shift + region.range.len();
        let moved = |r: &Range<usize>| {
            r.start - shift + region.range.start..r.end - shift + region.range.start
        };
        let found = find_mentions(lang, &tree, &source, name);
        let first_line = lines.line_of(region.range.start);
        let prefix_lines = region.prefix.matches('\n').count();
        for call in found.calls.into_iter().filter(|c| inside(&c.range)) {
            let mut call = call;
            call.range = moved(&call.range);
            call.callee_range = moved(&call.callee_range);
            call.name_range = moved(&call.name_range);
            call.arguments_range = moved(&call.arguments_range);
            for arg in &mut call.args {
                arg.range = moved(&arg.range);
                arg.value_range = moved(&arg.value_range);
            }
            if let super::calls::CallForm::Method { receiver } = &mut call.form {
                *receiver = moved(receiver);
            }
            call.line = call.line - prefix_lines + first_line;
            if !mentions
                .calls
                .iter()
                .any(|c| c.name_range == call.name_range)
            {
                mentions.calls.push(call);
            }
        }
        for reference in found.references.into_iter().filter(|r| inside(&r.range)) {
            if matches!(
                reference.kind,
                ReferenceKind::InString | ReferenceKind::InComment
            ) {
                continue;
            }
            let range = moved(&reference.range);
            if !mentions.references.iter().any(|r| r.range == range) {
                mentions.references.push(Reference {
                    range,
                    line: reference.line - prefix_lines + first_line,
                    kind: reference.kind,
                });
            }
        }
        covered.push(region.range);
    }
    mentions.calls.sort_by_key(|c| c.range.start);
    mentions.references.sort_by_key(|r| r.range.start);
    (mentions, false)
}

/// 0-based line numbers of increasing offsets, counting newlines only once.
struct LineCounter<'t> {
    text: &'t [u8],
    offset: usize,
    line: usize,
}

impl<'t> LineCounter<'t> {
    fn new(text: &'t str) -> LineCounter<'t> {
        LineCounter {
            text: text.as_bytes(),
            offset: 0,
            line: 0,
        }
    }

    fn line_of(&mut self, offset: usize) -> usize {
        if offset < self.offset {
            self.offset = 0;
            self.line = 0;
        }
        self.line += memchr::memchr_iter(b'\n', &self.text[self.offset..offset]).count();
        self.offset = offset;
        self.line
    }
}

/// Whether every region of `text` touched by `ranges` parses without errors. `None` when that
/// cannot be told from regions (the caller then parses the whole file).
pub fn regions_parse_clean(lang: Language, text: &str, ranges: &[Range<usize>]) -> Option<bool> {
    let lexed = lex(lang, text);
    let mut checked: Vec<Range<usize>> = Vec::new();
    for range in ranges {
        if checked
            .iter()
            .any(|r| r.start <= range.start && range.end <= r.end)
        {
            continue;
        }
        let regions: Vec<Region> = regions_around(lang, text, &lexed, range.start)
            .into_iter()
            .filter(|r| r.range.start <= range.start && range.end <= r.range.end)
            .collect();
        let (region, _, _) = parse_first_clean(lang, text, &regions)?;
        checked.push(region.range);
    }
    Some(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same_as_full(lang: Language, text: &str, name: &str) {
        let full = find_mentions(lang, &lang.parse(text), text, name);
        let (fast, fell_back) = find_mentions_by_regions(lang, text, name);
        assert!(
            !fell_back,
            "{lang:?} `{name}` needed the whole file:\n{text}"
        );
        assert_eq!(fast, full, "{lang:?} `{name}` in:\n{text}");
    }

    const PYTHON: &str = r#"import textwrap
from textwrap import dedent  # dedent here

@dedent
def dedent(text, *args):
    """dedent the text"""
    if dedent(text):
        return dedent(text, 1)
    elif dedent(b'x', key=dedent):
        pass
    else:
        x = [dedent(a) for a in (1,
             2)]
    try:
        y = textwrap.dedent(f"{dedent(1)}")
    except dedent(E):
        pass
    match dedent(x):
        case 1 if dedent(y):
            pass
    z = rb'\'dedent' + '''
dedent(not code)
'''
    return lambda: dedent(z) \
        + dedent(1)

class A(dedent(B)):
    def m(self):
        self.dedent(1)
"#;

    const RUST: &str = r##"use crate::text::dedent;

/// Calls `dedent` twice.
fn dedent(s: &str) -> String {
    let c = '"';
    let r = r#"dedent("x")"#;
    let lifetime: &'static str = "{";
    if dedent("a").is_empty() { dedent::<u8>(1); }
    match x {
        Some(v) => Self::dedent(v),
        None => { let f = dedent; f(1) }
    }
    /* dedent( /* nested */ */
    s.dedent(b"dedent", 'x')
}

impl A {
    fn m(&self) -> u8 { self.dedent(1, 2) }
}

const X: u8 = dedent(1);
#[derive(Clone)]
pub struct Classes([u8; 256], dedent);
use crate::{dedent::X, y};
#[case(const { dedent(5) })]
fn attributed() {}

macro_rules! dedent_twice { ($x:expr) => { dedent($x); { dedent($x) } } }
fn q() { quote! { dedent(1) }; let v = vec![{ dedent(2) }]; if a != b { dedent(3); } }
"##;

    #[test]
    fn fast_mentions_equal_full_parse_mentions() {
        same_as_full(Language::Python, PYTHON, "dedent");
        same_as_full(Language::Rust, RUST, "dedent");
        same_as_full(Language::Python, PYTHON, "textwrap");
        same_as_full(Language::Rust, RUST, "f");
        same_as_full(
            Language::Python,
            "def f():\n\tif x:\n\t\treturn f(1)\n",
            "f",
        );
        same_as_full(Language::Python, "x = f(1\r\n)\r\ny = f\r\n", "f");
    }

    #[test]
    fn lexer_spans() {
        let lexed = lex(
            Language::Rust,
            "let c = '\"'; let s = b\"a\"; // x\nlet r = br#\"q\"#;",
        );
        let kinds: Vec<ReferenceKind> = lexed.spans.iter().map(|(_, k)| *k).collect();
        assert_eq!(
            kinds,
            vec![
                ReferenceKind::InString,
                ReferenceKind::InComment,
                ReferenceKind::InString
            ]
        );
        let lexed = lex(
            Language::Python,
            "a = (1,\n 2)\nb = '''x\ny'''\nc = 3 \\\n + 4\n",
        );
        assert_eq!(lexed.logical_lines, vec![0, 12, 26, 39]);
    }

    #[test]
    fn syntax_check_by_regions() {
        let text = "def f():\n    return g(1, 2)\n\ndef h():\n    pass\n";
        let at = text.find("1, 2").unwrap();
        assert_eq!(
            regions_parse_clean(Language::Python, text, &[at..at + 4]),
            Some(true)
        );
        let broken = "def f():\n    return g(1,, 2)\n";
        let at = broken.find("1,,").unwrap();
        assert_eq!(
            regions_parse_clean(Language::Python, broken, &[at..at + 3]),
            None
        );
    }
}
