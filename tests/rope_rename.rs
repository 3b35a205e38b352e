//! Rename through the rope backend with the real rope, through the real `candor call` binary,
//! on copies of `tests/rope_fixtures/shop` (a package with its own unittest suite whose modules
//! reach `shop.pricing` as `import shop.pricing`, `from shop.pricing import net_price as price`,
//! `from shop import pricing`, relative `from ..pricing import …` and `from .. import pricing`,
//! and re-export two names through `__init__.py` and its `__all__`): a function, a method with
//! an override and a `super()` call, a class and a module-level variable. After each apply the
//! package's tests pass; `candor undo` gives back every byte. rope's answer is checked against
//! candor's references engine; `auto` falls back with rope's reason when rope cannot.
//!
//! rope comes from PATH, with this repository's `.venv/bin` first (where `scripts/test` installs
//! it). When it is missing the test fails in CI (`CI` set) and is skipped, saying so, elsewhere.

mod common;
mod rope_common;

use serde_json::{Value, json};

use rope_common::*;

const RENAME: &str = "refactor_rename_symbol";

fn shop() -> tempfile::TempDir {
    fixture("shop")
}

fn rename(symbol: &str, new_name: &str) -> Value {
    json!({"file_path": "shop/pricing.py", "symbol_name": symbol, "new_name": new_name})
}

