//! Snapping a line range to whole statements of one block, on the syntax tree. Blank lines and
//! comments at the edges are fine; a statement cut in half, a range that spans two blocks, or one
//! that is not inside a statement list is refused with the line that breaks it. Pure.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::wording as w;
use crate::lang::syntax::Syntax;
use crate::lang::{Language, node_text, walk_node};
use crate::refactor::RefactorError;
use crate::text::{LineIndex, indent_width, indentation_at};

/// The statements the user selected, snapped to whole lines.
#[derive(Debug, Clone)]
pub struct Selection<'t> {
    /// The statement list holding them: a Rust `block`, a Python `block` or `module`.
    pub block: Node<'t>,
    /// The selected children of `block`, in order (comments excluded).
    pub statements: Vec<Node<'t>>,
    /// Bytes of the whole lines that move, terminators included: from the first to the last
    /// non-blank selected line.
    pub moved: Range<usize>,
    /// 0-based first and last moved lines.
    pub first_line: usize,
    pub last_line: usize,
    /// The Rust tail expression of `block`, when it is the last selected statement.
    pub tail: Option<Node<'t>>,
    /// Leading whitespace of the first statement's line: where the call goes.
    pub indent: String,
}

impl Selection<'_> {
    /// `"10-14"`, 1-based.
    pub fn line_label(&self) -> String {
        format!("{}-{}", self.first_line + 1, self.last_line + 1)
    }

    /// Whether byte `at` is inside the moved lines.
    pub fn contains(&self, at: usize) -> bool {
        self.moved.contains(&at)
    }
}

/// Snaps `start_line..=end_line` (1-based) to whole statements of one block.
pub fn snap<'t>(
    lang: Language,
    tree: &'t Tree,
    text: &str,
    lines: &LineIndex,
    start_line: usize,
    end_line: usize,
) -> Result<Selection<'t>, RefactorError> {
    let line_count = lines.line_count();
    if start_line == 0 || end_line < start_line {
        return Err(invalid(
            start_line.max(1),
            w::lines_are_not_a_range(start_line, end_line),
        ));
    }
    if start_line > line_count {
        return Err(invalid(
            start_line,
            w::start_line_is_past_the_end(start_line, line_count),
        ));
    }
    if end_line > line_count {
        return Err(invalid(
            end_line,
            w::end_line_is_past_the_end(end_line, line_count),
        ));
    }
    let is_blank = |line: usize| text[lines.line_range(text, line)].trim().is_empty();
    let Some(first_line) = (start_line - 1..end_line).find(|&l| !is_blank(l)) else {
        return Err(invalid(
            start_line,
            w::lines_are_blank(start_line, end_line),
        ));
    };
    let last_line = (start_line - 1..end_line)
        .rev()
        .find(|&l| !is_blank(l))
        .unwrap_or(first_line);
    let span = lines.line_start(first_line)..lines.line_range(text, last_line).end;

    let syntax = lang.syntax();
    let tokens = code_tokens(syntax, tree, span.clone())?;
    let Some((first_token, last_token)) = tokens else {
        return Err(invalid(
            first_line + 1,
            w::lines_hold_only_comments(first_line + 1, last_line + 1),
        ));
    };
    let code = first_token.start_byte()..last_token.end_byte();
    let block = statement_list(syntax, text, first_token, last_token, &code, &span)?;

    let mut statements = Vec::new();
    let mut cursor = block.walk();
    for child in block.named_children(&mut cursor) {
        if syntax.is_comment(child)
            || child.end_byte() <= code.start
            || child.start_byte() >= code.end
        {
            continue;
        }
        if child.start_byte() < span.start || child.end_byte() > span.end {
            return Err(cut_statement(
                syntax,
                text,
                child,
                &span,
                first_token,
                last_token,
            ));
        }
        statements.push(child);
    }
    let (Some(&first), Some(&last)) = (statements.first(), statements.last()) else {
        // Tokens strictly inside a statement list always belong to one of its children.
        return Err(invalid(first_line + 1, w::no_whole_statement()));
    };
    check_attributes(syntax, text, first, last)?;
    if block.has_error() {
        let line = first_error_line(block).unwrap_or(first_line + 1);
        return Err(RefactorError::Unsupported(w::code_around_does_not_parse(
            line,
        )));
    }
    let tail = syntax.is_tail_value(block, last).then_some(last);
    // Comment lines at the edges move with the code only when they belong to the block; a
    // comment beyond it (after the function, at module level) stays where it is, like blank
    // lines, so the moved lines never reach past the enclosing function.
    let statement_first = lines.line_of(first.start_byte());
    let statement_last = lines.line_of(last.end_byte().saturating_sub(1).max(last.start_byte()));
    let statement_indent = indent_width(indentation_at(text, first.start_byte()));
    let belongs = |line: usize| {
        let range = lines.line_range(text, line);
        let content = &text[range.clone()];
        if content.trim().is_empty() {
            return false;
        }
        syntax.line_in_block(block, &range, text, statement_indent)
    };
    let mut first_line = first_line;
    let mut last_line = last_line;
    while last_line > statement_last && !belongs(last_line) {
        last_line -= 1;
    }
    while first_line < statement_first && !belongs(first_line) {
        first_line += 1;
    }
    Ok(Selection {
        block,
        indent: indentation_at(text, first.start_byte()).to_string(),
        statements,
        moved: lines.line_start(first_line)..lines.line_start(last_line + 1),
        first_line,
        last_line,
        tail,
    })
}

