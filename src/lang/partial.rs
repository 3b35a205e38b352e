//! Partial syntax trees in the file's own coordinates. Tree-sitter parses only the statements
//! around the places of interest and the headers of every block that encloses them, handed to it
//! as included ranges, so node positions are the real file offsets and the ancestors (class,
//! impl, function, `if`) exist:
//! - Python: the logical line of each place; the enclosing `def`/`class`/compound headers found
//!   by indentation, each with its decorators, and for an `elif`/`else`/`except`/`finally` the
//!   clauses back to the `if`/`try`/`for`/`while` that opens it. Skipped bodies are empty blocks,
//!   which tree-sitter-python reads without an error.
//! - Rust: the statement around each place inside its innermost brace (from the previous
//!   statement boundary to the next), and for each enclosing brace the statement that holds it,
//!   up to `{` and from `}`. Blocks in between keep their braces and lose their contents.
//!
//! A partial tree is used only when it has no error; the callers parse the whole file otherwise,
//! so answers stay those of a full parse (`examples/regions_check.rs` compares both on real
//! trees). Pure.

use std::ops::Range;

use tree_sitter::{Parser, Tree};

use super::Language;
use super::lex::Lexed;

mod python;

use python::python_ranges;
pub use python::python_statements_clean;

/// The byte ranges a partial parse of `text` must include for `places` (sorted by nothing in
/// particular) to parse as in the whole file: sorted, merged, none empty.
pub fn included_ranges(
    lang: Language,
    text: &str,
    lexed: &Lexed,
    places: &[Range<usize>],
) -> Vec<Range<usize>> {
    merged(match lang {
        Language::Python => python_ranges(text, lexed, places),
        Language::Rust => rust_ranges(text.len(), lexed, places),
    })
}

/// `ranges` without the empty ones, sorted, overlapping and touching ones merged.
fn merged(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.retain(|r| !r.is_empty());
    ranges.sort_unstable_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    merged
}

/// Parses only `ranges` of `text` (sorted, non-overlapping, non-empty; an empty list parses the
/// whole text). Ranges apart only by whitespace are handed over as one: the text is the same,
/// and tree-sitter's lexer looks for its position among the included ranges one by one, so
/// thousands of them (one per statement of a long module) made a parse quadratic.
pub fn parse_ranges(lang: Language, text: &str, ranges: &[Range<usize>]) -> Tree {
    let mut parser = Parser::new();
    parser
        .set_language(&lang.grammar())
        .expect("bundled grammar matches the tree-sitter ABI");
    let included = tree_sitter_ranges(text, &joined_across_whitespace(text, ranges));
    parser
        .set_included_ranges(&included)
        .expect("included ranges are sorted and do not overlap");
    parser
        .parse(text, None)
        .expect("parsing without a timeout or cancellation flag always yields a tree")
}

/// A partial tree of `text` around `places`, or `None` when it has a syntax error or there is
/// no place (the caller then parses the whole file).
pub fn parse_around(
    lang: Language,
    text: &str,
    lexed: &Lexed,
    places: &[Range<usize>],
) -> Option<Tree> {
    if places.is_empty() {
        return None;
    }
    let ranges = included_ranges(lang, text, lexed, places);
    if ranges.is_empty() {
        return None;
    }
    let tree = parse_ranges(lang, text, &ranges);
    (!tree.root_node().has_error()).then_some(tree)
}

/// Among the words of [`parse_around_words`] (never a word of a text: it holds braces): Rust
/// occurrences inside a function are parsed with the whole outermost function around them, not
/// only their statement. The references judge reads a receiver's binding anywhere in its
/// function (`let x: T`, a parameter), and the local bindings of the name there. A name after
/// `self.` or after a field (`x.items.name`) reads no binding: its statement is enough. The word
/// `use` is asked for its declarations only: one that declares nothing (in a comment, a string
/// or a macro's arguments, as in syn's `Token![use]` and its doc comments) brings nothing.
pub const WHOLE_FUNCTIONS: &str = "{fn}";

