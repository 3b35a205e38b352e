//! The behaviour guards with the real servers, through the real `candor call` binary, on copies
//! of `tests/rope_fixtures/kit` (the shapes of more-itertools 10.5.0 that the issue met: a
//! generator `tail` in `recipes.py`, a package `__init__.py` that re-exports `recipes` with `*`
//! and its `__all__`): pylsp's extract of `tail`'s body drops the generator it makes, and
//! rope's move of `powerset` to a new module takes `kit.powerset` off the package; each result
//! carries its guard's finding.
//!
//! The servers come from PATH, with this repository's `.venv/bin` first. When one is missing the
//! test fails in CI (`CI` set) and is skipped, saying so, elsewhere.

mod common;
mod rope_common;

use serde_json::json;

use rope_common::{call, findings_of, fixture, read, require_rope};

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("no `{needle}` in {text}"))
        + 1
}

#[test]
fn pylsp_s_extract_of_a_generator_body_is_an_error_at_the_call() {
    if !common::servers::require(&["pylsp"]) {
        return;
    }
    let project = fixture("kit");
    let root = project.path();
    let before = read(root, "kit/recipes.py");
    let args = json!({
        "file_path": "kit/recipes.py",
        "start_line": line_of(&before, "if isinstance(iterable, Sized)"),
        "end_line": line_of(&before, "yield from iter(deque"),
        "new_name": "tail_helper",
        "semantic_edit_backend": "lsp",
    });
    let envelope = call(root, "refactor_extract_function", args);
    assert_eq!(envelope["success"], true, "{envelope:#}");
    assert_eq!(
        envelope["data"]["lsp_server"]["name"], "pylsp",
        "{envelope:#}"
    );
    let diff = envelope["data"]["changes"][0]["diff"].as_str().unwrap();
    // pylsp leaves the call a statement of its own: the generator it makes is never iterated.
    assert!(diff.contains("+    tail_helper(iterable, n)\n"), "{diff}");
    let call_line = line_of(&before, "if isinstance(iterable, Sized)");
    let findings = findings_of(&envelope);
    let expected = format!(
        "error kit/recipes.py:{call_line} the result of `tail_helper` is dropped; the extracted lines yielded (lines {}, {}), so `tail_helper` is a generator that `tail` no longer yields from: write `yield from tail_helper(…)`",
        call_line + 1,
        call_line + 3,
    );
    assert!(findings.contains(&expected), "{findings:#?}");
}

#[test]
fn rope_s_move_out_of_a_star_re_exported_module_warns_about_the_package_path() {
    if !require_rope() {
        return;
    }
    let project = fixture("kit");
    let root = project.path();
    let args = json!({
        "file_path": "kit/recipes.py",
        "symbol_name": "powerset",
        "target_file": "kit/sets.py",
    });
    let envelope = call(root, "refactor_move_to_file", args);
    assert_eq!(envelope["success"], true, "{envelope:#}");
    assert_eq!(
        envelope["backend_used"], "lsp",
        "rope answers: {envelope:#}"
    );
    let findings = findings_of(&envelope);
    let warning = findings
        .iter()
        .find(|f| f.contains("was public API"))
        .unwrap_or_else(|| panic!("{findings:#?}"));
    assert!(warning.starts_with("warning kit/recipes.py:"), "{warning}");
    assert!(
        warning.ends_with("`powerset` was public API at `kit.powerset`; importers now reach it at `kit.sets.powerset` (re-export it with `from .sets import powerset` in kit/recipes.py (and `'powerset'` kept in its `__all__`) to keep the old path)"),
        "{warning}"
    );
}
