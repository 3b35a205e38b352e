//! The shape of a bracketed list as the author wrote it (one line, one item per line, aligned
//! under the bracket; trailing comma; indents), the comments and attributes hanging on its items,
//! and rendering a new list of items in that same shape. Pure text; knows no language rules
//! beyond which decorations are line comments.

use std::ops::Range;

use tree_sitter::Node;

use crate::text::indentation_at;

/// A comment or attribute written next to an item of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Decoration {
    pub text: String,
    /// A `//` or `#` comment: it ends its line, so something must break the line after it.
    pub line_comment: bool,
}

/// One item of a list with what hangs on it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Item {
    /// Comment or attribute lines above the item, each on its own line.
    pub leading: Vec<Decoration>,
    /// Comments or attributes on the item's own line, before it (kept with their spacing).
    pub prefix: String,
    /// The item itself (`a: i32`, `b=1`).
    pub text: String,
    /// A comment after the item on its last line (after the comma).
    pub trailing: Option<Decoration>,
    /// The blanks written before `trailing` (PEP 8 wants two spaces before `#`).
    pub trailing_gap: String,
}

impl Item {
    pub fn plain(text: impl Into<String>) -> Item {
        Item {
            text: text.into(),
            ..Item::default()
        }
    }
}

/// How the author laid the list out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Layout {
    /// The first item starts on a line after the opening bracket.
    pub open_break: bool,
    /// Every item starts on its own line.
    pub separate_lines: bool,
    /// Leading whitespace of an item that starts its line.
    pub item_indent: String,
    /// The closing bracket sits on its own line.
    pub close_break: bool,
    pub close_indent: String,
    /// A comma after the last item.
    pub trailing_comma: bool,
}

/// The items of a parsed list node, with the decorations attached to them.
#[derive(Debug, Clone)]
pub(super) struct ParsedList<'t> {
    /// (item node, item with decorations) in order.
    pub items: Vec<(Node<'t>, Item)>,
    /// Comment lines after the last item, before the closing bracket.
    pub footer: Vec<Decoration>,
    pub layout: Layout,
}

/// What a non-item child of a list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum DecorationKind {
    /// May trail the item before it on its line.
    Comment,
    /// Always belongs to the item after it (`#[cfg(x)] a: i32`).
    Attribute,
}

/// Splits the named children of `list` (a parenthesized list node) into items and the
/// decorations (`decoration_kind`) attached to them, and detects the layout.
pub(super) fn parse_list<'t>(
    list: Node<'t>,
    text: &str,
    decoration_kind: impl Fn(Node<'_>) -> Option<DecorationKind>,
    is_line_comment: impl Fn(&str) -> bool,
) -> ParsedList<'t> {
    let mut parsed = ParsedList {
        items: Vec::new(),
        footer: Vec::new(),
        layout: Layout::default(),
    };
    // Decorations waiting for the next item: (end row, range).
    let mut pending: Vec<(usize, Range<usize>)> = Vec::new();
    // The last item's end row and the range of the decorations trailing it on that row.
    let mut last_item_end_row: Option<usize> = None;
    let mut trailing_range: Option<Range<usize>> = None;
    let decoration = |range: &Range<usize>| {
        // tree-sitter-rust keeps the `\r` of a CRLF line in a line comment.
        let body = text.get(range.clone()).unwrap_or("").trim_end().to_string();
        Decoration {
            line_comment: is_line_comment(&body),
            text: body,
        }
    };
    let mut cursor = list.walk();
    let children: Vec<Node<'t>> = list.named_children(&mut cursor).collect();
    for (index, &child) in children.iter().enumerate() {
        let range = child.byte_range();
        let row = child.start_position().row;
        if let Some(kind) = decoration_kind(child) {
            // A comment after an item on its line trails it, unless another item follows on
            // that line (`a, /* c */ b`): then it leads that item.
            let next_item_same_row = children[index + 1..]
                .iter()
                .find(|c| decoration_kind(**c).is_none())
                .is_some_and(|c| c.start_position().row == child.end_position().row);
            let trails = kind == DecorationKind::Comment
                && (is_line_comment(text.get(range.clone()).unwrap_or("")) || !next_item_same_row);
            let previous = parsed
                .items
                .last_mut()
                .filter(|_| trails && pending.is_empty() && last_item_end_row == Some(row));
            if let Some((_, item)) = previous {
                let whole = match trailing_range.take() {
                    Some(earlier) => earlier.start..range.end,
                    None => range.clone(),
                };
                let mut trailing = decoration(&whole);
                trailing.line_comment |= decoration(&range).line_comment;
                item.trailing = Some(trailing);
                let before = text.get(..whole.start).unwrap_or("");
                let blanks = before.len() - before.trim_end_matches([' ', '\t']).len();
                item.trailing_gap = before[before.len() - blanks..].to_string();
                trailing_range = Some(whole);
                continue;
            }
            pending.push((child.end_position().row, range));
            continue;
        }
        let mut item = Item {
            text: text.get(range.clone()).unwrap_or("").to_string(),
            ..Item::default()
        };
        // Decorations ending on the item's own line become its prefix; earlier ones its leading
        // lines, one line per source row.
        let (same_line, above): (Vec<_>, Vec<_>) =
            pending.drain(..).partition(|(end_row, _)| *end_row == row);
        let mut rows: Vec<(usize, Range<usize>)> = Vec::new();
        for (end_row, r) in above {
            match rows.last_mut() {
                Some((last_row, last)) if *last_row == end_row => last.end = r.end,
                _ => rows.push((end_row, r)),
            }
        }
        item.leading = rows.iter().map(|(_, r)| decoration(r)).collect();
        if let Some((_, first)) = same_line.first() {
            item.prefix = text.get(first.start..range.start).unwrap_or("").to_string();
        }
        last_item_end_row = Some(child.end_position().row);
        trailing_range = None;
        parsed.items.push((child, item));
    }
    parsed.footer = pending.iter().map(|(_, r)| decoration(r)).collect();
    let ranges: Vec<Range<usize>> = parsed.items.iter().map(|(n, _)| n.byte_range()).collect();
    parsed.layout = detect_layout(list, text, &ranges);
    parsed
}

