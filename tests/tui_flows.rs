//! Whole TUI flows driven by keys, without a terminal, on a temp copy of the demo project: for
//! each refactor in both languages, from the picker to a confirmed write (the bytes on disk are
//! the previewed bytes, and the demo's own tests still pass); cancel writes nothing; a stale
//! preview cannot be confirmed; undo restores; errors are shown, never a crash.

mod tui_common;

use candor::api::ErrorCode;
use candor::honesty::{BackendKind, Tool};
use candor::tui::state::{NoticeLevel, ScreenKind};
use tui_common::*;

const RUST: &str = "rust/src/lib.rs";
const PYTHON: &str = "python/shop/receipt.py";

/// Applies the preview on screen and checks that every changed file on disk holds exactly the
/// previewed bytes.
fn confirm_and_check_disk(h: &mut candor::tui::headless::Headless, root: &std::path::Path) {
    let ready = ready(h);
    assert!(!ready.outcome.plan.changes.is_empty());
    confirm(h);
    for change in &ready.outcome.plan.changes {
        assert_eq!(
            read(root, &change.path),
            change.after_bytes(),
            "{} on disk is the previewed text",
            change.path
        );
    }
    let notice = h.state.notice.as_ref().unwrap();
    assert!(notice.text.contains("press u to undo"), "{notice:?}");
}

fn assert_heuristic(ready: &candor::tui::state::Ready, tool: Tool) {
    assert_eq!(ready.outcome.tool, tool);
    assert_eq!(ready.outcome.backend, BackendKind::Hybrid);
    assert_eq!(ready.outcome.confidence(), tool.heuristic_confidence());
    assert_eq!(ready.caveats(), tool.caveats());
}

fn text(root: &std::path::Path, path: &str) -> String {
    String::from_utf8(read(root, path)).unwrap()
}

#[test]
fn extract_rust_from_the_picker_to_the_disk() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    select_lines(&mut h, 52, 54);
    h.press(&["e"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Form);
    h.type_text("print_header").press(&["enter"]);
    let ready = ready(&h);
    assert_heuristic(&ready, Tool::ExtractFunction);
    confirm_and_check_disk(&mut h, &root);
    let after = text(&root, RUST);
    assert!(after.contains("fn print_header()"), "{after}");
    assert!(after.contains("    print_header();\n"), "{after}");
    assert_eq!(after.matches("CANDOR DEMO SHOP").count(), 1);
    assert_eq!(
        h.state.code.as_ref().unwrap().doc.text,
        after,
        "the code view shows the new text"
    );
    demo_tests_pass(&root, "rust");
}

#[test]
fn extract_python_from_the_picker_to_the_disk() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "shop/receipt", PYTHON);
    select_lines(&mut h, 46, 48);
    h.press(&["e"]).type_text("print_header").press(&["enter"]);
    assert_heuristic(&ready(&h), Tool::ExtractFunction);
    confirm_and_check_disk(&mut h, &root);
    let after = text(&root, PYTHON);
    assert!(after.contains("def print_header():"), "{after}");
    assert!(after.contains("    print_header()\n"), "{after}");
    assert_eq!(after.matches("CANDOR DEMO SHOP").count(), 1);
    demo_tests_pass(&root, "python");
}

#[test]
fn inline_rust_helper() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    select_symbol(&mut h, "fn line_total");
    h.press(&["i"]);
    assert_heuristic(&ready(&h), Tool::InlineFunction);
    confirm_and_check_disk(&mut h, &root);
    let after = text(&root, RUST);
    assert!(!after.contains("fn line_total"), "{after}");
    assert!(
        !after.contains("line_total("),
        "every call site is inlined: {after}"
    );
    assert!(
        after.contains("item.unit_price_cents * item.quantity"),
        "{after}"
    );
    demo_tests_pass(&root, "rust");
}

#[test]
fn inline_python_helper() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "shop/receipt", PYTHON);
    select_symbol(&mut h, "def line_total");
    h.press(&["i"]);
    assert_heuristic(&ready(&h), Tool::InlineFunction);
    confirm_and_check_disk(&mut h, &root);
    let after = text(&root, PYTHON);
    assert!(!after.contains("def line_total"), "{after}");
    assert!(!after.contains("line_total("), "{after}");
    assert!(
        after.contains("item.unit_price_cents * item.quantity"),
        "{after}"
    );
    demo_tests_pass(&root, "python");
}