fn changed_paths(envelope: &Value) -> Vec<String> {
    envelope["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_function_is_renamed_through_every_import_style_and_its_all_entry() {
    if !require_rope() {
        return;
    }
    let project = shop();
    let root = project.path();
    run_package_tests(root);
    let before_orders = read(root, "shop/orders.py");
    let applied = apply_test_and_undo(root, RENAME, rename("net_price", "price_net"));
    let data = &applied["data"];
    assert_eq!(
        changed_paths(&applied),
        [
            "shop/__init__.py",
            "shop/checkout/till.py",
            "shop/orders.py",
            "shop/pricing.py",
            "tests/test_shop.py"
        ],
        "{data:#}"
    );
    assert_eq!(data["old_name"], "net_price");
    assert_eq!(data["new_name"], "price_net");
    assert_eq!(data["symbol_kind"], "function");
    assert_eq!(data["definition"], "shop/pricing.py:6");
    // 3 in pricing.py, 2 in __init__.py (import, __all__), 2 in till.py, 3 in orders.py,
    // 2 in the tests.
    assert_eq!(data["references_renamed"], 12, "{data:#}");
    let from = data["references_from"].as_str().unwrap();
    assert!(
        from.starts_with("rope ") && from.contains("references engine"),
        "{from}"
    );
    // The preview's diff of orders.py: the alias stays, the attribute paths are renamed.
    let orders = data["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "shop/orders.py")
        .unwrap();
    let diff = orders["diff"].as_str().unwrap();
    assert!(
        diff.contains("+from shop.pricing import price_net as price\n"),
        "{diff}"
    );
    assert!(
        diff.contains("+    return [shop.pricing.price_net(g) for g in grosses]\n"),
        "{diff}"
    );
    assert!(
        !diff.contains("+    return [price_net(g"),
        "calls through the alias keep the alias: {diff}"
    );
    assert_eq!(read(root, "shop/orders.py"), before_orders, "undone");
    let findings = findings_of(&applied);
    assert!(
        has(
            &findings,
            "info shop/__init__.py:4 candor renamed `net_price` in this `__all__` (rope does not rename names in strings)"
        ),
        "{findings:#?}"
    );
    // The package's public `shop.net_price` is gone: the public API guard says how to keep it.
    let warnings: Vec<&String> = findings
        .iter()
        .filter(|f| f.starts_with("warning"))
        .collect();
    assert_eq!(
        warnings,
        [
            "warning shop/pricing.py:6 `net_price` was public API at `shop.net_price`; importers now reach it at `shop.price_net` (re-export it with `net_price = price_net` in shop/__init__.py (and `'net_price'` kept in its `__all__`) to keep the old path)"
        ],
        "rope and the engine agree on every other reference: {findings:#?}"
    );
}

#[test]
fn the_applied_rename_is_the_text_the_package_needs() {
    if !require_rope() {
        return;
    }
    let project = shop();
    let root = project.path();
    let mut args = rename("net_price", "price_net");
    args["dry_run"] = json!(false);
    let applied = call(root, RENAME, args);
    assert_eq!(applied["data"]["applied"], true, "{applied:#}");
    assert_eq!(
        read(root, "shop/__init__.py"),
        "\"\"\"A tiny shop: prices, carts, orders and a checkout.\"\"\"\nfrom .pricing import Cart, price_net\n\n__all__ = [\"Cart\", \"price_net\"]\n"
    );
    assert_eq!(
        read(root, "shop/checkout/till.py").lines().nth(1),
        Some("from ..pricing import TAX_RATE, Cart, price_net")
    );
    let orders = read(root, "shop/orders.py");
    assert!(orders.contains("from shop.pricing import price_net as price\n"));
    assert!(orders.contains("[price(g, rate=pricing.TAX_RATE) for g in grosses]"));
    assert!(orders.contains("gross - shop.pricing.price_net(gross, shop.pricing.TAX_RATE)"));
    assert!(!read(root, "shop/pricing.py").contains("net_price"));
    run_package_tests(root);
}

#[test]
fn a_module_level_variable_is_renamed_where_it_is_read_and_imported() {
    if !require_rope() {
        return;
    }
    let project = shop();
    let root = project.path();
    let applied = apply_test_and_undo(root, RENAME, rename("TAX_RATE", "VAT_RATE"));
    let data = &applied["data"];
    assert_eq!(data["symbol_kind"], "variable", "{data:#}");
    assert_eq!(
        changed_paths(&applied),
        [
            "shop/checkout/till.py",
            "shop/orders.py",
            "shop/pricing.py",
            "tests/test_shop.py"
        ]
    );
    // pricing.py 2, till.py 2, orders.py 2 (`pricing.TAX_RATE`, `shop.pricing.TAX_RATE`),
    // the tests 1.
    assert_eq!(data["references_renamed"], 7, "{data:#}");
}

#[test]
fn a_class_is_renamed_in_annotations_bases_and_relative_imports() {
    if !require_rope() {
        return;
    }
    let project = shop();
    let root = project.path();
    let mut args = rename("Cart", "Basket");
    let applied = apply_test_and_undo(root, RENAME, args.clone());
    assert_eq!(applied["data"]["symbol_kind"], "class", "{applied:#}");
    args["dry_run"] = json!(false);
    call(root, RENAME, args);
    let till = read(root, "shop/checkout/till.py");
    assert!(till.contains("from ..pricing import TAX_RATE, Basket, net_price\n"));
    assert!(till.contains("    cart: Basket = pricing.Basket()\n"));
    assert!(read(root, "shop/pricing.py").contains("class GiftCart(Basket):\n"));
    assert!(read(root, "shop/__init__.py").contains("__all__ = [\"Basket\", \"net_price\"]"));
    run_package_tests(root);
}

#[test]
fn a_method_is_renamed_with_its_override_and_its_super_call() {
    if !require_rope() {
        return;
    }
    let project = shop();
    let root = project.path();
    let preview = call(root, RENAME, rename("Cart/subtotal", "net_total"));
    let data = &preview["data"];
    assert_eq!(data["symbol_kind"], "method", "{data:#}");
    // `pricing.Cart().add(…).add(…)` in the tests: neither rope nor the engine can type the
    // receiver, so both calls are left and listed.
    let possible: Vec<&str> = data["possible_references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(
        possible,
        ["tests/test_shop.py:23:31", "tests/test_shop.py:28:31"],
        "{data:#}"
    );
    let findings = findings_of(&preview);
    assert!(
        has(
            &findings,
            "warning tests/test_shop.py:23 possible reference to `subtotal` left unchanged"
        ),
        "{findings:#?}"
    );
    // `cart = new_cart()`: rope infers the return type, the engine cannot; rope renames it.
    assert!(
        has(
            &findings,
            "info shop/orders.py:27 rope resolved this `subtotal` and renamed it; candor's references engine alone could not tell"
        ),
        "{findings:#?}"
    );
    // `super().subtotal()`: rope is unsure, the engine resolves it through the base class.
    assert!(
        has(
            &findings,
            "info shop/pricing.py:35 rope was unsure whether this `subtotal` is the symbol; candor's references engine resolved it, so candor renamed it"
        ),
        "{findings:#?}"
    );
    let mut args = rename("Cart/subtotal", "net_total");
    args["include_possible"] = json!(possible);
    let applied = apply_test_and_undo(root, RENAME, args.clone());
    assert_eq!(applied["data"]["possible_references"], json!([]));
    args["dry_run"] = json!(false);
    call(root, RENAME, args);
    let pricing = read(root, "shop/pricing.py");
    assert!(!pricing.contains("subtotal"), "{pricing}");
    assert!(pricing.contains("super().net_total()"), "{pricing}");
    assert!(pricing.contains("self.net_total())"), "{pricing}");
    assert!(
        read(root, "shop/checkout/till.py").contains("return cart.net_total()\n"),
        "the evident receiver `cart = Cart()` is renamed"
    );
    assert!(read(root, "shop/orders.py").contains("return cart.net_total()\n"));
    run_package_tests(root);
}

#[test]
fn a_symbol_named_by_its_position_in_another_module_is_the_same_rename() {
    if !require_rope() {
        return;
    }
    let project = shop();
    let root = project.path();
    let by_name = call(root, RENAME, rename("net_price", "price_net"));
    // `shop.pricing.net_price(g)` in orders.py, line 8.
    let by_position = call(
        root,
        RENAME,
        json!({"file_path": "shop/orders.py", "symbol_name": "net_price", "line": 8, "column": 26, "new_name": "price_net"}),
    );
    assert_eq!(by_position["backend_used"], "lsp", "{by_position:#}");
    assert_eq!(by_position["data"]["changes"], by_name["data"]["changes"]);
}

#[test]
fn a_request_wrong_in_itself_is_the_same_error_as_on_the_heuristic() {
    if !require_rope() {
        return;
    }
    let project = shop();
    let root = project.path();
    for backend in ["lsp", "tree-sitter"] {
        let mut args = rename("net_price", "TAX_RATE");
        args["semantic_edit_backend"] = json!(backend);
        let refused = call(root, RENAME, args);
        assert_eq!(refused["success"], false, "{refused:#}");
        let message = refused["error"]["message"].as_str().unwrap();
        assert!(message.contains("would collide"), "{backend}: {message}");
    }
}

#[test]
fn when_rope_cannot_auto_falls_back_with_its_reason() {
    if !require_rope() {
        return;
    }
    let project = shop();
    let root = project.path();
    std::fs::write(
        root.join("shop/broken.py"),
        "from shop.pricing import net_price\ndef broken(:\n    return net_price(1)\n",
    )
    .unwrap();
    let mut args = rename("net_price", "price_net");
    args["semantic_edit_backend"] = json!("lsp");
    let refused = call(root, RENAME, args.clone());
    assert_eq!(refused["error"]["code"], "lsp", "{refused:#}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("rope cannot analyze the project") && message.contains("broken.py"),
        "{message}"
    );
    args["semantic_edit_backend"] = json!("auto");
    let fallback = call(root, RENAME, args);
    assert_eq!(fallback["success"], true, "{fallback:#}");
    assert_eq!(fallback["backend_used"], "hybrid", "{fallback:#}");
    let reason = fallback["data"]["fallback_reason"].as_str().unwrap();
    assert!(reason.contains("broken.py"), "{reason}");
    assert!(fallback["data"]["tree_sitter_caveats"].is_array());

    std::fs::remove_file(root.join("shop/broken.py")).unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let path = std::env::join_paths([python_without_rope(scratch.path())]).unwrap();
    let (fallback, _) = call_with_path(root, RENAME, &rename("net_price", "price_net"), &path);
    assert_eq!(fallback["backend_used"], "hybrid", "{fallback:#}");
    let reason = fallback["data"]["fallback_reason"].as_str().unwrap();
    assert!(reason.starts_with("rope is not available"), "{reason}");
}

#[test]
fn a_src_layout_is_a_source_folder_for_rope() {
    if !require_rope() {
        return;
    }
    // Without `src` as a source folder rope cannot resolve `from pkg.core import f` outside
    // `src/` (or resolves it to an installed `pkg`, as attrs' `attr` to the helper's own copy)
    // and leaves the import behind.
    let project = common::project(&[
        ("pyproject.toml", b"[project]\nname = \"pkg\"\n"),
        // A module at the root makes rope take the root as its only source folder.
        ("conftest.py", b""),
        ("src/pkg/__init__.py", b""),
        ("src/pkg/core.py", b"def f():\n    return 1\n"),
        ("src/app/__init__.py", b""),
        (
            "src/app/main.py",
            b"from pkg.core import f\n\n\ndef run():\n    return f()\n",
        ),
        (
            "tests/test_core.py",
            b"from pkg.core import f\n\nassert f() == 1\n",
        ),
    ]);
    let root = project.path();
    let args = json!({"file_path": "src/pkg/core.py", "symbol_name": "f", "new_name": "g", "dry_run": false});
    let applied = call(root, RENAME, args);
    assert_eq!(applied["backend_used"], "lsp", "{applied:#}");
    let findings = findings_of(&applied);
    // `f` is imported by name from `pkg.core` elsewhere: its old path is public API.
    assert_eq!(
        findings,
        [
            "warning src/pkg/core.py:1 `f` was public API at `pkg.core.f`; importers now reach it at `pkg.core.g` (re-export it with `f = g` in src/pkg/core.py to keep the old path)"
        ],
        "{findings:#?}"
    );
    assert_eq!(
        read(root, "src/app/main.py"),
        "from pkg.core import g\n\n\ndef run():\n    return g()\n"
    );
    assert_eq!(
        read(root, "tests/test_core.py"),
        "from pkg.core import g\n\nassert g() == 1\n"
    );
}

/// Issue 26 with the real rope: every edit of its rename but the definition's is a `reference`
/// site; one left out is not written (the file keeps the old name there, said as an error at
/// that line), everything else is, exactly as previewed with that choice.
#[test]
fn a_reference_of_ropes_rename_can_be_left_out() {
    if !require_rope() {
        return;
    }
    let project = shop();
    let root = project.path();
    let preview = call(root, RENAME, rename("net_price", "price_net"));
    assert_rope(&preview);
    let sites = preview["data"]["sites"].as_array().unwrap().clone();
    assert_eq!(
        sites.len(),
        11,
        "12 references, the definition is no site: {sites:#?}"
    );
    assert!(
        sites
            .iter()
            .all(|s| s["kind"] == "reference" && s["chosen"] == true)
    );
    assert!(
        !sites
            .iter()
            .any(|s| s["file"] == "shop/pricing.py" && s["line"] == 6),
        "{sites:#?}"
    );
    let site = sites
        .iter()
        .find(|s| s["file"] == "shop/orders.py")
        .unwrap();
    let line = site["line"].as_u64().unwrap() as usize;
    let mut args = rename("net_price", "price_net");
    args["exclude_sites"] = json!([site["id"]]);
    let narrowed = call(root, RENAME, args.clone());
    assert_rope(&narrowed);
    let finding = narrowed["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "sites.left_out_reference")
        .unwrap_or_else(|| panic!("{narrowed:#}"));
    assert_eq!(finding["file"], "shop/orders.py");
    assert_eq!(finding["severity"], "error");
    let before_orders = read(root, "shop/orders.py");
    args["dry_run"] = json!(false);
    args["verify"] = json!(false);
    args["plan_id"] = narrowed["data"]["plan_id"].clone();
    let applied = call(root, RENAME, args);
    assert_eq!(applied["data"]["applied"], true, "{applied:#}");
    let orders = read(root, "shop/orders.py");
    let old_line = before_orders.lines().nth(line - 1).unwrap();
    assert_eq!(orders.lines().nth(line - 1).unwrap(), old_line);
    assert!(old_line.contains("net_price"), "{old_line}");
    let renamed_elsewhere = orders
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != line - 1)
        .all(|(_, l)| !l.contains("net_price"));
    assert!(renamed_elsewhere, "{orders}");
    assert!(read(root, "shop/pricing.py").contains("def price_net("));
}

#[test]
fn a_keyword_argument_as_the_cursor_renames_the_parameter_and_every_keyword() {
    if !require_rope() {
        return;
    }
    let project = shop();
    let root = project.path();
    // `shop.net_price(110, rate=10)` in the tests, line 12: the cursor on `rate` names the
    // parameter of `net_price` (re-exported by `shop/__init__.py`); the lookup used to refuse
    // it before rope was asked.
    let args = json!({"file_path": "tests/test_shop.py", "symbol_name": "rate", "line": 12, "column": 46, "new_name": "tax"});
    let applied = apply_test_and_undo(root, RENAME, args.clone());
    assert_eq!(
        changed_paths(&applied),
        ["shop/orders.py", "shop/pricing.py", "tests/test_shop.py"],
        "{applied:#}"
    );
    let diffs: String = applied["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["diff"].as_str().unwrap().to_string())
        .collect();
    for line in [
        "+def net_price(gross, tax=None):",
        "+    return gross * 100 // (100 + tax)",
        "+    return [price(g, tax=pricing.TAX_RATE) for g in grosses]",
        "+        self.assertEqual(shop.net_price(110, tax=10), 100)",
    ] {
        assert!(diffs.contains(line), "{line} in:\n{diffs}");
    }
    // rope and candor's engine agree on every occurrence (the keyword at the aliased call
    // `price(g, rate=..)` included): no finding.
    assert_eq!(findings_of(&applied), Vec::<String>::new(), "{applied:#}");
    // The heuristic writes the same text.
    let mut heuristic = args;
    heuristic["semantic_edit_backend"] = json!("tree-sitter");
    let by_engine = call(root, RENAME, heuristic);
    assert_eq!(by_engine["data"]["changes"], applied["data"]["changes"]);
}
