//! The undo journal is not trusted because it is in the project: with the real git, a repository
//! that commits a pending `.candor/journal/` entry aimed at `.git/config` (its `sha256_after` the
//! predictable hash of a fresh clone's config) and `.git/hooks/pre-commit` gets neither written by
//! the victim's first dry-run preview — the entry is not signed with the user's journal key, is
//! reported as ignored and set aside. And even an entry signed with the user's key never writes
//! inside `.git/`.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use candor::edit::sha256_hex;
use candor::workspace::journal_key::Key;
use serde_json::{Value, json};

const APP: &str = "def helper(a, b):\n    return a + b\n\n\ndef main():\n    x = 1\n    print(x)\n    return helper(x, 2)\n";

fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("HOME", dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

const ID: &str = "000001-20260101T000000Z";

/// Writes a pending journal entry under `root` restoring `files` (path, before bytes, the
/// sha256 the file holds "after"), signed with `key` when given.
fn plant_entry(root: &Path, files: &[(&str, &[u8], Option<String>)], key: Option<&Key>) {
    let entry = root.join(".candor/journal").join(ID);
    std::fs::create_dir_all(entry.join("before")).unwrap();
    let mut records = Vec::new();
    for (index, (path, before, after)) in files.iter().enumerate() {
        std::fs::write(entry.join("before").join(index.to_string()), before).unwrap();
        records.push(json!({
            "path": path, "sha256_before": sha256_hex(before), "sha256_after": after,
        }));
    }
    let manifest = serde_json::to_vec_pretty(&json!({
        "format": 1, "id": ID, "seq": 1, "time_unix": 1_767_225_600u64, "kind": "apply",
        "tool": "refactor_inline_function", "undoes": null, "files": records, "created_dirs": [],
    }))
    .unwrap();
    std::fs::write(entry.join("manifest.json"), &manifest).unwrap();
    if let Some(key) = key {
        std::fs::write(entry.join("manifest.mac"), key.mac(&manifest)).unwrap();
    }
}

fn preview(root: &Path, state: &Path) -> Value {
    let args = json!({"file_path": "app.py", "function_name": "helper"});
    let out = Command::new(common::candor_bin())
        .args([
            "call",
            "refactor_inline_function",
            &args.to_string(),
            "--root",
            root.to_str().unwrap(),
        ])
        .env("CANDOR_BACKEND", "tree-sitter")
        .env("XDG_CONFIG_HOME", state.join("config"))
        .env("XDG_STATE_HOME", state.join("state"))
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

struct Repo {
    _dir: tempfile::TempDir,
    base: PathBuf,
}

/// An origin repository with `app.py`, and the sha256 of the `.git/config` of a fresh clone of it.
fn origin() -> (Repo, String) {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().canonicalize().unwrap();
    let origin = base.join("origin");
    std::fs::create_dir(&origin).unwrap();
    std::fs::write(origin.join("app.py"), APP).unwrap();
    git(&origin, &["init", "-q", "-b", "main"]);
    git(&origin, &["add", "."]);
    git(&origin, &["commit", "-q", "-m", "app"]);
    git(&base, &["clone", "-q", "origin", "probe"]);
    let config = std::fs::read(base.join("probe/.git/config")).unwrap();
    (Repo { _dir: dir, base }, sha256_hex(&config))
}

#[test]
fn a_journal_entry_shipped_by_a_repository_is_ignored_and_never_writes_into_git() {
    let (repo, fresh_config) = origin();
    let base = &repo.base;
    let marker = base.join("fsmonitor-ran");
    let evil_config = format!(
        "[core]\n\trepositoryformatversion = 0\n\tfsmonitor = \"touch {}\"\n",
        marker.display()
    );
    let hook = format!("#!/bin/sh\ntouch {}\n", marker.display());
    let origin = base.join("origin");
    plant_entry(
        &origin,
        &[
            (".git/config", evil_config.as_bytes(), Some(fresh_config)),
            (".git/hooks/pre-commit", hook.as_bytes(), None),
        ],
        None,
    );
    git(&origin, &["add", "-f", ".candor"]);
    git(&origin, &["commit", "-q", "-m", "journal"]);

    git(base, &["clone", "-q", "origin", "victim"]);
    let victim = base.join("victim");
    let config_before = std::fs::read(victim.join(".git/config")).unwrap();
    let envelope = preview(&victim, base);
    assert_eq!(envelope["success"], json!(true), "{envelope:#}");
    assert_eq!(
        std::fs::read(victim.join(".git/config")).unwrap(),
        config_before,
        ".git/config was rewritten"
    );
    assert!(
        !victim.join(".git/hooks/pre-commit").exists(),
        "a hook was created"
    );
    git(&victim, &["status", "--porcelain"]);
    assert!(!marker.exists(), "git ran the planted fsmonitor command");

    let said = envelope["data"]["recovered_transactions"].to_string();
    assert!(said.contains(&format!("entry {ID}")), "{said}");
    assert!(
        said.contains("was ignored and nothing was restored"),
        "{said}"
    );
    assert!(said.contains("has no manifest.mac"), "{said}");
    let findings = envelope["data"]["findings"].to_string();
    assert!(findings.contains("was ignored"), "{findings}");
    // Set aside: the next preview says nothing more about it.
    assert!(
        victim
            .join(format!(".candor/journal/.unsigned-{ID}"))
            .is_dir()
    );
    let again = preview(&victim, base);
    assert!(
        again["data"]["recovered_transactions"].is_null(),
        "{again:#}"
    );
}

#[test]
fn a_signed_entry_aimed_into_git_is_refused_too() {
    let (repo, fresh_config) = origin();
    let base = &repo.base;
    git(base, &["clone", "-q", "origin", "victim"]);
    let victim = base.join("victim");
    let key = Key::at(&base.join("state/candor/journal.key"), true).unwrap();
    let config_before = std::fs::read(victim.join(".git/config")).unwrap();
    plant_entry(
        &victim,
        &[
            (
                ".git/config",
                b"[core]\n\tfsmonitor = x\n",
                Some(fresh_config),
            ),
            (".GIT/hooks/pre-commit", b"#!/bin/sh\n", None),
        ],
        Some(&key),
    );
    let envelope = preview(&victim, base);
    assert_eq!(envelope["success"], json!(true), "{envelope:#}");
    assert_eq!(
        std::fs::read(victim.join(".git/config")).unwrap(),
        config_before
    );
    assert!(!victim.join(".git/hooks/pre-commit").exists());
    let said = envelope["data"]["recovered_transactions"].to_string();
    assert!(said.contains("was rolled back"), "{said}");
    assert!(
        said.contains(".git/config: it is inside .git/, the version control's own folder"),
        "{said}"
    );
}
