//! The calls of a function that took a new parameter: each certain call (the references
//! engine, as change signature finds them) passes the expression, its parameter reads replaced
//! by the call's arguments (or the parameters' defaults) and its receiver by the call's; a call
//! that cannot be rewritten, a possible call, a use as a value and an override are findings.

use std::collections::BTreeMap;
use std::ops::Range;

use super::wording as w;
use super::{Introduced, RefactorError, Sources};
use crate::edit::{SourceFile, TextEdit};
use crate::lang::Language;
use crate::lang::calls::{Argument, CallForm, CallSite, find_mentions, word_matches};
use crate::lang::expressions::needs_parentheses;
use crate::lang::params::{Param, ParamKind};
use crate::lang::refs::Role;
use crate::lang::symbols::SymbolQuery;
use crate::refactor::Finding;
use crate::refactor::references::{self, Certainty, ReferencesRequest};

/// What the calls became.
#[derive(Debug, Default)]
pub(super) struct Outcome {
    pub edits: Vec<(String, TextEdit)>,
    pub findings: Vec<Finding>,
    pub updated: usize,
    /// The files the edits apply to, as they were read.
    pub files: BTreeMap<String, SourceFile>,
    /// Where the calls came from (`data`'s wording of the references engine).
    pub source: String,
}

pub(super) fn rewrite(
    sources: &dyn Sources,
    f: &Introduced<'_>,
    line: usize,
) -> Result<Outcome, RefactorError> {
    let request = ReferencesRequest {
        file: f.path.to_string(),
        symbol: SymbolQuery {
            name: f.name_path.to_string(),
            line: Some(line),
            column: None,
        },
    };
    let found = references::find(sources, &request, f.lang, sources.oracle())?;
    let mut out = Outcome {
        findings: found.findings.clone(),
        source: found.source.describe(),
        ..Outcome::default()
    };
    let store = sources.parsed();
    let mut calls: BTreeMap<String, Vec<CallSite>> = BTreeMap::new();
    for reference in &found.references {
        let at = |message: String, error: bool| {
            if error {
                Finding::error(&reference.path, reference.line, message)
            } else {
                Finding::warning(&reference.path, reference.line, message)
            }
        };
        let why = match &reference.certainty {
            Certainty::Certain => None,
            Certainty::Possible(why) => Some(why.as_str()),
        };
        match (reference.role, why) {
            (Role::Call, None) => {
                let Some(file) = found.files.get(&reference.path) else {
                    continue;
                };
                let in_file = calls.entry(reference.path.clone()).or_insert_with(|| {
                    let tree = store.tree_in_passing(f.lang, file);
                    find_mentions(f.lang, &tree, &file.text, f.function_name).calls
                });
                let Some(call) = in_file.iter().find(|c| c.name_range == reference.range) else {
                    continue;
                };
                match argument(f, call, &file.text, &reference.path) {
                    Ok((edit, value)) => {
                        out.updated += 1;
                        out.edits.push((reference.path.clone(), edit));
                        out.findings.push(Finding::info(
                            &reference.path,
                            reference.line,
                            w::call_updated(&value),
                        ));
                        out.findings.extend(globals_missing(
                            f,
                            &found,
                            &reference.path,
                            reference.line,
                        ));
                    }
                    Err(message) => out.findings.push(at(message, true)),
                }
            }
            (Role::Call | Role::Use, Some(why)) => out
                .findings
                .push(at(w::possible_call(f.name_path, f.new_name, why), false)),
            (Role::Use, None) => out
                .findings
                .push(at(w::used_as_value(f.name_path, f.new_name), false)),
            (Role::Override, _) => out
                .findings
                .push(at(w::override_left(f.name_path, f.new_name), false)),
            _ => {}
        }
    }
    out.files = found.files;
    Ok(out)
}

