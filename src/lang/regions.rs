//! Parsing less than the whole file, for the answers that only concern a few places: the
//! mentions of a name (the project-wide call-site search) and whether the edits of a large
//! result parse. The lexer (`lang::lex`) finds strings, comments, Python's logical lines and
//! Rust's blocks; `lang::partial` parses just the statements around the places and the headers
//! that enclose them, in the file's own coordinates. When that partial tree has an error the
//! whole file is parsed, so answers stay those of a full parse. Pure.

use std::ops::Range;

use super::Language;
use super::calls::{Mentions, find_mentions, word_matches};
use super::partial;

use super::lex::{Lexed, lex};

/// The same answer as [`find_mentions`] on a full parse, obtained by lexing the file and parsing
/// only the statements around the whole-word occurrences of `name`. Falls back to the full
/// parse when that partial parse has an error.
pub fn find_mentions_fast(lang: Language, text: &str, name: &str) -> Mentions {
    find_mentions_by_regions(lang, text, name).0
}

/// [`find_mentions_fast`], also saying whether it had to parse the whole file.
pub fn find_mentions_by_regions(lang: Language, text: &str, name: &str) -> (Mentions, bool) {
    let places: Vec<Range<usize>> = word_matches(text, name)
        .into_iter()
        .map(|at| at..at + name.len())
        .collect();
    if places.is_empty() {
        return (Mentions::default(), false);
    }
    let lexed = lex(lang, text);
    match partial::parse_around(lang, text, &lexed, &places) {
        Some(tree) => (find_mentions(lang, &tree, text, name), false),
        None => (find_mentions(lang, &lang.parse(text), text, name), true),
    }
}

/// The name ranges of the calls of `name`, sorted, as the calls of [`find_mentions`] on a full
/// parse. Most occurrences are told from the text around them ([`lexical_verdict`]: `x.name(`
/// is a method call, `name` not followed by `(` is no call, `def name(` is a definition);
/// only the others are parsed, in a partial tree. Also says whether it parsed the whole file
/// (the partial tree had an error), in which case that full parse decided every occurrence.
///
/// On a file that parses, the answer is the full parse's (checked on real trees by
/// `examples/regions_check.rs`); on a file with syntax errors, the occurrences told from the
/// text are not looked at by the parser.
pub fn find_call_names_fast(lang: Language, text: &str, name: &str) -> (Vec<Range<usize>>, bool) {
    if !python_may_call(lang, text, name) {
        return (Vec::new(), false);
    }
    find_call_names_lexed(lang, text, name)
}

/// Whether some occurrence of `name` in a Python text may be a call by what follows it. When
/// none may (each is followed, past spaces and tabs, by what [`lexical_verdict`] takes for no
/// call, first thing), every occurrence is a string's, a comment's or no call, so the file is
/// not lexed. `true` for Rust (an attribute's occurrences are parsed whatever follows them) and
/// for a name the text cannot judge.
fn python_may_call(lang: Language, text: &str, name: &str) -> bool {
    if lang != Language::Python || !lexical_rules_apply(lang, name) {
        return true;
    }
    let b = text.as_bytes();
    word_matches(text, name).into_iter().any(|at| {
        let mut next = at + name.len();
        while matches!(b.get(next), Some(b' ' | b'\t')) {
            next += 1;
        }
        matches!(
            b.get(next),
            Some(b'(' | b'\n' | b'\r' | b'\\' | b'#' | b'\x0c')
        )
    })
}

/// What [`find_call_names_fast`] decides, from the text alone, for the whole-word occurrence of
/// a name at `place`, in code (not in a string or comment of `lexed`, the lexer's view of `text`):
/// `Some(true)` a call, `Some(false)` no call, `None` when only a parse can tell. When every code
/// occurrence of a name in a file has `Some(_)`, its calls there are exactly the `Some(true)`
/// ones (the persistent index stores them, so `candor calls` need not read the file).
pub fn lexical_call(
    lang: Language,
    text: &str,
    lexed: &Lexed,
    place: &Range<usize>,
) -> Option<bool> {
    if !lexical_rules_apply(lang, &text[place.clone()]) {
        return None;
    }
    match lexical_verdict(lang, text.as_bytes(), lexed, place) {
        Verdict::Call => Some(true),
        Verdict::NotCall => Some(false),
        Verdict::Unknown => None,
    }
}

