//! Every sentence move to file says: its refusals and its notes (what the move adds, what it
//! cannot fix, what other files still need). The logic decides; these functions word it, in one
//! place.

use super::{Basis, ThirdFiles};

pub const PIECES_SHARE_A_LINE: &str =
    "the items to move overlap on a line; put each on lines of its own first";
pub const NO_LONGER_DEFINES_IT: &str = ", which no longer defines it";
pub const UNDER_SRC_BIN: &str = "is under `src/bin/`, which holds separate binary crates";
pub const NOT_A_MODULE_FILE: &str = "is not a module file";
pub const PARENT_VANISHED: &str = "the parent module file vanished";
pub const IMPL_NEEDS_NO_IMPORT: &str =
    "an impl block needs no import; it applies wherever its type is visible";
pub const PYTHON_THIRD_FILES: ThirdFiles<'static> = ThirdFiles {
    counted: "places",
    searched_for: "imports of it",
};
pub const RUST_THIRD_FILES: ThirdFiles<'static> = ThirdFiles {
    counted: "paths",
    searched_for: "paths to it",
};

pub fn at_line(path: &str, line: usize) -> String {
    format!("{path} at line {line}")
}

/// `what`: where the item is ([`method_in`], [`inside_a_block`], …).
pub fn not_top_level(name_path: &str, line: usize, what: &str) -> String {
    format!("`{name_path}` (line {line}) is {what}")
}

pub fn import_added(statement: &str, how: &str, source: &str, name: &str, uses: usize) -> String {
    let more = if uses > 1 {
        format!(" ({uses} uses)")
    } else {
        String::new()
    };
    format!("added `{statement}`{how}: {source} still uses `{name}`{more}")
}

/// How the module path of a Python import was found, said after the import.
pub fn python_import_basis(basis: Basis) -> &'static str {
    match basis {
        Basis::Package => "",
        Basis::SameDirectory => " (a module of the same directory)",
        Basis::Root => " (module path from the project root: it assumes the root is on sys.path)",
    }
}

pub fn uses_through_the_module(object: &str, name: &str, still_works: &str, new: &str) -> String {
    format!("uses `{object}.{name}`{still_works}: use `{new}.{name}`")
}

pub fn cannot_be_read(path: &str) -> String {
    format!("{path} cannot be read")
}

pub fn uses_path(path: &str, name: &str) -> String {
    format!("uses `{path}::{name}`")
}

pub fn calls_method_maybe(name: &str) -> String {
    format!("calls `.{name}(..)`, maybe")
}

// -- the request, the pieces and the notes every language shares --------------------------

pub fn target_directory_missing(dir: &str, target_path: &str) -> String {
    format!(
        "the directory `{dir}/` of target_file `{target_path}` does not exist; move to file creates the file but not its directory, so create `{dir}/` first"
    )
}

pub fn target_not_a_file_path(target_file: &str, extensions: &str) -> String {
    format!(
        "target_file `{target_file}` is not a file path; give the file to move the item to, e.g. `helpers.{extensions}`"
    )
}

pub fn target_is_the_source(target: &str) -> String {
    format!("target_file `{target}` is the file the item is already in; give another file")
}

pub fn target_of_another_language(
    target: &str,
    target_language: &str,
    source: &str,
    language: &str,
    wanted: &str,
) -> String {
    format!(
        "target_file `{target}` is a {target_language} file but `{source}` is {language}; an item can only move to a file of its own language ({wanted})"
    )
}

pub fn target_extension_unknown(target: &str, language: &str, wanted: &str) -> String {
    format!("target_file `{target}` is not a {language} file; give a path ending in {wanted}")
}

pub fn stub_and_module(source: &str, target: &str) -> String {
    format!(
        "`{source}` and `{target}` are not both stub files (.pyi) or both modules (.py); code moved between them would not be importable where it was"
    )
}

pub fn not_a_top_level_item(name: &str, file: &str, candidates: &str) -> String {
    format!(
        "`{name}` is not a top-level item of {file} ({candidates}); only top-level items can move: move the item that contains it instead"
    )
}

pub fn method_in_an_impl(name: &str, line: usize, type_name: &str) -> String {
    format!(
        "a method in `{name}` (line {line}); only top-level items can move: move the type `{type_name}` (its impl blocks in this file move with it), or the impl block alone by passing `line: {line}`"
    )
}

pub fn method_of_a_class(name: &str, line: usize) -> String {
    format!(
        "a method of class `{name}` (line {line}); only top-level items can move: move the class `{name}` instead"
    )
}