/// The edit passing the expression at `call`, and the value it passes; or why it cannot.
fn argument(
    f: &Introduced<'_>,
    call: &CallSite,
    text: &str,
    path: &str,
) -> Result<(TextEdit, String), String> {
    if call.args.iter().any(|a| a.splat) {
        return Err(w::call_splat(f.new_name, f.name_path));
    }
    if path == f.path
        && f.replaced
            .iter()
            .any(|r| r.start < call.range.end && call.range.start < r.end)
    {
        return Err(w::call_overlaps(f.new_name));
    }
    let (receiver, args) = receiver_and_arguments(f, call, text);
    let positional: Vec<&Param> = f
        .params
        .params
        .iter()
        .take_while(|p| {
            !matches!(
                p.kind,
                ParamKind::VarPositional | ParamKind::KeywordMarker | ParamKind::VarKeyword
            )
        })
        .filter(|p| p.kind == ParamKind::Regular)
        .collect();
    let positional_args: Vec<&Argument> = args.iter().filter(|a| a.keyword.is_none()).collect();
    if positional_args.len() > positional.len() {
        return Err(w::call_splat(f.new_name, f.name_path));
    }
    let value_of = |name: &str| -> Option<String> {
        let index = positional.iter().position(|p| p.name == name);
        if let Some(arg) = index.and_then(|i| positional_args.get(i)) {
            return Some(text[arg.value_range.clone()].to_string());
        }
        if let Some(arg) = args.iter().find(|a| a.keyword.as_deref() == Some(name)) {
            return Some(text[arg.value_range.clone()].to_string());
        }
        f.params
            .params
            .iter()
            .find(|p| p.name == name)
            .and_then(|p| p.default.clone())
    };
    let recursive = path == f.path && f.function_range.contains(&call.range.start);
    let reads = f.reads;
    let value = if recursive && reads.params.is_empty() && reads.receiver.is_empty() {
        f.new_name.to_string()
    } else {
        let whole = f.expression_start..f.expression_start + f.expression.len();
        let mut pieces: Vec<(Range<usize>, String)> = Vec::new();
        for (range, name) in &reads.params {
            let value = value_of(name).ok_or_else(|| w::call_missing(name, f.new_name))?;
            pieces.push((range.clone(), parenthesised(value, range, &whole)));
        }
        for range in &reads.receiver {
            let value = receiver
                .clone()
                .ok_or_else(|| w::call_no_receiver(f.new_name))?;
            pieces.push((range.clone(), parenthesised(value, range, &whole)));
        }
        pieces.sort_by_key(|(r, _)| std::cmp::Reverse(r.start));
        let mut value = f.expression.to_string();
        for (range, piece) in pieces {
            let local = range.start - f.expression_start..range.end - f.expression_start;
            value.replace_range(local, &piece);
        }
        value
    };
    // Python: by keyword unless the call fills every parameter before the new one by position
    // (a positional value would otherwise land on a parameter with a default).
    let keyword = f.lang == Language::Python
        && (args.iter().any(|a| a.keyword.is_some()) || positional_args.len() < positional.len());
    let piece = if keyword {
        format!("{}={value}", f.new_name)
    } else {
        value.clone()
    };
    let edit = match call.args.last() {
        Some(last) => TextEdit::insert(last.range.end, format!(", {piece}")),
        None => TextEdit::insert(call.arguments_range.start + 1, piece),
    };
    Ok((edit, value))
}

/// A value pasted in place of a name: in parentheses unless it is the whole expression or
/// simple.
fn parenthesised(value: String, range: &Range<usize>, whole: &Range<usize>) -> String {
    if range != whole && needs_parentheses(&value) {
        format!("({value})")
    } else {
        value
    }
}

/// The call's receiver as written (for a method), and the arguments that fill the other
/// parameters: `obj.m(a)` → (`obj`, `a`); `Type::m(&obj, a)` and `Class.m(obj, a)` → (`&obj`
/// or `obj`, `a`).
fn receiver_and_arguments<'c>(
    f: &Introduced<'_>,
    call: &'c CallSite,
    text: &str,
) -> (Option<String>, &'c [Argument]) {
    let args = call.args.as_slice();
    if f.params.receiver.is_none() {
        return (None, args);
    }
    let first = || {
        args.first()
            .map(|a| text[a.value_range.clone()].to_string())
    };
    let rest = args.get(1..).unwrap_or(&[]);
    match &call.form {
        CallForm::Method { receiver } => {
            let written = &text[receiver.clone()];
            if f.lang == Language::Python && Some(written) == f.owner_type {
                (first(), rest)
            } else {
                (Some(written.to_string()), args)
            }
        }
        CallForm::Path { .. } => (first(), rest),
        CallForm::Plain => (None, args),
    }
}

/// A warning for each module-level name the expression reads that the caller's file
/// (another file than the definition's) never mentions: it is not in scope there.
fn globals_missing(
    f: &Introduced<'_>,
    found: &references::References,
    path: &str,
    line: usize,
) -> Vec<Finding> {
    if path == f.path {
        return Vec::new();
    }
    let Some(file) = found.files.get(path) else {
        return Vec::new();
    };
    f.reads
        .globals
        .iter()
        .filter(|g| word_matches(&file.text, g).is_empty())
        .map(|g| Finding::warning(path, line, w::global_not_in_caller(g, path)))
        .collect()
}
