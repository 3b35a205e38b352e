//! The trees the checks of what no refactor may write (Rust patterns, imports) read: a change's
//! text before or after, parsed around its edits only. A pattern the result gets wrong holds an
//! edit, and so does a new `use` leaf; so the tree holds, whole, every function an edit is in
//! (elsewhere the statement around the edit and the headers of the blocks around it) and every
//! `use` declaration of the file (`lang::partial::WHOLE_FUNCTIONS`, the references judge's own
//! kind of tree). When each edit replaces or writes exactly one whole word (a rename), the tree
//! is asked of the store around those words: the judge's tree of the text before, and, for the
//! text after, one the next request finds again.

use std::ops::Range;

use tree_sitter::Tree;

use crate::edit::FileChange;
use crate::lang::Language;
use crate::lang::calls::word_matches;
use crate::lang::partial::{WHOLE_FUNCTIONS, parse_around_places};

use super::{AfterMap, Project, text_of};
use crate::edit::SourceFile;
use crate::refactor::sources::{map_in_parallel, tree_around_present_words};

impl Project<'_> {
    /// Asks the store, on every core, for the trees the checks of the Rust changes will ask it
    /// for by words: of the text after, the trees around the edits
    /// ([`tree_around_edits`](Project::tree_around_edits)); of the text before, the trees
    /// around its `use`s ([`tree_around_uses`](Project::tree_around_uses)). The checks then
    /// find them kept rather than parsing one file after another. Nothing when fewer than two
    /// are to be made. A rename's checks ask first for the trees around its names
    /// (`cross::members`), which serve the others: `names` are the old and the new; after,
    /// the members check asks around the new name only (the edits), before, around both and
    /// only of a text that has the new name.
    pub fn prepare_trees_around_edits(&self, names: Option<[&str; 2]>) {
        let mut wanted: Vec<(SourceFile, Vec<&str>)> = Vec::new();
        let rust = |c: &&FileChange| Language::from_path(&c.path) == Some(Language::Rust);
        for change in self.changes.iter().filter(rust) {
            for after in [false, true] {
                let Some(file) = text_of(change, after) else {
                    continue;
                };
                if self.known_tree(change, after).is_some() {
                    continue;
                }
                let words = match (after, names) {
                    (true, Some([_, new])) => Some(vec![new]),
                    (true, None) => edit_words(&change.after, &edited_ranges(change, true)),
                    // Before, the members check reads the new name's sites where the text has
                    // it; otherwise only the imports check reads the text, its `use`s alone.
                    (false, Some([old, new])) if !word_matches(&change.before, new).is_empty() => {
                        Some(vec![old, new])
                    }
                    // Word for word, the imports check reads the `use`s before off the text
                    // after (`imports::leaves_before_off_word_edits`).
                    (false, _) if word_for_word(change) => None,
                    (false, _) => has_uses(&change.before).then(Vec::new),
                };
                let Some(mut words) = words else {
                    continue;
                };
                words.extend(USES);
                wanted.push((file, words));
            }
        }
        if wanted.len() < 2 {
            return;
        }
        let store = self.sources.parsed();
        map_in_parallel(store, &wanted, &|(file, words)| {
            tree_around_present_words(store, Language::Rust, file, words);
        });
    }
}

/// The words a tree around a change's `use` declarations is asked around: `use`, each
/// declaration whole (and the whole function around one inside a function).
const USES: [&str; 2] = ["use", WHOLE_FUNCTIONS];

/// Whether `text` holds the word `use`: a text without it has no `use` declaration.
fn has_uses(text: &str) -> bool {
    !word_matches(text, "use").is_empty()
}

impl Project<'_> {
    /// A tree of a change's text before (`after` false) or after that holds every `use`
    /// declaration whole, all the imports check reads of the text before: a full tree a check
    /// already has, else a partial tree around the word `use` (cheaper than one around the
    /// edits, whose whole functions it need not parse), which the store's tree around more
    /// words serves (the references judge's). `None` when the text has no `use` declaration.
    pub fn tree_around_uses(&self, change: &FileChange, after: bool) -> Option<Tree> {
        if let Some(tree) = self.known_tree(change, after) {
            return Some(tree);
        }
        let text = if after { &change.after } else { &change.before };
        has_uses(text).then(|| self.tree_around(change, after, &USES))
    }

    /// A tree of a change's text before (`after` false) or after that holds every function an
    /// edit is in, whole (outside functions, the statement around the edit and the headers
    /// around it), and every `use` declaration whole: a full tree a check already has, else a
    /// partial one (the full one when that has an error).
    pub fn tree_around_edits(&self, change: &FileChange, after: bool) -> Tree {
        let text = if after { &change.after } else { &change.before };
        let edited = edited_ranges(change, after);
        if let Some(mut words) = edit_words(text, &edited) {
            words.extend(USES);
            return self.tree_around(change, after, &words);
        }
        if let Some(tree) = self.known_tree(change, after) {
            return tree;
        }
        let lang = Language::from_path(&change.path).unwrap_or(self.lang);
        let mut places = edited;
        places.extend(word_matches(text, "use").into_iter().map(|at| at..at + 3));
        parse_around_places(lang, text, places, true).0
    }
}

