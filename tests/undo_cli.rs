//! Undo and containment through the real binary: each of the four tools, in Python and in Rust,
//! applied with `candor call … dry_run: false` and undone with `candor undo` gives back every
//! byte; an undo after an outside edit of what the refactor wrote is refused, naming the file and
//! lines in words (the hashes only in `--json`), and one away from it is merged; `candor undo --list` shows the
//! history; paths outside the root (`..`, absolute, symlinks) are refused and nothing outside is
//! written; a binary or oversized file is a clear `invalid_argument`.

mod common;

use serde_json::{Value, json};

use common::{call, candor, project, snapshot};

const PYTHON: &str = "\
def helper(a, b):
    total = a + b
    return total


def main():
    x = 1
    y = 2
    print(x)
    print(y)
    return helper(x, y)
";

const RUST: &str = "\
fn helper(a: i32, b: i32) -> i32 {
    a + b
}

fn main() {
    let x = 1;
    let y = 2;
    println!(\"{}\", x);
    println!(\"{}\", y);
    let _ = helper(x, y);
}
";

/// The four calls of the honesty test, applied.
fn calls(file: &str) -> Vec<(&'static str, Value)> {
    let ext = if file.ends_with(".py") { "py" } else { "rs" };
    let typed = |name: &str| {
        if ext == "rs" {
            json!({"name": name, "type": "i32"})
        } else {
            json!({"name": name})
        }
    };
    vec![
        (
            "refactor_extract_function",
            json!({"file_path": file, "start_line": 8, "end_line": 9, "new_name": "show"}),
        ),
        (
            "refactor_inline_function",
            json!({"file_path": file, "function_name": "helper"}),
        ),
        (
            "refactor_move_to_file",
            json!({"file_path": file, "symbol_name": "helper", "target_file": format!("helpers.{ext}")}),
        ),
        (
            "refactor_change_signature",
            json!({"file_path": file, "function_name": "helper", "new_parameters": [typed("a"), typed("b"), typed("c")]}),
        ),
    ]
}

fn root_arg(dir: &std::path::Path) -> String {
    dir.to_string_lossy().into_owned()
}

#[test]
fn each_tool_in_each_language_applies_and_undoes_byte_for_byte() {
    let mut failures = Vec::new();
    for (file, text) in [("app.py", PYTHON), ("app.rs", RUST)] {
        for (tool, mut args) in calls(file) {
            let dir = project(&[
                (file, text.as_bytes()),
                ("other.py", b"untouched = True\r\n"),
            ]);
            let before = snapshot(dir.path());
            args["dry_run"] = json!(false);
            args["verify"] = json!(false);
            let (envelope, code) = call(dir.path(), tool, &args);
            if code != 0 {
                failures.push(format!(
                    "{tool} on {file}: apply failed: {}",
                    envelope["error"]
                ));
                continue;
            }
            assert_eq!(
                envelope["data"]["applied"], true,
                "{tool} on {file}: {envelope:#}"
            );
            let id = envelope["data"]["transaction_id"]
                .as_str()
                .unwrap_or_else(|| panic!("{tool} on {file}: no transaction_id"));
            assert_ne!(
                snapshot(dir.path()),
                before,
                "{tool} on {file}: nothing was written"
            );

            let list = candor(
                dir.path(),
                &["undo", "--list", "--root", &root_arg(dir.path())],
            );
            let listed = String::from_utf8_lossy(&list.stdout);
            assert!(
                list.status.success() && listed.contains(id) && listed.contains(tool),
                "{tool} on {file}: {listed}"
            );

            let out = candor(dir.path(), &["undo", "--root", &root_arg(dir.path())]);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{tool} on {file}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                String::from_utf8_lossy(&out.stdout).contains(&format!("undid {id}")),
                "{tool} on {file}"
            );
            assert_eq!(
                snapshot(dir.path()),
                before,
                "{tool} on {file}: undo gives back every byte"
            );

            let again = candor(dir.path(), &["undo", "--root", &root_arg(dir.path())]);
            assert_eq!(
                again.status.code(),
                Some(3),
                "{tool} on {file}: nothing left to undo"
            );
            assert!(String::from_utf8_lossy(&again.stderr).contains("nothing to undo"));
        }
    }
    assert!(
        failures.is_empty(),
        "refactors that could not be applied:\n{}",
        failures.join("\n")
    );
}

/// Whether `text` holds something that looks like a sha256 (64 hex digits).
fn has_a_hash(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_hexdigit())
        .any(|word| word.len() >= 64)
}

