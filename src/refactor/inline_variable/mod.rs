//! Inline variable: a local bound once (`let name = value;` / `name = value`) is replaced at
//! every read by its initializer, parenthesised where the read's context binds tighter, and its
//! binding statement is removed. Refuses a name that is not a simple local (a parameter, a
//! global, a pattern binding), one reassigned or (Rust `mut`) mutated, an unused one, an
//! initializer with effects read other than once right after it, and a name the initializer
//! reads that may change before a read. Pure.

mod wording;

use tree_sitter::Node;

use super::{
    Details, Finding, InlineVariableDetails, InlineVariableRequest, Plan, RefactorError,
    SourceError, Sources,
};
use crate::edit::{FileChange, TextEdit};
use crate::honesty::{Caveat, CaveatNote};
use crate::lang::vars::{self, Binding, Occurrence, Scope};
use crate::lang::{Language, node_text};
use crate::text::LineIndex;
use wording as w;

pub fn plan(
    sources: &dyn Sources,
    request: &InlineVariableRequest,
    lang: Language,
) -> Result<Plan, RefactorError> {
    let file = sources
        .file(&request.file)?
        .ok_or_else(|| SourceError::Missing {
            path: request.file.clone(),
        })?;
    let text = &*file.text;
    let tree = sources.parsed().tree(lang, &file);
    let lines = LineIndex::new(text);
    let (line, column) = (request.line, request.column);
    let offset = lines
        .offset_of_line_column(text, line, column)
        .ok_or_else(|| RefactorError::InvalidRange {
            line,
            message: w::position_outside(line, column),
        })?;
    let ident = vars::name_at(lang, tree.root_node(), offset).ok_or_else(|| {
        RefactorError::InvalidRange {
            line,
            message: w::no_name(line, column),
        }
    })?;
    let name = node_text(ident, text);
    let Scope::Function(scope) = vars::scope_of(lang, ident) else {
        return Err(RefactorError::Unsupported(w::not_local(name)));
    };
    let line_of = |n: Node<'_>| lines.line_of(n.start_byte()) + 1;
    if let Some(at) = vars::format_argument(lang, scope, text, name) {
        return Err(RefactorError::Unsupported(w::format_argument(
            name,
            lines.line_of(at) + 1,
        )));
    }
    let found = Found::classify(lang, scope, text, name, &line_of)?;
    let binding = found.binding;
    let value = binding.value;
    let (_, block) = vars::statement_of(lang, binding.statement)
        .ok_or_else(|| RefactorError::Unsupported(w::not_local(name)))?;
    for read in &found.reads {
        if read.start_byte() < binding.statement.end_byte() {
            return Err(RefactorError::Unsupported(w::read_before(
                name,
                line_of(*read),
            )));
        }
        if read.end_byte() > block.end_byte() {
            return Err(RefactorError::Unsupported(w::read_outside(
                name,
                line_of(*read),
            )));
        }
    }
    let effects = vars::has_effects(lang, value, text) || vars::builds_object(lang, value);
    if effects {
        check_once(lang, name, &binding, block, &found.reads, text, &line_of)?;
    }
    let mut names = vars::reads(lang, value, text);
    names.remove(name);
    for read in &found.reads {
        let end = vars::repeats_between(lang, *read, block).map_or(read.end_byte(), |around| {
            around.end_byte().max(read.end_byte())
        });
        let span = binding.statement.end_byte()..end;
        if let Some((changed, at)) = vars::first_write(lang, scope, text, &names, span) {
            return Err(RefactorError::Unsupported(w::rebound(
                &changed,
                lines.line_of(at) + 1,
                name,
            )));
        }
    }

    let value_text = node_text(value, text);
    let mut edits: Vec<TextEdit> = found
        .reads
        .iter()
        .map(|read| {
            let pasted = if vars::is_shorthand_field(lang, *read) {
                format!("{name}: {value_text}")
            } else if vars::needs_parens(lang, value, *read, text) {
                format!("({value_text})")
            } else {
                value_text.to_string()
            };
            TextEdit::new(read.byte_range(), pasted)
        })
        .collect();
    edits.push(TextEdit::delete(removal(text, &lines, binding.statement)));
    let change = FileChange::modify(&file, edits)?;

    let binding_line = line_of(binding.statement);
    let mut findings = Vec::new();
    if !vars::is_lone_name(value) {
        for read in &found.reads {
            if let Some(macro_name) = vars::foreign_macro_of(lang, *read, text) {
                findings.push(
                    Finding::warning(
                        &request.file,
                        line_of(*read),
                        w::into_macro(name, macro_name, value_text),
                    )
                    .with_kind("inline_variable.into_macro"),
                );
            }
        }
    }
    if let Some(ty) = binding.written_type {
        findings.push(Finding::warning(
            &request.file,
            binding_line,
            w::type_dropped(name, node_text(ty, text)),
        ));
    }
    let note = if effects {
        w::note_effects_once()
    } else {
        w::note_effects(found.reads.len())
    };
    Ok(Plan {
        changes: vec![change],
        findings,
        details: Details::InlineVariable(InlineVariableDetails {
            variable_name: name.to_string(),
            initializer: crate::text::collapse_whitespace(value_text),
            binding_line,
            reads_replaced: found.reads.len(),
        }),
        caveat_notes: vec![CaveatNote::new(Caveat::InlineVariableEffects, note)],
        ..Plan::default()
    })
}

