//! Every sentence of the references engine: why a reference is only possible, why a symbol
//! cannot be found, what a language server said.

use crate::lang::refs::Doubt;

/// Why an occurrence may be the symbol's, as one clause.
pub fn doubt(doubt: &Doubt, name: &str) -> String {
    match doubt {
        Doubt::Receiver(receiver) if receiver.is_empty() => format!(
            "`.{name}`: the type of its receiver is not evident here, so it may be another `{name}`"
        ),
        Doubt::Receiver(receiver) => format!(
            "`{receiver}.{name}`: the type of `{receiver}` is not evident here, so it may be another `{name}`"
        ),
        Doubt::StarImport(module) => {
            format!("`{name}` may come from `from {module} import *`, which candor cannot follow")
        }
        Doubt::Macro(macro_name) => format!(
            "`{name}` is in the arguments of `{macro_name}!`, which may not be ordinary code"
        ),
        Doubt::NameString => format!("a string that names `{name}` (a `getattr`, a patch target?)"),
        Doubt::DocExample => format!("`{name}` in a code example of the documentation"),
        Doubt::Mixin(class) => format!(
            "`self.{name}` in class `{class}`, which has no base class: it may be mixed into a class that has `{name}`"
        ),
        Doubt::Redefined => format!(
            "`{name}` is defined more than once here: which definition a use means depends on the code run"
        ),
        Doubt::Nesting => format!(
            "`{name}` is in code nested more than {} levels deep, which candor's engine does not judge; check it",
            crate::lang::refs::MAX_NESTING
        ),
        Doubt::ServerOnly => format!(
            "the language server lists this `{name}`; candor's engine did not find it certain"
        ),
    }
}

pub fn source_engine() -> String {
    "candor's references engine (tree-sitter)".to_string()
}

pub fn source_checked(server: &str) -> String {
    format!("candor's references engine (tree-sitter), checked against {server}")
}

pub fn calls_from(source: &str) -> String {
    format!("the calls were found by {source}")
}

pub fn not_searched(path: &str, why: &str, name: &str) -> String {
    format!("{path} was not searched for `{name}`: it {why}; check it by hand")
}

/// A keyword argument whose function candor found (a `label`) without a parameter of that name.
pub fn no_parameter(function: &str, label: &str, keyword: &str, path: &str) -> String {
    if matches!(label, "function" | "method" | "class" | "nested function") {
        format!(
            "the {label} `{function}` in {path} has no parameter `{keyword}` that the keyword argument could name (a `**kwargs`?); rename the parameter at its definition"
        )
    } else {
        format!(
            "`{function}` in {path} is a {label}, not a definition whose parameters candor reads, so the keyword argument `{keyword}` leads to no parameter; rename the parameter at its definition"
        )
    }
}

pub fn no_name_at(path: &str, line: usize, column: usize) -> String {
    format!(
        "there is no name at line {line}, column {column} of {path}; give the position of a name (1-based line and column)"
    )
}

pub fn other_name_at(path: &str, line: usize, column: usize, found: &str, wanted: &str) -> String {
    format!(
        "line {line}, column {column} of {path} is on `{found}`, not `{wanted}`; give the position of `{wanted}` or leave `line`/`column` out"
    )
}

pub fn not_a_name(path: &str, line: usize) -> String {
    format!("nothing renameable at line {line} of {path}: put the position on a name")
}

pub fn special_name(name: &str) -> String {
    format!(
        "`{name}` is not a symbol of its own; rename the type, method or variable it stands for"
    )
}

pub fn module_name(name: &str, module: &str, path: &str) -> String {
    format!(
        "`{name}` names the module `{module}` (an `import` in {path}): rename renames symbols, not modules, whose name is their file's; rename the file and the imports by hand"
    )
}

pub fn unresolved(name: &str, path: &str) -> String {
    format!(
        "`{name}` is not defined in the project as {path} uses it (a builtin, a library name, or an attribute of a value of unknown type); give its definition"
    )
}

pub fn not_in_project(name: &str, module: &str, from: &str) -> String {
    format!(
        "`{name}` comes from `{module}` in {from}, and no file of the project defines it there (a library?); only project symbols can be found"
    )
}

pub fn server_not_asked(why: &str) -> String {
    format!("the language server was not asked for references: {why}")
}

pub fn server_confirms(server: &str, doubt: &str) -> String {
    format!("{server} lists this reference, so it is taken as certain (candor alone: {doubt})")
}

pub fn server_only(server: &str, name: &str) -> String {
    format!(
        "{server} lists this `{name}` as a reference; candor's engine did not find it — listed as possible"
    )
}

pub fn server_misses(server: &str, name: &str) -> String {
    format!(
        "candor's engine takes this `{name}` for a reference, but {server} does not list it; check it"
    )
}