/// The ranges a change's edits replaced in the text before, or wrote in the text after.
pub(super) fn edited_ranges(change: &FileChange, after: bool) -> Vec<Range<usize>> {
    match after {
        true => AfterMap::new(change)
            .spans()
            .iter()
            .map(|(_, a)| a.clone())
            .collect(),
        false => change.edits.iter().map(|e| e.range.clone()).collect(),
    }
}

/// The words `ranges` of `text` are, when each is exactly one whole-word occurrence of a word
/// (as `word_matches` finds it); `None` otherwise.
fn edit_words<'t>(text: &'t str, ranges: &[Range<usize>]) -> Option<Vec<&'t str>> {
    let mut words: Vec<&str> = Vec::new();
    for range in ranges {
        let word = text.get(range.clone()).filter(|w| is_word(w))?;
        if !words.contains(&word) {
            words.push(word);
        }
    }
    for word in &words {
        let found = word_matches(text, word);
        let all_found = ranges
            .iter()
            .filter(|r| &text[(*r).clone()] == *word)
            .all(|r| found.binary_search(&r.start).is_ok());
        if !all_found {
            return None;
        }
    }
    words.sort_unstable();
    Some(words)
}

/// Whether every edit of `change` writes one whole word in place of one whole word (a rename's
/// edits), neither of them a keyword, weak ones included: the text's tokens are then the same
/// kinds around and at the edits, and a parse of it the same shape, before and after.
pub(super) fn word_for_word(change: &FileChange) -> bool {
    let lang = Language::from_path(&change.path).unwrap_or(Language::Rust);
    let plain = |word: &&str| !lang.is_keyword(word) && !WEAK_KEYWORDS.contains(word);
    [false, true].into_iter().all(|after| {
        let text = if after { &change.after } else { &change.before };
        edit_words(text, &edited_ranges(change, after)).is_some_and(|w| w.iter().all(plain))
    })
}

/// Words that are keywords in some places only (Rust's `union`, `default`, `macro_rules`, `raw`,
/// `safe`, `auto`; Python's soft keywords): a word edit that writes or removes one may change how
/// the text around it parses.
const WEAK_KEYWORDS: &[&str] = &[
    "union",
    "default",
    "macro_rules",
    "raw",
    "safe",
    "auto",
    "match",
    "case",
    "type",
    "_",
];