/// The local's one binding and its reads.
struct Found<'t> {
    binding: Binding<'t>,
    reads: Vec<Node<'t>>,
}

impl<'t> Found<'t> {
    fn classify(
        lang: Language,
        scope: Node<'t>,
        text: &str,
        name: &str,
        line_of: &dyn Fn(Node<'_>) -> usize,
    ) -> Result<Found<'t>, RefactorError> {
        let occurrences = vars::occurrences(lang, scope, text, name);
        let refuse = |message: String| Err(RefactorError::Unsupported(message));
        let first = |kind: Occurrence| {
            occurrences
                .iter()
                .find(|(_, o)| *o == kind)
                .map(|(n, _)| line_of(*n))
        };
        if first(Occurrence::Parameter).is_some() {
            return refuse(w::parameter(name));
        }
        if let Some(line) = first(Occurrence::Global) {
            return refuse(w::global(name, line));
        }
        if let Some(line) = first(Occurrence::Pattern) {
            return refuse(w::pattern(name, line));
        }
        if let Some(line) = first(Occurrence::Definition) {
            return refuse(w::definition(name, line));
        }
        let bindings: Vec<Node<'t>> = occurrences
            .iter()
            .filter(|(_, o)| *o == Occurrence::Binding)
            .map(|(n, _)| *n)
            .collect();
        let Some(&binding_name) = bindings.first() else {
            return refuse(w::no_binding(name));
        };
        if let Some(second) = bindings.get(1) {
            return refuse(w::bound_twice(name, line_of(*second)));
        }
        let Some(binding) = vars::binding_of(lang, binding_name) else {
            return refuse(w::no_binding(name));
        };
        if let Some(line) = first(Occurrence::Write) {
            return refuse(w::reassigned(name, line));
        }
        if binding.mutable
            && let Some(line) = first(Occurrence::Mutation)
        {
            return refuse(w::mutated(name, line));
        }
        let reads: Vec<Node<'t>> = occurrences
            .iter()
            .filter(|(_, o)| matches!(o, Occurrence::Read | Occurrence::Mutation))
            .map(|(n, _)| *n)
            .collect();
        if reads.is_empty() {
            return refuse(w::unused(name, line_of(binding_name)));
        }
        Ok(Found { binding, reads })
    }
}

/// An initializer with effects moves only to one read, in a later statement of the same
/// block, with nothing that has effects in between.
fn check_once(
    lang: Language,
    name: &str,
    binding: &Binding<'_>,
    block: Node<'_>,
    reads: &[Node<'_>],
    text: &str,
    line_of: &dyn Fn(Node<'_>) -> usize,
) -> Result<(), RefactorError> {
    let [read] = reads else {
        return Err(RefactorError::Unsupported(w::effects_reads(
            name,
            reads.len(),
        )));
    };
    let elsewhere = || RefactorError::Unsupported(w::effects_elsewhere(name, line_of(*read)));
    let (statement, read_block) = vars::statement_of(lang, *read).ok_or_else(elsewhere)?;
    if read_block.id() != block.id() || vars::repeats_between(lang, *read, block).is_some() {
        return Err(elsewhere());
    }
    if vars::is_compound(lang, statement) {
        return Err(elsewhere());
    }
    let mut cursor = block.walk();
    for between in block.named_children(&mut cursor) {
        if between.start_byte() >= binding.statement.end_byte()
            && between.end_byte() <= statement.start_byte()
            && vars::has_effects(lang, between, text)
        {
            return Err(RefactorError::Unsupported(w::effects_between(
                name,
                line_of(between),
            )));
        }
    }
    Ok(())
}

/// The bytes to delete for the binding statement: its whole lines when it has them to itself,
/// else the statement and the blanks after it.
fn removal(text: &str, lines: &LineIndex, statement: Node<'_>) -> std::ops::Range<usize> {
    let first = lines.line_of(statement.start_byte());
    let last = lines.line_of(
        statement
            .end_byte()
            .saturating_sub(1)
            .max(statement.start_byte()),
    );
    let line_start = lines.line_start(first);
    let line_end = lines.line_range(text, last).end;
    let before = &text[line_start..statement.start_byte()];
    let after = &text[statement.end_byte()..line_end];
    let after_code = after.trim_start_matches([' ', '\t', ';']);
    if before.trim().is_empty() && after_code.is_empty() {
        return line_start..lines.line_range_with_terminator(last).end;
    }
    let blanks = after.len() - after.trim_start_matches([' ', '\t']).len();
    // Python's `a = 1; b = 3`: the `;` that ended the removed statement goes with it.
    let separator = after[blanks..].strip_prefix(';').map_or(0, |rest| {
        1 + rest.len() - rest.trim_start_matches([' ', '\t']).len()
    });
    statement.start_byte()..statement.end_byte() + blanks + separator
}

#[cfg(test)]
mod tests;
