//! Every sentence extract function says: its refusals (a selection it cannot take, a name that
//! clashes) and its findings. The logic decides; these functions word it, in one place.

// -- the selection ------------------------------------------------------------------------

pub fn lines_are_not_a_range(start_line: usize, end_line: usize) -> String {
    format!("lines {start_line}-{end_line} are not a range; give 1-based start_line <= end_line")
}

pub fn start_line_is_past_the_end(start_line: usize, line_count: usize) -> String {
    format!("start_line {start_line} is past the end of the file ({line_count} lines)")
}

pub fn end_line_is_past_the_end(end_line: usize, line_count: usize) -> String {
    format!("end_line {end_line} is past the end of the file ({line_count} lines)")
}

pub fn lines_are_blank(start_line: usize, end_line: usize) -> String {
    format!("lines {start_line}-{end_line} are blank; select the statements to extract")
}

pub fn lines_hold_only_comments(first_line: usize, last_line: usize) -> String {
    format!("lines {first_line}-{last_line} hold only comments; select the statements to extract")
}

pub fn code_around_does_not_parse(line: usize) -> String {
    format!(
        "the code around the selection does not parse (syntax error at line {line}); fix it first, the heuristic will not guess"
    )
}

pub fn comment_partly_selected(line: usize, first: usize, last: usize) -> String {
    format!(
        "line {line}: the comment at lines {first}-{last} is only partly selected; select all of it or none"
    )
}

pub fn not_in_a_function_body(first: usize, last: usize) -> String {
    format!(
        "lines {first}-{last} are not inside a function body; extract function takes statements of a function (select lines inside one)"
    )
}

pub fn spans_two_blocks(
    start: usize,
    sel_start: usize,
    sel_end: usize,
    what: &str,
    end: usize,
) -> String {
    format!(
        "line {start}: lines {sel_start}-{sel_end} span two blocks of the {what} at lines {start}-{end}; select statements of one block, or lines {start}-{end} for the whole {what}"
    )
}

pub fn inside_a_statement(
    start: usize,
    sel_start: usize,
    sel_end: usize,
    what: &str,
    end: usize,
) -> String {
    format!(
        "line {start}: lines {sel_start}-{sel_end} are inside the {what} at lines {start}-{end}, not whole statements of a block; select lines {start}-{end} to extract all of it"
    )
}

pub fn starts_inside_a_block(start: usize, what: &str, end: usize) -> String {
    format!(
        "line {start}: the selection starts inside a block of the {what} at lines {start}-{end} and ends outside it (it spans two blocks); start the selection at line {start}, or after line {end}"
    )
}

pub fn starts_in_the_middle(start: usize, what: &str, end: usize) -> String {
    format!(
        "line {start}: the selection starts in the middle of the {what} at lines {start}-{end}; start it at line {start}, or after line {end}"
    )
}

pub fn ends_inside_a_block(end: usize, what: &str, start: usize) -> String {
    format!(
        "line {end}: the selection starts outside the {what} at lines {start}-{end} and ends inside one of its blocks (it spans two blocks); extend the selection to line {end}, or end it before line {start}"
    )
}

pub fn ends_in_the_middle(end: usize, what: &str, start: usize) -> String {
    format!(
        "line {end}: the selection ends in the middle of the {what} at lines {start}-{end}; extend it to line {end}, or end it before line {start}"
    )
}

/// The hint of [`includes_part_of_a_definition`]: the lines of the body when it has some.
pub fn select_inside_the_body(lines: Option<(usize, usize)>) -> String {
    match lines {
        Some((from, to)) => format!("select statements inside its body (lines {from}-{to})"),
        None => "select statements inside its body".to_string(),
    }
}

pub const SELECT_INSIDE_A_FUNCTION_BODY: &str = "select statements inside a function body";

pub fn no_whole_statement() -> String {
    "the selection holds no whole statement; select the statements to extract".to_string()
}

pub fn not_in_a_block() -> String {
    "the selection is not inside a block of statements; select whole statements of a function body"
        .to_string()
}

