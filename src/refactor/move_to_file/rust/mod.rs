//! Rust side of move to file: crates and module paths (`src/a/b.rs` is `crate::a::b`, reached
//! through `mod` declarations from `src/lib.rs` or `src/main.rs`), the `mod` declaration a new
//! module needs, the `use crate::…` added back to the source, the visibility the moved item needs
//! to stay reachable, the impl blocks that travel with a type, and the paths to the old location
//! found in other files.

use super::wording as w;
use tree_sitter::Tree;

pub(super) mod callers;
pub(super) mod carry;

use super::carry::ImportBack;
use super::{At, MAX_FINDINGS_PER_KIND, Move, Note, file_name, parent_dir};
use crate::edit::TextEdit;
use crate::lang::Language;
use crate::lang::rust::imports::{line_insertion, use_paths};
use crate::lang::rust::items::{
    ModDecl, file_mods_public, has_body_at, has_private_tuple_field, is_exactly_pub, is_file_mod,
    is_use, mod_declaration, private_impl_members, private_parts, private_tuple_field_starts,
    top_level_node, widen_visibility,
};
use crate::lang::rust::macros::{FileRelative, file_relative, macro_calls_in};
use crate::lang::rust::names::{MemberUse, first_uses, member_uses, tuple_struct_use};
use crate::lang::symbols::{Symbol, SymbolKind};
use crate::refactor::{RefactorError, Severity, Sources};
use crate::text::TextStyle;

/// Refuses what cannot move as a plain item: `macro_rules!` (scoped by text position, not path)
/// and `mod name;` (its file is found from the declaring file's place).
pub(super) fn check_movable(symbol: &Symbol, tree: &Tree) -> Result<(), RefactorError> {
    match symbol.kind {
        SymbolKind::Macro => Err(RefactorError::Unsupported(w::macro_rules_by_position(
            &symbol.name,
        ))),
        SymbolKind::Module => {
            if has_body_at(tree, &symbol.range) {
                Ok(())
            } else {
                Err(RefactorError::Unsupported(w::module_declaration_moves(
                    &symbol.name,
                )))
            }
        }
        _ => Ok(()),
    }
}

/// The item, and for a struct, enum or union the top-level impl blocks of it in the same file
/// (inherent and trait impls): its private fields and methods are only reachable from its own
/// module, so they travel together.
pub(super) fn with_impl_blocks<'s>(symbols: &'s [Symbol], symbol: &'s Symbol) -> Vec<&'s Symbol> {
    let mut moved = vec![symbol];
    if matches!(
        symbol.kind,
        SymbolKind::Struct | SymbolKind::Enum | SymbolKind::Union
    ) {
        moved.extend(
            symbols.iter().filter(|s| {
                s.top_level && s.kind == SymbolKind::Impl && s.name_path == symbol.name
            }),
        );
    }
    moved
}

/// A Cargo package: the directory of its `Cargo.toml` ("" for the root) and its crate name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Crate {
    pub dir: String,
    /// The package name with `-` as `_`, as other crates of the package spell it.
    pub name: Option<String>,
}

impl Crate {
    pub fn join(&self, relative: &str) -> String {
        if self.dir.is_empty() {
            relative.to_string()
        } else {
            format!("{}/{relative}", self.dir)
        }
    }

    pub fn src(&self) -> String {
        self.join("src")
    }
}

/// The nearest `Cargo.toml` with a `[package]` above `path`.
pub(super) fn find_crate(sources: &dyn Sources, path: &str) -> Option<Crate> {
    let mut dir = parent_dir(path).to_string();
    loop {
        let manifest = if dir.is_empty() {
            "Cargo.toml".to_string()
        } else {
            format!("{dir}/Cargo.toml")
        };
        if let Ok(Some(file)) = sources.file(&manifest) {
            match toml::from_str::<toml::Table>(&file.text) {
                Ok(table) => {
                    if let Some(package) = table.get("package") {
                        let name = package
                            .get("name")
                            .and_then(|n| n.as_str())
                            .map(|n| n.replace('-', "_"));
                        return Some(Crate { dir, name });
                    }
                }
                Err(_) if file.text.contains("[package]") => {
                    return Some(Crate { dir, name: None });
                }
                Err(_) => {}
            }
        }
        if dir.is_empty() {
            return None;
        }
        dir = parent_dir(&dir).to_string();
    }
}

