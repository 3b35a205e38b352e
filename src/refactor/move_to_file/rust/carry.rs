//! Rust: what the moved code needs at the target. A `use` of the source is copied, its path made
//! absolute where it was relative to the source module (`self::`, `super::`, a child module); a
//! name a glob of the source provides (the variants of `use Kind::*`, an item of a module) is
//! imported by name; a trait whose methods the code calls is imported; an item of the source the
//! code reaches is imported from the source, made `pub(crate)` when the target could not see it.
//! `self::`/`super::` paths of the moved code become absolute. Imports the source no longer needs
//! are removed (never a `pub use`, nor a `use` under attributes).

use std::collections::{BTreeMap, BTreeSet};

use super::super::carry::{ImportBack, Removal};
use super::super::wording as w;
use super::super::{At, Move, Note, bindings};
use super::{Place, private_members_reached, remaining_uses, used_names};
use crate::edit::TextEdit;
use crate::lang::Language;
use crate::lang::rust::items::{
    enum_variants, has_private_tuple_field, private_parts, private_tuple_field_starts, struct_name,
    top_level_item,
};
use crate::lang::rust::names::{first_uses, tuple_struct_use};
use crate::lang::rust::traits::{
    calls_any_method, methods_of_trait, needed_traits_with, std_trait_methods,
};
use crate::lang::rust::use_edits::{
    UseLeaf, attributes_of, leaves_removal, relative_heads, top_level_leaves, visibility_of,
    visibility_range,
};
use crate::lang::syntax::Binding;
use crate::refactor::{RefactorError, Severity};

/// The `use` statements the target gets: grouped by the path before their last segment, in the
/// order first needed; a leaf under attributes (`#[cfg(..)]`) keeps them, on a line of its own.
#[derive(Debug, Default)]
struct Uses {
    groups: Vec<(Vec<String>, Vec<String>)>,
    with_attributes: Vec<String>,
}

impl Uses {
    fn add(&mut self, path: &[String], alias: Option<&str>, attributes: &[&str]) {
        let Some((last, prefix)) = path.split_last() else {
            return;
        };
        let item = match alias {
            Some(alias) => format!("{last} as {alias}"),
            None => last.clone(),
        };
        if !attributes.is_empty() {
            let statement = format!(
                "{}\nuse {}::{item};",
                attributes.join("\n"),
                prefix.join("::")
            );
            if !self.with_attributes.contains(&statement) {
                self.with_attributes.push(statement);
            }
            return;
        }
        match self.groups.iter_mut().find(|(p, _)| p == prefix) {
            Some((_, items)) if !items.contains(&item) => items.push(item),
            Some(_) => {}
            None => self.groups.push((prefix.to_vec(), vec![item])),
        }
    }

    /// The statements: paths of other crates first, then those of this crate, each in the
    /// order first needed; those under attributes last.
    fn lines(mut self) -> Vec<String> {
        self.groups
            .sort_by_key(|(prefix, _)| prefix.first().is_some_and(|p| p == "crate"));
        let mut lines: Vec<String> = self
            .groups
            .into_iter()
            .map(|(prefix, items)| match items.as_slice() {
                [one] => format!("use {}::{one};", prefix.join("::")),
                _ => format!("use {}::{{{}}};", prefix.join("::"), items.join(", ")),
            })
            .collect();
        lines.extend(self.with_attributes);
        lines
    }
}

