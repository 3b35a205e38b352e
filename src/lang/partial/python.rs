//! The Python side of the partial parses: the block structure of a file by indentation, the
//! logical lines a partial tree needs around its places (and which of the imports), and the
//! check that the top-level statements an edit touched parse cleanly. Pure.

use std::ops::Range;

use super::{import_keyword, parse_ranges};
use crate::lang::Language;
use crate::lang::calls::ReferenceKind;
use crate::lang::lex::Lexed;

const NONE: usize = usize::MAX;

/// The block structure of a Python file by indentation, one entry per logical line.
struct PythonLines<'t> {
    text: &'t str,
    starts: &'t [usize],
    /// Lines with no code (blank or only a comment) take no part in the structure.
    blank: Vec<bool>,
    /// The header line of the enclosing block (nearest earlier code line indented less).
    parent: Vec<usize>,
    /// The previous code line at the same indentation in the same block.
    previous: Vec<usize>,
    /// The next code line at the same indentation in the same block.
    next: Vec<usize>,
}

impl<'t> PythonLines<'t> {
    fn new(text: &'t str, lexed: &'t Lexed) -> PythonLines<'t> {
        let starts = &lexed.logical_lines[..];
        let n = starts.len();
        let mut lines = PythonLines {
            text,
            starts,
            blank: vec![true; n],
            parent: vec![NONE; n],
            previous: vec![NONE; n],
            next: vec![NONE; n],
        };
        // (indent width, line) of the open blocks' lines, innermost last.
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for i in 0..n {
            let Some(width) = lines.code_indent(i) else {
                continue;
            };
            lines.blank[i] = false;
            while stack.last().is_some_and(|(w, _)| *w > width) {
                stack.pop();
            }
            if let Some(&(w, sibling)) = stack.last()
                && w == width
            {
                lines.previous[i] = sibling;
                lines.next[sibling] = i;
                stack.pop();
            }
            lines.parent[i] = stack.last().map_or(NONE, |(_, p)| *p);
            stack.push((width, i));
        }
        lines
    }

    fn range(&self, i: usize) -> Range<usize> {
        self.starts[i]..self.starts.get(i + 1).copied().unwrap_or(self.text.len())
    }

    /// The indentation width of a line with code, as tree-sitter-python's scanner counts it
    /// (space 1, tab 8, form feed resets); `None` for a blank or comment-only line.
    fn code_indent(&self, i: usize) -> Option<usize> {
        let line = &self.text.as_bytes()[self.range(i)];
        let mut width = 0;
        for &b in line {
            match b {
                b' ' => width += 1,
                b'\t' => width += 8,
                b'\x0c' => width = 0,
                b'\n' | b'\r' | b'#' => return None,
                _ => return Some(width),
            }
        }
        None
    }

    /// Marks the lines of `work` and the lines each needs to parse as in the file (the headers
    /// of its blocks, a definition's decorators, the clauses before an `else`) in `included`;
    /// the lines it marks are pushed on `added`.
    fn include(&self, mut work: Vec<usize>, included: &mut [bool], added: &mut Vec<usize>) {
        while let Some(i) = work.pop() {
            if i == NONE || included[i] {
                continue;
            }
            included[i] = true;
            added.push(i);
            if self.blank[i] {
                continue;
            }
            work.push(self.parent[i]);
            match self.first_word(i) {
                "def" | "class" | "async" => {
                    // Its decorators make it a decorated definition.
                    let mut before = self.previous[i];
                    while before != NONE && self.first_word(before) == "@" {
                        work.push(before);
                        before = self.previous[before];
                    }
                }
                "@" => {
                    // A decorator needs the definition it decorates.
                    let mut after = self.next[i];
                    while after != NONE && self.first_word(after) == "@" {
                        work.push(after);
                        after = self.next[after];
                    }
                    work.push(after);
                }
                "elif" | "else" | "except" | "finally" => {
                    // The clauses back to the statement that opens them.
                    let mut before = self.previous[i];
                    while before != NONE {
                        work.push(before);
                        if !matches!(
                            self.first_word(before),
                            "elif" | "else" | "except" | "finally"
                        ) {
                            break;
                        }
                        before = self.previous[before];
                    }
                }
                _ => {}
            }
        }
    }

    /// The first word of a code line (`def`, `elif`, a name, or `@` for a decorator).
    fn first_word(&self, i: usize) -> &str {
        let code = self.text[self.range(i)].trim_start_matches([' ', '\t', '\x0c']);
        if code.starts_with('@') {
            return "@";
        }
        let end = code
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(code.len());
        &code[..end]
    }
}

