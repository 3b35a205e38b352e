//! Change signature: gives a function a whole new parameter list and rewrites its call sites by
//! name (each argument follows its parameter; a removed parameter's argument is dropped; a new
//! one gets nothing when it has a default, the value given for its callers in Rust, or a
//! placeholder that parses and cannot go unnoticed). Pure: reads the project through
//! [`Sources`], returns a [`Plan`]. Syntactic only: no types, no scopes — every call touched and
//! every mention left alone is a finding.

mod arguments;
mod by_name;
mod call_sites;
mod function;
mod kept;
mod layout;
pub mod params;
mod python;
mod rust;
mod trait_impls;
mod typed;
mod wording;

pub use typed::{TypedList, check_new_parameters, function_query, read_typed_list};

// Introduce parameter finds its function and writes its new list the way change signature does.
pub(crate) use function::{ChangedFunction, locate as locate_function};
pub(crate) use layout::render as render_list;

use std::collections::BTreeMap;
use wording as w;

use self::call_sites::Callee;
use self::layout::one_line;
use self::params::{Param, ParamList, Signature};
use super::sites::{SiteKind, SiteTags};
use super::{
    ChangeSignatureDetails, ChangeSignatureRequest, Details, Finding, Plan, RefactorError,
    SourceError, Sources, map_in_parallel,
};
use crate::edit::{ChangeSetBuilder, SourceFile, TextEdit};
use crate::honesty::Tool;
use crate::lang::Language;
use crate::lang::params::{Item, Layout};
use crate::lang::symbols::resolve;

/// A requested list checked against the language's rules, with notes for the user.
#[derive(Debug, Default)]
struct Resolved {
    pub params: Vec<Param>,
    /// Info findings about the request (a receiver given and ignored).
    pub notes: Vec<String>,
}

fn invalid(message: String) -> RefactorError {
    RefactorError::InvalidArgument {
        param: "new_parameters",
        message,
    }
}