/// What one move needs to know while carrying.
struct Carrier<'a, 'm> {
    m: &'a Move<'m>,
    place: Place,
    source_bindings: Vec<Binding>,
    target_bound: BTreeSet<String>,
    leaves: Vec<UseLeaf<'a>>,
    uses: Uses,
    /// Leaves copied to the target (with the name they were copied for), and the trait methods
    /// they serve when they were copied for a trait.
    copied: Vec<(String, UseLeaf<'a>, Option<BTreeSet<String>>)>,
}

/// Fills `back` with the imports the target needs and the source no longer needs, and makes the
/// moved code's paths absolute.
pub fn carry(m: &Move<'_>, back: &mut ImportBack) -> Result<(), RefactorError> {
    let Some(place) = Place::of(m) else {
        return Ok(());
    };
    let text = &m.source.text;
    let target_bound = match (m.target, m.target_tree) {
        (Some(t), Some(tree)) => bindings(m.lang, tree, &t.text)
            .into_iter()
            .map(|b| b.name)
            .collect(),
        _ => BTreeSet::new(),
    };
    let mut carrier = Carrier {
        m,
        place,
        source_bindings: bindings(m.lang, m.tree, text),
        target_bound,
        leaves: top_level_leaves(m.tree, text),
        uses: Uses::default(),
        copied: Vec::new(),
    };
    let mut siblings: Vec<(String, usize)> = Vec::new();
    for needed in m.needed_from_source() {
        if needed.binding.imported {
            if carrier.copy_leaf(&needed.name, None) {
                back.carried.insert(needed.name.clone());
                back.summary.imported.push(needed.name);
            }
        } else if top_level_item(m.tree, text, &needed.name)
            .is_some_and(|i| i.kind() != "macro_definition")
        {
            siblings.push((needed.name, needed.at));
        }
    }
    carrier.glob_provided(back);
    carrier.traits(back, &mut siblings);
    let visible_only = carrier.make_paths_absolute(back);
    carrier.import_siblings(back, &siblings, &visible_only);
    widen_members(m, back);
    widen_staying_fields(m, back);
    let Carrier { uses, copied, .. } = carrier;
    for line in uses.lines() {
        let first = line.lines().last().unwrap_or(&line).to_string();
        back.notes.push(Note::new(
            At::Inserted {
                path: m.target_path.clone(),
                at: 0,
                line_text: first,
            },
            Severity::Info,
            w::target_import_added(&line, &m.symbol.name),
        ));
        back.target_imports.push(line);
    }
    remove_unneeded(m, back, copied);
    Ok(())
}

impl<'a, 'm> Carrier<'a, 'm> {
    /// A path of a `use` of the source, written from the crate root when it was relative to the
    /// source module; as written when it starts from another crate.
    fn absolute(&self, path: &[String], depth: usize) -> Option<Vec<String>> {
        let (first, rest) = path.split_first()?;
        let source = &self.place.source;
        let mut out = vec!["crate".to_string()];
        match first.as_str() {
            "crate" => return Some(path.to_vec()),
            "self" => out.extend(source.iter().cloned()),
            "super" => {
                let ups = path.iter().take_while(|s| *s == "super").count();
                let keep = source.len().checked_sub(ups)?;
                out.extend(source[..keep].iter().cloned());
                out.extend(path[ups..].iter().cloned());
                return Some(out);
            }
            _ => {
                let binding = self.source_bindings.iter().find(|b| &b.name == first);
                match binding {
                    Some(b) if !b.imported => out.extend(source.iter().cloned()),
                    // `use std::fmt; use fmt::Write;`: through the source's own import of it.
                    Some(b) if b.imported && depth == 0 => {
                        let leaf = self
                            .leaves
                            .iter()
                            .find(|l| l.bound_name().as_deref() == Some(first))?;
                        let mut base = self.absolute(&leaf.path, depth + 1)?;
                        if base.last().is_some_and(|l| l == "self") {
                            base.pop();
                        }
                        base.extend(rest.iter().cloned());
                        return Some(base);
                    }
                    _ => return Some(path.to_vec()),
                }
                out.push(first.clone());
            }
        }
        out.extend(rest.iter().cloned());
        Some(out)
    }

    /// Whether an absolute path names an item of the target module itself.
    fn in_target(&self, path: &[String]) -> bool {
        path.len() == self.place.target.len() + 2
            && path[0] == "crate"
            && path[1..path.len() - 1] == self.place.target[..]
    }

    /// Copies the source's `use` leaf that binds `name` (or, for a trait imported `as _`, whose
    /// path ends with it); `methods`: the trait methods it is copied for.
    fn copy_leaf(&mut self, name: &str, methods: Option<BTreeSet<String>>) -> bool {
        let m = self.m;
        let Some(leaf) = self
            .leaves
            .iter()
            .find(|l| {
                !m.moves(l.declaration.start_byte())
                    && (l.bound_name().as_deref() == Some(name)
                        || (methods.is_some() && l.path.last().is_some_and(|p| p == name)))
            })
            .cloned()
        else {
            return false;
        };
        let Some(mut path) = self.absolute(&leaf.path, 0) else {
            return false;
        };
        if path.last().is_some_and(|l| l == "self") {
            path.pop();
        }
        if self.in_target(&path) {
            return false;
        }
        let attributes = attributes_of(leaf.declaration, &m.source.text);
        self.uses.add(&path, leaf.alias.as_deref(), &attributes);
        self.copied.push((name.to_string(), leaf, methods));
        true
    }