#[test]
fn undo_is_refused_after_an_edit_of_what_the_refactor_wrote_naming_the_lines_in_words() {
    let mut failures = Vec::new();
    for (file, text) in [("app.py", PYTHON), ("app.rs", RUST)] {
        for (tool, mut args) in calls(file) {
            let dir = project(&[(file, text.as_bytes())]);
            args["dry_run"] = json!(false);
            args["verify"] = json!(false);
            let (envelope, code) = call(dir.path(), tool, &args);
            if code != 0 {
                failures.push(format!(
                    "{tool} on {file}: apply failed: {}",
                    envelope["error"]
                ));
                continue;
            }
            // The first line the refactor wrote in the refactored file, edited by hand.
            let written = std::fs::read_to_string(dir.path().join(file)).unwrap();
            let (line, _) = written
                .lines()
                .zip(text.lines())
                .enumerate()
                .find(|(_, (now, was))| now != was)
                .map(|(i, (now, _))| (i + 1, now))
                .unwrap_or((written.lines().count(), ""));
            let edited: String = written
                .lines()
                .enumerate()
                .map(|(i, l)| {
                    if i + 1 == line {
                        format!("{l} // by hand\n")
                    } else {
                        format!("{l}\n")
                    }
                })
                .collect();
            std::fs::write(dir.path().join(file), &edited).unwrap();
            let after_edit = snapshot(dir.path());
            let out = candor(dir.path(), &["undo", "--root", &root_arg(dir.path())]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(4), "{tool} on {file}: {stderr}");
            assert!(
                stderr.contains(&format!(
                    "{file} changed since candor wrote it: your edit on line {line} touches"
                )),
                "{tool} on {file}: the file and the line, in words: {stderr}"
            );
            assert!(
                !has_a_hash(&stderr) && !stderr.contains("sha256"),
                "{tool} on {file}: no hashes in the sentence: {stderr}"
            );
            assert_eq!(
                snapshot(dir.path()),
                after_edit,
                "{tool} on {file}: a refused undo writes nothing"
            );
            // The hashes are in the JSON report.
            let out = candor(
                dir.path(),
                &["undo", "--json", "--root", &root_arg(dir.path())],
            );
            assert_eq!(out.status.code(), Some(4), "{tool} on {file}");
            let report: Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(report["error"]["code"], "stale_file", "{report:#}");
            let stopped = &report["error"]["files"][0];
            assert_eq!(stopped["path"], file, "{report:#}");
            assert_eq!(stopped["how"], "overlaps", "{report:#}");
            assert_eq!(
                stopped["conflicts"][0]["current"]["first"], line,
                "{report:#}"
            );
            for key in ["sha256_written", "sha256_found"] {
                assert_eq!(stopped[key].as_str().map(str::len), Some(64), "{report:#}");
            }
            assert_eq!(snapshot(dir.path()), after_edit);
        }
    }
    assert!(
        failures.is_empty(),
        "refactors that could not be applied:\n{}",
        failures.join("\n")
    );
}

#[test]
fn undo_keeps_a_later_edit_away_from_what_the_refactor_wrote_and_says_so() {
    let mut failures = Vec::new();
    for (file, text, pad) in [("app.py", PYTHON, "#"), ("app.rs", RUST, "//")] {
        let padded: String = format!(
            "{text}{}",
            (1..=6)
                .map(|i| format!("\n{pad} note {i}"))
                .collect::<String>()
                + "\n"
        );
        for (tool, mut args) in calls(file) {
            let dir = project(&[(file, padded.as_bytes())]);
            let before = snapshot(dir.path());
            args["dry_run"] = json!(false);
            args["verify"] = json!(false); // the writer and undo are tested, not the check
            let (envelope, code) = call(dir.path(), tool, &args);
            if code != 0 {
                failures.push(format!(
                    "{tool} on {file}: apply failed: {}",
                    envelope["error"]
                ));
                continue;
            }
            let path = dir.path().join(file);
            let written = std::fs::read_to_string(&path).unwrap();
            let mine = format!("{pad} note 6, edited after the refactor");
            std::fs::write(&path, written.replace(&format!("{pad} note 6"), &mine)).unwrap();
            let out = candor(dir.path(), &["undo", "--root", &root_arg(dir.path())]);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{tool} on {file}: {stdout}{}",
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(
                stdout.contains(&format!("{file} was edited since candor wrote it"))
                    && stdout.contains("your edits kept"),
                "{tool} on {file}: the undo says it merged: {stdout}"
            );
            let mut expected = before.clone();
            expected.insert(
                file.to_string(),
                padded.replace(&format!("{pad} note 6"), &mine).into_bytes(),
            );
            assert_eq!(
                snapshot(dir.path()),
                expected,
                "{tool} on {file}: the refactor is undone, the later edit kept"
            );
        }
    }
    assert!(
        failures.is_empty(),
        "refactors that could not be applied:\n{}",
        failures.join("\n")
    );
}