fn invalid(line: usize, message: String) -> RefactorError {
    RefactorError::InvalidRange { line, message }
}

fn line_of(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

fn end_line_of(node: Node<'_>) -> usize {
    node.end_position().row + 1
}

/// The first and last code tokens (leaves that are not comments) inside `span`. A comment or
/// token that crosses the edge of the span is refused: moving half of it would break the file.
fn code_tokens<'t>(
    syntax: &dyn Syntax,
    tree: &'t Tree,
    span: Range<usize>,
) -> Result<Option<(Node<'t>, Node<'t>)>, RefactorError> {
    let mut first: Option<Node<'t>> = None;
    let mut last: Option<Node<'t>> = None;
    let mut crossing: Option<Node<'t>> = None;
    walk_node(tree.root_node(), |node| {
        let overlaps = node.start_byte() < span.end && node.end_byte() > span.start;
        if !overlaps || crossing.is_some() {
            return false;
        }
        let comment = syntax.is_comment(node);
        if comment || node.child_count() == 0 {
            if comment && (node.start_byte() < span.start || node.end_byte() > span.end) {
                crossing = Some(node);
            } else if !comment && node.start_byte() < node.end_byte() {
                if first.is_none() {
                    first = Some(node);
                }
                last = Some(node);
            }
            return false;
        }
        true
    });
    if let Some(comment) = crossing {
        let line = if comment.start_byte() < span.start {
            line_of(comment)
        } else {
            end_line_of(comment)
        };
        return Err(invalid(
            line,
            w::comment_partly_selected(line, line_of(comment), end_line_of(comment)),
        ));
    }
    Ok(first.zip(last))
}

