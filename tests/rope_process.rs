//! The rope helper's process management, with fake interpreters (shell scripts that speak the
//! helper's protocol, or not): a request that hangs is killed after `request_timeout_secs` and
//! the next request starts a new helper; a helper that dies says how; its stderr never reaches
//! candor's output. No rope needed (tests/rope_real.rs has the real one).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use candor::api::Engine;
use candor::config::{Config, ConfigSource, LspConfig, RopeConfig};
use candor::workspace::Root;
use serde_json::{Value, json};

/// A project with a module to move things out of.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("pkg")).unwrap();
    std::fs::write(dir.path().join("pkg/__init__.py"), "").unwrap();
    std::fs::write(
        dir.path().join("pkg/a.py"),
        "def helper(x):\n    return x + 1\n\n\ndef user():\n    return helper(1)\n",
    )
    .unwrap();
    dir
}

/// An executable script at `dir/name`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// A fake interpreter that greets like the helper, writes to stderr, records its pid in
/// `starts`, and then never answers.
fn hanging_python(dir: &Path) -> (PathBuf, PathBuf) {
    let starts = dir.join("starts");
    let python = script(
        dir,
        "hanging-python",
        &format!(
            "#!/bin/sh\necho $$ >> {}\necho 'HELPER STDERR NOISE' >&2\nprintf '%s\\n' '{{\"event\": \"ready\", \"rope\": \"0-fake\", \"python\": \"3\", \"executable\": \"fake\"}}'\nexec sleep 600\n",
            starts.display()
        ),
    );
    (python, starts)
}

fn engine(root: &Path, python: &Path) -> Engine {
    let config = Config {
        lsp: LspConfig {
            request_timeout_secs: Some(1),
            ..LspConfig::default()
        },
        rope: RopeConfig {
            python: Some(python.display().to_string()),
            source: ConfigSource::User,
        },
        ..Config::default()
    };
    Engine::with_config(Root::new(root).unwrap(), config, None)
}

fn move_args(backend: &str) -> Value {
    json!({"file_path": "pkg/a.py", "symbol_name": "helper", "target_file": "pkg/b.py", "semantic_edit_backend": backend})
}

fn alive(pid: &str) -> bool {
    Path::new("/proc").join(pid.trim()).exists()
}

#[test]
fn a_hanging_request_is_killed_and_the_next_one_starts_a_new_helper() {
    let project = project();
    let scratch = tempfile::tempdir().unwrap();
    let (python, starts) = hanging_python(scratch.path());
    let engine = engine(project.path(), &python);

    let strict = engine.call_json("refactor_move_to_file", &move_args("lsp"));
    assert_eq!(
        strict.envelope["error"]["code"], "lsp",
        "{:#}",
        strict.envelope
    );
    let message = strict.envelope["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with("the rope helper timed out after 1 s on move"),
        "{message}"
    );
    let first: Vec<String> = std::fs::read_to_string(&starts)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(first.len(), 1);
    assert!(!alive(&first[0]), "the hanging helper was killed");

    // The next request starts a new helper; under `auto` the timeout is the fallback reason.
    let auto = engine.call_json("refactor_move_to_file", &move_args("auto"));
    assert_eq!(auto.envelope["success"], true, "{:#}", auto.envelope);
    assert_eq!(auto.envelope["backend_used"], "hybrid");
    assert!(
        auto.envelope["data"]["fallback_reason"]
            .as_str()
            .unwrap()
            .starts_with("the rope helper timed out after 1 s on move"),
        "{:#}",
        auto.envelope
    );
    let all: Vec<String> = std::fs::read_to_string(&starts)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(all.len(), 2, "a new helper for the second request");
    assert!(all.iter().all(|pid| !alive(pid)));
    assert_eq!(
        std::fs::read_to_string(project.path().join("pkg/a.py")).unwrap(),
        "def helper(x):\n    return x + 1\n\n\ndef user():\n    return helper(1)\n",
        "nothing was written"
    );
}

