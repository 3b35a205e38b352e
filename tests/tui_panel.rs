//! The warning panel speaks with one voice and puts the cause first (issue 25, items 1, 3, 4, 6):
//! a semantic result whose check failed says what was checked and found in its caveat line,
//! never "Findings: none" beside it; rope is "the rope library"; a caveat note reads "this
//! time: …"; candor's own warnings come before the check's problems, which are grouped by file
//! and code with counts and open on Enter; every list has g/G and counts; a long fallback
//! reason is one line with `…`; the split follows the width, `<`/`>`/`Z` move it. Hand-built
//! outcomes (as the engine would answer) in a headless session, drawn into ratatui's TestBackend.

mod tui_common;

use candor::api::ToolCall;
use candor::backend::{BackendChoice, Outcome, ServerInfo};
use candor::edit::{FileChange, SourceFile, TextEdit};
use candor::honesty::{BackendKind, Caveat, CaveatNote, Tool};
use candor::refactor::{Finding, InlineRequest, Plan, Request, Severity};
use candor::tui::action::Action;
use candor::tui::diffview;
use candor::tui::effect::Effect;
use candor::tui::headless::Headless;
use candor::tui::state::{FindingRow, PreviewFocus, Ready, ScreenKind};
use candor::tui::view;
use candor::verify::{Diagnostic, Level, State as CheckState, Verification};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

const LIB: &str = "pub fn helper(a: u32) -> u32 {\n    a + 1\n}\n\npub fn main_total(x: u32) -> u32 {\n    let y = helper(x);\n    y * 2\n}\n";
const AFTER: &str = "pub fn main_total(x: u32) -> u32 {\n    // The helper's body, inlined here by the refactor: a comment long enough to need the room.\n    let y = x + 1;\n    y * 2\n}\n";

fn project() -> (tempfile::TempDir, Headless) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("shop");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"shop\"\n").unwrap();
    std::fs::write(root.join("src/lib.rs"), LIB).unwrap();
    let mut h = Headless::open(
        &root.join("src/lib.rs"),
        Some(BackendChoice::TreeSitter),
        (120, 40),
    )
    .unwrap();
    h.press(&["i"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Preview);
    (dir, h)
}

/// What a language server (or rope) would answer for inlining `helper`.
fn semantic(server: Option<&str>, library: Option<&str>, findings: Vec<Finding>) -> Outcome {
    let source = SourceFile::from_text("src/lib.rs", LIB);
    let change = FileChange::modify(&source, vec![TextEdit::new(0..LIB.len(), AFTER)]).unwrap();
    let info = |name: &str| ServerInfo {
        name: name.to_string(),
        version: Some("1.0".to_string()),
    };
    Outcome {
        tool: Tool::InlineFunction,
        lang: candor::lang::Language::Rust,
        plan: Plan {
            changes: vec![change],
            findings,
            details: Default::default(),
            caveat_notes: Vec::new(),
            ..Plan::default()
        },
        backend: BackendKind::Lsp,
        server: server.map(info),
        semantic_backend: server.or(library).map(info),
        fallback_reason: None,
    }
}

/// Shows `outcome` as the answer to the preview on screen, its check asked.
fn show(h: &mut Headless, outcome: Outcome) {
    let call = ToolCall::new(Request::Inline(InlineRequest {
        file: "src/lib.rs".to_string(),
        function: candor::lang::symbols::SymbolQuery {
            name: "helper".to_string(),
            line: None,
            column: None,
        },
    }));
    let diffs = outcome
        .plan
        .changes
        .iter()
        .map(|c| diffview::file_diff(c, false))
        .collect();
    let id = h.state.preview().unwrap().id;
    h.dispatch(Action::PreviewReady {
        id,
        result: Ok(Box::new(Ready::new(call, outcome, diffs, Level::Check))),
    });
    h.settle();
}

fn error(code: &str, line: usize, message: &str) -> Diagnostic {
    Diagnostic {
        file: "src/lib.rs".to_string(),
        line,
        severity: Severity::Error,
        code: code.to_string(),
        message: message.to_string(),
        source: "cargo check".to_string(),
    }
}

/// The check's answer for the result on screen.
fn checked(h: &mut Headless, state: CheckState, introduced: Vec<Diagnostic>, reason: Option<&str>) {
    let id = h.state.preview().unwrap().ready().unwrap().check.id;
    let verification = Verification {
        checker: Some("cargo check".to_string()),
        state,
        introduced,
        reason: reason.map(str::to_string),
        ..Verification::skipped("")
    };
    h.dispatch(Action::Checked {
        id,
        verification: Box::new(verification),
    });
    h.settle();
}

fn screen(h: &Headless) -> String {
    let (w, height) = h.state.size;
    let mut terminal = Terminal::new(TestBackend::new(w, height)).unwrap();
    terminal.draw(|f| view::render(&h.state, f)).unwrap();
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    for y in 0..height {
        for x in 0..w {
            text.push_str(buffer[(x, y)].symbol());
        }
        text.push('\n');
    }
    text
}

