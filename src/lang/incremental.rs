//! Parsing a new version of a text by reusing the tree of the old one: the difference between
//! the two texts becomes one tree-sitter edit (the common prefix and suffix stay), the old tree
//! is told about it, and tree-sitter re-parses only what the edit touched. Pure.

use tree_sitter::{InputEdit, Point, Tree};

use super::Language;

/// The single edit that turns `old` into `new`: everything between their longest common prefix
/// and their longest common suffix (which do not overlap) is replaced.
pub fn edit_between(old: &str, new: &str) -> InputEdit {
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let max_suffix = a.len().min(b.len()) - prefix;
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take(max_suffix)
        .take_while(|(x, y)| x == y)
        .count();
    let (old_end, new_end) = (a.len() - suffix, b.len() - suffix);
    InputEdit {
        start_byte: prefix,
        old_end_byte: old_end,
        new_end_byte: new_end,
        start_position: point_of(a, prefix),
        old_end_position: point_of(a, old_end),
        new_end_position: point_of(b, new_end),
    }
}

/// The row and byte column of `offset` in `text`.
fn point_of(text: &[u8], offset: usize) -> Point {
    let before = &text[..offset];
    let row = memchr::memchr_iter(b'\n', before).count();
    let column = memchr::memrchr(b'\n', before).map_or(offset, |n| offset - n - 1);
    Point::new(row, column)
}

/// The tree of `new`, re-parsed from `old_tree` (the tree of `old`): the unchanged parts of the
/// old tree are reused, so the cost follows the size of the change, not of the file. The same
/// tree as a full parse of `new`.
pub fn reparse(lang: Language, old: &str, old_tree: &Tree, new: &str) -> Tree {
    if old == new {
        return old_tree.clone();
    }
    let mut edited = old_tree.clone();
    edited.edit(&edit_between(old, new));
    lang.parse_incremental(new, Some(&edited))
}

/// Edits at least this many, and at least one per [`DENSE_LINES`] lines of the text: nearly
/// every statement is parsed again anyway, and telling the tree each edit and re-parsing it
/// costs more than a fresh parse (inline of 20,000 calls, one per line: 0.33 s against 0.20 s).
const DENSE_EDITS: usize = 1024;
const DENSE_LINES: usize = 8;