#[test]
fn a_helper_that_dies_says_how_and_one_without_rope_says_so() {
    let project = project();
    let scratch = tempfile::tempdir().unwrap();
    let dying = script(
        scratch.path(),
        "dying-python",
        "#!/bin/sh\nprintf '%s\\n' '{\"event\": \"ready\", \"rope\": \"0-fake\", \"python\": \"3\", \"executable\": \"fake\"}'\nread request\necho 'Fatal Python error: Segmentation fault' >&2\nexit 3\n",
    );
    let died = engine(project.path(), &dying).call_json("refactor_move_to_file", &move_args("lsp"));
    let message = died.envelope["error"]["message"].as_str().unwrap();
    assert!(
        message.starts_with(
            "the rope helper exited during move (exit status 3: Fatal Python error: Segmentation fault)"
        ),
        "{message}"
    );
    let no_rope = script(
        scratch.path(),
        "python-without-rope",
        "#!/bin/sh\nprintf '%s\\n' '{\"event\": \"unavailable\", \"message\": \"ModuleNotFoundError: No module named rope\"}'\n",
    );
    let unavailable =
        engine(project.path(), &no_rope).call_json("refactor_move_to_file", &move_args("auto"));
    let reason = unavailable.envelope["data"]["fallback_reason"]
        .as_str()
        .unwrap();
    assert!(
        reason.contains("(rope.python in your config file) cannot import rope (ModuleNotFoundError: No module named rope)"),
        "{reason}"
    );
    assert!(
        reason.contains("fix rope.python in the config file"),
        "{reason}"
    );
    let missing = engine(project.path(), &scratch.path().join("no-such-python"))
        .call_json("refactor_move_to_file", &move_args("auto"));
    let reason = missing.envelope["data"]["fallback_reason"]
        .as_str()
        .unwrap();
    assert!(reason.contains("could not start"), "{reason}");
}

#[test]
fn the_helper_s_stderr_never_reaches_candor_s_output() {
    let project = project();
    let scratch = tempfile::tempdir().unwrap();
    let (python, _) = hanging_python(scratch.path());
    let config_dir = scratch.path().join("config");
    std::fs::create_dir_all(config_dir.join("candor")).unwrap();
    std::fs::write(
        config_dir.join("candor/config.toml"),
        format!(
            "[lsp]\nrequest_timeout_secs = 1\n\n[rope]\npython = {:?}\n",
            python.display().to_string()
        ),
    )
    .unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args([
            "call",
            "refactor_move_to_file",
            &move_args("auto").to_string(),
            "--root",
        ])
        .arg(project.path())
        .env("XDG_CONFIG_HOME", &config_dir)
        .env_remove("CANDOR_BACKEND")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}{stderr}");
    assert!(
        !stdout.contains("NOISE") && !stderr.contains("NOISE"),
        "{stdout}{stderr}"
    );
    let envelope: Value = serde_json::from_str(&stdout).unwrap();
    assert!(
        envelope["data"]["fallback_reason"]
            .as_str()
            .unwrap()
            .contains("timed out"),
        "{envelope:#}"
    );
}

#[test]
fn a_project_config_cannot_choose_the_interpreter_of_an_untrusted_project() {
    let project = project();
    let scratch = tempfile::tempdir().unwrap();
    let marker = scratch.path().join("PWNED");
    let evil = script(
        scratch.path(),
        "evil-python",
        &format!("#!/bin/sh\ntouch {}\nexit 1\n", marker.display()),
    );
    std::fs::create_dir_all(project.path().join(".candor")).unwrap();
    std::fs::write(
        project.path().join(".candor/config.toml"),
        format!("[rope]\npython = {:?}\n", evil.display().to_string()),
    )
    .unwrap();
    let engine = Engine::open(project.path(), None).unwrap();
    let response = engine.call_json("refactor_move_to_file", &move_args("auto"));
    assert_eq!(
        response.envelope["success"], true,
        "{:#}",
        response.envelope
    );
    assert!(!marker.exists(), "the project's interpreter ran");
    let reason = response.envelope["data"]["fallback_reason"]
        .as_str()
        .unwrap();
    assert!(
        reason.starts_with("candor does not run `")
            && reason.contains("rope.python in the project's .candor/config.toml"),
        "{reason}"
    );
    assert!(reason.contains("candor trust"), "{reason}");
    let strict = engine.call_json("refactor_move_to_file", &move_args("lsp"));
    assert_eq!(
        strict.envelope["error"]["code"], "lsp",
        "{:#}",
        strict.envelope
    );
    assert!(!marker.exists(), "the project's interpreter ran");
}

/// `candor` with its own user config folder.
fn candor_in(config_home: &Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(args)
        .env("XDG_CONFIG_HOME", config_home)
        .env_remove("CANDOR_BACKEND")
        .output()
        .unwrap()
}

