//! The check of issue 23 with the real tools, through the real `candor call`: pyrefly (its
//! `default` preset) when the project configures no type checker, the configured one otherwise;
//! what a checker said about the base remembered (a second check runs the "after" side only);
//! the steps and their durations in the envelope and nothing else on stdout; every apply checked
//! unless the call opts out; new warnings alone leave the result clean; no hard link into the
//! project after any number of checks; `candor cache`.

mod verify_common;

use std::path::Path;

use serde_json::{Value, json};
use verify_common::*;

/// A small unconfigured package: `cents` called directly and through an alias the references
/// engine cannot follow (`convert = cents`).
fn shop() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("shop")).unwrap();
    std::fs::create_dir_all(root.join("tests")).unwrap();
    let files = [
        ("shop/__init__.py", ""),
        (
            "shop/money.py",
            "def cents(amount, rate):\n    return round(amount * rate)\n\n\ndef total(items):\n    unused = 0\n    return sum(cents(item, 100) for item in items)\n",
        ),
        (
            "shop/report.py",
            "from shop.money import cents\n\nconvert = cents\n\n\ndef line(amount):\n    return cents(amount, 100)\n\n\ndef other(amount):\n    return convert(amount, 100)\n",
        ),
        ("tests/__init__.py", ""),
        (
            "tests/test_money.py",
            "import unittest\n\nfrom shop.money import total\n\n\nclass T(unittest.TestCase):\n    def test_total(self):\n        self.assertEqual(total([1, 2]), 300)\n",
        ),
    ];
    for (path, text) in files {
        std::fs::write(root.join(path), text).unwrap();
    }
    dir
}

/// Drops `rate` from `cents`: the call through `convert` keeps two arguments.
fn drop_rate(extra: Value) -> Value {
    let mut args = json!({"file_path": "shop/money.py", "function_name": "cents", "new_parameters": [{"name": "amount"}], "semantic_edit_backend": "tree-sitter"});
    args.as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    args
}

fn step_names(envelope: &Value) -> Vec<String> {
    envelope["data"]["verification"]["steps"]
        .as_array()
        .unwrap_or_else(|| panic!("no steps: {envelope:#}"))
        .iter()
        .map(|s| {
            assert!(s["duration_ms"].is_u64(), "{s}");
            s["name"].as_str().unwrap().to_string()
        })
        .collect()
}

#[test]
fn pyrefly_checks_an_unconfigured_project_and_the_same_base_is_remembered() {
    if !require(&["pyrefly", "ruff"]) {
        return;
    }
    let env = Env::new();
    let project = shop();
    let root = project.path();
    let (envelope, _) = env.call(
        root,
        "refactor_change_signature",
        &drop_rate(json!({"verify": true})),
    );
    let verification = &envelope["data"]["verification"];
    assert_eq!(
        verification["checker"], "ruff + compile + pyrefly",
        "{envelope:#}"
    );
    assert_eq!(verification["state"], "introduced", "{envelope:#}");
    // What only a type checker sees, and only with pyrefly's default preset (its `basic` one,
    // which it picks for an unconfigured project, says nothing).
    assert!(
        introduced(&envelope).contains(&(
            "shop/report.py".to_string(),
            11,
            "error".to_string(),
            "bad-argument-count".to_string()
        )),
        "{envelope:#}"
    );
    let first = step_names(&envelope);
    for step in [
        "shadow before",
        "shadow after",
        "pyrefly before",
        "pyrefly after",
        "ruff after",
    ] {
        assert!(first.contains(&step.to_string()), "{step}: {first:?}");
    }
    // The same base again (another result): the "before" side is remembered, not run.
    let (again, _) = env.call(
        root,
        "refactor_change_signature",
        &drop_rate(
            json!({"verify": true, "new_parameters": [{"name": "rate"}, {"name": "amount"}]}),
        ),
    );
    let second = step_names(&again);
    for checker in ["ruff", "compile", "pyrefly"] {
        assert!(
            second.contains(&format!("{checker} before (remembered)")),
            "{second:?}"
        );
        assert!(!second.contains(&format!("{checker} before")), "{second:?}");
    }
    assert_eq!(again["data"]["verification"]["state"], "clean", "{again:#}");
    // Once the base changes, it is checked again.
    std::fs::write(root.join("shop/extra.py"), "X = 1\n").unwrap();
    let (changed, _) = env.call(
        root,
        "refactor_change_signature",
        &drop_rate(json!({"verify": true})),
    );
    assert!(step_names(&changed).contains(&"pyrefly before".to_string()));
}

