//! The identifier postings of one file: every maximal run of word characters (`_` and what
//! Unicode calls alphanumeric — the characters `lang::calls::word_matches` counts as part of a
//! word, so a whole-word match of a name is exactly a run equal to it), each with the lexical
//! roles it occurs in (code, string, comment; `lang::lex` tells strings and comments). Pure.

use std::collections::BTreeMap;

use crate::lang::Language;
use crate::lang::calls::ReferenceKind;

/// The run occurs in code.
pub const CODE: u8 = 1;
/// The run occurs in a string literal.
pub const STRING: u8 = 2;
/// The run occurs in a comment.
pub const COMMENT: u8 = 4;

/// Whether `c` is part of a word, as `word_matches` has it.
pub fn is_word_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Whether every character of `word` is a word character (and there is one): only such names
/// can be answered from the postings.
pub fn is_word(word: &str) -> bool {
    !word.is_empty() && word.chars().all(is_word_char)
}

/// Every distinct run of `text` with the union of the roles of its occurrences.
pub fn runs(lang: Language, text: &str) -> BTreeMap<&str, u8> {
    let lexed = crate::lang::lex::lex(lang, text);
    let mut found: BTreeMap<&str, u8> = BTreeMap::new();
    let mut start = None;
    let mut add = |from: usize, to: usize| {
        let role = match lexed.span_at(from).map(|(_, kind)| *kind) {
            Some(ReferenceKind::InString) => STRING,
            Some(ReferenceKind::InComment) => COMMENT,
            _ => CODE,
        };
        *found.entry(&text[from..to]).or_insert(0) |= role;
    };
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
        assert_eq!(runs["dédent"], CODE);
        assert_eq!(runs["x_1"], CODE);
        assert_eq!(runs["dedent"], COMMENT | STRING);
        assert_eq!(runs["dedent2"], CODE);
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
