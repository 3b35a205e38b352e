//! Every sentence of inline variable: refusals (not a simple local, reassigned, unused, effects,
//! a rebound name) and findings (a dropped type).

pub fn position_outside(line: usize, column: usize) -> String {
    format!(
        "{line}:{column} is outside the file; give the line and column of the local's name (1-based)"
    )
}

pub fn no_name(line: usize, column: usize) -> String {
    format!(
        "there is no name at {line}:{column}; put line and column on the local variable's name (its binding or any use)"
    )
}

pub fn not_local(name: &str) -> String {
    format!(
        "`{name}` is not a local of a function (a module-level name, a class attribute or an item): other code may import or reach it; inline variable works on locals"
    )
}

pub fn parameter(name: &str) -> String {
    format!(
        "`{name}` is a parameter, not a local bound in the body: its value comes from each caller; inline variable works on locals bound with `let`/`=`"
    )
}

pub fn global(name: &str, line: usize) -> String {
    format!("`{name}` is declared `global`/`nonlocal` at line {line}: it is not a simple local")
}

pub fn pattern(name: &str, line: usize) -> String {
    format!(
        "`{name}` is bound by a pattern at line {line} (a tuple target, `for`, `with ... as`, `match`, `if let`): there is no one expression to inline"
    )
}

pub fn definition(name: &str, line: usize) -> String {
    format!("`{name}` names a function, class, item or import at line {line}, not a local variable")
}

pub fn bound_twice(name: &str, line: usize) -> String {
    format!(
        "`{name}` is bound again at line {line}: inline variable works on a local bound once (rename one of them first)"
    )
}

pub fn no_binding(name: &str) -> String {
    format!(
        "candor found no simple binding of `{name}` (`let {name} = ...;` / `{name} = ...`) in this function"
    )
}

pub fn reassigned(name: &str, line: usize) -> String {
    format!(
        "`{name}` is reassigned at line {line} (an assignment, augmented assignment or `del`): its value is not its initializer everywhere"
    )
}

pub fn mutated(name: &str, line: usize) -> String {
    format!(
        "`{name}` is a `mut` binding that is mutated at line {line} (`&mut`, a method call or an assignment through it): inlined, each read would get a fresh value"
    )
}

pub fn unused(name: &str, line: usize) -> String {
    format!("`{name}` (line {line}) is never read: unused: delete it")
}

pub fn read_before(name: &str, line: usize) -> String {
    format!(
        "`{name}` is read at line {line}, before or inside its binding: inline variable needs every read after the binding"
    )
}

pub fn read_outside(name: &str, line: usize) -> String {
    format!(
        "`{name}` is read at line {line}, outside the block that binds it: its binding may not have run there"
    )
}

pub fn format_argument(name: &str, line: usize) -> String {
    format!(
        "`{name}` is read inside a format string at line {line} (`{{{name}}}`): candor does not rewrite format strings; write it as an argument first"
    )
}

pub fn effects_reads(name: &str, reads: usize) -> String {
    format!(
        "the initializer of `{name}` has effects (a call, `await`, `yield`, `?`, a macro) or builds a new object, and `{name}` is read {reads} times: inlined, it would run {reads} times instead of once"
    )
}

pub fn effects_elsewhere(name: &str, line: usize) -> String {
    format!(
        "the initializer of `{name}` has effects or builds a new object, and its read at line {line} is not directly in a later statement of the same block (it is in a loop, a branch, a closure or a nested block): inlined, it would run at another time or another number of times"
    )
}

pub fn effects_between(name: &str, line: usize) -> String {
    format!(
        "the initializer of `{name}` has effects or builds a new object, and line {line}, between the binding and the read, has effects too: inlined, their order would change"
    )
}

pub fn rebound(name: &str, line: usize, variable: &str) -> String {
    format!(
        "`{name}`, which the initializer of `{variable}` reads, may change at line {line} (an assignment, a new binding, `&mut` or a method call on it) before a read of `{variable}`: inlined, the read would see the new value"
    )
}

pub fn type_dropped(name: &str, ty: &str) -> String {
    format!(
        "the type `{ty}` written on `{name}` is dropped: at the reads, inference may choose another type for the initializer (an integer literal, `collect()`, `into()`)"
    )
}

pub fn note_effects(reads: usize) -> String {
    format!(
        "the initializer calls nothing and builds no new object: replaced at {reads} read(s), it gives the same value each time"
    )
}

pub fn note_effects_once() -> String {
    "the initializer has effects: its one read is in a later statement of the same block, with nothing that has effects in between".to_string()
}

/// A read of the local is a token of a macro candor cannot read.
pub fn into_macro(name: &str, macro_name: &str, value: &str) -> String {
    format!(
        "`{name}` is an argument of `{macro_name}!`, whose rules candor does not read: if they match it as an identifier or a token (`$x:ident`, `$x:tt`), `{}` will not match there",
        crate::text::collapse_whitespace(value)
    )
}
