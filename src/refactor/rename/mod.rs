//! `refactor_rename_symbol` on the heuristic path: the references engine lists the symbol's
//! references; the `certain` ones (and the `possible` ones the user includes) are rewritten,
//! the other possible ones become warnings, and a new name that collides in a scope the rename
//! touches is refused, saying where. Aliases are kept (`use a::f as g` renames `f`, not `g`).

mod wording;

use std::collections::BTreeSet;

use super::references::{self, Reference, References, ReferencesRequest};
use super::sites::{self, SiteKind, SiteTags};
use super::{Details, Finding, Plan, RefactorError, RenameDetails, RenameRequest, Sources};
use crate::edit::{ChangeSetBuilder, TextEdit};
use crate::honesty::Tool;
use crate::lang::Language;
use crate::lang::refs::{Rewrite, Role, TargetKind};
use wording as w;

pub fn plan(
    sources: &dyn Sources,
    request: &RenameRequest,
    lang: Language,
) -> Result<Plan, RefactorError> {
    let new_name = valid_new_name(request, lang)?;
    let found = references::find(
        sources,
        &ReferencesRequest {
            file: request.file.clone(),
            symbol: request.symbol.clone(),
        },
        lang,
        sources.oracle(),
    )?;
    let bare = for_target(request, &new_name, &found.target)?;
    match trait_declaration(sources, &found)? {
        Some(declaration) => {
            // A method of `impl Trait for T` is renamed where the trait declares it: the
            // declaration, every impl and the calls, as from the declaration itself.
            let at_trait = references::find(
                sources,
                &ReferencesRequest {
                    file: declaration.0,
                    symbol: declaration.1,
                },
                lang,
                sources.oracle(),
            )?;
            plan_from(sources, &bare, &at_trait)
        }
        None => plan_from(sources, &bare, &found),
    }
}

/// For a method of `impl Trait for T` (Rust): where this project declares the method in
/// `trait Trait` (file and query), `None` for any other target. A trait the project does not
/// define (`Display`, a library's) fixes its methods' names: refused, since the impl would no
/// longer implement it (E0407).
fn trait_declaration(
    sources: &dyn Sources,
    found: &References,
) -> Result<Option<(String, crate::lang::symbols::SymbolQuery)>, RefactorError> {
    use crate::lang::symbols::{SymbolKind, SymbolQuery};
    let target = &found.target;
    let TargetKind::Member(member) = &target.kind else {
        return Ok(None);
    };
    let Some(trait_name) = member.trait_name.as_deref() else {
        return Ok(None);
    };
    if target.lang != Language::Rust || trait_name == member.owner {
        return Ok(None);
    }
    let store = sources.parsed();
    let files = sources.word_sites(target.lang, trait_name)?.files;
    for (file, _) in &files {
        let tree = store.tree(target.lang, file);
        let outline = store.outline(target.lang, file, &tree);
        let declared = outline.iter().find(|s| {
            s.name == target.name
                && s.container.is_some_and(|c| {
                    outline[c].kind == SymbolKind::Trait && outline[c].name == trait_name
                })
        });
        if let Some(method) = declared {
            return Ok(Some((
                file.path.clone(),
                SymbolQuery {
                    name: method.name_path.clone(),
                    line: Some(method.line),
                    column: None,
                },
            )));
        }
    }
    let trait_defined = files.iter().any(|(file, _)| {
        let tree = store.tree(target.lang, file);
        store
            .outline(target.lang, file, &tree)
            .iter()
            .any(|s| s.kind == SymbolKind::Trait && s.name == trait_name)
    });
    if trait_defined {
        // The project's trait does not declare it by this name (a provided method of a macro, a
        // supertrait's): today's warning says what to check.
        return Ok(None);
    }
    Err(RefactorError::Unsupported(w::library_trait_method(
        &target.name,
        trait_name,
        &member.owner,
    )))
}