pub fn plan(
    sources: &dyn Sources,
    request: &ChangeSignatureRequest,
    lang: Language,
) -> Result<Plan, RefactorError> {
    let path = request.file.as_str();
    let file = sources.file(path)?.ok_or_else(|| SourceError::Missing {
        path: path.to_string(),
    })?;
    let text = &*file.text;
    let store = sources.parsed();
    let tree = store.tree(lang, &file);
    let symbols = store.outline(lang, &file, &tree);
    let symbol = resolve(&symbols, &request.function, "function", |s| {
        s.kind.is_function()
    })?;
    let target = function::locate(lang, &tree, text, symbol, &symbols)?;
    let old = lang
        .syntax()
        .parameter_list(target.parameters, text, target.python_receiver())
        .map_err(|unreadable| {
            RefactorError::Unsupported(w::unreadable_parameter(
                &target.name_path,
                &unreadable.kind,
                unreadable.line,
            ))
        })?;
    let resolved = match lang {
        Language::Rust => rust::new_list(&old, &request.new_parameters, &target.name_path)?,
        Language::Python => python::new_list(&old, &request.new_parameters, &target.name_path)?,
    };

    let old_texts = old.entry_texts();
    let new_texts: Vec<&str> = old
        .receiver
        .iter()
        .chain(&resolved.params)
        .map(|p| p.item.text.as_str())
        .collect();
    let mut plan = Plan::default();
    let mut details = ChangeSignatureDetails {
        old_params: one_line(&old_texts),
        new_params: one_line(&new_texts),
        call_sites_updated: 0,
    };
    for note in &resolved.notes {
        plan.findings
            .push(Finding::info(path, target.line, note.clone()));
    }
    if old_texts == new_texts {
        plan.details = Details::ChangeSignature(details);
        plan.findings.push(Finding::info(
            path,
            target.line,
            w::nothing_to_change(&target.name_path, &one_line(&old_texts)),
        ));
        return Ok(plan);
    }

    // The definition.
    let (list_text, dropped) = new_list_text(text, &old, &resolved.params);
    for decoration in dropped {
        plan.findings.push(Finding::info(
            path,
            target.line,
            w::decoration_dropped(&call_sites::quote(&decoration), &target.name_path),
        ));
    }
    let mut builder = ChangeSetBuilder::new();
    builder.edit(path, TextEdit::new(old.range.clone(), list_text));
    plan.findings
        .extend(body_uses(lang, &target, text, path, &old, &resolved.params));
    plan.findings.extend(unknown_types(
        lang,
        text,
        path,
        target.line,
        &resolved.params,
    ));
    if target.is_test && !resolved.params.is_empty() {
        plan.findings.push(Finding::error(
            path,
            target.line,
            w::test_function_takes_no_arguments(&target.name_path),
        ));
    }

    // The call sites.
    let new_list = one_line(&new_texts);
    let engine = engine_calls(sources, path, symbol, lang, &mut plan.findings);
    let callee = Callee {
        lang,
        name: &target.name,
        owner: target.owner.as_ref(),
        has_receiver: old.receiver.is_some(),
        old: Signature::of(&old.params),
        new: Signature::continuing(lang, &old.params, &resolved.params),
        new_list: new_list.clone(),
        definition: (path, symbol.name_range.clone(), old.range.clone()),
        definition_outline: &symbols,
        engine: engine.as_ref(),
    };
    let (files, outcomes) = search_and_rewrite(sources, &callee, &file, &tree, &mut plan.findings)?;
    // A trait's method changes with the trait's whole family, or not at all.
    let mut family: BTreeMap<String, SourceFile> = BTreeMap::new();
    let mut family_at: Vec<(String, usize)> = Vec::new();
    if lang == Language::Rust
        && let Some(siblings) =
            trait_impls::siblings(sources, &target, (path, target.line), &old, request, &files)?
    {
        for (sibling_file, edit) in siblings.edits {
            builder.edit(&sibling_file.path, edit);
            family.insert(sibling_file.path.clone(), sibling_file);
        }
        family_at = siblings.at;
        plan.findings.extend(siblings.findings);
        if !siblings.changed.is_empty() {
            plan.findings.push(Finding::info(
                path,
                target.line,
                w::family_changed(&target.name_path, &siblings.changed),
            ));
        }
    }
    let mut updated = 0usize;
    let mut done = call_sites::Done::default();
    let mut tags = SiteTags::new();
    for (source, outcome) in files.values().zip(outcomes) {
        for call in outcome.calls {
            tags.tag(&source.path, call, SiteKind::Call);
        }
        updated += outcome.updated;
        done.add(&outcome.done);
        plan.findings.extend(outcome.findings);
        for edit in outcome.edits {
            builder.edit(&source.path, edit);
        }
    }
    // The family's other members changed too: "another definition keeps its signature" is moot.
    plan.findings.retain(|f| {
        f.kind != Some(w::ANOTHER_DEFINITION)
            || !family_at.iter().any(|(p, l)| *p == f.file && *l == f.line)
    });
    plan.changes = builder.build(|p| files.get(p).or_else(|| family.get(p)))?;
    plan.sites = tags.finish(Tool::ChangeSignature, |p| {
        files.get(p).or_else(|| family.get(p)).map(|f| &*f.text)
    });
    plan.caveat_notes.extend(w::arguments_note(&done));
    details.call_sites_updated = updated;
    plan.details = Details::ChangeSignature(details);
    Ok(plan)
}

/// The calls of the function as the references engine judges them; `None` (and an info finding)
/// when it cannot resolve the function.
fn engine_calls(
    sources: &dyn Sources,
    path: &str,
    symbol: &crate::lang::symbols::Symbol,
    lang: Language,
    findings: &mut Vec<Finding>,
) -> Option<crate::refactor::references::Verdicts> {
    crate::refactor::references::Verdicts::of_function(
        sources,
        path,
        &symbol.name_path,
        symbol.line,
        lang,
    )
    .inspect(|verdicts| findings.extend(verdicts.server_findings.iter().cloned()))
    .map_err(|error| {
        findings.push(Finding::info(
            path,
            symbol.line,
            w::engine_unavailable(&error.to_string()),
        ))
    })
    .ok()
}

