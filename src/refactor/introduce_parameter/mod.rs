//! `refactor_introduce_parameter` on the heuristic path: the selected expression of a function
//! becomes the function's new last parameter (Python: before `*args`, keyword-only parameters
//! and `**kwargs`; Rust: typed from what the text shows), every identical occurrence of it in
//! the function that reads the same bindings is replaced by the parameter, and every certain
//! call (the references engine, as change signature finds them) passes the expression with the
//! function's parameters replaced by the call's arguments and a method's receiver by the
//! call's. An expression that reads the function's locals is refused, naming them.

mod calls;
mod wording;

use std::ops::Range;

use tree_sitter::Node;

use super::change_signature::{ChangedFunction, locate_function, render_list};
use super::sites::{SiteKind, SiteTags};
use super::{
    Details, Finding, IntroduceParameterDetails, IntroduceParameterRequest, Plan, RefactorError,
    SourceError, Sources,
};
use crate::edit::{ChangeSetBuilder, TextEdit};
use crate::honesty::{Caveat, CaveatNote, Tool};
use crate::lang::Language;
use crate::lang::expressions::{self, TypeSource};
use crate::lang::names::{Names, Role};
use crate::lang::params::{Item, ParamKind, ParamList};
use crate::lang::syntax::Enclosing;
use crate::text::LineIndex;
use wording as w;

/// What the expression reads, sorted by what each read becomes at a call.
#[derive(Debug, Default)]
struct Reads {
    /// Reads of the function's parameters: (range, parameter name).
    params: Vec<(Range<usize>, String)>,
    /// Uses of the method's receiver (`self`).
    receiver: Vec<Range<usize>>,
    /// Module-level names of the function's file it reads.
    globals: Vec<String>,
}

/// The function, the expression and what the new parameter is, for the call rewriting.
struct Introduced<'a> {
    lang: Language,
    path: &'a str,
    /// The function's whole definition (its recursive calls are inside).
    function_range: Range<usize>,
    function_name: &'a str,
    name_path: &'a str,
    owner_type: Option<&'a str>,
    params: &'a ParamList,
    new_name: &'a str,
    expression: &'a str,
    expression_start: usize,
    reads: &'a Reads,
    /// Where the function's text is replaced (the list, the occurrences): calls inside them
    /// are left.
    replaced: Vec<Range<usize>>,
}