pub fn includes_part_of_a_definition(
    line: usize,
    part: &str,
    what: &str,
    end: usize,
    hint: &str,
) -> String {
    format!("line {line}: the selection includes {part} of {what} (lines {line}-{end}); {hint}")
}

pub fn attribute_of_the_next_statement(line: usize, attribute: &str) -> String {
    format!(
        "line {line}: the attribute `{attribute}` applies to the statement after the selection; end the selection before it or include that statement"
    )
}

pub fn attribute_of_the_first_statement(line: usize, attribute: &str, first: usize) -> String {
    format!(
        "line {line}: the attribute `{attribute}` applies to the first selected statement (line {first}); start the selection at line {line}"
    )
}

// -- where the new function goes, and its name --------------------------------------------

pub fn in_a_class_body(line_label: &str, name: &str, line: usize) -> String {
    format!(
        "lines {line_label} are in the body of class `{name}` (line {line}), not in a function; extract function takes statements of a function or of module-level code"
    )
}

pub fn in_an_item_initializer(line_label: &str) -> String {
    format!(
        "lines {line_label} are not inside a function (they belong to an item's initializer); extract function takes statements of a function body"
    )
}

pub fn in_a_trait_impl_of_a_foreign_type(type_text: &str, line: usize) -> String {
    format!(
        "the enclosing function is in `impl ... for {type_text}` (line {line}); a trait impl cannot take a new method and an inherent impl for `{type_text}` cannot be written here; extract from an inherent method instead"
    )
}

pub fn name_taken(name: &str, what: &str, line: usize) -> String {
    format!(
        "`{name}` already exists here: {what} at line {line}; pick another name for the new function"
    )
}

pub fn name_is_a_variable(name: &str, in_function: &str, line: usize) -> String {
    format!(
        "`{name}` is already a variable{in_function} (bound at line {line}): the call `{name}()` would use it instead in_function the new function; pick another name"
    )
}

// -- what the new function changes --------------------------------------------------------

pub fn selection_awaits(line: usize, new_name: &str) -> String {
    format!("the selection awaits (line {line}): `{new_name}` is `async` and the call awaits it")
}

pub fn uses_an_inner_item(name: &str, line: usize, function_name: &str, new_name: &str) -> String {
    format!(
        "the selection uses `{name}`, declared at line {line} inside `{function_name}`; `{new_name}` cannot see it"
    )
}

pub fn read_before_assignment(name: &str, line: usize, new_name: &str) -> String {
    format!(
        "the selection reads `{name}` and assigns it at line {line}: in `{new_name}` it becomes a local, so this read raises UnboundLocalError"
    )
}

pub fn selection_uses_self(line: usize, new_name: &str) -> String {
    format!("the selection uses `self` (line {line}), but `{new_name}` has no receiver")
}

pub fn parameter_of_the_function(
    verb: &str,
    name: &str,
    function_name: &str,
    line: usize,
) -> String {
    format!("the selection {verb} `{name}`, a parameter of `{function_name}` (line {line})")
}

pub fn bound_outside(verb: &str, name: &str, line: usize) -> String {
    format!("the selection {verb} `{name}`, bound at line {line} outside it")
}

pub fn used_after_the_selection(
    name: &str,
    verb: &str,
    used: &str,
    when: &str,
    line: usize,
) -> String {
    format!("`{name}` is {verb} in the selection and {used} {when} it at line {line}")
}

pub fn declaration_outside(name: &str, declared_line: usize, new_name: &str) -> String {
    format!(
        "`{name}` is declared global/nonlocal at line {declared_line}, outside the selection: in `{new_name}` the assignment makes a local; add the declaration to it"
    )
}

pub fn self_moved(new_name: &str, receiver: &str, function_name: &str, line: usize) -> String {
    format!(
        "`{new_name}` takes `{receiver}` like `{function_name}` does: the call moves `self`, which is used after it at line {line}"
    )
}

pub fn uses_a_type_parameter(name: &str, function_name: &str, new_name: &str) -> String {
    format!(
        "the selection uses the type parameter `{name}` of `{function_name}`; `{new_name}` does not declare it"
    )
}

