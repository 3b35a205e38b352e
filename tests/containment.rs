//! Issue 10 through the real binary: a repository cannot make candor run a program; symbolic
//! links inside `.candor/` are never followed; an apply writes exactly the previewed plan; undo
//! always progresses; recovery is reported; and the smaller refusals, each with its error code
//! and exit status. `CANDOR_TEST_BIN=<other build>` runs them against another binary (the main
//! branch's fails them).

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

use candor::edit::{FileChange, sha256_hex};
use candor::honesty::Tool;
use candor::workspace::Root;
use serde_json::{Value, json};

/// A user config folder of the test's own (never the real user's).
struct Home(tempfile::TempDir);

impl Home {
    fn new() -> Home {
        Home(tempfile::tempdir().unwrap())
    }

    fn candor(&self, root: &Path, args: &[&str]) -> Output {
        self.command(root, args).output().unwrap()
    }

    fn command(&self, root: &Path, args: &[&str]) -> Command {
        let mut command = Command::new(common::candor_bin());
        command
            .args(args)
            .current_dir(root)
            .env("XDG_CONFIG_HOME", self.0.path())
            .env_remove("CANDOR_BACKEND")
            .env_remove("CANDOR_TEST_PAUSE_BETWEEN_FILES_MS");
        command
    }

    /// `candor call TOOL ARGS --root ROOT [extra…]`: (envelope, exit status).
    fn call(&self, root: &Path, tool: &str, args: &Value, extra: &[&str]) -> (Value, i32) {
        let args_text = args.to_string();
        let mut all = vec!["call", tool, &args_text, "--root", root.to_str().unwrap()];
        all.extend_from_slice(extra);
        let out = self.candor(root, &all);
        let envelope = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "{tool}: stdout is not JSON ({e}): {}\nstderr: {}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (envelope, out.status.code().unwrap_or(-1))
    }
}

const APP: &str = "def helper(a):\n    return a\n\n\ndef main():\n    return helper(1)\n";

fn write(root: &Path, path: &str, bytes: &[u8]) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, bytes).unwrap();
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

// ---------------------------------------------------------------- item 1: trust

/// The reproduction: the repository's own config names `/bin/sh` as the Python server.
#[test]
fn a_repository_config_cannot_make_candor_run_a_program() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let marker = root.join("pwned.txt");
    write(root, "app.py", APP.as_bytes());
    let config = format!(
        "[lsp]\npython = {{ command = \"/bin/sh\", args = [\"-c\", \"id > {}; exit 1\"] }}\n",
        marker.display()
    );
    write(root, ".candor/config.toml", config.as_bytes());
    let inline = json!({"file_path": "app.py", "function_name": "helper"});

    // candor call, auto: the heuristic answers and says why no server ran, and how to trust.
    let (envelope, code) = home.call(root, "refactor_inline_function", &inline, &[]);
    assert_eq!(code, 0, "{envelope}");
    let reason = envelope["data"]["fallback_reason"].as_str().unwrap();
    assert!(reason.contains("/bin/sh"), "{reason}");
    assert!(reason.contains("not trusted"), "{reason}");
    assert!(
        reason.contains(&format!(
            "candor trust {}",
            root.canonicalize().unwrap().display()
        )),
        "{reason}"
    );
    // candor call, lsp: an error that says the same.
    let (envelope, code) = home.call(
        root,
        "refactor_inline_function",
        &inline,
        &["--backend", "lsp"],
    );
    assert_eq!((envelope["error"]["code"].as_str(), code), (Some("lsp"), 1));
    assert!(
        envelope["error"]["message"]
            .as_str()
            .unwrap()
            .contains("candor trust")
    );
    // candor mcp without --allow-server-command: the first tools/call, a dry run.
    let mut mcp = home
        .command(root, &["mcp", "--root", root.to_str().unwrap()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = mcp.stdin.take().unwrap();
        for message in [
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
            json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "refactor_inline_function", "arguments": inline}}),
        ] {
            writeln!(stdin, "{message}").unwrap();
        }
    }
    let replies = stdout(&mcp.wait_with_output().unwrap());
    assert!(replies.contains("not trusted"), "{replies}");
    // candor calls never starts a server.
    home.candor(root, &["calls", "helper", "--root", root.to_str().unwrap()]);
    assert!(!marker.exists(), "the repository ran a program");

    // Trusted, the same file is the user's choice: it runs (this is the vector the trust closes).
    let out = home.candor(root, &["trust", root.to_str().unwrap()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("any change of that file revokes"));
    home.call(root, "refactor_inline_function", &inline, &[]);
    assert!(marker.exists(), "a trusted project's server runs");
    std::fs::remove_file(&marker).unwrap();
    let listed = stdout(&home.candor(root, &["trust", "--list"]));
    assert!(listed.contains("(trusted)"), "{listed}");

    // Any change of the file revokes the trust.
    write(
        root,
        ".candor/config.toml",
        format!("{config}\n").as_bytes(),
    );
    let (envelope, _) = home.call(root, "refactor_inline_function", &inline, &[]);
    let reason = envelope["data"]["fallback_reason"].as_str().unwrap();
    assert!(reason.contains("changed since it was trusted"), "{reason}");
    assert!(!marker.exists(), "a changed config revoked the trust");
    let listed = stdout(&home.candor(root, &["trust", "--list"]));
    assert!(listed.contains("NOT trusted any more"), "{listed}");
    let out = home.candor(root, &["trust", "--revoke", root.to_str().unwrap()]);
    assert!(
        stdout(&out).contains("no longer trusted"),
        "{}",
        stdout(&out)
    );
}