#[test]
fn move_rust_item_with_path_completion() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    select_symbol(&mut h, "fn parse_cents");
    h.press(&["m"]).type_text("rust/src/mo").press(&["tab"]);
    assert_eq!(
        h.state.form().unwrap().input_text(),
        "rust/src/money.rs",
        "Tab completes an existing path"
    );
    h.press(&["enter"]);
    let ready = ready(&h);
    assert_heuristic(&ready, Tool::MoveToFile);
    assert_eq!(ready.diffs.len(), 2, "both files are previewed");
    // `pub use money::*;` brings it in and keeps it public at the root: no `use` added beside
    // it, no warning that the public API moved.
    assert!(
        !ready
            .outcome
            .plan
            .findings
            .iter()
            .any(|f| f.message.contains("public API")),
        "{:?}",
        ready.outcome.plan.findings
    );
    confirm_and_check_disk(&mut h, &root);
    assert!(!text(&root, RUST).contains("fn parse_cents"));
    assert!(
        !text(&root, RUST).contains("use crate::money::parse_cents;"),
        "{}",
        text(&root, RUST)
    );
    assert!(
        text(&root, "rust/src/money.rs")
            .contains("pub fn parse_cents(text: &str) -> Option<u64> {")
    );
    demo_tests_pass(&root, "rust");
}

#[test]
fn the_move_form_says_when_the_target_s_folder_does_not_exist() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    select_symbol(&mut h, "fn parse_cents");
    h.press(&["m"]).type_text("rust/src/nowhere/money.rs");
    let shown = screen_text(&h);
    assert!(!shown.contains("new file: it will be created"), "{shown}");
    let error = h.state.form().unwrap().error.clone().unwrap_or_default();
    assert!(
        error.starts_with("the folder rust/src/nowhere/ does not exist"),
        "{error}"
    );
    h.press(&["enter"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Form, "nothing was asked");
    // A new file in a folder that exists (with no source file in it) is created.
    std::fs::create_dir(root.join("rust/src/empty")).unwrap();
    h.press(&["ctrl-u"]).type_text("rust/src/empty/money.rs");
    assert_eq!(h.state.form().unwrap().error, None);
    assert!(screen_text(&h).contains("new file: it will be created"));
}

#[test]
fn esc_after_jumping_to_a_finding_keeps_a_preview_and_a_long_one_is_not_thrown_away_silently() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "shop/receipt", PYTHON);
    select_lines(&mut h, 39, 40);
    h.press(&["e"]).type_text("reject_bad").press(&["enter"]);
    assert!(!ready(&h).outcome.plan.findings.is_empty());
    // Tab, Enter jumps to the finding's line in the diff; Esc goes back to the list.
    h.press(&["tab", "enter"]);
    assert!(h.state.preview().unwrap().marked_row.is_some());
    h.press(&["esc"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Preview);
    assert_eq!(
        h.state.preview().unwrap().focus,
        candor::tui::state::PreviewFocus::Findings
    );
    h.press(&["esc"]);
    // A preview that took long to compute (as pylsp's 93 s) is closed only when asked.
    if let candor::tui::state::Screen::Preview { preview, .. } = &mut h.state.screen
        && let Some(Ok(ready)) = preview.result.as_mut()
    {
        ready.took = std::time::Duration::from_secs(93);
    }
    h.press(&["esc"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Preview);
    assert!(screen_text(&h).contains("It took 93 s to compute"));
    h.press(&["n"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Preview, "kept");
    h.press(&["esc", "y"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Code, "closed when asked");
    assert_eq!(read(&root, PYTHON), read(&demo_dir(), PYTHON));
}

#[test]
fn move_python_item() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "shop/receipt", PYTHON);
    select_symbol(&mut h, "def parse_cents");
    h.press(&["m"])
        .type_text("python/shop/money.py")
        .press(&["enter"]);
    assert_heuristic(&ready(&h), Tool::MoveToFile);
    confirm_and_check_disk(&mut h, &root);
    assert!(!text(&root, PYTHON).contains("def parse_cents"));
    assert!(text(&root, "python/shop/money.py").contains("def parse_cents(text):"));
    demo_tests_pass(&root, "python");
}

#[test]
fn change_signature_rust_drops_the_unused_parameter() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    select_symbol(&mut h, "fn shipping_cents");
    h.press(&["c"]);
    let form = h.state.form().unwrap();
    assert_eq!(
        form.input_text(),
        "(weight_grams: u64, express: bool, _legacy_zone: u32)",
        "the current list, editable"
    );
    h.press(&["ctrl-e", "ctrl-u"])
        .type_text("(weight_grams: u64, express: bool)")
        .press(&["enter"]);
    assert_heuristic(&ready(&h), Tool::ChangeSignature);
    confirm_and_check_disk(&mut h, &root);
    let after = text(&root, RUST);
    assert!(
        after.contains("pub fn shipping_cents(weight_grams: u64, express: bool) -> u64 {"),
        "{after}"
    );
    assert!(
        after.contains("shipping_cents(weight_grams, express)"),
        "the call site follows: {after}"
    );
    demo_tests_pass(&root, "rust");
}