/// Python places split for [`python_ranges`] when imports can be chosen by the names read at
/// the other places.
struct ChosenImports<'t> {
    /// The places that are the keyword `import` (outside strings and comments).
    imports: Vec<Range<usize>>,
    /// The other places.
    others: Vec<Range<usize>>,
    /// The names the references judge reads at `others`, sorted.
    names: Vec<&'t str>,
}

/// Python: `places` split into the keyword `import` and the rest, with the names the references
/// judge reads at the rest. The judge reads, at each place, the bindings of its name and of the
/// first name of the dotted chain it ends (`m` of `m.f`, `a` of `a.b.f`), and the `*` imports;
/// an import binds only names it spells, or everything with `*`. `None` (every import kept) when
/// only imports, or no import, are asked, or when a place is in a string: `getattr(m, "f")` and
/// a doctest read bindings the text around the place does not show.
fn imports_and_read_names<'t>(
    text: &'t str,
    lexed: &Lexed,
    places: &[Range<usize>],
) -> Option<ChosenImports<'t>> {
    let (imports, others): (Vec<Range<usize>>, Vec<Range<usize>>) =
        places.iter().cloned().partition(|p| {
            text.get(p.clone()) == Some(import_keyword(Language::Python))
                && lexed.span_at(p.start).is_none()
        });
    let in_string = |p: &Range<usize>| {
        (lexed.span_at(p.start)).is_some_and(|(_, kind)| *kind == ReferenceKind::InString)
    };
    if imports.is_empty() || others.is_empty() || others.iter().any(in_string) {
        return None;
    }
    let mut names: Vec<&str> = Vec::with_capacity(others.len() * 2);
    for place in &others {
        names.push(&text[place.clone()]);
        names.extend(dotted_head(text, lexed, place.start));
    }
    names.sort_unstable();
    names.dedup();
    Some(ChosenImports {
        imports,
        others,
        names,
    })
}

/// The first name of the chain of names and dots that ends with the name at `at` (`a` of
/// `a.b.name`, across blanks, line continuations and comments); `None` when no `.` comes before
/// the name, or the chain starts with something other than a name (a call, a subscript, a
/// literal, parentheses), whose first name is never looked up by its binding.
fn dotted_head<'t>(text: &'t str, lexed: &Lexed, at: usize) -> Option<&'t str> {
    let b = text.as_bytes();
    // Back over blanks, `\` line continuations and comments.
    let skip_back = |mut i: usize| loop {
        match i.checked_sub(1).map(|j| b[j]) {
            Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\\') => i -= 1,
            Some(_) => match lexed.span_at(i - 1) {
                Some((span, ReferenceKind::InComment)) => i = span.start,
                _ => return i,
            },
            None => return i,
        }
    };
    let mut head = None;
    let mut start = at;
    loop {
        let dot = skip_back(start);
        if dot == 0 || b[dot - 1] != b'.' {
            return head;
        }
        let end = skip_back(dot - 1);
        let mut first = end;
        while first > 0 && crate::lang::lex::is_ident_byte(b[first - 1]) {
            first -= 1;
        }
        if first == end || b[first].is_ascii_digit() || !text.is_char_boundary(first) {
            return None;
        }
        head = Some(&text[first..end]);
        start = first;
    }
}