// ---------------------------------------------------------------- item 3: .candor links

#[test]
fn links_inside_candor_are_refused_and_never_followed() {
    let home = Home::new();
    let outside = tempfile::tempdir().unwrap();
    let apply = json!({"file_path": "app.py", "function_name": "helper", "dry_run": false, "verify": false});

    // .candor/journal -> outside: the journal (copies of project files) must not land there.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app.py", APP.as_bytes());
    std::fs::create_dir(dir.path().join(".candor")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join(".candor/journal")).unwrap();
    let (envelope, code) = home.call(
        dir.path(),
        "refactor_inline_function",
        &apply,
        &["--backend", "tree-sitter"],
    );
    assert_eq!(code, 1, "{envelope}");
    assert!(
        envelope["error"]["message"]
            .as_str()
            .unwrap()
            .contains("symbolic link")
    );
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    assert_eq!(
        std::fs::read(dir.path().join("app.py")).unwrap(),
        APP.as_bytes()
    );

    // .candor/lock -> a missing outside path: never created.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app.py", APP.as_bytes());
    std::fs::create_dir(dir.path().join(".candor")).unwrap();
    let target = outside.path().join("lock-made-by-candor");
    std::os::unix::fs::symlink(&target, dir.path().join(".candor/lock")).unwrap();
    let (_, code) = home.call(
        dir.path(),
        "refactor_inline_function",
        &apply,
        &["--backend", "tree-sitter"],
    );
    assert_eq!(code, 1);
    assert!(!target.exists(), "the lock link was followed");

    // A journal entry that is a link to an outside folder: `candor undo` writes nothing there.
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "app.py", APP.as_bytes());
    let (_, code) = home.call(
        dir.path(),
        "refactor_inline_function",
        &apply,
        &["--backend", "tree-sitter"],
    );
    assert_eq!(code, 0);
    let journal = dir.path().join(".candor/journal");
    let entry = std::fs::read_dir(&journal)
        .unwrap()
        .flatten()
        .find(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .unwrap();
    let fake = outside.path().join("entry");
    std::fs::create_dir(&fake).unwrap();
    for name in ["manifest.json", "before"] {
        let from = entry.path().join(name);
        if from.is_dir() {
            std::fs::create_dir(fake.join(name)).unwrap();
            for image in std::fs::read_dir(&from).unwrap().flatten() {
                std::fs::copy(image.path(), fake.join(name).join(image.file_name())).unwrap();
            }
        } else {
            std::fs::copy(&from, fake.join(name)).unwrap();
        }
    }
    std::fs::remove_dir_all(entry.path()).unwrap();
    std::os::unix::fs::symlink(&fake, entry.path()).unwrap();
    home.candor(
        dir.path(),
        &["undo", "--root", dir.path().to_str().unwrap()],
    );
    assert!(
        !fake.join("status.json").exists(),
        "status.json was written through a linked journal entry"
    );
}

