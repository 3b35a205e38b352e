//! Every sentence of rename: refusals (same name, a collision, nothing to rename) and findings
//! (the possible references left alone, the aliases kept).

pub fn same_name(name: &str) -> String {
    format!("the symbol is already called `{name}`; give a different `new_name`")
}

pub fn quoted_not_lifetime(new_name: &str, label: &str) -> String {
    format!(
        "`{new_name}` is a lifetime's name, but the symbol is a {label}; give the new name without the `'`"
    )
}

pub fn collision(new_name: &str, path: &str, line: usize, what: &str, scope: &str) -> String {
    format!(
        "renaming to `{new_name}` would collide: {path}:{line} already has a {what} `{new_name}` {scope}; choose another name"
    )
}

/// A collision of the name as the language reads it (`message`, worded with that name).
pub fn read_as(new_name: &str, read_as: &str, language: &str, form: &str, message: &str) -> String {
    format!("{language} reads `{new_name}` as `{read_as}` ({form}): {message}")
}

pub fn captured(new_name: &str, path: &str, line: usize, label: &str) -> String {
    format!(
        "renaming the {label} to `{new_name}` would change what {path}:{line} means: `{new_name}` is already used there for something else; choose another name"
    )
}

pub fn in_module() -> &'static str {
    "in the same module"
}

pub fn in_type(owner: &str) -> String {
    format!("in `{owner}`")
}

pub fn where_used() -> &'static str {
    "where a reference would be renamed"
}

pub fn possible_left(name: &str, why: &str) -> String {
    format!(
        "possible reference to `{name}` left unchanged ({why}); include it with `include_possible` if it is the same symbol"
    )
}

pub fn possible_included(name: &str, why: &str) -> String {
    format!("possible reference to `{name}` renamed because you included it ({why})")
}

pub fn unknown_include(location: &str) -> String {
    format!(
        "`include_possible` names {location}, which is not a possible reference of this symbol; give `path:line:column` of one listed in the warnings"
    )
}

pub fn entry_point(name: &str) -> String {
    format!(
        "`{name}` is the entry point of a binary, build script or example: renamed, that program has no `main` and will not build (E0601) — unless this `main` is not one"
    )
}

pub fn trait_method(name: &str, trait_name: &str, owner: &str) -> String {
    format!(
        "`{name}` implements the trait `{trait_name}` for `{owner}`: the trait must have a method of the new name too — a trait of this project is renamed with all its impls, a library's trait cannot be (this impl would no longer implement it, E0407)"
    )
}

pub fn library_trait_method(name: &str, trait_name: &str, owner: &str) -> String {
    format!(
        "`{name}` implements the trait `{trait_name}` for `{owner}`, and this project does not define `{trait_name}`: the method's name is the trait's, so renamed, the impl would no longer implement it (E0407); rename the method in the trait's own crate, or give `{owner}` an inherent method of the new name that calls it"
    )
}

pub fn special_name(name: &str) -> String {
    format!(
        "`{name}` is a name Python itself looks up (construction, iteration, indexing, truth, operators…): renamed, those implicit uses no longer reach it"
    )
}