pub fn method_of_a_trait(name: &str, line: usize) -> String {
    format!(
        "a method of trait `{name}` (line {line}); only top-level items can move: move the trait `{name}` instead"
    )
}

pub fn inside_an_inline_module(name: &str, line: usize) -> String {
    format!(
        "inside `mod {name}` (line {line}); only top-level items can move: move the module `{name}` instead"
    )
}

pub fn defined_inside(name_path: &str, line: usize) -> String {
    format!(
        "defined inside `{name_path}` (line {line}); only top-level items can move: move `{name_path}` instead"
    )
}

pub fn inside_a_block(file: &str) -> String {
    format!(
        "inside a block (it is not at the top level of {file}); only top-level items can move: take it out of the block first"
    )
}

pub fn shares_its_line(name_path: &str, line: usize) -> String {
    format!(
        "`{name_path}` shares line {line} with other code; put it on lines of its own first, then move it"
    )
}

pub fn no_import_needed(path: &str, name: &str) -> String {
    format!("{path} no longer uses `{name}` once it has moved; no import added")
}

pub fn target_defines_the_name(name: &str, line: usize) -> String {
    format!(
        "target file already defines `{name}` at line {line}; Rust refuses two items with one name in a module (E0428): rename or remove one"
    )
}

pub fn target_imports_the_name(name: &str, line: usize) -> String {
    format!(
        "target file already imports `{name}` at line {line}; Rust refuses an item and an import with one name (E0255): remove the import"
    )
}

pub fn target_definition_replaced(name: &str, line: usize) -> String {
    format!(
        "target file already defines `{name}` at line {line}; the moved definition comes later and replaces it for the code that runs after it"
    )
}

pub fn target_import_shadowed(name: &str, line: usize) -> String {
    format!(
        "target file already imports `{name}` at line {line}; the moved definition comes later and shadows the import"
    )
}

pub fn name_not_imported(
    moved: &str,
    name: &str,
    imported: bool,
    line: usize,
    source_name: &str,
    private: bool,
    target_name: &str,
) -> String {
    let how = if imported { "imported" } else { "defined" };
    let private = if private {
        " (and it is not `pub`)"
    } else {
        ""
    };
    format!(
        "`{moved}` uses `{name}`, {how} at line {line} of {source_name}{private}; {target_name} does not import it"
    )
}

pub fn more_names_not_imported(skipped: usize, source_name: &str) -> String {
    format!("…and {skipped} more names the moved code uses from {source_name}")
}

pub fn more_in_other_files(skipped: usize, counted: &str, name: &str, path: &str) -> String {
    format!("…and {skipped} more {counted} in other files that reach `{name}` through {path}")
}

pub fn files_not_searched(
    skipped: usize,
    name: &str,
    searched_for: &str,
    path: &str,
    why: &str,
) -> String {
    format!(
        "{skipped} file(s) that mention `{name}` could not be searched for {searched_for} (first: {path}: {why})"
    )
}

pub fn string_mentions_the_name(name: &str) -> String {
    format!("a string mentions `{name}` here; it was not changed")
}

pub fn internal_error(what: &str) -> String {
    format!("internal error in move to file: {what}; please report it")
}

// -- what the move carried ----------------------------------------------------------------