fn detect_layout(list: Node<'_>, text: &str, items: &[Range<usize>]) -> Layout {
    // Whether `later` is on a later line than `earlier` (without counting lines from the top).
    let later_line = |later: usize, earlier: usize| {
        later > earlier && text.get(earlier..later).is_some_and(|s| s.contains('\n'))
    };
    let mut layout = Layout::default();
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        return layout;
    };
    let close = list.end_byte().saturating_sub(1);
    layout.open_break = later_line(first.start, list.start_byte());
    layout.separate_lines = if items.len() == 1 {
        layout.open_break
    } else {
        items
            .windows(2)
            .all(|pair| later_line(pair[1].start, pair[0].end))
    };
    layout.item_indent = if layout.open_break {
        indentation_at(text, first.start).to_string()
    } else if layout.separate_lines {
        items
            .get(1)
            .map_or(String::new(), |r| indentation_at(text, r.start).to_string())
    } else {
        String::new()
    };
    layout.close_break = later_line(close, last.end) && only_whitespace_before(text, close);
    layout.close_indent = indentation_at(text, close).to_string();
    let mut cursor = list.walk();
    layout.trailing_comma = list
        .children(&mut cursor)
        .any(|c| !c.is_named() && c.kind() == "," && c.start_byte() >= last.end);
    layout
}

fn only_whitespace_before(text: &str, at: usize) -> bool {
    let line_start = text
        .get(..at)
        .and_then(|s| s.rfind('\n'))
        .map_or(0, |i| i + 1);
    text.get(line_start..at)
        .is_some_and(|s| s.chars().all(|c| c == ' ' || c == '\t'))
}

/// Renders `items` as a parenthesized list in `layout`. Returns the text and the decorations
/// that could not be kept (a line comment on a line that no longer ends after it).
pub(super) fn render(
    layout: &Layout,
    items: &[Item],
    footer: &[Decoration],
    eol: &str,
) -> (String, Vec<String>) {
    let mut dropped = Vec::new();
    if items.is_empty() {
        dropped.extend(footer.iter().map(|d| d.text.clone()));
        return ("()".to_string(), dropped);
    }
    let mut out = String::from("(");
    let count = items.len();
    for (i, item) in items.iter().enumerate() {
        let on_own_line = if i == 0 {
            layout.open_break
        } else {
            layout.separate_lines
        };
        if on_own_line {
            for lead in &item.leading {
                out.push_str(eol);
                out.push_str(&layout.item_indent);
                out.push_str(&lead.text);
            }
            out.push_str(eol);
            out.push_str(&layout.item_indent);
        } else {
            if i > 0 {
                out.push(' ');
            }
            for lead in &item.leading {
                if lead.line_comment {
                    dropped.push(lead.text.clone());
                } else {
                    out.push_str(&lead.text);
                    out.push(' ');
                }
            }
        }
        out.push_str(&item.prefix);
        out.push_str(&item.text);
        let last = i + 1 == count;
        if !last || layout.trailing_comma {
            out.push(',');
        }
        let line_breaks_after = if last {
            layout.close_break
        } else {
            layout.separate_lines
        };
        if let Some(trailing) = &item.trailing {
            if line_breaks_after || !trailing.line_comment {
                out.push_str(if item.trailing_gap.is_empty() {
                    " "
                } else {
                    &item.trailing_gap
                });
                out.push_str(&trailing.text);
            } else {
                dropped.push(trailing.text.clone());
            }
        }
    }
    if layout.close_break {
        for line in footer {
            out.push_str(eol);
            out.push_str(&layout.item_indent);
            out.push_str(&line.text);
        }
        out.push_str(eol);
        out.push_str(&layout.close_indent);
    } else {
        for line in footer {
            if line.line_comment {
                dropped.push(line.text.clone());
            } else {
                out.push(' ');
                out.push_str(&line.text);
            }
        }
    }
    out.push(')');
    (out, dropped)
}

