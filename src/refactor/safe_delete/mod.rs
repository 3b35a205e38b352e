//! `refactor_safe_delete` on the heuristic path: the references engine (the one rename uses)
//! lists the symbol's references; a reference outside the definition's own text (recursion
//! does not count) refuses the delete, naming every one as `path:line`, certain and possible.
//! Otherwise the definition goes with its doc comments, attributes or decorators and the blank
//! lines after it, and so do the imports, re-exports and `__all__` entries that named it. A
//! string that may name it (a `getattr`) is a warning: the engine cannot see dynamic uses.

mod wording;

use std::ops::Range;

use super::references::{self, Certainty, Reference, References};
use super::{Details, Finding, Plan, RefactorError, SafeDeleteDetails, SafeDeleteRequest, Sources};
use crate::edit::{ChangeSetBuilder, TextEdit};
use crate::honesty::{Caveat, CaveatNote};
use crate::lang::Language;
use crate::lang::calls::{ReferenceKind, find_mentions};
use crate::lang::refs::{Role, Target, TargetKind};
use crate::lang::removal::{self, ImportRemoval};
use crate::lang::symbols::{Symbol, SymbolKind};
use crate::text::surgery::{
    ends_its_line, line_content_end, line_start, remove_item_lines, starts_its_line,
};
use wording as w;

pub fn plan(
    sources: &dyn Sources,
    request: &SafeDeleteRequest,
    lang: Language,
) -> Result<Plan, RefactorError> {
    let located = references::locate(sources, &request.file, &request.symbol, lang)?;
    let store = sources.parsed();
    let symbols = store.outline(lang, &located.file, &located.tree);
    let symbol = deletable(&located.target, &symbols)?.clone();
    // Rust: the type's `impl` blocks of the same file go with it.
    let impls: Vec<Symbol> = if lang == Language::Rust && is_type(symbol.kind) {
        symbols
            .iter()
            .filter(|s| s.kind == SymbolKind::Impl && s.name_path == symbol.name_path)
            .cloned()
            .collect()
    } else {
        Vec::new()
    };
    let found = references::find_located(sources, located, sources.oracle())?;
    let target = &found.target;
    let own: Vec<Range<usize>> = std::iter::once(symbol.full_range.clone())
        .chain(impls.iter().map(|s| s.full_range.clone()))
        .collect();
    let inside = |r: &Reference| {
        r.path == target.path
            && own
                .iter()
                .any(|o| o.start <= r.range.start && r.range.end <= o.end)
    };
    let mut sorted = Sorted::default();
    for reference in found.references.iter().filter(|r| !inside(r)) {
        sorted.add(sources, lang, &found, reference);
    }
    if !sorted.blocking.is_empty() {
        return Err(refusal(target, &sorted.blocking));
    }
    let mut plan = Plan::default();
    let mut builder = ChangeSetBuilder::new();
    let def_file = found
        .files
        .get(&target.path)
        .ok_or_else(|| RefactorError::NotFound(target.path.clone()))?;
    let def_tree = store.tree(lang, def_file);
    for edit in definition_removal(lang, &def_tree, &def_file.text, &symbol, &impls) {
        builder.edit(&target.path, edit);
    }
    plan.findings.push(Finding::info(
        &target.path,
        symbol.first_line,
        w::deleted(
            &target.name,
            target.label,
            &target.path,
            symbol.first_line,
            symbol.end_line,
        ),
    ));
    if removal::placement(lang, &def_tree, &symbol.range).alone_in_block {
        plan.findings.push(Finding::info(
            &target.path,
            symbol.first_line,
            w::python_pass(&target.name),
        ));
    }
    for block in &impls {
        plan.findings.push(Finding::info(
            &target.path,
            block.first_line,
            w::impl_removed(&target.name, &target.path, block.first_line, block.end_line),
        ));
    }
    let mut imports_removed = Vec::new();
    for (reference, edit, message) in sorted.removals {
        builder.edit(&reference.path, edit);
        imports_removed.push(format!("{}:{}", reference.path, reference.line));
        plan.findings
            .push(Finding::info(&reference.path, reference.line, message));
    }
    let mut dynamic = 0;
    for reference in &sorted.dynamic {
        let why = match &reference.certainty {
            Certainty::Possible(why) => why.as_str(),
            Certainty::Certain => w::string_names_it(),
        };
        dynamic += 1;
        plan.findings.push(Finding::warning(
            &reference.path,
            reference.line,
            w::dynamic_use(&target.name, why),
        ));
    }
    // Strings the engine does not judge (a `getattr` on any object, a key): each is a warning.
    let reported: Vec<(&str, usize)> = found
        .references
        .iter()
        .map(|r| (r.path.as_str(), r.range.start))
        .collect();
    for (path, line) in strings_naming(sources, lang, target, &own, &reported)? {
        dynamic += 1;
        plan.findings.push(Finding::warning(
            &path,
            line,
            w::dynamic_use(&target.name, w::string_names_it()),
        ));
    }
    plan.findings.extend(found.findings.iter().cloned());
    plan.changes = builder.build(|path| found.files.get(path))?;
    let source = found.source.describe();
    plan.caveat_notes = vec![
        CaveatNote::new(
            Caveat::SafeDeleteResolution,
            w::resolution_note(&source, &target.name),
        ),
        CaveatNote::new(
            Caveat::SafeDeleteDynamic,
            w::dynamic_note(&target.name, dynamic),
        ),
    ];
    plan.details = Details::SafeDelete(SafeDeleteDetails {
        symbol_name: target.name.clone(),
        symbol_kind: target.label.to_string(),
        definition_lines: format!("{}:{}-{}", target.path, symbol.first_line, symbol.end_line),
        imports_removed,
        files_changed: plan.changes.iter().map(|c| c.path.clone()).collect(),
        references_from: source,
    });
    Ok(plan)
}