#[test]
fn the_project_chooses_the_type_checker() {
    if !require(&["pyrefly", "basedpyright", "mypy", "ruff"]) {
        return;
    }
    let env = Env::new();
    for (config, checker) in [
        ("[tool.basedpyright]\n", "ruff + compile + basedpyright"),
        ("[tool.mypy]\nstrict = true\n", "ruff + compile + mypy"),
        ("[tool.pyrefly]\n", "ruff + compile + pyrefly"),
    ] {
        let project = shop();
        let root = project.path();
        std::fs::write(root.join("pyproject.toml"), config).unwrap();
        let (envelope, _) = env.call(
            root,
            "refactor_change_signature",
            &drop_rate(json!({"verify": true})),
        );
        let verification = &envelope["data"]["verification"];
        assert_eq!(verification["checker"], checker, "{envelope:#}");
        // Each sees the call through the alias that now passes one argument too many.
        let found = introduced(&envelope);
        assert!(
            found
                .iter()
                .any(|(file, line, severity, _)| file == "shop/report.py"
                    && *line == 11
                    && severity == "error"),
            "{checker}: {envelope:#}"
        );
    }
}

#[test]
fn every_write_is_checked_unless_the_call_opts_out() {
    if !require(&["pyrefly", "ruff"]) {
        return;
    }
    let env = Env::new();
    let project = shop();
    let root = project.path();
    let before = std::fs::read(root.join("shop/money.py")).unwrap();
    // No `verify`: the apply is checked and refused.
    let (refused, _) = env.call(
        root,
        "refactor_change_signature",
        &drop_rate(json!({"dry_run": false})),
    );
    assert_eq!(refused["success"], false, "{refused:#}");
    assert_eq!(
        refused["error"]["param"], "allow_introduced_errors",
        "{refused:#}"
    );
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("bad-argument-count"),
        "{refused:#}"
    );
    assert_eq!(std::fs::read(root.join("shop/money.py")).unwrap(), before);
    // A clean result is checked, then written.
    let reorder =
        json!({"dry_run": false, "new_parameters": [{"name": "rate"}, {"name": "amount"}]});
    let (written, _) = env.call(root, "refactor_change_signature", &drop_rate(reorder));
    assert_eq!(written["data"]["applied"], true, "{written:#}");
    assert_eq!(
        written["data"]["verification"]["state"], "clean",
        "{written:#}"
    );
    // `verify: false`: written unchecked, and the envelope says so.
    let (unchecked, _) = env.call(
        root,
        "refactor_change_signature",
        &drop_rate(json!({"dry_run": false, "verify": false, "allow_syntax_errors": false})),
    );
    assert_eq!(unchecked["data"]["applied"], true, "{unchecked:#}");
    let verification = &unchecked["data"]["verification"];
    assert_eq!(verification["state"], "skipped");
    assert!(
        verification["reason"]
            .as_str()
            .unwrap()
            .starts_with("written without a check"),
        "{unchecked:#}"
    );
    // A preview is still only checked when asked.
    let (preview, _) = env.call(root, "refactor_change_signature", &drop_rate(json!({})));
    assert!(
        preview["data"]["verification"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("not compiled or type-checked yet"),
        "{preview:#}"
    );
}

#[test]
fn new_warnings_alone_leave_the_result_clean() {
    if !require(&["ruff"]) {
        return;
    }
    let env = Env::new();
    let project = shop();
    let root = project.path();
    // `unused` was never read: ruff's F841 names it; renamed, it names another variable.
    let (envelope, _) = env.call(
        root,
        "refactor_rename_symbol",
        &json!({"file_path": "shop/money.py", "name_path": "total/unused", "new_name": "spare", "semantic_edit_backend": "tree-sitter", "dry_run": false}),
    );
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "clean", "{envelope:#}");
    assert_eq!(verification["introduced"], json!([]), "{envelope:#}");
    let warnings = verification["introduced_warnings"].as_array().unwrap();
    assert!(
        warnings
            .iter()
            .any(|w| w["code"] == "F841" && w["severity"] == "warning"),
        "{envelope:#}"
    );
    assert_eq!(
        envelope["data"]["applied"], true,
        "a warning never blocks: {envelope:#}"
    );
}