/// `src/a/b.rs` → `[a, b]`, `src/a/mod.rs` → `[a]`, `src/lib.rs` → `[]`; why not otherwise.
pub(super) fn module_segments(krate: &Crate, path: &str) -> Result<Vec<String>, String> {
    let src = format!("{}/", krate.src());
    let Some(relative) = path.strip_prefix(&src) else {
        return Err(w::outside_the_crate_sources(&src));
    };
    if relative == "lib.rs" || relative == "main.rs" {
        return Ok(Vec::new());
    }
    if relative.starts_with("bin/") {
        return Err(w::UNDER_SRC_BIN.to_string());
    }
    let mut segments: Vec<String> = relative.split('/').map(str::to_string).collect();
    let last = segments.pop().unwrap_or_default();
    let last = last.strip_suffix(".rs").unwrap_or(&last).to_string();
    if last != "mod" {
        segments.push(last);
    }
    if let Some(bad) = segments
        .iter()
        .find(|s| Language::Rust.validate_identifier(s).is_err())
    {
        return Err(w::invalid_module_segment(bad));
    }
    if segments.is_empty() {
        return Err(w::NOT_A_MODULE_FILE.to_string());
    }
    Ok(segments)
}

pub(super) fn exists(sources: &dyn Sources, path: &str) -> bool {
    matches!(sources.file(path), Ok(Some(_)))
}

/// The file of module `segments` of the crate whose root file is `root`.
pub(super) fn module_file(
    sources: &dyn Sources,
    krate: &Crate,
    root: &str,
    segments: &[String],
) -> Option<String> {
    if segments.is_empty() {
        return Some(root.to_string());
    }
    let base = format!("{}/{}", krate.src(), segments.join("/"));
    [format!("{base}.rs"), format!("{base}/mod.rs")]
        .into_iter()
        .find(|p| exists(sources, p))
}

/// The crate of a move and the module paths of its source and target (what carrying imports and
/// rewriting paths need; `locate` checks more, for the import back).
pub(super) struct Place {
    pub krate: Crate,
    /// The crate root the source is compiled from (`src/lib.rs` first).
    pub root: String,
    pub source: Vec<String>,
    pub target: Vec<String>,
}

impl Place {
    pub fn of(m: &Move<'_>) -> Option<Place> {
        let krate = find_crate(m.sources, &m.source.path)?;
        let source = module_segments(&krate, &m.source.path).ok()?;
        let target = module_segments(&krate, &m.target_path).ok()?;
        let root = if source.is_empty() {
            m.source.path.clone()
        } else {
            ["lib.rs", "main.rs"]
                .iter()
                .map(|r| krate.join(&format!("src/{r}")))
                .find(|r| exists(m.sources, r))?
        };
        Some(Place {
            krate,
            root,
            source,
            target,
        })
    }

    /// The file of the crate module `segments` (`[]` is the root).
    pub fn file_of(&self, m: &Move<'_>, segments: &[String]) -> Option<String> {
        module_file(m.sources, &self.krate, &self.root, segments)
    }

    /// The module path of another file of the crate.
    pub fn module_of(&self, path: &str) -> Option<Vec<String>> {
        module_segments(&self.krate, path)
            .ok()
            .or_else(|| (path == self.root).then(Vec::new))
    }
}

/// The declarations of modules `segments` from `root` down, with the file holding each.
pub(super) fn declarations(
    sources: &dyn Sources,
    krate: &Crate,
    root: &str,
    segments: &[String],
) -> Result<Vec<(String, ModDecl)>, String> {
    let mut found = Vec::new();
    for (depth, segment) in segments.iter().enumerate() {
        let parent = module_file(sources, krate, root, &segments[..depth]).ok_or_else(|| {
            w::no_declaring_file(&krate.src(), &segments[..depth].join("/"), segment)
        })?;
        let Ok(Some(file)) = sources.file(&parent) else {
            return Err(w::cannot_be_read(&parent));
        };
        let tree = crate::refactor::tree_of(sources, Language::Rust, &file);
        let decl = mod_declaration(&tree, &file.text, segment)
            .ok_or_else(|| w::module_not_declared(&parent, segment))?;
        if decl.inline {
            return Err(w::inline_module_on_the_way(segment, &parent));
        }
        found.push((parent, decl));
    }
    Ok(found)
}

