//! The identifier postings of one file: every maximal run of word characters (`_` and what
//! Unicode calls alphanumeric — the characters `lang::calls::word_matches` counts as part of a
//! word, so a whole-word match of a name is exactly a run equal to it), each with the roles of
//! its occurrences: lexical (code, string, comment; `lang::lex`), what the lexer sees around a
//! code occurrence (definition, attribute, import; `lang::roles`), and whether it is called as
//! `lang::regions::lexical_call` tells — with the line and column of each call when every code
//! occurrence could be told without a parse (then `candor calls` answers without the file). Pure.

use std::collections::BTreeMap;

use crate::lang::Language;
use crate::lang::calls::{LineCounter, ReferenceKind, line_column};

/// The run occurs in code.
pub const CODE: u8 = 1;
/// The run occurs in a string literal.
pub const STRING: u8 = 2;
/// The run occurs in a comment.
pub const COMMENT: u8 = 4;
/// A code occurrence is the name a definition gives (`def`/`class`, `fn`/`struct`/...).
pub const DEFINITION: u8 = 8;
/// A code occurrence is called (the calls finder's verdict from the text).
pub const CALL: u8 = 16;
/// A code occurrence follows a `.` (attribute, field or method).
pub const ATTRIBUTE: u8 = 32;
/// A code occurrence is in an import (`import`/`from` line, `use` declaration).
pub const IMPORT: u8 = 64;
/// Some code occurrence needs a parse to tell whether it is called: the stored calls are not
/// the whole answer, `candor calls` reads the file.
pub const UNSURE: u8 = 128;

/// What the index keeps of one run.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Run {
    /// The union of the roles of its occurrences.
    pub roles: u8,
    /// The (line, column) of each call, as `candor calls` prints them, in order; complete unless
    /// `roles` has [`UNSURE`].
    pub calls: Vec<(u32, u32)>,
}

/// Whether `c` is part of a word, as `word_matches` has it.
pub fn is_word_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Whether every character of `word` is a word character (and there is one): only such names
/// can be answered from the postings.
pub fn is_word(word: &str) -> bool {
    !word.is_empty() && word.chars().all(is_word_char)
}

/// Every distinct run of `text` with its roles and calls.
pub fn runs(lang: Language, text: &str) -> BTreeMap<&str, Run> {
    let lexed = crate::lang::lex::lex(lang, text);
    let mut found: BTreeMap<&str, Run> = BTreeMap::new();
    let mut lines = LineCounter::new(text);
    let mut add = |from: usize, to: usize| {
        let run = found.entry(&text[from..to]).or_default();
        match lexed.span_at(from).map(|(_, kind)| *kind) {
            Some(ReferenceKind::InString) => run.roles |= STRING,
            Some(ReferenceKind::InComment) => run.roles |= COMMENT,
            _ => {
                let place = from..to;
                let seen = crate::lang::roles::lexical_roles(lang, text, &lexed, &place);
                run.roles |= CODE
                    | if seen.definition { DEFINITION } else { 0 }
                    | if seen.attribute { ATTRIBUTE } else { 0 }
                    | if seen.import { IMPORT } else { 0 };
                match crate::lang::regions::lexical_call(lang, text, &lexed, &place) {
                    None => run.roles |= UNSURE,
                    Some(false) => {}
                    Some(true) => {
                        run.roles |= CALL;
                        let (line, column) = line_column(text, &mut lines, from);
                        run.calls.push((line as u32, column as u32));
                    }
                }
            }
        }
    };
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (is_word_char(c), start) {
            (true, None) => start = Some(i),
            (false, Some(from)) => {
                add(from, i);
                start = None;
            }
            _ => {}
        }
    }
    if let Some(from) = start {
        add(from, text.len());
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_maximal_and_carry_their_roles() {
        let text = "def dédent(x_1):  # dedent it\n    return \"dedent\" + dedent2(x_1)\n";
        let runs = runs(Language::Python, text);
        assert_eq!(runs["dédent"].roles, CODE | DEFINITION);
        assert_eq!(runs["x_1"].roles, CODE);
        assert_eq!(runs["dedent"].roles, COMMENT | STRING);
        assert_eq!(runs["dedent2"].roles, CODE | CALL);
        assert_eq!(runs["dedent2"].calls, vec![(2, 23)]);
        assert!(!runs.contains_key("x"));
        assert!(is_word("dédent") && !is_word("a.b") && !is_word(""));
    }

    #[test]
    fn a_whole_word_match_is_a_run_equal_to_the_word() {
        let texts = [
            "a.dedent(b) xdedent dedent_ dédent dedent",
            "dedent",
            "é dedent2 (dedent)",
        ];
        for text in texts {
            let whole = !crate::lang::calls::word_matches(text, "dedent").is_empty();
            assert_eq!(
                whole,
                runs(Language::Python, text).contains_key("dedent"),
                "{text}"
            );
        }
    }
}