// ---------------------------------------------------------------- item 4: plan_id

const LIB: &str = "def helper(x, y):\n    return x + y\n";
const B: &str = "from pkg.a import helper\n\nprint(helper(1, 2))\n";
const C: &str = "from pkg.a import helper\n\nprint(helper(41, 1))\n";

fn change_signature(extra: Value) -> Value {
    let mut args = json!({"file_path": "pkg/a.py", "function_name": "helper", "new_parameters": [{"name": "x"}]});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    args
}

fn expected_of(preview: &Value) -> Value {
    let mut expected = serde_json::Map::new();
    for change in preview["data"]["changes"].as_array().unwrap() {
        if let Some(sha) = change["sha256_before"].as_str() {
            expected.insert(change["path"].as_str().unwrap().into(), json!(sha));
        }
    }
    Value::Object(expected)
}

/// The reproduction: a file created after the preview would be rewritten too.
#[test]
fn an_apply_writes_exactly_the_previewed_plan() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pkg/__init__.py", b"");
    write(root, "pkg/a.py", LIB.as_bytes());
    write(root, "pkg/b.py", B.as_bytes());
    let ts = ["--backend", "tree-sitter"];
    let (preview, code) = home.call(
        root,
        "refactor_change_signature",
        &change_signature(json!({})),
        &ts,
    );
    assert_eq!(code, 0, "{preview}");
    let plan_id = preview["data"]["plan_id"].as_str().unwrap().to_string();
    assert_eq!(plan_id.len(), 64);
    let expected = expected_of(&preview);
    write(root, "pkg/c.py", C.as_bytes());

    for (guard, param) in [
        (json!({"expected_sha256": expected}), "expected_sha256"),
        (json!({"plan_id": plan_id}), "plan_id"),
    ] {
        let mut args = json!({"dry_run": false, "verify": false});
        for (k, v) in guard.as_object().unwrap() {
            args[k] = v.clone();
        }
        let (envelope, code) = home.call(
            root,
            "refactor_change_signature",
            &change_signature(args),
            &ts,
        );
        assert_eq!(code, 4, "{envelope}");
        assert_eq!(envelope["error"]["code"], "stale_file");
        assert_eq!(envelope["error"]["param"], param);
        let message = envelope["error"]["message"].as_str().unwrap();
        assert!(message.contains("pkg/c.py"), "{message}");
        assert!(message.contains("nothing was written"), "{message}");
        for (path, text) in [("pkg/a.py", LIB), ("pkg/b.py", B), ("pkg/c.py", C)] {
            assert_eq!(
                std::fs::read_to_string(root.join(path)).unwrap(),
                text,
                "{path}"
            );
        }
    }

    // The new preview, applied with its own plan_id, writes all three.
    let (preview, _) = home.call(
        root,
        "refactor_change_signature",
        &change_signature(json!({})),
        &ts,
    );
    let plan_id = preview["data"]["plan_id"].as_str().unwrap();
    let (envelope, code) = home.call(
        root,
        "refactor_change_signature",
        &change_signature(json!({"dry_run": false, "verify": false, "plan_id": plan_id})),
        &ts,
    );
    assert_eq!(code, 0, "{envelope}");
    assert_eq!(envelope["data"]["plan_id"], plan_id);
    assert!(
        std::fs::read_to_string(root.join("pkg/c.py"))
            .unwrap()
            .contains("helper(41)")
    );
}

// ---------------------------------------------------------------- item 5: undo progresses