/// Where the source and the target sit in their crate.
pub(super) struct Located {
    pub source_segments: Vec<String>,
    pub target_segments: Vec<String>,
    /// Existing declarations along the target's path (file, declaration).
    pub chain: Vec<(String, ModDecl)>,
    /// The file that must declare the target module, when it does not yet.
    pub undeclared_in: Option<String>,
    /// Whether the source module is public API: a library root, or reached from it through
    /// `pub mod` declarations only.
    pub source_is_api: bool,
    /// The name other crates use for this one.
    pub crate_name: Option<String>,
    /// The `#[cfg(…)]` of the modules on the source's path, with the file that declares each.
    pub source_cfgs: Vec<(String, String)>,
}

pub(super) fn locate(m: &Move<'_>) -> Result<Located, String> {
    let source = &m.source.path;
    let target = &m.target_path;
    let krate =
        find_crate(m.sources, source).ok_or_else(|| w::not_in_a_package_of_cargo(source))?;
    if find_crate(m.sources, target).as_ref().map(|k| &k.dir) != Some(&krate.dir) {
        return Err(w::another_package(target, source));
    }
    let source_segments = module_segments(&krate, source).map_err(|e| format!("{source} {e}"))?;
    let target_segments = module_segments(&krate, target).map_err(|e| format!("{target} {e}"))?;
    let root = if source_segments.is_empty() {
        source.clone()
    } else {
        ["lib.rs", "main.rs"]
            .iter()
            .map(|r| format!("{}/{r}", krate.src()))
            .filter(|r| exists(m.sources, r))
            .find(|r| declarations(m.sources, &krate, r, &source_segments).is_ok())
            .ok_or_else(|| w::not_a_module_of_the_crate(source, &krate.src()))?
    };
    let source_cfgs: Vec<(String, String)> =
        declarations(m.sources, &krate, &root, &source_segments)
            .map(|chain| {
                (chain.into_iter())
                    .filter_map(|(file, d)| Some((file, d.cfg?)))
                    .collect()
            })
            .unwrap_or_default();
    let source_is_api = root.ends_with("lib.rs")
        && declarations(m.sources, &krate, &root, &source_segments)
            .is_ok_and(|chain| chain.iter().all(|(_, d)| d.public));
    if target_segments.is_empty() {
        if *target != root {
            return Err(w::root_of_another_crate(target, source, &root));
        }
        return Ok(Located {
            source_segments,
            target_segments,
            chain: Vec::new(),
            undeclared_in: None,
            source_is_api,
            crate_name: krate.name,
            source_cfgs,
        });
    }
    let (last, parents) = target_segments.split_last().ok_or("empty module path")?;
    let mut chain = declarations(m.sources, &krate, &root, parents)?;
    let parent = module_file(m.sources, &krate, &root, parents)
        .ok_or_else(|| w::no_declaring_file(&krate.src(), &parents.join("/"), last))?;
    let parent_file = m
        .sources
        .file(&parent)
        .ok()
        .flatten()
        .ok_or_else(|| w::cannot_be_read(&parent))?;
    let tree = crate::refactor::tree_of(m.sources, Language::Rust, &parent_file);
    let undeclared_in = match mod_declaration(&tree, &parent_file.text, last) {
        Some(decl) if decl.inline => {
            return Err(w::target_module_is_inline(last, &parent, target));
        }
        Some(decl) => {
            chain.push((parent, decl));
            None
        }
        None => Some(parent),
    };
    Ok(Located {
        source_segments,
        target_segments,
        chain,
        undeclared_in,
        source_is_api,
        crate_name: krate.name,
        source_cfgs,
    })
}

/// An error at the moved item when a module on the target's path is compiled only under a
/// `#[cfg(…)]` that no module on the source's path has (semver's `#[cfg(feature = "serde")] mod
/// serde;`).
fn gated_target(m: &Move<'_>, located: &Located) -> Option<Note> {
    let (file, cfg) = located
        .chain
        .iter()
        .find_map(|(file, d)| d.cfg.as_ref().map(|c| (file, c)))?;
    if located.source_cfgs.iter().any(|(_, c)| c == cfg) {
        return None;
    }
    Some(at_moved(
        m,
        Severity::Error,
        w::gated_target(&m.target_path, cfg, file, &moved_what(m)),
    ))
}

