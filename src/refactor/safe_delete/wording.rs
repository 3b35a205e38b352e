//! Every sentence of safe delete: the refusals (still referenced, not something it deletes, a
//! trait impl's method) and the findings (what went with the definition, dynamic uses).

/// The refusal of a symbol that is still referenced; `listed` is one `path:line (what)` per
/// reference, certain ones first.
pub fn still_referenced(name: &str, label: &str, listed: &[String]) -> String {
    let count = listed.len();
    let plural = if count == 1 {
        "reference"
    } else {
        "references"
    };
    format!(
        "`{name}` ({label}) is still referenced outside its definition — {count} {plural}: {}; nothing was deleted. Remove or redirect those uses first (a possible reference may be another symbol of the same name: check it), then delete again",
        listed.join(", ")
    )
}

/// One reference of the refusal: `path:line (why)`.
pub fn reference_item(location: &str, role: &str, possible: Option<&str>) -> String {
    match possible {
        Some(why) => format!("{location} (possible {role}: {why})"),
        None => format!("{location} ({role})"),
    }
}

/// What a reference does, in a word, for the list of a refusal.
pub fn role_word(role: crate::lang::refs::Role) -> &'static str {
    use crate::lang::refs::Role;
    match role {
        Role::Definition => "definition",
        Role::Override => "override",
        Role::Call => "call",
        Role::Use => "use",
        Role::Import => "import",
        Role::ReExport => "re-export",
        Role::DunderAll => "`__all__` entry",
        Role::KeywordArgument => "keyword argument",
        Role::FieldInit => "field",
        Role::Text => "mention",
    }
}

/// An import that stays; its reason.
pub fn import_kept(kept: crate::lang::removal::ImportKept) -> &'static str {
    use crate::lang::removal::ImportKept;
    match kept {
        ImportKept::Aliased => "import under an alias",
        ImportKept::NestedList => "only item of a nested `use` list",
        ImportKept::OtherForm => "import of a form candor does not take apart",
    }
}

pub fn not_deletable(name: &str, label: &str) -> String {
    format!(
        "`{name}` is a {label}: safe delete removes a function, method, class, struct, enum, union, trait, type alias or a module-level variable, constant or static; remove a {label} by hand (inline variable or change signature can help)"
    )
}

pub fn impl_block(name: &str) -> String {
    format!(
        "`{name}` names an `impl` block: safe delete removes items one at a time; delete its methods, or delete the type `{name}` itself (its `impl` blocks in the same file go with it)"
    )
}

pub fn module_or_macro(name: &str, label: &str) -> String {
    format!(
        "`{name}` is a {label}: safe delete does not remove modules or macros (their uses are not all names the references engine follows); remove it by hand"
    )
}

pub fn trait_impl_method(name: &str, trait_name: &str, owner: &str) -> String {
    format!(
        "`{name}` implements the trait `{trait_name}` for `{owner}`: a trait impl's method cannot be deleted alone — the impl would no longer implement the trait (E0046) unless the trait has a default; delete it from the trait `{trait_name}` first, or remove the whole `impl {trait_name} for {owner}`"
    )
}

pub fn deleted(name: &str, label: &str, path: &str, first: usize, last: usize) -> String {
    format!(
        "deleted the {label} `{name}` ({path}:{first}-{last}) with its doc comments, attributes or decorators: no reference outside its own definition was found"
    )
}

pub fn python_pass(name: &str) -> String {
    format!("`{name}` was the only statement of its block: `pass` is left in its place")
}

pub fn impl_removed(name: &str, path: &str, first: usize, last: usize) -> String {
    format!("the `impl` block of `{name}` at {path}:{first}-{last} was deleted with it")
}

pub fn import_removed(name: &str, reexport: bool) -> String {
    if reexport {
        format!("removed this re-export of `{name}`: nothing else used it")
    } else {
        format!("removed this import of `{name}`: nothing else used it")
    }
}

pub fn all_entry_removed(name: &str) -> String {
    format!("removed `{name}` from `__all__`")
}

pub fn dynamic_use(name: &str, why: &str) -> String {
    format!(
        "a string here may name `{name}` dynamically ({why}): the references engine cannot tell whether this reaches the deleted definition; check that nothing looks `{name}` up at run time"
    )
}

pub fn resolution_note(source: &str, name: &str) -> String {
    format!(
        "searched by {source}: no certain or possible reference to `{name}` outside its definition"
    )
}

pub fn dynamic_note(name: &str, strings: usize) -> String {
    match strings {
        0 => format!("no string naming `{name}` was found in the project's source files"),
        1 => "1 string naming it is listed as a warning".to_string(),
        n => format!("{n} strings naming it are listed as warnings"),
    }
}

pub fn string_names_it() -> &'static str {
    "a string that names it: a `getattr`, a key, a patch target?"
}