/// Writes a pending (interrupted) transaction by hand: its journal entry is published, `written`
/// files hold the new bytes, and nothing is committed — the state a crash mid-write leaves.
fn interrupted(root: &Path, changes: &[FileChange], written: usize) -> String {
    use candor::workspace::journal::{FileRecord, Journal, Kind, NewEntry};
    let journal = Journal::open(&Root::new(root).unwrap()).unwrap();
    let befores: Vec<Vec<u8>> = changes.iter().map(FileChange::before_bytes).collect();
    let manifest = journal
        .begin(
            NewEntry {
                kind: Kind::Apply,
                tool: Some(Tool::InlineFunction.name().to_string()),
                undoes: None,
                files: changes
                    .iter()
                    .map(|c| FileRecord {
                        path: c.path.clone(),
                        sha256_before: c.sha256_before.clone(),
                        sha256_after: Some(c.sha256_after.clone()),
                    })
                    .collect(),
                images: befores.iter().map(|b| Some(b.as_slice())).collect(),
                after_images: Vec::new(),
                created_dirs: Vec::new(),
            },
            &|| {},
        )
        .unwrap();
    for change in &changes[..written] {
        std::fs::write(root.join(&change.path), change.after_bytes()).unwrap();
    }
    manifest.id
}

#[test]
fn undo_always_progresses_and_says_why_when_it_cannot() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for (path, text) in [
        ("a.py", "x = 1\n"),
        ("b.py", "y = 1\n"),
        ("c.py", "z = 1\n"),
    ] {
        write(root, path, text.as_bytes());
    }
    // An earlier, committed refactor…
    let earlier = common::modify(root, "c.py", &[("1", "2")]);
    candor::workspace::write::apply(
        &Root::new(root).unwrap(),
        std::slice::from_ref(&earlier),
        &Default::default(),
        Tool::ExtractFunction,
    )
    .unwrap();
    // …then a write that crashed after writing both files: one became a directory since, and
    // the other's before-image is gone.
    let changes = [
        common::modify(root, "a.py", &[("1", "10")]),
        common::modify(root, "b.py", &[("1", "10")]),
    ];
    let id = interrupted(root, &changes, 2);
    std::fs::remove_file(root.join("a.py")).unwrap();
    std::fs::create_dir(root.join("a.py")).unwrap();
    std::fs::remove_file(root.join(format!(".candor/journal/{id}/before/1"))).unwrap();

    let root_arg = root.to_str().unwrap();
    let first = home.candor(root, &["undo", "--root", root_arg]);
    let text = stdout(&first);
    assert_eq!(first.status.code(), Some(5), "{text}{}", stderr(&first));
    assert!(text.contains("a.py") && text.contains("b.py"), "{text}");
    assert!(text.contains("NOT restored"), "{text}");
    assert!(text.contains("moves on"), "{text}");
    // The next undo moves on to the committed refactor before it.
    let second = home.candor(root, &["undo", "--root", root_arg]);
    assert_eq!(
        second.status.code(),
        Some(0),
        "{}{}",
        stdout(&second),
        stderr(&second)
    );
    assert_eq!(
        std::fs::read_to_string(root.join("c.py")).unwrap(),
        "z = 1\n"
    );
    let third = home.candor(root, &["undo", "--root", root_arg]);
    assert_eq!(
        third.status.code(),
        Some(3),
        "nothing left: {}",
        stderr(&third)
    );
    let history = stdout(&home.candor(root, &["undo", "--list", "--root", root_arg]));
    assert!(history.contains("rolled back, except"), "{history}");
}

