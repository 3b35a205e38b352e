//! The text extract function writes: the new function (header, the moved lines re-indented to
//! the file's indent unit, multi-line string contents left alone) and the call that replaces the
//! selection, as two edits. Generated lines use the file's line ending. Pure.

use tree_sitter::Node;

use crate::edit::TextEdit;
use crate::lang::{Language, walk_node};
use crate::text::surgery::{Reindent, blank_lines_above};
use crate::text::{LineIndex, TextStyle};

use super::destination::{Destination, Placement};
use super::flow::DataFlow;
use super::selection::Selection;
use super::signature::Shape;

pub struct Rendered {
    pub edits: Vec<TextEdit>,
    /// The call as written in place of the selection (`self.show()`).
    pub call: String,
    /// Offset, in the text after the edits, of the first line of the new function.
    pub function_offset: usize,
}

pub struct Spec<'a> {
    pub lang: Language,
    pub text: &'a str,
    pub lines: &'a LineIndex,
    pub style: TextStyle,
    pub name: &'a str,
    pub is_async: bool,
    pub flow: &'a DataFlow,
    pub shape: &'a Shape,
}

pub fn render(spec: &Spec<'_>, selection: &Selection<'_>, target: &Destination<'_>) -> Rendered {
    let nl = spec.style.line_ending;
    let unit = spec.style.indent.as_str();
    let function = function_text(spec, selection, target, &unit);

    let call = call_text(spec, target);
    let statement = spec.shape.call_statement(spec.lang, &call, spec.flow);
    let last = selection.last_line;
    let terminator = &spec.text[spec.lines.line_range(spec.text, last).end..selection.moved.end];
    let call_line = format!("{}{statement}{terminator}", selection.indent);

    let moved = selection.moved.clone();
    let delta_before = |at: usize| {
        if moved.end <= at {
            call_line.len() as isize - moved.len() as isize
        } else {
            0
        }
    };
    match target.placement {
        Placement::After { at, at_eof } => {
            let lead = if at_eof {
                nl.repeat(target.blank_lines + 1)
            } else {
                nl.repeat(target.blank_lines)
            };
            let trail = if at_eof { "" } else { nl };
            let inserted = format!("{lead}{function}{trail}");
            let function_offset = (at as isize + delta_before(at)) as usize + lead.len();
            Rendered {
                edits: vec![
                    TextEdit::new(moved, call_line),
                    TextEdit::insert(at, inserted),
                ],
                call,
                function_offset,
            }
        }
        Placement::Before { at } => {
            let above = blank_lines_above(spec.text, at);
            let lead = if at == 0 {
                String::new()
            } else {
                nl.repeat(target.blank_lines.saturating_sub(above))
            };
            let inserted = format!("{lead}{function}{nl}{}", nl.repeat(target.blank_lines));
            let function_offset = at + lead.len();
            let edits = if at == moved.start {
                vec![TextEdit::new(moved, format!("{inserted}{call_line}"))]
            } else {
                vec![
                    TextEdit::insert(at, inserted),
                    TextEdit::new(moved, call_line),
                ]
            };
            Rendered {
                edits,
                call,
                function_offset,
            }
        }
    }
}

fn call_text(spec: &Spec<'_>, target: &Destination<'_>) -> String {
    let call = format!(
        "{}{}{}({})",
        target.call_prefix,
        spec.name,
        spec.shape.turbofish,
        spec.shape.arguments.join(", ")
    );
    let call = match (spec.lang, spec.is_async) {
        (Language::Rust, true) => format!("{call}.await"),
        (Language::Python, true) => format!("await {call}"),
        (_, false) => call,
    };
    // The new function is `unsafe fn`: outside an `unsafe` block its call needs one where
    // `unsafe_op_in_unsafe_fn` applies (edition 2024, or a crate that denies the lint).
    if spec.lang == Language::Rust && target.is_unsafe && target.unsafe_block.is_none() {
        format!("unsafe {{ {call} }}")
    } else {
        call
    }
}

/// Whether the last selected statement never completes (`panic!`, `std::process::exit`).
fn ends_diverging(spec: &Spec<'_>, selection: &Selection<'_>) -> bool {
    selection
        .statements
        .last()
        .is_some_and(|last| spec.lang.syntax().diverges(*last, spec.text))
}