    /// Names the moved code uses that nothing in the source binds but a glob of it provides:
    /// the variants of an enum (`use Kind::*`), the items of a module of the crate.
    fn glob_provided(&mut self, back: &mut ImportBack) {
        let m = self.m;
        let moved = m.moved_names();
        let globs: Vec<Vec<String>> = self
            .leaves
            .iter()
            .filter(|l| l.is_glob() && !m.moves(l.declaration.start_byte()))
            .filter_map(|l| self.absolute(&l.path[..l.path.len() - 1], 0))
            .filter(|p| p.first().is_some_and(|f| f == "crate"))
            .collect();
        if globs.is_empty() {
            return;
        }
        let mut provided_by: BTreeMap<Vec<String>, BTreeSet<String>> = BTreeMap::new();
        for glob in &globs {
            provided_by.insert(glob.clone(), self.provided(glob));
        }
        for (name, _) in used_names(m) {
            if moved.contains(&name.as_str())
                || self.source_bindings.iter().any(|b| b.name == name)
                || self.target_bound.contains(&name)
                || back.carried.contains(&name)
            {
                continue;
            }
            if let Some((glob, _)) = provided_by.iter().find(|(_, names)| names.contains(&name)) {
                let mut path = glob.clone();
                path.push(name.clone());
                if !self.in_target(&path) {
                    self.uses.add(&path, None, &[]);
                    back.carried.insert(name.clone());
                    back.summary.imported.push(name);
                }
            }
        }
    }

    /// The names `use <path>::*` brings: an enum's variants, or a module's top-level items.
    fn provided(&self, path: &[String]) -> BTreeSet<String> {
        let m = self.m;
        let segments = &path[1..];
        let read = |segments: &[String]| -> Option<(String, tree_sitter::Tree, String)> {
            let file_path = self.place.file_of(m, segments)?;
            let file = m.sources.file(&file_path).ok()??;
            let tree = crate::refactor::tree_of(m.sources, Language::Rust, &file);
            Some((file_path, tree, file.text.to_string()))
        };
        if let Some((_, tree, text)) = read(segments) {
            return bindings(Language::Rust, &tree, &text)
                .into_iter()
                .filter(|b| b.public || b.imported)
                .map(|b| b.name)
                .collect();
        }
        if let Some((enum_name, module)) = segments.split_last()
            && let Some((_, tree, text)) = read(module)
        {
            return enum_variants(&tree, &text, enum_name)
                .unwrap_or_default()
                .into_iter()
                .collect();
        }
        BTreeSet::new()
    }

    /// The traits whose methods the moved code calls and the target has no name for: imported
    /// where the source imports them, from the source where it defines them.
    fn traits(&mut self, back: &mut ImportBack, siblings: &mut Vec<(String, usize)>) {
        let m = self.m;
        let extra = self.crate_traits();
        let target_text = m.target.map_or("", |t| &*t.text);
        let moved = m.moved_names();
        for piece in &m.pieces {
            let needed = needed_traits_with(
                m.tree,
                &m.source.text,
                &piece.item,
                m.target_tree,
                target_text,
                &extra,
            );
            for trait_needed in needed {
                let name = trait_needed.trait_name;
                if moved.contains(&name.as_str()) || back.carried.contains(&name) {
                    continue;
                }
                let defined = self
                    .source_bindings
                    .iter()
                    .any(|b| b.name == name && !b.imported && !m.moves(b.offset));
                if defined {
                    if !siblings.iter().any(|(s, _)| *s == name) {
                        siblings.push((name, trait_needed.at));
                    }
                    continue;
                }
                let methods = extra
                    .iter()
                    .find(|(n, _)| *n == name)
                    .map(|(_, methods)| methods.clone())
                    .or_else(|| std_trait_methods(&name));
                if self.copy_leaf(&name, methods.or_else(|| Some(BTreeSet::new()))) {
                    back.carried.insert(name.clone());
                    back.summary.imported.push(name);
                }
            }
        }
    }

