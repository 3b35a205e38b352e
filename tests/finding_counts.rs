//! Many findings of one kind (issue 11: 77 notes that `has` appears in a string, for one
//! change of signature): the JSON keeps every finding and counts them per severity and kind in
//! `data.finding_counts`; the warning panel lists the warnings first, on screen at 80×24, and
//! folds the notes into one count per kind.

mod tui_common;

use std::path::Path;

use candor::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use tui_common::*;

/// A project `attrs` whose function `has` is named in 40 strings, called once, and passed once
/// as a value.
fn project() -> (tempfile::TempDir, std::path::PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().join("attrs");
    std::fs::create_dir(&dir).unwrap();
    let mut text = String::from("def has(cls):\n    return hasattr(cls, 'x')\n\n\n");
    for i in 0..40 {
        text.push_str(&format!("NOTE_{i} = \"see has for {i}\"\n"));
    }
    text.push_str("\nCHECK = has\nRESULT = has(object)\n");
    std::fs::write(dir.join("attrs.py"), text).unwrap();
    (temp, dir)
}

fn call(root: &Path, args: &Value) -> Value {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_candor"))
        .args([
            "call",
            "refactor_change_signature",
            &args.to_string(),
            "--root",
        ])
        .arg(root)
        .env("CANDOR_BACKEND", "tree-sitter")
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn the_json_keeps_every_finding_and_counts_them() {
    let (_temp, dir) = project();
    let envelope = call(
        &dir,
        &json!({"file_path": "attrs.py", "function_name": "has",
                "new_parameters": [{"name": "cls"}, {"name": "strict", "default": "False"}]}),
    );
    assert_eq!(envelope["success"], true, "{envelope:#}");
    let data = &envelope["data"];
    let findings = data["findings"].as_array().unwrap();
    let counts = &data["finding_counts"];
    let total = counts["error"].as_u64().unwrap()
        + counts["warning"].as_u64().unwrap()
        + counts["info"].as_u64().unwrap();
    assert_eq!(total as usize, findings.len(), "{counts:#}");
    assert!(counts["warning"].as_u64().unwrap() >= 1, "{counts:#}");
    let kinds = counts["by_kind"].as_array().unwrap();
    assert_eq!(
        kinds
            .iter()
            .map(|k| k["count"].as_u64().unwrap())
            .sum::<u64>() as usize,
        findings.len()
    );
    assert_eq!(
        kinds[0]["severity"], "warning",
        "warnings come first: {kinds:#?}"
    );
    let strings = kinds
        .iter()
        .find(|k| k["kind"] == "`has` appears in a string; not updated")
        .unwrap_or_else(|| panic!("{kinds:#?}"));
    assert_eq!(
        (strings["severity"].as_str(), strings["count"].as_u64()),
        (Some("info"), Some(40))
    );
}

#[test]
fn the_panel_shows_the_warnings_first_and_folds_the_notes() {
    let (_temp, dir) = project();
    let root = dir.as_path();
    let mut h = open(root, (80, 24));
    pick(&mut h, "attrs", "attrs.py");
    h.press(&["c", "ctrl-e", "ctrl-u"])
        .type_text("(cls, strict=False)")
        .press(&["enter"]);
    ready(&h);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal.draw(|f| view::render(&h.state, f)).unwrap();
    let buffer = terminal.backend().buffer();
    let screen: String = (0..24)
        .map(|y| (0..80).map(|x| buffer[(x, y)].symbol()).collect::<String>() + "\n")
        .collect();
    assert!(
        screen.contains("▲ `has` is used at"),
        "the warning is on screen at 80×24:\n{screen}"
    );
    assert!(screen.contains("Findings: 1 warning"), "{screen}");
    insta::assert_snapshot!(
        "findings_folded_80x24",
        screen.replace(&root.display().to_string(), "[ROOT]")
    );
    // Tab to the list; the last row brings the folded notes into view.
    h.press(&["tab"]);
    for _ in 0..5 {
        h.press(&["down"]);
    }
    terminal.draw(|f| view::render(&h.state, f)).unwrap();
    let buffer = terminal.backend().buffer();
    let screen: String = (0..24)
        .map(|y| (0..80).map(|x| buffer[(x, y)].symbol()).collect::<String>() + "\n")
        .collect();
    assert!(
        screen.contains("40 × `has` appears in a"),
        "the notes folded into one count:\n{screen}"
    );
    insta::assert_snapshot!(
        "findings_folded_notes_80x24",
        screen.replace(&root.display().to_string(), "[ROOT]")
    );
    // `a` lists every note; Enter on one jumps to its line.
    h.press(&["a"]);
    let preview = h.state.preview().unwrap();
    let rows = preview.rows().len();
    assert_eq!(rows, ready(&h).outcome.plan.findings.len());
}