pub fn return_inside(at: usize) -> String {
    format!(
        "`return` inside the selection (line {at}) leaves the extracted function, not the caller"
    )
}

/// The kind of the findings on a jump of the selection whose target stays outside the new
/// function (the cross-checks leave such a jump to them).
pub const JUMP_OUTSIDE: &str = "extract.jump_outside";

pub fn jump_outside(keyword: &str, at: usize, what: &str) -> String {
    format!(
        "`{keyword}` inside the selection (line {at}) targets {what} outside it; it will not compile in the new function"
    )
}

pub fn loop_stays_behind(line: usize) -> String {
    format!(" (its loop at line {line} stays behind)")
}

pub fn question_mark_inside(at: usize, new_name: &str) -> String {
    format!(
        "`?` inside the selection (line {at}) needs `{new_name}` to return a `Result` or `Option`; it returns nothing, so this will not compile"
    )
}

pub fn yield_inside(at: usize, new_name: &str) -> String {
    format!(
        "`yield` inside the selection (line {at}) makes `{new_name}` a generator: the call `{new_name}()` would not run the selected code"
    )
}

pub fn nonlocal_without_an_outer_function(new_name: &str) -> String {
    format!("`nonlocal` in `{new_name}`, which is not nested in a function")
}

pub fn nonlocal_moves(name: &str, new_name: &str, function_name: &str) -> String {
    format!("`nonlocal {name}` moves into `{new_name}`, away from `{name}` of `{function_name}`")
}

pub fn refers_elsewhere(message: &str, name: &str) -> String {
    format!("{message}: it would refer to another `{name}` or to none")
}

pub fn has_no_binding(message: &str) -> String {
    format!("{message}, which has no binding there")
}

pub fn nonlocal_loses_its_binding(name: &str, function_name: &str, new_name: &str) -> String {
    format!(
        "`nonlocal {name}` has no binding left in `{function_name}`: its only assignment moves into `{new_name}`"
    )
}

pub fn ends_with_a_tail_statement(line: usize, new_name: &str) -> String {
    format!(
        "the selection ends with the block's tail expression (line {line}); `{new_name}()` takes its place without `;`, and the block's value stays `()`"
    )
}

pub fn ends_with_the_return_value(function_name: &str, line: usize, new_name: &str) -> String {
    format!(
        "the selection ends with the tail expression of `{function_name}` (line {line}), its return value; `{new_name}` returns nothing, so this will not compile"
    )
}

pub fn ends_with_a_block_value(line: usize, new_name: &str) -> String {
    format!(
        "the selection ends with the block's tail expression (line {line}), its value; `{new_name}` returns nothing, so unless that value is `()` this will not compile"
    )
}

pub fn new_inherent_impl(trait_name: &str, new_name: &str, type_name: &str) -> String {
    format!(
        "a `{trait_name}` impl cannot take extra methods: `{new_name}` goes in a new `impl {type_name}` block after it"
    )
}

pub fn type_defined_elsewhere(type_name: &str) -> String {
    format!(
        "`{type_name}` is not defined in this file: if it comes from another crate, `impl {type_name}` is not allowed (E0116)"
    )
}

pub fn inside_an_unsafe_fn(function_name: &str, new_name: &str) -> String {
    format!(
        "`{function_name}` is an `unsafe fn`: `{new_name}` is declared `unsafe fn` too (and called in an `unsafe` block), so unsafe operations of the selection still compile; check its safety contract"
    )
}

pub fn inside_an_unsafe_block(block_line: usize, new_name: &str) -> String {
    format!(
        "the selection is inside the `unsafe` block at line {block_line}: `{new_name}` is declared `unsafe fn` so unsafe operations of the selection still compile, and its call stays in that block"
    )
}

pub fn docstring_moves(function_name: &str, new_name: &str) -> String {
    format!(
        "the selection starts with the docstring of `{function_name}`; it becomes the docstring of `{new_name}`"
    )
}

pub fn type_unreadable(name: &str, line: usize, new_name: &str) -> String {
    format!(
        "the type of `{name}` (bound at line {line}) cannot be read from the source: `{new_name}` declares it `_`; write its type there"
    )
}