    /// Traits of the crate the source imports (found in their own files), with their methods.
    fn crate_traits(&self) -> Vec<(String, BTreeSet<String>)> {
        let m = self.m;
        let mut found = Vec::new();
        for leaf in &self.leaves {
            let Some(name) = leaf.path.last().filter(|n| *n != "*" && *n != "self") else {
                continue;
            };
            let Some(path) = self.absolute(&leaf.path, 0) else {
                continue;
            };
            if path.first().is_none_or(|f| f != "crate") || std_trait_methods(name).is_some() {
                continue;
            }
            let Some(file_path) = self.place.file_of(m, &path[1..path.len() - 1]) else {
                continue;
            };
            let Ok(Some(file)) = m.sources.file(&file_path) else {
                continue;
            };
            let tree = crate::refactor::tree_of(m.sources, Language::Rust, &file);
            if let Some(methods) = methods_of_trait(&tree, &file.text, name) {
                found.push((name.clone(), methods));
            }
        }
        found
    }

    /// `self::x` and `super::x` in the moved code become `crate::…::x` (from the target they
    /// would name other modules); returns the items of the source reached that way, which must
    /// be visible from the target.
    fn make_paths_absolute(&self, back: &mut ImportBack) -> Vec<String> {
        let m = self.m;
        let moved = m.moved_names();
        let mut reached = Vec::new();
        for head in relative_heads(m.tree, &m.source.text, &m.moved_ranges()) {
            let source = &self.place.source;
            let module: Vec<String> = if head.segments == ["self"] {
                source.clone()
            } else {
                let Some(keep) = source.len().checked_sub(head.segments.len()) else {
                    continue;
                };
                source[..keep].to_vec()
            };
            let next_moves = head.next.as_deref().is_some_and(|n| moved.contains(&n));
            let module = if module == *source && next_moves {
                self.place.target.clone()
            } else {
                module
            };
            if module == *source
                && let Some(next) = &head.next
                && !reached.contains(next)
            {
                reached.push(next.clone());
            }
            let mut path = vec!["crate".to_string()];
            path.extend(module);
            back.moved_edits
                .push(TextEdit::new(head.range.clone(), path.join("::")));
            back.summary.paths_made_absolute += 1;
        }
        reached
    }

    /// Imports the source's items the moved code names (`use crate::source::{a, b};`) and
    /// makes them and `visible_only` reachable from the target.
    fn import_siblings(
        &mut self,
        back: &mut ImportBack,
        siblings: &[(String, usize)],
        visible_only: &[String],
    ) {
        let m = self.m;
        let text = &m.source.text;
        let mut module = vec!["crate".to_string()];
        module.extend(self.place.source.iter().cloned());
        let names = siblings
            .iter()
            .map(|(n, _)| n.as_str())
            .chain(visible_only.iter().map(String::as_str));
        for (index, name) in names.enumerate() {
            let Some(item) = top_level_item(m.tree, text, name) else {
                continue;
            };
            if !self.visible_from_target(item, text) {
                let edit = match visibility_range(item) {
                    Some(range) => TextEdit::new(range, "pub(crate)"),
                    None => TextEdit::insert(item.start_byte(), "pub(crate) "),
                };
                back.source_edits.push(edit);
                back.notes.push(Note::new(
                    At::Source(item.start_byte()),
                    Severity::Info,
                    w::sibling_becomes_pub_crate(name, &m.target_path),
                ));
            }
            if index < siblings.len() {
                let mut path = module.clone();
                path.push(name.to_string());
                self.uses.add(&path, None, &[]);
                back.carried.insert(name.to_string());
                back.summary.from_source.push(name.to_string());
            }
        }
    }