#[test]
fn change_signature_python_drops_the_unused_parameter() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "shop/receipt", PYTHON);
    select_symbol(&mut h, "def shipping_cents");
    h.press(&["c"]);
    assert_eq!(
        h.state.form().unwrap().input_text(),
        "(weight_grams, express=False, legacy_zone=None)"
    );
    h.press(&["ctrl-e", "ctrl-u"])
        .type_text("(weight_grams, express=False)")
        .press(&["enter"]);
    assert_heuristic(&ready(&h), Tool::ChangeSignature);
    confirm_and_check_disk(&mut h, &root);
    assert!(text(&root, PYTHON).contains("def shipping_cents(weight_grams, express=False):"));
    demo_tests_pass(&root, "python");
}

#[test]
fn cancelling_writes_nothing() {
    let (_dir, root) = demo_copy();
    let original = read(&root, RUST);
    let mut h = open(&root, (80, 24));
    pick(&mut h, "rust/src/lib", RUST);
    select_lines(&mut h, 52, 54);
    // Cancel the form.
    h.press(&["e"]).type_text("print_header").press(&["esc"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Code);
    assert!(h.state.form().is_none());
    // Say no at the prompt, then cancel the preview.
    h.press(&["e"]).type_text("print_header").press(&["enter"]);
    ready(&h);
    h.press(&["enter"]);
    assert!(h.state.preview().unwrap().confirm);
    h.press(&["n"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Preview);
    assert!(!h.state.preview().unwrap().confirm);
    h.press(&["esc"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Code);
    assert!(h.state.preview().is_none());
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("nothing was written")
    );
    assert_eq!(read(&root, RUST), original);
    assert!(h.state.last_applied.is_none());
}

#[test]
fn a_stale_preview_cannot_be_confirmed_until_recomputed() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    select_lines(&mut h, 52, 54);
    h.press(&["e"]).type_text("print_header").press(&["enter"]);
    ready(&h);
    assert!(
        h.watched.contains(&RUST.to_string()),
        "the preview's files are watched: {:?}",
        h.watched
    );

    // Someone else edits the file; the watcher reports it.
    let mut edited = text(&root, RUST);
    edited.push_str("// edited elsewhere\n");
    std::fs::write(root.join(RUST), &edited).unwrap();
    h.files_changed(&[RUST]);
    let preview = h.state.preview().unwrap();
    assert_eq!(preview.stale.as_deref(), Some(RUST));
    assert!(preview.computing, "a new preview was asked for");

    // Confirm is refused while it is stale: no write is even queued.
    h.press_pending("enter");
    let notice = h.state.notice.as_ref().unwrap();
    assert_eq!(notice.level, NoticeLevel::Warning);
    assert!(notice.text.contains("stale"), "{notice:?}");
    assert!(
        !h.state.preview().unwrap().confirm,
        "no prompt for a stale preview"
    );
    h.press_pending("y");
    assert!(h.state.writing.is_none());
    assert!(
        !h.queue
            .iter()
            .any(|e| matches!(e, candor::tui::effect::Effect::Apply { .. }))
    );
    assert_eq!(text(&root, RUST), edited);

    // The recomputed preview is of the new text, and that is what gets written.
    h.settle();
    let preview = h.state.preview().unwrap();
    assert!(preview.stale.is_none() && !preview.computing);
    assert!(
        ready(&h).outcome.plan.changes[0]
            .after
            .contains("// edited elsewhere")
    );
    confirm_and_check_disk(&mut h, &root);
    assert!(text(&root, RUST).contains("// edited elsewhere"));
}

#[test]
fn a_change_the_watcher_missed_is_caught_by_the_write() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "shop/receipt", PYTHON);
    select_lines(&mut h, 46, 48);
    h.press(&["e"]).type_text("print_header").press(&["enter"]);
    ready(&h);
    let edited = format!("{}# edited elsewhere\n", text(&root, PYTHON));
    std::fs::write(root.join(PYTHON), &edited).unwrap();
    h.press(&["enter", "y"]);
    assert_eq!(
        h.state.screen.kind(),
        ScreenKind::Preview,
        "still on the preview"
    );
    let notice = h.state.notice.as_ref().unwrap();
    assert_eq!(notice.level, NoticeLevel::Error);
    assert!(notice.text.contains("changed on disk"), "{notice:?}");
    assert_eq!(text(&root, PYTHON), edited, "nothing was written");
    assert!(
        ready(&h).outcome.plan.changes[0]
            .after
            .contains("# edited elsewhere"),
        "recomputed on the new text"
    );
}

