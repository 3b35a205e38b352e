//! Every sentence inline function says: its refusals, the reasons a call or a mention is left
//! alone, and its findings. The logic decides; these functions word it, in one place.

use crate::lang::python::body::{Blocker, Conditional, NoStatements, ParamProblem};

// -- the driver ------------------------------------------------------------------------------

pub fn recursive_call(name: &str, line: usize) -> String {
    format!("`{name}` calls itself at line {line}; a recursive function cannot be inlined")
}

pub fn recursive_reference(name: &str, line: usize) -> String {
    format!(
        "the body of `{name}` refers to `{name}` itself at line {line}; a recursive function cannot be inlined"
    )
}

pub fn file_not_read(path: &str, why: &str, name: &str) -> String {
    format!("{path} was not read ({why}); it may call `{name}`, so the definition is kept")
}

pub fn overlap(name: &str, line: usize, other_line: usize) -> String {
    format!(
        "the call of `{name}` at line {line} overlaps the call inlined at line {other_line} (nested, or in the same statement); run the refactor again to inline it"
    )
}

pub fn call_not_inlined(name: &str, line: usize, why: &str) -> String {
    format!("the call of `{name}` at line {line} is not inlined: {why}")
}

pub fn definition_removed(name: &str, first_line: usize, end_line: usize) -> String {
    format!(
        "removed the definition of `{name}` (lines {first_line}-{end_line}): every call was inlined"
    )
}

pub fn import_removed(name: &str) -> String {
    format!("removed the import of `{name}`, unused now")
}

pub fn definition_kept(name: &str, places: usize) -> String {
    format!(
        "the definition of `{name}` is kept: {places} place(s) still need it (see the warnings)"
    )
}

pub fn no_call(name: &str, language: &str) -> String {
    format!(
        "found no call of `{name}` in the project's {language} files, so there is nothing to inline; the definition is left as it is (delete it by hand if it is really unused)"
    )
}

pub fn nothing_inlinable(name: &str, sites: &str) -> String {
    format!("no call of `{name}` can be inlined, so nothing was changed: {sites}")
}

pub fn inlined(name: &str, line: usize) -> String {
    format!("inlined the call of `{name}` at line {line}")
}

pub fn not_in_tree(name: &str) -> String {
    format!("could not find the definition of `{name}` in the syntax tree")
}

pub fn no_body(name: &str) -> String {
    format!("`{name}` has no body")
}

pub const NOT_WHERE_PARSED: &str = "the call is not where the parser put it";
pub const NOT_THIS_FUNCTION: &str = "it does not call this function";

pub fn defined_twice(name: &str, path: &str, line: usize) -> String {
    format!(
        "`{name}` is defined more than once in {path}; the heuristic cannot tell which one the call at line {line} runs"
    )
}

pub fn early_return(name: &str, line: usize) -> String {
    format!(
        "`{name}` returns before its end (`return` at line {line}, not in a final position); inlined, that `return` would leave the caller instead, so candor does not inline it"
    )
}

pub fn mentioned_in_comment(name: &str, line: usize) -> String {
    format!("`{name}` is mentioned in a comment at line {line}; it is not changed")
}

pub fn mentioned_in_string(name: &str, line: usize) -> String {
    format!("`{name}` is mentioned in a string at line {line}; it is not changed")
}

pub fn imported_under_alias(name: &str, line: usize) -> String {
    format!(
        "`{name}` is imported under another name at line {line}; calls through that name are not followed, so the definition is kept"
    )
}

pub fn reads_caller_binding(name: &str) -> String {
    format!(
        "the inlined body reads `{name}`, which the caller binds itself; it now reads the caller's `{name}`"
    )
}

pub fn receiver_type_unknown(receiver: &str, name: &str, line: usize, owner: &str) -> String {
    format!(
        "`{receiver}.{name}(...)` at line {line} may call `{owner}`, but the heuristic cannot tell the type of `{receiver}` (no type analysis); it is left as it is"
    )
}