/// A tree of `text` for every question about the statements around the whole-word occurrences
/// of `words` (in code, strings or comments) and the blocks enclosing them (with
/// [`WHOLE_FUNCTIONS`] among the words, Rust: the whole functions around them): a partial tree
/// when one parses cleanly, else the full tree. Says which it is (`true`: partial).
pub fn parse_around_words(lang: Language, text: &str, words: &[&str]) -> (Tree, bool) {
    let whole_functions = words.contains(&WHOLE_FUNCTIONS);
    let places: Vec<Range<usize>> = words
        .iter()
        .filter(|word| **word != WHOLE_FUNCTIONS)
        .flat_map(|word| {
            super::calls::word_matches(text, word)
                .into_iter()
                .map(move |at| at..at + word.len())
        })
        .collect();
    parse_around_places(lang, text, places, whole_functions)
}

/// A tree of `text` for every question about the statements around `places` and the blocks
/// enclosing them (with `whole_functions`, Rust: the whole outermost function around a place
/// inside one, and the whole declaration around a place that is the keyword `use`): a partial
/// tree when one parses cleanly, else the full tree. Says which it is (`true`: partial).
/// [`parse_around_words`] with the places given.
pub fn parse_around_places(
    lang: Language,
    text: &str,
    mut places: Vec<Range<usize>>,
    whole_functions: bool,
) -> (Tree, bool) {
    let whole_functions = lang == Language::Rust && whole_functions;
    places.sort_unstable_by_key(|p| p.start);
    if places.is_empty() {
        return (lang.parse(text), false);
    }
    let lexed = super::lex::lex(lang, text);
    // The keyword that opens an import (Python's `import`, Rust's `use`) is asked for its
    // declarations only, never as a name: where it declares nothing it brings nothing (unless
    // nothing else is left).
    let (empty, declaring): (Vec<_>, Vec<_>) =
        (places.into_iter()).partition(|p| declares_nothing(lang, text, &lexed, p));
    let places = if declaring.is_empty() {
        empty
    } else {
        declaring
    };
    let partial = if whole_functions {
        let ranges = merged(rust_function_ranges(text, &lexed, &places));
        (!ranges.is_empty())
            .then(|| parse_ranges(lang, text, &ranges))
            .filter(|tree| !tree.root_node().has_error())
    } else {
        parse_around(lang, text, &lexed, &places)
    };
    match partial {
        Some(tree) => (tree, true),
        None => (lang.parse(text), false),
    }
}

/// The keyword an import declaration starts with (`from … import` has it too).
fn import_keyword(lang: Language) -> &'static str {
    match lang {
        Language::Python => "import",
        Language::Rust => "use",
    }
}

/// `ranges` (sorted, non-overlapping) with each run of ranges that only whitespace separates
/// made one range.
fn joined_across_whitespace(text: &str, ranges: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut joined: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for range in ranges {
        match joined.last_mut() {
            Some(last)
                if text
                    .get(last.end..range.start)
                    .is_some_and(|gap| gap.bytes().all(|b| b.is_ascii_whitespace())) =>
            {
                last.end = range.end;
            }
            _ => joined.push(range.clone()),
        }
    }
    joined
}

fn tree_sitter_ranges(text: &str, ranges: &[Range<usize>]) -> Vec<tree_sitter::Range> {
    let mut points = super::Points::new(text);
    let mut point = |at: usize| points.at(at);
    ranges
        .iter()
        .map(|r| tree_sitter::Range {
            start_byte: r.start,
            start_point: point(r.start),
            end_byte: r.end,
            end_point: point(r.end),
        })
        .collect()
}

