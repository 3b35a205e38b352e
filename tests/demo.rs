//! The demo project under `assets/demo/` works as shipped: the Rust crate's tests pass with
//! `cargo test`, the Python package's with `python3 -m unittest`, and it holds a target for
//! each of the four refactors in both languages (the README walks through them).

mod tui_common;

use tui_common::*;

#[test]
fn the_demo_crate_and_package_pass_their_own_tests() {
    let (_dir, root) = demo_copy();
    demo_tests_pass(&root, "rust");
    demo_tests_pass(&root, "python");
}

#[test]
fn the_demo_has_what_the_readme_walks_through() {
    let rust = std::fs::read_to_string(demo_dir().join("rust/src/lib.rs")).unwrap();
    let python = std::fs::read_to_string(demo_dir().join("python/shop/receipt.py")).unwrap();
    let line = |text: &str, n: usize| text.lines().nth(n - 1).unwrap().to_string();
    // Extract: the banner of the receipt (README: lines 52–54 / 46–48).
    for n in 52..=54 {
        assert!(
            line(&rust, n).trim_start().starts_with("println!(\""),
            "{}",
            line(&rust, n)
        );
    }
    assert!(line(&rust, 53).contains("CANDOR DEMO SHOP"));
    for n in 46..=48 {
        assert!(
            line(&python, n).trim_start().starts_with("print(\""),
            "{}",
            line(&python, n)
        );
    }
    // Inline, move, change signature.
    assert!(
        rust.contains("fn line_total(item: &Item) -> u64 {")
            && python.contains("def line_total(item):")
    );
    assert!(rust.contains("pub fn parse_cents(") && python.contains("def parse_cents(text):"));
    assert!(rust.contains("_legacy_zone: u32") && python.contains("legacy_zone=None"));
    // The demo is not a member of candor's own workspace.
    let manifest = std::fs::read_to_string(demo_dir().join("rust/Cargo.toml")).unwrap();
    assert!(manifest.contains("\n[workspace]"));
}

#[test]
fn the_readme_keys_table_is_the_default_keymap() {
    let readme =
        std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md"))
            .unwrap();
    let start = readme
        .find("<!-- keys:start -->\n")
        .expect("README has the keys table markers")
        + "<!-- keys:start -->\n".len();
    let end = readme.find("<!-- keys:end -->").unwrap();
    let expected = candor::tui::keymap::Keymap::default_keymap().markdown_table();
    assert_eq!(
        &readme[start..end],
        expected,
        "update the README's key table to:\n{expected}"
    );
}