/// The new name checked as an identifier of the language; a lifetime's new name may be
/// written with its `'` (`'b`), as the code writes it: the name after it.
pub fn valid_new_name(request: &RenameRequest, lang: Language) -> Result<String, RefactorError> {
    let new_name = match request.new_name.strip_prefix('\'') {
        Some(bare) if lang == Language::Rust => bare,
        _ => request.new_name.as_str(),
    };
    lang.validate_identifier(new_name)
        .map_err(|message| RefactorError::InvalidArgument {
            param: "new_name",
            message,
        })?;
    Ok(new_name.to_string())
}

/// The request with the new name `valid_new_name` gave, once the target is known: a name
/// written with a `'` is refused for anything but a lifetime.
pub fn for_target(
    request: &RenameRequest,
    new_name: &str,
    target: &crate::lang::refs::Target,
) -> Result<RenameRequest, RefactorError> {
    if new_name != request.new_name && target.label != crate::lang::rust::refs::LIFETIME_PARAMETER {
        return Err(RefactorError::InvalidArgument {
            param: "new_name",
            message: w::quoted_not_lifetime(&request.new_name, target.label),
        });
    }
    Ok(RenameRequest {
        new_name: new_name.to_string(),
        ..request.clone()
    })
}

/// The plan for references already found (the LSP-checked path uses it too).
pub fn plan_from(
    sources: &dyn Sources,
    request: &RenameRequest,
    found: &References,
) -> Result<Plan, RefactorError> {
    let target = &found.target;
    let new_name = request.new_name.as_str();
    if new_name == target.name {
        return Err(RefactorError::InvalidArgument {
            param: "new_name",
            message: w::same_name(new_name),
        });
    }
    let included = included(found, &request.include_possible)?;
    let renamed = renamed(found, &included);
    check_renamed(sources, found, &renamed, new_name)?;
    let mut builder = ChangeSetBuilder::new();
    let mut tags = SiteTags::new();
    for reference in &renamed {
        let edit = rewrite(reference, found, &target.name, new_name);
        if !matches!(reference.role, Role::Definition | Role::Override) {
            let certain = reference.is_certain();
            tags.tag_with(
                &reference.path,
                vec![edit.clone()],
                SiteKind::Reference,
                certain,
                true,
            );
        }
        builder.edit(&reference.path, edit);
    }
    // The possible references left out are sites too, not written unless chosen.
    for reference in found.possible() {
        let writable = reference.rewrite != Rewrite::Keep && !reference.alias;
        if writable && !included.contains(&reference.location()) {
            let edit = rewrite(reference, found, &target.name, new_name);
            tags.tag_with(
                &reference.path,
                vec![edit],
                SiteKind::Reference,
                false,
                false,
            );
        }
    }
    let mut findings: Vec<Finding> = found.findings.clone();
    if let Some(message) = role_warning(target) {
        findings.push(Finding::warning(
            &target.path,
            line_of(found, target),
            message,
        ));
    }
    for reference in found.possible() {
        let why = match &reference.certainty {
            references::Certainty::Possible(why) => why.as_str(),
            references::Certainty::Certain => "",
        };
        if included.contains(&reference.location()) {
            findings.push(Finding::warning(
                &reference.path,
                reference.line,
                w::possible_included(&target.name, why),
            ));
        } else {
            findings.push(
                Finding::warning(
                    &reference.path,
                    reference.line,
                    w::possible_left(&target.name, why),
                )
                .with_kind(crate::refactor::sites::POSSIBLE_LEFT),
            );
        }
    }
    let changes = builder.build(|path| found.files.get(path))?;
    let sites = tags.finish(Tool::RenameSymbol, |path| {
        found.files.get(path).map(|f| &*f.text)
    });
    let site_bases = sites::bases_for(&sites, &changes, |path| found.files.get(path).cloned());
    let files_changed = changes.iter().map(|c| c.path.clone()).collect();
    let details = RenameDetails {
        old_name: target.name.clone(),
        new_name: new_name.to_string(),
        symbol_kind: target.label.to_string(),
        definition: format!("{}:{}", target.path, line_of(found, target)),
        references_renamed: renamed.len(),
        possible_references: found
            .possible()
            .filter(|r| !included.contains(&r.location()))
            .map(Reference::location)
            .collect(),
        files_changed,
        references_from: found.source.describe(),
    };
    Ok(Plan {
        changes,
        findings,
        details: Details::Rename(details),
        caveat_notes: Vec::new(),
        sites,
        site_bases,
    })
}