/// The items on one line, for messages and `details` (`(a: i32, b: &str)`).
pub(super) fn one_line(items: &[&str]) -> String {
    let parts: Vec<String> = items.iter().map(|t| collapse_whitespace(t)).collect();
    format!("({})", parts.join(", "))
}

/// Collapses every run of whitespace containing a line break to one space.
pub(super) fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            run.push(c);
            continue;
        }
        if !run.is_empty() {
            out.push_str(if run.contains('\n') { " " } else { &run });
            run.clear();
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{Language, walk_tree};

    /// Parses the first Python parameter list of `text` and renders `names` in its layout.
    fn rerender(text: &str, names: &[&str]) -> (String, Vec<String>) {
        let tree = Language::Python.parse(text);
        let mut list = None;
        walk_tree(&tree, |n| {
            if n.kind() == "parameters" && list.is_none() {
                list = Some(n);
            }
            list.is_none()
        });
        let parsed = parse_list(
            list.unwrap(),
            text,
            |n| (n.kind() == "comment").then_some(DecorationKind::Comment),
            |s| s.starts_with('#'),
        );
        let items: Vec<Item> = names
            .iter()
            .map(|name| {
                parsed
                    .items
                    .iter()
                    .map(|(_, item)| item)
                    .find(|item| item.text == *name)
                    .cloned()
                    .unwrap_or_else(|| Item::plain(*name))
            })
            .collect();
        render(&parsed.layout, &items, &parsed.footer, "\n")
    }

    #[test]
    fn one_line_stays_one_line() {
        assert_eq!(
            rerender("def f(a, b): pass\n", &["b", "c", "a"]).0,
            "(b, c, a)"
        );
        assert_eq!(rerender("def f(a, b,): pass\n", &["c"]).0, "(c,)");
        assert_eq!(rerender("def f(): pass\n", &["a", "b"]).0, "(a, b)");
        assert_eq!(rerender("def f(a): pass\n", &[]).0, "()");
    }

    #[test]
    fn one_per_line_keeps_indent_trailing_comma_and_comments() {
        let text = "def f(\n\t# about a\n\ta,\n\tb,  # about b\n\t# the end\n):\n\tpass\n";
        let (out, dropped) = rerender(text, &["b", "x", "a"]);
        assert_eq!(
            out,
            "(\n\tb,  # about b\n\tx,\n\t# about a\n\ta,\n\t# the end\n)"
        );
        assert!(dropped.is_empty());
        let no_trailing_comma = "def f(\n    a,\n    b\n):\n    pass\n";
        assert_eq!(
            rerender(no_trailing_comma, &["a", "c"]).0,
            "(\n    a,\n    c\n)"
        );
    }

    #[test]
    fn aligned_and_hugging_lists_keep_their_shape() {
        assert_eq!(
            rerender("def f(a,\n      b):\n    pass\n", &["a", "b", "c"]).0,
            "(a,\n      b,\n      c)"
        );
        assert_eq!(
            rerender("def f(\n    a, b\n):\n    pass\n", &["b", "c"]).0,
            "(\n    b, c\n)"
        );
    }

    #[test]
    fn a_line_comment_that_would_swallow_code_is_dropped_and_reported() {
        // `a,  # note` in a hugging list: `a` is no longer last on its line after the change.
        let text = "def f(\n    a, b  # note\n):\n    pass\n";
        let (out, dropped) = rerender(text, &["b", "a"]);
        assert_eq!(out, "(\n    b, a\n)");
        assert_eq!(dropped, vec!["# note".to_string()]);
    }

    #[test]
    fn whitespace_collapses_only_across_lines() {
        assert_eq!(collapse_whitespace("a:  i32"), "a:  i32");
        assert_eq!(collapse_whitespace("Vec<\n    u8,\n>"), "Vec< u8, >");
        assert_eq!(one_line(&["&self", "a: i32"]), "(&self, a: i32)");
    }
}
