//! The role of one occurrence of a word in code as the lexer sees it (no parse): the name a
//! definition gives (`def name`, `fn name`), an attribute or field access (after `.`), a name in
//! an import (`import`/`from` lines, Rust `use` declarations). The persistent index stores
//! these with each posting. Lexical facts, not a parse's: pure.

use std::ops::Range;

use super::Language;
use super::lex::{Lexed, is_ident_byte};
use super::regions::previous_token_end;

/// What the text around an occurrence says it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Lexical {
    /// The name right after `def`/`class` (Python) or `fn`, `struct`, `enum`, `trait`, `mod`,
    /// `type`, `const`, `static`, `union` (Rust).
    pub definition: bool,
    /// Right after a `.` that is not part of `..`.
    pub attribute: bool,
    /// In a Python logical line that starts with `import` or `from`, or a Rust `use` declaration.
    pub import: bool,
}

const RUST_DEFINERS: &[&[u8]] = &[
    b"fn", b"struct", b"enum", b"trait", b"mod", b"type", b"const", b"static", b"union",
];

/// How far back (in tokens) a Rust occurrence is followed to find the `use` of its declaration.
const RUST_USE_REACH: usize = 64;

/// The roles of the occurrence at `place` (in code, per `lexed`, the lexer's view of `text`).
pub fn lexical_roles(lang: Language, text: &str, lexed: &Lexed, place: &Range<usize>) -> Lexical {
    let b = text.as_bytes();
    let mut found = Lexical::default();
    if let Some(prev) = previous_token_end(b, lexed, place.start)
        && lexed.span_at(prev).is_none()
    {
        if b[prev] == b'.' {
            found.attribute = prev.checked_sub(1).is_none_or(|p| b[p] != b'.');
        } else if is_ident_byte(b[prev]) {
            let word = &b[word_start(b, prev)..=prev];
            found.definition = match lang {
                Language::Python => word == b"def" || word == b"class",
                Language::Rust => RUST_DEFINERS.contains(&word),
            };
        }
    }
    found.import = match lang {
        Language::Python => python_import_line(b, lexed, place.start),
        Language::Rust => rust_in_use(b, lexed, place.start),
    };
    found
}

fn word_start(b: &[u8], end: usize) -> usize {
    b[..=end]
        .iter()
        .rposition(|c| !is_ident_byte(*c))
        .map_or(0, |p| p + 1)
}

fn python_import_line(b: &[u8], lexed: &Lexed, at: usize) -> bool {
    let Some(line) = lexed
        .logical_lines
        .partition_point(|s| *s <= at)
        .checked_sub(1)
    else {
        return false;
    };
    let start = lexed.logical_lines[line];
    let indent = start
        + b[start..]
            .iter()
            .take_while(|c| matches!(c, b' ' | b'\t' | b'\x0c'))
            .count();
    let end = indent
        + b[indent..]
            .iter()
            .take_while(|c| is_ident_byte(**c))
            .count();
    matches!(&b[indent..end], b"import" | b"from")
}

/// Back over path segments, `::`, `,`, braces and `*` to a `use` (within [`RUST_USE_REACH`]).
fn rust_in_use(b: &[u8], lexed: &Lexed, at: usize) -> bool {
    let mut i = at;
    for _ in 0..RUST_USE_REACH {
        let Some(prev) = previous_token_end(b, lexed, i) else {
            return false;
        };
        match b[prev] {
            c if is_ident_byte(c) => {
                let start = word_start(b, prev);
                if &b[start..=prev] == b"use" {
                    return true;
                }
                i = start;
            }
            b':' | b',' | b'{' | b'}' | b'*' => i = prev,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::calls::word_matches;
    use crate::lang::lex::lex;

    fn roles_of(lang: Language, text: &str, name: &str) -> Vec<(bool, bool, bool)> {
        let lexed = lex(lang, text);
        word_matches(text, name)
            .into_iter()
            .filter(|at| lexed.span_at(*at).is_none())
            .map(|at| {
                let r = lexical_roles(lang, text, &lexed, &(at..at + name.len()));
                (r.definition, r.attribute, r.import)
            })
            .collect()
    }

    #[test]
    fn python_definitions_attributes_and_imports() {
        let text = "from m import f\nimport f\ndef f(): pass\nx = a.f(1) + f(2)\ny = a..f\n";
        assert_eq!(
            roles_of(Language::Python, text, "f"),
            vec![
                (false, false, true),
                (false, false, true),
                (true, false, false),
                (false, true, false),
                (false, false, false),
                (false, false, false),
            ]
        );
    }

    #[test]
    fn rust_definitions_attributes_and_uses() {
        let text = "use a::{b::f, c};\npub use f;\nfn f() {}\nfn g() { s.f(); f(); 0..f; }\n";
        assert_eq!(
            roles_of(Language::Rust, text, "f"),
            vec![
                (false, false, true),
                (false, false, true),
                (true, false, false),
                (false, true, false),
                (false, false, false),
                (false, false, false),
            ]
        );
    }
}