/// The new parameter list in the layout of the old one, and the comments and attributes of the
/// old one that it could not keep.
fn new_list_text(text: &str, old: &ParamList, new: &[Param]) -> (String, Vec<String>) {
    let eol = crate::text::line_ending(text);
    let items: Vec<Item> = old
        .receiver
        .iter()
        .chain(new)
        .map(|p| p.item.clone())
        .collect();
    let layout = if new.is_empty() {
        Layout::default()
    } else {
        old.layout.clone()
    };
    let footer = if new.is_empty() {
        &[][..]
    } else {
        &old.footer[..]
    };
    let (list_text, mut dropped) = layout::render(&layout, &items, footer, eol);
    dropped.extend(dropped_decorations(old, new));
    if new.is_empty() {
        dropped.extend(old.footer.iter().map(|d| d.text.clone()));
    }
    (list_text, dropped)
}

/// The project's files that mention the function (and the definition's file as it was read),
/// each rewritten by one of the store's workers; a warning for each file that could not be
/// searched.
fn search_and_rewrite(
    sources: &dyn Sources,
    callee: &Callee<'_>,
    file: &SourceFile,
    tree: &tree_sitter::Tree,
    findings: &mut Vec<Finding>,
) -> Result<(BTreeMap<String, SourceFile>, Vec<call_sites::FileOutcome>), RefactorError> {
    let lang = callee.lang;
    let store = sources.parsed();
    let mut files: BTreeMap<String, SourceFile> = BTreeMap::new();
    let words = call_sites::search_words(callee);
    for word in &words {
        let mentioning = sources.files_mentioning(lang, word)?;
        for (skipped, why) in mentioning.skipped {
            findings.push(Finding::warning(
                &skipped,
                1,
                w::file_not_searched(&skipped, callee.name, &why),
            ));
        }
        for mentioning_file in mentioning.files {
            files
                .entry(mentioning_file.path.clone())
                .or_insert(mentioning_file);
        }
    }
    // The definition's file as it was read above, whatever the search returned for it.
    files.insert(file.path.clone(), file.clone());
    // The other files only need the statements around the words.
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let sources_list: Vec<&SourceFile> = files.values().collect();
    let cancel = sources.cancel();
    cancel.check()?;
    let digest = kept::callee_digest(callee);
    let outcomes = map_in_parallel(store, &sources_list, &|source| {
        if cancel.is_cancelled() {
            call_sites::FileOutcome::default()
        } else if source.path == file.path {
            call_sites::rewrite_file(callee, store, source, tree, &cancel)
        } else if words
            .iter()
            .all(|word| store.word_offsets(source, word).is_empty())
        {
            // The search matches inside longer words too (`dedented`): with no whole word there
            // is nothing to rewrite or report, and no tree to parse.
            call_sites::FileOutcome::default()
        } else {
            kept::rewrite_file(callee, &digest, store, source, &words, &cancel)
        }
    });
    cancel.check()?;
    Ok((files, outcomes))
}

/// Comments and attributes of old parameters that the new list does not continue.
fn dropped_decorations(old: &ParamList, new: &[Param]) -> Vec<String> {
    old.params
        .iter()
        .enumerate()
        .filter(|(i, _)| !new.iter().any(|p| p.old == Some(*i)))
        .flat_map(|(_, p)| {
            let item = &p.item;
            item.leading
                .iter()
                .map(|d| d.text.clone())
                .chain((!item.prefix.trim().is_empty()).then(|| item.prefix.trim().to_string()))
                .chain(item.trailing.iter().map(|d| d.text.clone()))
                .collect::<Vec<_>>()
        })
        .collect()
}