/// A warning at the moved item when a module on the source's path is compiled only under a
/// `#[cfg(…)]` that no module on the target's path has: the moved code now compiles in every
/// build, and what it uses that only those builds have (an optional dependency, items under the
/// same `cfg`) is missing from the others (either's `serialize`, moved out of `#[cfg(feature =
/// "serde")] mod serde_untagged_optional;` into `iterator.rs`, took `use serde::…` with it, and
/// the default build no longer compiled: E0432).
fn ungated_source(m: &Move<'_>, located: &Located) -> Option<Note> {
    let (file, cfg) = located.source_cfgs.iter().find(|(_, cfg)| {
        !located
            .chain
            .iter()
            .any(|(_, d)| d.cfg.as_ref() == Some(cfg))
    })?;
    Some(at_moved(
        m,
        Severity::Warning,
        w::ungated_source(&m.source.path, cfg, file, &m.target_path, &moved_what(m)),
    ))
}

/// What moves, as the `cfg` notes name it: `` `name` `` or "the moved code".
fn moved_what(m: &Move<'_>) -> String {
    m.importable_name()
        .map_or_else(|| "the moved code".to_string(), |n| format!("`{n}`"))
}

/// A note at the moved item.
fn at_moved(m: &Move<'_>, severity: Severity, message: String) -> Note {
    Note::new(At::Moved(m.symbol.range.start), severity, message)
}

pub(super) fn crate_path(segments: &[String], name: &str) -> String {
    let mut path = vec!["crate"];
    path.extend(segments.iter().map(String::as_str));
    path.push(name);
    path.join("::")
}

/// Declares the target module, makes the moved item reachable, and adds `use crate::…::name;`
/// to the source when it still uses the name.
pub(super) fn import_back(m: &Move<'_>, uses: &[usize]) -> Result<ImportBack, RefactorError> {
    let mut back = ImportBack::default();
    let source = &m.source.path;
    let target = &m.target_path;
    let name = m.importable_name();
    let located = match locate(m) {
        Ok(located) => located,
        Err(reason) => {
            match (name, uses.first()) {
                (Some(name), Some(&first_use)) => back.notes.push(Note::new(
                    At::Source(first_use),
                    Severity::Warning,
                    w::import_not_added(name, source, &reason),
                )),
                _ => back.notes.push(Note::new(
                    At::Moved(m.symbol.range.start),
                    Severity::Warning,
                    w::crate_not_checked(target, &reason),
                )),
            }
            return Ok(back);
        }
    };
    let style = m.source_style;
    let source_in_target = located
        .source_segments
        .starts_with(&located.target_segments);

    // Every module on the way must be visible from the source.
    for (depth, (file, decl)) in located.chain.iter().enumerate() {
        let declaring = &located.target_segments[..depth];
        if !decl.public
            && !located.source_segments.starts_with(declaring)
            && name.is_some()
            && !uses.is_empty()
        {
            back.notes.push(Note::new(
                At::Source(uses[0]),
                Severity::Warning,
                w::private_module_on_the_way(
                    &located.target_segments[depth],
                    file,
                    source,
                    crate_path(&located.target_segments[..=depth], "").trim_end_matches("::"),
                ),
            ));
        }
    }

    // A module compiled only under a `cfg` the source's modules do not share takes the item out
    // of the other builds.
    back.notes.extend(gated_target(m, &located));
    // And out of one into a module every build compiles, the other way round.
    back.notes.extend(ungated_source(m, &located));

    if let Some(parent) = &located.undeclared_in {
        declare_module(m, &located, parent, &mut back)?;
    }

    // A `pub` item of a library's public module leaves the public API when its new module
    // cannot be reached from other crates.
    if let Some(name) = name {
        back.notes.extend(public_api_note(
            m,
            &located,
            name,
            back.module_declared.as_deref(),
        ));
    }

    let Some(name) = name else {
        back.notes.push(Note::new(
            At::Moved(m.symbol.range.start),
            Severity::Info,
            w::IMPL_NEEDS_NO_IMPORT,
        ));
        make_members_reachable(m, source_in_target, &mut back);
        return Ok(back);
    };
    if uses.is_empty() {
        back.no_import_needed(m, name);
        make_members_reachable(m, source_in_target, &mut back);
        return Ok(back);
    }

    if !source_in_target
        && let Some(item) = top_level_node(m.tree, &m.symbol.range)
        && let Some(edit) = widen_visibility(item, &m.source.text)
    {
        back.moved_edits.push(edit);
        back.notes.push(Note::new(
            At::Moved(item.start_byte()),
            Severity::Info,
            w::becomes_pub_crate(name, source),
        ));
    }
    make_members_reachable(m, source_in_target, &mut back);

    let path = crate_path(&located.target_segments, name);
    let imported = crate::lang::rust::imports::top_level_bindings(m.tree, &m.source.text)
        .iter()
        .any(|b| b.name == name && b.imported)
        && use_paths(m.tree, &m.source.text)
            .iter()
            .any(|(p, alias, _)| p.join("::") == path && alias.is_none());
    // `use money::*;` (or `pub use`) brings it in already: another `use` would be redundant.
    let by_glob = crate::lang::rust::imports::imports_from_module(
        m.tree,
        &m.source.text,
        source,
        name,
        &located.target_segments,
    );
    if imported || by_glob {
        back.notes.push(Note::new(
            At::Source(uses[0]),
            Severity::Info,
            w::already_imported(source, &path),
        ));
        return Ok(back);
    }
    let statement = format!("use {path};");
    let (at, text) = line_insertion(
        m.tree,
        &m.source.text,
        &statement,
        style.line_ending,
        &m.removals,
        is_use,
        is_file_mod,
    );
    back.import_inserted(m, name, (at, text), statement, "", uses.len());
    Ok(back)
}