// -- Rust ------------------------------------------------------------------------------------

pub fn rust_declaration_only(name: &str, line: usize) -> String {
    format!("`{name}` (line {line}) is a declaration without a body; there is nothing to inline")
}

pub fn rust_attribute(name: &str, attribute: &str, line: usize) -> String {
    format!(
        "`{name}` has the attribute `#[{attribute}]` (line {line}); inlining would drop what it does, so candor does not inline it"
    )
}

pub fn rust_async(name: &str, line: usize) -> String {
    format!(
        "`{name}` (line {line}) is `async`: a call makes a future, so the body cannot replace it; inline it by hand"
    )
}

pub fn rust_trait_method(name: &str, line: usize) -> String {
    format!(
        "`{name}` (line {line}) is a trait method; implementations and callers go through the trait, so it cannot be inlined"
    )
}

pub fn rust_no_impl(name: &str) -> String {
    format!("could not find the impl of `{name}`")
}

pub fn rust_trait_impl(name: &str, line: usize, trait_text: &str) -> String {
    format!(
        "`{name}` (line {line}) implements the trait `{trait_text}`; the impl needs it, so it cannot be removed or inlined"
    )
}

pub fn rust_unreadable_parameter(name: &str, line: usize) -> String {
    format!("could not read a parameter of `{name}` at line {line}")
}

pub fn rust_variadic(name: &str, line: usize) -> String {
    format!("`{name}` is variadic (line {line}); it cannot be inlined")
}

pub fn rust_generic_in_body(name: &str, generic: &str, line: usize) -> String {
    format!(
        "the body of `{name}` uses its generic parameter `{generic}` (line {line}), which means nothing at the call sites; inline it by hand"
    )
}

pub fn rust_try(name: &str, line: usize) -> String {
    format!(
        "the body of `{name}` uses `?` (line {line}); inlined, it would return from the caller instead, so candor does not inline it"
    )
}

pub fn rust_returning_macro(name: &str, macro_name: &str, line: usize) -> String {
    format!(
        "the body of `{name}` calls `{macro_name}!` (line {line}), which may return from the function; inlined, it would return from the caller instead"
    )
}

pub fn rust_receiver_type_unknown(
    receiver: &str,
    name: &str,
    line: usize,
    type_name: &str,
    borrow: &str,
) -> String {
    format!(
        "`{receiver}.{name}(...)` at line {line} may call `{type_name}::{name}`, but the heuristic cannot tell the type of `{receiver}` (no type analysis); it is left as it is, so the definition is kept. Write it as `{type_name}::{name}({borrow}{receiver}, ...)` to have it inlined"
    )
}

pub fn rust_doc_test(name: &str, line: usize) -> String {
    format!(
        "`{name}` is used in a doc test at line {line}; doc tests run it and it is not inlined there, so the definition is kept"
    )
}

pub fn rust_attribute_string(name: &str, line: usize) -> String {
    format!(
        "an attribute at line {line} names `{name}` in a string (a serde `default = \"…\"`, `with`?); code generated from it calls the function, so the definition is kept"
    )
}

pub fn rust_in_macro(name: &str, macro_name: &str, line: usize) -> String {
    format!(
        "`{name}` appears inside the macro call `{macro_name}!` at line {line}; the heuristic does not rewrite calls inside macros, so the definition is kept"
    )
}

pub fn rust_used_as_value(what: &str, line: usize) -> String {
    format!(
        "`{what}` is used at line {line} as a value, not called, so it is not inlined; the definition is kept"
    )
}

pub fn rust_explicit_generics(callee: &str) -> String {
    format!(
        "it gives explicit generic arguments (`{callee}`), which the bindings cannot carry; remove them or inline it by hand"
    )
}

pub fn rust_impl_generics(type_text: &str, line: usize, path: &str) -> String {
    format!(
        "the body uses the generic parameters of `impl {type_text}` (line {line} of {path}), which mean nothing here"
    )
}

