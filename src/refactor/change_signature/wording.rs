//! Every sentence change signature says: its refusals (a parameter list it cannot take, a call
//! it cannot rewrite) and its findings. The logic decides; these functions word it, in one place.

use crate::lang::Language;

// -- parameter lists as written ------------------------------------------------------------

pub const LIST_MUST_END: &str = "the list must end with `)`";
pub const LIST_MUST_START: &str = "the list must start with `(`";
pub const SLASH_TWICE: &str = "`/` appears twice in new_parameters; Python allows one";
pub const SLASH_FIRST: &str = "`/` needs at least one parameter before it";
pub const BARE_STAR_BEFORE_KWARGS: &str =
    "a bare `*` must be followed by at least one named parameter before `**` parameters";
pub const BARE_STAR_LAST: &str = "a bare `*` must be followed by at least one named parameter";
pub const NOT_AN_EXPRESSION: &str = "does not parse as one Python expression";
pub const ONE_LINE: &str = "spans several lines; give it on one line";
pub const VARIADIC_LAST: &str = "`...` must be the last parameter";
pub const NOT_A_RUST_TYPE: &str = "does not parse as a Rust type; give the type as it would be written in a signature (e.g. `&mut Vec<u8>`)";

pub fn slash_after_star(star: &str) -> String {
    format!("`/` must come before `{star}`")
}

pub fn call_unchanged(at: &str, arguments: usize) -> String {
    format!("call at {at} unchanged ({})", count(arguments))
}

fn count(n: usize) -> String {
    if n == 1 {
        "1 argument".to_string()
    } else {
        format!("{n} arguments")
    }
}

/// `, 3 uses in all` after the first use's line, when there are more.
pub fn uses_in_all(uses: usize) -> String {
    if uses > 1 {
        format!(", {uses} uses in all")
    } else {
        String::new()
    }
}

// -- the calls ----------------------------------------------------------------------------

pub fn calls_a_local(shown: &str, at: &str, name: &str) -> String {
    format!(
        "`{shown}(…)` at {at} calls a local variable or parameter named `{name}`, not the function; left unchanged"
    )
}

pub fn calls_another_types_function(shown: &str, at: &str, last: &str, name: &str) -> String {
    format!(
        "`{shown}(…)` at {at} calls an associated function of `{last}`, not the free function `{name}`; left unchanged"
    )
}

pub fn method_call_of_a_free_function(shown: &str, at: &str, name: &str) -> String {
    format!(
        "`{shown}(…)` at {at} is a method call, not a call of the free function `{name}`; left unchanged"
    )
}

pub fn calls_another_method(shown: &str, at: &str, name: &str) -> String {
    format!(
        "`{shown}(…)` at {at} calls a method named `{name}`, not the function `{name}`; left unchanged"
    )
}

pub fn calls_a_free_function(shown: &str, at: &str, name: &str, type_name: &str) -> String {
    format!(
        "`{shown}(…)` at {at} calls a function named `{name}`, not `{type_name}.{name}`; left unchanged"
    )
}

pub fn names_another_type(shown: &str, at: &str, type_name: &str) -> String {
    format!("`{shown}(…)` at {at} names another type than `{type_name}`; left unchanged")
}

pub fn method_call_without_self(shown: &str, at: &str, type_name: &str, name: &str) -> String {
    format!(
        "`{shown}(…)` at {at} is a method call, but `{type_name}::{name}` has no `self`; left unchanged"
    )
}

pub fn outside_any_class(shown: &str, at: &str) -> String {
    format!("`{shown}(…)` at {at} is outside any class; left unchanged")
}

pub fn calls_the_base_class(shown: &str, at: &str, class: &str, name: &str) -> String {
    format!(
        "`{shown}(…)` at {at} inside `{class}` calls the base class's `{name}`, not `{class}.{name}`; left unchanged"
    )
}

pub fn calls_a_base_of_another_class(
    shown: &str,
    at: &str,
    name: &str,
    enclosing_name: &str,
    class: &str,
) -> String {
    format!(
        "`{shown}(…)` at {at} calls the `{name}` of a base of `{enclosing_name}`, which does not name `{class}`; left unchanged"
    )
}