/// The warning for a `pub` item of a library's public module that its new module cannot export
/// (or exports under another path).
fn public_api_note(
    m: &Move<'_>,
    located: &Located,
    name: &str,
    module_declared: Option<&str>,
) -> Option<Note> {
    let item = top_level_node(m.tree, &m.symbol.range)?;
    let item_is_pub = is_exactly_pub(item, &m.source.text);
    let mut exported = located
        .chain
        .iter()
        .map(|(_, d)| d.exported)
        .collect::<Vec<_>>();
    if let Some(decl) = module_declared {
        exported.push(decl.starts_with("pub mod"));
    }
    let hidden_by = exported
        .iter()
        .position(|e| !e)
        .and_then(|i| located.target_segments.get(i));
    let external = |segments: &[String]| {
        let path = crate_path(segments, name);
        match &located.crate_name {
            Some(krate) => path.replacen("crate", krate, 1),
            None => path,
        }
    };
    let old_path = external(&located.source_segments);
    let new_path = external(&located.target_segments);
    // `pub use money::*;` in the source module keeps it at its old path.
    let still_exported = hidden_by.is_none()
        && crate::lang::rust::imports::reexports_from_module(
            m.tree,
            &m.source.text,
            &m.source.path,
            name,
            &located.target_segments,
        );
    if item_is_pub && located.source_is_api && !still_exported {
        let message = match hidden_by {
            Some(module) => w::public_api_lost(name, &old_path, &new_path, module),
            None => w::public_api_moved(name, &old_path, &new_path),
        };
        return Some(Note::new(
            At::Moved(item.start_byte()),
            Severity::Warning,
            message,
        ));
    }
    None
}

