//! The sentences of the cross-checks added with issue 24 (jumps, patterns, imports, renames, the
//! public-API guard of inline), each with the stable kind its finding carries.

use crate::lang::jumps::JumpKind;

pub const RETURN_IN_BLOCK: &str = "cross.return_in_block";
pub const JUMP_LEAVES: &str = "cross.jump_leaves_function";
pub const UNEVEN_OR_PATTERN: &str = "cross.uneven_or_pattern";
pub const INVALID_FIELD_PATTERN: &str = "cross.invalid_field_pattern";
pub const UNUSED_IMPORT: &str = "cross.unused_import";
pub const TRAIT_NOT_IMPORTED: &str = "cross.trait_not_imported";
pub const OTHER_SYMBOL_KIND: &str = "cross.rename_other_kind";
pub const KEYWORD_LEFT: &str = "cross.keyword_left";
pub const REMOVED_BUT_IMPORTED: &str = "cross.removed_but_imported";
pub const REMOVED_PUBLIC: &str = "cross.removed_public";
pub const PATCH_LEFT: &str = "cross.patch_left";
pub const REMOVED_SPECIAL: &str = "cross.removed_special";
pub const REMOVED_TRAIT_METHOD: &str = "cross.removed_trait_method";

pub fn removed_trait_method(name: &str, implemented: &str) -> String {
    format!(
        "the inline removed `{name}` from an `impl {implemented}`: the impl no longer has every item the trait requires (E0046), or, where the trait has a default body, calls through the trait now run that one instead"
    )
}
pub const INLINED_NAME_MISSING: &str = "cross.inlined_name_missing";

pub fn return_in_block(function: &str, inlined: &str) -> String {
    format!(
        "this `return` came into `{function}` with the body of `{inlined}`: it now returns from `{function}` instead of giving the value of the inlined code, so the result does not compile (E0308) or computes something else; inline it by hand (turn the early return into an `if`/`else` value)"
    )
}

pub fn jump_leaves(kind: JumpKind, function: &str, rust: bool) -> String {
    match kind {
        JumpKind::Break | JumpKind::Continue => format!(
            "`{}` in `{function}` targets a loop outside the new function: {}; keep the loop's control in the selection, or return a value the caller turns into the `{}`",
            kind.spelling(),
            if rust {
                "it does not compile (E0268)"
            } else {
                "Python raises SyntaxError"
            },
            kind.spelling()
        ),
        JumpKind::Try => format!(
            "`?` in `{function}` returned from the function the code came from, but `{function}` does not return a `Result` or an `Option`: it does not compile (E0277); give `{function}` that return type or keep the `?` in the caller"
        ),
        JumpKind::Await => format!(
            "`await` in `{function}`, which is not async: {}; make `{function}` async and await its call",
            if rust {
                "it does not compile (E0728)"
            } else {
                "Python raises SyntaxError"
            }
        ),
        JumpKind::Yield => format!(
            "`yield` in `{function}` makes it a generator: the caller gets a generator object and its own `yield` is gone, so it computes something else; keep the `yield` in the caller (`yield from {function}(…)`)"
        ),
        JumpKind::Return => format!("`return` in `{function}` leaves it"),
    }
}