pub fn rust_generic_self(type_text: &str) -> String {
    format!(
        "the body uses `Self`, and `{type_text}` is generic, so `Self` cannot be spelled out here"
    )
}

pub fn rust_no_receiver(name: &str) -> String {
    format!("it passes no receiver for `{name}`'s `self`")
}

pub fn rust_argument_count(given: usize, name: &str, takes: usize) -> String {
    format!("it passes {given} argument(s), and `{name}` takes {takes}")
}

pub fn rust_untyped_tail(name: &str, ty: &str) -> String {
    format!(
        "the value `{name}` returned took its type from the return type `{ty}`, which cannot be written here; if the inlined code no longer compiles, annotate its type"
    )
}

pub fn rust_was_pub(name: &str) -> String {
    format!(
        "`{name}` was `pub`: code outside this project that calls it (another crate) no longer compiles"
    )
}

pub fn rust_receiver_shadows(receiver: &str) -> String {
    format!(
        "the inlined code binds `{receiver}` for `self`, which shadows the caller's `{receiver}` inside the block"
    )
}

pub fn rust_missing_in_scope(name: &str, def_path: &str, path: &str) -> String {
    format!(
        "the inlined body uses `{name}`, which {def_path} defines or imports but {path} does not; bring it into scope there"
    )
}

pub fn rust_missing_trait(method: &str, trait_name: &str, def_path: &str, path: &str) -> String {
    format!(
        "the inlined body calls `{method}`, a method of the trait `{trait_name}`, which {def_path} has in scope and {path} does not; import the trait there"
    )
}

pub fn rust_private_fields(type_name: &str, path: &str) -> String {
    format!(
        "the inlined body reads fields or builds values of `{type_name}`; private fields are not visible from {path}, check that it compiles"
    )
}

pub fn rust_reexported(path: &str, name: &str, line: usize) -> String {
    format!(
        "{path} re-exports `{name}` at line {line} (`pub use`); code using the re-export needs the definition, so it is kept"
    )
}

pub fn rust_nested_use_list(name: &str, line: usize) -> String {
    format!(
        "`{name}` is imported at line {line} in a nested `use` list the heuristic does not edit; remove it by hand, the definition is kept"
    )
}

pub fn rust_other_import_form(name: &str, line: usize) -> String {
    format!(
        "`{name}` is imported at line {line} in a form the heuristic does not edit; the definition is kept"
    )
}

// -- Python ----------------------------------------------------------------------------------

pub fn python_async(name: &str, line: usize) -> String {
    format!(
        "`{name}` (line {line}) is `async`: calling it creates a coroutine, so its body cannot replace the call; inline it by hand"
    )
}

pub fn python_conditional_definition(name: &str, line: usize, at: usize) -> String {
    format!(
        "`{name}` (line {line}) is defined conditionally, inside the statement at line {at}: the body of this definition would replace calls that other branches may define differently; inline it by hand"
    )
}

pub fn python_decorated(name: &str, decorator: &str, line: usize) -> String {
    format!(
        "`{name}` is decorated with `@{decorator}` (line {line}); the inlined body would bypass the decorator, so candor does not inline it"
    )
}

pub fn python_special_method(name: &str, line: usize) -> String {
    format!(
        "`{name}` (line {line}) is a special method that Python calls implicitly; it cannot be inlined"
    )
}

pub fn python_no_self(name: &str, line: usize) -> String {
    format!("the method `{name}` (line {line}) takes no `self` parameter; fix the definition first")
}

pub fn python_parameters(name: &str, problem: ParamProblem) -> String {
    match problem {
        ParamProblem::Splat(line) => format!(
            "`{name}` takes `*args` or `**kwargs` (line {line}); the heuristic cannot bind them, inline it by hand"
        ),
        ParamProblem::Unknown(form, line) => format!(
            "`{name}` has a parameter form the heuristic does not know (`{form}` at line {line})"
        ),
        ParamProblem::Unnamed(line) => {
            format!("could not read a parameter of `{name}` at line {line}")
        }
    }
}