/// The edit that renames `reference` from `old` to `new_name`.
fn rewrite(reference: &Reference, found: &References, old: &str, new_name: &str) -> TextEdit {
    let mut range = reference.range.clone();
    let text = match &reference.rewrite {
        Rewrite::FieldBeforeShorthand => format!("{new_name}: {old}"),
        Rewrite::ValueAfterShorthand => format!("{old}: {new_name}"),
        Rewrite::ModifiedShorthand {
            modifiers,
            field_renamed,
        } => {
            // `Foo { ref i }` → `Foo { j: ref i }` / `Foo { i: ref j }`.
            let file = found.files.get(&reference.path);
            let written = file.map_or("", |f| f.text[modifiers.clone()].trim());
            range.start = modifiers.start;
            if *field_renamed {
                format!("{new_name}: {written} {old}")
            } else {
                format!("{old}: {written} {new_name}")
            }
        }
        Rewrite::Name | Rewrite::Keep => new_name.to_string(),
    };
    TextEdit::new(range, text)
}

/// The refusals of a new name every backend gives, whoever computes the rename (candor's engine,
/// rope, a language server — the backends ask it before they return their result): the name
/// already bound where the rename writes it (compared as the language reads names: after NFKC in
/// Python, so `ｏｔｈｅｒ` is `other`), or a name not in the normal form the language reads it in.
/// `found` is the engine's references of the symbol.
pub fn check_new_name(
    sources: &dyn Sources,
    request: &RenameRequest,
    found: &References,
) -> Result<(), RefactorError> {
    let included = included(found, &request.include_possible)?;
    check_renamed(
        sources,
        found,
        &renamed(found, &included),
        request.new_name.as_str(),
    )
}

/// The references the rename rewrites: the certain ones and the possible ones included.
fn renamed<'a>(found: &'a References, included: &BTreeSet<String>) -> Vec<&'a Reference> {
    found
        .references
        .iter()
        .filter(|r| r.rewrite != Rewrite::Keep && !r.alias)
        .filter(|r| r.is_certain() || included.contains(&r.location()))
        .collect()
}

/// Collisions of the name as the language reads it, then its normal form.
fn check_renamed(
    sources: &dyn Sources,
    found: &References,
    renamed: &[&Reference],
    new_name: &str,
) -> Result<(), RefactorError> {
    let lang = found.target.lang;
    let read_as = lang.normalized_name(new_name);
    check_collisions(sources, found, renamed, &read_as).map_err(|e| match e {
        RefactorError::Unsupported(message) if read_as != new_name => {
            RefactorError::Unsupported(w::read_as(
                new_name,
                &read_as,
                lang.name(),
                lang.normal_form(),
                &message,
            ))
        }
        other => other,
    })?;
    lang.check_normal_form(new_name)
        .map_err(|message| RefactorError::InvalidArgument {
            param: "new_name",
            message,
        })
}

/// What the name means to something outside the references: a Rust `main` is the program's entry
/// point; a method of `impl Trait for T` must keep the trait's name (only a trait of this project
/// is renamed with all its impls); Python calls its `__dunder__` names itself.
fn role_warning(target: &crate::lang::refs::Target) -> Option<String> {
    use crate::lang::refs::TargetKind;
    if target.lang == crate::lang::Language::Python {
        let name = target.name.as_str();
        let dunder = name.len() > 4 && name.starts_with("__") && name.ends_with("__");
        return dunder.then(|| w::special_name(name));
    }
    match &target.kind {
        TargetKind::Item if target.name == "main" => Some(w::entry_point(&target.name)),
        TargetKind::Member(member) => match &member.trait_name {
            Some(trait_name) if *trait_name != member.owner => {
                Some(w::trait_method(&target.name, trait_name, &member.owner))
            }
            _ => None,
        },
        _ => None,
    }
}

