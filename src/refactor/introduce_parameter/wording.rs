//! Every sentence of introduce parameter: the refusals (not an expression, not in a function,
//! reads locals, unknown type, a taken name) and the findings (calls updated or left, the
//! occurrences replaced, what the callers must now evaluate).

use crate::lang::expressions::NotAnExpression;

pub fn no_position(which: &str, line: usize, column: usize, path: &str) -> String {
    format!(
        "the {which} position (line {line}, column {column}) is not in {path}; give 1-based lines and columns inside the file (the end column is the one just after the expression's last character)"
    )
}

pub fn not_an_expression(why: &NotAnExpression, selected: &str) -> String {
    let shown = first_line(selected);
    match why {
        NotAnExpression::NotOneNode => format!(
            "the selection `{shown}` is not exactly one expression (it cuts one or spans several); select a whole expression, from its first character to just after its last"
        ),
        NotAnExpression::NotAValue { kind } => format!(
            "the selection `{shown}` is a {kind}, not an expression with a value; select an expression"
        ),
        NotAnExpression::NotARead => format!(
            "the selection `{shown}` is a name being bound, assigned or called, not a value read there; select an expression that is read"
        ),
    }
}

pub fn not_in_function(selected: &str) -> String {
    format!(
        "`{}` is not inside a function (module-level code, a class body or an item's initializer); introduce parameter needs a function to take the parameter",
        first_line(selected)
    )
}

pub fn in_closure(selected: &str, function: &str) -> String {
    format!(
        "`{}` is inside a closure or lambda within `{function}`; introduce parameter adds parameters to named functions only — extract the closure first",
        first_line(selected)
    )
}

pub fn trait_signature(function: &str, trait_name: &str) -> String {
    format!(
        "`{function}` belongs to the trait `{trait_name}` (declared there or implemented here): its parameters are the trait's, and one impl cannot add one; change the trait's method everywhere with change signature"
    )
}

pub fn name_taken(name: &str, function: &str) -> String {
    format!("`{name}` is already a parameter or local of `{function}`; choose another `new_name`")
}

pub fn reads_locals(expression: &str, locals: &[String], function: &str) -> String {
    format!(
        "`{}` reads {} of `{function}`, which no caller has; the callers could not pass it. Select an expression that reads only literals, module-level names or the function's parameters",
        first_line(expression),
        list_names(locals, "the local", "the locals")
    )
}

pub fn unknown_type(expression: &str) -> String {
    format!(
        "the type of `{}` is unknown to candor (no literal, `as` cast, const/static or typed parameter gives it) and a Rust parameter needs one; write it as a cast (`{} as T`), or bind it to a typed constant, then try again",
        first_line(expression),
        first_line(expression)
    )
}

pub fn after_defaults(function: &str, name: &str) -> String {
    format!(
        "`{function}` has parameters with default values before where `{name}` would go, so `{name}` needs one too, and the expression reads the function's parameters, which a default cannot; give `{function}` the parameter with change signature (with a default)"
    )
}

pub fn introduced(expression: &str, name: &str, function: &str, occurrences: usize) -> String {
    let times = if occurrences == 1 {
        "1 occurrence".to_string()
    } else {
        format!("{occurrences} identical occurrences")
    };
    format!(
        "`{}` became the new last parameter `{name}` of `{function}` ({times} replaced)",
        first_line(expression)
    )
}

pub fn occurrence_left(expression: &str, line: usize) -> String {
    format!(
        "the identical `{}` at line {line} was left as it is: a name it reads means something else there",
        first_line(expression)
    )
}

pub fn assigned_in_function(expression: &str, line: usize, name: &str) -> String {
    format!(
        "`{}` is assigned at line {line} of the function: `{name}` keeps the value passed by the call, not the one assigned later",
        first_line(expression)
    )
}

pub fn call_updated(value: &str) -> String {
    format!("this call now passes `{}`", first_line(value))
}