/// `(path, line)` of each string of the project's source files that holds the name as a whole
/// word, outside the definition and apart from the references already listed.
fn strings_naming(
    sources: &dyn Sources,
    lang: Language,
    target: &Target,
    own: &[Range<usize>],
    reported: &[(&str, usize)],
) -> Result<Vec<(String, usize)>, RefactorError> {
    let mentioning = sources.files_mentioning(lang, &target.name)?;
    let store = sources.parsed();
    let mut out = Vec::new();
    for file in &mentioning.files {
        let tree = store.tree_around_words(lang, file, &[target.name.as_str()]);
        for mention in find_mentions(lang, &tree, &file.text, &target.name).references {
            let inside = file.path == target.path
                && own
                    .iter()
                    .any(|o| o.start <= mention.range.start && mention.range.end <= o.end);
            let listed = reported
                .iter()
                .any(|(p, at)| *p == file.path && *at == mention.range.start);
            if mention.kind == ReferenceKind::InString && !inside && !listed {
                out.push((file.path.clone(), mention.line));
            }
        }
    }
    Ok(out)
}

fn is_type(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Struct | SymbolKind::Enum | SymbolKind::Union
    )
}

/// The outline entry of the target, when it is something safe delete removes.
fn deletable<'s>(target: &Target, symbols: &'s [Symbol]) -> Result<&'s Symbol, RefactorError> {
    let name = &target.name;
    if let TargetKind::Member(member) = &target.kind
        && let Some(trait_name) = &member.trait_name
        && *trait_name != member.owner
    {
        return Err(RefactorError::Unsupported(w::trait_impl_method(
            name,
            trait_name,
            &member.owner,
        )));
    }
    let symbol = match &target.kind {
        TargetKind::Local(_) => None,
        _ => symbols.iter().find(|s| s.name_range == target.name_range),
    };
    let Some(symbol) = symbol else {
        return Err(RefactorError::Unsupported(w::not_deletable(
            name,
            target.label,
        )));
    };
    match symbol.kind {
        SymbolKind::Impl => Err(RefactorError::Unsupported(w::impl_block(name))),
        SymbolKind::Module | SymbolKind::Macro => Err(RefactorError::Unsupported(
            w::module_or_macro(name, target.label),
        )),
        _ => Ok(symbol),
    }
}

/// The references outside the definition, sorted by what they mean for the delete.
#[derive(Default)]
struct Sorted<'a> {
    /// Uses that keep the symbol alive (certain or possible).
    blocking: Vec<(&'a Reference, &'static str)>,
    /// Imports, re-exports and `__all__` entries that go with it: the edit and its finding.
    removals: Vec<(&'a Reference, TextEdit, String)>,
    /// Strings that may name it.
    dynamic: Vec<&'a Reference>,
}

