//! Snapshots of every screen at 80×24 and 120×40, drawn by the real view code into ratatui's
//! TestBackend from a headless session on a temp copy of the demo: picker, code view with a
//! selection, the three forms, the preview beside the warning panel, help. The title bar shows
//! the project's directory name only, and temp paths are filtered out in any case.

mod tui_common;

use candor::tui::headless::Headless;
use candor::tui::theme::Theme;
use candor::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::style::Color;
use tui_common::*;

const SIZES: [(u16, u16); 2] = [(80, 24), (120, 40)];

/// The screen as text, one line per row, trailing spaces kept (they are part of the layout).
fn screen(h: &Headless, root: &std::path::Path) -> String {
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
    text.replace(&root.display().to_string(), "[DEMO]")
}

fn snapshot(name: &str, h: &Headless, root: &std::path::Path) {
    let (w, height) = h.state.size;
    insta::assert_snapshot!(format!("{name}_{w}x{height}"), screen(h, root));
}

fn session(size: (u16, u16)) -> (tempfile::TempDir, std::path::PathBuf, Headless) {
    let (dir, root) = demo_copy();
    let h = open(&root, size);
    (dir, root, h)
}

#[test]
fn picker() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        snapshot("picker", &h, &root);
        h.type_text("rec");
        snapshot("picker_filtered", &h, &root);
    }
}

#[test]
fn code_view_with_a_selection_and_the_outline() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
        select_lines(&mut h, 52, 54);
        snapshot("code_selection", &h, &root);
        select_symbol(&mut h, "fn parse_cents");
        h.press(&["o"]);
        snapshot("code_outline", &h, &root);
    }
}

#[test]
fn forms() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
        select_lines(&mut h, 52, 54);
        h.press(&["e"]).type_text("print_header");
        snapshot("form_extract", &h, &root);
        h.press(&["esc"]);
        select_symbol(&mut h, "fn parse_cents");
        h.press(&["m"]).type_text("rust/src/");
        snapshot("form_move", &h, &root);
        h.press(&["esc"]);
        select_symbol(&mut h, "fn shipping_cents");
        h.press(&["c"]);
        snapshot("form_change_signature", &h, &root);
        h.press(&["ctrl-e", "backspace"]);
        snapshot("form_change_signature_error", &h, &root);
    }
}

#[test]
fn preview_beside_the_warning_panel() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
        select_lines(&mut h, 52, 54);
        h.press(&["e"]).type_text("print_header").press(&["enter"]);
        ready(&h);
        snapshot("preview_extract", &h, &root);
        h.press(&["enter"]);
        snapshot("preview_confirm", &h, &root);
    }
}

#[test]
fn preview_with_findings_and_the_findings_list() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
        select_symbol(&mut h, "fn shipping_cents");
        h.press(&["c", "ctrl-e", "ctrl-u"])
            .type_text("(weight_grams: u64, express: bool)")
            .press(&["enter"]);
        ready(&h);
        snapshot("preview_change_signature", &h, &root);
        h.press(&["tab", "down"]);
        snapshot("preview_findings_selected", &h, &root);
        h.press(&["enter"]);
        snapshot("preview_jumped_to_finding", &h, &root);
    }
}

#[test]
fn a_heuristic_extract_with_a_warning() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        pick(&mut h, "shop/receipt", "python/shop/receipt.py");
        select_lines(&mut h, 39, 40);
        h.press(&["e"]).type_text("reject_bad").press(&["enter"]);
        let ready = ready(&h);
        assert!(
            ready.count(candor::refactor::Severity::Warning) > 0,
            "the `return None` leaves the new function, not `parse_cents`"
        );
        snapshot("preview_extract_warning", &h, &root);
        h.press(&["enter"]);
        snapshot("preview_extract_warning_confirm", &h, &root);
    }
}

#[test]
fn a_refused_refactor_is_a_screen_not_a_crash() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
        select_lines(&mut h, 55, 56);
        h.press(&["e"]).type_text("half").press(&["enter"]);
        assert!(matches!(h.state.preview().unwrap().result, Some(Err(_))));
        snapshot("preview_refused", &h, &root);
    }
}

#[test]
fn help() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
        h.press(&["?"]);
        snapshot("help", &h, &root);
    }
}

#[test]
fn no_color_draws_without_colour() {
    let (_dir, _root, mut h) = session((80, 24));
    h.state.theme = Theme::new(true);
    pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
    select_lines(&mut h, 52, 54);
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal.draw(|f| view::render(&h.state, f)).unwrap();
    for cell in terminal.backend().buffer().content() {
        assert_eq!((cell.fg, cell.bg), (Color::Reset, Color::Reset), "{cell:?}");
    }
    // The selection is still visible: reversed video.
    let colored = Theme::new(false);
    assert_ne!(colored.selection.bg, None);
}

