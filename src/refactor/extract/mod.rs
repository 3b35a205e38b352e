//! Extract function: moves whole statements of one block into a new function and leaves a call in
//! their place. The selection is snapped on the syntax tree (`selection`), the new function goes
//! after the enclosing one with the same receiver (`target`), the text keeps the file's
//! conventions (`render`), and a syntactic name scan says where the result needs the caller's
//! attention (`names`, `diagnose`). The data flow (`flow`) makes the locals the selection reads
//! parameters and the names later code reads return values; `signature` shapes the new
//! function and its call from it. Pure.

mod destination;
mod diagnose;
mod early_return;
mod elsewhere;
mod flow;
mod jumps;
mod lifetimes;
mod notes;
mod render;
mod selection;
mod signature;
mod wording;

use crate::edit::FileChange;
use crate::lang::Language;
use crate::text::{LineIndex, TextStyle};
use wording as w;
pub use wording::JUMP_OUTSIDE;

use super::{
    Details, ExtractDetails, ExtractRequest, Finding, Plan, RefactorError, SourceError, Sources,
};

pub fn plan(
    sources: &dyn Sources,
    request: &ExtractRequest,
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
    let selection = selection::snap(
        lang,
        &tree,
        text,
        &lines,
        request.start_line,
        request.end_line,
    )?;
    let target = destination::locate(lang, &tree, text, &selection)?;
    let names = crate::lang::names::Names::collect(lang, target.region, text);
    destination::check_name(lang, &tree, text, &target, &names, name)?;

    let elsewhere = elsewhere::ElsewhereReturns {
        sources,
        file: &request.file,
        names_here: match lang {
            Language::Rust => crate::lang::rust::imports::top_level_bindings(&tree, text)
                .into_iter()
                .map(|b| b.name)
                .collect(),
            Language::Python => Default::default(),
        },
        found: Default::default(),
    };
    let find_elsewhere = |asked: crate::lang::rust::types::Elsewhere<'_>| elsewhere.answer(asked);
    let nothing_handled = diagnose::Handled::default();
    let context = diagnose::Context {
        lang,
        text,
        file: &request.file,
        selection: &selection,
        target: &target,
        names: &names,
        new_name: name,
        handled: &nothing_handled,
        elsewhere: (lang == Language::Rust).then_some(&find_elsewhere as _),
    };
    let mut data_flow = flow::analyse(&context);
    let shape = signature::shape(&context, &data_flow);
    if !matches!(shape.exit, signature::Exit::Names) {
        // The call hands nothing back: the names read after the selection stay findings.
        data_flow.maybe_unassigned.clear();
        for returned in std::mem::take(&mut data_flow.returns) {
            if !data_flow.parameters.iter().any(|p| p.name == returned.name) {
                data_flow.handled.remove(&returned.name);
            }
        }
    }
    let handled = diagnose::Handled {
        names: data_flow.handled.clone(),
        question_marks: shape.question_marks_work,
        final_return: shape.returns_reach_the_caller(),
        tail: shape.exit == signature::Exit::Tail,
        generics: shape.declared_generics.clone(),
        yields: shape.yield_from,
        jumps: matches!(shape.exit, signature::Exit::Jumps(_)),
    };
    let diagnosis = diagnose::diagnose(&diagnose::Context {
        handled: &handled,
        ..context
    });
    let diagnose::Diagnosis {
        mut findings,
        awaits_at,
        python_syntax,
    } = diagnosis;
    findings.extend(flow_findings(
        lang,
        &request.file,
        &data_flow,
        &shape,
        &target,
        selection.first_line + 1,
        name,
    ));

    let rendered = render::render(
        &render::Spec {
            lang,
            text,
            lines: &lines,
            style: TextStyle::detect(text),
            name,
            is_async: awaits_at.is_some(),
            flow: &data_flow,
            shape: &shape,
        },
        &selection,
        &target,
    );
    let change = FileChange::modify(&file, rendered.edits)?;
    let new_function_line = LineIndex::new(&change.after).line_of(rendered.function_offset) + 1;

    // Python refuses these at compile time: report them as syntax errors of the result, on
    // their line in the result, so it is not written unless the user insists.
    let after_lines = LineIndex::new(&change.after);
    for (offset, what) in &python_syntax {
        let after_line = line_in_result(
            &lines,
            &after_lines,
            &change.edits,
            &selection,
            *offset,
            new_function_line,
            &target,
        );
        findings.push(
            Finding::error(
                &request.file,
                after_line,
                super::findings::result_has_a_syntax_error(after_line, what),
            )
            .with_kind(super::findings::SYNTAX_ERROR_KIND),
        );
    }

    let details = Details::Extract(ExtractDetails {
        new_function_name: name.to_string(),
        extracted_lines: selection.line_label(),
        receiver: target.receiver.clone(),
        call: rendered.call,
        new_function_line,
        is_async: awaits_at.is_some(),
        parameters: shape.parameters.clone(),
        returns: data_flow.returns.iter().map(|r| r.name.clone()).collect(),
    });
    Ok(Plan {
        changes: vec![change],
        caveat_notes: notes::caveat_notes(lang, &data_flow, &shape, &findings),
        findings,
        details,
        ..Plan::default()
    })
}