#[test]
fn undo_list_and_nothing_to_undo_on_a_fresh_project() {
    let dir = project(&[("app.py", PYTHON.as_bytes())]);
    let list = candor(
        dir.path(),
        &["undo", "--list", "--root", &root_arg(dir.path())],
    );
    assert!(list.status.success());
    assert!(String::from_utf8_lossy(&list.stdout).contains("no transactions"));
    assert!(
        !dir.path().join(".candor").exists(),
        "listing creates nothing"
    );
    let out = candor(dir.path(), &["undo", "--root", &root_arg(dir.path())]);
    assert_eq!(out.status.code(), Some(3));
    assert!(
        !dir.path().join(".candor").exists(),
        "nor does an undo with nothing to undo"
    );
}

#[test]
fn paths_outside_the_root_are_refused_and_nothing_outside_is_written() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.py"), PYTHON).unwrap();
    let dir = project(&[("app.py", PYTHON.as_bytes())]);
    std::os::unix::fs::symlink(outside.path().join("secret.py"), dir.path().join("link.py"))
        .unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("linkdir")).unwrap();
    let outside_before = snapshot(outside.path());
    let inside_before = snapshot(dir.path());
    let absolute = outside
        .path()
        .join("secret.py")
        .to_string_lossy()
        .into_owned();
    let absolute_target = outside.path().join("new.py").to_string_lossy().into_owned();
    let cases = [
        (
            "refactor_inline_function",
            json!({"file_path": "../secret.py", "function_name": "helper"}),
            "file_path",
        ),
        (
            "refactor_inline_function",
            json!({"file_path": absolute, "function_name": "helper"}),
            "file_path",
        ),
        (
            "refactor_inline_function",
            json!({"file_path": "link.py", "function_name": "helper"}),
            "file_path",
        ),
        (
            "refactor_extract_function",
            json!({"file_path": "linkdir/secret.py", "start_line": 8, "end_line": 9, "new_name": "show"}),
            "file_path",
        ),
        (
            "refactor_move_to_file",
            json!({"file_path": "app.py", "symbol_name": "helper", "target_file": "../x.py"}),
            "target_file",
        ),
        (
            "refactor_move_to_file",
            json!({"file_path": "app.py", "symbol_name": "helper", "target_file": absolute_target}),
            "target_file",
        ),
        (
            "refactor_move_to_file",
            json!({"file_path": "app.py", "symbol_name": "helper", "target_file": "linkdir/new.py"}),
            "target_file",
        ),
        (
            "refactor_move_to_file",
            json!({"file_path": "app.py", "symbol_name": "helper", "target_file": "linkdir/deeper/new.py"}),
            "target_file",
        ),
        (
            "refactor_change_signature",
            json!({"file_path": "app.py", "function_name": "helper", "new_parameters": [], "expected_sha256": {"../secret.py": "0".repeat(64)}}),
            "expected_sha256",
        ),
    ];
    for (tool, mut args, param) in cases {
        args["dry_run"] = json!(false);
        args["verify"] = json!(false); // the writer and undo are tested, not the check
        let (envelope, code) = call(dir.path(), tool, &args);
        assert_eq!(
            envelope["error"]["code"], "outside_root",
            "{args}: {envelope:#}"
        );
        assert_eq!(envelope["error"]["param"], param, "{args}: {envelope:#}");
        assert_eq!(code, 2, "{args}");
        assert!(
            envelope["error"]["message"]
                .as_str()
                .unwrap()
                .contains("outside the project root")
        );
    }
    assert_eq!(
        snapshot(outside.path()),
        outside_before,
        "nothing outside the root was written"
    );
    assert_eq!(snapshot(dir.path()), inside_before, "nothing inside either");
}