impl<'a> Sorted<'a> {
    fn add(
        &mut self,
        sources: &dyn Sources,
        lang: Language,
        found: &References,
        reference: &'a Reference,
    ) {
        let name = &found.target.name;
        let Some(file) = found.files.get(&reference.path) else {
            self.blocking
                .push((reference, w::role_word(reference.role)));
            return;
        };
        match reference.role {
            Role::Text => self.dynamic.push(reference),
            Role::Import | Role::ReExport if !reference.alias => {
                let tree = sources.parsed().tree_in_passing(lang, file);
                match removal::import_removal(lang, &tree, &file.text, &file.path, &reference.range)
                {
                    Some(ImportRemoval {
                        edit: Ok(edit),
                        reexport,
                    }) => self.removals.push((
                        reference,
                        edit,
                        w::import_removed(name, reexport || reference.role == Role::ReExport),
                    )),
                    Some(ImportRemoval {
                        edit: Err(kept), ..
                    }) => self.blocking.push((reference, w::import_kept(kept))),
                    None => self
                        .blocking
                        .push((reference, w::role_word(reference.role))),
                }
            }
            Role::DunderAll => {
                let tree = sources.parsed().tree_in_passing(lang, file);
                match removal::dunder_all_removal(&tree, &reference.range) {
                    Some(edit) => self
                        .removals
                        .push((reference, edit, w::all_entry_removed(name))),
                    None => self
                        .blocking
                        .push((reference, w::role_word(reference.role))),
                }
            }
            role => self.blocking.push((reference, w::role_word(role))),
        }
    }
}

/// The refusal naming every blocking reference, certain ones first.
fn refusal(target: &Target, blocking: &[(&Reference, &'static str)]) -> RefactorError {
    let mut ordered: Vec<&(&Reference, &'static str)> = blocking.iter().collect();
    ordered.sort_by_key(|(r, _)| (!r.is_certain(), r.path.clone(), r.range.start));
    let listed: Vec<String> = ordered
        .iter()
        .map(|(r, what)| {
            let location = format!("{}:{}", r.path, r.line);
            match &r.certainty {
                Certainty::Certain => w::reference_item(&location, what, None),
                Certainty::Possible(why) => w::reference_item(&location, what, Some(why)),
            }
        })
        .collect();
    let mut references: Vec<String> = Vec::new();
    for (r, _) in &ordered {
        let location = format!("{}:{}", r.path, r.line);
        if !references.contains(&location) {
            references.push(location);
        }
    }
    RefactorError::Referenced {
        message: w::still_referenced(&target.name, target.label, &listed),
        references,
    }
}

/// The edits removing the definition (and, Rust, its type's `impl` blocks): neighbours that
/// only blank lines separate go at once; a Python definition alone in its block leaves `pass`.
fn definition_removal(
    lang: Language,
    tree: &tree_sitter::Tree,
    text: &str,
    symbol: &Symbol,
    impls: &[Symbol],
) -> Vec<TextEdit> {
    let comment = match lang {
        Language::Rust => "//",
        Language::Python => "#",
    };
    let placement = removal::placement(lang, tree, &symbol.range);
    let range = symbol.full_range.clone();
    if placement.alone_in_block
        && starts_its_line(text, range.start)
        && ends_its_line(text, range.end, comment)
    {
        let start = line_start(text, range.start);
        let end = line_content_end(text, range.end);
        let indent = crate::text::indentation_at(text, range.start);
        return vec![TextEdit::new(start..end, format!("{indent}pass"))];
    }
    // The pieces in order, those separated only by blank lines merged, each with whether it
    // is the last item of its container.
    let mut pieces: Vec<(Range<usize>, Range<usize>)> = std::iter::once(symbol)
        .chain(impls)
        .map(|s| (s.full_range.clone(), s.range.clone()))
        .collect();
    pieces.sort_by_key(|(full, _)| full.start);
    let mut merged: Vec<(Range<usize>, Range<usize>)> = Vec::new();
    for (full, item) in pieces {
        if let Some(last) = merged.last_mut()
            && text[last.0.end.min(full.start)..full.start]
                .trim()
                .is_empty()
        {
            last.0.end = last.0.end.max(full.end);
            last.1 = item;
            continue;
        }
        merged.push((full, item));
    }
    merged
        .into_iter()
        .map(|(full, item)| {
            let last = removal::placement(lang, tree, &item).last_in_container;
            remove_item_lines(text, full, last, comment)
        })
        .collect()
}

#[cfg(test)]
mod tests;