/// What the data flow could not settle, as findings: a Python name returned but assigned on
/// some paths only, a Rust type that could not be read, a returned borrow whose lifetime Rust
/// cannot elide.
#[allow(clippy::too_many_arguments)]
fn flow_findings(
    lang: Language,
    file: &str,
    data_flow: &flow::DataFlow,
    shape: &signature::Shape,
    target: &destination::Destination<'_>,
    first_line: usize,
    name: &str,
) -> Vec<Finding> {
    let mut out = Vec::new();
    for (variable, line) in &data_flow.maybe_unassigned {
        out.push(Finding::warning(
            file,
            *line,
            w::assigned_on_some_paths(variable, *line, name),
        ));
    }
    if lang == Language::Rust
        && let Some(returned) = &shape.return_type
        && crate::lang::rust::types::has_elided_lifetime(returned)
    {
        let borrowed_inputs = shape
            .parameters
            .iter()
            .filter(|p| p.contains('&') || p.contains("'_"))
            .count()
            + usize::from(
                target
                    .receiver
                    .as_deref()
                    .is_some_and(|r| r.starts_with('&')),
            );
        // The one borrowed input is a local the call borrows (`&len`): the result is tied to
        // that borrow, which is wrong when the value came from elsewhere (a raw pointer).
        let borrowed_at_call: Vec<&str> = data_flow
            .parameters
            .iter()
            .filter(|p| p.pass != flow::Pass::Value)
            .map(|p| p.name.as_str())
            .collect();
        if borrowed_inputs != 1 {
            out.push(Finding::warning(
                file,
                first_line,
                w::elided_lifetime(name, returned, borrowed_inputs),
            ));
        } else if let [argument] = borrowed_at_call.as_slice() {
            out.push(Finding::warning(
                file,
                first_line,
                w::borrow_tied_to_argument(name, returned, argument),
            ));
        }
    }
    for (variable, line) in &data_flow.once_borrowed {
        out.push(Finding::error(
            file,
            *line,
            w::once_closure_borrowed(variable, *line, name),
        ));
    }
    if shape.raw_lifetime
        && let Some(returned) = &shape.return_type
    {
        out.push(Finding::info(
            file,
            first_line,
            w::raw_pointer_lifetime(name, returned),
        ));
    }
    for (variable, line) in &data_flow.ref_returns {
        out.push(Finding::error(
            file,
            *line,
            w::ref_binding_returned(variable, *line, name),
        ));
    }
    if lang == Language::Rust {
        for (variable, line) in data_flow.untyped() {
            out.push(Finding::error(
                file,
                line,
                w::type_unreadable(variable, line, name),
            ));
        }
    }
    out
}

/// The 1-based line of the result where the code at byte `offset` of the original ends up.
fn line_in_result(
    lines: &LineIndex,
    after_lines: &LineIndex,
    edits: &[crate::edit::TextEdit],
    selection: &selection::Selection<'_>,
    offset: usize,
    new_function_line: usize,
    target: &destination::Destination<'_>,
) -> usize {
    if selection.contains(offset) {
        // Moved lines keep their order below the header of the new function.
        let header_lines = 1 + usize::from(target.decorator.is_some());
        return new_function_line + header_lines + (lines.line_of(offset) - selection.first_line);
    }
    let shift: isize = edits
        .iter()
        .filter(|e| e.range.end <= offset)
        .map(|e| e.new_text.len() as isize - e.range.len() as isize)
        .sum();
    after_lines.line_of((offset as isize + shift).max(0) as usize) + 1
}

#[cfg(test)]
mod early_return_tests;
#[cfg(test)]
mod lifetimes_tests;
#[cfg(test)]
mod once_closure_tests;
#[cfg(test)]
mod test_run;
#[cfg(test)]
mod tests;