#[test]
fn undo_counts_files_put_back_by_hand_and_undoes_a_given_transaction() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app.py", APP.as_bytes());
    write(root, "other.py", b"def f(a, b):\n    return a\n\nf(1, 2)\n");
    let ts = ["--backend", "tree-sitter"];
    let root_arg = root.to_str().unwrap();
    let (first, code) = home.call(
        root,
        "refactor_inline_function",
        &json!({"file_path": "app.py", "function_name": "helper", "dry_run": false, "verify": false}),
        &ts,
    );
    assert_eq!(code, 0, "{first}");
    let first_id = first["data"]["transaction_id"]
        .as_str()
        .unwrap()
        .to_string();
    let (second, code) = home.call(
        root,
        "refactor_change_signature",
        &json!({"file_path": "other.py", "function_name": "f", "new_parameters": [{"name": "a"}], "dry_run": false, "verify": false}),
        &ts,
    );
    assert_eq!(code, 0, "{second}");
    // `git checkout -- other.py`: the file is back as it was before the refactor.
    write(root, "other.py", b"def f(a, b):\n    return a\n\nf(1, 2)\n");
    let out = home.candor(root, &["undo", "--root", root_arg]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
    assert!(stdout(&out).contains("already held"), "{}", stdout(&out));
    // --id undoes the one named; it is then undone, and says so.
    let out = home.candor(root, &["undo", "--id", &first_id, "--root", root_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(root.join("app.py")).unwrap(), APP);
    let out = home.candor(root, &["undo", "--id", &first_id, "--root", root_arg]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(stderr(&out).contains("already undone"), "{}", stderr(&out));
    let out = home.candor(root, &["undo", "--id", "999999-x", "--root", root_arg]);
    assert_eq!(out.status.code(), Some(3));
    // undo takes only what it uses.
    let help = stdout(&home.candor(root, &["undo", "--help"]));
    assert!(
        help.contains("--id") && !help.contains("--backend"),
        "{help}"
    );
}

// ---------------------------------------------------------------- item 7: recovery reported

#[test]
fn a_preview_rolls_back_an_interrupted_write_first_and_says_so() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app.py", APP.as_bytes());
    write(root, "b.py", b"y = 1\n");
    let changes = [
        common::modify(root, "app.py", &[("return a", "return a * 2")]),
        common::modify(root, "b.py", &[("1", "2")]),
    ];
    let id = interrupted(root, &changes, 1);
    let (envelope, code) = home.call(
        root,
        "refactor_inline_function",
        &json!({"file_path": "app.py", "function_name": "helper"}),
        &["--backend", "tree-sitter"],
    );
    assert_eq!(code, 0, "{envelope}");
    let recovered = &envelope["data"]["recovered"][0];
    assert_eq!(recovered["transaction"], id.as_str());
    assert_eq!(recovered["restored"], json!(["app.py"]));
    let findings = envelope["data"]["findings"].to_string();
    assert!(findings.contains("rolled back"), "{findings}");
    // The preview was computed on the restored file, not the half-written one.
    assert_eq!(
        envelope["data"]["changes"][0]["sha256_before"],
        sha256_hex(APP.as_bytes())
    );
    assert_eq!(std::fs::read_to_string(root.join("app.py")).unwrap(), APP);
}

// ---------------------------------------------------------------- item 8: the smaller ones

#[test]
fn malformed_arguments_are_typed_errors_with_exit_2() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app.py", APP.as_bytes());
    let ts = ["--backend", "tree-sitter"];
    let extract = json!({"file_path": "app.py", "start_line": 2, "end_line": 2, "new_name": "g", "line": {"x": 1}});
    let moved = |target: &str| json!({"file_path": "app.py", "symbol_name": "helper", "target_file": target});
    let cases = [
        ("refactor_extract_function", extract, "line"),
        (
            "refactor_change_signature",
            json!({"file_path": "app.py", "function_name": "helper", "new_parameters": [{"name": "a"}, {"name": "b", "default": ""}]}),
            "new_parameters",
        ),
        (
            "refactor_inline_function",
            json!({"file_path": "app\u{0}.py", "function_name": "helper"}),
            "file_path",
        ),
        ("refactor_move_to_file", moved("."), "target_file"),
        (
            "refactor_move_to_file",
            moved("new\nfile.py"),
            "target_file",
        ),
        (
            "refactor_move_to_file",
            moved("\u{1b}[31mred.py"),
            "target_file",
        ),
    ];
    for (tool, args, param) in cases {
        let (envelope, code) = home.call(root, tool, &args, &ts);
        assert_eq!(
            (
                envelope["error"]["code"].as_str(),
                envelope["error"]["param"].as_str(),
                code
            ),
            (Some("invalid_argument"), Some(param), 2),
            "{tool} {args}: {envelope}"
        );
    }
    assert_eq!(
        std::fs::read_dir(root).unwrap().count(),
        1,
        "nothing created"
    );
}