pub fn python_blocker(name: &str, blocker: &Blocker) -> String {
    match blocker {
        Blocker::Yield(line) => format!(
            "`{name}` is a generator (`yield` at line {line}); its body cannot replace a call"
        ),
        Blocker::Declares(keyword, line) => format!(
            "the body of `{name}` declares `{keyword}` (line {line}); pasted into the caller it would change the caller's scope"
        ),
        Blocker::Await(line) => format!("the body of `{name}` awaits (line {line})"),
    }
}

pub fn python_override(other: &str, name: &str, class: &str) -> String {
    format!(
        "`{other}` also defines `{name}`; if its class derives from `{class}`, `self.{name}(...)` calls that dispatched to it now run `{class}`'s inlined body instead"
    )
}

pub fn python_doctest(name: &str, line: usize) -> String {
    format!(
        "`{name}` is used in a doctest example at line {line} (`>>>`); doctests run it and it is not inlined there, so the definition is kept"
    )
}

pub fn python_in_fstring(name: &str, line: usize) -> String {
    format!(
        "`{name}` is used inside an f-string at line {line}; the heuristic does not rewrite calls there, so the definition is kept"
    )
}

pub fn python_in_all(name: &str, line: usize) -> String {
    format!(
        "`{name}` is listed in `__all__` at line {line} (public interface); the definition is kept"
    )
}

pub fn python_name_string(name: &str, line: usize) -> String {
    format!(
        "a string at line {line} names `{name}` (`getattr`, a patch target, an entry point?); that use is not inlined, so the definition is kept"
    )
}

pub fn python_attribute_value(object: &str, name: &str, line: usize) -> String {
    format!(
        "`{object}.{name}` at line {line} is used as a value, not called, so it is not inlined; the definition is kept"
    )
}

pub fn python_used(name: &str, decorator: bool, line: usize) -> String {
    let what = if decorator {
        "used as a decorator"
    } else {
        "used as a value (not called)"
    };
    format!("`{name}` is {what} at line {line}; it is not inlined there, so the definition is kept")
}

pub const PYTHON_NOT_OWN_LINE: &str = "its statement shares a line with the code before it (`if x: ...` or `a; b`); put the statement on its own line first";
pub const PYTHON_SHARED_LINE: &str = "its statement shares a line with another statement (`a; b`); put the statement on its own line first";
pub const PYTHON_NOT_IN_STATEMENT: &str = "the call is not inside a statement";

pub fn python_class_bound(line: usize, path: &str, class: &str) -> String {
    format!(
        "the body uses `super()` or a private `__name` (line {line} of {path}), which only work inside class `{class}`"
    )
}

pub fn python_default_moved(value: &str, param: &str, line: usize, name: &str) -> String {
    format!(
        "the default value `{value}` of `{param}` is now evaluated at the call (line {line}), not once where `{name}` was defined; check that it means the same here"
    )
}

pub fn python_class_attributes(class: &str, names: &str) -> String {
    format!(
        "it is in the body of class `{class}`, where the assignments of the inlined code ({names}) would become class attributes"
    )
}

pub fn python_module_globals(names: &str) -> String {
    format!(
        "the inlined code assigns {names} at the top level of the module, where they become module globals"
    )
}

pub fn python_not_single_return(name: &str) -> String {
    format!(
        "the call is inside an expression and the body of `{name}` is not a single `return` statement; make the call a statement of its own (`x = {name}(...)`) first"
    )
}

pub fn python_hoisted(line: usize) -> String {
    format!(
        "the arguments of the call at line {line} are now evaluated in assignments before its statement, not inside the expression"
    )
}

pub fn python_pass(name: &str) -> String {
    format!("`{name}` was the only statement of its block; `pass` takes its place")
}

pub fn python_class_not_imported(
    path: &str,
    class: &str,
    def_path: &str,
    receiver: &str,
    name: &str,
    line: usize,
) -> String {
    format!(
        "{path} does not import `{class}` from {def_path}, so the heuristic cannot tell that `{receiver}.{name}(...)` at line {line} is this method; it is left as it is"
    )
}

