//! Moving in the code view as a terminal user expects (issue 11): `:N` and `NG` go to a line,
//! a count repeats a motion, `/` searches as you type with `n`/`N` after, long lines scroll
//! sideways (`h`/`l` follow the cursor, `z h`/`z l` move the view) with `›` where they go on,
//! the outline finds a symbol by a fuzzy name; and `i`, `c`, `m` act on the function named under
//! the cursor (a call or a definition), saying so, and on the one around it otherwise.

mod tui_common;

use candor::honesty::Tool;
use candor::tui::aim::Aim;
use candor::tui::headless::Headless;
use candor::tui::state::ScreenKind;
use candor::tui::theme::Theme;
use candor::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tui_common::*;

const RUST: &str = "rust/src/lib.rs";
const PYTHON: &str = "python/shop/receipt.py";

fn cursor(h: &Headless) -> (usize, usize) {
    let code = h.state.code.as_ref().unwrap();
    (code.cursor + 1, code.col)
}

/// The screen as text.
fn screen(h: &Headless) -> String {
    let (w, height) = h.state.size;
    let mut terminal = Terminal::new(TestBackend::new(w, height)).unwrap();
    terminal.draw(|f| view::render(&h.state, f)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| (0..w).map(|x| buffer[(x, y)].symbol()).collect::<String>() + "\n")
        .collect()
}

fn status_line(h: &Headless) -> String {
    screen(h).lines().last().unwrap().to_string()
}

#[test]
fn go_to_a_line_with_a_colon_or_a_count_and_repeat_motions() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (80, 24));
    pick(&mut h, "rust/src/lib", RUST);
    h.press(&[":"]).type_text("52").press(&["enter"]);
    assert_eq!(cursor(&h), (52, 4), "line 52, on its first word");
    assert!(
        screen(&h).contains("CANDOR DEMO SHOP"),
        "line 52 is on screen"
    );
    h.type_text("17G");
    assert_eq!(cursor(&h).0, 17);
    h.type_text("10j");
    assert_eq!(cursor(&h).0, 27);
    h.type_text("3k");
    assert_eq!(cursor(&h).0, 24);
    assert!(
        status_line(&h).starts_with(" line 24/"),
        "{}",
        status_line(&h)
    );
    // A count being typed shows in the status line.
    h.type_text("4");
    assert!(status_line(&h).contains(" 4"), "{}", status_line(&h));
    h.press(&["esc"]);
    assert_eq!(cursor(&h).0, 24, "Esc drops the count");
    // A bad line number says so; Esc on the prompt goes back.
    h.press(&[":"]).type_text("x2").press(&["enter"]);
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("not a line number"),
        "{:?}",
        h.state.notice
    );
    h.press(&[":"]).type_text("60").press(&["esc"]);
    assert_eq!(cursor(&h).0, 24);
    h.press(&[":"]).type_text("9999").press(&["enter"]);
    let last = h.state.code.as_ref().unwrap().doc.line_count();
    assert_eq!(cursor(&h).0, last, "past the end: the last line");
}

#[test]
fn search_as_you_type_then_next_and_previous() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (80, 24));
    pick(&mut h, "rust/src/lib", RUST);
    h.press(&["/"]).type_text("line_tot");
    assert_eq!(cursor(&h), (17, 3), "the first match, while typing");
    h.type_text("al(item)").press(&["enter"]);
    assert_eq!(
        cursor(&h),
        (25, 17),
        "`line_total(item)` first appears in a call"
    );
    h.press(&["n"]);
    assert_eq!(cursor(&h), (56, 20));
    h.press(&["n"]);
    assert_eq!(cursor(&h), (25, 17), "only two: back to the first");
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("from the top"),
        "{:?}",
        h.state.notice
    );
    h.press(&["N"]);
    assert_eq!(cursor(&h), (56, 20));
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("from the bottom"),
        "{:?}",
        h.state.notice
    );
    h.type_text("2n");
    assert_eq!(cursor(&h), (56, 20), "a count: twice round two matches");
    // Esc while searching goes back where the search started.
    h.press(&[":"]).type_text("5").press(&["enter"]);
    h.press(&["/"]).type_text("print_receipt").press(&["esc"]);
    assert_eq!(cursor(&h).0, 5);
    h.press(&["/"]).type_text("no such text");
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("is not in this file")
    );
}