/// [`find_call_names_fast`] without the look at what follows each occurrence first.
fn find_call_names_lexed(lang: Language, text: &str, name: &str) -> (Vec<Range<usize>>, bool) {
    let lexed = lex(lang, text);
    let usable = lexical_rules_apply(lang, name);
    let mut calls: Vec<Range<usize>> = Vec::new();
    let mut unknown: Vec<Range<usize>> = Vec::new();
    for at in word_matches(text, name) {
        if lexed.span_at(at).is_some() {
            continue;
        }
        let place = at..at + name.len();
        let verdict = if usable {
            lexical_verdict(lang, text.as_bytes(), &lexed, &place)
        } else {
            Verdict::Unknown
        };
        match verdict {
            Verdict::Call => calls.push(place),
            Verdict::NotCall => {}
            Verdict::Unknown => unknown.push(place),
        }
    }
    if unknown.is_empty() {
        return (calls, false);
    }
    let (tree, fell_back) = match partial::parse_around(lang, text, &lexed, &unknown) {
        Some(tree) => (tree, false),
        None => (lang.parse(text), true),
    };
    let found = find_mentions(lang, &tree, text, name).calls;
    if fell_back {
        calls = found.into_iter().map(|c| c.name_range).collect();
    } else {
        calls.extend(
            found
                .into_iter()
                .map(|c| c.name_range)
                .filter(|r| unknown.binary_search_by_key(&r.start, |u| u.start).is_ok()),
        );
    }
    calls.sort_unstable_by_key(|r| r.start);
    calls.dedup();
    (calls, fell_back)
}

/// What the text around an occurrence says about it being called.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Call,
    NotCall,
    /// Only a parse can tell (a Rust pattern looks like a call; unusual spacing; ...).
    Unknown,
}

/// Names whose occurrences the text cannot judge: keywords, and names with a grammar rule of
/// their own (Python's `print` statement and soft keywords, Rust's `Fn` traits).
fn lexical_rules_apply(lang: Language, name: &str) -> bool {
    let special: &[&str] = match lang {
        Language::Python => &[
            "print", "exec", "match", "case", "type", "_", "async", "await",
        ],
        Language::Rust => &["Fn", "FnMut", "FnOnce", "union", "macro_rules", "raw"],
    };
    !name.is_empty() && !lang.is_keyword(name) && !special.contains(&name)
}

/// Python words after which a name followed by `(` is called.
const PYTHON_CALL_AFTER: &[&[u8]] = &[
    b"return", b"await", b"not", b"in", b"is", b"and", b"or", b"if", b"elif", b"else", b"while",
    b"yield", b"assert", b"raise", b"from", b"with", b"except",
];

/// Python statements whose first word makes `name(` something else than a call, or may.
const PYTHON_OTHER_STATEMENTS: &[&[u8]] = &[
    b"case",
    b"del",
    b"global",
    b"nonlocal",
    b"import",
    b"print",
    b"exec",
];