/// `` `a`, `b` `` for a list of names.
fn ticked(names: &[impl AsRef<str>]) -> String {
    names
        .iter()
        .map(|n| format!("`{}`", n.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn target_import_added(statement: &str, moved: &str) -> String {
    let first = statement.lines().next().unwrap_or(statement);
    let more = if statement.contains('\n') {
        " (the whole block)"
    } else {
        ""
    };
    format!("added `{first}`{more} to the target: `{moved}` needs it")
}

pub fn source_import_removed(names: &[&str], source: &str) -> String {
    format!(
        "removed the import of {} from {source}: only the moved code used it",
        ticked(names)
    )
}

pub fn source_not_importable(names: &[&str], source: &str, reason: &str) -> String {
    format!(
        "the moved code uses {}, defined in {source}, which the target cannot import: {reason}; import it by hand",
        ticked(names)
    )
}

pub fn circular_sibling_import(names: &[&str], source: &str, target: &str) -> String {
    format!(
        "imported {} from {source}, which imports {target} back: a circular import that fails at import time; move them along or import them inside the function",
        ticked(names)
    )
}

pub fn modules_import_each_other(source: &str, target: &str, names: &[&str]) -> String {
    format!(
        "{target} now imports {source} for {}, and {source} imports {target} back: the code reaches them as attributes when it runs, but importing {target} before {source} fails (a circular import); move them along if {target} is imported on its own",
        ticked(names)
    )
}

pub fn used_at_import_time(moved: &str, name: &str, source: &str, target: &str) -> String {
    format!(
        "`{moved}` reads `{name}` of {source} when {target} is imported (a base class, decorator or default value), and {source} imports {target} back: in that circular import `{name}` may not exist yet; move `{name}` along"
    )
}

pub fn sibling_becomes_pub_crate(name: &str, target: &str) -> String {
    format!("`{name}` becomes `pub(crate)`: the moved code uses it from {target}")
}

pub fn reached_from_other_files(name: &str, target: &str) -> String {
    format!("`{name}` becomes `pub(crate)`: other modules reach it in {target}")
}

pub fn glob_still_provides(glob: &str, name: &str) -> String {
    format!("imports `{glob}`, which still provides `{name}` (or the file does not use it)")
}

pub fn glob_import_completed(glob: &str, name: &str, new_path: &str) -> String {
    format!("imports `{glob}`, which no longer provides `{name}`: added `use {new_path};`")
}

pub fn target_import_of_item_removed(name: &str, source: &str) -> String {
    format!("removed the target's import of `{name}` from {source}: it is defined here now")
}

pub fn import_rewritten(old: &str, new: &str, name: &str) -> String {
    format!("rewrote `{old} import {name}` to `{new} import {name}`")
}

pub fn path_rewritten(old: &str, new: &str) -> String {
    format!("rewrote `{old}` to `{new}`")
}

pub fn star_import_completed(module: &str, name: &str, spec: &str) -> String {
    format!(
        "`from {module} import *` no longer provides `{name}`: added `from {spec} import {name}` below it"
    )
}

// The caveat notes: what this result did about a canonical caveat.

pub const COLLISIONS_CHECKED: &str =
    "the target's top-level names were checked against the moved ones (a clash is a finding)";

pub fn imported_at_the_target(names: &[String]) -> String {
    format!("imported at the target: {}", ticked(names))
}

pub fn needed_from_the_source(names: &[String], source: &str, through: Option<&str>) -> String {
    match through {
        Some(module) => format!(
            "{} still needed from {source} — reached as `{module}.…` (the two modules import each other)",
            ticked(names)
        ),
        None => format!(
            "{} still needed from {source} — imported from it",
            ticked(names)
        ),
    }
}

pub fn removed_from_the_source(names: &[String], source: &str) -> String {
    format!("no longer imported by {source}: {}", ticked(names))
}

pub fn references_rewritten(count: usize, files: usize, left: usize) -> String {
    let imports = if count == 1 {
        "import or path"
    } else {
        "imports and paths"
    };
    let in_files = if files == 1 { "file" } else { "files" };
    let left = match left {
        0 => String::new(),
        1 => "; 1 more left as it was, with a warning".to_string(),
        n => format!("; {n} more left as they were, each with a warning"),
    };
    format!("{count} {imports} in {files} {in_files} rewritten to the new location{left}")
}

// -- Python -------------------------------------------------------------------------------

pub fn not_in_a_package(module_file: &str) -> String {
    format!("`{module_file}` is not inside a package, so it has no module name")
}

pub fn invalid_module_name(bad: &str, module_file: &str) -> String {
    format!("`{bad}` (from the path `{module_file}`) is not a valid Python module name")
}

pub fn moved_code_rebinds_a_global(
    moved: &str,
    name: &str,
    target_name: &str,
    source_name: &str,
) -> String {
    format!(
        "`{moved}` rebinds the module variable `{name}` (`global {name}`); in {target_name} that is {target_name}'s own `{name}`, not {source_name}'s: move `{name}` along, or keep `{moved}` in {source_name}"
    )
}

pub fn source_rebinds_a_moved_global(
    source_name: &str,
    name_text: &str,
    target_name: &str,
) -> String {
    format!(
        "{source_name} rebinds `{name_text}` here (`global {name_text}`); after the move it rebinds {source_name}'s imported copy, and {target_name}'s `{name_text}` keeps the old value"
    )
}

pub fn reads_a_module_dunder(
    moved: &str,
    name: &str,
    target_name: &str,
    source_name: &str,
) -> String {
    format!(
        "`{moved}` reads `{name}`, which is the module's own: after the move it describes {target_name}, not {source_name}"
    )
}

pub fn import_not_added(name: &str, source: &str, reason: &str) -> String {
    format!(
        "could not add an import of `{name}` to {source}, which still uses it here: {reason}; import it by hand"
    )
}

pub fn already_imported_from(source: &str, name: &str, dotted: &str) -> String {
    format!("{source} already imports `{name}` from `{dotted}`; no import added")
}

pub fn circular_import(target_path: &str, source: &str) -> String {
    format!(
        "{target_path} imports from {source} here, and {source} now imports from {target_path}: a circular import that fails if a name is used at import time"
    )
}

pub fn works_only_through_the_import(source: &str) -> String {
    format!("; it works only through the import added to {source}")
}

pub fn imports_from_the_source(
    name: &str,
    old_dotted: &str,
    still_works: &str,
    new: &str,
) -> String {
    format!(
        "imports `{name}` from `{old_dotted}`{still_works}: change it to `from {new} import {name}`"
    )
}

pub fn string_names_the_old_path(dotted: &str, name: &str, new: &str) -> String {
    format!(
        "a string names `{dotted}` (a patch target or a dotted path?); `{name}` now lives in `{new}`"
    )
}

pub fn looked_up_by_name(name: &str, object: &str, new: &str) -> String {
    format!("looks `{name}` up on `{object}` by name, which no longer defines it: use `{new}`")
}

pub fn future_import_copied(statement: &str, path: &str) -> String {
    format!("copied `{statement}` from {path}: it changes how the moved code is compiled")
}

pub fn future_import_missing(path: &str, statement: &str, target_path: &str) -> String {
    format!(
        "{path} has `{statement}` and {target_path} does not: the moved code compiles differently there (e.g. annotations are evaluated when defined); add it at the top of {target_path}"
    )
}

pub fn dunder_file_changes(
    target_path: &str,
    target_dir: &str,
    path: &str,
    source_dir: &str,
) -> String {
    format!(
        "`__file__` will name {target_path} in `{target_dir}/`, not {path} in `{source_dir}/`; paths built from it change"
    )
}

pub fn dunder_name_changes(path: &str) -> String {
    format!("`__name__` will be the target module's name, not {path}'s")
}

// -- Rust ---------------------------------------------------------------------------------

pub fn macro_rules_by_position(name: &str) -> String {
    format!(
        "`{name}` is a `macro_rules!` macro: macros are visible by their textual position, not by module path, so moving one needs `#[macro_use]` or `#[macro_export]` changes the heuristic does not make; move it by hand"
    )
}

pub fn module_declaration_moves(name: &str) -> String {
    format!(
        "`mod {name};` only declares a module whose file Rust finds next to the declaring file; moving the declaration would make Rust look for that file elsewhere. Move the module's file instead"
    )
}

pub fn outside_the_crate_sources(src: &str) -> String {
    format!("is outside `{src}`, where the crate's modules live")
}

pub fn invalid_module_segment(bad: &str) -> String {
    format!("has `{bad}` in its path, which is not a valid Rust module name")
}

pub fn no_declaring_file(src: &str, parents: &str, last: &str) -> String {
    format!(
        "neither `{src}/{parents}.rs` nor `{src}/{parents}/mod.rs` exists to declare `mod {last};`"
    )
}

pub fn module_not_declared(parent: &str, segment: &str) -> String {
    format!("{parent} does not declare `mod {segment};`")
}

pub fn inline_module_on_the_way(segment: &str, parent: &str) -> String {
    format!("`mod {segment}` has a body in {parent}, so no file provides that module")
}

pub fn not_in_a_package_of_cargo(source: &str) -> String {
    format!("{source} is not in a Cargo package (no Cargo.toml with [package] above it)")
}

pub fn another_package(target: &str, source: &str) -> String {
    format!("{target} is not in the same Cargo package as {source}")
}

pub fn not_a_module_of_the_crate(source: &str, src: &str) -> String {
    format!(
        "{source} is not declared as a module of the crate (no chain of `mod` declarations from {src}/lib.rs or {src}/main.rs reaches it)"
    )
}

pub fn root_of_another_crate(target: &str, source: &str, root: &str) -> String {
    format!("{target} is the root of another crate than {source} (whose root is {root})")
}

pub fn target_module_is_inline(last: &str, parent: &str, target: &str) -> String {
    format!("`mod {last}` has a body in {parent}, so {target} would not be used")
}

pub fn crate_not_checked(target: &str, reason: &str) -> String {
    format!("could not check that {target} is a module of the crate: {reason}")
}

pub fn gated_target(target: &str, cfg: &str, file: &str, what: &str) -> String {
    format!(
        "{target} is compiled only in the builds `{cfg}` selects (its `mod` in {file}): moved there, {what} is gone from every other build, and the code that uses it no longer compiles there; move it to a module every build compiles, or gate its users alike"
    )
}

pub fn ungated_source(source: &str, cfg: &str, file: &str, target: &str, what: &str) -> String {
    format!(
        "{source} is compiled only in the builds `{cfg}` selects (its `mod` in {file}), and {target} in builds without it too: moved there, {what} is compiled in those builds as well, where what it uses from the gated builds alone (an optional dependency, items under the same `cfg`) is missing and the build fails; put `{cfg}` on it and on the imports it brought, or move it into a module under the same `cfg`"
    )
}

pub fn private_module_on_the_way(
    module: &str,
    file: &str,
    source: &str,
    crate_path: &str,
) -> String {
    format!(
        "`mod {module}` is private in {file}, so {source} cannot reach `{crate_path}`; make it `pub(crate) mod {module}`"
    )
}

pub fn becomes_pub_crate(name: &str, source: &str) -> String {
    format!("`{name}` becomes `pub(crate)`: {source} still uses it from another module")
}

pub fn already_imported(source: &str, path: &str) -> String {
    format!("{source} already imports `{path}`; no import added")
}

pub fn public_api_lost(name: &str, old_path: &str, new_path: &str, module: &str) -> String {
    format!(
        "`{name}` was public API at `{old_path}`; at `{new_path}` other crates cannot reach it because `mod {module}` is not `pub`: re-export it with `pub use` or make the module `pub`"
    )
}

pub fn public_api_moved(name: &str, old_path: &str, new_path: &str) -> String {
    crate::refactor::guards::wording::public_api_moved(
        name,
        old_path,
        new_path,
        "other crates",
        "`pub use`",
    )
}

pub fn module_declared(decl: &str, parent: &str, target: &str) -> String {
    format!("declared `{decl}` in {parent} so that {target} is compiled as part of the crate")
}

pub fn location_macro(moved: &str, name: &str, target_path: &str, path: &str) -> String {
    format!(
        "`{moved}` uses `{name}!()`, which describes where the code is: after the move it gives {target_path}'s, not {path}'s"
    )
}

pub fn include_macro(moved: &str, name: &str, target_path: &str, path: &str) -> String {
    format!(
        "`{moved}` uses `{name}!`, whose path is relative to the file: from {target_path} it points elsewhere than from {path}"
    )
}

pub fn trait_not_in_scope(
    name: &str,
    method: &str,
    trait_name: &str,
    path: &str,
    file_name: &str,
) -> String {
    format!(
        "`{name}` calls `{method}`, a method of the trait `{trait_name}`, which {path} has in scope; {file_name} does not import it"
    )
}

pub fn tuple_fields_become_pub_crate(name_path: &str, source: &str) -> String {
    format!(
        "the private fields of `{name_path}` become `pub(crate)`: {source} still builds it or reads a field by position"
    )
}

pub fn staying_tuple_fields_become_pub_crate(name: &str, target: &str) -> String {
    format!(
        "the private fields of `{name}` become `pub(crate)`: the moved code in {target} builds it or reads a field by position"
    )
}

pub fn staying_field_becomes_pub_crate(field: &str, name: &str, target: &str) -> String {
    format!(
        "field `{field}` of `{name}` becomes `pub(crate)`: the moved code in {target} uses a field of that name"
    )
}

pub fn field_becomes_pub_crate(field: &str, name_path: &str, source: &str) -> String {
    format!(
        "field `{field}` of `{name_path}` becomes `pub(crate)`: {source} uses a field of that name"
    )
}

pub fn private_member(
    name: &str,
    how: &str,
    ty: &str,
    member: &str,
    path: &str,
    line: usize,
) -> String {
    format!(
        "`{name}` {how}: `{ty}::{member}` is private to {path} (line {line}); from the target module it is out of reach (E0624): make it `pub(crate)`"
    )
}

pub fn use_path_moves(path: &str, new_path: &str) -> String {
    format!("imports `{path}`, which moves to `{new_path}`: update the path")
}

pub fn glob_import_moves(path: &str, name: &str, new_path: &str) -> String {
    format!(
        "imports `{path}` and mentions `{name}`, which moves to `{new_path}`: it may need an import of its own"
    )
}

pub fn qualified_path_moves(head: &str, name: &str, new_path: &str) -> String {
    format!("refers to `{head}::{name}`, which moves to `{new_path}`: update the path")
}

pub fn include_path_moves(macro_name: &str, target_path: &str, path: &str) -> String {
    format!(
        "`{macro_name}!` reads its path relative to the file: from {target_path} it points elsewhere than from {path}"
    )
}

pub fn super_path_moves(name_path: &str, target_path: &str) -> String {
    format!("`{name_path}` uses `super::`, which names another module from {target_path}")
}