pub fn plan(
    sources: &dyn Sources,
    request: &IntroduceParameterRequest,
    lang: Language,
) -> Result<Plan, RefactorError> {
    let new_name = request.new_name.as_str();
    lang.validate_identifier(new_name)
        .map_err(|message| RefactorError::InvalidArgument {
            param: "new_name",
            message,
        })?;
    let path = request.file.as_str();
    let file = sources.file(path)?.ok_or_else(|| SourceError::Missing {
        path: path.to_string(),
    })?;
    let text = &*file.text;
    let store = sources.parsed();
    let tree = store.tree(lang, &file);
    let range = selection(request, text)?;
    let expr = expressions::expression_at(lang, &tree, text, range.clone()).map_err(|why| {
        RefactorError::InvalidRange {
            line: request.start_line,
            message: w::not_an_expression(&why, &text[range.clone()]),
        }
    })?;
    let expression = crate::lang::node_text(expr, text).to_string();
    let Enclosing::Function(function_node) = lang.syntax().enclosing(expr) else {
        return Err(RefactorError::Unsupported(w::not_in_function(&expression)));
    };
    let symbols = store.outline(lang, &file, &tree);
    let symbol = symbols
        .iter()
        .filter(|s| s.kind.is_function() && s.range.start <= expr.start_byte())
        .filter(|s| expr.end_byte() <= s.range.end)
        .min_by_key(|s| s.range.len())
        .ok_or_else(|| RefactorError::Unsupported(w::not_in_function(&expression)))?;
    let function = locate_function(lang, &tree, text, symbol, &symbols)?;
    if lang.syntax().function_named(&tree, &symbol.name_range) != Some(function_node) {
        return Err(RefactorError::Unsupported(w::in_closure(
            &expression,
            &symbol.name_path,
        )));
    }
    // A test runner calls it with no arguments (Rust `#[test]`; Python `test*` functions and
    // methods, which unittest and pytest collect by name).
    let python_test = lang == Language::Python && symbol.name.starts_with("test");
    if function.is_test || python_test {
        return Err(RefactorError::Unsupported(w::test_function(
            &symbol.name_path,
        )));
    }
    if let Some(trait_name) = function.owner.as_ref().and_then(|o| o.trait_name.as_ref()) {
        return Err(RefactorError::Unsupported(w::trait_signature(
            &symbol.name_path,
            trait_name,
        )));
    }
    let old = lang
        .syntax()
        .parameter_list(function.parameters, text, function.python_receiver())
        .map_err(|unreadable| {
            RefactorError::Unsupported(format!(
                "the parameter list of `{}` has a {} at line {} that candor cannot read",
                symbol.name_path, unreadable.kind, unreadable.line
            ))
        })?;
    let names = Names::collect(lang, function_node, text);
    if names.bindings_of(new_name).next().is_some() || old.params.iter().any(|p| p.name == new_name)
    {
        return Err(RefactorError::InvalidArgument {
            param: "new_name",
            message: w::name_taken(new_name, &symbol.name_path),
        });
    }
    let receiver = old.receiver.as_ref().map(|r| r.name.as_str());
    let mut reads = reads_of(lang, expr, text, &names, receiver, &symbol.name_path)?;
    // Only the file's own module-level names can be out of scope in a caller (builtins and
    // prelude names are everywhere).
    let bound = lang.syntax().top_level_bindings(&tree, text);
    reads.globals.retain(|g| bound.iter().any(|b| b.name == *g));

    let mut plan = Plan::default();
    let mut builder = ChangeSetBuilder::new();
    // The definition: the new list and the occurrences.
    let (list_text, parameter_text, type_note, type_warning) =
        new_list(lang, &tree, expr, text, &old, new_name, &function, &reads)?;
    builder.edit(path, TextEdit::new(old.range.clone(), list_text));
    let body = function.body.unwrap_or(function_node);
    let (replaced, occurrence_findings) =
        occurrences(lang, body, text, path, expr, &names, &expression, new_name);
    for range in &replaced {
        builder.edit(path, TextEdit::new(range.clone(), new_name.to_string()));
    }
    plan.findings.extend(occurrence_findings);
    plan.findings.push(Finding::info(
        path,
        symbol.line,
        w::introduced(&expression, new_name, &symbol.name_path, replaced.len()),
    ));
    plan.findings
        .extend(type_warning.map(|m| Finding::warning(path, request.start_line, m)));
    let calls_something = expressions::calls_something(lang, expr);
    if calls_something {
        plan.findings.push(Finding::warning(
            path,
            request.start_line,
            w::runs_at_call(&expression, &symbol.name_path),
        ));
    }
    // The calls.
    let mut replaced_all = replaced.clone();
    replaced_all.push(old.range.clone());
    let introduced = Introduced {
        lang,
        path,
        function_range: function_node.byte_range(),
        function_name: &symbol.name,
        name_path: &symbol.name_path,
        owner_type: function.owner.as_ref().map(|o| o.type_name.as_str()),
        params: &old,
        new_name,
        expression: &expression,
        expression_start: expr.start_byte(),
        reads: &reads,
        replaced: replaced_all,
    };
    let mut outcome = calls::rewrite(sources, &introduced, symbol.line)?;
    let tags = write_calls(&mut builder, std::mem::take(&mut outcome.edits));
    plan.findings.extend(outcome.findings.iter().cloned());
    if outcome.updated == 0 {
        plan.findings.push(Finding::warning(
            path,
            symbol.line,
            w::no_call_found(&symbol.name_path, new_name),
        ));
    }
    plan.changes = builder.build(|p| outcome.files.get(p).or((p == path).then_some(&file)))?;
    plan.sites = tags.finish_in(Tool::IntroduceParameter, &plan.changes);
    plan.caveat_notes = caveat_notes(type_note, calls_something, &expression, &outcome);
    plan.details = Details::IntroduceParameter(IntroduceParameterDetails {
        function_name: symbol.name_path.clone(),
        new_parameter: parameter_text,
        expression,
        occurrences_replaced: replaced.len(),
        call_sites_updated: outcome.updated,
    });
    Ok(plan)
}