/// Rust: whether the top-level items of `after` that the edits touch parse without errors, and
/// the items around them are the same items as in `before` (the same boundaries, so an edit that
/// unbalances braces is never judged by its neighbourhood). `edits` are the ranges of `before`
/// that were replaced, with the length of their new text, sorted. A top-level item starts where
/// the parser is as at the start of the file, so when `before` has no error, `true` means
/// `after` has none either.
pub fn rust_items_clean(before: &str, after: &str, edits: &[(Range<usize>, usize)]) -> bool {
    let old_items = super::lex::lex(Language::Rust, before).item_starts;
    let new_items = super::lex::lex(Language::Rust, after).item_starts;
    // The written ranges, in `after`.
    let mut written: Vec<Range<usize>> = Vec::with_capacity(edits.len());
    let mut shift: isize = 0;
    for (range, len) in edits {
        let start = (range.start as isize + shift) as usize;
        written.push(start..start + len);
        shift += *len as isize - range.len() as isize;
    }
    let item = |k: usize| new_items[k]..new_items.get(k + 1).copied().unwrap_or(after.len());
    let mut touched: Vec<Range<usize>> = Vec::new();
    for range in &written {
        let first = new_items
            .partition_point(|s| *s < range.start)
            .saturating_sub(1);
        let last = new_items
            .partition_point(|s| *s <= range.end)
            .saturating_sub(1);
        touched.extend((first..=last).map(item));
    }
    touched.sort_unstable_by_key(|r| r.start);
    let mut merged: Vec<Range<usize>> = Vec::with_capacity(touched.len());
    for range in touched {
        match merged.last_mut() {
            Some(last) if range.start <= last.end => last.end = last.end.max(range.end),
            _ => merged.push(range),
        }
    }
    let inside = |at: usize| merged.iter().any(|r| r.start < at && at < r.end);
    // `after` offsets outside the written ranges, back in `before`, and the other way.
    let to_before = |at: usize| {
        let mut delta: isize = 0;
        for ((range, len), new) in edits.iter().zip(&written) {
            if new.start >= at {
                break;
            }
            delta += *len as isize - range.len() as isize;
        }
        (at as isize - delta) as usize
    };
    let to_after = |at: usize| {
        let mut delta: isize = 0;
        for (range, len) in edits {
            if range.start >= at {
                break;
            }
            delta += *len as isize - range.len() as isize;
        }
        (at as isize + delta) as usize
    };
    let same_boundaries = new_items
        .iter()
        .filter(|at| !inside(**at))
        .all(|at| old_items.binary_search(&to_before(*at)).is_ok())
        && old_items
            .iter()
            .map(|at| to_after(*at))
            .filter(|at| !inside(*at))
            .all(|at| new_items.binary_search(&at).is_ok());
    if !same_boundaries {
        return false;
    }
    merged.retain(|r| !r.is_empty());
    merged.is_empty()
        || !parse_ranges(Language::Rust, after, &merged)
            .root_node()
            .has_error()
}

// ---- Rust ------------------------------------------------------------------------------------

fn rust_ranges(len: usize, lexed: &Lexed, places: &[Range<usize>]) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut headers_done = vec![false; lexed.braces.len()];
    for place in places {
        let owner = innermost_brace(lexed, place);
        let statement = statement_around(lexed, len, owner, place);
        push_without_child_blocks(lexed, owner, statement, &mut out);
        let mut brace = owner;
        while let Some(index) = brace {
            if headers_done[index] {
                break;
            }
            headers_done[index] = true;
            let this = lexed.braces[index];
            let statement = statement_around(lexed, len, this.parent, &(this.open..this.close + 1));
            push_without_child_blocks(lexed, this.parent, statement, &mut out);
            brace = this.parent;
        }
    }
    out
}

