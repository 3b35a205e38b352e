//! One linear pass over a file that learns what needs no syntax tree: where string literals and
//! comments are, where Python's logical lines start, and Rust's braces with the statement
//! boundaries inside each. The partial parses (`lang::partial`) and the syntax check of large
//! results are built on it. Table-driven so that it runs at memory speed on ordinary code. Pure.

use std::ops::Range;

use super::Language;
use super::calls::ReferenceKind;

/// A matched `{` `}` pair outside strings, comments, macro token trees and attributes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Brace {
    pub open: usize,
    /// Offset of the `}`; the end of the text when the brace is never closed.
    pub close: usize,
    /// Index (in [`Lexed::braces`]) of the innermost brace around this one.
    pub parent: Option<usize>,
}

/// What the lexer learned about a text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lexed {
    /// String literals and comments, in order, never overlapping.
    pub spans: Vec<(Range<usize>, ReferenceKind)>,
    /// Python: byte offsets where logical lines start (0 first).
    pub logical_lines: Vec<usize>,
    /// Rust: braces sorted by their opening offset.
    pub braces: Vec<Brace>,
    /// Rust: offsets where a statement (or item, or match arm after a block) may start inside a
    /// brace — just after a `;` directly in it, or after a block that ends a statement — with
    /// the index of that brace; sorted by offset.
    pub boundaries: Vec<(usize, usize)>,
    /// Rust: offsets just after each top-level `;` or closing `}` (item boundaries), 0 first.
    pub item_starts: Vec<usize>,
    /// Rust: the outermost token trees (a macro's arguments or body, an attribute's brackets),
    /// delimiters included, in order.
    pub token_trees: Vec<(Range<usize>, TokenTree)>,
}

/// What a Rust token tree belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenTree {
    /// `name!(...)`, `macro_rules! name { ... }`: never parsed as code by tree-sitter.
    Macro,
    /// `#[...]`, `#![...]`: mostly a token tree, but `#[doc = expr]` holds an expression.
    Attribute,
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

    /// Rust: the outermost macro or attribute token tree containing `offset`, if any.
    pub fn token_tree_at(&self, offset: usize) -> Option<TokenTree> {
        let index = self.token_trees.partition_point(|(r, _)| r.start <= offset);
        index
            .checked_sub(1)
            .map(|i| &self.token_trees[i])
            .filter(|(r, _)| r.contains(&offset))
            .map(|(_, kind)| *kind)
    }
}

/// Lexes `text` in one pass.
pub fn lex(lang: Language, text: &str) -> Lexed {
    match lang {
        Language::Python => lex_python(text.as_bytes()),
        Language::Rust => lex_rust(text.as_bytes()),
    }
}

const fn table(bytes: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < bytes.len() {
        t[bytes[i] as usize] = true;
        i += 1;
    }
    t
}

const fn ident_table() -> [bool; 256] {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b == b'_' || b.is_ascii_alphanumeric() || b >= 0x80;
        c += 1;
    }
    t
}

static IDENT: [bool; 256] = ident_table();

/// Bytes the Python lexer must look at; everything else is skipped in a tight loop.
static PYTHON_SPECIAL: [bool; 256] = table(b"#'\"\\([{)]}\n");

/// Bytes the Rust lexer must look at (raw and byte strings are recognised at their quote).
static RUST_SPECIAL: [bool; 256] = table(b"/\"'{([})];!");

pub(crate) fn is_ident_byte(b: u8) -> bool {
    IDENT[b as usize]
}

/// The first offset at or after `i` whose byte is in `special`.
#[inline]
fn skip_plain(b: &[u8], i: usize, special: &[bool; 256]) -> usize {
    b.get(i..)
        .and_then(|rest| rest.iter().position(|c| special[*c as usize]))
        .map_or(b.len(), |n| i + n)
}