/// Judges the occurrence of the name at `place` (in code) from the text around it.
fn lexical_verdict(lang: Language, b: &[u8], lexed: &Lexed, place: &Range<usize>) -> Verdict {
    if lang == Language::Rust {
        match lexed.token_tree_at(place.start) {
            // tree-sitter keeps a macro's arguments as tokens: nothing there is a call.
            Some(super::lex::TokenTree::Macro) => return Verdict::NotCall,
            Some(super::lex::TokenTree::Attribute) => return Verdict::Unknown,
            None => {}
        }
    }
    // What follows: a call's name is followed by its arguments (or, in Rust, a turbofish).
    let mut next = place.end;
    match lang {
        Language::Python => {
            while matches!(b.get(next), Some(b' ' | b'\t')) {
                next += 1;
            }
            match b.get(next) {
                Some(b'(') => {}
                Some(b'\n' | b'\r' | b'\\' | b'#' | b'\x0c') => return Verdict::Unknown,
                _ => return Verdict::NotCall,
            }
        }
        Language::Rust => {
            while b.get(next).is_some_and(|c| c.is_ascii_whitespace()) {
                next += 1;
            }
            match b.get(next) {
                Some(b'(') => {}
                Some(b'/') => return Verdict::Unknown,
                Some(b':') if b[next..].starts_with(b"::<") => return Verdict::Unknown,
                _ => return Verdict::NotCall,
            }
        }
    }
    // What precedes.
    if lang == Language::Python {
        let line = lexed.logical_lines.partition_point(|s| *s <= place.start) - 1;
        let line_start = lexed.logical_lines[line];
        let indent_end = line_start
            + b[line_start..]
                .iter()
                .take_while(|c| matches!(c, b' ' | b'\t' | b'\x0c'))
                .count();
        let first_word_end = indent_end
            + b[indent_end..]
                .iter()
                .take_while(|c| super::lex::is_ident_byte(**c))
                .count();
        if PYTHON_OTHER_STATEMENTS.contains(&&b[indent_end..first_word_end]) {
            return Verdict::Unknown;
        }
        if indent_end == place.start {
            return Verdict::Call;
        }
    }
    let Some(prev) = previous_token_end(b, lexed, place.start) else {
        return match lang {
            Language::Python => Verdict::Call,
            Language::Rust => Verdict::Unknown,
        };
    };
    if lexed.span_at(prev).is_some() {
        // Right after a string literal.
        return Verdict::Unknown;
    }
    match b[prev] {
        b'.' => {
            let before = prev.checked_sub(1).map(|p| b[p]);
            if before.is_some_and(|c| c == b'.' || c.is_ascii_digit()) {
                Verdict::Unknown
            } else {
                Verdict::Call
            }
        }
        c if super::lex::is_ident_byte(c) => {
            let start = b[..=prev]
                .iter()
                .rposition(|c| !super::lex::is_ident_byte(*c))
                .map_or(0, |p| p + 1);
            let word = &b[start..=prev];
            match lang {
                Language::Python if word == b"def" || word == b"class" => Verdict::NotCall,
                Language::Python if PYTHON_CALL_AFTER.contains(&word) => Verdict::Call,
                Language::Rust if word == b"fn" => Verdict::NotCall,
                Language::Rust if rust_in_expression(b, lexed, place) => Verdict::Call,
                _ => Verdict::Unknown,
            }
        }
        _ if lang == Language::Rust => {
            if rust_in_expression(b, lexed, place) {
                Verdict::Call
            } else {
                // A Rust pattern (`Some(x) =>`, `let T(a) =`) reads like a call.
                Verdict::Unknown
            }
        }
        // `a * f(x)`: a product, `f(x)` its right operand.
        b'*' if python_product(b, lexed, prev) => Verdict::Call,
        // `*` too: tree-sitter-python reads `[*f(x)]` as a call of `*f`.
        b')' | b']' | b'}' | b'\\' | b'\'' | b'"' | b'*' => Verdict::Unknown,
        _ => Verdict::Call,
    }
}

/// Python: whether the `*` at `star` is a product's, its left operand ending just before it (a
/// closing bracket, a string, a number or a name that is not a keyword), not `*args`/`**kw`.
fn python_product(b: &[u8], lexed: &Lexed, star: usize) -> bool {
    let Some(left) = previous_token_end(b, lexed, star) else {
        return false;
    };
    let line_of = |at: usize| lexed.logical_lines.partition_point(|s| *s <= at);
    if line_of(left) != line_of(star) {
        return false;
    }
    if lexed.span_at(left).is_some() {
        return true;
    }
    match b[left] {
        b')' | b']' | b'}' => true,
        c if super::lex::is_ident_byte(c) => {
            let start = b[..=left]
                .iter()
                .rposition(|c| !super::lex::is_ident_byte(*c))
                .map_or(0, |p| p + 1);
            let word = std::str::from_utf8(&b[start..=left]).unwrap_or("");
            b[start].is_ascii_digit()
                || (!word.is_empty()
                    && !Language::Python.is_keyword(word)
                    && lexical_rules_apply(Language::Python, word))
        }
        _ => false,
    }
}