    /// Whether the target module can see `item` of the source as it is declared.
    fn visible_from_target(&self, item: tree_sitter::Node<'_>, text: &str) -> bool {
        let source = &self.place.source;
        let target = &self.place.target;
        let visibility =
            visibility_of(item, text).map(|v| v.split_whitespace().collect::<String>());
        match visibility.as_deref() {
            None | Some("pub(self)") => target.starts_with(source),
            Some("pub") | Some("pub(crate)") | Some("crate") => true,
            Some("pub(super)") => source
                .split_last()
                .is_some_and(|(_, parent)| target.starts_with(parent)),
            Some(other) => {
                // `pub(in crate::a)`: visible under that module.
                let inner = other
                    .trim_start_matches("pub(in")
                    .trim_end_matches(')')
                    .to_string();
                let path: Vec<String> = inner.split("::").map(str::to_string).collect();
                self.absolute(&path, 1)
                    .is_some_and(|p| target.starts_with(&p[1..]))
            }
        }
    }
}

/// The private members of the source's impls that the moved code reaches by path (`Op::new`)
/// become `pub(crate)`; those reached only by a method call of that name stay findings (the
/// receiver's type is not known).
fn widen_members(m: &Move<'_>, back: &mut ImportBack) {
    for member in private_members_reached(m) {
        if !member.by_path {
            continue;
        }
        back.source_edits
            .push(TextEdit::insert(member.member_at, "pub(crate) "));
        back.notes.push(Note::new(
            At::Source(member.member_at),
            Severity::Info,
            w::sibling_becomes_pub_crate(&member.key(), &m.target_path),
        ));
        back.carried.insert(member.key());
    }
}

/// The private fields of structs that stay in the source and that the moved code builds or
/// reads (`Pair(a, b)`, `p.1`, `s.name`, `S { name }`) become `pub(crate)`: private to the source
/// module, the target could not reach them. A field reached through a receiver whose type is
/// not known is matched by its name or position, so a same-named field may be widened too.
fn widen_staying_fields(m: &Move<'_>, back: &mut ImportBack) {
    let text = &m.source.text;
    let inside = |at: usize| !m.moves(at);
    let root = m.tree.root_node();
    for item in root.named_children(&mut root.walk()) {
        if m.moves(item.start_byte()) {
            continue;
        }
        let parts = private_parts(item, text);
        let Some(name) = struct_name(item, text) else {
            continue;
        };
        if let Some(fields) = parts.tuple_fields
            && has_private_tuple_field(fields)
            && tuple_struct_use(m.tree, text, name, inside).is_some()
        {
            for start in private_tuple_field_starts(fields) {
                back.source_edits
                    .push(TextEdit::insert(start, "pub(crate) "));
            }
            back.notes.push(Note::new(
                At::Source(fields.start_byte()),
                Severity::Info,
                w::staying_tuple_fields_become_pub_crate(name, &m.target_path),
            ));
        }
        if parts.fields.is_empty() {
            continue;
        }
        let (_, used) = first_uses(m.tree, text, &parts.fields, inside);
        for (field, start) in parts.fields.iter().zip(&parts.field_starts) {
            if used.contains_key(field) {
                back.source_edits
                    .push(TextEdit::insert(*start, "pub(crate) "));
                back.notes.push(Note::new(
                    At::Source(*start),
                    Severity::Info,
                    w::staying_field_becomes_pub_crate(field, name, &m.target_path),
                ));
            }
        }
    }
}

/// Removes the copied leaves the source no longer uses: not a `pub use` (a re-export) nor a
/// `use` under attributes; a trait only when none of its known methods is called any more.
fn remove_unneeded(
    m: &Move<'_>,
    back: &mut ImportBack,
    copied: Vec<(String, UseLeaf<'_>, Option<BTreeSet<String>>)>,
) {
    let text = &m.source.text;
    let mut by_declaration: Vec<(UseLeaf<'_>, Vec<(String, tree_sitter::Node<'_>)>)> = Vec::new();
    for (name, leaf, methods) in copied {
        let declaration = leaf.declaration;
        if visibility_of(declaration, text).is_some()
            || !attributes_of(declaration, text).is_empty()
        {
            continue;
        }
        let still_used = match (&methods, leaf.bound_name()) {
            (Some(methods), _) if methods.is_empty() => true,
            (Some(methods), bound) => {
                calls_any_method(m.tree, text, methods, |at| m.moves(at))
                    || bound.is_some_and(|b| !remaining_uses(m, &b).is_empty())
            }
            (None, Some(bound)) => !remaining_uses(m, &bound).is_empty(),
            (None, None) => true,
        };
        if still_used {
            continue;
        }
        match by_declaration
            .iter_mut()
            .find(|(l, _)| l.declaration.id() == declaration.id())
        {
            Some((_, gone)) => gone.push((name, leaf.node)),
            None => by_declaration.push((leaf.clone(), vec![(name, leaf.node)])),
        }
    }
    for (leaf, gone) in by_declaration {
        let nodes: Vec<tree_sitter::Node<'_>> = gone.iter().map(|(_, n)| *n).collect();
        let names: Vec<&str> = gone.iter().map(|(n, _)| n.as_str()).collect();
        back.source_removals.push(Removal {
            wide: leaves_removal(text, leaf.declaration, &nodes, false),
            narrow: leaves_removal(text, leaf.declaration, &nodes, true),
        });
        back.notes.push(Note::new(
            At::Source(leaf.declaration.start_byte()),
            Severity::Info,
            w::source_import_removed(&names, &m.source.path),
        ));
        back.summary
            .removed
            .extend(names.iter().map(|n| n.to_string()));
    }
}