#[test]
fn a_trusted_project_s_venv_runs_rope_and_an_untrusted_one_s_does_not() {
    let project = project();
    let root = project.path();
    let scratch = tempfile::tempdir().unwrap();
    let starts = scratch.path().join("venv-starts");
    std::fs::create_dir_all(root.join(".venv/bin")).unwrap();
    script(
        &root.join(".venv/bin"),
        "python",
        &format!(
            "#!/bin/sh\necho started >> {}\nprintf '%s\\n' '{{\"event\": \"unavailable\", \"message\": \"the venv has no rope\"}}'\n",
            starts.display()
        ),
    );
    let config_home = scratch.path().join("config");
    std::fs::create_dir_all(&config_home).unwrap();
    let call = |config_home: &Path| -> Value {
        let out = candor_in(
            config_home,
            &[
                "call",
                "refactor_move_to_file",
                &move_args("auto").to_string(),
                "--root",
                root.to_str().unwrap(),
            ],
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };

    let untrusted = call(&config_home);
    assert!(!starts.exists(), "an untrusted project's .venv never runs");
    assert_eq!(untrusted["success"], true, "{untrusted:#}");

    let trusted = candor_in(&config_home, &["trust", root.to_str().unwrap()]);
    assert!(
        trusted.status.success(),
        "{}",
        String::from_utf8_lossy(&trusted.stderr)
    );
    let envelope = call(&config_home);
    assert_eq!(
        std::fs::read_to_string(&starts)
            .unwrap_or_default()
            .lines()
            .count(),
        1,
        "the trusted project's .venv is the first interpreter tried"
    );
    // This .venv has no rope: the answer says so (and PATH may still have it).
    if envelope["backend_used"] == "hybrid" {
        assert!(
            envelope["data"]["fallback_reason"]
                .as_str()
                .unwrap()
                .contains("the project's .venv"),
            "{envelope:#}"
        );
    }
}

fn git(dir: &Path, args: &[&str]) {
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
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn another_repository_cloned_where_a_trusted_one_was_is_untrusted_and_its_venv_never_runs() {
    let scratch = tempfile::tempdir().unwrap();
    let base = scratch.path().canonicalize().unwrap();
    let config_home = base.join("config");
    std::fs::create_dir_all(&config_home).unwrap();
    // Two repositories with the same files, no .candor/config.toml in either; each .venv's python
    // records that it ran.
    for (name, marker) in [("good", "good-ran"), ("evil", "evil-ran")] {
        let repo = base.join(name);
        let source = project();
        std::fs::create_dir_all(repo.join("pkg")).unwrap();
        for file in ["pkg/__init__.py", "pkg/a.py"] {
            std::fs::copy(source.path().join(file), repo.join(file)).unwrap();
        }
        std::fs::create_dir_all(repo.join(".venv/bin")).unwrap();
        script(
            &repo.join(".venv/bin"),
            "python",
            &format!(
                "#!/bin/sh\necho started >> {}\nprintf '%s\\n' '{{\"event\": \"unavailable\", \"message\": \"the venv has no rope\"}}'\n",
                base.join(marker).display()
            ),
        );
        git(&repo, &["init", "-q", "-b", "main"]);
        git(&repo, &["add", "-f", "."]);
        git(&repo, &["commit", "-q", "-m", name]);
    }
    let work = base.join("work");
    git(&base, &["clone", "-q", "good", "work"]);
    let call = || -> Value {
        let out = candor_in(
            &config_home,
            &[
                "call",
                "refactor_move_to_file",
                &move_args("auto").to_string(),
                "--root",
                work.to_str().unwrap(),
            ],
        );
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let trusted = candor_in(&config_home, &["trust", work.to_str().unwrap()]);
    assert!(trusted.status.success(), "{trusted:?}");
    assert_eq!(call()["success"], true);
    assert!(
        base.join("good-ran").exists(),
        "the trusted clone's .venv runs"
    );

    // The old folder is held open while it is replaced, so the file system cannot give its inode
    // number to the new one (where birth times are not recorded, that reuse is not seen).
    let old = std::fs::File::open(&work).unwrap();
    std::fs::remove_dir_all(&work).unwrap();
    git(&base, &["clone", "-q", "evil", "work"]);
    let envelope = call();
    drop(old);
    assert_eq!(envelope["success"], true, "{envelope:#}");
    assert!(
        !base.join("evil-ran").exists(),
        "the .venv of another repository cloned to the trusted path ran"
    );
    let listed = candor_in(&config_home, &["trust", "--list"]);
    let listed = String::from_utf8_lossy(&listed.stdout);
    assert!(listed.contains(work.to_str().unwrap()), "{listed}");
}
