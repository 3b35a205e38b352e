//! Rust side of move to file: crates and module paths (`src/a/b.rs` is `crate::a::b`, reached
//! through `mod` declarations from `src/lib.rs` or `src/main.rs`), the `mod` declaration a new
//! module needs, the `use crate::…` added back to the source, the visibility the moved item needs
//! to stay reachable, the impl blocks that travel with a type, and the paths to the old location
//! found in other files.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use super::{At, Binding, ImportBack, MAX_FINDINGS_PER_KIND, Move, Note, parent_dir};
use crate::edit::TextEdit;
use crate::lang::symbols::{Symbol, SymbolKind, leading_trivia_start};
use crate::lang::{Language, node_text, walk_node, walk_tree};
use crate::lang::{holding, up_from, walk_tree_with_ancestors};
use crate::refactor::{RefactorError, Severity, Sources};
use crate::text::{LineIndex, TextStyle};

/// Item kinds whose `name` field is a definition.
const DEFINITIONS: &[&str] = &[
    "function_item",
    "function_signature_item",
    "struct_item",
    "enum_item",
    "union_item",
    "enum_variant",
    "const_item",
    "static_item",
    "type_item",
    "trait_item",
    "mod_item",
    "macro_definition",
    "associated_type",
];

fn top_level_node<'t>(tree: &'t Tree, range: &std::ops::Range<usize>) -> Option<Node<'t>> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .find(|n| n.byte_range() == *range)
}

