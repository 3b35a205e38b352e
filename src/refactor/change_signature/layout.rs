//! Rendering a new parameter list in the shape the author wrote the old one (one line, one item
//! per line, aligned under the bracket; trailing comma; indents), with the comments and
//! attributes that hang on its items. Pure text; the list as written is `lang::params`.

use crate::lang::params::{Decoration, Item, Layout};
use crate::text::collapse_whitespace;

/// A line comment whose line no longer ends after it, written where it can stay: a Rust `//`
/// comment becomes `/* … */` in place (`Ok`); a Python `#` comment (`Err`) waits for the end of
/// the next line of the list.
fn inline_form(comment: &str) -> Result<String, String> {
    match comment.strip_prefix("//") {
        Some(body) if !body.contains("*/") && !body.starts_with(['/', '!']) => {
            Ok(format!("/* {} */", body.trim()))
        }
        _ => Err(comment.to_string()),
    }
}

/// Renders `items` as a parenthesized list in `layout`. Returns the text and the decorations
/// that could not be kept (a Python line comment when no line of the list ends after it).
/// Comments survive a change of place: a line comment that would swallow what follows it on
/// its line becomes a block comment (Rust) or moves to the end of its line (Python).
pub(crate) fn render(
    layout: &Layout,
    items: &[Item],
    footer: &[Decoration],
    eol: &str,
) -> (String, Vec<String>) {
    let mut dropped = Vec::new();
    // Python line comments waiting for the end of a line.
    let mut pending: Vec<String> = Vec::new();
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
                let text = if lead.line_comment {
                    match inline_form(&lead.text) {
                        Ok(block) => block,
                        Err(waiting) => {
                            pending.push(waiting);
                            continue;
                        }
                    }
                } else {
                    lead.text.clone()
                };
                out.push_str(&text);
                out.push(' ');
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
            let text = if line_breaks_after || !trailing.line_comment {
                Some(trailing.text.clone())
            } else {
                match inline_form(&trailing.text) {
                    Ok(block) => Some(block),
                    Err(waiting) => {
                        pending.push(waiting);
                        None
                    }
                }
            };
            if let Some(text) = text {
                out.push_str(if item.trailing_gap.is_empty() {
                    " "
                } else {
                    &item.trailing_gap
                });
                out.push_str(&text);
            }
        }
        if line_breaks_after && !pending.is_empty() {
            out.push_str("  ");
            out.push_str(&pending.join("  "));
            pending.clear();
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
            let text = if line.line_comment {
                match inline_form(&line.text) {
                    Ok(block) => block,
                    Err(waiting) => {
                        pending.push(waiting);
                        continue;
                    }
                }
            } else {
                line.text.clone()
            };
            out.push(' ');
            out.push_str(&text);
        }
    }
    dropped.append(&mut pending);
    out.push(')');
    (out, dropped)
}

/// The items on one line, for messages and `details` (`(a: i32, b: &str)`).
pub(super) fn one_line(items: &[&str]) -> String {
    let parts: Vec<String> = items.iter().map(|t| collapse_whitespace(t)).collect();
    format!("({})", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::params::{DecorationKind, parse_list};
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
    fn a_line_comment_that_would_swallow_code_moves_to_the_end_of_its_line() {
        // `b  # note` in a hugging list: `b` is no longer last on its line after the change.
        let text = "def f(\n    a, b  # note\n):\n    pass\n";
        let (out, dropped) = rerender(text, &["b", "a"]);
        assert_eq!(out, "(\n    b, a  # note\n)");
        assert!(dropped.is_empty());
        // No line of the list ends after it: reported as dropped.
        let (out, dropped) = rerender("def f(a,  # note\n      b): pass\n", &["a"]);
        assert_eq!(out, "(a)");
        assert_eq!(dropped, vec!["# note".to_string()]);
    }

    #[test]
    fn a_rust_line_comment_that_would_swallow_code_becomes_a_block_comment() {
        assert_eq!(
            inline_form("// the width").as_deref(),
            Ok("/* the width */")
        );
        assert!(inline_form("// a */ b").is_err());
        assert!(inline_form("/// doc").is_err());
    }

    #[test]
    fn whitespace_collapses_only_across_lines() {
        assert_eq!(collapse_whitespace("a:  i32"), "a:  i32");
        assert_eq!(collapse_whitespace("Vec<\n    u8,\n>"), "Vec< u8, >");
        assert_eq!(one_line(&["&self", "a: i32"]), "(&self, a: i32)");
    }
}