pub fn assigned_on_some_paths(name: &str, line: usize, new_name: &str) -> String {
    format!(
        "`{name}` is returned but the selection assigns it only on some paths (line {line}) and it has no value before: when it is not assigned, `{new_name}` raises UnboundLocalError at its `return`"
    )
}

pub fn elided_lifetime(new_name: &str, returned: &str, inputs: usize) -> String {
    let why = if inputs == 0 {
        "it takes no reference to borrow it from".to_string()
    } else {
        format!("it takes {inputs} references, so Rust cannot tell which one it borrows from")
    };
    format!(
        "`{new_name}` returns `{returned}`, a borrow, and {why}: add a lifetime parameter to its signature"
    )
}

pub fn ref_binding_returned(name: &str, line: usize, new_name: &str) -> String {
    format!(
        "`{name}` (bound by `ref` at line {line}) borrows a value of `{new_name}`, so `{new_name}` cannot return it; bind the value itself (`let {name} = ..`) or leave that line out of the selection"
    )
}

pub fn raw_pointer_lifetime(new_name: &str, returned: &str) -> String {
    format!(
        "`{new_name}` returns `{returned}`, a borrow made from a raw pointer that no input lends: its lifetime `'a` is unbounded, as `slice::from_raw_parts`'s is, and the caller's use decides it; check that the memory outlives that use"
    )
}

pub fn once_closure_borrowed(name: &str, line: usize, new_name: &str) -> String {
    format!(
        "`{name}` (bound at line {line}) is an `impl FnOnce` and the code after the selection uses it too, so `{new_name}` takes it by reference, and an `impl FnOnce` cannot be called through a reference: it does not compile (E0507); leave the call out of the selection, or make the parameter `impl Fn`"
    )
}

pub fn borrow_tied_to_argument(new_name: &str, returned: &str, argument: &str) -> String {
    format!(
        "`{new_name}` returns `{returned}`, a borrow that Rust ties to `&{argument}`, borrowed at the call: if the value does not come from `{argument}` or must outlive it, this will not compile; add a lifetime parameter to its signature"
    )
}

// -- caveat notes -------------------------------------------------------------------------

fn listed(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

pub fn captured_passed_python(names: &[&str]) -> String {
    format!(
        "captured {} passed as parameters — types not checked",
        listed(names)
    )
}

pub fn captured_passed_rust(names: &[&str], untyped: &[&str]) -> String {
    let except = if untyped.is_empty() {
        String::new()
    } else {
        format!(", except {} (see the findings)", listed(untyped))
    };
    format!(
        "captured {} passed as parameters — typed from their declarations{except}",
        listed(names)
    )
}

pub fn values_returned(names: &[&str]) -> String {
    let what = if names.len() > 1 { " as a tuple" } else { "" };
    format!("{} returned{what} and assigned at the call", listed(names))
}

pub const RETURN_PASSED_ON: &str =
    "the selection ends with `return`: the new function returns that value and the call returns it";

pub const YIELDS_KEPT: &str = "the selection yields: the new function is a generator too, and the call is `yield from` (its `return` value is the result)";

pub const TAIL_RETURNED: &str =
    "the selection's tail value is returned by the new function and stays the block's value";

pub fn jumps_returned(returned: &str, call_site: &str) -> String {
    format!(
        "`break`/`continue` of a loop outside the selection: the new function returns `{returned}` instead and the call site does `{call_site}` on it"
    )
}

pub fn early_returns_handed_back(returned: &str, call_site: &str) -> String {
    format!(
        "`return` of the enclosing function inside the selection: the new function returns `{returned}` instead and the call site does `{call_site}`"
    )
}

pub fn question_marks_kept(wrapper: &str) -> String {
    format!(
        "`?` of the selection kept: the new function returns `{wrapper}` and the call ends with `?`"
    )
}

// -- the result ---------------------------------------------------------------------------

pub fn pick_another_name(message: &str) -> String {
    format!("{message}; pick another name for the new function")
}