/// Declares the new module `mod name;` in `parent`, the file of its parent module, in the
/// visibility its siblings mostly have (or what the source needs to reach it).
fn declare_module(
    m: &Move<'_>,
    located: &Located,
    parent: &String,
    back: &mut ImportBack,
) -> Result<(), RefactorError> {
    let source = &m.source.path;
    let target = &m.target_path;
    let module = located.target_segments.last().cloned().unwrap_or_default();
    let parent_segments = &located.target_segments[..located.target_segments.len() - 1];
    let parent_file = if parent == source {
        m.source.clone()
    } else {
        m.sources
            .file(parent)?
            .ok_or_else(|| super::internal(w::PARENT_VANISHED))?
    };
    let parent_tree = crate::refactor::tree_of(m.sources, Language::Rust, &parent_file);
    let sibling_mods = file_mods_public(&parent_tree, &parent_file.text);
    let mostly_pub = !sibling_mods.is_empty()
        && sibling_mods.iter().filter(|p| **p).count() * 2 > sibling_mods.len();
    let visibility = if mostly_pub {
        "pub "
    } else if located.source_segments.starts_with(parent_segments) {
        ""
    } else {
        "pub(crate) "
    };
    let decl = format!("{visibility}mod {module};");
    let parent_style = if parent == source {
        m.source_style
    } else {
        TextStyle::detect(&parent_file.text)
    };
    let removals: &[std::ops::Range<usize>] = if parent == source { &m.removals } else { &[] };
    let (at, text) = line_insertion(
        &parent_tree,
        &parent_file.text,
        &decl,
        parent_style.line_ending,
        removals,
        is_file_mod,
        |_| false,
    );
    back.notes.push(Note::new(
        At::Inserted {
            path: parent.clone(),
            at,
            line_text: decl.clone(),
        },
        Severity::Info,
        w::module_declared(&decl, parent, target),
    ));
    if parent == source {
        back.source_inserts.push((at, text));
    } else {
        back.edit_other(&parent_file, crate::edit::TextEdit::insert(at, text));
    }
    back.module_declared = Some(decl);
    Ok(())
}

/// Methods of moved inherent impls that the source still calls become `pub(crate)`, and so do
/// the private fields of moved structs that the source still touches.
fn make_members_reachable(m: &Move<'_>, source_in_target: bool, back: &mut ImportBack) {
    if source_in_target {
        return;
    }
    let text = &m.source.text;
    let parts: Vec<_> = m
        .pieces
        .iter()
        .filter_map(|piece| {
            top_level_node(m.tree, &piece.item).map(|item| (piece, private_parts(item, text)))
        })
        .collect();
    // Only the private members and fields of the moved items are looked up.
    let wanted: Vec<&str> = parts
        .iter()
        .flat_map(|(_, p)| {
            p.members
                .iter()
                .map(|(name, _)| *name)
                .chain(p.fields.iter().copied())
        })
        .collect();
    let (names, fields) = first_uses(m.tree, text, &wanted, |at| m.moves(at));
    for (piece, parts) in parts {
        for (member_name, member) in &parts.members {
            if names.contains_key(member_name)
                && let Some(edit) = widen_visibility(*member, text)
            {
                back.moved_edits.push(edit);
                back.notes.push(Note::new(
                    At::Moved(member.start_byte()),
                    Severity::Info,
                    w::becomes_pub_crate(member_name, &m.source.path),
                ));
            }
        }
        if let Some(tuple_fields) = parts.tuple_fields {
            tuple_fields_note(m, piece, tuple_fields, back);
        }
        for (field_name, start) in parts.fields.iter().zip(&parts.field_starts) {
            if fields.contains_key(field_name) {
                back.moved_edits
                    .push(TextEdit::insert(*start, "pub(crate) "));
                back.notes.push(Note::new(
                    At::Moved(*start),
                    Severity::Info,
                    w::field_becomes_pub_crate(field_name, &piece.name_path, &m.source.path),
                ));
            }
        }
    }
}

/// Macros whose value depends on where the code is: `module_path!()`, `file!()` describe the
/// target after the move; `include_str!("..")` and friends resolve their path from the file.
pub(super) fn location_macro_notes(m: &Move<'_>) -> Vec<Note> {
    let same_dir = parent_dir(&m.source.path) == parent_dir(&m.target_path);
    let mut notes = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    for (name, at) in macro_calls_in(m.tree, &m.source.text, &m.moved_ranges()) {
        let message = match name.as_str() {
            "module_path" | "file" => {
                w::location_macro(&m.symbol.name, &name, &m.target_path, &m.source.path)
            }
            "include_str" | "include_bytes" | "include" if !same_dir => {
                w::include_macro(&m.symbol.name, &name, &m.target_path, &m.source.path)
            }
            _ => continue,
        };
        if !seen.contains(&name) {
            seen.push(name);
            notes.push(Note::new(At::Moved(at), Severity::Warning, message));
        }
    }
    notes
}

