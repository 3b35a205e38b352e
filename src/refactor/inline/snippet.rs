//! Moving a function body to a call site: the body's text with a few edits applied (returns
//! rewritten, `self` renamed...), cut into lines, and re-indented into the call site's
//! indentation, indent unit and line endings. Lines that start inside a multi-line string
//! literal are content, not code: they are kept byte for byte. Pure text work, no syntax tree.

use std::ops::Range;

use crate::text::IndentUnit;

/// One line of a body, split into its indentation and the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Line {
    /// Leading spaces and tabs as written in the source (empty for a verbatim line).
    pub indent: String,
    /// The rest of the line, without its line terminator.
    pub content: String,
    /// The line starts inside a multi-line string literal: never re-indented.
    pub verbatim: bool,
}

/// An edit of the source text, in bytes of the whole file (must lie inside the extracted range).
pub(super) type Splice = (Range<usize>, String);

/// The lines of `text[range]` after `splices`, with the lines that start inside one of the
/// `protected` ranges (multi-line strings, byte ranges of the whole file) marked verbatim.
/// The first line's indentation is the whitespace before `range.start` on its line when there
/// is nothing else there, and `None` otherwise (a body written on the header's line).
pub(super) fn extract(
    text: &str,
    range: Range<usize>,
    splices: &[Splice],
    protected: &[Range<usize>],
) -> (Vec<Line>, Option<String>) {
    let mut splices: Vec<&Splice> = splices
        .iter()
        .filter(|(r, _)| r.start >= range.start && r.end <= range.end)
        .collect();
    splices.sort_by_key(|(r, _)| (r.start, r.end));
    // Pieces of the edited text: (text, original offset of its first byte when it is original).
    let mut pieces: Vec<(&str, Option<usize>)> = Vec::new();
    let mut cursor = range.start;
    for (r, new_text) in splices {
        if r.start < cursor {
            continue; // overlapping splices are a caller bug; keep the first
        }
        pieces.push((&text[cursor..r.start], Some(cursor)));
        pieces.push((new_text.as_str(), None));
        cursor = r.end;
    }
    pieces.push((&text[cursor..range.end], Some(cursor)));

    let in_protected = |offset: usize| protected.iter().any(|p| p.start < offset && offset < p.end);
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut current_verbatim = false;
    for (piece, origin) in pieces {
        let mut local = 0;
        for part in piece.split_inclusive('\n') {
            current.push_str(part);
            local += part.len();
            if part.ends_with('\n') {
                lines.push((std::mem::take(&mut current), current_verbatim));
                current_verbatim = origin.is_some_and(|o| in_protected(o + local));
            }
        }
    }
    lines.push((current, current_verbatim));

    let first_indent = {
        let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
        let before = &text[line_start..range.start];
        before
            .chars()
            .all(|c| c == ' ' || c == '\t')
            .then(|| before.to_string())
    };
    let lines = lines
        .into_iter()
        .enumerate()
        .map(|(i, (raw, verbatim))| {
            let raw = raw.strip_suffix('\n').unwrap_or(&raw);
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            if verbatim {
                Line {
                    indent: String::new(),
                    content: raw.to_string(),
                    verbatim: true,
                }
            } else if i == 0 {
                Line {
                    indent: first_indent.clone().unwrap_or_default(),
                    content: raw.to_string(),
                    verbatim: false,
                }
            } else {
                let content = raw.trim_start_matches([' ', '\t']);
                Line {
                    indent: raw[..raw.len() - content.len()].to_string(),
                    content: content.to_string(),
                    verbatim: false,
                }
            }
        })
        .collect();
    (lines, first_indent)
}

/// How to lay lines out at the destination.
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout<'a> {
    /// The indent unit of the file the lines come from.
    pub from_unit: IndentUnit,
    /// The indentation every line of the body level gets at the destination.
    pub to_indent: &'a str,
    /// The indent unit of the destination file.
    pub to_unit: IndentUnit,
}

/// Re-indents `lines` (whose common base indentation is `base`) for the destination: the base
/// becomes `to_indent`, each further level of the source unit becomes one destination unit,
/// blank lines become empty, verbatim lines are kept as they are. Returns the lines without
/// terminators.
pub(super) fn layout(lines: &[Line], base: &str, to: Layout<'_>) -> Vec<String> {
    lines
        .iter()
        .map(|line| {
            if line.verbatim {
                return line.content.clone();
            }
            if line.content.trim().is_empty() {
                return String::new();
            }
            let relative = line.indent.strip_prefix(base).unwrap_or("");
            format!(
                "{}{}{}",
                to.to_indent,
                convert_indent(relative, to.from_unit, to.to_unit),
                line.content.trim_end()
            )
        })
        .collect()
}

