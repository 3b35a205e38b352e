use super::*;
use crate::edit::SourceFile;
use crate::lang::symbols::SymbolQuery;
use crate::refactor::{MemorySources, MoveRequest, RenameRequest, Severity};

const INIT: &str = "from .recipes import *  # noqa\n";
const RECIPES: &str = "__all__ = [\n    'powerset',\n    'take',\n]\n\n\ndef take(n, xs):\n    return list(xs)[:n]\n\n\ndef powerset(xs):\n    return xs\n";
const RECIPES_AFTER: &str =
    "__all__ = [\n    'take',\n]\n\n\ndef take(n, xs):\n    return list(xs)[:n]\n";
const SETS: &str = "def powerset(xs):\n    return xs\n";

fn query(name: &str) -> SymbolQuery {
    SymbolQuery {
        name: name.to_string(),
        line: None,
        column: None,
    }
}

fn move_request() -> Request {
    Request::Move(MoveRequest {
        file: "pkg/recipes.py".to_string(),
        symbol: query("powerset"),
        target_file: "pkg/sets.py".to_string(),
    })
}

/// The findings for a result that leaves `files` (path, after) changed in `project` (path, before).
fn run(request: &Request, project: &[(&str, &str)], files: &[(&str, &str)]) -> Vec<Finding> {
    let mut sources = MemorySources::new();
    for (path, text) in project {
        sources = sources.with(path, text);
    }
    let changes: Vec<FileChange> = files
        .iter()
        .map(
            |(path, after)| match project.iter().find(|(p, _)| p == path) {
                Some((_, before)) => {
                    let source = SourceFile::from_text(*path, *before);
                    let edits = crate::backend::lsp::minimal_edits(before, after);
                    FileChange::modify(&source, edits).unwrap()
                }
                None => FileChange::create(*path, *after),
            },
        )
        .collect();
    check(request, Language::Python, &changes, &sources)
}

#[test]
fn a_move_out_of_a_star_re_exported_all_is_a_warning() {
    let project = [("pkg/__init__.py", INIT), ("pkg/recipes.py", RECIPES)];
    let result = [("pkg/recipes.py", RECIPES_AFTER), ("pkg/sets.py", SETS)];
    let findings = run(&move_request(), &project, &result);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].severity, Severity::Warning);
    assert_eq!(findings[0].file, "pkg/recipes.py");
    assert_eq!(
        findings[0].message,
        "`powerset` was public API at `pkg.powerset`; importers now reach it at `pkg.sets.powerset` (re-export it with `from .sets import powerset` in pkg/recipes.py (and `'powerset'` kept in its `__all__`) to keep the old path)"
    );
}

#[test]
fn a_move_that_keeps_the_name_re_exported_passes() {
    let project = [("pkg/__init__.py", INIT), ("pkg/recipes.py", RECIPES)];
    let kept = RECIPES_AFTER.replace(
        "__all__ = [\n    'take',",
        "from .sets import powerset\n\n__all__ = [\n    'powerset',\n    'take',",
    );
    let result = [("pkg/recipes.py", kept.as_str()), ("pkg/sets.py", SETS)];
    assert_eq!(run(&move_request(), &project, &result), vec![]);
    // An `__init__` that names it and is rewritten to the new module keeps it too.
    let explicit = "from .recipes import powerset, take\n";
    let project = [("pkg/__init__.py", explicit), ("pkg/recipes.py", RECIPES)];
    let init_after = "from .recipes import take\nfrom .sets import powerset\n";
    let no_all = RECIPES_AFTER.replace("__all__ = [\n    'take',\n]\n\n\n", "");
    let project_no_all = [
        ("pkg/__init__.py", explicit),
        (
            "pkg/recipes.py",
            &RECIPES.replace("__all__ = [\n    'powerset',\n    'take',\n]\n\n\n", ""),
        ),
    ];
    let result = [
        ("pkg/__init__.py", init_after),
        ("pkg/recipes.py", no_all.as_str()),
        ("pkg/sets.py", SETS),
    ];
    assert_eq!(run(&move_request(), &project_no_all, &result), vec![]);
    // The same move without rewriting the `__init__` loses `pkg.powerset`.
    let findings = run(&move_request(), &project, &result[1..]);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(
        findings[0]
            .message
            .starts_with("`powerset` was public API at `pkg.powerset`"),
        "{}",
        findings[0].message
    );
}