/// [`rust_ranges`], except that a place inside a function's body brings the whole outermost
/// function around it (its item, from the statement boundary before it to the one after), with
/// the headers of the blocks enclosing that function. A brace opens a function's body when the
/// code before it in its statement has the keyword `fn` (a `let f: fn() = || {..}` counts too:
/// more text, never less). A place that is the keyword `use` brings its whole declaration.
fn rust_function_ranges(text: &str, lexed: &Lexed, places: &[Range<usize>]) -> Vec<Range<usize>> {
    let len = text.len();
    let mut is_function: Vec<Option<bool>> = vec![None; lexed.braces.len()];
    let mut function_body = |index: usize| -> bool {
        *is_function[index].get_or_insert_with(|| {
            let brace = lexed.braces[index];
            let statement =
                statement_around(lexed, len, brace.parent, &(brace.open..brace.close + 1));
            super::calls::word_matches(&text[statement.start..brace.open], "fn")
                .into_iter()
                .any(|at| lexed.span_at(statement.start + at).is_none())
        })
    };
    let mut out = Vec::new();
    let mut whole_done = vec![false; lexed.braces.len()];
    let mut headers_done = vec![false; lexed.braces.len()];
    let mut elsewhere: Vec<Range<usize>> = Vec::new();
    for place in places {
        if reads_no_binding(text, lexed, place)
            || declares_nothing(Language::Rust, text, lexed, place)
        {
            elsewhere.push(place.clone());
            continue;
        }
        let mut outermost = None;
        let mut brace = innermost_brace(lexed, place);
        while let Some(index) = brace {
            if function_body(index) {
                outermost = Some(index);
            }
            brace = lexed.braces[index].parent;
        }
        let Some(function) = outermost else {
            if text.get(place.clone()) == Some("use") {
                // A `use` declaration whole: the lexer takes its lists (`{self, Write}`) for
                // blocks, whose contents a statement leaves out.
                let owner = innermost_brace(lexed, place);
                out.push(statement_around(lexed, len, owner, place));
            }
            elsewhere.push(place.clone());
            continue;
        };
        if std::mem::replace(&mut whole_done[function], true) {
            continue;
        }
        let body = lexed.braces[function];
        out.push(statement_around(
            lexed,
            len,
            body.parent,
            &(body.open..body.close + 1),
        ));
        let mut brace = body.parent;
        while let Some(index) = brace {
            if std::mem::replace(&mut headers_done[index], true) {
                break;
            }
            let this = lexed.braces[index];
            let statement = statement_around(lexed, len, this.parent, &(this.open..this.close + 1));
            push_without_child_blocks(lexed, this.parent, statement, &mut out);
            brace = this.parent;
        }
    }
    out.extend(rust_ranges(len, lexed, &elsewhere));
    out
}

/// Whether a place in code is a name after `.` whose receiver is `self` or a field of a field
/// (`self.items.name`, `x.kind.name`): no binding of the function is read there (the receiver's
/// type is `Self`'s or not evident, and a name after a dot is never a pattern's), so the
/// statement around it is enough. A receiver that is a plain name (`x.name`, `(x).name`) is
/// typed by its `let` or parameter: the whole function.
fn reads_no_binding(text: &str, lexed: &Lexed, place: &Range<usize>) -> bool {
    let before = text[..place.start].trim_end();
    let Some(receiver) = before.strip_suffix('.').map(str::trim_end) else {
        return false;
    };
    let name_start = receiver
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| {
            i + receiver[i..].chars().next().map_or(1, char::len_utf8)
        });
    let name = &receiver[name_start..];
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        return false;
    }
    let chained = receiver[..name_start].trim_end().ends_with('.')
        && !receiver[..name_start].trim_end().ends_with("..");
    (name == "self" || chained) && lexed.span_at(place.start).is_none()
}

/// Whether a place is the import keyword ([`import_keyword`]) where no import can be: in a
/// string or a comment (a doc example's `use`), or in a Rust macro's token tree
/// (`Token![use]`), which tree-sitter never parses as code. [`parse_around_places`] leaves such
/// places out while anything else is asked; when nothing else is, a Rust one keeps its
/// statement, not the function around it.
fn declares_nothing(lang: Language, text: &str, lexed: &Lexed, place: &Range<usize>) -> bool {
    text.get(place.clone()) == Some(import_keyword(lang))
        && (lexed.span_at(place.start).is_some()
            || lexed.token_tree_at(place.start) == Some(super::lex::TokenTree::Macro))
}

/// The innermost brace whose block contains `place`.
fn innermost_brace(lexed: &Lexed, place: &Range<usize>) -> Option<usize> {
    let mut candidate = lexed
        .braces
        .partition_point(|b| b.open < place.start)
        .checked_sub(1);
    while let Some(index) = candidate {
        let brace = lexed.braces[index];
        if brace.close >= place.end {
            return Some(index);
        }
        candidate = brace.parent;
    }
    None
}

