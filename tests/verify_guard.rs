//! What a check must never do, through the real `candor call`: write into the user's tree or its
//! git repository; leave anything but candor's cache behind when it is killed; hang past its
//! timeout; run a project's programs (build scripts, an interpreter or a checker its files name,
//! modules planted to be imported) unless the user trusts the project.

mod verify_common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::json;
use verify_common::*;

/// A clean extract of the crate of `crate_with_build_script`.
const EXTRACT_TOTAL: &str = r#"{"file_path": "src/lib.rs", "start_line": 2, "end_line": 2, "new_name": "announce", "semantic_edit_backend": "tree-sitter", "verify": true}"#;

fn extract_total() -> serde_json::Value {
    serde_json::from_str(EXTRACT_TOTAL).unwrap()
}

#[test]
fn a_check_writes_nothing_into_the_tree_or_its_git() {
    if !require(&["cargo", "ruff"]) {
        return;
    }
    let env = Env::new();
    // A Rust crate (cargo writes Cargo.lock and target/ where it runs) and a Python package, in
    // one git repository.
    let project = crate_with_build_script("println!(\"cargo:rerun-if-changed=build.rs\");");
    let root = project.path();
    copy_dir(
        &manifest_dir().join("tests/verify_fixtures/py_scale"),
        &root.join("py"),
    );
    git(root, &["init", "-q"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "start"]);
    env.trust(root);
    let before = snapshot_all(root);

    let (envelope, _) = env.call(root, "refactor_extract_function", &extract_total());
    assert_eq!(
        envelope["data"]["verification"]["state"], "clean",
        "{envelope:#}"
    );
    let (envelope, _) = env.call(
        root,
        "refactor_inline_function",
        &json!({"file_path": "py/calc/scaling.py", "function_name": "scale", "semantic_edit_backend": "tree-sitter", "verify": "tests"}),
    );
    let verification = &envelope["data"]["verification"];
    assert!(
        verification["state"] == "clean" || verification["state"] == "introduced",
        "{envelope:#}"
    );
    let tests = &verification["tests"]["state"];
    assert!(
        tests == "clean" || tests == "introduced",
        "the tests ran: {envelope:#}"
    );

    assert_eq!(
        snapshot_all(root),
        before,
        "nothing in the tree or .git changed, not even a modification time"
    );
    assert_eq!(git(root, &["status", "--porcelain", "--ignored"]), "");
    // The shadows and build output are in the cache.
    let shadows = std::fs::read_dir(env.cache.path().join("candor/verify"))
        .unwrap()
        .count();
    assert_eq!(shadows, 1, "one cache directory for the project");
}

#[test]
fn a_killed_check_leaves_nothing_behind_but_the_cache() {
    if !require(&["cargo"]) {
        return;
    }
    let env = Env::new();
    // A build script slow enough to be killed in the middle of the check.
    let project = crate_with_build_script("std::thread::sleep(std::time::Duration::from_secs(4));");
    let root = project.path();
    env.trust(root);
    let before = snapshot_all(root);
    let mut child = env
        .candor()
        .args(["call", "refactor_extract_function", EXTRACT_TOTAL, "--root"])
        .arg(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let cache = env.cache.path().canonicalize().unwrap();
    let started = Instant::now();
    while processes_under(&cache).is_empty() && started.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        !processes_under(&cache).is_empty(),
        "cargo started in the cache"
    );
    std::thread::sleep(Duration::from_millis(500));
    child.kill().unwrap();
    child.wait().unwrap();
    // cargo dies with candor; what it had started (the build script) ends on its own.
    let killed = Instant::now();
    while !processes_under(&cache).is_empty() && killed.elapsed() < Duration::from_secs(30) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(
        processes_under(&cache),
        vec![],
        "nothing runs on in the cache"
    );
    assert_eq!(
        snapshot_all(root),
        before,
        "nothing was written into the project"
    );
    // The next check repairs the shadow and answers.
    let (envelope, _) = env.call(root, "refactor_extract_function", &extract_total());
    assert_eq!(
        envelope["data"]["verification"]["state"], "clean",
        "{envelope:#}"
    );
    assert_eq!(snapshot_all(root), before);
}

#[test]
fn a_check_that_runs_out_of_time_says_timeout() {
    if !require(&["cargo"]) {
        return;
    }
    let env = Env::new();
    let project =
        crate_with_build_script("std::thread::sleep(std::time::Duration::from_secs(60));");
    let root = project.path();
    std::fs::create_dir(root.join(".candor")).unwrap();
    std::fs::write(
        root.join(".candor/config.toml"),
        "[verify]\ntimeout_secs = 3\n",
    )
    .unwrap();
    env.trust(root);
    let (envelope, took) = env.call(root, "refactor_extract_function", &extract_total());
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "timeout", "{envelope:#}");
    let reason = verification["reason"].as_str().unwrap();
    assert!(reason.starts_with("gave up after 3 s while"), "{reason}");
    assert!(reason.contains("timeout_secs"), "{reason}");
    assert!(took < Duration::from_secs(30), "no hang: {took:?}");
    assert_eq!(
        processes_under(&env.cache.path().canonicalize().unwrap()),
        vec![]
    );
}