/// A warning for each old parameter name the body still uses but the new list no longer binds.
fn body_uses(
    lang: Language,
    target: &function::ChangedFunction<'_>,
    text: &str,
    path: &str,
    old: &ParamList,
    new: &[Param],
) -> Vec<Finding> {
    let Some(body) = target.body else {
        return Vec::new();
    };
    let mut findings = Vec::new();
    for gone in old.params.iter().filter(|p| p.binds()) {
        if new.iter().any(|p| p.binds() && p.name == gone.name)
            || lang.validate_identifier(&gone.name).is_err()
        {
            continue;
        }
        let lines = lang.syntax().variable_lines(body, text, &gone.name);
        if let Some(first) = lines.first() {
            let more = w::uses_in_all(lines.len());
            findings.push(Finding::warning(
                path,
                *first,
                w::removed_parameter_still_used(&gone.name, &target.name_path, *first, &more),
            ));
        }
    }
    findings
}

/// Names that can appear in a type without an import.
const RUST_PRELUDE_TYPES: &[&str] = &[
    "Self",
    "Option",
    "Result",
    "String",
    "Vec",
    "Box",
    "Fn",
    "FnMut",
    "FnOnce",
    "Iterator",
    "IntoIterator",
    "Clone",
    "Copy",
    "Send",
    "Sync",
    "Sized",
    "Default",
    "PartialEq",
    "Eq",
    "PartialOrd",
    "Ord",
    "AsRef",
    "AsMut",
    "Into",
    "From",
    "ToString",
    "ToOwned",
    "Drop",
    "Extend",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "Unpin",
];
const PYTHON_BUILTIN_TYPES: &[&str] = &[
    "int",
    "str",
    "float",
    "bool",
    "bytes",
    "list",
    "dict",
    "set",
    "tuple",
    "object",
    "None",
    "type",
    "complex",
    "frozenset",
    "bytearray",
    "memoryview",
    "range",
    "slice",
    "Ellipsis",
    "BaseException",
    "Exception",
];

/// A warning for each name in the type of a new parameter that the definition's file neither
/// declares nor imports (it mentions it nowhere): the new list would not compile or resolve.
/// Paths (`std::path::Path`, `os.PathLike`) are taken as written.
fn unknown_types(
    lang: Language,
    text: &str,
    path: &str,
    line: usize,
    new: &[Param],
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for param in new.iter().filter(|p| p.old.is_none()) {
        let Some(ty) = &param.ty else {
            continue;
        };
        let mut reported: Vec<&str> = Vec::new();
        for (at, word) in identifier_words(ty) {
            let qualified = ty[..at].ends_with("::") || ty[..at].ends_with('.');
            let known = match lang {
                Language::Rust => {
                    !word.starts_with(char::is_uppercase) || RUST_PRELUDE_TYPES.contains(&word)
                }
                Language::Python => PYTHON_BUILTIN_TYPES.contains(&word),
            };
            if qualified || known || reported.contains(&word) {
                continue;
            }
            if crate::lang::calls::word_matches(text, word).is_empty() {
                reported.push(word);
                findings.push(Finding::warning(
                    path,
                    line,
                    w::type_not_in_scope(word, &param.name, path, lang),
                ));
            }
        }
    }
    findings
}

/// The identifier-like words of `text` with their offsets.
fn identifier_words(text: &str) -> Vec<(usize, &str)> {
    let mut words = Vec::new();
    let mut start = None;
    for (i, c) in text
        .char_indices()
        .chain(std::iter::once((text.len(), ' ')))
    {
        let part = c == '_' || c.is_alphanumeric();
        match (start, part) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                if !text[s..i].starts_with(|c: char| c.is_ascii_digit()) {
                    words.push((s, &text[s..i]));
                }
                start = None;
            }
            _ => {}
        }
    }
    words
}

#[cfg(test)]
mod tests;