/// Traits the moved code calls methods of (`Write` for `f.write_char(..)`), that the source has
/// in scope and the target does not.
pub(super) fn trait_notes(m: &Move<'_>, carried: &std::collections::BTreeSet<String>) -> Vec<Note> {
    let target_text = m.target.map_or("", |t| &*t.text);
    let moved = m.moved_names();
    let mut notes = Vec::new();
    for piece in &m.pieces {
        let needed_here = crate::lang::rust::traits::needed_traits(
            m.tree,
            &m.source.text,
            &piece.item,
            m.target_tree,
            target_text,
        );
        for needed in needed_here
            .into_iter()
            .filter(|n| !moved.contains(&n.trait_name.as_str()) && !carried.contains(&n.trait_name))
        {
            if notes.len() >= MAX_FINDINGS_PER_KIND {
                break;
            }
            notes.push(Note::new(
                At::Moved(needed.at),
                Severity::Warning,
                w::trait_not_in_scope(
                    &m.symbol.name,
                    &needed.method,
                    &needed.trait_name,
                    &m.source.path,
                    file_name(&m.target_path),
                ),
            ));
        }
    }
    notes
}

/// A moved tuple struct with private fields (`struct Wrap<T>(T);`) that the source builds
/// (`Wrap(1)`) or reads by position (`w.0`): its private fields become `pub(crate)`.
fn tuple_fields_note(
    m: &Move<'_>,
    piece: &super::Piece,
    fields: tree_sitter::Node<'_>,
    back: &mut ImportBack,
) {
    if !has_private_tuple_field(fields) {
        return;
    }
    let name = piece
        .name_path
        .rsplit('/')
        .next()
        .unwrap_or(&piece.name_path);
    if tuple_struct_use(m.tree, &m.source.text, name, |at| m.moves(at)).is_some() {
        let starts = private_tuple_field_starts(fields);
        for start in &starts {
            back.moved_edits
                .push(TextEdit::insert(*start, "pub(crate) "));
        }
        if let Some(first) = starts.first() {
            back.notes.push(Note::new(
                At::Moved(*first),
                Severity::Info,
                w::tuple_fields_become_pub_crate(&piece.name_path, &m.source.path),
            ));
        }
    }
}

/// Private members of the source's inherent impls (that stay behind) which the moved code
/// reaches (`Op::DEFAULT`, `Error::new(..)`, `x.helper()`): private to the source module, they
/// are out of reach from the target module.
pub(super) fn private_member_notes(
    m: &Move<'_>,
    widened: &std::collections::BTreeSet<String>,
) -> Vec<Note> {
    let text = &m.source.text;
    // Only a note needs a line number: counted then, not indexed for the whole file up front.
    let line_of = |at: usize| memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count();
    private_members_reached(m)
        .into_iter()
        .filter(|r| !widened.contains(&r.key()))
        .map(|r| {
            Note::new(
                At::Moved(r.at),
                Severity::Warning,
                w::private_member(
                    &m.symbol.name,
                    &r.how,
                    &r.ty,
                    &r.member,
                    &m.source.path,
                    line_of(r.member_at) + 1,
                ),
            )
        })
        .collect()
}

/// A private member of an inherent impl of the source that the moved code reaches.
pub(super) struct PrivateMember {
    pub ty: String,
    pub member: String,
    /// Where the member item starts in the source, and where the moved code reaches it.
    pub member_at: usize,
    pub at: usize,
    /// Reached by its path (`Op::new`): certainly this member; else by a method call of that
    /// name, on a receiver whose type is not known.
    pub by_path: bool,
    pub how: String,
}

impl PrivateMember {
    pub fn key(&self) -> String {
        format!("{}::{}", self.ty, self.member)
    }
}

/// The private members of the source's inherent impls (left in the source) the moved code
/// reaches, once each, in order.
pub(super) fn private_members_reached(m: &Move<'_>) -> Vec<PrivateMember> {
    let text = &m.source.text;
    // (type name, member name, offset of the member) of private members of inherent impls.
    let private = private_impl_members(m.tree, text, |item| !m.moves(item.start_byte()));
    if private.is_empty() {
        return Vec::new();
    }
    let mut reached: Vec<PrivateMember> = Vec::new();
    for (reach, at) in member_uses(m.tree, text, &m.moved_ranges()) {
        let found = match &reach {
            MemberUse::Path(path, name) => private
                .iter()
                .find(|(ty, member, _)| ty == path && member == name)
                .map(|found| (found, w::uses_path(path, name), true)),
            MemberUse::Method(name) => private
                .iter()
                .find(|(_, member, _)| member == name)
                .map(|found| (found, w::calls_method_maybe(name), false)),
        };
        if let Some(((ty, member, member_at), how, by_path)) = found
            && !reached.iter().any(|r| &r.ty == ty && &r.member == member)
        {
            reached.push(PrivateMember {
                ty: ty.clone(),
                member: member.clone(),
                member_at: *member_at,
                at,
                by_path,
                how,
            });
        }
    }
    reached
}