/// Writes each call's edit; each call is a site.
fn write_calls(builder: &mut ChangeSetBuilder, edits: Vec<(String, TextEdit)>) -> SiteTags {
    let mut tags = SiteTags::new();
    for (path, edit) in edits {
        tags.tag(&path, vec![edit.clone()], SiteKind::Call);
        builder.edit(&path, edit);
    }
    tags
}

/// What the analysis did about each caveat in this result.
fn caveat_notes(
    type_note: Option<CaveatNote>,
    calls_something: bool,
    expression: &str,
    outcome: &calls::Outcome,
) -> Vec<CaveatNote> {
    let mut notes: Vec<CaveatNote> = type_note.into_iter().collect();
    if !calls_something {
        notes.push(CaveatNote::new(
            Caveat::IntroduceParameterEffects,
            w::effects_note(expression),
        ));
    }
    notes.push(CaveatNote::new(
        Caveat::IntroduceParameterOtherCallers,
        w::callers_note(outcome.updated, &outcome.source),
    ));
    notes
}

/// The byte range the request's lines and columns give.
fn selection(
    request: &IntroduceParameterRequest,
    text: &str,
) -> Result<Range<usize>, RefactorError> {
    let index = LineIndex::new(text);
    let at = |which: &str, line: usize, column: usize| {
        index
            .offset_of_line_column(text, line, column)
            .ok_or_else(|| RefactorError::InvalidRange {
                line,
                message: w::no_position(which, line, column, &request.file),
            })
    };
    let start = at("start", request.start_line, request.start_column)?;
    let end = at("end", request.end_line, request.end_column)?;
    if end <= start {
        return Err(RefactorError::InvalidRange {
            line: request.end_line,
            message: w::no_position("end", request.end_line, request.end_column, &request.file),
        });
    }
    Ok(start..end)
}

/// What the expression reads; an error naming the function's locals it reads.
fn reads_of(
    lang: Language,
    expr: Node<'_>,
    text: &str,
    names: &Names,
    receiver: Option<&str>,
    function: &str,
) -> Result<Reads, RefactorError> {
    let range = expr.byte_range();
    let mut reads = Reads::default();
    if let Some(receiver) = receiver {
        reads.receiver = expressions::receiver_uses(lang, expr, text, receiver);
    }
    let mut locals: Vec<String> = Vec::new();
    for read in names
        .all
        .iter()
        .filter(|o| o.role == Role::Read && range.contains(&o.pos))
    {
        if reads.receiver.iter().any(|r| r.start == read.pos) {
            continue;
        }
        let span = read.pos..read.pos + read.name.len();
        match names.resolve(&read.name, read.pos) {
            Some(binding) if binding.parameter => reads.params.push((span, read.name.clone())),
            Some(_) => {
                if !locals.contains(&read.name) {
                    locals.push(read.name.clone());
                }
            }
            None => {
                if !reads.globals.contains(&read.name) {
                    reads.globals.push(read.name.clone());
                }
            }
        }
    }
    if !locals.is_empty() {
        return Err(RefactorError::Unsupported(w::reads_locals(
            crate::lang::node_text(expr, text),
            &locals,
            function,
        )));
    }
    Ok(reads)
}