/// The base indentation of body lines: the first line's when known, else the smallest
/// indentation of the other code lines.
pub(super) fn base_indent(lines: &[Line], first_indent: Option<&str>) -> String {
    if let Some(first) = first_indent {
        return first.to_string();
    }
    lines
        .iter()
        .skip(1)
        .filter(|l| !l.verbatim && !l.content.trim().is_empty())
        .map(|l| l.indent.as_str())
        .min_by_key(|i| i.len())
        .unwrap_or("")
        .to_string()
}

/// Re-expresses relative indentation written in `from` units in `to` units; what does not make
/// a whole unit (alignment spaces) is kept.
pub(super) fn convert_indent(relative: &str, from: IndentUnit, to: IndentUnit) -> String {
    if from == to {
        return relative.to_string();
    }
    let mut levels = 0usize;
    let mut rest = relative;
    loop {
        if let Some(r) = rest.strip_prefix('\t') {
            levels += 1;
            rest = r;
            continue;
        }
        if let IndentUnit::Spaces(n) = from
            && n > 0
            && rest.len() >= n
            && rest.as_bytes()[..n].iter().all(|b| *b == b' ')
        {
            levels += 1;
            rest = &rest[n..];
            continue;
        }
        break;
    }
    format!("{}{}", to.as_str().repeat(levels), rest)
}

/// `text` with every line break written as `eol`.
pub(super) fn normalize_eol(text: &str, eol: &str) -> String {
    let lf = text.replace("\r\n", "\n");
    if eol == "\n" {
        lf
    } else {
        lf.replace('\n', eol)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_inside_a_multiline_string_are_verbatim() {
        let text = "def f():\n    s = \"\"\"a\n  b\n\"\"\"\n    if s:\n        return s\n";
        let start = text.find("s =").unwrap();
        let end = text.len() - 1;
        let string_start = text.find("\"\"\"").unwrap();
        let string_end = text.rfind("\"\"\"").unwrap() + 3;
        let (lines, first) = extract(
            text,
            start..end,
            &[],
            std::slice::from_ref(&(string_start..string_end)),
        );
        let verbatim: Vec<bool> = lines.iter().map(|l| l.verbatim).collect();
        assert_eq!(verbatim, vec![false, true, true, false, false]);
        let base = base_indent(&lines, first.as_deref());
        assert_eq!(base, "    ");
        let out = layout(
            &lines,
            &base,
            Layout {
                from_unit: IndentUnit::Spaces(4),
                to_indent: "\t",
                to_unit: IndentUnit::Tab,
            },
        );
        assert_eq!(
            out,
            vec!["\ts = \"\"\"a", "  b", "\"\"\"", "\tif s:", "\t\treturn s"]
        );
    }

    #[test]
    fn splices_apply_and_crlf_is_dropped() {
        let text = "fn f() {\r\n    let a = 1;\r\n    return a;\r\n}\r\n";
        let start = text.find("let").unwrap();
        let end = text.find("a;\r\n}").unwrap() + 2;
        let ret = text.find("return a;").unwrap();
        let splices = vec![
            (ret..ret + 7, String::new()),
            (ret + 8..ret + 9, String::new()),
        ];
        let (lines, first) = extract(text, start..end, &splices, &[]);
        let out = layout(
            &lines,
            &base_indent(&lines, first.as_deref()),
            Layout {
                from_unit: IndentUnit::Spaces(4),
                to_indent: "  ",
                to_unit: IndentUnit::Spaces(2),
            },
        );
        assert_eq!(out, vec!["  let a = 1;", "  a"]);
    }

    #[test]
    fn indentation_converts_between_units() {
        assert_eq!(
            convert_indent("        x", IndentUnit::Spaces(4), IndentUnit::Tab),
            "\t\tx"
        );
        assert_eq!(
            convert_indent("\t  ", IndentUnit::Tab, IndentUnit::Spaces(2)),
            "    "
        );
        assert_eq!(
            convert_indent("      ", IndentUnit::Spaces(4), IndentUnit::Spaces(2)),
            "    "
        );
        assert_eq!(normalize_eol("a\r\nb\nc", "\r\n"), "a\r\nb\r\nc");
        assert_eq!(normalize_eol("a\r\nb", "\n"), "a\nb");
    }
}
