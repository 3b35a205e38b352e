//! Every sentence of extract variable: refusals (not one expression, evaluation order, a taken
//! name) and findings (occurrences left, `mut`, places, temporaries).

use crate::lang::vars::{Hazard, NotExpression};

pub fn pick_another_name(message: &str) -> String {
    format!("{message}; pick another name for the new variable")
}

pub fn position_outside(what: &str, line: usize, column: usize) -> String {
    format!(
        "{what} {line}:{column} is outside the file; give a line and column inside it (1-based)"
    )
}

pub fn end_before_start() -> String {
    "the end of the selection is not after its start; give start_line/start_column, then end_line/end_column just after the last character".to_string()
}

pub fn not_expression(what: NotExpression, selected: &str) -> String {
    let shown = crate::text::collapse_whitespace(selected);
    let why = match what {
        NotExpression::Empty => "only blanks".to_string(),
        NotExpression::Name => {
            format!("a lone name (`{shown}`): it is a variable already, nothing to extract")
        }
        NotExpression::Partial => {
            format!("`{shown}`, which is part of an expression or pieces of several")
        }
        NotExpression::Statement => format!("`{shown}`, a statement, not an expression"),
        NotExpression::MacroArguments => {
            format!(
                "`{shown}`, inside a macro call's arguments, which candor does not parse as expressions"
            )
        }
    };
    format!(
        "the selection is {why}; select exactly one whole expression (end column just after its last character)"
    )
}

pub fn hazard(hazard: Hazard) -> String {
    let why = match hazard {
        Hazard::ShortCircuit => {
            "it is the right side of `and`/`or`/`&&`/`||`, evaluated only when the left side lets it: bound before the statement it would always run"
        }
        Hazard::Branch => {
            "it is in a branch (a conditional expression's branch, an `elif`/`else if` condition, a match arm or guard), evaluated only when that branch is taken: bound before the statement it would always run"
        }
        Hazard::LoopCondition => {
            "it is in a `while` condition, evaluated before every iteration: bound before the loop it would run once"
        }
        Hazard::Comprehension => {
            "it is in a comprehension's element, condition or inner loop, evaluated once per item in the comprehension's own scope: bound before the statement it would run once, outside that scope"
        }
        Hazard::Closure => {
            "it is in the body of a lambda or closure, evaluated when that is called: bound before the statement it would run at once"
        }
        Hazard::DefaultArgument => {
            "it is a default argument, evaluated once when the function is defined: bound before the definition it would be a module- or class-level name"
        }
        Hazard::AssignmentTarget => {
            "it is written to (the target of an assignment), not a value that can be bound"
        }
        Hazard::BorrowedPlace => {
            "it is a place borrowed with `&`/`&mut`: bound first, the borrow would be of a moved or copied value; select the whole borrow (`&...`) instead"
        }
    };
    format!("cannot extract this expression: {why}")
}

pub fn not_in_function() -> String {
    "the expression is not inside a function body (a class body, an impl, a constant): extract variable binds a local before a statement of a function or module".to_string()
}

pub fn attributed_statement() -> String {
    "the statement holding the expression has attributes (`#[cfg(...)]`, `#[allow(...)]`): a `let` inserted before it would take them instead; extract from a statement without attributes".to_string()
}

pub fn shares_line() -> String {
    "the statement holding the expression shares its line with a compound statement's header (`if x: ...`); put that statement on a line of its own first".to_string()
}

pub fn name_taken(name: &str, line: usize) -> String {
    format!(
        "`{name}` is already a name in this scope (line {line}): a new local would shadow or be shadowed by it; choose another name"
    )
}

/// The kinds of the notes on an identical expression left as it is, one per reason.
pub const LEFT_EFFECTS: &str = "extract_variable.left_calls";
pub const LEFT_AFTER_WRITE: &str = "extract_variable.left_after_write";
pub const LEFT_AFTER_BOUNDARY: &str = "extract_variable.left_after_branch";
pub const LEFT_HAZARD: &str = "extract_variable.left_sometimes_run";

pub fn left_effects(line: usize) -> String {
    format!(
        "identical expression at line {line} left as it is: the expression calls something, and each evaluation may give another value or do something again"
    )
}

pub fn left_after_write(line: usize, name: &str, write_line: usize) -> String {
    format!(
        "identical expression at line {line} left as it is: line {write_line} may change `{name}` (an assignment, a new binding, `&mut` or a method call on it) before it, so its value may differ"
    )
}

pub fn left_after_boundary(line: usize, boundary_line: usize) -> String {
    format!(
        "identical expression at line {line} left as it is: it is in or after the loop or branch at line {boundary_line}, where candor does not follow whether the value stays the same"
    )
}

pub fn left_hazard(line: usize) -> String {
    format!(
        "identical expression at line {line} left as it is: it runs only sometimes or more than once (short-circuit, branch, loop condition, comprehension or closure)"
    )
}

pub fn maybe_mut(name: &str) -> String {
    format!(
        "the expression is the receiver of a method call: if that method takes `&mut self`, write `let mut {name}` (candor does not know the method's receiver)"
    )
}

pub fn place_moved(expr: &str, name: &str) -> String {
    format!(
        "`{expr}` is a place (a field, an element or what a reference points to): `let {name} = {expr};` moves or copies it out; if its type is not `Copy`, bind a reference (`&{expr}`) or a clone instead"
    )
}

pub fn temporary_dropped(name: &str) -> String {
    format!(
        "the expression borrows from a temporary value that is dropped at the end of the `let {name}` statement, so later uses of `{name}` would not compile (E0716: temporary value dropped while borrowed); bind the temporary itself first"
    )
}

pub fn note_occurrences(replaced: usize, left: usize) -> String {
    format!(
        "{replaced} identical occurrence(s) replaced, each before any write to the names the expression reads and outside loops and branches; {left} left (see the findings)"
    )
}

pub fn note_effects() -> String {
    "the expression calls nothing: bound just before its statement, it is evaluated once, as before"
        .to_string()
}