#[test]
fn a_private_module_name_nobody_imports_is_not_surface() {
    let module = "def helper(x):\n    return x\n\n\ndef main():\n    return helper(1)\n";
    let after = "def assist(x):\n    return x\n\n\ndef main():\n    return assist(1)\n";
    let rename = Request::Rename(RenameRequest {
        file: "tool.py".to_string(),
        symbol: query("helper"),
        new_name: "assist".to_string(),
        include_possible: Vec::new(),
    });
    assert_eq!(
        run(&rename, &[("tool.py", module)], &[("tool.py", after)]),
        vec![]
    );
    // Imported by name from another file of the project, it is.
    let user = "from tool import helper\n\nhelper(2)\n";
    let user_after = "from tool import assist\n\nassist(2)\n";
    let findings = run(
        &rename,
        &[("tool.py", module), ("user.py", user)],
        &[("tool.py", after), ("user.py", user_after)],
    );
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(
        findings[0].message,
        "`helper` was public API at `tool.helper`; importers now reach it at `tool.assist` (re-export it with `helper = assist` in tool.py to keep the old path)"
    );
}

#[test]
fn a_rename_of_a_star_re_exported_name_suggests_the_alias_in_its_module() {
    let project = [("pkg/__init__.py", INIT), ("pkg/recipes.py", RECIPES)];
    let renamed = RECIPES
        .replace("'take'", "'first_n'")
        .replace("def take(", "def first_n(");
    let rename = Request::Rename(RenameRequest {
        file: "pkg/recipes.py".to_string(),
        symbol: query("take"),
        new_name: "first_n".to_string(),
        include_possible: Vec::new(),
    });
    let findings = run(&rename, &project, &[("pkg/recipes.py", renamed.as_str())]);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(
        findings[0].message,
        "`take` was public API at `pkg.take`; importers now reach it at `pkg.first_n` (re-export it with `take = first_n` in pkg/recipes.py (and `'take'` kept in its `__all__`) to keep the old path)"
    );
}

#[test]
fn a_move_out_of_a_module_another_module_star_imports_is_a_warning() {
    // attrs: `attrs/setters.py` is `from attr.setters import *`; moving `pipe` out of
    // `attr/setters.py` took `attrs.setters.pipe` away (an ImportError in its tests).
    let setters = "def pipe(*setters):\n    return setters\n\n\ndef frozen(_, __, ___):\n    raise TypeError\n";
    let setters_after = "def frozen(_, __, ___):\n    raise TypeError\n";
    let facade = "from attr.setters import *  # noqa: F403\n";
    let request = Request::Move(MoveRequest {
        file: "src/attr/setters.py".to_string(),
        symbol: query("pipe"),
        target_file: "src/attr/piping.py".to_string(),
    });
    let project = [
        ("src/attr/setters.py", setters),
        ("src/attrs/setters.py", facade),
    ];
    let result = [
        ("src/attr/setters.py", setters_after),
        (
            "src/attr/piping.py",
            "def pipe(*setters):\n    return setters\n",
        ),
    ];
    let findings = run(&request, &project, &result);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(
        findings[0]
            .message
            .starts_with("`pipe` was public API at `attrs.setters.pipe`"),
        "{}",
        findings[0].message
    );
    // A private name is not what `*` takes: nothing lost.
    let private = Request::Move(MoveRequest {
        file: "src/attr/setters.py".to_string(),
        symbol: query("_pipe"),
        target_file: "src/attr/piping.py".to_string(),
    });
    let project = [
        ("src/attr/setters.py", &*setters.replace("pipe", "_pipe")),
        ("src/attrs/setters.py", facade),
    ];
    let result = [
        ("src/attr/setters.py", setters_after),
        (
            "src/attr/piping.py",
            "def _pipe(*setters):\n    return setters\n",
        ),
    ];
    assert_eq!(run(&private, &project, &result), vec![]);
}