#[test]
fn no_hard_link_finding_after_any_number_of_checks() {
    if !require(&["ruff"]) {
        return;
    }
    use std::os::unix::fs::MetadataExt;
    let env = Env::new();
    let project = shop();
    let root = project.path();
    let args = drop_rate(json!({"verify": true}));
    let hard_link_findings = |envelope: &Value| -> Vec<String> {
        envelope["data"]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|f| f["message"].as_str())
            .filter(|m| m.contains("hard link"))
            .map(str::to_string)
            .collect()
    };
    for _ in 0..2 {
        let (envelope, _) = env.call(root, "refactor_change_signature", &args);
        assert_eq!(
            hard_link_findings(&envelope),
            Vec::<String>::new(),
            "{envelope:#}"
        );
    }
    let (preview, _) = env.call(root, "refactor_change_signature", &drop_rate(json!({})));
    assert_eq!(
        hard_link_findings(&preview),
        Vec::<String>::new(),
        "{preview:#}"
    );
    for file in ["shop/money.py", "shop/report.py"] {
        assert_eq!(
            std::fs::metadata(root.join(file)).unwrap().nlink(),
            1,
            "{file}"
        );
    }
    // A shadow an older candor made of hard links does not count either…
    let shadow = project_cache(&env, root).join("edit/shop/money.py");
    std::fs::remove_file(&shadow).unwrap();
    std::fs::hard_link(root.join("shop/money.py"), &shadow).unwrap();
    let (preview, _) = env.call(root, "refactor_change_signature", &drop_rate(json!({})));
    assert_eq!(
        hard_link_findings(&preview),
        Vec::<String>::new(),
        "{preview:#}"
    );
    // … and the next check replaces it with a copy.
    env.call(root, "refactor_change_signature", &args);
    assert_eq!(
        std::fs::metadata(root.join("shop/money.py"))
            .unwrap()
            .nlink(),
        1
    );
    // A second name of the user's own still gets its warning.
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::hard_link(
        root.join("shop/money.py"),
        elsewhere.path().join("money.py"),
    )
    .unwrap();
    let (preview, _) = env.call(root, "refactor_change_signature", &drop_rate(json!({})));
    assert_eq!(hard_link_findings(&preview).len(), 1, "{preview:#}");
}

/// The project's folder in the test's cache.
fn project_cache(env: &Env, root: &Path) -> std::path::PathBuf {
    let verify = env.cache.path().join("candor/verify");
    let root = root.canonicalize().unwrap();
    std::fs::read_dir(&verify)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|dir| {
            std::fs::read_to_string(dir.join("root.txt")).is_ok_and(|r| Path::new(&r) == root)
        })
        .expect("the project has a cache folder")
}

#[test]
fn candor_cache_shows_the_size_per_project_and_clears_it() {
    if !require(&["ruff"]) {
        return;
    }
    let env = Env::new();
    let project = shop();
    let root = project.path();
    env.call(
        root,
        "refactor_change_signature",
        &drop_rate(json!({"verify": true})),
    );
    let shown = env.candor().args(["cache", "--size"]).output().unwrap();
    assert!(shown.status.success(), "{shown:?}");
    let text = String::from_utf8_lossy(&shown.stdout);
    assert!(text.contains("of at most 1024 MiB"), "{text}");
    let canonical = root.canonicalize().unwrap();
    assert!(text.contains(&canonical.display().to_string()), "{text}");
    let cleared = env.candor().args(["cache", "--clear"]).output().unwrap();
    assert!(cleared.status.success(), "{cleared:?}");
    assert!(
        String::from_utf8_lossy(&cleared.stdout)
            .starts_with("removed the checks' copies of 1 project(s)"),
        "{cleared:?}"
    );
    let verify = env.cache.path().join("candor/verify");
    assert_eq!(std::fs::read_dir(verify).unwrap().count(), 0);
    let again = env.candor().arg("cache").output().unwrap();
    assert!(!String::from_utf8_lossy(&again.stdout).contains(&canonical.display().to_string()));
}

#[test]
fn a_module_beside_its_stub_is_checked_once_by_mypy() {
    if !require(&["mypy", "ruff"]) {
        return;
    }
    let env = Env::new();
    let project = shop();
    let root = project.path();
    std::fs::write(
        root.join("setup.cfg"),
        "[mypy]\ncheck_untyped_defs = true\n",
    )
    .unwrap();
    std::fs::write(
        root.join("shop/money.pyi"),
        "def cents(amount: float, rate: float) -> int: ...\ndef total(items: list[float]) -> int: ...\n",
    )
    .unwrap();
    // A clean refactor of a module whose stub mentions the same name: both files are looked at.
    let (envelope, _) = env.call(
        root,
        "refactor_change_signature",
        &drop_rate(
            json!({"verify": true, "new_parameters": [{"name": "rate"}, {"name": "amount"}]}),
        ),
    );
    let verification = &envelope["data"]["verification"];
    assert_eq!(
        verification["checker"], "ruff + compile + mypy",
        "{envelope:#}"
    );
    assert_eq!(verification["introduced"], json!([]), "{envelope:#}");
    assert_eq!(verification["state"], "clean", "{envelope:#}");
}
