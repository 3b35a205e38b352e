//! Change signature: gives a function a whole new parameter list and rewrites its call sites
//! positionally (argument i stays at position i; surplus arguments are dropped, missing ones get
//! a placeholder that parses and cannot go unnoticed). Pure: reads the project through
//! [`Sources`], returns a [`Plan`]. Syntactic only: no types, no scopes — every call touched and
//! every mention left alone is a finding.

mod call_sites;
mod layout;
mod params;
mod python;
mod rust;
mod target;
mod typed;

pub use typed::{TypedList, check_new_parameters, function_query, read_typed_list};

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde_json::Value;

use self::call_sites::Callee;
use self::layout::{Item, Layout, one_line};
use self::params::{OldList, Param, Signature};
use super::{ChangeSignatureRequest, Finding, Plan, RefactorError, SourceError, Sources};
use crate::edit::{ChangeSetBuilder, SourceFile, TextEdit};
use crate::lang::symbols::resolve;
use crate::lang::{Language, walk_node};

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
) -> Result<Plan, RefactorError> {
    let path = request.file.as_str();
    let lang = Language::from_path(path)
        .ok_or_else(|| RefactorError::UnsupportedLanguage(path.to_string()))?;
    let file = sources.file(path)?.ok_or_else(|| SourceError::Missing {
        path: path.to_string(),
    })?;
    let text = file.text.as_str();
    let tree = sources.parse(lang, &file);
    let symbols = sources.outline(lang, &file, &tree);
    let symbol = resolve(&symbols, &request.function, "function", |s| {
        s.kind.is_function()
    })?;
    let target = target::locate(lang, &tree, text, symbol, &symbols)?;
    let old = match lang {
        Language::Rust => rust::old_list(target.parameters, text, &target.name_path)?,
        Language::Python => python::old_list(
            target.parameters,
            text,
            &target.name_path,
            target.python_receiver(),
        )?,
    };
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
    plan.details
        .insert("old_params".into(), Value::from(one_line(&old_texts)));
    plan.details
        .insert("new_params".into(), Value::from(one_line(&new_texts)));
    for note in &resolved.notes {
        plan.findings
            .push(Finding::info(path, target.line, note.clone()));
    }
    if old_texts == new_texts {
        plan.details
            .insert("call_sites_updated".into(), Value::from(0));
        plan.findings.push(Finding::info(
            path,
            target.line,
            format!(
                "the new parameter list of `{}` is the same as the old one {}; nothing to change",
                target.name_path,
                one_line(&old_texts)
            ),
        ));
        return Ok(plan);
    }

    // The definition.
    let eol = crate::text::line_ending(text);
    let items: Vec<Item> = old
        .receiver
        .iter()
        .chain(&resolved.params)
        .map(|p| p.item.clone())
        .collect();
    let layout = if resolved.params.is_empty() {
        Layout::default()
    } else {
        old.layout.clone()
    };
    let footer = if resolved.params.is_empty() {
        &[][..]
    } else {
        &old.footer[..]
    };
    let (list_text, mut dropped) = layout::render(&layout, &items, footer, eol);
    dropped.extend(dropped_decorations(&old, &resolved.params));
    if resolved.params.is_empty() {
        dropped.extend(old.footer.iter().map(|d| d.text.clone()));
    }
    for decoration in dropped {
        plan.findings.push(Finding::info(
            path,
            target.line,
            format!(
                "`{}` in the parameter list of `{}` was dropped with the parameter it belonged to",
                call_sites::quote(&decoration),
                target.name_path
            ),
        ));
    }
    let mut builder = ChangeSetBuilder::new();
    builder.edit(path, TextEdit::new(old.range.clone(), list_text));
    plan.findings
        .extend(body_uses(lang, &target, text, path, &old, &resolved.params));
    plan.findings.extend(trait_findings(&target, path));

    // The call sites.
    let new_list = one_line(&new_texts);
    let callee = Callee {
        lang,
        name: &target.name,
        owner: target.owner.as_ref(),
        has_receiver: old.receiver.is_some(),
        old: Signature::of(&old.params),
        new: Signature::of(&resolved.params),
        new_list: new_list.clone(),
        definition: (path, symbol.name_range.clone(), old.range.clone()),
        definition_outline: &symbols,
    };
    let mut files: BTreeMap<String, SourceFile> = BTreeMap::new();
    let words = call_sites::search_words(&callee);
    for word in &words {
        let mentioning = sources.files_mentioning(lang, word)?;
        for (skipped, why) in mentioning.skipped {
            plan.findings.push(Finding::warning(
                &skipped,
                1,
                format!(
                    "{skipped} was not searched for calls of `{}`: {why}",
                    target.name
                ),
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
    // Every file on its own core; the other files only need the statements around the words.
    let words: Vec<&str> = words.iter().map(String::as_str).collect();
    let outcomes: Vec<call_sites::FileOutcome> = files
        .values()
        .collect::<Vec<_>>()
        .par_iter()
        .map(|source| {
            if source.path == file.path {
                call_sites::rewrite_file(&callee, source, &tree)
            } else {
                let tree = sources.parse_around_words(lang, source, &words);
                call_sites::rewrite_file(&callee, source, &tree)
            }
        })
        .collect();
    let mut updated = 0usize;
    for (source, outcome) in files.values().zip(outcomes) {
        updated += outcome.updated;
        plan.findings.extend(outcome.findings);
        for edit in outcome.edits {
            builder.edit(&source.path, edit);
        }
    }
    plan.changes = builder.build(|p| files.get(p))?;
    plan.details
        .insert("call_sites_updated".into(), Value::from(updated));
    Ok(plan)
}

/// Comments and attributes of old parameters that the new list does not continue.
fn dropped_decorations(old: &OldList, new: &[Param]) -> Vec<String> {
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
    target: &target::Target<'_>,
    text: &str,
    path: &str,
    old: &OldList,
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
        let mut lines = Vec::new();
        walk_node(body, |node| {
            if node.kind() == "identifier"
                && crate::lang::node_text(node, text) == gone.name
                && !is_name_slot(node)
            {
                lines.push(node.start_position().row + 1);
            }
            true
        });
        if let Some(first) = lines.first() {
            let more = if lines.len() > 1 {
                format!(", {} uses in all", lines.len())
            } else {
                String::new()
            };
            findings.push(Finding::warning(
                path,
                *first,
                format!(
                    "`{}` is no longer a parameter of `{}`, but its body still uses it (line {first}{more}); rename or replace those uses",
                    gone.name, target.name_path
                ),
            ));
        }
    }
    findings
}

/// An identifier that names something other than a variable: `x.name`, `f(name=...)`.
fn is_name_slot(node: tree_sitter::Node<'_>) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    match parent.kind() {
        "attribute" => parent.child_by_field_name("attribute") == Some(node),
        "keyword_argument" => parent.child_by_field_name("name") == Some(node),
        _ => false,
    }
}

fn trait_findings(target: &target::Target<'_>, path: &str) -> Vec<Finding> {
    let Some(owner) = &target.owner else {
        return Vec::new();
    };
    let Some(trait_name) = &owner.trait_name else {
        return Vec::new();
    };
    let message = if owner.in_trait {
        format!(
            "`{}` is declared in the trait `{trait_name}`: its implementations keep the old signature and must be changed too",
            target.name
        )
    } else {
        format!(
            "`{}` implements the trait `{trait_name}`: the trait's declaration and its other implementations keep the old signature",
            target.name_path
        )
    };
    vec![Finding::warning(path, target.line, message)]
}

#[cfg(test)]
mod tests;