pub fn python_receiver_type_unknown(
    receiver: &str,
    name: &str,
    line: usize,
    class: &str,
) -> String {
    format!(
        "{}, so the definition is kept",
        receiver_type_unknown(receiver, name, line, &format!("{class}.{name}"))
    )
}

pub fn python_overwrites_self(name: &str) -> String {
    format!("binding `{name}` to the first argument would overwrite the caller's own `{name}`")
}

pub fn python_unpacked(argument: &str) -> String {
    format!("it passes `{argument}`; the heuristic cannot match unpacked arguments to parameters")
}

pub fn python_unknown_keyword(keyword: &str, name: &str) -> String {
    format!("it passes `{keyword}=`, which `{name}` does not take")
}

pub fn python_too_many(name: &str) -> String {
    format!("it passes more positional arguments than `{name}` takes")
}

pub fn python_twice(param: &str) -> String {
    format!("it passes `{param}` twice")
}

pub fn python_missing(param: &str) -> String {
    format!("it does not pass `{param}`, which has no default")
}

pub fn python_caller_overwritten(name: &str, at: usize) -> String {
    format!(
        "the inlined code assigns `{name}`, which the caller also uses (line {at}); the caller's `{name}` may be overwritten"
    )
}

pub fn python_missing_import(name: &str, def_path: &str, path: &str) -> String {
    format!(
        "the inlined body uses `{name}`, which {def_path} defines or imports but {path} does not; import it there"
    )
}

pub fn python_reexport(path: &str, name: &str, line: usize) -> String {
    format!(
        "{path} imports `{name}` at line {line}, which re-exports it from the package; the definition is kept"
    )
}

pub fn python_no_statements(place: NoStatements) -> String {
    match place {
        NoStatements::While => "it is in a `while` condition, evaluated again at each turn; the bindings would run once",
        NoStatements::Lambda => "it is inside a `lambda`; statements cannot go there",
        NoStatements::Comprehension => "it is inside a comprehension; its bindings cannot go there",
    }
    .to_string()
}

pub fn python_conditional(place: Conditional, argument: &str) -> String {
    let place = match place {
        Conditional::Ternary => "a conditional expression",
        Conditional::BooleanRight => "the right side of `and`/`or`",
        Conditional::Elif => "an `elif` condition",
        Conditional::CaseOrExcept => "a `case` guard or `except` clause",
    };
    format!(
        "it is in {place}, evaluated only sometimes; moving the argument `{argument}` before the statement would evaluate it always"
    )
}

pub fn engine_unavailable(why: &str) -> String {
    format!(
        "candor's references engine could not resolve the function ({why}); calls were matched by their form only"
    )
}

pub fn engine_possible(why: &str) -> String {
    format!("possible call left in place ({why}); the definition stays for it")
}

/// The notes under the inline caveats saying what candor did about them in this result: the
/// arguments bound to the parameter names, temporaries renamed.
pub fn caveat_notes(
    lang: crate::lang::Language,
    bound_arguments: bool,
    renamed: &[(String, String)],
) -> Vec<crate::honesty::CaveatNote> {
    use crate::honesty::{Caveat, CaveatNote};
    let mut notes = Vec::new();
    if bound_arguments {
        notes.push(CaveatNote::new(
            Caveat::InlineArguments,
            match lang {
                crate::lang::Language::Rust => "arguments bound to parameters with `let`",
                crate::lang::Language::Python => "arguments assigned to the parameter names",
            },
        ));
    }
    if !renamed.is_empty() {
        let list: Vec<String> = renamed
            .iter()
            .map(|(old, new)| format!("`{old}` → `{new}`"))
            .collect();
        notes.push(CaveatNote::new(
            Caveat::InlineShadowing,
            format!("temporaries renamed: {}", list.join(", ")),
        ));
    }
    notes
}