fn line_comment_end(b: &[u8], at: usize) -> usize {
    let end = memchr::memchr(b'\n', &b[at..]).map_or(b.len(), |n| at + n);
    if end > at && b[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

fn lex_python(b: &[u8]) -> Lexed {
    let mut lexed = Lexed {
        logical_lines: vec![0],
        ..Lexed::default()
    };
    let mut depth = 0usize;
    let mut i = 0;
    loop {
        i = skip_plain(b, i, &PYTHON_SPECIAL);
        let Some(&byte) = b.get(i) else {
            break;
        };
        match byte {
            b'#' => {
                let end = line_comment_end(b, i);
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
        // Jump to the next byte that can end or escape the string.
        i = match memchr::memchr3(b'\\', quote, b'\n', &b[i..]) {
            Some(n) => i + n,
            None => return b.len(),
        };
        match b[i] {
            b'\\' => i += 2,
            b'\n' if !triple => return i,
            b'\n' => i += 1,
            _ => {
                if !triple {
                    return i + 1;
                }
                if b.get(i + 1) == Some(&quote) && b.get(i + 2) == Some(&quote) {
                    return i + 3;
                }
                i += 1;
            }
        }
    }
    b.len()
}

/// An open delimiter on the Rust lexer's stack.
struct Open {
    byte: u8,
    at: usize,
    /// Set on the outermost delimiter of a token tree.
    tree: Option<TokenTree>,
    /// Inside a macro's token tree or an attribute: braces there are not code blocks.
    in_macro: bool,
    /// Index in `Lexed::braces` for a recorded brace.
    brace: Option<usize>,
}

fn lex_rust(b: &[u8]) -> Lexed {
    let mut lexed = Lexed {
        item_starts: vec![0],
        ..Lexed::default()
    };
    let mut stack: Vec<Open> = Vec::new();
    // Recorded braces currently open, innermost last.
    let mut open_braces: Vec<usize> = Vec::new();
    // Set by `name!`; the next delimiter opens a macro token tree (`macro_rules! name {` too).
    let mut macro_pending = false;
    let mut i = 0;
    loop {
        if !macro_pending {
            i = skip_plain(b, i, &RUST_SPECIAL);
        }
        let Some(&byte) = b.get(i) else {
            break;
        };
        match byte {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = line_comment_end(b, i);
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
                let (start, end) = match raw_string_prefix(b, i) {
                    Some(start) => (start, rust_raw_string_end(b, start).unwrap_or(b.len())),
                    None => {
                        let start = if i > 0
                            && matches!(b[i - 1], b'b' | b'c')
                            && (i < 2 || !is_ident_byte(b[i - 2]))
                        {
                            i - 1
                        } else {
                            i
                        };
                        (start, rust_string_end(b, i))
                    }
                };
                lexed.spans.push((start..end, ReferenceKind::InString));
                macro_pending = false;
                i = end;
                continue;
            }
            c if is_ident_byte(c) => {
                // Only while a macro is announced: `macro_rules! name {` keeps the flag.
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
                let inside_tree = stack.last().is_some_and(|o| o.in_macro);
                let in_macro = macro_pending || attribute || inside_tree;
                let tree = match (inside_tree, attribute, macro_pending) {
                    (false, true, _) => Some(TokenTree::Attribute),
                    (false, false, true) => Some(TokenTree::Macro),
                    _ => None,
                };
                let brace = (open == b'{' && !in_macro).then(|| {
                    lexed.braces.push(Brace {
                        open: i,
                        close: b.len(),
                        parent: open_braces.last().copied(),
                    });
                    open_braces.push(lexed.braces.len() - 1);
                    lexed.braces.len() - 1
                });
                stack.push(Open {
                    byte: open,
                    at: i,
                    tree,
                    in_macro,
                    brace,
                });
                macro_pending = false;
            }
            b'}' | b')' | b']' => {
                if let Some(closed) = stack.pop() {
                    if let Some(index) = closed.brace {
                        lexed.braces[index].close = i;
                        open_braces.pop();
                    }
                    if let Some(tree) = closed.tree {
                        lexed.token_trees.push((closed.at..i + 1, tree));
                    }
                }
                match stack.last() {
                    // A closing brace at the top ends an item unless the item goes on
                    // (`use a::{b, c};`, `const S: T = if a { .. } else { .. };`).
                    None if byte == b'}' && block_ends_statement(b, i + 1) => {
                        lexed.item_starts.push(i + 1);
                    }
                    Some(Open {
                        byte: b'{',
                        in_macro: false,
                        brace: Some(owner),
                        ..
                    }) if byte == b'}' && block_ends_statement(b, i + 1) => {
                        lexed.boundaries.push((i + 1, *owner));
                    }
                    _ => {}
                }
                macro_pending = false;
            }
            b';' => {
                match stack.last() {
                    None => lexed.item_starts.push(i + 1),
                    Some(Open {
                        byte: b'{',
                        in_macro: false,
                        brace: Some(owner),
                        ..
                    }) => lexed.boundaries.push((i + 1, *owner)),
                    _ => {}
                }
                macro_pending = false;
            }
            b'!' => {
                // `name!` (not `!=`) announces a macro invocation or `macro_rules!`.
                macro_pending = i > 0 && is_ident_byte(b[i - 1]) && b.get(i + 1) != Some(&b'=');
            }
            c if c.is_ascii_whitespace() => {}
            _ => macro_pending = false,
        }
        i += 1;
    }
    lexed
}

/// Whether a block closed just before `after` ends its statement: what follows (after spaces
/// and comments) starts something new rather than continuing an expression (`}.iter()`,
/// `} else {`, `})`, `} => x`, `} + 1`, `if unsafe { .. } {`).
fn block_ends_statement(b: &[u8], after: usize) -> bool {
    let mut i = after;
    loop {
        while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
            i += 1;
        }
        match (b.get(i), b.get(i + 1)) {
            (Some(b'/'), Some(b'/')) => i = line_comment_end(b, i),
            (Some(b'/'), Some(b'*')) => i = rust_block_comment_end(b, i),
            _ => break,
        }
    }
    let rest = b.get(i..).unwrap_or(&[]);
    let Some(&first) = rest.first() else {
        return true;
    };
    match first {
        b'.' | b'?' | b')' | b']' | b',' | b';' | b'=' | b'+' | b'-' | b'*' | b'/' | b'%'
        | b'&' | b'|' | b'^' | b'<' | b'>' | b'!' | b'{' => false,
        _ => {
            let word_end = rest
                .iter()
                .position(|c| !is_ident_byte(*c))
                .unwrap_or(rest.len());
            !matches!(&rest[..word_end], b"else" | b"as")
        }
    }
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
        i = match memchr::memchr2(b'\\', b'"', &b[i..]) {
            Some(n) => i + n,
            None => return b.len(),
        };
        if b[i] == b'"' {
            return i + 1;
        }
        i += 2;
    }
    b.len()
}

/// The start of the raw string (`r"`, `r#"`, `br"`, `cr#"`) whose opening quote is at `quote`,
/// or `None` when the quote opens no raw string.
fn raw_string_prefix(b: &[u8], quote: usize) -> Option<usize> {
    let hashes = b[..quote].iter().rev().take_while(|c| **c == b'#').count();
    let r = quote.checked_sub(hashes + 1)?;
    if b[r] != b'r' {
        return None;
    }
    let start = match r.checked_sub(1).map(|p| b[p]) {
        Some(b'b' | b'c') if r < 2 || !is_ident_byte(b[r - 2]) => r - 1,
        _ => r,
    };
    (start == 0 || !is_ident_byte(b[start - 1])).then_some(start)
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(lexed.spans[0].0, 21..25);
        let lexed = lex(
            Language::Python,
            "a = (1,\n 2)\nb = '''x\ny'''\nc = 3 \\\n + 4\n",
        );
        assert_eq!(lexed.logical_lines, vec![0, 12, 26, 39]);
        let lexed = lex(Language::Python, "s = 'a\\'b' # c\nt = rb\"x\"\n");
        assert_eq!(
            lexed.spans,
            vec![
                (4..10, ReferenceKind::InString),
                (11..14, ReferenceKind::InComment),
                (19..24, ReferenceKind::InString)
            ]
        );
    }

    #[test]
    fn rust_braces_and_statement_boundaries() {
        let text = "fn f() {\n    let a = S { x: 1 };\n    if a { b() } else { c() }\n    v.iter().map(|x| { x }).count();\n    m! { d(); }\n}\nstruct T;\n";
        let lexed = lex(Language::Rust, text);
        let opens: Vec<&str> = lexed
            .braces
            .iter()
            .map(|b| &text[b.open..b.open + 1])
            .collect();
        assert_eq!(opens.len(), 5, "macro braces are not blocks: {opens:?}");
        assert!(lexed.braces[1..].iter().all(|b| b.parent == Some(0)));
        let after = |s: &str| text.find(s).unwrap() + s.len();
        let owned: Vec<usize> = lexed
            .boundaries
            .iter()
            .filter(|(_, owner)| *owner == 0)
            .map(|(at, _)| *at)
            .collect();
        assert_eq!(
            owned,
            vec![
                after("{ x: 1 };"),
                after("else { c() }"),
                after(".count();"),
                after("m! { d(); }")
            ]
        );
        assert_eq!(
            lexed.item_starts,
            vec![0, text.find("}\nstruct").unwrap() + 1, after("struct T;")]
        );
    }
}