#[test]
fn long_lines_scroll_sideways_and_show_that_they_go_on() {
    let (_dir, root) = demo_copy();
    let long = format!(
        "def f():\n    return {{'key': 'value', 'items': [{}], 'end': 'THE END'}}\n",
        (0..40)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    std::fs::write(root.join("python/shop/long.py"), &long).unwrap();
    let mut h = open(&root, (80, 24));
    pick(&mut h, "shop/long", "python/shop/long.py");
    h.press(&["j"]);
    let line = |h: &Headless| {
        screen(h)
            .lines()
            .find(|l| l.contains("  2") && l.contains('│'))
            .unwrap()
            .to_string()
    };
    assert!(line(&h).contains('›'), "the line goes on: {}", line(&h));
    assert!(!line(&h).contains("THE END"));
    h.press(&["$"]);
    assert!(
        line(&h).contains("THE END"),
        "the end in view: {}",
        line(&h)
    );
    assert!(
        line(&h).contains('‹'),
        "its start is out of sight: {}",
        line(&h)
    );
    h.press(&["0"]);
    assert!(!line(&h).contains('‹'), "{}", line(&h));
    h.press(&["z", "l", "z", "l"]);
    assert!(line(&h).contains('‹'), "z l moved the view: {}", line(&h));
    h.press(&["z", "h", "z", "h"]);
    assert!(!line(&h).contains('‹'), "{}", line(&h));
    h.type_text("030l");
    assert_eq!(cursor(&h), (2, 30));
}

#[test]
fn the_outline_finds_a_symbol_by_a_fuzzy_name() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (80, 24));
    pick(&mut h, "rust/src/lib", RUST);
    h.press(&["o"]).type_text("shpcnt");
    let code = h.state.code.as_ref().unwrap();
    let names: Vec<&str> = code
        .outline
        .matches
        .iter()
        .map(|&i| code.doc.symbols[i].name.as_str())
        .collect();
    assert_eq!(names.first(), Some(&"shipping_cents"), "{names:?}");
    h.press(&["enter"]);
    assert_eq!(
        h.state.code.as_ref().unwrap().selection_label().as_deref(),
        Some("fn shipping_cents")
    );
    assert_eq!(cursor(&h).0, 31);
    // Typing replaces the old filter; Ctrl-U clears it.
    h.press(&["o"]).type_text("zzz");
    assert!(h.state.code.as_ref().unwrap().outline.matches.is_empty());
    assert!(screen(&h).contains("no symbol matches"));
    h.press(&["ctrl-u"]);
    let code = h.state.code.as_ref().unwrap();
    assert_eq!(code.outline.matches.len(), code.doc.symbols.len());
    h.press(&["esc"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Code);
}

#[test]
fn inline_acts_on_the_function_called_under_the_cursor() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (100, 30));
    pick(&mut h, "rust/src/lib", RUST);
    // On `line_total(` inside order_total: the call's function, not the one around it.
    h.press(&["/"])
        .type_text("line_total(item)")
        .press(&["enter"]);
    assert_eq!(cursor(&h), (25, 17));
    assert!(matches!(h.state.code.as_ref().unwrap().aim, Aim::Call(_)));
    assert!(
        status_line(&h).contains("on a call of fn line_total"),
        "the status line says which: {}",
        status_line(&h)
    );
    h.press(&["i"]);
    let ready = ready(&h);
    assert_eq!(ready.outcome.tool, Tool::InlineFunction);
    assert_eq!(ready.call.request.file(), RUST, "the function of this file");
    let title = &h.state.preview().unwrap().request.title;
    assert_eq!(title.operation, "inline fn line_total");
    h.press(&["esc"]);
    // On `total` of the same line: no call there, so the function around the cursor.
    h.press(&["0", "w"]);
    assert_eq!(cursor(&h), (25, 8));
    assert!(
        status_line(&h).contains("in fn order_total"),
        "{}",
        status_line(&h)
    );
    h.press(&["i"]);
    assert_eq!(
        h.state.preview().unwrap().request.title.operation,
        "inline fn order_total"
    );
}

#[test]
fn a_call_of_a_function_of_another_file_is_said_plainly() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (100, 30));
    pick(&mut h, "shop/receipt", PYTHON);
    h.press(&["/"])
        .type_text("format_cents(line")
        .press(&["enter"]);
    assert!(
        status_line(&h).contains("defined in another file"),
        "{}",
        status_line(&h)
    );
    h.press(&["i"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Code, "nothing computed");
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .contains("not defined in this file"),
        "{:?}",
        h.state.notice
    );
}