/// Rust words after which an expression starts.
const RUST_EXPRESSION_AFTER: &[&[u8]] = &[b"return", b"in", b"if", b"while", b"match", b"break"];

/// Rust: whether the path whose last segment is at `place` (`name`, `a::Type::name`) certainly
/// stands where an expression does, so that `path(...)` is a call and not a tuple-struct
/// pattern or a type: after `=` (an initializer or an assignment, not `type A =` or `Item =`),
/// `=>`, `return`, `in`, `if`, `while`, `match`, an arithmetic operator, or first in the
/// arguments of a method call. Anything else is left to the parser.
fn rust_in_expression(b: &[u8], lexed: &Lexed, place: &Range<usize>) -> bool {
    use super::lex::is_ident_byte;
    let word_start = |end: usize| {
        b[..=end]
            .iter()
            .rposition(|c| !is_ident_byte(*c))
            .map_or(0, |p| p + 1)
    };
    // Back over the `segment::` pairs of the path.
    let mut start = place.start;
    while let Some(p) = previous_token_end(b, lexed, start) {
        if !(p >= 1 && b[p] == b':' && b[p - 1] == b':') {
            break;
        }
        match previous_token_end(b, lexed, p - 1) {
            Some(q) if is_ident_byte(b[q]) => start = word_start(q),
            _ => return false,
        }
    }
    let Some(prev) = previous_token_end(b, lexed, start) else {
        return false;
    };
    if lexed.span_at(prev).is_some() {
        return false;
    }
    let before = prev.checked_sub(1).map(|i| b[i]);
    match b[prev] {
        b'=' => match previous_token_end(b, lexed, prev) {
            // `(a, b) = `, `v[i] = `, `x == `, `x += `: an expression follows.
            Some(q)
                if matches!(
                    b[q],
                    b')' | b']'
                        | b'='
                        | b'!'
                        | b'+'
                        | b'-'
                        | b'*'
                        | b'/'
                        | b'%'
                        | b'^'
                        | b'|'
                        | b'&'
                ) =>
            {
                true
            }
            // `let x = `, `x = `; not `type A = ` or `<Item = `.
            Some(q) if is_ident_byte(b[q]) => {
                let before_word = previous_token_end(b, lexed, word_start(q));
                match before_word {
                    Some(w) if matches!(b[w], b'<' | b',') => false,
                    Some(w) if is_ident_byte(b[w]) => &b[word_start(w)..=w] != b"type",
                    _ => true,
                }
            }
            _ => false,
        },
        b'>' => before == Some(b'='),
        b'+' | b'*' | b'/' | b'%' | b'^' => true,
        b'-' => true,
        // `!path(..)`, not `macro_rules! name(`.
        b'!' => before.is_none_or(|c| !is_ident_byte(c) && !c.is_ascii_whitespace()),
        b'(' => match previous_token_end(b, lexed, prev) {
            // `x.method(path(..))`
            Some(q) if is_ident_byte(b[q]) => {
                let w = word_start(q);
                RUST_EXPRESSION_AFTER.contains(&&b[w..=q])
                    || previous_token_end(b, lexed, w).is_some_and(|d| {
                        b[d] == b'.' && d.checked_sub(1).is_none_or(|e| b[e] != b'.')
                    })
            }
            _ => false,
        },
        c if is_ident_byte(c) => RUST_EXPRESSION_AFTER.contains(&&b[word_start(prev)..=prev]),
        _ => false,
    }
}

/// The offset of the last byte before `at` that is neither whitespace nor inside a comment.
pub(crate) fn previous_token_end(b: &[u8], lexed: &Lexed, at: usize) -> Option<usize> {
    let mut i = at;
    loop {
        i = i.checked_sub(1)?;
        if matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | b'\x0c') {
            continue;
        }
        match lexed.span_at(i) {
            Some((span, super::calls::ReferenceKind::InComment)) => i = span.start,
            _ => return Some(i),
        }
    }
}