/// Python: the logical lines around `places`, each with the lines that make it parse as in the
/// file (the headers of its blocks, a definition's decorators, the clauses before an `else`).
/// Of the places that are the keyword `import` (the references judge's context), only those are
/// kept whose lines spell a name the judge reads at the other places, or whose statement is a
/// `*` import ([`imports_and_read_names`]): every line that spells such a name is included as
/// when every import is (a header an import alone brings included too), the rest of the imports
/// are not parsed. Every import of the files that mention `dedent` in CPython's `Lib` was a third
/// of what the references engine parsed there.
pub(super) fn python_ranges(
    text: &str,
    lexed: &Lexed,
    places: &[Range<usize>],
) -> Vec<Range<usize>> {
    let lines = PythonLines::new(text, lexed);
    let mut included = vec![false; lines.starts.len()];
    let line_of = |at: usize| lines.starts.partition_point(|s| *s <= at).saturating_sub(1);
    // Every logical line a place touches.
    let touched =
        |p: &Range<usize>| line_of(p.start)..=line_of(p.end.saturating_sub(1).max(p.start));
    let mut added = Vec::new();
    match imports_and_read_names(text, lexed, places) {
        None => {
            let work = places.iter().flat_map(touched).collect();
            lines.include(work, &mut included, &mut added);
        }
        Some(ChosenImports {
            imports,
            others,
            names,
        }) => {
            let work = others.iter().flat_map(touched).collect();
            lines.include(work, &mut included, &mut added);
            let spells_a_name = |i: usize| {
                let line = &text[lines.range(i)];
                (names.iter()).any(|name| !crate::lang::calls::word_matches(line, name).is_empty())
            };
            for import in &imports {
                added.clear();
                let own = line_of(import.start);
                lines.include(vec![own], &mut included, &mut added);
                let binds =
                    text[lines.range(own)].contains('*') || added.iter().any(|&i| spells_a_name(i));
                if !binds {
                    for &i in &added {
                        included[i] = false;
                    }
                }
            }
        }
    }
    included
        .iter()
        .enumerate()
        .filter(|(_, inside)| **inside)
        .map(|(i, _)| lines.range(i))
        .collect()
}

/// Python: whether the top-level statements of `text` that `places` touch have none of the
/// errors [`syntax_errors`](crate::lang::syntax_errors) reports, and the whole file's
/// indentation is sound. A top-level statement starts where the parser and its indentation
/// scanner are as at the start of the file, so it parses alone as in the file: when the rest of
/// `text` is unchanged from a version without errors, `true` means `text` has none either.
pub fn python_statements_clean(text: &str, places: &[Range<usize>]) -> bool {
    let lexed = crate::lang::lex::lex(Language::Python, text);
    if !crate::lang::python::errors::indentation_errors(text, &lexed).is_empty() {
        return false;
    }
    let lines = PythonLines::new(text, &lexed);
    // Where a top-level statement starts: a code line at the margin that does not continue the
    // statement before it (a clause of a compound statement, a definition after decorators).
    let mut starts: Vec<usize> = vec![0];
    let mut previous_word = "";
    for i in 0..lines.starts.len() {
        if lines.blank[i] || lines.code_indent(i) != Some(0) {
            continue;
        }
        let word = lines.first_word(i);
        if !matches!(word, "elif" | "else" | "except" | "finally") && previous_word != "@" {
            starts.push(lines.starts[i]);
        }
        previous_word = word;
    }
    starts.dedup();
    let statement = |k: usize| starts[k]..starts.get(k + 1).copied().unwrap_or(text.len());
    let mut ranges: Vec<Range<usize>> = Vec::new();
    for place in places {
        let first = starts
            .partition_point(|s| *s < place.start)
            .saturating_sub(1);
        let last = starts
            .partition_point(|s| *s <= place.end)
            .saturating_sub(1);
        ranges.extend((first..=last).map(statement));
    }
    ranges.retain(|r| !r.is_empty());
    ranges.sort_unstable_by_key(|r| r.start);
    ranges.dedup();
    if ranges.is_empty() {
        return true;
    }
    let tree = parse_ranges(Language::Python, text, &ranges);
    !tree.root_node().has_error()
        && crate::lang::python::errors::empty_blocks(&tree, text).is_empty()
}