/// The new function, without a final line ending.
fn function_text(
    spec: &Spec<'_>,
    selection: &Selection<'_>,
    target: &Destination<'_>,
    unit: &str,
) -> String {
    let nl = spec.style.line_ending;
    let (outer_indent, fn_indent) = match &target.wrapper {
        Some(_) => (target.indent.clone(), format!("{}{unit}", target.indent)),
        None => (target.indent.clone(), target.indent.clone()),
    };
    let body_indent = format!("{fn_indent}{unit}");
    let moved_text = with_derefs(spec, selection);
    let keep = string_continuation_lines(spec, selection);
    let mut body = Reindent {
        base: &selection.indent,
        to: &body_indent,
        from_unit: spec.style.indent,
        to_unit: spec.style.indent,
    }
    .block(&moved_text, &keep);
    if !body.ends_with('\n') {
        body.push_str(nl);
    }
    if let Some(end) = &spec.shape.body_end {
        body.push_str(&format!("{body_indent}{end}{nl}"));
    }
    let receiver = spec
        .shape
        .receiver
        .as_ref()
        .or(target.receiver.as_ref())
        .cloned()
        .into_iter()
        .chain(spec.shape.parameters.iter().cloned())
        .collect::<Vec<_>>()
        .join(", ");
    let async_ = if spec.is_async { "async " } else { "" };
    let mut out = String::new();
    match spec.lang {
        Language::Rust => {
            if let Some(wrapper) = &target.wrapper {
                out.push_str(&format!("{outer_indent}{wrapper} {{{nl}"));
            }
            let const_ = if target.is_const && !spec.is_async {
                "const "
            } else {
                ""
            };
            // In an unsafe context the selection may do unsafe operations: the new function
            // keeps that context, and its call stays inside the caller's.
            let unsafe_ = if target.is_unsafe || target.unsafe_block.is_some() {
                "unsafe "
            } else {
                ""
            };
            // A selection that ends by panicking never returns: neither does the new function,
            // so a block that got its type from that (`_ => unreachable!(..)`) keeps it.
            let never = match &spec.shape.return_type {
                Some(ty) => format!(" -> {ty}"),
                None if !spec.is_async && ends_diverging(spec, selection) => " -> !".to_string(),
                None => String::new(),
            };
            let generics = spec.shape.generics.as_deref().unwrap_or("");
            let where_clause = spec
                .shape
                .where_clause
                .as_ref()
                .map_or(String::new(), |w| format!(" {w}"));
            out.push_str(&format!(
                "{fn_indent}{const_}{async_}{unsafe_}fn {}{generics}({receiver}){never}{where_clause} {{{nl}",
                spec.name
            ));
            out.push_str(&body);
            out.push_str(&format!("{fn_indent}}}"));
            if target.wrapper.is_some() {
                out.push_str(&format!("{nl}{outer_indent}}}"));
            }
        }
        Language::Python => {
            if let Some(decorator) = target.decorator {
                out.push_str(&format!("{fn_indent}{decorator}{nl}"));
            }
            out.push_str(&format!(
                "{fn_indent}{async_}def {}({receiver}):{nl}",
                spec.name
            ));
            out.push_str(
                body.strip_suffix(nl)
                    .or_else(|| body.strip_suffix('\n'))
                    .unwrap_or(&body),
            );
        }
    }
    out
}

/// The moved text with the `*` a parameter passed by reference needs (`*x == y`, `S { x: *x }`)
/// and each jump the new function hands back replaced by its `return`.
fn with_derefs(spec: &Spec<'_>, selection: &Selection<'_>) -> String {
    let start = selection.moved.start;
    let mut text = spec.text[selection.moved.clone()].to_string();
    // (start, end, replacement), relative to the moved text, applied from the last.
    let mut edits: Vec<(usize, usize, String)> = Vec::new();
    for deref in &spec.flow.derefs {
        let Some(at) = deref.at.checked_sub(start).filter(|at| *at <= text.len()) else {
            continue;
        };
        if deref.shorthand {
            let name = &text[at..at + deref.len];
            edits.push((at + deref.len, at + deref.len, format!(": *{name}")));
        } else {
            edits.push((at, at, "*".to_string()));
        }
    }
    for (range, replacement) in spec.shape.jump_edits.iter().chain(&spec.flow.unref) {
        if let (Some(from), Some(to)) =
            (range.start.checked_sub(start), range.end.checked_sub(start))
            && to <= text.len()
        {
            edits.push((from, to, replacement.clone()));
        }
    }
    edits.sort_by_key(|(from, _, _)| std::cmp::Reverse(*from));
    for (from, to, replacement) in edits {
        text.replace_range(from..to, &replacement);
    }
    text
}

/// Lines of the moved text (0-based, relative to it) that start inside a multi-line string:
/// their leading whitespace is content, not indentation.
fn string_continuation_lines(spec: &Spec<'_>, selection: &Selection<'_>) -> Vec<usize> {
    let mut keep = Vec::new();
    let first = selection.first_line;
    for statement in &selection.statements {
        walk_node(*statement, |node| {
            if !spec.lang.syntax().is_string(node) {
                return true;
            }
            push_inner_lines(node, first, &mut keep);
            false
        });
    }
    keep
}

fn push_inner_lines(node: Node<'_>, first: usize, keep: &mut Vec<usize>) {
    let (start, end) = (node.start_position().row, node.end_position().row);
    for row in start + 1..=end {
        if row >= first {
            keep.push(row - first);
        }
    }
}