#[test]
fn undo_restores_the_files() {
    let (_dir, root) = demo_copy();
    let original_lib = read(&root, RUST);
    let original_money = read(&root, "rust/src/money.rs");
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    select_symbol(&mut h, "fn parse_cents");
    h.press(&["m"])
        .type_text("rust/src/money.rs")
        .press(&["enter"]);
    confirm_and_check_disk(&mut h, &root);
    assert_ne!(read(&root, RUST), original_lib);
    h.press(&["u"]);
    assert_eq!(read(&root, RUST), original_lib);
    assert_eq!(read(&root, "rust/src/money.rs"), original_money);
    let notice = h.state.notice.as_ref().unwrap();
    assert!(notice.text.starts_with("undone move to file"), "{notice:?}");
    assert_eq!(
        h.state.code.as_ref().unwrap().doc.text.as_bytes(),
        original_lib,
        "the code view shows the restored text"
    );
    h.press(&["u"]);
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("nothing to undo")
    );
}

#[test]
fn undo_keeps_a_later_edit_away_from_the_refactor_and_refuses_one_on_it() {
    let (_dir, root) = demo_copy();
    let original = text(&root, PYTHON);
    let mut h = open(&root, (120, 40));
    pick(&mut h, "shop/receipt", PYTHON);
    select_symbol(&mut h, "def shipping_cents");
    let signature = |h: &mut candor::tui::headless::Headless| {
        h.press(&["c", "ctrl-e", "ctrl-u"])
            .type_text("(weight_grams, express=False)")
            .press(&["enter"]);
    };
    signature(&mut h);
    confirm_and_check_disk(&mut h, &root);
    // A line added at the end, far from what the refactor wrote: undo reverts the refactor and
    // keeps it.
    std::fs::write(
        root.join(PYTHON),
        format!("{}# mine\n", text(&root, PYTHON)),
    )
    .unwrap();
    h.press(&["u"]);
    let notice = h.state.notice.clone().unwrap();
    assert_eq!(notice.level, NoticeLevel::Info, "{notice:?}");
    assert!(
        notice.text.starts_with("undone change signature")
            && notice
                .text
                .contains(&format!("{PYTHON} was edited since candor wrote it"))
            && notice.text.contains("your edits kept"),
        "{notice:?}"
    );
    assert_eq!(text(&root, PYTHON), format!("{original}# mine\n"));

    // An edit of the definition the refactor rewrote: refused, naming the line.
    let line = |t: &str| {
        t.lines()
            .position(|l| l.starts_with("def shipping_cents"))
            .unwrap()
            + 1
    };
    h.press(&["esc"]);
    select_symbol(&mut h, "def shipping_cents");
    signature(&mut h);
    confirm_and_check_disk(&mut h, &root);
    let written = text(&root, PYTHON);
    let at = line(&written);
    let edited = written.replace("def shipping_cents(", "def shipping_cents(  ");
    std::fs::write(root.join(PYTHON), &edited).unwrap();
    h.press(&["u"]);
    let notice = h.state.notice.as_ref().unwrap();
    assert_eq!(notice.level, NoticeLevel::Error);
    assert!(
        notice.text.contains("undo refused")
            && notice
                .text
                .contains(&format!("your edit on line {at} touches")),
        "{notice:?}"
    );
    assert!(!notice.text.contains("sha256"), "{notice:?}");
    assert_eq!(text(&root, PYTHON), edited);
}

