//! Text fields edit like a shell (issue 11): Ctrl-A/E/U/K/W and Alt-B/F in the picker, the
//! outline, the prompts and the forms, listed in `?`; the picker opens again with its query
//! selected (typing replaces it); its placeholder names no demo file.

mod tui_common;

use candor::tui::headless::Headless;
use candor::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tui_common::*;

fn screen(h: &Headless) -> String {
    let (w, height) = h.state.size;
    let mut terminal = Terminal::new(TestBackend::new(w, height)).unwrap();
    terminal.draw(|f| view::render(&h.state, f)).unwrap();
    let buffer = terminal.backend().buffer();
    (0..height)
        .map(|y| (0..w).map(|x| buffer[(x, y)].symbol()).collect::<String>() + "\n")
        .collect()
}

fn matches(h: &Headless) -> Vec<String> {
    let p = &h.state.picker;
    p.matches.iter().map(|&i| p.files[i].clone()).collect()
}

#[test]
fn the_picker_reopens_with_its_query_selected() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (80, 24));
    h.type_text("money").press(&["enter"]);
    h.press(&["p"]);
    assert_eq!(
        h.state.picker.query_text(),
        "money",
        "the old query is there"
    );
    h.type_text("rust/src/lib");
    assert_eq!(
        h.state.picker.query_text(),
        "rust/src/lib",
        "typing replaced it"
    );
    assert_eq!(
        matches(&h).first().map(String::as_str),
        Some("rust/src/lib.rs")
    );
    // A motion keeps the old text to add to it.
    h.press(&["enter", "p", "end"]).type_text(".rs");
    assert_eq!(h.state.picker.query_text(), "rust/src/lib.rs");
}

#[test]
fn ctrl_u_and_friends_edit_like_a_shell() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (80, 24));
    h.type_text("shop/receipt");
    h.press(&["ctrl-u"]);
    assert_eq!(
        h.state.picker.query_text(),
        "",
        "Ctrl-U deletes to the start"
    );
    assert_eq!(matches(&h).len(), 7);
    h.type_text("python/shop/receipt.py");
    h.press(&["ctrl-w"]);
    assert_eq!(h.state.picker.query_text(), "python/shop/receipt.");
    h.press(&["ctrl-w"]);
    assert_eq!(h.state.picker.query_text(), "python/shop/");
    h.press(&["ctrl-a"]).type_text("x");
    assert_eq!(h.state.picker.query_text(), "xpython/shop/");
    h.press(&["ctrl-a", "ctrl-d", "alt-f", "ctrl-k"]);
    assert_eq!(h.state.picker.query_text(), "python");
    h.press(&["alt-b", "ctrl-e"]).type_text("/shop/money");
    assert_eq!(h.state.picker.query_text(), "python/shop/money");
    h.press(&["enter"]);
    assert_eq!(
        h.state.code.as_ref().unwrap().doc.path,
        "python/shop/money.py"
    );
    // The same keys in a form.
    h.press(&["e"]).type_text("header");
    h.press(&["ctrl-a"]).type_text("print_");
    assert_eq!(h.state.form().unwrap().input_text(), "print_header");
    h.press(&["alt-b", "ctrl-k"]);
    assert_eq!(
        h.state.form().unwrap().input_text(),
        "",
        "`_` is part of a word"
    );
    h.type_text("banner").press(&["ctrl-u"]);
    assert_eq!(h.state.form().unwrap().input_text(), "");
}

#[test]
fn the_editing_keys_are_in_the_help() {
    let (_dir, root) = demo_copy();
    let mut h = open(&root, (120, 40));
    pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
    h.press(&["?"]);
    let mut seen = String::new();
    for _ in 0..40 {
        seen.push_str(&screen(&h));
        h.press(&["pagedown"]);
    }
    assert!(
        seen.contains("Text fields"),
        "a section for the text fields"
    );
    for (keys, what) in [
        ("ctrl-u", "delete to the start"),
        ("ctrl-k", "delete to the end"),
        ("ctrl-w", "delete the word before the cursor"),
        ("ctrl-a", "to the start"),
        ("alt-b", "back a word"),
        ("alt-f", "forward a word"),
    ] {
        assert!(
            seen.lines().any(|l| l.contains(keys) && l.contains(what)),
            "`{keys}  {what}` is in the help"
        );
    }
}

#[test]
fn the_placeholder_names_no_demo_file_outside_the_demo() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("src/app.py"), "x = 1\n").unwrap();
    let h = open(dir.path(), (80, 24));
    let shown = screen(&h);
    assert!(!shown.contains("shop/rec"), "{shown}");
    assert!(shown.contains("type part of a path"), "{shown}");
}