#[test]
fn an_untrusted_crate_is_not_built() {
    if !require(&["cargo"]) {
        return;
    }
    let env = Env::new();
    let marks = tempfile::tempdir().unwrap();
    let marker = marks.path().join("build-script-ran");
    let project = crate_with_build_script(&format!(
        "std::fs::write({:?}, \"ran\").unwrap();",
        marker.display().to_string()
    ));
    let root = project.path();
    let (envelope, _) = env.call(root, "refactor_extract_function", &extract_total());
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "unavailable", "{envelope:#}");
    assert!(
        verification["reason"]
            .as_str()
            .unwrap()
            .contains("candor trust"),
        "{envelope:#}"
    );
    assert!(!marker.exists(), "the build script did not run");
    // Trusted, the same check runs it: the marker proves the test could fail.
    env.trust(root);
    let (envelope, _) = env.call(root, "refactor_extract_function", &extract_total());
    assert_eq!(
        envelope["data"]["verification"]["state"], "clean",
        "{envelope:#}"
    );
    assert!(marker.exists(), "cargo check ran the build script");
}

/// Planted modules that write a marker named after themselves when imported.
fn plant_modules(root: &Path, marks: &Path, names: &[&str]) {
    for name in names {
        let marker = marks.join(name);
        std::fs::write(
            root.join(format!("{name}.py")),
            format!(
                "open({:?}, 'w').write('imported')\n",
                marker.display().to_string()
            ),
        )
        .unwrap();
    }
}

#[test]
fn python_checkers_run_no_project_code() {
    if !require(&["ruff", "basedpyright"]) {
        return;
    }
    let env = Env::new();
    let marks = tempfile::tempdir().unwrap();
    let project = fixture("verify_fixtures", "py_scale");
    let root = project.path();
    let modules = [
        "py_compile",
        "json",
        "warnings",
        "sitecustomize",
        "usercustomize",
        "ast",
        "site",
    ];
    plant_modules(root, marks.path(), &modules);
    // An interpreter of the repository's, named by its type-checker settings.
    let evil = root.join("evil/bin");
    std::fs::create_dir_all(&evil).unwrap();
    std::fs::create_dir_all(root.join("evil/lib/python3.11/site-packages")).unwrap();
    std::fs::write(root.join("evil/pyvenv.cfg"), "home = /usr/bin\n").unwrap();
    for python in ["python", "python3"] {
        let script = format!(
            "#!/bin/sh\ntouch {:?}\nexit 1\n",
            marks.path().join("repository-python").display().to_string()
        );
        std::fs::write(evil.join(python), script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(evil.join(python), std::fs::Permissions::from_mode(0o755))
            .unwrap();
    }
    std::fs::write(
        root.join("pyrightconfig.json"),
        r#"{"venvPath": ".", "venv": "evil"}"#,
    )
    .unwrap();
    std::fs::write(
        root.join("pyproject.toml"),
        "[tool.pyright]\nvenvPath = \".\"\nvenv = \"evil\"\n",
    )
    .unwrap();
    // A checker its config file names: refused, the project is not trusted.
    std::fs::create_dir(root.join(".candor")).unwrap();
    std::fs::write(
        root.join(".candor/config.toml"),
        format!(
            "[verify]\nruff = {{ command = \"/bin/sh\", args = [\"-c\", \"touch {}\"] }}\n",
            marks.path().join("configured-ruff").display()
        ),
    )
    .unwrap();

    // Control: `python -m py_compile` run from the project imports the planted module.
    let control = std::process::Command::new(path_python())
        .args(["-m", "py_compile", "calc/scaling.py"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        marks.path().join("py_compile").exists(),
        "the planted module works: {control:?}"
    );
    for mark in std::fs::read_dir(marks.path()).unwrap() {
        std::fs::remove_file(mark.unwrap().path()).unwrap();
    }
    let _ = std::fs::remove_dir_all(root.join("calc/__pycache__"));
    let _ = std::fs::remove_dir_all(root.join("__pycache__"));

    let (envelope, _) = env.call(
        root,
        "refactor_inline_function",
        &json!({"file_path": "calc/scaling.py", "function_name": "scale", "semantic_edit_backend": "tree-sitter", "verify": true}),
    );
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "clean", "{envelope:#}");
    assert_eq!(
        verification["checker"], "compile + basedpyright",
        "{envelope:#}"
    );
    let not_run = verification["not_run"].to_string();
    assert!(
        not_run.contains("ruff") && not_run.contains("candor trust"),
        "{envelope:#}"
    );
    let left: Vec<String> = std::fs::read_dir(marks.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(left, Vec::<String>::new(), "no project code ran");

    // The same with pyrefly, whose settings can name an interpreter (and a conda environment).
    if runs("pyrefly") {
        std::fs::remove_file(root.join("pyrightconfig.json")).unwrap();
        let settings =
            "python-interpreter-path = \"evil/bin/python\"\nconda-environment = \"evil\"\n";
        std::fs::write(
            root.join("pyproject.toml"),
            format!("[tool.pyrefly]\n{settings}"),
        )
        .unwrap();
        std::fs::write(root.join("pyrefly.toml"), settings).unwrap();
        let (envelope, _) = env.call(
            root,
            "refactor_inline_function",
            &json!({"file_path": "calc/scaling.py", "function_name": "scale", "semantic_edit_backend": "tree-sitter", "verify": true}),
        );
        let verification = &envelope["data"]["verification"];
        assert_eq!(verification["state"], "clean", "{envelope:#}");
        assert_eq!(verification["checker"], "compile + pyrefly", "{envelope:#}");
        let left = std::fs::read_dir(marks.path()).unwrap().count();
        assert_eq!(left, 0, "no project code ran");
    }
}

/// The interpreter the tests use (the repository's `.venv`, else python3).
fn path_python() -> std::path::PathBuf {
    let venv = manifest_dir().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}