#[test]
fn bad_input_is_shown_in_the_ui_and_writes_nothing() {
    let (_dir, root) = demo_copy();
    let original = read(&root, RUST);
    let mut h = open(&root, (80, 24));
    pick(&mut h, "rust/src/lib", RUST);

    // A name that is a keyword: refused inline, the form stays.
    select_lines(&mut h, 52, 54);
    h.press(&["e"]).type_text("fn");
    assert!(
        h.state
            .form()
            .unwrap()
            .error
            .as_deref()
            .unwrap()
            .contains("keyword")
    );
    h.press(&["enter"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Form);
    h.press(&["esc", "esc"]);

    // A parameter list that does not parse: the error is inline, Enter does nothing.
    select_symbol(&mut h, "fn shipping_cents");
    h.press(&["c", "ctrl-e", "ctrl-u"])
        .type_text("(weight_grams: u64");
    assert!(
        h.state
            .form()
            .unwrap()
            .error
            .as_deref()
            .unwrap()
            .contains("end with `)`")
    );
    h.press(&["enter"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Form);
    h.press(&["esc"]);

    // A target of another language.
    select_symbol(&mut h, "fn parse_cents");
    h.press(&["m"]).type_text("python/shop/money.py");
    assert!(
        h.state
            .form()
            .unwrap()
            .error
            .as_deref()
            .unwrap()
            .contains("Rust file")
    );
    h.press(&["esc"]);

    // A selection that cuts the `for` loop in half: the engine refuses, the UI says why.
    select_lines(&mut h, 55, 56);
    h.press(&["e"]).type_text("half").press(&["enter"]);
    let error = match &h.state.preview().unwrap().result {
        Some(Err(error)) => error.clone(),
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert_eq!(error.code, ErrorCode::InvalidRange);
    h.press(&["enter"]);
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .starts_with("nothing to apply")
    );
    h.press(&["esc"]);
    assert_eq!(
        h.state.screen.kind(),
        ScreenKind::Form,
        "back to the form to fix the input"
    );
    assert_eq!(h.state.form().unwrap().input_text(), "half");

    // Inline with the cursor outside any function.
    h.press(&["esc"]);
    goto_line(&mut h, 3);
    h.press(&["esc", "i"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Code);
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("put the cursor in a function")
    );
    assert_eq!(read(&root, RUST), original);
}

#[test]
fn the_picker_filters_as_you_type_and_esc_returns() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (80, 24));
    assert_eq!(
        h.state.picker.files.len(),
        7,
        "Rust and Python files only: {:?}",
        h.state.picker.files
    );
    assert!(!h.state.picker.scanning);
    h.type_text("money");
    let matches: Vec<&str> = h
        .state
        .picker
        .matches
        .iter()
        .map(|&i| h.state.picker.files[i].as_str())
        .collect();
    let mut sorted = matches.clone();
    sorted.sort();
    assert_eq!(sorted, ["python/shop/money.py", "rust/src/money.rs"]);
    assert_eq!(matches.len(), 2);
    h.press(&["down", "enter"]);
    let opened = h.state.code.as_ref().unwrap().doc.path.clone();
    assert!(opened.ends_with("money.py") || opened.ends_with("money.rs"));
    h.press(&["p"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Picker);
    h.press(&["esc"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Code);
}

#[test]
fn a_file_given_on_the_command_line_opens_directly() {
    let (_dir, root) = demo_copy();
    let h = open(&root.join(RUST), (80, 24));
    assert_eq!(h.state.screen.kind(), ScreenKind::Code);
    assert_eq!(
        h.state.project_name, "rust",
        "the crate is the file's project"
    );
    assert_eq!(h.state.code.as_ref().unwrap().doc.path, "src/lib.rs");
}

#[test]
fn the_change_signature_form_checks_the_list_with_the_engines_rules() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    select_symbol(&mut h, "fn shipping_cents");
    // A value on a parameter the function has already: its calls pass it already.
    h.press(&["c", "ctrl-e", "ctrl-u"])
        .type_text("(weight_grams: u64 = 1000, express: bool)");
    let error = h.state.form().unwrap().error.clone().unwrap_or_default();
    assert!(
        error.contains("Rust has no default parameter values: remove `= 1000`"),
        "{error}"
    );
    assert!(
        !error.contains("\"default\""),
        "in the form's words, not the JSON's: {error}"
    );
    h.press(&["enter"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Form, "nothing was asked");
    // The engine's other rules, as you type.
    h.press(&["ctrl-u"])
        .type_text("(&self, weight_grams: u64, express: bool)");
    let error = h.state.form().unwrap().error.clone().unwrap_or_default();
    assert!(error.contains("has no `self` parameter"), "{error}");
    assert!(!error.contains("new_parameters"), "{error}");
    h.press(&["ctrl-u"])
        .type_text("(weight_grams: u64, express: bool)");
    assert_eq!(h.state.form().unwrap().error, None);
    h.press(&["esc", "esc"]);

    pick_again(&mut h, "shop/receipt", PYTHON);
    select_symbol(&mut h, "def shipping_cents");
    h.press(&["c", "ctrl-e", "ctrl-u"])
        .type_text("(weight_grams, express=False, zone)");
    let error = h.state.form().unwrap().error.clone().unwrap_or_default();
    assert!(error.contains("default"), "{error}");
    h.press(&["enter"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Form);
    assert_eq!(read(&root, PYTHON), read(&demo_dir(), PYTHON));
}

#[test]
fn a_rust_value_typed_in_the_form_is_what_callers_pass_and_the_form_says_so() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    select_symbol(&mut h, "fn shipping_cents");
    h.press(&["c", "ctrl-e", "ctrl-u"])
        .type_text("(weight_grams: u64, express: bool, max: u64 = u64::MAX)");
    assert_eq!(h.state.form().unwrap().error, None);
    let screen = screen_text(&h);
    assert!(
        screen.contains("callers pass `u64::MAX` for the new `max`"),
        "said under the field:\n{screen}"
    );
    h.press(&["enter"]);
    let ready = ready(&h);
    let after = String::from_utf8(ready.outcome.plan.changes[0].after_bytes()).unwrap();
    assert!(
        after.contains("pub fn shipping_cents(weight_grams: u64, express: bool, max: u64) -> u64"),
        "{after}"
    );
    assert!(
        after.contains("shipping_cents(weight_grams, express, u64::MAX)")
            && after.contains("shipping_cents(1200, false, u64::MAX)"),
        "every call passes the value:\n{after}"
    );
    assert!(!after.contains("todo!"), "{after}");
}

#[test]
fn a_long_error_in_the_form_wraps_instead_of_being_cut() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (80, 24));
    pick(&mut h, "rust/src/lib", RUST);
    select_symbol(&mut h, "fn shipping_cents");
    h.press(&["c", "ctrl-e", "ctrl-u"])
        .type_text("(weight_grams: u64 = 1000, express: bool)");
    let error = h.state.form().unwrap().error.clone().unwrap();
    let screen = screen_text(&h);
    let rows: Vec<Vec<char>> = screen.lines().map(|r| r.chars().collect()).collect();
    // The error as the form shows it: from its mark, row after row, up to the box's border.
    let (y0, x0) = rows
        .iter()
        .enumerate()
        .find_map(|(y, r)| {
            let text: String = r.iter().collect();
            text.find("✗ Rust")
                .map(|at| (y, text[..at].chars().count()))
        })
        .unwrap_or_else(|| panic!("the error is on screen:\n{screen}"));
    let mut shown = String::new();
    for row in &rows[y0..] {
        let piece: String = row[x0..].iter().take_while(|c| **c != '│').collect();
        if piece.trim().is_empty() {
            break;
        }
        shown.push_str(piece.trim());
        shown.push(' ');
    }
    assert_eq!(
        shown.trim(),
        format!("✗ {error}"),
        "the whole error, wrapped:\n{screen}"
    );
}