#[test]
fn undo_list_prints_no_control_characters() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let name = "a\u{1b}[2Jb\nc.py";
    write(root, name, b"x = 1\n");
    // Through the library: the writer takes any name inside the root; the CLI must not print it raw.
    candor::workspace::write::apply(
        &Root::new(root).unwrap(),
        &[common::modify(root, name, &[("1", "2")])],
        &Default::default(),
        Tool::ExtractFunction,
    )
    .unwrap();
    let out = home.candor(root, &["undo", "--list", "--root", root.to_str().unwrap()]);
    let text = stdout(&out);
    assert!(!text.contains('\u{1b}'), "raw escape printed: {text:?}");
    assert!(text.contains("a\\u{1b}[2Jb\\nc.py"), "{text:?}");
    assert_eq!(text.lines().count(), 2, "one header, one entry: {text:?}");
}

#[test]
fn a_file_replaced_by_a_directory_after_the_preview_is_stale() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app.py", APP.as_bytes());
    write(root, "b.py", b"from app import helper\nhelper(2)\n");
    let ts = ["--backend", "tree-sitter"];
    let args = json!({"file_path": "app.py", "function_name": "helper"});
    let (preview, _) = home.call(root, "refactor_inline_function", &args, &ts);
    let expected = expected_of(&preview);
    std::fs::remove_file(root.join("b.py")).unwrap();
    std::fs::create_dir(root.join("b.py")).unwrap();
    let mut apply = args.clone();
    apply["dry_run"] = json!(false);
    apply["verify"] = json!(false);
    apply["expected_sha256"] = expected;
    let (envelope, code) = home.call(root, "refactor_inline_function", &apply, &ts);
    assert_eq!(
        (envelope["error"]["code"].as_str(), code),
        (Some("stale_file"), 4),
        "{envelope}"
    );
    assert_eq!(std::fs::read_to_string(root.join("app.py")).unwrap(), APP);
}

#[test]
fn a_linked_folder_and_a_skipped_file_are_listed_once() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/a.py", LIB.as_bytes());
    write(root, "src/b.py", b"from a import helper\nhelper(1, 2)\n");
    write(root, "src/bin.py", b"helper(3, 4)\n\0\0");
    std::os::unix::fs::symlink("src", root.join("lib")).unwrap();
    let (envelope, code) = home.call(
        root,
        "refactor_change_signature",
        &json!({"file_path": "lib/a.py", "function_name": "helper", "new_parameters": [{"name": "x"}]}),
        &["--backend", "tree-sitter"],
    );
    assert_eq!(code, 0, "{envelope}");
    let mut paths: Vec<&str> = envelope["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["path"].as_str().unwrap())
        .collect();
    paths.sort();
    assert_eq!(paths, vec!["src/a.py", "src/b.py"], "each file once");
    let about_bin = envelope["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["message"].as_str().unwrap().contains("bin.py"))
        .count();
    assert_eq!(about_bin, 1, "{}", envelope["data"]["findings"]);
}

#[test]
fn a_hard_linked_file_is_never_split_silently() {
    let home = Home::new();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app.py", APP.as_bytes());
    std::fs::hard_link(root.join("app.py"), root.join("copy.py")).unwrap();
    let args = json!({"file_path": "app.py", "function_name": "helper"});
    let ts = ["--backend", "tree-sitter"];
    let (preview, _) = home.call(root, "refactor_inline_function", &args, &ts);
    let findings = preview["data"]["findings"].to_string();
    assert!(findings.contains("2 hard links"), "{findings}");
    let mut apply = args.clone();
    apply["dry_run"] = json!(false);
    apply["verify"] = json!(false);
    let (applied, code) = home.call(root, "refactor_inline_function", &apply, &ts);
    assert_eq!(code, 0, "{applied}");
    assert!(
        applied["data"]["findings"]
            .to_string()
            .contains("hard links")
    );
    assert_ne!(std::fs::read_to_string(root.join("app.py")).unwrap(), APP);
    assert_eq!(
        std::fs::read_to_string(root.join("copy.py")).unwrap(),
        APP,
        "the other name keeps its content, as the warning said"
    );
}