#[test]
fn binary_oversized_and_non_utf8_files_are_clear_errors() {
    let big = format!("{PYTHON}{}", "x = 1\n".repeat(100));
    let dir = project(&[
        ("bin.py", b"def helper():\n    pass\n\0\0\0"),
        ("latin.py", b"def helper():\n    return 'caf\xe9'\n"),
        ("big.py", big.as_bytes()),
        (".candor/config.toml", b"max_file_bytes = 300\n"),
    ]);
    for (file, words) in [
        ("bin.py", "binary"),
        ("latin.py", "not valid UTF-8 (first invalid byte on line 2)"),
        ("big.py", "over the 300-byte limit"),
    ] {
        let (envelope, code) = call(
            dir.path(),
            "refactor_inline_function",
            &json!({"file_path": file, "function_name": "helper"}),
        );
        assert_eq!(
            envelope["error"]["code"], "invalid_argument",
            "{file}: {envelope:#}"
        );
        assert_eq!(envelope["error"]["param"], "file_path", "{file}");
        assert_eq!(code, 2);
        assert!(
            envelope["error"]["message"]
                .as_str()
                .unwrap()
                .contains(words),
            "{file}: {envelope:#}"
        );
    }
}

#[test]
fn searched_files_that_cannot_be_read_are_findings_not_failures() {
    let dir = project(&[
        ("lib.py", b"def area(w, h):\n    return w * h\n"),
        ("a.py", b"from lib import area\nprint(area(1, 2))\n"),
        ("blob.py", b"area(1, 2)\n\0\0binary"),
    ]);
    let args =
        json!({"file_path": "lib.py", "function_name": "area", "new_parameters": [{"name": "w"}]});
    let (envelope, code) = call(dir.path(), "refactor_change_signature", &args);
    assert_eq!(code, 0, "{envelope:#}");
    let findings = envelope["data"]["findings"].as_array().unwrap();
    assert!(
        findings.iter().any(|f| f["file"] == "blob.py"
            && f["severity"] == "warning"
            && f["message"].as_str().unwrap().contains("was not searched")),
        "{envelope:#}"
    );
}

/// `git status --porcelain` of `dir`, with the real git.
fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .output()
        .expect("git is installed");
    assert!(out.status.success(), "git {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn the_candor_folder_stays_out_of_git_status_but_a_config_file_there_does_not() {
    let dir = project(&[("app.py", PYTHON.as_bytes())]);
    git(dir.path(), &["init", "-q"]);
    git(dir.path(), &["add", "app.py"]);
    git(
        dir.path(),
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-qm",
            "start",
        ],
    );
    let (_, args) = calls("app.py").remove(1);
    let mut args = args;
    args["dry_run"] = json!(false);
    args["verify"] = json!(false); // the writer and undo are tested, not the check
    let (envelope, code) = call(dir.path(), "refactor_inline_function", &args);
    assert_eq!(code, 0, "{envelope:#}");
    assert!(dir.path().join(".candor/journal").is_dir());
    // Only the refactored file, not `.candor/`.
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), " M app.py\n");
    // A project config file there is for the project: git sees it.
    std::fs::write(dir.path().join(".candor/config.toml"), "").unwrap();
    assert_eq!(
        git(
            dir.path(),
            &["status", "--porcelain", "--untracked-files=all"]
        ),
        " M app.py\n?? .candor/config.toml\n"
    );
    // The file an older candor wrote is replaced at the next write.
    std::fs::remove_file(dir.path().join(".candor/config.toml")).unwrap();
    std::fs::write(
        dir.path().join(".candor/.gitignore"),
        "# written by candor: its undo journal and lock\njournal/\nlock\n",
    )
    .unwrap();
    assert_eq!(
        git(dir.path(), &["status", "--porcelain"]),
        " M app.py\n?? .candor/\n"
    );
    let out = candor(dir.path(), &["undo", "--root", &root_arg(dir.path())]);
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(git(dir.path(), &["status", "--porcelain"]), "");
}