pub fn call_splat(name: &str, function: &str) -> String {
    format!(
        "this call of `{function}` passes `*`/`**` arguments: candor cannot tell which parameter each fills, so it does not pass `{name}`; add it by hand or the call fails"
    )
}

pub fn call_missing(parameter: &str, name: &str) -> String {
    format!(
        "this call gives no value for `{parameter}`, which the expression reads: `{name}` was not added here; add it by hand or the call fails"
    )
}

pub fn call_no_receiver(name: &str) -> String {
    format!(
        "this call has no receiver candor can read for the expression's `self`: `{name}` was not added here; add it by hand or the call fails"
    )
}

pub fn call_overlaps(name: &str) -> String {
    format!(
        "this call is inside the expression that became `{name}`: it was not changed; pass `{name}` by hand"
    )
}

pub fn possible_call(function: &str, name: &str, why: &str) -> String {
    format!(
        "possible call of `{function}` left unchanged ({why}); if it is this function, it must pass `{name}` too"
    )
}

pub fn used_as_value(function: &str, name: &str) -> String {
    format!(
        "`{function}` is used here as a value (passed, stored or exported): whatever calls it through this must now pass `{name}`"
    )
}

pub fn override_left(function: &str, name: &str) -> String {
    format!(
        "another definition of `{function}` here overrides or is overridden by it: its parameters were not changed; add `{name}` there too if calls reach both"
    )
}

pub fn global_not_in_caller(word: &str, path: &str) -> String {
    format!(
        "the value passed here reads `{word}`, which {path} neither defines nor imports: import it, or the call fails to compile or run"
    )
}

pub fn runs_at_call(expression: &str, function: &str) -> String {
    format!(
        "`{}` calls a function: it now runs at each call site before `{function}` is entered, once per call, instead of inside it",
        first_line(expression)
    )
}

pub fn type_note(ty: &str, source: &str) -> String {
    format!("the new parameter's type `{ty}` comes from {source}")
}

pub fn literal_source(expression: &str) -> String {
    format!("the literal `{}`", first_line(expression))
}

pub fn cast_source() -> &'static str {
    "the expression's `as` cast"
}

pub fn item_source(item: &str) -> String {
    format!("the written type of `{item}`")
}

pub fn parameter_source(parameter: &str) -> String {
    format!("the written type of the parameter `{parameter}`")
}

pub fn effects_note(expression: &str) -> String {
    format!(
        "`{}` calls nothing: evaluating it at the call site has no effect of its own",
        first_line(expression)
    )
}

pub fn callers_note(updated: usize, source: &str) -> String {
    format!("{updated} call(s) updated, found by {source}")
}

fn list_names(names: &[String], one: &str, many: &str) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    if quoted.len() == 1 {
        format!("{one} {}", quoted[0])
    } else {
        format!("{many} {}", quoted.join(", "))
    }
}

fn first_line(text: &str) -> String {
    let line = text.trim().lines().next().unwrap_or("");
    if text.trim().lines().count() > 1 {
        format!("{line} …")
    } else {
        line.to_string()
    }
}

pub fn test_function(function: &str) -> String {
    format!(
        "`{function}` is a test: the test runner calls it with no arguments, so it cannot take a new parameter; extract the expression into a variable or a helper instead"
    )
}

pub fn no_call_found(function: &str, name: &str) -> String {
    format!(
        "no call of `{function}` was found in the project: whatever calls it (a framework, a callback, a test runner, another package) does not pass `{name}` and fails"
    )
}

/// An unsuffixed number's type is Rust's default, a guess: the function may use it as another.
pub fn default_number_type(expression: &str, ty: &str) -> String {
    format!(
        "`{}` has no written type: Rust infers a number's type from how it is used, and `{ty}` is only its default — if the function uses it as another type (a `usize` index, a `u64`), the new parameter does not compile (E0308); give the number its type (a suffix such as `0usize`, or `as u64`) and introduce it again",
        first_line(expression)
    )
}