pub fn calls_through_another_class(
    shown: &str,
    at: &str,
    last: &str,
    name: &str,
    class: &str,
) -> String {
    format!(
        "`{shown}(…)` at {at} looks like a call of `{last}.{name}`, not `{class}.{name}`; left unchanged"
    )
}

pub fn unpacked_arguments(at: &str, quote: &str, new_list: &str) -> String {
    format!(
        "call at {at} passes `{quote}`; it is left unchanged: check it against the new signature {new_list}"
    )
}

pub fn receiver_not_passed(at: &str, arguments: usize, takes: &str) -> String {
    format!(
        "call at {at} passes {}, the new signature takes {takes} after the receiver, which this call does not pass first; left unchanged",
        count(arguments)
    )
}

pub fn bare_generator_argument(at: &str, takes: &str) -> String {
    format!(
        "call at {at} passes 1 argument, the new signature takes {takes}; its only argument is a bare generator expression, so it is left unchanged"
    )
}

pub fn placeholder_argument(at: &str, name: &str, value: &str) -> String {
    format!(
        "call at {at}: no argument for the new parameter `{name}`; passed the placeholder `{value}`, replace it with a real value"
    )
}

pub fn call_updated(at: &str, before: usize, after: usize) -> String {
    format!("call at {at} updated: {before} → {after} arguments")
}

pub fn used_without_a_call(name: &str, at: &str) -> String {
    format!(
        "`{name}` is used at {at} without a call (a subclass, isinstance, a factory?); constructions through it are not updated"
    )
}

pub fn inside_a_macro(name: &str, at: &str) -> String {
    format!(
        "`{name}` appears inside a macro at {at}; a call there is not updated, check it by hand"
    )
}

pub fn used_without_being_called(name: &str, at: &str) -> String {
    format!(
        "`{name}` is used at {at} without being called (passed as a value?); calls through it are not updated"
    )
}

pub fn used_as_a_decorator(name: &str, at: &str) -> String {
    format!("`{name}` is used as a decorator at {at}; that use is not updated")
}

pub fn imported_under_an_alias(name: &str, alias: &str, at: &str) -> String {
    format!(
        "`{name}` is imported as `{alias}` at {at}; calls through `{alias}` are not updated: check them"
    )
}

pub fn imported(name: &str, at: &str) -> String {
    format!("`{name}` is imported at {at}; the import needs no change")
}

pub fn doc_example(at: &str, how: &str, name: &str) -> String {
    format!(
        "a doc example at {at} {how} `{name}` with the old parameters; doc tests run it, and it is not updated: update it by hand"
    )
}

pub fn listed_in_dunder_all(name: &str, at: &str) -> String {
    format!("`{name}` is listed in `__all__` at {at}; nothing to update")
}

pub fn names_in_a_string(at: &str, name: &str) -> String {
    format!(
        "a string at {at} names `{name}` (`getattr`, a patch target, a serde `default = \"…\"`?); a call through it is not updated: check it"
    )
}

pub fn in_a_string(name: &str, at: &str) -> String {
    format!("`{name}` appears in a string at {at}; not updated")
}

pub fn in_a_comment(name: &str, at: &str) -> String {
    format!("`{name}` appears in a comment at {at}; not updated")
}

pub fn stub_keeps_the_old_signature(path: &str, name_path: &str, line: usize) -> String {
    format!(
        "the stub {path} declares `{name_path}` at line {line}; it keeps the old signature: update it to match"
    )
}

/// The kind of the warnings of [`another_definition`] and [`stub_keeps_the_old_signature`].
pub const ANOTHER_DEFINITION: &str = "change_signature.another_definition";

pub fn another_definition(name_path: &str, path: &str, line: usize) -> String {
    format!(
        "another `{name_path}` is defined at {path}:{line}; it keeps its signature, and calls meant for it look the same, so some may have been rewritten: check them"
    )
}

// -- the function -------------------------------------------------------------------------