/// The statement of the block `owner` (`None`: the file's items) that contains `range`: from
/// the last statement boundary of that block at or before it to the first one at or after it.
fn statement_around(
    lexed: &Lexed,
    len: usize,
    owner: Option<usize>,
    range: &Range<usize>,
) -> Range<usize> {
    let Some(owner) = owner else {
        let items = &lexed.item_starts;
        let before = items.partition_point(|s| *s <= range.start);
        let start = before.checked_sub(1).map_or(0, |i| items[i]);
        let after = items.partition_point(|s| *s < range.end);
        let end = items.get(after).copied().unwrap_or(len);
        return start..end;
    };
    let block = lexed.braces[owner];
    let bounds = &lexed.boundaries;
    let mut start = block.open + 1;
    let mut k = bounds.partition_point(|(at, _)| *at <= range.start);
    while k > 0 {
        let (at, of) = bounds[k - 1];
        if at <= block.open {
            break;
        }
        if of == owner {
            start = at;
            break;
        }
        // A boundary inside a nested block: look before that block instead.
        let nested_open = lexed.braces[of].open;
        k = bounds.partition_point(|(a, _)| *a <= nested_open);
    }
    let mut end = block.close;
    let mut k = bounds.partition_point(|(at, _)| *at < range.end);
    while let Some(&(at, of)) = bounds.get(k) {
        if at > block.close {
            break;
        }
        if of == owner {
            end = at;
            break;
        }
        let nested_close = lexed.braces[of].close;
        k = bounds.partition_point(|(a, _)| *a <= nested_close);
    }
    start..end.max(start)
}

