//! Extract variable: one selected expression becomes a local bound just before the statement
//! that holds it, at that statement's indentation; with `replace_all`, identical occurrences of
//! the same block whose value cannot have changed are replaced too (up to the first write of a
//! name the expression reads, or the first loop or branch). Refuses a selection that is not one
//! expression, an expression whose evaluation would move across a short-circuit, a branch, a
//! loop condition, a comprehension, a closure or a default, and a name already used in the
//! scope. Pure.

mod wording;

use std::collections::BTreeSet;

use tree_sitter::Node;

use super::sites::{SiteKind, SiteTags};
use super::{
    Details, ExtractVariableDetails, ExtractVariableRequest, Finding, Plan, RefactorError,
    SourceError, Sources,
};
use crate::edit::{FileChange, TextEdit};
use crate::honesty::{Caveat, CaveatNote, Tool};
use crate::lang::vars::{self, Scope};
use crate::lang::{Language, node_text};
use crate::text::LineIndex;
use wording as w;

pub fn plan(
    sources: &dyn Sources,
    request: &ExtractVariableRequest,
    lang: Language,
) -> Result<Plan, RefactorError> {
    let file = sources
        .file(&request.file)?
        .ok_or_else(|| SourceError::Missing {
            path: request.file.clone(),
        })?;
    let name = request.new_name.as_str();
    lang.validate_identifier(name)
        .map_err(|message| RefactorError::InvalidArgument {
            param: "new_name",
            message: w::pick_another_name(&message),
        })?;
    let text = &*file.text;
    let tree = sources.parsed().tree(lang, &file);
    let lines = LineIndex::new(text);
    let range = selected_range(text, &lines, request)?;
    let expr = vars::expression_at(lang, tree.root_node(), text, range.clone()).map_err(|e| {
        RefactorError::InvalidRange {
            line: request.start_line,
            message: w::not_expression(e, &text[range.clone()]),
        }
    })?;
    let (statement, block) = vars::statement_of(lang, expr)
        .ok_or_else(|| RefactorError::Unsupported(w::not_in_function()))?;
    let scope = vars::scope_of(lang, statement);
    if matches!(scope, Scope::Class(_))
        || (lang == Language::Rust && matches!(scope, Scope::Module(_)))
    {
        return Err(RefactorError::Unsupported(w::not_in_function()));
    }
    if vars::has_attributes(lang, statement) {
        return Err(RefactorError::Unsupported(w::attributed_statement()));
    }
    if let Some(hazard) = vars::hazard(lang, expr, statement) {
        return Err(RefactorError::Unsupported(w::hazard(hazard)));
    }
    if let Some(at) = vars::name_used(lang, scope.node(), text, name) {
        return Err(RefactorError::Unsupported(w::name_taken(
            name,
            lines.line_of(at) + 1,
        )));
    }
    let line_start = lines.line_start(lines.line_of(statement.start_byte()));
    let starts_line = text[line_start..statement.start_byte()].trim().is_empty();
    if !starts_line && lang == Language::Python {
        return Err(RefactorError::Unsupported(w::shares_line()));
    }

    let effects = vars::has_effects(lang, expr, text);
    let mut findings = Vec::new();
    let mut replaced = vec![expr];
    let mut left = 0;
    if request.replace_all {
        let others = Others {
            lang,
            text,
            lines: &lines,
            file: &request.file,
            effects,
        };
        let (more, left_findings) = others.find(expr, statement, block);
        replaced.extend(more);
        left = left_findings.len();
        findings.extend(left_findings);
    }
    replaced.sort_by_key(|n| n.start_byte());

    let (must_mut, may_mut) = replaced
        .iter()
        .map(|n| vars::needs_mut(lang, *n, text))
        .fold((false, false), |(a, b), (c, d)| (a || c, b || d));
    let line = lines.line_of(statement.start_byte()) + 1;
    let expr_text = node_text(expr, text);
    if may_mut && !must_mut {
        findings.push(Finding::warning(&request.file, line, w::maybe_mut(name)));
    }
    if vars::is_place(lang, expr) {
        findings.push(Finding::warning(
            &request.file,
            line,
            w::place_moved(expr_text, name),
        ));
    }
    if vars::borrows_temporary(lang, expr, text) {
        findings.push(Finding::error(
            &request.file,
            line,
            w::temporary_dropped(name),
        ));
    }

    let binding = vars::binding_text(lang, name, expr_text, must_mut);
    let indent = crate::text::indentation_at(text, statement.start_byte());
    let inserted = if starts_line {
        format!("{binding}{}{indent}", crate::text::line_ending(text))
    } else {
        format!("{binding} ")
    };
    let mut edits = vec![TextEdit::insert(statement.start_byte(), inserted)];
    edits.extend(
        replaced
            .iter()
            .map(|n| TextEdit::new(n.byte_range(), name.to_string())),
    );
    let change = FileChange::modify(&file, edits)?;
    // Each occurrence beyond the selected one is a site.
    let mut tags = SiteTags::new();
    for node in replaced
        .iter()
        .filter(|n| n.byte_range() != expr.byte_range())
    {
        let edit = TextEdit::new(node.byte_range(), name.to_string());
        tags.tag(&request.file, vec![edit], SiteKind::Occurrence);
    }
    let sites = tags.finish(Tool::ExtractVariable, |_| Some(&*file.text));

    let mut caveat_notes = Vec::new();
    if request.replace_all {
        caveat_notes.push(CaveatNote::new(
            Caveat::ExtractVariableOccurrences,
            w::note_occurrences(replaced.len() - 1, left),
        ));
    }
    if !effects {
        caveat_notes.push(CaveatNote::new(
            Caveat::ExtractVariableEffects,
            w::note_effects(),
        ));
    }
    Ok(Plan {
        changes: vec![change],
        findings,
        details: Details::ExtractVariable(ExtractVariableDetails {
            variable_name: name.to_string(),
            expression: crate::text::collapse_whitespace(expr_text),
            binding_line: line,
            occurrences_replaced: replaced.len(),
            occurrences_left: left,
        }),
        caveat_notes,
        sites,
        ..Plan::default()
    })
}