#[test]
fn change_signature_and_move_act_on_the_name_under_the_cursor_too() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (100, 30));
    pick(&mut h, "shop/receipt", PYTHON);
    // `shipping_cents(` is called inside print_receipt.
    h.press(&["/"])
        .type_text("shipping_cents(weight")
        .press(&["enter"]);
    h.press(&["c"]);
    let form = h.state.form().unwrap();
    assert_eq!(
        form.input_text(),
        "(weight_grams, express=False, legacy_zone=None)"
    );
    h.press(&["esc"]);
    h.press(&["m"])
        .type_text("python/shop/money.py")
        .press(&["enter"]);
    assert_eq!(
        h.state.preview().unwrap().request.title.operation,
        "move def shipping_cents"
    );
}

#[test]
fn no_color_keeps_the_cursor_visible() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (80, 24));
    h.state.theme = Theme::new(true);
    pick(&mut h, "rust/src/lib", RUST);
    h.press(&[":"]).type_text("17").press(&["enter"]);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal.draw(|f| view::render(&h.state, f)).unwrap();
    let reversed = terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .filter(|c| c.modifier.contains(ratatui::style::Modifier::REVERSED))
        .count();
    assert!(
        reversed >= 1,
        "the cursor's character is shown in reverse video"
    );
}

// ------------------------------------------------------------------ issue 25, item 8

#[test]
fn keys_typed_right_after_enter_in_the_picker_reach_the_code_view() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    h.type_text("rust/src/lib");
    // Enter, then `5 0 G` before the file is read (its load is still pending).
    for key in ["enter", "5", "0", "G"] {
        h.press_pending(key);
    }
    assert_eq!(h.state.screen.kind(), ScreenKind::Picker, "still opening");
    assert_eq!(
        h.state.picker.query_text(),
        "rust/src/lib",
        "the keys were not typed into the filter"
    );
    h.settle();
    assert_eq!(h.state.screen.kind(), ScreenKind::Code);
    assert_eq!(cursor(&h).0, 50, "50G went to line 50");
}

#[test]
fn help_opens_at_the_keys_of_the_screen_it_is_asked_from() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    h.press(&["?"]);
    let shown = screen(&h);
    let first = shown.lines().nth(2).unwrap();
    assert!(first.contains("Code view"), "{shown}");
    h.press(&["esc"]);
    select_lines(&mut h, 52, 54);
    h.press(&["e"]).type_text("print_header").press(&["enter"]);
    h.press(&["?"]);
    let shown = screen(&h);
    assert!(
        shown
            .lines()
            .nth(2)
            .unwrap()
            .contains("Preview and warning panel"),
        "{shown}"
    );
    // g and G in the help too.
    h.press(&["G"]);
    assert!(screen(&h).contains("close the help"), "the last page");
    h.press(&["g"]);
    assert!(screen(&h).lines().nth(2).unwrap().contains("Everywhere"));
}

#[test]
fn the_outline_filter_does_not_stay_applied() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", RUST);
    let all = h.state.code.as_ref().unwrap().doc.symbols.len();
    select_symbol(&mut h, "fn parse_cents");
    let code = h.state.code.as_ref().unwrap();
    assert_eq!(code.outline.matches.len(), all, "every symbol listed again");
    assert_eq!(candor::tui::input::text(&code.outline.input), "");
    assert_eq!(
        code.outline_symbol()
            .map(|i| code.doc.symbols[i].name.as_str()),
        Some("parse_cents"),
        "the selected symbol highlighted"
    );
    // Esc out of a filtered outline clears it too.
    h.press(&["o"]).type_text("ship").press(&["esc"]);
    assert_eq!(h.state.code.as_ref().unwrap().outline.matches.len(), all);
}

#[test]
fn r_on_a_definition_keyword_renames_what_it_defines_never_the_keyword() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "shop/receipt", PYTHON);
    let text = String::from_utf8(read(&root, PYTHON)).unwrap();
    let line = text
        .lines()
        .position(|l| l.starts_with("def line_total"))
        .unwrap()
        + 1;
    h.type_text(&format!("{line}G"));
    h.press(&["0", "r"]);
    assert_eq!(
        h.state.screen.kind(),
        ScreenKind::Form,
        "{:?}",
        h.state.notice
    );
    let shown = screen(&h);
    assert!(shown.contains("Rename `line_total`"), "{shown}");
    assert!(!shown.contains("Rename `def`"), "{shown}");
    h.press(&["esc"]);
    // A keyword that defines nothing: said plainly, no form.
    let line = text
        .lines()
        .position(|l| l.trim_start().starts_with("for "))
        .unwrap()
        + 1;
    h.type_text(&format!("{line}G"));
    h.press(&["0", "w", "r"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Code);
    let notice = h.state.notice.clone().unwrap();
    assert!(
        notice.text.starts_with("`for` is a keyword, not a name"),
        "{notice:?}"
    );
}
