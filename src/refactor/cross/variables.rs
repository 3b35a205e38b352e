//! Cross-checks of extract variable and inline variable, on the result of any backend: the new
//! local is bound once and read (and, bound at a Python module's top level, is said to be a new
//! attribute of the module); no read of an inlined local is left without a binding in its scope.

use crate::lang::vars::{self, Occurrence, Scope};
use crate::lang::{Language, syntax_errors};
use crate::refactor::{ExtractVariableRequest, Finding, InlineVariableRequest};
use crate::text::LineIndex;

use super::Project;

pub(super) fn check_extract(
    project: &Project<'_>,
    request: &ExtractVariableRequest,
) -> Vec<Finding> {
    let Some(change) = project.change(&request.file) else {
        return Vec::new();
    };
    let lang = project.lang;
    let tree = lang.parse(&change.after);
    if !syntax_errors(&tree, &change.after).is_empty() {
        return Vec::new();
    }
    let name = &request.new_name;
    let found = vars::occurrences(lang, tree.root_node(), &change.after, name);
    let before_tree = lang.parse(&change.before);
    let before = vars::occurrences(lang, before_tree.root_node(), &change.before, name);
    let bindings = |list: &[(tree_sitter::Node<'_>, Occurrence)]| {
        list.iter()
            .filter(|(_, o)| *o == Occurrence::Binding)
            .count()
    };
    let bound = bindings(&found).saturating_sub(bindings(&before));
    let read = found
        .iter()
        .any(|(_, o)| matches!(o, Occurrence::Read | Occurrence::Mutation));
    let message = match (bound, read) {
        (1, true) => {
            let mut findings = place_moved(project, request, &change.after, &found);
            findings.extend(module_attribute(
                lang,
                request,
                &change.after,
                &found,
                &before,
            ));
            return findings;
        }
        (0, _) => format!(
            "the result binds no new local `{name}`: the extract did not create the variable it was asked for"
        ),
        (1, false) => {
            format!("the new local `{name}` is never read: the selection was not replaced by it")
        }
        (n, _) => format!("the result binds `{name}` {n} times where the extract binds it once"),
    };
    vec![Finding::error(&request.file, request.start_line, message)]
}

/// Rust: the new local is bound by value to a place (`let s = *v;`, `let f = x.field;`), which
/// moves it out — a build error (E0507) unless its type is `Copy`. The heuristic says so itself;
/// a language server's extract does not.
fn place_moved(
    project: &Project<'_>,
    request: &ExtractVariableRequest,
    after: &str,
    found: &[(tree_sitter::Node<'_>, Occurrence)],
) -> Vec<Finding> {
    let lines = LineIndex::new(after);
    found
        .iter()
        .filter(|(_, o)| *o == Occurrence::Binding)
        .filter_map(|(name, _)| vars::bound_value(project.lang, *name))
        .filter(|value| vars::is_place(project.lang, *value))
        .map(|value| {
            let line = lines.line_of(value.start_byte()) + 1;
            Finding::warning(
                &request.file,
                line,
                super::wording::place_moved(&after[value.byte_range()], &request.new_name),
            )
            .with_kind(super::wording::PLACE_MOVED)
        })
        .take(1)
        .collect()
}

/// Python: the new variable is bound at the module's top level, so it is one more attribute of
/// the module: code that lists a module's names (`dir()`, `vars()`, a test comparing
/// namespaces, `from … import *` without `__all__`) sees it. toolz's tests broke that way with
/// no warning.
fn module_attribute(
    lang: Language,
    request: &ExtractVariableRequest,
    after: &str,
    found: &[(tree_sitter::Node<'_>, Occurrence)],
    before: &[(tree_sitter::Node<'_>, Occurrence)],
) -> Option<Finding> {
    if lang != Language::Python {
        return None;
    }
    let at_module = |list: &[(tree_sitter::Node<'_>, Occurrence)]| -> Vec<usize> {
        list.iter()
            .filter(|(n, o)| {
                *o == Occurrence::Binding && matches!(vars::scope_of(lang, *n), Scope::Module(_))
            })
            .map(|(n, _)| n.start_byte())
            .collect()
    };
    let now = at_module(found);
    if now.len() <= at_module(before).len() {
        return None;
    }
    let name = &request.new_name;
    let line = LineIndex::new(after).line_of(*now.first()?) + 1;
    let star_takes_it = !name.starts_with('_') && !binds_dunder_all(after);
    Some(
        Finding::warning(
            &request.file,
            line,
            super::wording::module_attribute(name, star_takes_it),
        )
        .with_kind(super::wording::MODULE_ATTRIBUTE),
    )
}

/// Whether a Python module assigns `__all__` at its top level (then `from … import *` takes
/// only the names it lists).
fn binds_dunder_all(text: &str) -> bool {
    text.lines().any(|line| {
        line.strip_prefix("__all__")
            .is_some_and(|rest| rest.trim_start().starts_with(['=', ':', '+']))
    })
}

pub(super) fn check_inline(project: &Project<'_>, request: &InlineVariableRequest) -> Vec<Finding> {
    let Some(change) = project.change(&request.file) else {
        return Vec::new();
    };
    let lang: Language = project.lang;
    let before_tree = lang.parse(&change.before);
    let before_index = LineIndex::new(&change.before);
    let Some(offset) =
        before_index.offset_of_line_column(&change.before, request.line, request.column)
    else {
        return Vec::new();
    };
    let Some(name_node) = vars::name_at(lang, before_tree.root_node(), offset) else {
        return Vec::new();
    };
    let name = &change.before[name_node.byte_range()];
    // A local is read only inside the function that binds it: occurrences of the name elsewhere
    // (another function's local, a field named in a macro's tokens) are not its reads. The
    // function starts where it did (the inline edits only its inside) and ends shifted by what
    // the edits added or removed.
    let mut outermost = None;
    let mut scope = vars::scope_of(lang, name_node);
    while let vars::Scope::Function(node) | vars::Scope::Class(node) = scope {
        outermost = Some(node);
        scope = vars::scope_of(lang, node);
    }
    let within = outermost.map(|f| {
        let shift = change.after.len() as isize - change.before.len() as isize;
        f.start_byte()..(f.end_byte() as isize + shift).max(f.start_byte() as isize) as usize
    });
    let tree = lang.parse(&change.after);
    if !syntax_errors(&tree, &change.after).is_empty() {
        return Vec::new();
    }
    let after_index = LineIndex::new(&change.after);
    let found = vars::occurrences(lang, tree.root_node(), &change.after, name);
    let mut findings = Vec::new();
    for (read, _) in found
        .iter()
        .filter(|(_, o)| matches!(o, Occurrence::Read | Occurrence::Mutation))
        .filter(|(n, _)| within.as_ref().is_none_or(|r| r.contains(&n.start_byte())))
    {
        // Bound in its scope or in one around it (a closure reads its function's locals).
        let mut scope = vars::scope_of(lang, *read);
        let bound = loop {
            let binds = vars::occurrences(lang, scope.node(), &change.after, name)
                .iter()
                .any(|(_, o)| !matches!(o, Occurrence::Read | Occurrence::Mutation));
            match scope {
                _ if binds => break true,
                vars::Scope::Module(_) => break false,
                _ => scope = vars::scope_of(lang, scope.node()),
            }
        };
        if !bound {
            let line = after_index.line_of(read.start_byte()) + 1;
            findings.push(Finding::error(
                &request.file,
                line,
                format!("`{name}` is still read at line {line} of the result, but nothing binds it there any more: a read the inline did not replace"),
            ));
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile, TextEdit};
    use crate::refactor::MemorySources;

    fn change(path: &str, before: &str, after: &str) -> FileChange {
        let file = SourceFile::from_bytes(path, before.as_bytes()).unwrap();
        FileChange::modify(&file, vec![TextEdit::new(0..before.len(), after)]).unwrap()
    }

    #[test]
    fn an_inline_that_left_a_read_and_an_extract_never_read_are_errors() {
        let sources = MemorySources::new();
        let before = "def f(a):\n    x = a + 1\n    return x * x\n";
        let changes = [change(
            "f.py",
            before,
            "def f(a):\n    return (a + 1) * x\n",
        )];
        let project = Project::new(Language::Python, &changes, &sources);
        let request = InlineVariableRequest {
            file: "f.py".into(),
            line: 2,
            column: 5,
        };
        let found = check_inline(&project, &request);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.contains("`x` is still read at line 2"));

        // A read of another `x` inside a closure of another function, bound there: no alarm.
        let before = "def f(a):\n    x = a + 1\n    return x\n\n\ndef g():\n    x = 2\n    return lambda: x\n";
        let after = "def f(a):\n    return a + 1\n\n\ndef g():\n    x = 2\n    return lambda: x\n";
        let changes = [change("f.py", before, after)];
        let project = Project::new(Language::Python, &changes, &sources);
        assert_eq!(check_inline(&project, &request), Vec::new());

        let changes = [change(
            "f.py",
            before,
            "def f(a):\n    y = a\n    x = a + 1\n    return x * x\n",
        )];
        let project = Project::new(Language::Python, &changes, &sources);
        let request = ExtractVariableRequest {
            file: "f.py".into(),
            start_line: 2,
            start_column: 9,
            end_line: 2,
            end_column: 10,
            new_name: "y".into(),
            replace_all: false,
        };
        let found = check_extract(&project, &request);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.contains("never read"));
    }

    fn extract_request(name: &str) -> ExtractVariableRequest {
        ExtractVariableRequest {
            file: "f.py".into(),
            start_line: 4,
            start_column: 2,
            end_line: 4,
            end_column: 13,
            new_name: name.into(),
            replace_all: false,
        }
    }

    #[test]
    fn a_variable_bound_at_module_level_is_a_new_attribute_of_the_module_and_says_so() {
        // toolz's test compares the names of `toolz.curried.exceptions` with `vars()`: a
        // decorator extracted at module level broke it, with no warning.
        let sources = MemorySources::new();
        let before = "import toolz\n\n\n@toolz.curry\ndef merge(d):\n    return d\n";
        let extracted = |name: &str, before: &str| {
            before.replace("@toolz.curry", &format!("{name} = toolz.curry\n@{name}"))
        };
        let after = extracted("curried", before);
        let changes = [change("f.py", before, &after)];
        let project = Project::new(Language::Python, &changes, &sources);
        let found = check_extract(&project, &extract_request("curried"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].severity, crate::refactor::Severity::Warning);
        assert_eq!(found[0].line, 4);
        assert_eq!(found[0].kind, Some(super::super::wording::MODULE_ATTRIBUTE));
        assert!(
            found[0]
                .message
                .contains("`curried` is bound at module level")
        );
        assert!(
            found[0]
                .message
                .contains("`from … import *` now imports it")
        );

        // With `__all__`, or a private name, `import *` does not take it; `vars()` still does.
        let listed = format!("__all__ = ['merge']\n{before}");
        for (before, name) in [(listed.as_str(), "curried"), (before, "_curried")] {
            let after = extracted(name, before);
            let changes = [change("f.py", before, &after)];
            let project = Project::new(Language::Python, &changes, &sources);
            let found = check_extract(&project, &extract_request(name));
            assert_eq!(found.len(), 1, "{found:?}");
            assert!(found[0].message.contains("bound at module level"));
            assert!(!found[0].message.contains("import *"), "{found:?}");
        }

        // Inside a function, the variable is a local: nothing to say.
        let before = "def f(w, h):\n    return w * h + 1\n";
        let after = "def f(w, h):\n    size = w * h\n    return size + 1\n";
        let changes = [change("f.py", before, after)];
        let project = Project::new(Language::Python, &changes, &sources);
        assert_eq!(
            check_extract(&project, &extract_request("size")),
            Vec::new()
        );
    }

    #[test]
    fn a_field_of_the_same_name_in_another_functions_macro_is_not_a_read() {
        // rust-analyzer's inline of `average` into a shorthand field; the tests name the field
        // inside `assert_eq!`'s tokens, where it is a plain identifier.
        let sources = MemorySources::new();
        let before = "fn f() -> S {\n    let average = 1 + 2;\n    S { average }\n}\n\nfn g() {\n    assert_eq!(f(), S { average: 3 });\n}\n";
        let after = "fn f() -> S {\n    S { average: 1 + 2 }\n}\n\nfn g() {\n    assert_eq!(f(), S { average: 3 });\n}\n";
        let changes = [change("src/lib.rs", before, after)];
        let project = Project::new(Language::Rust, &changes, &sources);
        let request = InlineVariableRequest {
            file: "src/lib.rs".into(),
            line: 2,
            column: 9,
        };
        assert_eq!(check_inline(&project, &request), Vec::new());
        // A read left inside the function still is one.
        let left = "fn f() -> S {\n    S { average }\n}\n\nfn g() {\n    assert_eq!(f(), S { average: 3 });\n}\n";
        let changes = [change("src/lib.rs", before, left)];
        let project = Project::new(Language::Rust, &changes, &sources);
        assert_eq!(check_inline(&project, &request).len(), 1);
    }

    #[test]
    fn a_new_local_bound_to_a_place_by_value_is_a_warning() {
        // rust-analyzer's `generates_no_ref_for_deref`: `let s = *v;` moves out of a borrow, E0507.
        let sources = MemorySources::new();
        let before = "fn foo(v: &mut &mut S) {\n    (**v).do_work();\n}\n";
        let request = ExtractVariableRequest {
            file: "f.rs".into(),
            start_line: 2,
            start_column: 5,
            end_line: 2,
            end_column: 10,
            new_name: "s".into(),
            replace_all: false,
        };
        let run = |after: &str| {
            let changes = [change("f.rs", before, after)];
            let project = Project::new(Language::Rust, &changes, &sources);
            check_extract(&project, &request)
        };
        let found = run("fn foo(v: &mut &mut S) {\n    let s = *v;\n    s.do_work();\n}\n");
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 2);
        assert!(found[0].message.contains("E0507"), "{found:?}");
        assert_eq!(
            run("fn foo(v: &mut &mut S) {\n    let s = (**v).len();\n    s.do_work();\n}\n"),
            Vec::new()
        );
        assert_eq!(
            run("fn foo(v: &mut &mut S) {\n    let s = &mut **v;\n    s.do_work();\n}\n"),
            Vec::new()
        );
        assert_eq!(
            run("fn foo(v: &mut &mut S) {\n    let s = (**v).field;\n    s.do_work();\n}\n").len(),
            1
        );
    }
}