pub fn not_a_function(name_path: &str, line: usize) -> String {
    format!("`{name_path}` at line {line} is not a function definition the heuristic can read")
}

pub fn no_parameter_list(name_path: &str, line: usize) -> String {
    format!(
        "`{name_path}` at line {line} has no parameter list the heuristic can read (a syntax error?)"
    )
}

// -- the plan -----------------------------------------------------------------------------

pub fn unreadable_parameter(name_path: &str, kind: &str, line: usize) -> String {
    format!(
        "the parameter list of `{name_path}` holds a `{kind}` (line {line}) that the heuristic cannot read; change this signature by hand"
    )
}

pub fn nothing_to_change(name_path: &str, one_line: &str) -> String {
    format!(
        "the new parameter list of `{name_path}` is the same as the old one {one_line}; nothing to change"
    )
}

pub fn decoration_dropped(quote: &str, name_path: &str) -> String {
    format!(
        "`{quote}` in the parameter list of `{name_path}` was dropped with the parameter it belonged to"
    )
}

pub fn file_not_searched(skipped: &str, name: &str, why: &str) -> String {
    format!("{skipped} was not searched for calls of `{name}`: {why}")
}

pub fn removed_parameter_still_used(
    name: &str,
    name_path: &str,
    first: usize,
    more: &str,
) -> String {
    format!(
        "`{name}` is no longer a parameter of `{name_path}`, but its body still uses it (line {first}{more}); rename or replace those uses"
    )
}

pub fn family_changed(name_path: &str, changed: &[String]) -> String {
    format!(
        "the same change was made where the trait has `{name_path}` too, so its declaration and every impl keep one signature: {}",
        changed.join(", ")
    )
}

pub fn library_trait(name_path: &str, trait_name: &str) -> String {
    format!(
        "`{name_path}` implements the trait `{trait_name}`, which this project does not define: its parameters are the trait's, so a changed list no longer implements it (E0050/E0053); change the trait in its own crate, or add an inherent method with the new list"
    )
}

pub fn sibling_unreadable(name_path: &str, path: &str, line: usize) -> String {
    format!(
        "`{name_path}` at {path}:{line} has the same trait method, and its parameter list cannot be read; change both by hand"
    )
}

pub fn sibling_named_otherwise(
    name_path: &str,
    names: &[String],
    other: &str,
    path: &str,
    line: usize,
    other_names: &[String],
) -> String {
    format!(
        "`{other}` at {path}:{line} implements the same trait method as `{name_path}`, and names its parameters ({}) otherwise than it ({}); the new list names parameters, so rename them alike first (refactor_rename_symbol), then change the signature",
        other_names.join(", "),
        names.join(", ")
    )
}

// -- the parameter list the user typed ----------------------------------------------------

pub fn typed_receiver_value(receiver: &str, value: &str) -> String {
    format!(
        "`{receiver}` is the receiver: callers pass it before the dot, so it takes no value; remove `= {value}`"
    )
}

pub fn list_does_not_parse(column: usize, what: &str) -> String {
    format!("the list does not parse at column {column}: {what}; write it as in a definition")
}

pub fn typed_list_needs_types(position: usize, text: &str, spelled: &str) -> String {
    format!("parameter {position} (`{text}`): Rust parameters need a type: write `{spelled}: Type`")
}

pub fn typed_name_twice(spelled: &str) -> String {
    format!("`{spelled}` appears twice; give each parameter its own name")
}

// -- Python's parameter rules -------------------------------------------------------------

pub fn receiver_kept(text: &str, function: &str) -> String {
    format!(
        "the receiver `{text}` of `{function}` is kept as it is; change signature does not change receivers"
    )
}

pub fn marker_with_a_type_or_default(name: &str, position: usize) -> String {
    format!(
        "`{name}` (parameter {position}) is a marker, not a parameter: it takes no type and no default"
    )
}

pub fn parameter_invalid(position: usize, why: &str) -> String {
    format!("parameter {position} of new_parameters: {why}")
}