/// The screen as text, drawn at the session's size.
fn screen_text(h: &candor::tui::headless::Headless) -> String {
    use ratatui::{Terminal, backend::TestBackend};
    let (w, hgt) = h.state.size;
    let mut terminal = Terminal::new(TestBackend::new(w, hgt)).unwrap();
    terminal
        .draw(|f| candor::tui::view::render(&h.state, f))
        .unwrap();
    let buffer = terminal.backend().buffer();
    (0..hgt)
        .map(|y| (0..w).map(|x| buffer[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

/// Opens another file through the picker (`p`, a new query, Enter).
fn pick_again(h: &mut candor::tui::headless::Headless, query: &str, path: &str) {
    h.press(&["p"]);
    h.type_text(query);
    assert_eq!(h.state.picker.selected_path(), Some(path));
    h.press(&["enter"]);
    assert_eq!(h.state.code.as_ref().unwrap().doc.path, path);
}

#[test]
fn undo_in_a_shell_withdraws_the_offer_of_u() {
    let (_dir, root) = demo_copy();
    let config = candor::config::Config {
        semantic_edit_backend: Some(candor::backend::BackendChoice::TreeSitter),
        ..Default::default()
    };
    let mut h =
        candor::tui::headless::Headless::open_watched(&root, config, None, (120, 40)).unwrap();
    h.pump(
        std::time::Duration::from_millis(200),
        std::time::Duration::from_secs(5),
    );
    pick(&mut h, "rust/src/lib", RUST);
    select_symbol(&mut h, "fn parse_cents");
    h.press(&["m"])
        .type_text("rust/src/money.rs")
        .press(&["enter"]);
    h.pump(
        std::time::Duration::from_millis(500),
        std::time::Duration::from_secs(30),
    );
    confirm_and_check_disk(&mut h, &root);
    h.pump(
        std::time::Duration::from_millis(500),
        std::time::Duration::from_secs(10),
    );
    assert!(h.state.last_applied.is_some(), "undo is offered");
    let original = read(&demo_dir(), RUST);

    // The user runs `candor undo` in another terminal.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["undo", "--root"])
        .arg(&root)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    assert_eq!(read(&root, RUST), original);

    // The watcher sees the journal change; the TUI reads it and stops offering `u`.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while h.state.last_applied.is_some() && std::time::Instant::now() < deadline {
        h.pump(
            std::time::Duration::from_millis(300),
            std::time::Duration::from_secs(2),
        );
    }
    assert!(
        h.state.last_applied.is_none(),
        "the offer of `u` is withdrawn"
    );
    let notice = h.state.notice.as_ref().unwrap();
    assert!(notice.text.contains("undone outside candor"), "{notice:?}");
    h.press(&["u"]);
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("nothing to undo"),
        "{:?}",
        h.state.notice
    );
    assert_eq!(read(&root, RUST), original);
}

#[test]
fn a_refused_undo_of_a_refactor_undone_elsewhere_withdraws_the_offer() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    select_symbol(&mut h, "fn parse_cents");
    h.press(&["m"])
        .type_text("rust/src/money.rs")
        .press(&["enter"]);
    confirm_and_check_disk(&mut h, &root);
    candor::workspace::undo::undo_last(h.root()).unwrap();
    // No watcher here: `u` itself finds the journal says it is done.
    h.press(&["u"]);
    assert!(h.state.last_applied.is_none());
    let notice = h.state.notice.as_ref().unwrap();
    assert!(notice.text.contains("already undone"), "{notice:?}");
    // And the journal check says the same when asked.
    h.journal_changed();
    assert!(h.state.last_applied.is_none());
}

#[test]
fn a_file_argument_opens_in_its_nearest_project() {
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    copy_tree(&demo_dir(), &repo.join("assets/demo"));
    let h = open(&repo.join("assets/demo/rust/src/lib.rs"), (80, 24));
    assert_eq!(
        h.state.project_name, "rust",
        "the crate, not the repository"
    );
    assert_eq!(h.state.code.as_ref().unwrap().doc.path, "src/lib.rs");
    let mut files = h.state.picker.files.clone();
    files.sort();
    assert_eq!(
        files,
        ["src/lib.rs", "src/money.rs"],
        "only the crate's files"
    );
}

/// `r` on a use of a name (a call), a new name in the form: the definition and every certain
/// reference in the project are renamed, through the package's re-export in Python.
fn rename_from_a_call(path: &str, query: &str, language: &str) {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, query, path);
    // The call in `order_total`, not the definition.
    h.press(&["/"])
        .type_text("= shipping_cents(")
        .press(&["enter"]);
    h.press(&["w"]);
    h.press(&["r"]);
    let form = h.state.form().expect("the rename form");
    assert_eq!(form.input_text(), "shipping_cents", "the name, editable");
    h.press(&["ctrl-e", "ctrl-u"])
        .type_text("shipping_fee")
        .press(&["enter"]);
    assert_heuristic(&ready(&h), Tool::RenameSymbol);
    confirm_and_check_disk(&mut h, &root);
    let after = text(&root, path);
    assert!(!after.contains("shipping_cents"), "{after}");
    assert!(after.contains("shipping_fee(weight_grams"), "{after}");
    demo_tests_pass(&root, language);
}