/// Refuses what cannot move as a plain item: `macro_rules!` (scoped by text position, not path)
/// and `mod name;` (its file is found from the declaring file's place).
pub(super) fn check_movable(symbol: &Symbol, tree: &Tree) -> Result<(), RefactorError> {
    match symbol.kind {
        SymbolKind::Macro => Err(RefactorError::Unsupported(format!(
            "`{}` is a `macro_rules!` macro: macros are visible by their textual position, not by module path, so moving one needs `#[macro_use]` or `#[macro_export]` changes the heuristic does not make; move it by hand",
            symbol.name
        ))),
        SymbolKind::Module => {
            let has_body = top_level_node(tree, &symbol.range)
                .is_some_and(|n| n.child_by_field_name("body").is_some());
            if has_body {
                Ok(())
            } else {
                Err(RefactorError::Unsupported(format!(
                    "`mod {};` only declares a module whose file Rust finds next to the declaring file; moving the declaration would make Rust look for that file elsewhere. Move the module's file instead",
                    symbol.name
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
struct Crate {
    dir: String,
    /// The package name with `-` as `_`, as other crates of the package spell it.
    name: Option<String>,
}

impl Crate {
    fn join(&self, relative: &str) -> String {
        if self.dir.is_empty() {
            relative.to_string()
        } else {
            format!("{}/{relative}", self.dir)
        }
    }

    fn src(&self) -> String {
        self.join("src")
    }
}

/// The nearest `Cargo.toml` with a `[package]` above `path`.
fn find_crate(sources: &dyn Sources, path: &str) -> Option<Crate> {
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
fn module_segments(krate: &Crate, path: &str) -> Result<Vec<String>, String> {
    let src = format!("{}/", krate.src());
    let Some(relative) = path.strip_prefix(&src) else {
        return Err(format!(
            "is outside `{src}`, where the crate's modules live"
        ));
    };
    if relative == "lib.rs" || relative == "main.rs" {
        return Ok(Vec::new());
    }
    if relative.starts_with("bin/") {
        return Err("is under `src/bin/`, which holds separate binary crates".to_string());
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
        return Err(format!(
            "has `{bad}` in its path, which is not a valid Rust module name"
        ));
    }
    if segments.is_empty() {
        return Err("is not a module file".to_string());
    }
    Ok(segments)
}

fn exists(sources: &dyn Sources, path: &str) -> bool {
    matches!(sources.file(path), Ok(Some(_)))
}

/// The file of module `segments` of the crate whose root file is `root`.
fn module_file(
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

/// A `mod name;` (or `mod name { … }`) at the top level of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ModDecl {
    /// Any visibility that reaches beyond the declaring module (`pub`, `pub(crate)`, …).
    public: bool,
    /// Plain `pub`: reachable from other crates when its parents are.
    exported: bool,
    inline: bool,
}

fn find_mod_decl(tree: &Tree, text: &str, name: &str) -> Option<ModDecl> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| n.kind() == "mod_item")
        .find(|n| {
            n.child_by_field_name("name")
                .is_some_and(|x| node_text(x, text) == name)
        })
        .map(|n| ModDecl {
            public: is_visible(n, text),
            exported: visibility(n).is_some_and(|v| node_text(v, text) == "pub"),
            inline: n.child_by_field_name("body").is_some(),
        })
}

/// Whether an item has a visibility that reaches beyond its module (`pub`, `pub(crate)`, …).
fn is_visible(item: Node<'_>, text: &str) -> bool {
    visibility(item).is_some_and(|v| node_text(v, text).replace(' ', "") != "pub(self)")
}

fn visibility(item: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = item.walk();
    item.named_children(&mut cursor)
        .find(|c| c.kind() == "visibility_modifier")
}

/// The declarations of modules `segments` from `root` down, with the file holding each.
fn declarations(
    sources: &dyn Sources,
    krate: &Crate,
    root: &str,
    segments: &[String],
) -> Result<Vec<(String, ModDecl)>, String> {
    let mut found = Vec::new();
    for (depth, segment) in segments.iter().enumerate() {
        let parent = module_file(sources, krate, root, &segments[..depth]).ok_or_else(|| {
            format!(
                "neither `{0}/{1}.rs` nor `{0}/{1}/mod.rs` exists to declare `mod {segment};`",
                krate.src(),
                segments[..depth].join("/")
            )
        })?;
        let Ok(Some(file)) = sources.file(&parent) else {
            return Err(format!("{parent} cannot be read"));
        };
        let tree = crate::refactor::tree_of(sources, Language::Rust, &file);
        let decl = find_mod_decl(&tree, &file.text, segment)
            .ok_or_else(|| format!("{parent} does not declare `mod {segment};`"))?;
        if decl.inline {
            return Err(format!(
                "`mod {segment}` has a body in {parent}, so no file provides that module"
            ));
        }
        found.push((parent, decl));
    }
    Ok(found)
}

/// Where the source and the target sit in their crate.
struct Located {
    source_segments: Vec<String>,
    target_segments: Vec<String>,
    /// Existing declarations along the target's path (file, declaration).
    chain: Vec<(String, ModDecl)>,
    /// The file that must declare the target module, when it does not yet.
    undeclared_in: Option<String>,
    /// Whether the source module is public API: a library root, or reached from it through
    /// `pub mod` declarations only.
    source_is_api: bool,
    /// The name other crates use for this one.
    crate_name: Option<String>,
}

fn locate(m: &Move<'_>) -> Result<Located, String> {
    let source = &m.source.path;
    let target = &m.target_path;
    let krate = find_crate(m.sources, source).ok_or_else(|| {
        format!("{source} is not in a Cargo package (no Cargo.toml with [package] above it)")
    })?;
    if find_crate(m.sources, target).as_ref().map(|k| &k.dir) != Some(&krate.dir) {
        return Err(format!(
            "{target} is not in the same Cargo package as {source}"
        ));
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
            .ok_or_else(|| {
                format!(
                    "{source} is not declared as a module of the crate (no chain of `mod` declarations from {0}/lib.rs or {0}/main.rs reaches it)",
                    krate.src()
                )
            })?
    };
    let source_is_api = root.ends_with("lib.rs")
        && declarations(m.sources, &krate, &root, &source_segments)
            .is_ok_and(|chain| chain.iter().all(|(_, d)| d.public));
    if target_segments.is_empty() {
        if *target != root {
            return Err(format!(
                "{target} is the root of another crate than {source} (whose root is {root})"
            ));
        }
        return Ok(Located {
            source_segments,
            target_segments,
            chain: Vec::new(),
            undeclared_in: None,
            source_is_api,
            crate_name: krate.name,
        });
    }
    let (last, parents) = target_segments.split_last().ok_or("empty module path")?;
    let mut chain = declarations(m.sources, &krate, &root, parents)?;
    let parent = module_file(m.sources, &krate, &root, parents).ok_or_else(|| {
        format!(
            "neither `{0}/{1}.rs` nor `{0}/{1}/mod.rs` exists to declare `mod {last};`",
            krate.src(),
            parents.join("/")
        )
    })?;
    let parent_file = m
        .sources
        .file(&parent)
        .ok()
        .flatten()
        .ok_or_else(|| format!("{parent} cannot be read"))?;
    let tree = crate::refactor::tree_of(m.sources, Language::Rust, &parent_file);
    let undeclared_in = match find_mod_decl(&tree, &parent_file.text, last) {
        Some(decl) if decl.inline => {
            return Err(format!(
                "`mod {last}` has a body in {parent}, so {target} would not be used"
            ));
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
    })
}

fn crate_path(segments: &[String], name: &str) -> String {
    let mut path = vec!["crate"];
    path.extend(segments.iter().map(String::as_str));
    path.push(name);
    path.join("::")
}

/// The `mod`/`use` line insertion: joining the group of the last top-level node `in_group`
/// accepts, else starting a group after the last one `after` accepts, else after the file's
/// header (inner attributes, `//!` docs, `extern crate`), else at the top; a new group is set
/// apart by blank lines from the code around it once `removals` are gone.
fn line_insertion(
    tree: &Tree,
    text: &str,
    line: &str,
    line_ending: &str,
    removals: &[std::ops::Range<usize>],
    in_group: impl Fn(Node<'_>) -> bool,
    after: impl Fn(Node<'_>) -> bool,
) -> (usize, String) {
    let index = LineIndex::new(text);
    let root = tree.root_node();
    let mut cursor = root.walk();
    let children: Vec<Node<'_>> = root.named_children(&mut cursor).collect();
    let end_of_line = |node: Node<'_>| {
        index.line_start(index.line_of(node.end_byte().max(node.start_byte() + 1) - 1) + 1)
    };
    let missing_newline = |at: usize| {
        if at == text.len() && !text.is_empty() && !text.ends_with('\n') {
            line_ending
        } else {
            ""
        }
    };
    let next_is_blank = |at: usize| {
        let (blanks, next) = super::blank_lines_from(text, at, removals);
        blanks > 0 || next.is_none()
    };
    if let Some(anchor) = children.iter().rev().find(|n| in_group(**n)) {
        let at = end_of_line(*anchor);
        return (at, format!("{}{line}{line_ending}", missing_newline(at)));
    }
    let header = children
        .iter()
        .take_while(|n| match n.kind() {
            "inner_attribute_item" | "extern_crate_declaration" => true,
            "line_comment" | "block_comment" => {
                let t = node_text(**n, text);
                t.starts_with("//!") || t.starts_with("/*!")
            }
            _ => false,
        })
        .last();
    let previous_group = children.iter().rev().find(|n| after(**n)).or(header);
    if let Some(last) = previous_group {
        let at = end_of_line(*last);
        let after = if next_is_blank(at) { "" } else { line_ending };
        return (
            at,
            format!(
                "{}{line_ending}{line}{line_ending}{after}",
                missing_newline(at)
            ),
        );
    }
    let after = if next_is_blank(0) { "" } else { line_ending };
    (0, format!("{line}{line_ending}{after}"))
}

fn is_file_mod(node: Node<'_>) -> bool {
    node.kind() == "mod_item" && node.child_by_field_name("body").is_none()
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
                    format!(
                        "could not add an import of `{name}` to {source}, which still uses it here: {reason}; import it by hand"
                    ),
                )),
                _ => back.notes.push(Note::new(
                    At::Moved(m.symbol.range.start),
                    Severity::Warning,
                    format!("could not check that {target} is a module of the crate: {reason}"),
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
                format!(
                    "`mod {}` is private in {file}, so {source} cannot reach `{}`; make it `pub(crate) mod {}`",
                    located.target_segments[depth],
                    crate_path(&located.target_segments[..=depth], "").trim_end_matches("::"),
                    located.target_segments[depth]
                ),
            ));
        }
    }

    if let Some(parent) = &located.undeclared_in {
        let module = located.target_segments.last().cloned().unwrap_or_default();
        let parent_segments = &located.target_segments[..located.target_segments.len() - 1];
        let parent_file = if parent == source {
            m.source.clone()
        } else {
            m.sources
                .file(parent)?
                .ok_or_else(|| super::internal("the parent module file vanished"))?
        };
        let parent_tree = crate::refactor::tree_of(m.sources, Language::Rust, &parent_file);
        let sibling_mods: Vec<bool> = {
            let root = parent_tree.root_node();
            let mut cursor = root.walk();
            root.named_children(&mut cursor)
                .filter(|n| is_file_mod(*n))
                .map(|n| visibility(n).is_some_and(|v| node_text(v, &parent_file.text) == "pub"))
                .collect()
        };
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
            format!(
                "declared `{decl}` in {parent} so that {target} is compiled as part of the crate"
            ),
        ));
        if parent == source {
            back.source_inserts.push((at, text));
        } else {
            back.other_inserts.push((parent_file, vec![(at, text)]));
        }
        back.module_declared = Some(decl);
    }

    // A `pub` item of a library's public module leaves the public API when its new module
    // cannot be reached from other crates.
    if let (Some(name), Some(item)) = (name, top_level_node(m.tree, &m.symbol.range)) {
        let item_is_pub = visibility(item).is_some_and(|v| node_text(v, &m.source.text) == "pub");
        let mut exported = located
            .chain
            .iter()
            .map(|(_, d)| d.exported)
            .collect::<Vec<_>>();
        if let Some(decl) = &back.module_declared {
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
        if item_is_pub && located.source_is_api {
            let message = match hidden_by {
                Some(module) => format!(
                    "`{name}` was public API at `{old_path}`; at `{new_path}` other crates cannot reach it because `mod {module}` is not `pub`: re-export it with `pub use` or make the module `pub`"
                ),
                None => format!(
                    "`{name}` was public API at `{old_path}`; other crates now reach it at `{new_path}` (re-export it with `pub use` to keep the old path)"
                ),
            };
            back.notes.push(Note::new(
                At::Moved(item.start_byte()),
                Severity::Warning,
                message,
            ));
        }
    }

    let Some(name) = name else {
        back.notes.push(Note::new(
            At::Moved(m.symbol.range.start),
            Severity::Info,
            "an impl block needs no import; it applies wherever its type is visible",
        ));
        make_members_reachable(m, source_in_target, &mut back);
        return Ok(back);
    };
    if uses.is_empty() {
        back.notes.push(Note::new(
            At::Source(m.pieces[0].bytes.start),
            Severity::Info,
            format!("{source} no longer uses `{name}` once it has moved; no import added"),
        ));
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
            format!("`{name}` becomes `pub(crate)`: {source} still uses it from another module"),
        ));
    }
    make_members_reachable(m, source_in_target, &mut back);

    let path = crate_path(&located.target_segments, name);
    let imported = bindings(m.tree, &m.source.text)
        .iter()
        .any(|b| b.name == name && b.imported)
        && use_paths(m.tree, &m.source.text)
            .iter()
            .any(|(p, alias, _)| p.join("::") == path && alias.is_none());
    if imported {
        back.notes.push(Note::new(
            At::Source(uses[0]),
            Severity::Info,
            format!("{source} already imports `{path}`; no import added"),
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
        |n| n.kind() == "use_declaration",
        is_file_mod,
    );
    back.source_inserts.push((at, text));
    let more = if uses.len() > 1 {
        format!(" ({} uses)", uses.len())
    } else {
        String::new()
    };
    back.notes.push(Note::new(
        At::Inserted {
            path: source.clone(),
            at,
            line_text: statement.clone(),
        },
        Severity::Info,
        format!("added `{statement}`: {source} still uses `{name}`{more}"),
    ));
    back.import_added = Some(statement);
    Ok(back)
}

/// `pub(crate) ` before an item without visibility (or instead of `pub(self)`).
fn widen_visibility(item: Node<'_>, text: &str) -> Option<TextEdit> {
    match visibility(item) {
        Some(v) if node_text(v, text).replace(' ', "") == "pub(self)" => {
            Some(TextEdit::new(v.byte_range(), "pub(crate)"))
        }
        Some(_) => None,
        None => Some(TextEdit::insert(item.start_byte(), "pub(crate) ")),
    }
}

/// Methods of moved inherent impls that the source still calls become `pub(crate)`; private
/// fields of moved structs that the source still touches get a warning.
fn make_members_reachable(m: &Move<'_>, source_in_target: bool, back: &mut ImportBack) {
    if source_in_target {
        return;
    }
    let text = &m.source.text;
    // Only the private members and fields of the moved items are looked up below; a node whose
    // text holds none of their names holds no occurrence of them and is not entered.
    let wanted = private_member_names(m);
    let finders: Vec<memchr::memmem::Finder<'_>> = wanted
        .iter()
        .map(|w| memchr::memmem::Finder::new(w.as_bytes()))
        .collect();
    // First offset of each name (as a path or method name, and as a field) outside the moved code.
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut fields: HashMap<&str, usize> = HashMap::new();
    walk_tree(m.tree, |node| {
        let kind = node.kind();
        let relevant = matches!(
            kind,
            "identifier" | "field_identifier" | "shorthand_field_identifier"
        );
        if relevant && !m.moves(node.start_byte()) {
            let name = node_text(node, text);
            if kind != "shorthand_field_identifier" {
                names.entry(name).or_insert(node.start_byte());
            }
            let shorthand = node
                .parent()
                .is_some_and(|p| p.kind() == "shorthand_field_initializer");
            // In a macro's tokens (`println!("{}", p.tags)`) a field is an identifier after `.`.
            let macro_field = kind == "identifier"
                && node.parent().is_some_and(|p| p.kind() == "token_tree")
                && node.prev_sibling().is_some_and(|p| p.kind() == ".");
            if kind != "identifier" || shorthand || macro_field {
                fields.entry(name).or_insert(node.start_byte());
            }
        }
        let body = node_text(node, text).as_bytes();
        finders.iter().any(|f| f.find(body).is_some())
    });
    for piece in &m.pieces {
        let Some(item) = top_level_node(m.tree, &piece.item) else {
            continue;
        };
        match item.kind() {
            "impl_item" if item.child_by_field_name("trait").is_none() => {
                let Some(body) = item.child_by_field_name("body") else {
                    continue;
                };
                let mut cursor = body.walk();
                for member in body.named_children(&mut cursor) {
                    if !matches!(member.kind(), "function_item" | "const_item")
                        || visibility(member).is_some()
                    {
                        continue;
                    }
                    let Some(member_name) = member
                        .child_by_field_name("name")
                        .map(|n| node_text(n, text))
                    else {
                        continue;
                    };
                    if names.contains_key(member_name)
                        && let Some(edit) = widen_visibility(member, text)
                    {
                        back.moved_edits.push(edit);
                        back.notes.push(Note::new(
                            At::Moved(member.start_byte()),
                            Severity::Info,
                            format!(
                                "`{member_name}` becomes `pub(crate)`: {} still uses it from another module",
                                m.source.path
                            ),
                        ));
                    }
                }
            }
            "struct_item" | "union_item" => {
                let Some(body) = item.child_by_field_name("body") else {
                    continue;
                };
                if body.kind() == "ordered_field_declaration_list" {
                    tuple_fields_note(m, piece, body, back);
                    continue;
                }
                let mut cursor = body.walk();
                for field in body.named_children(&mut cursor) {
                    if field.kind() != "field_declaration" || visibility(field).is_some() {
                        continue;
                    }
                    let Some(field_name) = field
                        .child_by_field_name("name")
                        .map(|n| node_text(n, text))
                    else {
                        continue;
                    };
                    if let Some(&at) = fields.get(field_name) {
                        back.notes.push(Note::new(
                            At::Source(at),
                            Severity::Warning,
                            format!(
                                "field `{field_name}` of `{}` is private to {} after the move, and {} uses a field of that name here; make the field `pub(crate)` if it is this one",
                                piece.name_path, m.target_path, m.source.path
                            ),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
}

/// The names `make_members_reachable` looks up: the members without visibility of the moved
/// inherent impls, and the fields without visibility of the moved structs and unions.
fn private_member_names<'a>(m: &'a Move<'_>) -> Vec<&'a str> {
    let text = &m.source.text;
    let mut wanted = Vec::new();
    for piece in &m.pieces {
        let Some(item) = top_level_node(m.tree, &piece.item) else {
            continue;
        };
        let (body, kinds): (_, &[&str]) = match item.kind() {
            "impl_item" if item.child_by_field_name("trait").is_none() => (
                item.child_by_field_name("body"),
                &["function_item", "const_item"],
            ),
            "struct_item" | "union_item" => {
                (item.child_by_field_name("body"), &["field_declaration"])
            }
            _ => continue,
        };
        let Some(body) = body else {
            continue;
        };
        let mut cursor = body.walk();
        for member in body.named_children(&mut cursor) {
            if kinds.contains(&member.kind()) && visibility(member).is_none() {
                wanted.extend(
                    member
                        .child_by_field_name("name")
                        .map(|n| node_text(n, text)),
                );
            }
        }
    }
    wanted
}

/// Macros whose value depends on where the code is: `module_path!()`, `file!()` describe the
/// target after the move; `include_str!("..")` and friends resolve their path from the file.
pub(super) fn location_macro_notes(m: &Move<'_>) -> Vec<Note> {
    let text = &m.source.text;
    let same_dir = parent_dir(&m.source.path) == parent_dir(&m.target_path);
    let mut notes = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    m.walk_moved(m.tree, |node| {
        if node.kind() != "macro_invocation" || !m.moves(node.start_byte()) {
            return;
        }
        let Some(name) = node.child_by_field_name("macro").map(|n| node_text(n, text)) else {
            return;
        };
        let name = name.rsplit("::").next().unwrap_or(name).to_string();
        let message = match name.as_str() {
            "module_path" | "file" => format!(
                "`{}` uses `{name}!()`, which describes where the code is: after the move it gives {}'s, not {}'s",
                m.symbol.name, m.target_path, m.source.path
            ),
            "include_str" | "include_bytes" | "include" if !same_dir => format!(
                "`{}` uses `{name}!`, whose path is relative to the file: from {} it points elsewhere than from {}",
                m.symbol.name, m.target_path, m.source.path
            ),
            _ => return,
        };
        if !seen.contains(&name) {
            seen.push(name);
            notes.push(Note::new(At::Moved(node.start_byte()), Severity::Warning, message));
        }
    });
    notes
}

/// Traits the moved code calls methods of (`Write` for `f.write_char(..)`), that the source has
/// in scope and the target does not.
pub(super) fn trait_notes(m: &Move<'_>) -> Vec<Note> {
    let target_text = m.target.map_or("", |t| t.text.as_str());
    let moved = m.moved_names();
    let mut notes = Vec::new();
    for piece in &m.pieces {
        let needed_here = crate::lang::traits::needed_traits(
            m.tree,
            &m.source.text,
            &piece.item,
            m.target_tree,
            target_text,
        );
        for needed in needed_here
            .into_iter()
            .filter(|n| !moved.contains(&n.trait_name.as_str()))
        {
            if notes.len() >= MAX_FINDINGS_PER_KIND {
                break;
            }
            notes.push(Note::new(
                At::Moved(needed.at),
                Severity::Warning,
                format!(
                    "`{}` calls `{}`, a method of the trait `{}`, which {} has in scope; {} does not import it",
                    m.symbol.name,
                    needed.method,
                    needed.trait_name,
                    m.source.path,
                    file_name_of(&m.target_path)
                ),
            ));
        }
    }
    notes
}

fn file_name_of(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// A moved tuple struct with private fields (`struct Wrap<T>(T);`): the source can no longer
/// build it (`Wrap(1)`) nor read its fields (`w.0`).
fn tuple_fields_note(m: &Move<'_>, piece: &super::Piece, body: Node<'_>, back: &mut ImportBack) {
    let text = &m.source.text;
    // A field is private unless a visibility modifier comes right before its type.
    let mut private = false;
    let mut after_visibility = false;
    let mut cursor = body.walk();
    for child in body.named_children(&mut cursor) {
        match child.kind() {
            "visibility_modifier" => after_visibility = true,
            "attribute_item" | "line_comment" | "block_comment" => {}
            _ => {
                private |= !after_visibility;
                after_visibility = false;
            }
        }
    }
    if !private {
        return;
    }
    let name = piece
        .name_path
        .rsplit('/')
        .next()
        .unwrap_or(&piece.name_path);
    let mut used_at = None;
    walk_tree(m.tree, |node| {
        if used_at.is_some() || m.moves(node.start_byte()) {
            return used_at.is_none();
        }
        let constructor = node.kind() == "identifier"
            && node_text(node, text) == name
            && (node.parent().is_some_and(|p| {
                p.kind() == "call_expression" && p.child_by_field_name("function") == Some(node)
            }) || node
                .next_sibling()
                .is_some_and(|n| n.kind() == "token_tree" && node_text(n, text).starts_with('(')));
        let positional = node.kind() == "integer_literal"
            && (node.parent().is_some_and(|p| {
                p.kind() == "field_expression" && p.child_by_field_name("field") == Some(node)
            }) || node.prev_sibling().is_some_and(|p| p.kind() == "."));
        if constructor || positional {
            used_at = Some(node.start_byte());
        }
        true
    });
    if let Some(at) = used_at {
        back.notes.push(Note::new(
            At::Source(at),
            Severity::Warning,
            format!(
                "the fields of `{}` are private to {} after the move, and {} builds it or reads a field by position here; make its fields `pub(crate)`",
                piece.name_path, m.target_path, m.source.path
            ),
        ));
    }
}

/// Where a moved item goes in an existing target: before a trailing `#[cfg(test)] mod tests`,
/// else at the end.
pub(super) fn insertion_point(tree: &Tree, text: &str) -> Option<usize> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let last = root
        .named_children(&mut cursor)
        .filter(|c| !matches!(c.kind(), "line_comment" | "block_comment"))
        .last()?;
    if last.kind() != "mod_item" || last.child_by_field_name("body").is_none() {
        return None;
    }
    let start = leading_trivia_start(Language::Rust, last, text);
    let attributes = &text[start..last.start_byte()];
    if attributes.replace(' ', "").contains("#[cfg(test)]") {
        Some(text[..start].rfind('\n').map_or(0, |i| i + 1))
    } else {
        None
    }
}

/// Every leaf of the top-level `use` trees: (path segments, alias, the declaration).
fn use_paths<'t>(tree: &'t Tree, text: &str) -> Vec<(Vec<String>, Option<String>, Node<'t>)> {
    let root = tree.root_node();
    let mut cursor = root.walk();
    let declarations: Vec<Node<'t>> = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() == "use_declaration")
        .collect();
    declarations
        .into_iter()
        .flat_map(|d| use_leaves(d, text).into_iter().map(move |(p, a)| (p, a, d)))
        .collect()
}

fn segments_of(path: &str) -> Vec<String> {
    path.split("::")
        .map(|s| s.split_whitespace().collect::<String>())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The leaves of one `use` declaration, flattened: `use a::{b, c::d as e, f::*}` →
/// `a::b`, `a::c::d as e`, `a::f::*`.
fn use_leaves(declaration: Node<'_>, text: &str) -> Vec<(Vec<String>, Option<String>)> {
    let mut leaves = Vec::new();
    let Some(argument) = declaration.child_by_field_name("argument") else {
        return leaves;
    };
    let mut stack: Vec<(Node<'_>, Vec<String>)> = vec![(argument, Vec::new())];
    while let Some((node, prefix)) = stack.pop() {
        let join =
            |tail: Vec<String>| -> Vec<String> { prefix.iter().cloned().chain(tail).collect() };
        match node.kind() {
            "use_as_clause" => {
                let path = node
                    .child_by_field_name("path")
                    .map(|p| segments_of(node_text(p, text)))
                    .unwrap_or_default();
                let alias = node
                    .child_by_field_name("alias")
                    .map(|a| node_text(a, text).to_string());
                leaves.push((join(path), alias));
            }
            "use_wildcard" => {
                let inner = node
                    .named_child(0)
                    .map(|p| segments_of(node_text(p, text)))
                    .unwrap_or_default();
                let mut path = join(inner);
                path.push("*".to_string());
                leaves.push((path, None));
            }
            "scoped_use_list" => {
                let path = node
                    .child_by_field_name("path")
                    .map(|p| segments_of(node_text(p, text)))
                    .unwrap_or_default();
                if let Some(list) = node.child_by_field_name("list") {
                    stack.push((list, join(path)));
                }
            }
            "use_list" => {
                let mut cursor = node.walk();
                for child in node.named_children(&mut cursor) {
                    stack.push((child, prefix.clone()));
                }
            }
            "line_comment" | "block_comment" | "attribute_item" => {}
            _ => leaves.push((join(segments_of(node_text(node, text))), None)),
        }
    }
    leaves
}

pub(super) fn bindings(tree: &Tree, text: &str) -> Vec<Binding> {
    let mut out = Vec::new();
    let root = tree.root_node();
    let mut cursor = root.walk();
    for node in root.named_children(&mut cursor) {
        let offset = node.start_byte();
        match node.kind() {
            "use_declaration" => {
                let public = visibility(node).is_some();
                for (path, alias) in use_leaves(node, text) {
                    let name = match (alias, path.as_slice()) {
                        (Some(alias), _) => alias,
                        (None, [.., last]) if last == "*" => continue,
                        (None, [.., parent, last]) if last == "self" => parent.clone(),
                        (None, [.., last]) => last.clone(),
                        (None, []) => continue,
                    };
                    out.push(Binding {
                        name,
                        offset,
                        imported: true,
                        public,
                        module: false,
                    });
                }
            }
            "extern_crate_declaration" => {
                let name = node
                    .child_by_field_name("alias")
                    .or_else(|| node.child_by_field_name("name"));
                if let Some(name) = name {
                    out.push(Binding {
                        name: node_text(name, text).to_string(),
                        offset,
                        imported: true,
                        public: false,
                        module: true,
                    });
                }
            }
            kind if DEFINITIONS.contains(&kind) => {
                if let Some(name) = node.child_by_field_name("name") {
                    out.push(Binding {
                        name: node_text(name, text).to_string(),
                        offset,
                        imported: false,
                        public: is_visible(node, text),
                        module: kind == "mod_item",
                    });
                }
            }
            _ => {}
        }
    }
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    Use,
    Bind,
    Other,
}

/// Whether an identifier reads a name, binds one (definition, pattern, generic parameter,
/// `use`), or is no free name (a qualified path's tail, a lifetime, a label).
/// `up`: the ancestors of `node`, nearest first ([`up_from`]); only the first few are asked.
fn role<'t>(node: Node<'t>, up: impl Iterator<Item = Node<'t>>) -> Role {
    let mut up = up;
    let Some(parent) = up.next() else {
        return Role::Use;
    };
    let is_field = |field: &str| parent.child_by_field_name(field) == Some(node);
    match parent.kind() {
        "lifetime" | "label" => return Role::Other,
        // Associated items and variants are reached through their type, never as bare names.
        kind if DEFINITIONS.contains(&kind) && is_field("name") => {
            let associated = up
                .next()
                .is_some_and(|p| matches!(p.kind(), "declaration_list" | "enum_variant_list"));
            return if associated { Role::Other } else { Role::Bind };
        }
        "type_parameter" | "const_parameter" if is_field("name") => return Role::Bind,
        "type_parameters" | "constrained_type_parameter" | "optional_type_parameter" => {
            return Role::Bind;
        }
        "scoped_identifier" | "scoped_type_identifier" if is_field("name") => {
            return match parent.child_by_field_name("path").map(|p| p.kind()) {
                None | Some("self") => Role::Use,
                _ => Role::Other,
            };
        }
        "tuple_struct_pattern" | "struct_pattern" if is_field("type") => return Role::Use,
        _ => {}
    }
    let mut child = node;
    for ancestor in std::iter::once(parent).chain(up) {
        match ancestor.kind() {
            "use_declaration" => return Role::Bind,
            "tuple_pattern"
            | "tuple_struct_pattern"
            | "struct_pattern"
            | "field_pattern"
            | "ref_pattern"
            | "mut_pattern"
            | "reference_pattern"
            | "slice_pattern"
            | "or_pattern"
            | "captured_pattern"
            | "match_pattern" => {}
            "closure_parameters" => return Role::Bind,
            "let_declaration" | "parameter" | "for_expression" | "match_arm" | "let_condition" => {
                let pattern = ancestor.child_by_field_name("pattern");
                return if pattern == Some(child) {
                    Role::Bind
                } else {
                    Role::Use
                };
            }
            _ => return Role::Use,
        }
        child = ancestor;
    }
    Role::Use
}

/// Private members of the source's inherent impls (that stay behind) which the moved code
/// reaches (`Op::DEFAULT`, `Error::new(..)`, `x.helper()`): private to the source module, they
/// are out of reach from the target module.
pub(super) fn private_member_notes(m: &Move<'_>) -> Vec<Note> {
    let text = &m.source.text;
    // (type name, member name, offset of the member) of private members of inherent impls.
    let mut private: Vec<(String, String, usize)> = Vec::new();
    let root = m.tree.root_node();
    let mut cursor = root.walk();
    for item in root.named_children(&mut cursor) {
        if item.kind() != "impl_item"
            || item.child_by_field_name("trait").is_some()
            || m.moves(item.start_byte())
        {
            continue;
        }
        let Some(ty) = item.child_by_field_name("type") else {
            continue;
        };
        let ty = node_text(ty, text);
        let ty = ty.split('<').next().unwrap_or(ty).trim().to_string();
        let Some(list) = item.child_by_field_name("body") else {
            continue;
        };
        let mut members = list.walk();
        for member in list.named_children(&mut members) {
            if !matches!(member.kind(), "function_item" | "const_item")
                || visibility(member).is_some()
            {
                continue;
            }
            if let Some(name) = member.child_by_field_name("name") {
                private.push((
                    ty.clone(),
                    node_text(name, text).to_string(),
                    member.start_byte(),
                ));
            }
        }
    }
    if private.is_empty() {
        return Vec::new();
    }
    // Only a note needs a line number: counted then, not indexed for the whole file up front.
    let line_of = |at: usize| memchr::memchr_iter(b'\n', &text.as_bytes()[..at]).count();
    let mut notes: Vec<Note> = Vec::new();
    let mut seen: Vec<(String, String)> = Vec::new();
    m.walk_moved(m.tree, |node| {
        if !m.moves(node.start_byte()) {
            return;
        }
        let reached = match node.kind() {
            "scoped_identifier" => {
                let path = node.child_by_field_name("path").map(|p| node_text(p, text));
                let name = node.child_by_field_name("name").map(|n| node_text(n, text));
                path.zip(name).and_then(|(path, name)| {
                    private
                        .iter()
                        .find(|(ty, member, _)| ty == path && member == name)
                        .map(|found| (found, format!("uses `{path}::{name}`")))
                })
            }
            "field_expression" => {
                let is_callee = node.parent().is_some_and(|p| {
                    p.kind() == "call_expression" && p.child_by_field_name("function") == Some(node)
                });
                let name = node.child_by_field_name("field").map(|n| node_text(n, text));
                name.filter(|_| is_callee).and_then(|name| {
                    private
                        .iter()
                        .find(|(_, member, _)| member == name)
                        .map(|found| (found, format!("calls `.{name}(..)`, maybe")))
                })
            }
            _ => None,
        };
        if let Some(((ty, member, at), how)) = reached
            && !seen.contains(&(ty.clone(), member.clone()))
        {
            seen.push((ty.clone(), member.clone()));
            notes.push(Note::new(
                At::Moved(node.start_byte()),
                Severity::Warning,
                format!(
                    "`{}` {how}: `{ty}::{member}` is private to {} (line {}); from the target module it is out of reach (E0624): make it `pub(crate)`",
                    m.symbol.name,
                    m.source.path,
                    line_of(*at) + 1
                ),
            ));
        }
    });
    notes
}

/// Offsets of the uses of `name` left in the source once the moved code is gone.
pub(super) fn remaining_uses(m: &Move<'_>, name: &str) -> Vec<usize> {
    let text = &m.source.text;
    let mut uses = Vec::new();
    // Every use counted below is (or declares) the name: other nodes are not entered.
    let holds_name = holding(text, name);
    walk_tree_with_ancestors(m.tree, |node, ancestors| {
        let is_name = matches!(node.kind(), "identifier" | "type_identifier");
        if is_name
            && node_text(node, text) == name
            && !m.moves(node.start_byte())
            && role(node, up_from(node, ancestors)) == Role::Use
            && ancestors
                .last()
                .is_none_or(|p| p.kind() != "use_declaration")
        {
            uses.push(node.start_byte());
        }
        // `#[serde(default = "name")]`: the code derived from it calls `name` in this module.
        if node.kind() == "string_literal"
            && !m.moves(node.start_byte())
            && node_text(node, text).trim_matches('"') == name
            && ancestors.iter().any(|a| a.kind() == "attribute_item")
        {
            uses.push(node.start_byte());
        }
        // `use super::name` in a nested module of the source needs the name at the top.
        if node.kind() == "use_declaration"
            && ancestors.last().is_some_and(|p| p.kind() != "source_file")
        {
            for (path, _) in use_leaves(node, text) {
                if matches!(path.as_slice(), [first, last] if (first == "super" || first == "self") && last == name)
                {
                    uses.push(node.start_byte());
                }
            }
            return false;
        }
        holds_name(node)
    });
    uses.sort_unstable();
    uses
}

/// Names the moved code reads, without those it binds itself, with their first offset (macro
/// names and the leading segment of paths included).
pub(super) fn used_names(m: &Move<'_>) -> Vec<(String, usize)> {
    let text = &m.source.text;
    let mut used: Vec<(String, usize)> = Vec::new();
    // First binding of each name: a use before it (`identifier(..)` then `let identifier`)
    // reads the outer name, as a Rust binding holds only after itself.
    let mut bound: Vec<(String, usize)> = Vec::new();
    m.walk_moved(m.tree, |node| {
        if !matches!(node.kind(), "identifier" | "type_identifier") || !m.moves(node.start_byte()) {
            return;
        }
        let name = node_text(node, text).to_string();
        match role(node, up_from(node, &[])) {
            Role::Use if !used.iter().any(|(n, _)| *n == name) => {
                used.push((name, node.start_byte()))
            }
            Role::Bind if !bound.iter().any(|(n, _)| *n == name) => {
                // `let x = x(..);` binds after its value is read.
                let mut from = node.start_byte();
                let mut current = node.parent();
                while let Some(ancestor) = current {
                    if ancestor.kind() == "let_declaration" {
                        from = ancestor.end_byte();
                        break;
                    }
                    if matches!(
                        ancestor.kind(),
                        "block" | "function_item" | "closure_expression"
                    ) {
                        break;
                    }
                    current = ancestor.parent();
                }
                bound.push((name, from))
            }
            _ => {}
        }
    });
    used.retain(|(name, first_use)| {
        !bound
            .iter()
            .any(|(b, first_bind)| b == name && first_bind < first_use)
    });
    used
}

/// Other files of the crate that reach the name through the source module's path.
pub(super) fn third_file_notes(m: &Move<'_>) -> Result<Vec<Note>, RefactorError> {
    let Some(name) = m.importable_name() else {
        return Ok(Vec::new());
    };
    let Some(krate) = find_crate(m.sources, &m.source.path) else {
        return Ok(Vec::new());
    };
    let Ok(source_segments) = module_segments(&krate, &m.source.path) else {
        return Ok(Vec::new());
    };
    let new_path = module_segments(&krate, &m.target_path)
        .map(|t| crate_path(&t, name))
        .unwrap_or_else(|_| format!("{}::{name}", m.target_path));
    let source_is_lib = m.source.path.ends_with("src/lib.rs")
        || (!source_segments.is_empty() && exists(m.sources, &krate.join("src/lib.rs")));
    let mentioning = m.sources.files_mentioning(Language::Rust, name)?;
    let prefix = if krate.dir.is_empty() {
        String::new()
    } else {
        format!("{}/", krate.dir)
    };
    let mut notes = Vec::new();
    let mut skipped = 0usize;
    for file in &mentioning.files {
        if file.path == m.source.path
            || file.path == m.target_path
            || !file.path.starts_with(&prefix)
        {
            continue;
        }
        let file_segments = module_segments(&krate, &file.path).ok();
        let reaches_source = |path: &[String]| -> bool {
            let mut crate_relative: Vec<&str> = vec!["crate"];
            crate_relative.extend(source_segments.iter().map(String::as_str));
            let by_crate_name = krate.name.as_ref().is_some_and(|n| {
                source_is_lib
                    && path.first() == Some(n)
                    && path[1..]
                        .iter()
                        .map(String::as_str)
                        .eq(source_segments.iter().map(String::as_str))
            });
            let by_super = path == ["super"]
                && file_segments.as_ref().is_some_and(|f| {
                    f.len() == source_segments.len() + 1 && f.starts_with(&source_segments)
                });
            let by_module_name = path.len() == 1
                && !source_segments.is_empty()
                && source_segments.last() == path.first();
            path.iter().map(String::as_str).eq(crate_relative)
                || by_crate_name
                || by_super
                || by_module_name
        };
        let tree = crate::refactor::tree_of(m.sources, Language::Rust, file);
        let mut found: Vec<(usize, String)> = Vec::new();
        let mentions_name = file.text.contains(name);
        walk_tree(&tree, |node| match node.kind() {
            "use_declaration" => {
                for (path, _) in use_leaves(node, &file.text) {
                    let Some((last, head)) = path.split_last() else {
                        continue;
                    };
                    if last == name && reaches_source(head) {
                        found.push((
                            node.start_position().row + 1,
                            format!(
                                "imports `{}`, which moves to `{new_path}`: update the path",
                                path.join("::")
                            ),
                        ));
                    } else if last == "*" && reaches_source(head) && mentions_name {
                        found.push((
                                node.start_position().row + 1,
                                format!(
                                    "imports `{}` and mentions `{name}`, which moves to `{new_path}`: it may need an import of its own",
                                    path.join("::")
                                ),
                            ));
                    }
                }
                false
            }
            "scoped_identifier" | "scoped_type_identifier" => {
                let tail = node
                    .child_by_field_name("name")
                    .map(|n| node_text(n, &file.text));
                let head = node
                    .child_by_field_name("path")
                    .map(|p| segments_of(node_text(p, &file.text)));
                if let (Some(tail), Some(head)) = (tail, head)
                    && tail == name
                    && reaches_source(&head)
                {
                    found.push((
                        node.start_position().row + 1,
                        format!(
                            "refers to `{}::{name}`, which moves to `{new_path}`: update the path",
                            head.join("::")
                        ),
                    ));
                    return false;
                }
                true
            }
            _ => true,
        });
        for (line, message) in found {
            if notes.len() >= MAX_FINDINGS_PER_KIND {
                skipped += 1;
                continue;
            }
            notes.push(Note::new(
                At::Line {
                    path: file.path.clone(),
                    line,
                },
                Severity::Warning,
                message,
            ));
        }
    }
    if skipped > 0 {
        notes.push(Note::new(
            At::Source(m.symbol.range.start),
            Severity::Warning,
            format!(
                "…and {skipped} more paths in other files that reach `{name}` through {}",
                m.source.path
            ),
        ));
    }
    if let Some((path, why)) = mentioning.skipped.first() {
        notes.push(Note::new(
            At::Source(m.symbol.range.start),
            Severity::Info,
            format!(
                "{} file(s) that mention `{name}` could not be searched for paths to it (first: {path}: {why})",
                mentioning.skipped.len()
            ),
        ));
    }
    Ok(notes)
}

/// `include_str!`/`include_bytes!`/`include!` read paths relative to the file, and `super::`
/// names the parent module: both change meaning when the code moves to another place.
pub(super) fn file_relative_notes(m: &Move<'_>) -> Vec<Note> {
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
        walk_node(item, |node| {
            match node.kind() {
                "macro_invocation" if other_dir => {
                    let macro_name = node
                        .child_by_field_name("macro")
                        .map(|n| node_text(n, text))
                        .unwrap_or("");
                    if matches!(macro_name, "include_str" | "include_bytes" | "include") {
                        notes.push(Note::new(
                            At::Moved(node.start_byte()),
                            Severity::Warning,
                            format!(
                                "`{macro_name}!` reads its path relative to the file: from {} it points elsewhere than from {}",
                                m.target_path, m.source.path
                            ),
                        ));
                    }
                }
                "scoped_identifier" | "scoped_type_identifier" | "scoped_use_list"
                    if parent_module_changes =>
                {
                    let head = node.child_by_field_name("path");
                    if head.is_some_and(|h| h.kind() == "super")
                        && !notes.iter().any(|n| n.message.contains("`super::`"))
                    {
                        notes.push(Note::new(
                            At::Moved(node.start_byte()),
                            Severity::Warning,
                            format!(
                                "`{}` uses `super::`, which names another module from {}",
                                piece.name_path, m.target_path
                            ),
                        ));
                    }
                }
                _ => {}
            }
            true
        });
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

    fn insert(text: &str, line: &str, anchor: fn(Node<'_>) -> bool) -> String {
        let tree = Language::Rust.parse(text);
        let (at, new) = line_insertion(&tree, text, line, "\n", &[], anchor, is_file_mod);
        format!("{}{new}{}", &text[..at], &text[at..])
    }

    #[test]
    fn use_and_mod_lines_join_their_group_or_start_one() {
        let is_use = |n: Node<'_>| n.kind() == "use_declaration";
        assert_eq!(
            insert("use a::b;\n\nfn f() {}\n", "use c::d;", is_use),
            "use a::b;\nuse c::d;\n\nfn f() {}\n"
        );
        assert_eq!(
            insert("mod x;\n\nfn f() {}\n", "use c::d;", is_file_mod),
            "mod x;\nuse c::d;\n\nfn f() {}\n"
        );
        assert_eq!(
            insert(
                "//! Crate docs.\n#![allow(dead_code)]\nfn f() {}\n",
                "mod m;",
                is_file_mod
            ),
            "//! Crate docs.\n#![allow(dead_code)]\n\nmod m;\n\nfn f() {}\n"
        );
        assert_eq!(
            insert("fn f() {}\n", "mod m;", is_file_mod),
            "mod m;\n\nfn f() {}\n"
        );
        assert_eq!(insert("", "mod m;", is_file_mod), "mod m;\n");
        assert_eq!(
            insert("use a::b;", "use c::d;", is_use),
            "use a::b;\nuse c::d;\n"
        );
    }

    #[test]
    fn use_trees_are_flattened() {
        let text = "use std::{io::{self, Read}, collections::HashMap as Map};\nuse crate::a::*;\npub use b;\n";
        let tree = Language::Rust.parse(text);
        let mut leaves: Vec<String> = use_paths(&tree, text)
            .into_iter()
            .map(|(p, a, _)| {
                format!(
                    "{}{}",
                    p.join("::"),
                    a.map(|a| format!(" as {a}")).unwrap_or_default()
                )
            })
            .collect();
        leaves.sort();
        assert_eq!(
            leaves,
            [
                "b",
                "crate::a::*",
                "std::collections::HashMap as Map",
                "std::io::Read",
                "std::io::self"
            ]
        );
        let names: Vec<String> = bindings(&tree, text).into_iter().map(|b| b.name).collect();
        assert_eq!(names.len(), 4);
        assert!(
            names.contains(&"io".to_string())
                && names.contains(&"Map".to_string())
                && names.contains(&"b".to_string())
        );
    }

    #[test]
    fn roles_of_identifiers() {
        let text = "fn f<T: Tr>(a: &T, (b, c): P) -> R { let Some(v) = o else { return m!(a) }; for i in it {} let s = S { x: y }; w::z(v); |q| q; }\nimpl fmt::Display for X { fn fmt(&self) {} }\n";
        let tree = Language::Rust.parse(text);
        let mut uses = Vec::new();
        walk_tree(&tree, |n| {
            if matches!(n.kind(), "identifier" | "type_identifier")
                && role(n, up_from(n, &[])) == Role::Use
            {
                uses.push(node_text(n, text).to_string());
            }
            true
        });
        assert_eq!(
            uses,
            [
                "Tr", "T", "P", "R", "Some", "o", "m", "a", "it", "S", "y", "w", "v", "q", "fmt",
                "X"
            ]
        );
    }
}