pub fn type_invalid(spelled: &str, position: usize, ty: &str, why: &str) -> String {
    format!("the type of `{spelled}` (parameter {position}), `{ty}`, {why}")
}

pub fn marker_with_a_default(spelled: &str, position: usize) -> String {
    format!(
        "`{spelled}` (parameter {position}) cannot have a default in Python; remove \"default\""
    )
}

pub fn default_invalid(spelled: &str, position: usize, default: &str, why: &str) -> String {
    format!("the default of `{spelled}` (parameter {position}), `{default}`, {why}")
}

pub fn must_be_last(kw: &str, spelled: &str) -> String {
    format!("`{kw}` must be the last parameter, but `{spelled}` follows it")
}

pub fn second_star(spelled: &str, star: &str) -> String {
    format!("`{spelled}` after `{star}`: Python allows one `*` or `*args` per list")
}

pub fn default_order(spelled: &str, previous: &str) -> String {
    format!(
        "`{spelled}` has no default but comes after `{previous}`, which has one; Python refuses that: give `{spelled}` a default, or move it before `{previous}` (or after a `*`)"
    )
}

pub fn python_name_twice(name: &str) -> String {
    format!("`{name}` is in new_parameters twice; Python refuses a duplicate parameter name")
}

// -- Rust's parameter rules ---------------------------------------------------------------

pub fn receiver_kept_though_given(as_written: &str, function: &str, given: &str) -> String {
    format!(
        "the receiver `{as_written}` of `{function}` is kept as it is; change signature does not change receivers (you gave `{given}`)"
    )
}

pub fn receiver_not_first(spelled: &str, position: usize) -> String {
    format!(
        "`{spelled}` (parameter {position} of new_parameters) can only be the first parameter; leave the receiver out of new_parameters, it is kept"
    )
}

pub fn receiver_not_added(function: &str, spelled: &str) -> String {
    format!(
        "`{function}` has no `self` parameter, and change signature does not add one: remove `{spelled}` from new_parameters"
    )
}

pub fn variadic_not_allowed(position: usize, function: &str) -> String {
    format!(
        "`...` (parameter {position}) is only allowed where `{function}` already is a C-variadic function; remove it"
    )
}

pub fn rust_name_twice(pattern: &str) -> String {
    format!(
        "`{pattern}` is in new_parameters twice; Rust refuses a name bound twice in one parameter list"
    )
}

pub fn rust_default_refused(default: &str, pattern: &str, position: usize) -> String {
    format!(
        "Rust has no default parameter values: remove \"default\": \"{default}\" from `{pattern}` (parameter {position}); on a new parameter, \"default\" is the value its callers pass, but `{pattern}` is an existing parameter whose calls already pass it"
    )
}

pub fn rust_passed_default_invalid(default: &str, pattern: &str, position: usize) -> String {
    format!(
        "\"default\": {default:?} of `{pattern}` (parameter {position}) must be one Rust expression on one line: the value calls pass for the new parameter"
    )
}

pub fn new_parameter_needs_a_type(pattern: &str, function: &str) -> String {
    format!(
        "the new parameter `{pattern}` of `{function}` needs a Rust type: give it as \"type\" (e.g. {{\"name\": \"{pattern}\", \"type\": \"i32\"}}); only a parameter that keeps the name of an old one can leave its type out"
    )
}

pub fn rust_parameter_invalid(position: usize, why: &str) -> String {
    format!(
        "parameter {position} of new_parameters: {why}; a Rust parameter needs an identifier (a pattern such as `(x, y)` is accepted only when it is an existing parameter, written as it is)"
    )
}

pub fn possible_call(at: &str, why: &str) -> String {
    format!(
        "{at}: possible call left unchanged ({why}); update it by hand if it calls this function"
    )
}

pub fn engine_unavailable(why: &str) -> String {
    format!(
        "candor's references engine could not resolve the function ({why}); call sites were matched by their form only"
    )
}

pub fn inside_reordered_arguments(at: &str) -> String {
    format!(
        "call at {at} sits in an argument of another call of the function whose arguments were re-ordered; it was moved as it was, not updated: update it by hand"
    )
}