#[test]
fn rename_rust_function_from_a_call() {
    rename_from_a_call(RUST, "rust/src/lib", "rust");
}

#[test]
fn rename_python_function_from_a_call_through_the_package() {
    rename_from_a_call(PYTHON, "shop/receipt", "python");
}

/// A possible reference (a receiver of unknown type) is a warning; `+` on it includes it, the
/// preview is computed again with it renamed, and `+` again leaves it out.
#[test]
fn rename_includes_a_possible_reference_one_by_one() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let source = "class Shape:\n    def area(self):\n        return 0\n\n\ndef total(s: Shape, other):\n    return s.area() + other.area()\n";
    std::fs::write(root.join("shapes.py"), source).unwrap();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "shapes", "shapes.py");
    h.press(&["/"]).type_text("def area").press(&["enter", "w"]);
    h.press(&["r"]);
    h.press(&["ctrl-e", "ctrl-u"])
        .type_text("surface")
        .press(&["enter"]);
    let first = ready(&h);
    assert_heuristic(&first, Tool::RenameSymbol);
    let after = |ready: &candor::tui::state::Ready| ready.outcome.plan.changes[0].after.clone();
    assert!(
        after(&first).contains("s.surface() + other.area()"),
        "{}",
        after(&first)
    );
    let warnings: Vec<&str> = first
        .outcome
        .plan
        .findings
        .iter()
        .map(|f| f.message.as_str())
        .collect();
    assert!(
        warnings.iter().any(|m| m.contains("other.area")),
        "{warnings:?}"
    );
    h.press(&["tab", "+"]);
    let second = ready(&h);
    assert!(
        after(&second).contains("s.surface() + other.surface()"),
        "{}",
        after(&second)
    );
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("shapes.py:7:29 included"),
        "{:?}",
        h.state.notice
    );
    // The warnings keep the focus: `+` again leaves it out, and once more takes it in.
    h.press(&["+"]);
    let third = ready(&h);
    assert!(
        after(&third).contains("s.surface() + other.area()"),
        "{}",
        after(&third)
    );
    // Esc back to the diff (Tab from the findings now goes on to the sites list).
    h.press(&["+", "esc"]);
    confirm_and_check_disk(&mut h, &root);
    assert!(text(&root, "shapes.py").contains("other.surface()"));
}