fn line_of(found: &References, target: &crate::lang::refs::Target) -> usize {
    found.files.get(&target.path).map_or(1, |f| {
        f.text[..target.name_range.start.min(f.text.len())]
            .matches('\n')
            .count()
            + 1
    })
}

/// The possible references the request includes, checked against the list.
fn included(found: &References, include: &[String]) -> Result<BTreeSet<String>, RefactorError> {
    let possible: BTreeSet<String> = found.possible().map(Reference::location).collect();
    let mut out = BTreeSet::new();
    for location in include {
        if !possible.contains(location) {
            return Err(RefactorError::InvalidArgument {
                param: "include_possible",
                message: w::unknown_include(location),
            });
        }
        out.insert(location.clone());
    }
    Ok(out)
}

/// Refuses a new name that something already binds where the rename writes it: the module (or
/// type) of the definition, and every scope a renamed reference sits in.
fn check_collisions(
    sources: &dyn Sources,
    found: &References,
    renamed: &[&Reference],
    new_name: &str,
) -> Result<(), RefactorError> {
    let target = &found.target;
    let lang = target.lang;
    let resolver = lang.resolver();
    let store = sources.parsed();
    let refuse = |path: &str, line: usize, what: &str, scope: &str| {
        RefactorError::Unsupported(w::collision(new_name, path, line, what, scope))
    };
    let Some(def_file) = found.files.get(&target.path) else {
        return Ok(());
    };
    let def_tree = store.tree_in_passing(lang, def_file);
    match &target.kind {
        TargetKind::Item => {
            if let Some(bound) = resolver.module_binding(&def_tree, &def_file.text, new_name) {
                return Err(refuse(&target.path, bound.line, bound.what, w::in_module()));
            }
        }
        TargetKind::Member(member) => {
            if let Some(bound) =
                resolver.member_binding(&def_tree, &def_file.text, &member.owner, new_name)
            {
                return Err(refuse(
                    &target.path,
                    bound.line,
                    bound.what,
                    &w::in_type(&member.owner),
                ));
            }
        }
        TargetKind::Local(_) => {}
    }
    if !matches!(target.kind, TargetKind::Member(_))
        && let Some(bound) = resolver.captured(&def_tree, &def_file.text, target, new_name)
    {
        return Err(if bound.what == "use" {
            RefactorError::Unsupported(w::captured(
                new_name,
                &target.path,
                bound.line,
                target.label,
            ))
        } else {
            refuse(&target.path, bound.line, bound.what, w::where_used())
        });
    }
    // Every scope a plain reference is renamed in: what already binds the new name there.
    let mut by_file: std::collections::BTreeMap<&str, Vec<&Reference>> = Default::default();
    for reference in renamed {
        let plain = matches!(
            reference.role,
            Role::Call | Role::Use | Role::Import | Role::ReExport | Role::Definition
        );
        if plain && !matches!(target.kind, TargetKind::Member(_)) {
            by_file.entry(&reference.path).or_default().push(reference);
        }
    }
    for (path, references) in by_file {
        let Some(file) = found.files.get(path) else {
            continue;
        };
        // Rust: what `first_bound` reads (the locals of the whole functions around the
        // references, the items of the new name, every `use`) is in a tree around the two names
        // (the references judge's tree of the file serves it); Python reads the whole file.
        let tree = match lang {
            Language::Rust => super::sources::tree_around_present_words(
                store,
                lang,
                file,
                &[
                    &target.name,
                    new_name,
                    "use",
                    crate::lang::partial::WHOLE_FUNCTIONS,
                ],
            ),
            Language::Python => store.tree_in_passing(lang, file),
        };
        let offsets: Vec<usize> = references.iter().map(|r| r.range.start).collect();
        if let Some(bound) = resolver.first_bound(&tree, &file.text, &offsets, new_name) {
            return Err(refuse(path, bound.line, bound.what, w::where_used()));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