/// Whether the statements of `text` touched by `ranges` parse without errors. `None` when that
/// cannot be told from a partial parse (the caller then parses the whole file).
pub fn regions_parse_clean(lang: Language, text: &str, ranges: &[Range<usize>]) -> Option<bool> {
    let lexed = lex(lang, text);
    partial::parse_around(lang, text, &lexed, ranges).map(|_| true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_python_file_whose_occurrences_cannot_be_calls_is_not_lexed_and_answers_the_same() {
        // What follows each occurrence decides whether the lexer runs; the answer is the one of
        // the lexed path either way (a newline, a backslash, a comment or a form feed after the
        // name leave it to the parser: inside brackets the call may go on on the next line).
        let texts = [
            (
                "x = len + 1\ny = [len, len.__name__]\nz = 'len' # len here\n",
                false,
            ),
            ("n = len (x)\n", true),
            ("n = (len\n   (x))\n", true),
            ("n = (len  # why\n   (x))\n", true),
            ("n = len \\\n    (x)\n", true),
            ("n = (len\r\n(x))\n", true),
            ("n = (len\x0c(x))\n", true),
            ("@len\ndef f(): pass\n", true),
            ("s = 'len(' + len\n", true),
            ("x = lens(1) + a_len(2) + len", false),
        ];
        for (text, may) in texts {
            assert_eq!(
                python_may_call(Language::Python, text, "len"),
                may,
                "{text:?}"
            );
            assert_eq!(
                find_call_names_fast(Language::Python, text, "len"),
                find_call_names_lexed(Language::Python, text, "len"),
                "{text:?}"
            );
        }
        assert!(python_may_call(Language::Rust, "x = len;", "len"));
        assert!(python_may_call(Language::Python, "x = print", "print"));
    }

    fn same_as_full(lang: Language, text: &str, name: &str) {
        let full = find_mentions(lang, &lang.parse(text), text, name);
        let (fast, fell_back) = find_mentions_by_regions(lang, text, name);
        assert!(
            !fell_back,
            "{lang:?} `{name}` needed the whole file:\n{text}"
        );
        assert_eq!(fast, full, "{lang:?} `{name}` in:\n{text}");
        let (calls, _) = find_call_names_fast(lang, text, name);
        let mut expected: Vec<Range<usize>> =
            full.calls.iter().map(|c| c.name_range.clone()).collect();
        expected.sort_by_key(|r| r.start);
        assert_eq!(calls, expected, "{lang:?} `{name}` calls in:\n{text}");
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
fn r() {
    let v = items.iter().map(|x| { x.dedent() }).collect::<Vec<_>>().dedent();
    if a { b } else if c { dedent(d) } else { e.dedent() }
    match y { S { f } => dedent(f), T(g) => { g.dedent() } U => 1, }
}
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
    fn a_product_s_right_operand_is_told_a_call_from_the_text() {
        let text = "x = 2 * len(a)\ny = '0'*len(b) + f(a) * len(c) + [1] * len(e)\n\
                    z = [*len(d)]\nw = f(**len(g))\ndef h(): return *len(f), g\nv = (a\n * len(z))\n";
        same_as_full(Language::Python, text, "len");
        let lexed = lex(Language::Python, text);
        let verdicts: Vec<Option<bool>> = word_matches(text, "len")
            .into_iter()
            .map(|at| lexical_call(Language::Python, text, &lexed, &(at..at + 3)))
            .collect();
        let told = Some(true);
        assert_eq!(
            verdicts,
            [told, told, told, told, None, None, None, told],
            "{text}"
        );
    }

    #[test]
    fn syntax_check_by_regions() {
        let text = "def f():\n    return g(1, 2)\n\ndef h():\n    pass\n";
        let at = text.find("1, 2").unwrap();
        assert_eq!(
            regions_parse_clean(Language::Python, text, std::slice::from_ref(&(at..at + 4))),
            Some(true)
        );
        let broken = "def f():\n    return g(1,, 2)\n";
        let at = broken.find("1,,").unwrap();
        assert_eq!(
            regions_parse_clean(
                Language::Python,
                broken,
                std::slice::from_ref(&(at..at + 3))
            ),
            None
        );
    }
}