pub fn dropped_argument_of(at: &str, quote: &str, parameter: &str) -> String {
    format!("call at {at}: dropped the argument `{quote}` of the removed parameter `{parameter}`")
}

pub fn dropped_effects(message: &str) -> String {
    format!("{message}; it is no longer evaluated — check that nothing relied on its effects")
}

pub fn default_passed(at: &str, parameter: &str, value: &str) -> String {
    format!("call at {at}: passed `{value}` for the new parameter `{parameter}` (its \"default\")")
}

pub fn evaluation_order_changed(at: &str, quoted: &[String]) -> String {
    format!(
        "call at {at}: arguments re-ordered by name, so {} are now evaluated in another order; check that their order does not matter",
        quoted
            .iter()
            .map(|q| format!("`{q}`"))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

pub fn comments_between_arguments(at: &str) -> String {
    format!(
        "call at {at} has comments between its arguments, which re-ordering them would lose; left unchanged: re-order it by hand"
    )
}

pub fn cannot_pass_by_keyword(at: &str, parameter: &str) -> String {
    format!(
        "call at {at}: the argument for `{parameter}` can no longer be passed in its position and `{parameter}` is positional-only, so not by keyword either; left unchanged"
    )
}

pub fn extra_positional_unmapped(at: &str, quote: &str, variadic: &str) -> String {
    format!(
        "call at {at} passes `{quote}` to `{variadic}`, which the new signature cannot take in that position; left unchanged"
    )
}

pub fn extra_keyword_unmapped(at: &str, quote: &str) -> String {
    format!(
        "call at {at} passes `{quote}` to `**kwargs`, which the new signature does not have; left unchanged"
    )
}

pub fn more_arguments_than_parameters(at: &str, quote: &str) -> String {
    format!(
        "call at {at} passes `{quote}` beyond the old parameters (it did not match the old signature); left unchanged"
    )
}

pub fn unknown_keyword_argument(at: &str, keyword: &str) -> String {
    format!(
        "call at {at} passes `{keyword}=`, which the old signature has no parameter for; left unchanged"
    )
}

pub fn passed_twice_in_the_call(at: &str, parameter: &str) -> String {
    format!("call at {at} passes `{parameter}` twice; left unchanged")
}

/// The note under "no call-site argument re-ordering or default insertion" saying what candor
/// did about it in this result; `None` when it did nothing.
pub fn arguments_note(done: &super::call_sites::Done) -> Option<crate::honesty::CaveatNote> {
    let calls = |n: usize| {
        if n == 1 {
            "1 call".to_string()
        } else {
            format!("{n} calls")
        }
    };
    let mut parts: Vec<String> = Vec::new();
    if done.reordered > 0 {
        parts.push(format!(
            "arguments re-ordered by name at {}",
            calls(done.reordered)
        ));
    }
    for (name, n) in &done.dropped {
        parts.push(format!("`{name}` dropped at {}", calls(*n)));
    }
    for (name, n) in &done.defaults {
        parts.push(format!("`{name}` passed its \"default\" at {}", calls(*n)));
    }
    for (name, n) in &done.left_to_default {
        parts.push(format!("`{name}` gets its default at {}", calls(*n)));
    }
    (!parts.is_empty()).then(|| {
        crate::honesty::CaveatNote::new(
            crate::honesty::Caveat::SignatureArguments,
            parts.join("; "),
        )
    })
}

pub fn type_not_in_scope(word: &str, parameter: &str, path: &str, lang: Language) -> String {
    let how = match lang {
        Language::Rust => "a `use`",
        Language::Python => "an `import`",
    };
    format!(
        "the type of the new parameter `{parameter}` names `{word}`, which {path} neither declares nor imports (it is not mentioned there); add {how} for it — candor did not"
    )
}

pub fn test_function_takes_no_arguments(name: &str) -> String {
    format!(
        "`{name}` is a test function (`#[test]`): the test harness calls it without arguments, so it cannot take parameters and this will not compile"
    )
}