/// Offsets of the uses of `name` left in the source once the moved code is gone.
pub(super) fn remaining_uses(m: &Move<'_>, name: &str) -> Vec<usize> {
    crate::lang::rust::names::uses_outside(m.tree, &m.source.text, name, |at| m.moves(at))
}

/// Names the moved code reads, without those it binds itself, with their first offset (macro
/// names and the leading segment of paths included).
pub(super) fn used_names(m: &Move<'_>) -> Vec<(String, usize)> {
    crate::lang::rust::names::names_used_in(m.tree, &m.source.text, &m.moved_ranges())
}

/// `include_str!`/`include_bytes!`/`include!` read paths relative to the file, and `super::`
/// names the parent module: both change meaning when the code moves to another place.
pub(super) fn file_relative_notes(m: &Move<'_>, paths_made_absolute: bool) -> Vec<Note> {
    let text = &m.source.text;
    let other_dir = parent_dir(&m.source.path) != parent_dir(&m.target_path);
    let parent_module_changes = match find_crate(m.sources, &m.source.path) {
        Some(krate) => match (
            module_segments(&krate, &m.source.path),
            module_segments(&krate, &m.target_path),
        ) {
            (Ok(s), Ok(t)) => s.split_last().map(|(_, p)| p) != t.split_last().map(|(_, p)| p),
            _ => true,
        },
        None => true,
    };
    let mut notes: Vec<Note> = Vec::new();
    for piece in &m.pieces {
        let Some(item) = top_level_node(m.tree, &piece.item) else {
            continue;
        };
        for (found, at) in file_relative(item, text) {
            match found {
                FileRelative::Include(macro_name) if other_dir => notes.push(Note::new(
                    At::Moved(at),
                    Severity::Warning,
                    w::include_path_moves(&macro_name, &m.target_path, &m.source.path),
                )),
                FileRelative::Super
                    if parent_module_changes
                        && !paths_made_absolute
                        && !notes.iter().any(|n| n.message.contains("`super::`")) =>
                {
                    notes.push(Note::new(
                        At::Moved(at),
                        Severity::Warning,
                        w::super_path_moves(&piece.name_path, &m.target_path),
                    ));
                }
                _ => {}
            }
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refactor::MemorySources;

    #[test]
    fn module_segments_follow_the_file_layout() {
        let krate = Crate {
            dir: String::new(),
            name: Some("demo".into()),
        };
        assert_eq!(module_segments(&krate, "src/a/b.rs").unwrap(), ["a", "b"]);
        assert_eq!(module_segments(&krate, "src/a/mod.rs").unwrap(), ["a"]);
        assert!(module_segments(&krate, "src/lib.rs").unwrap().is_empty());
        assert!(module_segments(&krate, "tests/it.rs").is_err());
        assert!(module_segments(&krate, "src/bin/tool.rs").is_err());
        assert!(
            module_segments(&krate, "src/my-mod.rs")
                .unwrap_err()
                .contains("`my-mod`")
        );
        let nested = Crate {
            dir: "crates/core".into(),
            name: None,
        };
        assert_eq!(
            module_segments(&nested, "crates/core/src/x.rs").unwrap(),
            ["x"]
        );
        assert!(module_segments(&nested, "src/x.rs").is_err());
    }

    #[test]
    fn the_nearest_package_manifest_is_the_crate() {
        let sources = MemorySources::new()
            .with("Cargo.toml", "[workspace]\nmembers = [\"crates/*\"]\n")
            .with(
                "crates/my-core/Cargo.toml",
                "[package]\nname = \"my-core\"\n",
            )
            .with("crates/my-core/src/lib.rs", "");
        let krate = find_crate(&sources, "crates/my-core/src/a/b.rs").unwrap();
        assert_eq!(krate.dir, "crates/my-core");
        assert_eq!(krate.name.as_deref(), Some("my_core"));
        assert_eq!(find_crate(&sources, "tools/x.rs"), None);
    }
}