#[test]
fn colours_carry_meaning_in_the_preview() {
    let (_dir, _root, mut h) = session((120, 40));
    pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
    select_symbol(&mut h, "fn shipping_cents");
    h.press(&["c", "ctrl-e", "ctrl-u"])
        .type_text("(weight_grams: u64, express: bool)")
        .press(&["enter"]);
    ready(&h);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    terminal.draw(|f| view::render(&h.state, f)).unwrap();
    let buffer = terminal.backend().buffer();
    let row_text = |y: u16| {
        (0..120)
            .map(|x| buffer[(x, y)].symbol())
            .collect::<String>()
    };
    let row_of = |needle: &str| (0..40).find(|&y| row_text(y).contains(needle)).unwrap();
    let cell_of = |y: u16, needle: &str| {
        let text = row_text(y);
        let column = text.find(needle).unwrap();
        (text[..column].chars().count() as u16, y)
    };
    // The removed line is red, with the removed words on a red background.
    let removed = row_of("-pub fn shipping_cents");
    assert_eq!(buffer[cell_of(removed, "pub fn")].fg, Color::Red);
    assert_eq!(
        buffer[cell_of(removed, "_lega")].bg,
        Color::Red,
        "intraline emphasis"
    );
    // The added line is green, and its unchanged words are not emphasised.
    let added = row_of("+pub fn shipping_cents");
    assert_eq!(buffer[cell_of(added, "pub fn")].fg, Color::Green);
    assert_ne!(buffer[cell_of(added, "pub fn")].bg, Color::Green);
    // The confidence of a heuristic result is yellow, number included.
    let gauge = row_of("0.60");
    assert_eq!(buffer[cell_of(gauge, "0.60")].fg, Color::Yellow);
    assert_eq!(buffer[cell_of(gauge, "█")].fg, Color::Yellow);
}

#[test]
fn titles_and_status_give_way_by_priority_at_80_columns() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project-with-a-rather-long-name");
    let deep = "src/company_name/product_area/feature_module/implementation";
    std::fs::create_dir_all(root.join(deep)).unwrap();
    let file = format!("{deep}/order_processing_helpers.py");
    std::fs::write(
        root.join(&file),
        "def compute_the_total_of_every_line(items):\n    return sum(items)\n\n\ndef main(items):\n    return compute_the_total_of_every_line(items)\n",
    )
    .unwrap();
    let mut h = open(&root, (80, 24));
    h.type_text("order_processing").press(&["enter"]);
    let text = screen(&h, &root);
    let title = text.lines().next().unwrap().to_string();
    // The file matters most: it is there, shortened at a folder, never cut inside a name.
    assert!(title.contains("…/order_processing_helpers.py"), "{title}");
    assert!(
        title.contains("project-with-a-rather-long-name │"),
        "the root, whole: {title}"
    );
    h.press(&["i"]);
    ready(&h);
    let text = screen(&h, &root);
    let lines: Vec<&str> = text.lines().collect();
    // The preview's title keeps the operation whole; the place gives way first.
    assert!(
        lines[1].contains("inline def compute_the_total_of_every_line"),
        "{}",
        lines[1]
    );
    // The file bar shows the file, shortened at a folder.
    assert!(
        lines[2].contains("…/order_processing_helpers.py"),
        "{}",
        lines[2]
    );
    let status = lines.last().unwrap();
    assert!(
        status.contains("enter apply") && status.contains("? help"),
        "{status}"
    );
    snapshot("narrow_titles", &h, &root);
}

/// Extract variable (`E`): the form names the expression under the cursor, the preview binds it;
/// inline variable (`I`): the preview at once, the read replaced and the binding gone.
#[test]
fn variable_forms_and_previews() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
        // `    let total = order_total(items) + shipping;`: the cursor on `order_total`.
        h.press(&["/"])
            .type_text("order_total(items) +")
            .press(&["enter"]);
        let code = h.state.code.as_ref().unwrap();
        assert_eq!((code.cursor, code.col), (59, 16), "{:?}", h.state.notice);
        h.press(&["E"]).type_text("subtotal");
        snapshot("form_extract_variable", &h, &root);
        // One widen: `order_total(items) + shipping`, then back.
        h.press(&["alt-up"]);
        snapshot("form_extract_variable_widened", &h, &root);
        h.press(&["alt-down"]);
        h.press(&["enter"]);
        let extracted = ready(&h);
        assert_eq!(
            extracted.outcome.tool,
            candor::honesty::Tool::ExtractVariable
        );
        snapshot("preview_extract_variable", &h, &root);
        h.press(&["esc"]);
        // `        let price = line_total(item);`: the cursor on `price`.
        h.press(&["/"]).type_text("price = ").press(&["enter"]);
        assert_eq!(h.state.code.as_ref().unwrap().cursor, 55);
        h.press(&["I"]);
        let inlined = ready(&h);
        assert_eq!(inlined.outcome.tool, candor::honesty::Tool::InlineVariable);
        snapshot("preview_inline_variable", &h, &root);
    }
}

#[test]
fn safe_delete_refused_lists_the_references() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
        select_symbol(&mut h, "fn parse_cents");
        h.press(&["D"]);
        // The demo's tests call it three times: the refusal names each line.
        let preview = h.state.preview().expect("a preview screen");
        let Some(Err(error)) = &preview.result else {
            panic!("safe delete of a used function must be refused")
        };
        assert!(error.message.contains("src/lib.rs:85"), "{error:?}");
        snapshot("preview_safe_delete_refused", &h, &root);
    }
}

#[test]
fn introduce_parameter_form_and_preview() {
    for size in SIZES {
        let (_dir, root, mut h) = session(size);
        pick(&mut h, "shop/receipt", "python/shop/receipt.py");
        // `    base = 450 + …`: the cursor on `450`.
        goto_line(&mut h, 30);
        h.press(&["0"]);
        for _ in 0..11 {
            h.press(&["l"]);
        }
        h.press(&["P"]).type_text("base_cents");
        snapshot("form_introduce_parameter", &h, &root);
        h.press(&["enter"]);
        ready(&h);
        snapshot("preview_introduce_parameter", &h, &root);
    }
}