/// The deepest statement list that holds the code between `first` and `last` strictly inside
/// its delimiters; a function, class or item met on the way up means the selection takes part
/// of a definition, which is refused.
fn statement_list<'t>(
    syntax: &dyn Syntax,
    text: &str,
    first: Node<'t>,
    last: Node<'t>,
    code: &Range<usize>,
    span: &Range<usize>,
) -> Result<Node<'t>, RefactorError> {
    let mut node = common_ancestor(first, last);
    loop {
        if syntax.is_statement_list(node) && syntax.inside_delimiters(node, code) {
            return Ok(node);
        }
        let whole = node.start_byte() >= span.start && node.end_byte() <= span.end;
        if syntax.is_definition(node) && !whole {
            return Err(definition_cut(syntax, text, node, span));
        }
        if syntax.is_item_container(node) {
            return Err(invalid(
                line_of_offset(text, span.start),
                w::not_in_a_function_body(
                    line_of_offset(text, span.start),
                    line_of_offset(text, span.end),
                ),
            ));
        }
        match node.parent() {
            Some(parent) => node = parent,
            None => {
                return Err(invalid(
                    line_of_offset(text, span.start),
                    w::not_in_a_block(),
                ));
            }
        }
    }
}

fn line_of_offset(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

fn common_ancestor<'t>(a: Node<'t>, b: Node<'t>) -> Node<'t> {
    let mut ancestors = Vec::new();
    let mut current = Some(a);
    while let Some(node) = current {
        ancestors.push(node.id());
        current = node.parent();
    }
    let mut current = Some(b);
    while let Some(node) = current {
        if ancestors.contains(&node.id()) {
            return node;
        }
        current = node.parent();
    }
    a
}

fn cut_statement(
    syntax: &dyn Syntax,
    text: &str,
    statement: Node<'_>,
    span: &Range<usize>,
    first_token: Node<'_>,
    last_token: Node<'_>,
) -> RefactorError {
    let (start, end) = (line_of(statement), end_line_of(statement));
    let what = syntax.describe(statement, text);
    let (sel_start, sel_end) = (
        line_of_offset(text, span.start),
        line_of_offset(text, span.end),
    );
    let starts_before = statement.start_byte() < span.start;
    let ends_after = statement.end_byte() > span.end;
    if starts_before && ends_after {
        let first_list = enclosing_list(syntax, first_token, statement);
        let last_list = enclosing_list(syntax, last_token, statement);
        if first_list.is_some() && first_list != last_list {
            return invalid(
                start,
                w::spans_two_blocks(start, sel_start, sel_end, &what, end),
            );
        }
        return invalid(
            start,
            w::inside_a_statement(start, sel_start, sel_end, &what, end),
        );
    }
    let nested = |token: Node<'_>| enclosing_list(syntax, token, statement).is_some();
    if starts_before {
        let message = if nested(first_token) {
            w::starts_inside_a_block(start, &what, end)
        } else {
            w::starts_in_the_middle(start, &what, end)
        };
        return invalid(start, message);
    }
    let message = if nested(last_token) {
        w::ends_inside_a_block(end, &what, start)
    } else {
        w::ends_in_the_middle(end, &what, start)
    };
    invalid(end, message)
}

/// The statement list holding `token` below `within`, if any.
fn enclosing_list<'t>(syntax: &dyn Syntax, token: Node<'t>, within: Node<'t>) -> Option<usize> {
    let mut current = token.parent();
    while let Some(node) = current {
        if node.id() == within.id() {
            return None;
        }
        if syntax.is_statement_list(node) {
            return Some(node.id());
        }
        current = node.parent();
    }
    None
}

fn definition_cut(
    syntax: &dyn Syntax,
    text: &str,
    definition: Node<'_>,
    span: &Range<usize>,
) -> RefactorError {
    let line = line_of(definition);
    let what = syntax.describe(definition, text);
    let hint = match syntax.body_lines(definition) {
        Some((from, to)) if from <= to => w::select_inside_the_body(Some((from, to))),
        Some(_) => w::select_inside_the_body(None),
        None => w::SELECT_INSIDE_A_FUNCTION_BODY.to_string(),
    };
    let part = if span.start > definition.start_byte() {
        "the end"
    } else {
        "the header"
    };
    invalid(
        line,
        w::includes_part_of_a_definition(line, part, &what, end_line_of(definition), &hint),
    )
}