pub fn uneven_or_pattern(pattern: &str, names: &[String]) -> String {
    format!(
        "the alternatives of `{pattern}` no longer bind the same names ({}): it does not compile (E0408); a rename must change every alternative",
        names
            .iter()
            .map(|n| format!("`{n}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

pub fn invalid_field_pattern(pattern: &str) -> String {
    format!(
        "`{pattern}` puts `ref`/`mut` before `field: pattern`, which Rust does not accept; write `field: ref name` (or `field: mut name`)"
    )
}

pub fn unused_import(import: &str) -> String {
    format!(
        "the result adds `{import}`, which nothing in the file uses: an unused import (remove it)"
    )
}

pub fn inlined_trait_not_imported(
    method: &str,
    trait_name: &str,
    source: &str,
    target: &str,
    import: &str,
) -> String {
    format!(
        "the inlined code calls `{method}` of the trait `{trait_name}`, which `{source}` imports and `{target}` does not: it does not compile here (E0599); add `{import}` to `{target}`"
    )
}

pub fn trait_not_imported(
    method: &str,
    trait_name: &str,
    source: &str,
    target: &str,
    import: &str,
) -> String {
    format!(
        "the moved code calls `.{method}(…)` of the trait `{trait_name}`, which `{source}` imports and `{target}` does not: it does not compile there (E0599); add `{import}` to `{target}`"
    )
}

pub fn other_symbol_kind(old: &str, target: &str, touched: &str) -> String {
    format!(
        "the rename of the {target} `{old}` also renamed a {touched} of the same name here: a different symbol; check that it should change"
    )
}

pub fn keyword_left(keyword: &str, new_name: &str, function: &str) -> String {
    format!(
        "this call of `{function}` still passes `{keyword}=`, but the parameter is now `{new_name}`: Python raises TypeError when it runs; rename the keyword to `{new_name}=`"
    )
}

pub fn removed_but_imported(name: &str, defined_in: &str) -> String {
    format!(
        "this file imports `{name}`, but the inline removed its definition from `{defined_in}`: the import fails when it runs (or does not compile); keep the definition or remove the import"
    )
}

pub fn removed_public(name: &str, how: &str) -> String {
    format!(
        "the inline removed `{name}`, which is public ({how}): code outside the project (its tests, its users) may still import it; keep the definition if anything outside uses it"
    )
}

pub fn patched_moved(dotted: &str, name: &str, target_module: &str) -> String {
    format!(
        "`{dotted}` names `{name}` where it was before the move: a patch of this path (`mock.patch`, `monkeypatch`) replaces only the old module's name, while code that imports `{name}` from `{target_module}` keeps the real one; patch `{target_module}.{name}`"
    )
}

pub fn patched_read(dotted: &str, moved: &str, name: &str, target_module: &str) -> String {
    format!(
        "`{dotted}` names the `{name}` that `{moved}` read from its old module: after the move `{moved}` reads `{name}` from `{target_module}`, so a patch of this path (`mock.patch`, `monkeypatch`) no longer reaches it; patch `{target_module}.{name}`"
    )
}

pub fn removed_special(name_path: &str, name: &str) -> String {
    format!(
        "the inline removed `{name_path}`, a method Python calls itself (`{name}`: by an operator, a call of the object, iteration, construction…): those implicit uses are not calls the inline could replace, and they now fail or reach a base class's `{name}`; keep the method"
    )
}

pub fn deleted_special(name_path: &str, name: &str) -> String {
    format!(
        "the safe delete removed `{name_path}`, a method Python calls itself (`{name}`: by an operator, a call of the object, iteration, construction…): those implicit uses are no calls a search finds, so finding none proves nothing, and they now fail or reach a base class's `{name}`; keep the method"
    )
}

pub fn inlined_path_not_imported(name: &str, source: &str, target: &str) -> String {
    format!(
        "the inlined code names `{name}::…`, which `{source}` imports and `{target}` neither imports nor defines: it does not compile here (E0433); add the `use` of `{name}` that `{source}` has"
    )
}

pub fn inlined_item_not_imported(name: &str, source: &str, target: &str) -> String {
    format!(
        "the inlined code calls `{name}`, which `{source}` defines and `{target}` neither imports nor defines: it does not compile here (E0425); import it (and make it visible to `{target}`) or keep the call"
    )
}

pub const PLACE_MOVED: &str = "cross.place_moved";

pub fn place_moved(expr: &str, name: &str) -> String {
    format!(
        "`let {name} = {expr};` binds a place (a field, an element or what a reference points to) by value: it moves it out, which does not compile (E0507) unless its type is `Copy`; bind a reference (`&{expr}` or `&mut {expr}`) instead"
    )
}

pub const UNDECLARED_GENERICS: &str = "cross.undeclared_generics";

/// `missing`: the source function's generic parameters the new function names and does not
/// declare, in the order it names them.
pub fn undeclared_generics(new_name: &str, source: &str, missing: &[String]) -> String {
    let quoted: Vec<String> = missing.iter().map(|m| format!("`{m}`")).collect();
    let listed = match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    };
    let (them, are) = match missing.len() {
        1 => ("it", "is a generic parameter"),
        _ => ("them", "are generic parameters"),
    };
    format!(
        "`{new_name}` names {listed}, which {are} of `{source}` that `{new_name}` does not declare: it does not compile (E0261 for a lifetime, E0412 for a type, E0425 for a const); declare {them} on `{new_name}`, with the bounds and `where` predicates about {them}"
    )
}

pub const MODULE_ATTRIBUTE: &str = "cross.module_attribute";

pub fn module_attribute(name: &str, star_takes_it: bool) -> String {
    let star = if star_takes_it {
        format!(
            ", and `from … import *` now imports it (the module has no `__all__`; `_{name}` would keep it out)"
        )
    } else {
        String::new()
    };
    format!(
        "`{name}` is bound at module level: it is a new attribute of the module, which code that lists the module's names sees (`dir()`, `vars()`, a test that compares namespaces){star}"
    )
}

pub const MISSING_LIFETIME: &str = "cross.missing_lifetime";

/// `inputs`: how many lifetimes the parameters have (0, or 2 and more, with no `&self`).
pub fn missing_lifetime(function: &str, returned: &str, inputs: usize) -> String {
    let why = if inputs == 0 {
        "none of its parameters is a reference (or has a lifetime) for it to borrow from"
            .to_string()
    } else {
        format!(
            "it takes {inputs} references and no `&self`, so Rust cannot tell which one it borrows from"
        )
    };
    format!(
        "the new function `{function}` returns `{returned}`, a borrow with no named lifetime, and {why}: it does not compile (E0106, missing lifetime specifier); return an owned value, pass the borrowed value in by reference, or name the lifetime (`fn {function}<'a>(…: &'a …) -> &'a …`)"
    )
}

pub const INLINED_GENERATOR: &str = "cross.inlined_generator";

pub fn inlined_generator(inlined: &str) -> String {
    format!(
        "`{inlined}` is a generator (it `yield`s): its body pasted here makes the function around it a generator too, and the value of the call (the generator object) is gone, so this code computes something else or fails (`TypeError`) when it runs; keep the call of `{inlined}`"
    )
}

pub const DOC_EXAMPLE_LEFT: &str = "cross.doc_example_left";

pub fn doc_example_left(written: &str, new_name: &str) -> String {
    format!(
        "this documentation example still calls `{written}`, which the rename changed to `{new_name}`: `cargo test` compiles the example and fails (E0599/E0425); rename it in the example too"
    )
}

pub const MODULE_CHANGED: &str = "cross.module_changed";

/// `kind`: "function" or "class".
pub fn module_changed(kind: &str, name: &str, old: &str, new: &str) -> String {
    format!(
        "the {kind} `{name}` is now defined in `{new}`: its `__module__` is `{new}`, not `{old}`, and so is the module its repr names, where pickle records it (data pickled before the move names `{old}.{name}` and loads only while `{old}` still has `{name}`) and the key of any registry keyed by module and name"
    )
}

pub const MODULE_READ: &str = "cross.module_read";

pub fn module_read(name: &str, old: &str, new: &str) -> String {
    format!(
        "reads `{name}.__module__`, which is now `{new}` (it was `{old}`): a comparison with the old module's name no longer holds"
    )
}

pub const NAME_READ: &str = "cross.name_read";

pub const NAME_HANDED_ON: &str = "cross.name_handed_on";

/// `receiver`: the callee it is passed to, as written, when it is an argument.
pub fn name_handed_on(new: &str, old: &str, receiver: Option<&str>) -> String {
    let handed = match receiver {
        Some(callee) => format!("passes `{new}` to `{callee}`"),
        None => format!("hands `{new}` on as a value"),
    };
    format!(
        "{handed}: what receives it can read its name (`__name__`), which now says `{new}` where it said `{old}` — a name it shows, compares or keys on changes with it"
    )
}

/// `attribute`: `__name__` or `__qualname__`.
pub fn name_read(new: &str, attribute: &str, old: &str) -> String {
    format!(
        "reads `{new}.{attribute}`, which now says `{new}` where it said `{old}`: a comparison with the old name, or a key made from it (a registry, a dispatch table) no longer matches"
    )
}