fn is_word(text: &str) -> bool {
    !text.is_empty() && text.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Whether `range` touches one of `edited` (sorted, as [`edited_ranges`] gives them): overlaps
/// it, or ends or starts where it does.
pub(super) fn touches_edits(edited: &[Range<usize>], range: &Range<usize>) -> bool {
    let first = edited.partition_point(|e| e.end < range.start);
    edited.get(first).is_some_and(|e| e.start <= range.end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::TextEdit;
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::{MemorySources, ParsedFiles, RenameRequest, Request};
    use std::sync::Mutex;

    /// Files in memory whose store notes the words each tree is asked around, by text.
    struct Asked {
        files: MemorySources,
        asked: Mutex<Vec<(String, Vec<String>)>>,
    }

    crate::refactor::kept_facts::sources_in_memory_with_own_store!(Asked);

    impl ParsedFiles for Asked {
        fn tree_around_words(&self, lang: Language, file: &SourceFile, words: &[&str]) -> Tree {
            let noted = words.iter().map(|w| w.to_string()).collect();
            self.asked
                .lock()
                .unwrap()
                .push((file.text.to_string(), noted));
            crate::lang::partial::parse_around_words(lang, &file.text, words).0
        }
    }

    /// The words each text of `change` was asked around by the checks of renaming `len` `size`.
    fn asked_by_checks(before: &str, change: FileChange) -> (Vec<Vec<String>>, Vec<Vec<String>>) {
        let asked = Asked {
            files: MemorySources::new().with("src/b.rs", before),
            asked: Mutex::default(),
        };
        let request = Request::Rename(RenameRequest {
            file: "src/a.rs".to_string(),
            symbol: SymbolQuery {
                name: "len".to_string(),
                line: Some(3),
                column: None,
            },
            new_name: "size".to_string(),
            include_possible: Vec::new(),
        });
        let after = change.after.clone();
        crate::refactor::cross::check(&request, Language::Rust, &[change], &asked, &[]);
        let asked = asked.asked.into_inner().unwrap();
        let of = |text: &str| -> Vec<Vec<String>> {
            asked
                .iter()
                .filter(|(t, _)| t == text)
                .map(|(_, words)| words.clone())
                .collect()
        };
        (of(before), of(&after))
    }

    #[test]
    fn a_renames_checks_read_a_text_before_without_the_new_name_only_around_its_uses() {
        // `len` renamed `size` in a file that calls it (not the definition's), where a call of
        // another `len` stays: the text before has no `size`. Word for word, nothing reads it at
        // all (the imports check reads its `use`s off the text after); the text after is read
        // around the edits only, not around the `len` left.
        let before = "use crate::a::A;\n\nfn f(a: &A) -> usize {\n    let n = 1;\n    a.len() + n\n}\n\nfn g(v: &[u8]) -> usize {\n    v.len()\n}\n";
        let source = SourceFile::from_text("src/b.rs", before);
        let at = before.find("len").unwrap();
        let renamed = FileChange::modify(&source, vec![TextEdit::new(at..at + 3, "size")]).unwrap();
        let (of_before, of_after) = asked_by_checks(before, renamed);
        assert_eq!(of_before, Vec::<Vec<String>>::new());
        assert!(!of_after.is_empty());
        for words in &of_after {
            assert_eq!(words, &["size", "use", WHOLE_FUNCTIONS], "{of_after:?}");
        }
        // An edit that writes more than a word: the imports check reads the text before, and
        // only around its `use`s.
        let call = before.find("len()").unwrap();
        let more =
            FileChange::modify(&source, vec![TextEdit::new(call..call + 5, "size(n)")]).unwrap();
        let (of_before, _) = asked_by_checks(before, more);
        assert!(!of_before.is_empty());
        for words in of_before {
            assert_eq!(words, ["use", WHOLE_FUNCTIONS]);
        }
    }

    #[test]
    fn word_for_word_is_a_change_of_whole_words_none_a_keyword() {
        let before = "use crate::a::len;\nfn f() -> usize {\n    len() + lens()\n}\n";
        let source = SourceFile::from_text("src/b.rs", before);
        let change = |edits: Vec<TextEdit>| FileChange::modify(&source, edits).unwrap();
        let at = before.find("len;").unwrap();
        let call = before.find("len()").unwrap();
        let lens = before.find("lens").unwrap();
        assert!(word_for_word(&change(vec![
            TextEdit::new(at..at + 3, "size"),
            TextEdit::new(call..call + 3, "size"),
        ])));
        // Part of a word, more than a word, an insertion, a keyword or a weak one: not so.
        let one_edit_not_so = [
            (lens..lens + 3, "size"),
            (call..call + 5, "size(1)"),
            (call..call, "x"),
            (call..call + 3, "match"),
            (call..call + 3, "union"),
        ];
        for (range, new) in one_edit_not_so {
            let edit = TextEdit::new(range, new);
            assert!(!word_for_word(&change(vec![edit.clone()])), "{edit:?}");
        }
    }

    #[test]
    fn edits_of_whole_words_give_their_words_and_others_none() {
        let text = "fn is_void() {}\nlet x = a.is_void();\nlet y = is_voids;\n";
        let at = |needle: &str| text.find(needle).unwrap();
        let first = at("is_void");
        let second = at("a.is_void") + 2;
        assert_eq!(
            edit_words(text, &[first..first + 7, second..second + 7]),
            Some(vec!["is_void"])
        );
        // Part of a word, two words, an insertion: not words.
        let part = at("is_voids");
        assert_eq!(edit_words(text, &[part..part + 7]), None);
        assert_eq!(edit_words(text, &[first..first + 9]), None);
        assert_eq!(edit_words(text, &[first..first]), None);
        // An edit touching a range, or not.
        let edited = vec![3..5, 10..12];
        assert!(touches_edits(&edited, &(0..3)));
        assert!(touches_edits(&edited, &(6..10)));
        assert!(touches_edits(&edited, &(11..11)));
        assert!(!touches_edits(&edited, &(6..9)));
        assert!(!touches_edits(&edited, &(13..20)));
    }
}