/// Attributes are siblings of the statement they apply to: never split the two.
fn check_attributes(
    syntax: &dyn Syntax,
    text: &str,
    first: Node<'_>,
    last: Node<'_>,
) -> Result<(), RefactorError> {
    if syntax.is_attribute(last) {
        let line = line_of(last);
        return Err(invalid(
            line,
            w::attribute_of_the_next_statement(line, node_text(last, text).trim()),
        ));
    }
    let mut previous = first.prev_named_sibling();
    while let Some(node) = previous {
        if syntax.is_attribute(node) {
            let line = line_of(node);
            return Err(invalid(
                line,
                w::attribute_of_the_first_statement(
                    line,
                    node_text(node, text).trim(),
                    line_of(first),
                ),
            ));
        }
        if !syntax.is_comment(node) {
            break;
        }
        previous = node.prev_named_sibling();
    }
    Ok(())
}

fn first_error_line(node: Node<'_>) -> Option<usize> {
    let mut line = None;
    walk_node(node, |n| {
        if line.is_some() {
            return false;
        }
        if n.is_error() || n.is_missing() {
            line = Some(line_of(n));
            return false;
        }
        n.has_error()
    });
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap_text(
        lang: Language,
        text: &str,
        start: usize,
        end: usize,
    ) -> Result<(String, String), RefactorError> {
        let tree = lang.parse(text);
        let lines = LineIndex::new(text);
        let selection = snap(lang, &tree, text, &lines, start, end)?;
        Ok((
            selection.line_label(),
            text[selection.moved.clone()].to_string(),
        ))
    }

    fn refused_at(result: Result<(String, String), RefactorError>) -> (usize, String) {
        match result {
            Err(RefactorError::InvalidRange { line, message }) => (line, message),
            other => panic!("expected invalid_range, got {other:?}"),
        }
    }

    const RUST: &str = "\
fn main() {
    let a = 1;

    // note
    if a > 0 {
        println!(\"{a}\");
        call(a,
             2);
    } else {
        other();
    }
    a
}
";

    #[test]
    fn blank_and_comment_edges_are_kept_blank_lines_trimmed() {
        let (label, moved) = snap_text(Language::Rust, RUST, 2, 4).unwrap();
        assert_eq!(label, "2-4");
        assert_eq!(moved, "    let a = 1;\n\n    // note\n");
        let (label, _) = snap_text(Language::Rust, RUST, 3, 11).unwrap();
        assert_eq!(label, "4-11");
    }

    #[test]
    fn nested_block_statements_snap_to_that_block() {
        let tree = Language::Rust.parse(RUST);
        let lines = LineIndex::new(RUST);
        let selection = snap(Language::Rust, &tree, RUST, &lines, 6, 8).unwrap();
        assert_eq!(selection.statements.len(), 2);
        assert_eq!(selection.indent, "        ");
        assert_eq!(selection.block.start_position().row, 4);
        assert!(selection.tail.is_none());
    }

    #[test]
    fn half_a_statement_is_refused_with_its_line() {
        let (line, message) = refused_at(snap_text(Language::Rust, RUST, 6, 7));
        assert_eq!(line, 8);
        assert!(
            message.contains("ends in the middle of the statement at lines 7-8"),
            "{message}"
        );
        let (line, message) = refused_at(snap_text(Language::Rust, RUST, 8, 8));
        assert_eq!(line, 7, "{message}");
        assert!(
            message.contains("starts in the middle of the statement at lines 7-8"),
            "{message}"
        );
    }

    #[test]
    fn two_blocks_are_refused() {
        let (line, message) = refused_at(snap_text(Language::Rust, RUST, 6, 10));
        assert_eq!(line, 5);
        assert!(message.contains("span two blocks"), "{message}");
        let (line, message) = refused_at(snap_text(Language::Rust, RUST, 10, 12));
        assert_eq!(line, 5);
        assert!(message.contains("spans two blocks"), "{message}");
    }

    #[test]
    fn headers_items_and_comment_only_ranges_are_refused() {
        let (line, message) = refused_at(snap_text(Language::Rust, RUST, 1, 3));
        assert_eq!(line, 1);
        assert!(message.contains("header of function `main`"), "{message}");
        let (line, _) = refused_at(snap_text(Language::Rust, RUST, 4, 4));
        assert_eq!(line, 4);
        let (line, _) = refused_at(snap_text(Language::Rust, RUST, 3, 3));
        assert_eq!(line, 3);
        let items = "struct A;\n\nfn f() {}\n";
        let (_, message) = refused_at(snap_text(Language::Rust, items, 1, 3));
        assert!(message.contains("not inside a function body"), "{message}");
        let (line, _) = refused_at(snap_text(Language::Rust, RUST, 14, 14));
        assert_eq!(line, 14);
    }

    #[test]
    fn the_tail_expression_is_recognised() {
        let tree = Language::Rust.parse(RUST);
        let lines = LineIndex::new(RUST);
        let selection = snap(Language::Rust, &tree, RUST, &lines, 11, 12);
        assert!(selection.is_err(), "line 11 closes the if");
        let selection = snap(Language::Rust, &tree, RUST, &lines, 12, 12).unwrap();
        assert!(selection.tail.is_some());
    }

    #[test]
    fn rust_attributes_stay_with_their_statement() {
        let text = "fn f() {\n    #[allow(unused)]\n    let x = 1;\n    g();\n}\n";
        let (line, _) = refused_at(snap_text(Language::Rust, text, 3, 4));
        assert_eq!(line, 2);
        let (line, _) = refused_at(snap_text(Language::Rust, text, 2, 2));
        assert_eq!(line, 2);
        assert!(snap_text(Language::Rust, text, 2, 4).is_ok());
    }

    #[test]
    fn python_blocks_and_class_bodies() {
        let text = "class A:\n    x = 1\n\n    def f(self):\n        # lead\n        y = 2\n        for i in y:\n            print(i)\n        return y\n";
        let (label, moved) = snap_text(Language::Python, text, 5, 6).unwrap();
        assert_eq!(label, "5-6");
        assert_eq!(moved, "        # lead\n        y = 2\n");
        let (line, message) = refused_at(snap_text(Language::Python, text, 8, 9));
        assert_eq!(line, 7);
        assert!(message.contains("`for` loop"), "{message}");
        let (line, message) = refused_at(snap_text(Language::Python, text, 4, 5));
        assert_eq!(line, 4);
        assert!(message.contains("header of function `f`"), "{message}");
        // A class body is a statement list for the snapping; the target refuses it later.
        assert!(snap_text(Language::Python, text, 2, 2).is_ok());
    }

    #[test]
    fn python_case_clauses_are_not_statements() {
        let text = "def f(x):\n    match x:\n        case None:\n            return\n        case _:\n            pass\n";
        let (line, _) = refused_at(snap_text(Language::Python, text, 3, 4));
        assert_eq!(line, 2);
        let (label, _) = snap_text(Language::Python, text, 4, 4).unwrap();
        assert_eq!(label, "4-4");
    }

    #[test]
    fn a_triple_quoted_string_cut_in_half_is_refused() {
        let text = "def f():\n    s = \"\"\"a\n    b\"\"\"\n    t = 1\n";
        let (line, _) = refused_at(snap_text(Language::Python, text, 3, 4));
        assert_eq!(line, 2);
    }

    #[test]
    fn out_of_file_lines_are_refused() {
        let (line, _) = refused_at(snap_text(Language::Python, "x = 1\n", 2, 3));
        assert_eq!(line, 2);
        let (line, _) = refused_at(snap_text(Language::Python, "x = 1\n", 1, 3));
        assert_eq!(line, 3);
        let (line, _) = refused_at(snap_text(Language::Python, "x = 1\n\n\n", 2, 3));
        assert_eq!(line, 2);
    }
}
