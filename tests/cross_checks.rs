//! candor's cross-checks (`refactor::cross`) against the golden fixtures: every expected result
//! there was reviewed by hand and is correct, so a cross-check that finds an error in one of them
//! is a false alarm. Also the examples the checks exist for, on the heuristic's own output.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use candor::api::args;
use candor::edit::SourceFile;
use candor::honesty::Tool;
use candor::lang::Language;
use candor::refactor::cross;
use candor::refactor::{self, MemorySources, Severity};
use serde_json::Value;

fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// (tool, case directory) of every golden case that expects a result (not an error).
fn cases() -> Vec<(Tool, PathBuf)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut cases = Vec::new();
    for tool in Tool::ALL {
        for lang in ["python", "rust"] {
            let dir = root.join(tool.operation()).join(lang);
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for case in entries.flatten() {
                let path = case.path();
                if path.join("request.json").exists() && !path.join("error.json").exists() {
                    cases.push((tool, path));
                }
            }
        }
    }
    cases.sort_by(|a, b| a.1.cmp(&b.1));
    cases
}

#[test]
fn the_golden_results_raise_no_false_alarm() {
    let mut alarms = Vec::new();
    let mut checked = 0;
    for (tool, dir) in cases() {
        let request: Value =
            serde_json::from_slice(&std::fs::read(dir.join("request.json")).unwrap()).unwrap();
        let mut sources = MemorySources::new();
        for (path, bytes) in read_tree(&dir.join("before")) {
            if let Ok(file) = SourceFile::from_bytes(path, &bytes) {
                sources.insert(file);
            }
        }
        let Ok(call) = args::parse(tool, &request) else {
            continue;
        };
        let Ok(plan) = refactor::plan(&sources, &call.request) else {
            continue;
        };
        checked += 1;
        let lang = call
            .request
            .language()
            .expect("a golden case is Rust or Python");
        let found = cross::check(&call.request, lang, &plan.changes, &sources, &plan.findings);
        // Every cross-check warning or error (all carry a `cross.` kind) on a reviewed result is
        // a false alarm. An info says what the edit changes and alarms no one (a moved Python
        // function's new `__module__`).
        for finding in found.iter().filter(|f| {
            f.severity == Severity::Error
                || (f.severity == Severity::Warning
                    && f.kind.is_some_and(|k| k.starts_with("cross.")))
        }) {
            alarms.push(format!(
                "{}: {}:{} {}",
                dir.display(),
                finding.file,
                finding.line,
                finding.message
            ));
        }
    }
    assert!(checked >= 30, "the golden cases were found ({checked})");
    assert!(alarms.is_empty(), "false alarms:\n{}", alarms.join("\n"));
}

#[test]
fn a_heuristic_extract_with_wrong_arity_calls_is_caught() {
    // The result of an extract whose new function is called with one argument too many: the
    // heuristic never does this, so the plan is built by hand from a bad "after".
    let before = "def f(a):\n    b = a + 1\n    return b\n";
    let after = "def f(a):\n    b = part(a, a)\n    return b\n\n\ndef part(a):\n    return a + 1\n";
    let source = SourceFile::from_text("m.py", before);
    let change = candor::edit::FileChange::modify(
        &source,
        candor::backend::lsp::minimal_edits(before, after),
    )
    .unwrap();
    let sources = MemorySources::new().with("m.py", before);
    let request = refactor::Request::Extract(refactor::ExtractRequest {
        file: "m.py".to_string(),
        start_line: 2,
        end_line: 2,
        new_name: "part".to_string(),
    });
    let found = cross::check(&request, Language::Python, &[change], &sources, &[]);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(
        found[0].message,
        "call at m.py:2 passes 2 positional arguments, `part` takes 1"
    );
}

/// A change of signature whose calls elsewhere were left as they were (as a backend that only
/// rewrote the definition leaves them), on a project whose files hold the facts a call's
/// certainty rests on far from the call: an import at the top, a parameter of the same name in a
/// function's header many lines up, the name only in a comment, a string or a longer word.
fn far_facts_project() -> (
    MemorySources,
    Vec<candor::edit::FileChange>,
    refactor::Request,
) {
    let filler: String = (0..40).map(|i| format!("    v{i} = {i}\n")).collect();
    let before = "def scale(a):\n    return a\n";
    let after = "def scale(a, b):\n    return a * b\n";
    let b = format!("from a import scale\n\n\ndef g():\n{filler}    return scale(1)\n");
    let c = format!("def h(scale):\n{filler}    return scale(1)\n");
    let d = "# scale(1) in a comment\nx = 'scale(1)'\nrescale = 2\n";
    let e = format!(
        "import a\n\n\nclass K:\n    def m(self):\n{filler}        return a.scale(1, 2, 3)\n"
    );
    let sources = MemorySources::new()
        .with("a.py", before)
        .with("b.py", &b)
        .with("c.py", &c)
        .with("d.py", d)
        .with("e.py", &e);
    let change = |path: &str, before: &str, after: &str| {
        let source = SourceFile::from_text(path, before);
        candor::edit::FileChange::modify(
            &source,
            candor::backend::lsp::minimal_edits(before, after),
        )
        .unwrap()
    };
    // e.py is changed too (elsewhere than its call): read from its new text.
    let changes = vec![
        change("a.py", before, after),
        change("e.py", &e, &e.replace("v0 = 0", "w0 = 0")),
    ];
    let request = refactor::Request::ChangeSignature(refactor::ChangeSignatureRequest {
        file: "a.py".to_string(),
        function: candor::lang::symbols::SymbolQuery {
            name: "scale".to_string(),
            line: None,
            column: None,
        },
        new_parameters: Vec::new(),
    });
    (sources, changes, request)
}

#[test]
fn the_arity_check_reads_unchanged_files_around_the_name_as_a_full_parse_would() {
    let (sources, changes, request) = far_facts_project();
    let found = cross::check(&request, Language::Python, &changes, &sources, &[]);
    let messages: Vec<String> = found
        .iter()
        .map(|f| format!("{}:{} {}", f.file, f.line, f.message))
        .collect();
    assert_eq!(
        messages,
        [
            "b.py:45 call at b.py:45 passes 1 argument, `scale` needs 2: `b` missing",
            "e.py:46 call at e.py:46 passes 3 positional arguments, `scale` takes 2",
        ],
        "{found:?}"
    );
    let full = refactor::FullTrees(&sources);
    assert_eq!(
        cross::check(&request, Language::Python, &changes, &full, &[]),
        found
    );
}