/// The byte range of the request's selection, checked.
fn selected_range(
    text: &str,
    lines: &LineIndex,
    request: &ExtractVariableRequest,
) -> Result<std::ops::Range<usize>, RefactorError> {
    let at = |what: &str, line: usize, column: usize| {
        lines
            .offset_of_line_column(text, line, column)
            .ok_or_else(|| RefactorError::InvalidRange {
                line,
                message: w::position_outside(what, line, column),
            })
    };
    let start = at("start", request.start_line, request.start_column)?;
    let end = at("end", request.end_line, request.end_column)?;
    if end <= start {
        return Err(RefactorError::InvalidRange {
            line: request.end_line,
            message: w::end_before_start(),
        });
    }
    Ok(start..end)
}

/// The search for identical occurrences.
struct Others<'a> {
    lang: Language,
    text: &'a str,
    lines: &'a LineIndex,
    file: &'a str,
    effects: bool,
}

/// Where replacing stops: the offset, and the finding for an occurrence past it.
enum Stop {
    Write { name: String, line: usize },
    Boundary { line: usize },
}

impl Others<'_> {
    /// The occurrences to replace besides `expr`, and a finding per occurrence left.
    fn find<'t>(
        &self,
        expr: Node<'t>,
        statement: Node<'t>,
        block: Node<'t>,
    ) -> (Vec<Node<'t>>, Vec<Finding>) {
        let lang = self.lang;
        let reads: BTreeSet<String> = vars::reads(lang, expr, self.text);
        let mut stop: Option<(usize, Stop)> = None;
        let mut cursor = block.walk();
        for s in block.named_children(&mut cursor) {
            if s.end_byte() <= statement.start_byte() {
                continue;
            }
            let line = self.lines.line_of(s.start_byte()) + 1;
            if s.id() != statement.id() && vars::is_compound(lang, s) {
                stop = Some((s.start_byte(), Stop::Boundary { line }));
                break;
            }
            if let Some((name, at)) = vars::first_write(lang, s, self.text, &reads, s.byte_range())
            {
                // In the holding statement, a target written before the expression is
                // assigned after it is evaluated.
                let from = match s.id() == statement.id() {
                    true if at > expr.end_byte() => at,
                    true => s.end_byte(),
                    false => s.start_byte(),
                };
                stop = Some((from, Stop::Write { name, line }));
                break;
            }
        }
        let candidates = vars::same_expressions(
            block,
            self.text,
            expr,
            statement.start_byte()..block.end_byte(),
        );
        let mut replaced = Vec::new();
        let mut findings = Vec::new();
        for c in candidates.into_iter().filter(|c| c.id() != expr.id()) {
            let line = self.lines.line_of(c.start_byte()) + 1;
            let left = if self.effects {
                Some((w::left_effects(line), w::LEFT_EFFECTS))
            } else if let Some((_, why)) = stop.as_ref().filter(|(from, _)| c.start_byte() >= *from)
            {
                Some(match why {
                    Stop::Write { name, line: at } => {
                        (w::left_after_write(line, name, *at), w::LEFT_AFTER_WRITE)
                    }
                    Stop::Boundary { line: at } => {
                        (w::left_after_boundary(line, *at), w::LEFT_AFTER_BOUNDARY)
                    }
                })
            } else {
                let hazard =
                    vars::statement_of(lang, c).and_then(|(s, _)| vars::hazard(lang, c, s));
                hazard.map(|_| (w::left_hazard(line), w::LEFT_HAZARD))
            };
            match left {
                Some((message, kind)) => {
                    findings.push(Finding::info(self.file, line, message).with_kind(kind))
                }
                None => replaced.push(c),
            }
        }
        (replaced, findings)
    }
}

#[cfg(test)]
mod tests;