/// Pushes `segment` without the contents of the blocks directly inside it (their braces stay).
fn push_without_child_blocks(
    lexed: &Lexed,
    owner: Option<usize>,
    segment: Range<usize>,
    out: &mut Vec<Range<usize>>,
) {
    let braces = &lexed.braces;
    let mut cursor = segment.start;
    let mut k = braces.partition_point(|b| b.open < segment.start);
    while let Some(child) = braces.get(k) {
        if child.open >= segment.end {
            break;
        }
        if child.parent == owner {
            out.push(cursor..child.open + 1);
            cursor = child.close.min(segment.end).max(cursor);
            k = braces.partition_point(|b| b.open <= child.close);
        } else {
            k += 1;
        }
    }
    out.push(cursor..segment.end);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::lex::lex;

    fn included(lang: Language, text: &str, word: &str) -> String {
        let places: Vec<Range<usize>> = text
            .match_indices(word)
            .map(|(i, w)| i..i + w.len())
            .collect();
        let lexed = lex(lang, text);
        included_ranges(lang, text, &lexed, &places)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn ranges_apart_only_by_whitespace_are_one_range_and_parse_alike() {
        let text = "a = f(1)\n\nb = 2\n  \nc = f(3)\n";
        let (a, b, c) = (0..9, 10..16, 19..28);
        assert_eq!(
            joined_across_whitespace(text, &[a.clone(), c.clone()]),
            vec![a.clone(), c.clone()],
            "code between: kept apart"
        );
        assert_eq!(
            joined_across_whitespace(text, &[a.clone(), b.clone(), c.clone()]),
            vec![0..28]
        );
        // The same text is included either way: the trees are the same.
        let mut parser = Parser::new();
        parser.set_language(&Language::Python.grammar()).unwrap();
        parser
            .set_included_ranges(&tree_sitter_ranges(
                text,
                &[a.clone(), b.clone(), c.clone()],
            ))
            .unwrap();
        let separate = parser.parse(text, None).unwrap();
        let joined = parse_ranges(Language::Python, text, &[a, b, c]);
        assert_eq!(separate.root_node().to_sexp(), joined.root_node().to_sexp());
    }

    #[test]
    fn python_keeps_headers_decorators_and_clauses() {
        let text = "import os\n\n@deco\nclass A:\n    x = 1\n\n    def m(self):\n        if a:\n            pass\n        elif b:\n            y = 2\n        else:\n            target(1)\n        return 3\n";
        assert_eq!(
            included(Language::Python, text, "target"),
            "@deco\nclass A:\n    def m(self):\n        if a:\n        elif b:\n        else:\n            target(1)\n"
        );
        let tree = parse_around(
            Language::Python,
            text,
            &lex(Language::Python, text),
            std::slice::from_ref(&(text.find("target").unwrap()..text.find("target").unwrap() + 6)),
        )
        .expect("a clean partial tree");
        let call = tree
            .root_node()
            .descendant_for_byte_range(text.find("target(1)").unwrap(), text.find("(1)").unwrap())
            .unwrap();
        assert_eq!(call.start_position().row, 12);
        let decorated = "@first\n@target\ndef f():\n    pass\n";
        assert_eq!(
            included(Language::Python, decorated, "target"),
            "@first\n@target\ndef f():\n"
        );
    }

    /// Applies `(range, text)` edits (sorted) to `before`.
    fn edited(before: &str, edits: &[(Range<usize>, &str)]) -> String {
        let mut after = before.to_string();
        for (range, text) in edits.iter().rev() {
            after.replace_range(range.clone(), text);
        }
        after
    }

    #[test]
    fn rust_items_are_clean_only_when_the_file_is() {
        let before = "use a::b;\n\nfn f() {\n    a();\n    b();\n}\n\nfn g() -> u8 {\n    1\n}\n";
        let check = |edits: &[(Range<usize>, &str)]| {
            let after = edited(before, edits);
            let clean = rust_items_clean(
                before,
                &after,
                &edits
                    .iter()
                    .map(|(r, t)| (r.clone(), t.len()))
                    .collect::<Vec<_>>(),
            );
            let parses = !Language::Rust.parse(&after).root_node().has_error();
            assert!(!clean || parses, "said clean, but {after:?} has an error");
            clean
        };
        let a = before.find("a();").unwrap();
        assert!(check(&[(a..a + 1, "c")]));
        assert!(check(&[(a..a, "let x = 1;\n    ")]));
        assert!(!check(&[(a..a + 4, "a(;")]));
        // A `}` that closes `f` early leaves `b();` at the top: the boundaries differ.
        assert!(!check(&[(a + 4..a + 4, " }")]));
        // An unclosed `{` swallows the rest of the file.
        assert!(!check(&[(a..a, "{ ")]));
        let g = before.find("fn g").unwrap();
        assert!(check(&[(a..a + 1, "c"), (g..g, "fn h() {}\n\n")]));
    }

    #[test]
    fn python_statements_are_clean_only_when_the_file_is() {
        let before = "import os\n\n\ndef f():\n    a()\n    b()\n\n\n@deco\ndef g():\n    if x:\n        pass\n    else:\n        return 1\n";
        let check = |edits: &[(Range<usize>, &str)]| {
            let after = edited(before, edits);
            let mut written = Vec::new();
            let mut shift: isize = 0;
            for (range, text) in edits {
                let start = (range.start as isize + shift) as usize;
                written.push(start..start + text.len());
                shift += text.len() as isize - range.len() as isize;
            }
            let clean = python_statements_clean(&after, &written);
            let errors = super::super::syntax_errors(&Language::Python.parse(&after), &after);
            assert!(
                !clean || errors.is_empty(),
                "said clean, but {after:?}: {errors:?}"
            );
            clean
        };
        let a = before.find("a()").unwrap();
        assert!(check(&[(a..a + 1, "c")]));
        assert!(check(&[(a..a, "x = 1\n    ")]));
        // A new function after `f`, at the margin.
        let blank = before.find("\n\n\n@deco").unwrap();
        assert!(check(&[(blank..blank, "\n\n\ndef h():\n    return 2")]));
        assert!(!check(&[(a..a, "  ")]), "unexpected indent");
        assert!(!check(&[(a..a + 3, "a(")]), "unclosed bracket");
        let ret = before.find("return 1").unwrap();
        assert!(
            check(&[(ret..ret + 8, "return 2")]),
            "in an else clause after decorators"
        );
        assert!(!check(&[(ret..ret + 8, "")]), "an empty else block");
    }

    #[test]
    fn rust_for_the_judge_keeps_whole_functions_and_whole_use_declarations() {
        let text = "use a::{b, c::{d}};\n\nimpl A {\n    fn m(&self) -> u8 {\n        let x: B = y();\n        if x { x.target() } else { 0 }\n    }\n\n    fn n() { 1 }\n}\n\nconst K: u8 = { target };\n";
        let mut places: Vec<Range<usize>> = ["target", "use"]
            .iter()
            .flat_map(|w| text.match_indices(w).map(|(i, w)| i..i + w.len()))
            .collect();
        places.sort_unstable_by_key(|p| p.start);
        let lexed = lex(Language::Rust, text);
        let kept: String = merged(rust_function_ranges(text, &lexed, &places))
            .into_iter()
            .map(|r| &text[r])
            .collect();
        // The function `m` whole (the binding of the receiver), the `use` with its lists, the
        // impl's header; `n` left out; outside a function, the statement around the name.
        assert_eq!(
            kept,
            "use a::{b, c::{d}};\n\nimpl A {\n    fn m(&self) -> u8 {\n        let x: B = y();\n        if x { x.target() } else { 0 }\n    }}\n\nconst K: u8 = { target };"
        );
        let (_, partial) =
            parse_around_words(Language::Rust, text, &["target", "use", WHOLE_FUNCTIONS]);
        assert!(partial, "the kept text parses without an error");
    }

    #[test]
    fn rust_for_the_judge_keeps_the_statement_of_a_name_after_self_or_a_field_chain() {
        // `self.items.target()` and `self.target()` read no binding of `f`: their statements;
        // `x.target()` reads `x`'s `let`: the whole function `g`; `(x).target()` too.
        let text = "impl A {\n    fn f(&self) -> bool {\n        let n = 1;\n        self.items.target() && self.target()\n    }\n\n    fn g(&self) -> bool {\n        let x: B = y();\n        x.target()\n    }\n\n    fn h(&self) -> bool {\n        let x: B = y();\n        (x).target()\n    }\n}\n";
        let places: Vec<Range<usize>> = text
            .match_indices("target")
            .map(|(i, w)| i..i + w.len())
            .collect();
        let lexed = lex(Language::Rust, text);
        let kept: String = merged(rust_function_ranges(text, &lexed, &places))
            .into_iter()
            .map(|r| &text[r])
            .collect();
        assert!(!kept.contains("let n = 1;"), "{kept}");
        assert!(
            kept.contains("self.items.target() && self.target()"),
            "{kept}"
        );
        assert_eq!(kept.matches("let x: B = y();").count(), 2, "{kept}");
    }

    #[test]
    fn rust_for_the_judge_keeps_nothing_of_a_use_that_declares_nothing() {
        // A `use` in a doc comment, a string or a macro's arguments declares nothing: nothing
        // of it is kept; a `use` declaration in a function keeps the function whole.
        let text = "fn f(input: I) -> bool {\n    let n = 1;\n    input.peek(Token![use])\n}\n\n/// Then use it.\nfn g() -> u8 {\n    let m = 2;\n    // use it twice\n    m\n}\n\nfn h() -> &'static str {\n    let k = 3;\n    \"use\"\n}\n\nfn i() -> u8 {\n    let j = 4;\n    use a::b;\n    j\n}\n";
        assert_eq!(crate::lang::calls::word_matches(text, "use").len(), 5);
        let (tree, partial) = parse_around_words(Language::Rust, text, &["use", WHOLE_FUNCTIONS]);
        let kept: String = tree
            .included_ranges()
            .iter()
            .map(|r| &text[r.start_byte..r.end_byte])
            .collect();
        for other in ["let n = 1;", "let m = 2;", "let k = 3;"] {
            assert!(!kept.contains(other), "{kept}");
        }
        for nothing in ["Token![use]", "Then use it", "use it twice", "\"use\""] {
            assert!(!kept.contains(nothing), "{kept}");
        }
        assert!(kept.contains("let j = 4;\n    use a::b;"), "{kept}");
        assert!(partial, "the kept text parses without an error");
    }

    #[test]
    fn python_keeps_only_the_imports_that_bind_a_name_read_at_the_places() {
        let kept = |text: &str| -> String {
            let (tree, partial) = parse_around_words(Language::Python, text, &["dedent", "import"]);
            assert!(partial, "{text}");
            tree.included_ranges()
                .iter()
                .map(|r| &text[r.start_byte..r.end_byte])
                .collect()
        };
        // The name, the first name of each dotted chain ending in it (across a line continuation
        // and a comment), and `*` imports; not a call's name (`g().dedent` looks `g` up nowhere).
        let text = "import os, sys\nimport textwrap as tw\nfrom a import (\n    b,\n    c,\n)\nfrom d import *\nimport p.q\nfrom m import g\nfrom n import dedent\n\n\ndef f():\n    import json\n    x = tw.dedent(1)\n    y = c.dedent(2)\n    z = p.q . \\\n        dedent(3)\n    w = g().dedent\n    return (b  # a comment\n            .e.dedent(4)) + dedent\n";
        let got = kept(text);
        for present in [
            "import textwrap as tw",
            "from a import (\n    b,\n    c,\n)",
            "from d import *",
            "import p.q",
            "from n import dedent",
            "w = g().dedent",
        ] {
            assert!(got.contains(present), "{present} in {got}");
        }
        for absent in ["import os", "import json", "from m import g"] {
            assert!(!got.contains(absent), "{absent} in {got}");
        }
        // A place in a string may be read through any binding (`getattr(os, "dedent")`): every
        // import is kept.
        let text = "import os\nimport json\n\n\ndef f():\n    return getattr(os, \"dedent\")\n";
        let got = kept(text);
        assert!(
            got.contains("import os") && got.contains("import json"),
            "{got}"
        );
    }

    #[test]
    fn an_import_keyword_in_a_string_or_comment_brings_nothing() {
        let kept = |lang: Language, text: &str, words: &[&str]| -> String {
            let (tree, partial) = parse_around_words(lang, text, words);
            assert!(partial);
            tree.included_ranges()
                .iter()
                .map(|r| &text[r.start_byte..r.end_byte])
                .collect()
        };
        let python = "import textwrap\n\n\ndef f():\n    \"\"\"How to import it.\"\"\"\n    x = 1\n    return textwrap.dedent(x)\n\n\n# import nothing\nclass A:\n    y = 'import'\n";
        let rust = "use a::b;\n\n/// use it\nfn g() {}\n\nfn f() -> u8 {\n    let s = \"use\";\n    target()\n}\n";
        let cases: [(Language, &str, [&str; 2], [&str; 2], [&str; 3]); 2] = [
            (
                Language::Python,
                python,
                ["dedent", "import"],
                ["import textwrap", "return textwrap.dedent(x)"],
                ["How to import", "# import nothing", "y = 'import'"],
            ),
            (
                Language::Rust,
                rust,
                ["target", "use"],
                ["use a::b;", "target()"],
                ["/// use it", "fn g()", "let s = \"use\";"],
            ),
        ];
        for (lang, text, words, present, absent) in cases {
            let got = kept(lang, text, &words);
            assert!(present.iter().all(|p| got.contains(p)), "{got}");
            assert!(absent.iter().all(|a| !got.contains(a)), "{got}");
        }
        // Only such places: they are kept rather than nothing asked.
        for words in [&["use"][..], &["use", WHOLE_FUNCTIONS]] {
            let got = kept(Language::Rust, "/// use it\nfn g() {}\n", words);
            assert!(got.contains("/// use it"), "{got}");
        }
    }

    #[test]
    fn rust_keeps_enclosing_headers_and_drops_other_blocks() {
        let text = "use a::b;\n\nimpl A {\n    fn m(&self) -> u8 {\n        let x = 1;\n        if x { a(); } else { b.target(); }\n        v.iter().map(|q| { q }).count()\n    }\n\n    fn n() {}\n}\n";
        assert_eq!(
            included(Language::Rust, text, "target"),
            "\n\nimpl A {\n    fn m(&self) -> u8 {\n        if x {} else { b.target();}}}"
        );
        assert_eq!(
            included(Language::Rust, text, "count"),
            "\n\nimpl A {\n    fn m(&self) -> u8 {\n        v.iter().map(|q| {}).count()\n    }}"
        );
    }
}