/// The tree of the text that `edits` (sorted, non-overlapping ranges of `old` with their new
/// text) make of `old`, re-parsed from `old_tree`: each edit is told to the tree where it is, so
/// only the statements around the edits are parsed again (many edits close together: a parse
/// of `new`). The same tree as a full parse of `new`.
pub fn reparse_edits<'e>(
    lang: Language,
    old: &str,
    old_tree: &Tree,
    edits: impl IntoIterator<Item = (std::ops::Range<usize>, &'e str)>,
    new: &str,
) -> Tree {
    let mut points = super::Points::new(old);
    let mut point = |at: usize| points.at(at);
    let mut input_edits: Vec<InputEdit> = edits
        .into_iter()
        .map(|(range, inserted)| {
            let start_position = point(range.start);
            let old_end_position = point(range.end);
            let inserted_rows = memchr::memchr_iter(b'\n', inserted.as_bytes()).count();
            let new_end_position = match memchr::memrchr(b'\n', inserted.as_bytes()) {
                Some(last) => Point::new(
                    start_position.row + inserted_rows,
                    inserted.len() - last - 1,
                ),
                None => Point::new(start_position.row, start_position.column + inserted.len()),
            };
            InputEdit {
                start_byte: range.start,
                old_end_byte: range.end,
                new_end_byte: range.start + inserted.len(),
                start_position,
                old_end_position,
                new_end_position,
            }
        })
        .collect();
    let lines = memchr::memchr_iter(b'\n', old.as_bytes()).count() + 1;
    if input_edits.len() >= DENSE_EDITS && input_edits.len() * DENSE_LINES >= lines {
        return lang.parse(new);
    }
    // From the last edit to the first: the positions of the earlier ones stay those of `old`.
    input_edits.reverse();
    let mut edited = old_tree.clone();
    for edit in &input_edits {
        edited.edit(edit);
    }
    lang.parse_incremental(new, Some(&edited))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// How many nodes of `tree` come from `old` unchanged: tree-sitter keeps the id of a node it
    /// reuses from the tree a parse started from.
    pub(crate) fn reused_nodes(old: &Tree, tree: &Tree) -> (usize, usize) {
        let mut old_ids = std::collections::HashSet::new();
        crate::lang::walk_tree(old, |n| {
            old_ids.insert(n.id());
            true
        });
        let (mut reused, mut total) = (0, 0);
        crate::lang::walk_tree(tree, |n| {
            total += 1;
            reused += usize::from(old_ids.contains(&n.id()));
            true
        });
        (reused, total)
    }

    #[test]
    fn the_edit_spans_only_the_difference() {
        let edit = edit_between("ab\ncd\nef", "ab\ncXYd\nef");
        assert_eq!(
            (edit.start_byte, edit.old_end_byte, edit.new_end_byte),
            (4, 4, 6)
        );
        assert_eq!(edit.start_position, Point::new(1, 1));
        assert_eq!(edit.new_end_position, Point::new(1, 3));
        let edit = edit_between("aaa", "aa");
        assert_eq!(
            (edit.start_byte, edit.old_end_byte, edit.new_end_byte),
            (2, 3, 2)
        );
        let edit = edit_between("", "x\n");
        assert_eq!(
            (edit.old_end_byte, edit.new_end_position),
            (0, Point::new(1, 0))
        );
    }

    #[test]
    fn a_reparse_reuses_the_old_tree_and_equals_a_full_parse() {
        for lang in Language::ALL {
            let old: String = (0..300)
                .map(|i| match lang {
                    Language::Python => {
                        format!("def f{i}(a, b):\n    total = a + b * {i}\n    return g(total)\n\n\n")
                    }
                    Language::Rust => {
                        format!("fn f{i}(a: u8, b: u8) -> u8 {{\n    let total = a + b * {i};\n    g(total)\n}}\n\n")
                    }
                })
                .collect();
            let old_tree = lang.parse(&old);
            let new = old.replace("b * 250", "b * 250 + 1");
            let tree = reparse(lang, &old, &old_tree, &new);
            assert_eq!(
                tree.root_node().to_sexp(),
                lang.parse(&new).root_node().to_sexp()
            );
            let (reused, total) = reused_nodes(&old_tree, &tree);
            assert!(reused * 10 >= total * 7, "{lang:?}: {reused} of {total}");
            assert!(reused < total, "{lang:?}: the edited part is new");
            // A parse from scratch shares nothing with the old tree.
            assert_eq!(reused_nodes(&old_tree, &lang.parse(&new)).0, 0);
        }
    }

    #[test]
    fn thousands_of_edits_close_together_are_a_fresh_parse_and_a_few_are_not() {
        let calls = |n: usize| -> String {
            let body: String = (0..n)
                .map(|i| format!("    t = t + helper({i}, t);\n"))
                .collect();
            format!(
                "fn helper(a: u64, b: u64) -> u64 {{\n    a + b\n}}\n\nfn main() {{\n    let mut t = 0u64;\n{body}}}\n"
            )
        };
        for (n, dense) in [(DENSE_EDITS + 10, true), (DENSE_EDITS / 2, false)] {
            let old = calls(n);
            let old_tree = Language::Rust.parse(&old);
            let edits: Vec<(std::ops::Range<usize>, &str)> = old
                .match_indices("helper(")
                .skip(1)
                .map(|(i, _)| (i..i + 6, "assist"))
                .collect();
            let new = old.replace("+ helper(", "+ assist(");
            let tree = reparse_edits(Language::Rust, &old, &old_tree, edits, &new);
            assert_eq!(
                tree.root_node().to_sexp(),
                Language::Rust.parse(&new).root_node().to_sexp()
            );
            let (reused, _) = reused_nodes(&old_tree, &tree);
            assert_eq!(reused == 0, dense, "{n} edits: {reused} nodes reused");
        }
    }

    #[test]
    fn several_edits_reparse_like_a_full_parse() {
        let old = "def a():\n    return 1\n\n\ndef b(x):\n    return x\n\n\ndef c():\n    pass\n";
        let tree = Language::Python.parse(old);
        let edits = [
            (
                old.find("1").unwrap()..old.find("1").unwrap() + 1,
                "(\n        2\n    )",
            ),
            (
                old.find("(x)").unwrap() + 1..old.find("(x)").unwrap() + 2,
                "x, y",
            ),
            (old.len()..old.len(), "\n\ndef d():\n    return b(1, 2)\n"),
        ];
        let mut new = old.to_string();
        for (range, text) in edits.iter().rev() {
            new.replace_range(range.clone(), text);
        }
        let reparsed = reparse_edits(Language::Python, old, &tree, edits.iter().cloned(), &new);
        assert_eq!(
            reparsed.root_node().to_sexp(),
            Language::Python.parse(&new).root_node().to_sexp()
        );
        assert_eq!(
            reparsed.root_node().end_position(),
            Language::Python.parse(&new).root_node().end_position()
        );
    }
}