/// The warning panel's text alone (the right-hand box), one line per row.
fn panel(h: &Headless) -> Vec<String> {
    let areas = h.state.preview_layout();
    let text = screen(h);
    text.lines()
        .skip(areas.panel.y as usize)
        .take(areas.panel.height as usize)
        .map(|row| {
            row.chars()
                .skip(areas.panel.x as usize)
                .take(areas.panel.width as usize)
                .collect::<String>()
                .trim_end()
                .to_string()
        })
        .collect()
}

/// The panel's text as one line, whitespace runs as one space (wrapped sentences read whole).
fn flat(lines: &[String]) -> String {
    lines
        .join(" ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn position(lines: &[String], needle: &str) -> usize {
    lines
        .iter()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` is in the panel:\n{}", lines.join("\n")))
}

#[test]
fn a_language_server_result_with_a_failed_check_speaks_with_one_voice() {
    let (_dir, mut h) = project();
    show(&mut h, semantic(Some("rust-analyzer"), None, Vec::new()));
    checked(
        &mut h,
        CheckState::Introduced,
        vec![
            error("E0425", 2, "cannot find value `a` in this scope"),
            error("E0106", 1, "missing lifetime specifier"),
            error("E0425", 3, "cannot find value `a` in this scope"),
        ],
        None,
    );
    let lines = panel(&h);
    let text = flat(&lines);
    assert!(!text.contains("Findings: none"), "{text}");
    // The summary counts the check's problems with candor's findings.
    assert!(
        text.contains("3 errors: E0425 × 2, E0106 (cargo check)"),
        "{text}"
    );
    // The caveat line says what was checked and what was found.
    let caveat = flat(&lines[position(&lines, "Caveats: none") + 1..]);
    assert!(
        caveat.contains("rust-analyzer (a language server) did the refactor")
            && caveat.contains("cargo check found 3 new compile errors"),
        "{text}"
    );
    // Grouped by file and code, with counts.
    assert!(
        text.contains("▸ E0425 × 2 in src/lib.rs (cargo check)"),
        "{text}"
    );
    insta::assert_snapshot!("one_voice_failed_check_120x40", screen(&h));
    // The confirmation says what is on screen.
    h.press(&["enter"]);
    let ready = h.state.preview().unwrap().ready().unwrap();
    assert_eq!(
        ready.confirm_hint(),
        "Read what the check found in the warning panel."
    );
    assert!(screen(&h).contains("Read what the check found in the warning panel."));
    h.press(&["n"]);
    // The group opens on Enter to its problems, and closes again.
    h.press(&["tab"]);
    let rows = h.state.preview().unwrap().rows();
    assert!(matches!(rows[0], FindingRow::CheckGroup(_)), "{rows:?}");
    let closed = rows.len();
    h.press(&["enter"]);
    assert_eq!(h.state.preview().unwrap().rows().len(), closed + 2);
    let text = flat(&panel(&h));
    assert!(text.contains("▾ E0425 × 2 in src/lib.rs"), "{text}");
    assert!(
        text.contains("src/lib.rs:3 E0425 cannot find value"),
        "{text}"
    );
    h.press(&["enter"]);
    assert_eq!(h.state.preview().unwrap().rows().len(), closed);
}

#[test]
fn candor_s_own_findings_come_before_the_check_s_problems_and_every_list_has_g_and_counts() {
    let (_dir, mut h) = project();
    let warning = Finding::warning("src/lib.rs", 2, "the argument `x` is used twice");
    show(&mut h, semantic(Some("rust-analyzer"), None, vec![warning]));
    checked(
        &mut h,
        CheckState::Introduced,
        (1..=8)
            .map(|line| error("E0425", line, "cannot find value `a` in this scope"))
            .chain([error("E0106", 1, "missing lifetime specifier")])
            .collect(),
        None,
    );
    let text = flat(&panel(&h));
    let at = |needle: &str| {
        text.find(needle)
            .unwrap_or_else(|| panic!("`{needle}` is in the panel: {text}"))
    };
    assert!(
        at("the argument `x` is used twice") < at("▸ E0425 × 8"),
        "the cause first: {text}"
    );
    assert!(
        text.contains("9 errors: E0425 × 8, E0106 (cargo check) · 1 warning"),
        "{text}"
    );
    // G goes to the last row, g to the first, counts move by that many.
    h.press(&["tab", "G"]);
    let preview = h.state.preview().unwrap();
    let rows = preview.rows();
    assert_eq!(preview.finding, rows.len() - 1);
    h.press(&["g"]);
    assert_eq!(h.state.preview().unwrap().finding, 0);
    assert_eq!(
        rows[0],
        FindingRow::One(0),
        "candor's warning is the first row"
    );
    h.press(&["enter"]); // open nothing: it jumps to the line
    h.press(&["esc"]);
    assert_eq!(
        h.state.preview().unwrap().focus,
        PreviewFocus::Findings,
        "Esc after a jump goes back to the list, not out of the preview"
    );
    h.press(&["2", "j"]);
    assert_eq!(h.state.preview().unwrap().finding, 2);
    h.press(&["esc"]);
    // In the diff too: 3j scrolls three rows, 2G goes to the second.
    h.press(&["3", "j"]);
    assert_eq!(h.state.preview().unwrap().scroll, 3);
    h.press(&["2", "G"]);
    assert_eq!(h.state.preview().unwrap().scroll, 1);
}

#[test]
fn rope_is_named_the_rope_library_and_a_caveat_note_says_this_time() {
    let (_dir, mut h) = project();
    show(&mut h, semantic(None, Some("rope"), Vec::new()));
    checked(&mut h, CheckState::Clean, Vec::new(), None);
    let text = flat(&panel(&h));
    assert!(text.contains("rope 1.0 (the rope library)"), "{text}");
    assert!(!text.contains("language server"), "{text}");
    assert!(
        text.contains("rope (the rope library) did the refactor, and cargo check found nothing"),
        "{text}"
    );
    // A heuristic result's note under its canonical caveat, which stays verbatim.
    let (_dir, mut h) = project();
    let mut outcome = semantic(None, None, Vec::new());
    outcome.backend = BackendKind::Hybrid;
    outcome.tool = Tool::ChangeSignature;
    outcome.plan.caveat_notes = vec![CaveatNote::new(
        Caveat::SignatureArguments,
        "arguments re-ordered by name at 2 calls",
    )];
    show(&mut h, outcome);
    let text = flat(&panel(&h));
    let caveat = Tool::ChangeSignature
        .caveats()
        .iter()
        .find(|c| c.starts_with("no call-site argument"))
        .unwrap();
    assert!(
        text.contains(&format!(
            "• {caveat} ↳ this time: arguments re-ordered by name at 2 calls"
        )),
        "the canonical text, verbatim, then the note: {text}"
    );
}

#[test]
fn a_long_fallback_reason_is_one_line_with_an_ellipsis_that_opens() {
    let (_dir, mut h) = project();
    let mut outcome = semantic(None, None, Vec::new());
    outcome.backend = BackendKind::Hybrid;
    let reason = format!(
        "pylsp-rope has no extract-function action for lines 3-4 of app.py (it offered {})",
        (1..=17)
            .map(|i| format!("\"Action number {i}\""))
            .collect::<Vec<_>>()
            .join(", ")
    );
    outcome.fallback_reason = Some(reason.clone());
    show(&mut h, outcome);
    let lines = panel(&h);
    let at = position(&lines, "why the heuristic: pylsp-rope");
    assert!(lines[at].ends_with('…'), "one line with …: {}", lines[at]);
    assert!(
        lines[at + 1].starts_with("Confidence"),
        "{}",
        lines.join("\n")
    );
    // Tab selects it (the first row); Enter opens it whole.
    h.press(&["tab"]);
    assert_eq!(h.state.preview().unwrap().rows()[0], FindingRow::Fallback);
    h.press(&["enter"]);
    let text = flat(&panel(&h));
    assert!(text.contains("\"Action number 17\")"), "{text}");
}

#[test]
fn the_split_follows_the_width_and_moves_with_the_keys() {
    let (_dir, mut h) = project();
    show(&mut h, semantic(Some("rust-analyzer"), None, Vec::new()));
    let width = |h: &Headless| {
        let areas = h.state.preview_layout();
        (areas.diff_box.width, areas.panel_box.width)
    };
    assert_eq!(
        width(&h),
        (84, 36),
        "the diff gets what the panel does not need"
    );
    h.dispatch(Action::Resize(200, 60));
    let (diff, panel_width) = width(&h);
    assert!(
        panel_width > 56 && diff + panel_width == 200,
        "{diff} {panel_width}"
    );
    h.dispatch(Action::Resize(120, 40));
    h.press_pending("<");
    assert!(
        h.queue
            .iter()
            .any(|e| matches!(e, Effect::SaveSplit(s) if s.panel == Some(40))),
        "remembered: {:?}",
        h.queue
    );
    h.settle();
    assert_eq!(width(&h), (80, 40));
    // No narrower than the panel needs.
    h.press(&[">", ">", ">"]);
    assert_eq!(width(&h), (84, 36));
    h.press(&["="]);
    assert_eq!(width(&h), (84, 36));
    // Z: the diff has the whole screen, and the title says the warnings are hidden.
    h.press(&["Z"]);
    assert_eq!(width(&h), (120, 0));
    assert!(screen(&h).contains("warnings hidden (Z)"));
    // Applying shows the panel first; nothing is written or asked yet.
    h.press(&["enter"]);
    assert_eq!(width(&h), (84, 36));
    assert!(!h.state.preview().unwrap().confirm);
    assert!(h.state.writing.is_none());
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("the warning panel is back")
    );
}