/// The new parameter list, in the old one's layout, the new parameter as written, and the
/// note on where a Rust type came from, and a warning when that type is only an unsuffixed
/// number's default (a guess).
#[allow(clippy::too_many_arguments)]
fn new_list(
    lang: Language,
    tree: &tree_sitter::Tree,
    expr: Node<'_>,
    text: &str,
    old: &ParamList,
    new_name: &str,
    function: &ChangedFunction<'_>,
    reads: &Reads,
) -> Result<(String, String, Option<CaveatNote>, Option<String>), RefactorError> {
    let expression = crate::lang::node_text(expr, text);
    let (item, note, guessed) = match lang {
        Language::Rust => {
            let param_type = |name: &str| {
                old.params
                    .iter()
                    .find(|p| p.name == name)
                    .and_then(|p| p.ty.clone())
            };
            let (ty, source) = expressions::rust_written_type(tree, expr, text, &param_type)
                .ok_or_else(|| RefactorError::Unsupported(w::unknown_type(expression)))?;
            let guessed = (source == TypeSource::Literal
                && expressions::rust_number_without_suffix(expr, text))
            .then(|| w::default_number_type(expression, &ty));
            let source = match &source {
                TypeSource::Literal => w::literal_source(expression),
                TypeSource::Cast => w::cast_source().to_string(),
                TypeSource::Item(item) => w::item_source(item),
                TypeSource::Parameter(p) => w::parameter_source(p),
            };
            let note = CaveatNote::new(Caveat::IntroduceParameterTypes, w::type_note(&ty, &source));
            (format!("{new_name}: {ty}"), Some(note), guessed)
        }
        Language::Python => (new_name.to_string(), None, None),
    };
    // Python: before `*args`, `*`, keyword-only parameters and `**kwargs`.
    let index = old
        .params
        .iter()
        .position(|p| {
            matches!(
                p.kind,
                ParamKind::VarPositional | ParamKind::KeywordMarker | ParamKind::VarKeyword
            )
        })
        .unwrap_or(old.params.len());
    // After parameters with defaults (Python), the new one needs one: the expression itself,
    // when it reads nothing the function binds (a default is evaluated once, at definition).
    let mut item = item;
    if old.params[..index].iter().any(|p| p.has_default()) {
        if !reads.params.is_empty() || !reads.receiver.is_empty() {
            return Err(RefactorError::Unsupported(w::after_defaults(
                &function.name_path,
                new_name,
            )));
        }
        item = format!("{item}={expression}");
    }
    let mut items: Vec<Item> = old.receiver.iter().map(|p| p.item.clone()).collect();
    items.extend(old.params[..index].iter().map(|p| p.item.clone()));
    items.push(Item::plain(item.clone()));
    items.extend(old.params[index..].iter().map(|p| p.item.clone()));
    let eol = crate::text::line_ending(text);
    Ok((
        render_list(&old.layout, &items, &old.footer, eol).0,
        item,
        note,
        guessed,
    ))
}

/// The identical occurrences of the expression in the body that read the same bindings (the
/// selection included), and a finding for each one left or assigned.
#[allow(clippy::too_many_arguments)]
fn occurrences(
    lang: Language,
    body: Node<'_>,
    text: &str,
    path: &str,
    expr: Node<'_>,
    names: &Names,
    expression: &str,
    new_name: &str,
) -> (Vec<Range<usize>>, Vec<Finding>) {
    let bindings_in = |range: &Range<usize>| -> Vec<(String, Option<usize>)> {
        names
            .all
            .iter()
            .filter(|o| o.role == Role::Read && range.contains(&o.pos))
            .map(|o| (o.name.clone(), names.resolve(&o.name, o.pos).map(|b| b.pos)))
            .collect()
    };
    let own = bindings_in(&expr.byte_range());
    let line_of = |at: usize| text[..at].matches('\n').count() + 1;
    let mut replaced = Vec::new();
    let mut findings = Vec::new();
    for range in expressions::identical_expressions(body, text, expr) {
        if !expressions::is_read_at(lang, body, &range) {
            findings.push(Finding::warning(
                path,
                line_of(range.start),
                w::assigned_in_function(expression, line_of(range.start), new_name),
            ));
        } else if range == expr.byte_range() || bindings_in(&range) == own {
            replaced.push(range);
        } else {
            findings.push(Finding::info(
                path,
                line_of(range.start),
                w::occurrence_left(expression, line_of(range.start)),
            ));
        }
    }
    (replaced, findings)
}

#[cfg(test)]
mod tests;
