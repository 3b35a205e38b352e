//! The language-server client against a scripted mock server (`tests/support/mock_lsp.py`):
//! framing (messages split across reads, several per read, non-ASCII bodies), code action
//! resolve and rename, executeCommand answered through a workspace/applyEdit round trip,
//! timeouts, a crash in the middle of a request, a server that never gets ready, edits outside
//! the project, and a noisy stderr that must never reach candor's own output.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use candor::backend::lsp::{LspFailure, LspPool, LspSettings, ServerOverride, ServerStatus};
use candor::backend::{self, BackendChoice, BackendError};
use candor::honesty::BackendKind;
use candor::lang::Language;
use candor::refactor::{ExtractRequest, Request};
use candor::workspace::{DiskSources, Limits, Root};
use serde_json::{Value, json};

fn python() -> String {
    std::env::var("CANDOR_TEST_PYTHON").unwrap_or_else(|_| "python3".to_string())
}

fn mock_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/support/mock_lsp.py")
}

fn mock(scenario: &str, pid_file: Option<&Path>) -> ServerOverride {
    let mut args = vec![
        mock_script().to_string_lossy().into_owned(),
        scenario.to_string(),
    ];
    if let Some(pid_file) = pid_file {
        args.push(pid_file.to_string_lossy().into_owned());
    }
    ServerOverride {
        command: Some(python()),
        args,
    }
}

struct Project {
    _dir: tempfile::TempDir,
    root: Root,
    sources: DiskSources,
}

fn project(files: &[(&str, &str)]) -> Project {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    let root = Root::new(dir.path()).unwrap();
    let sources = DiskSources::new(root.clone(), Limits::default());
    Project {
        _dir: dir,
        root,
        sources,
    }
}

fn pool(timeout_secs: u64) -> LspPool {
    LspPool::with_settings(LspSettings {
        request_timeout: Duration::from_secs(timeout_secs),
        ..LspSettings::default()
    })
}

fn extract(file: &str, line: usize, new_name: &str) -> Request {
    Request::Extract(ExtractRequest {
        file: file.to_string(),
        start_line: line,
        end_line: line,
        new_name: new_name.to_string(),
    })
}

const RUST: &str = "fn main() {\n    let greeting = \"héllo 😀\";\n    println!(\"{greeting} 😀\");\n    let done = true;\n}\n";
const CARGO: &str = "[package]\nname = \"mock\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";

fn rust_project() -> Project {
    project(&[("Cargo.toml", CARGO), ("src/main.rs", RUST)])
}

fn failure_reason(
    result: Result<candor::backend::lsp::SemanticResult, LspFailure>,
) -> (LspFailure, String) {
    match result {
        Ok(r) => panic!("expected a failure, got {:?}", r.changes),
        Err(failure) => {
            let reason = failure.reason();
            (failure, reason)
        }
    }
}

#[test]
fn code_action_resolve_and_server_rename_with_non_ascii_text() {
    let p = rust_project();
    let pool = pool(20);
    let result = pool
        .plan(
            &p.root,
            &p.sources,
            &extract("src/main.rs", 3, "greet"),
            Language::Rust,
            &mock("resolve", None),
        )
        .unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(result.server.name, "rust-analyzer");
    assert_eq!(result.server.version.as_deref(), Some("mock-1 (ünï)"));
    assert_eq!(result.changes.len(), 1);
    let change = &result.changes[0];
    assert_eq!(change.path, "src/main.rs");
    // The mock's edit, at UTF-16 positions past the emoji, then its rename of `fun_name` (the
    // server renamed the comment too: candor's own rename would have left it).
    assert_eq!(
        change.after,
        "fn main() {\n    let greeting = \"héllo 😀\";\n    greet();\n    let done = true;\n}\n\nfn greet() {\n    // moved into greet\n    println!(\"{greeting} 😀\");\n}\n"
    );
    assert_eq!(change.before, RUST);
    assert_eq!(result.details.to_map()["new_function_name"], "greet");
    assert_eq!(result.details.to_map()["extracted_lines"], "3-3");
    assert_eq!(
        result.details.to_map()["lsp_action"],
        "Extract into function"
    );
    let outcome = result.into_outcome(candor::honesty::Tool::ExtractFunction, Language::Rust);
    assert_eq!(outcome.backend, BackendKind::Lsp);
    assert_eq!(outcome.confidence(), 0.90);
    assert_eq!(pool.status(Language::Rust), ServerStatus::Ready);
    // The file on disk is untouched: the server's edit is only a preview.
    assert_eq!(
        std::fs::read_to_string(p.root.path().join("src/main.rs")).unwrap(),
        RUST
    );

    // The same server answers the next request.
    let again = pool
        .plan(
            &p.root,
            &p.sources,
            &extract("src/main.rs", 4, "finish"),
            Language::Rust,
            &mock("resolve", None),
        )
        .unwrap_or_else(|f| panic!("{f}"));
    assert!(
        again.changes[0].after.contains("    finish();\n"),
        "{}",
        again.changes[0].after
    );
}

#[test]
fn execute_command_gets_its_edit_through_apply_edit() {
    let text = "def main():\n    total = 1\n    print(\"naïve 😀\", total)\n";
    let p = project(&[("app.py", text)]);
    let pool = pool(20);
    let result = pool
        .plan(
            &p.root,
            &p.sources,
            &extract("app.py", 3, "show"),
            Language::Python,
            &mock("command", None),
        )
        .unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(result.server.name, "pylsp");
    assert_eq!(result.details.to_map()["lsp_action"], "Extract method");
    // The mock has no rename: candor renamed `extracted_method` in the syntax tree.
    assert_eq!(
        result.changes[0].after,
        "def main():\n    total = 1\n    show()\n\n\ndef show():\n    print(\"naïve 😀\", total)\n"
    );
    assert!(!p.root.path().join(".ropeproject").exists());
}

#[test]
fn a_request_that_never_returns_times_out_and_the_server_is_replaced() {
    let p = rust_project();
    let pid_file = p.root.path().join("mock.pid");
    let pool = pool(1);
    let started = std::time::Instant::now();
    let (failure, reason) = failure_reason(pool.plan(
        &p.root,
        &p.sources,
        &extract("src/main.rs", 3, "greet"),
        Language::Rust,
        &mock("timeout", Some(&pid_file)),
    ));
    assert!(matches!(failure, LspFailure::Failed(_)), "{failure:?}");
    assert!(
        reason.contains("timed out after 1 s on textDocument/codeAction"),
        "{reason}"
    );
    // Nothing hangs: the timeout, then at most the shutdown grace.
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    let first_pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(
        !Path::new(&format!("/proc/{first_pid}")).exists(),
        "the stuck server {first_pid} was stopped"
    );
    assert!(
        matches!(pool.status(Language::Rust), ServerStatus::Failed(ref r) if r.contains("timed out"))
    );

    // The next request starts a new server.
    let (_, reason) = failure_reason(pool.plan(
        &p.root,
        &p.sources,
        &extract("src/main.rs", 3, "greet"),
        Language::Rust,
        &mock("timeout", Some(&pid_file)),
    ));
    assert!(reason.contains("timed out"), "{reason}");
    let second_pid = std::fs::read_to_string(&pid_file).unwrap();
    assert_ne!(first_pid, second_pid);
}

#[test]
fn a_server_that_crashes_mid_request_is_reported_with_its_stderr() {
    let p = rust_project();
    let pool = pool(20);
    let (failure, reason) = failure_reason(pool.plan(
        &p.root,
        &p.sources,
        &extract("src/main.rs", 3, "greet"),
        Language::Rust,
        &mock("crash", None),
    ));
    assert!(matches!(failure, LspFailure::Failed(_)), "{failure:?}");
    assert!(
        reason.contains("exited during textDocument/codeAction"),
        "{reason}"
    );
    assert!(reason.contains("exit status 3"), "{reason}");
    assert!(
        reason.contains("mock: fatal error while computing code actions"),
        "{reason}"
    );

    // With `lsp` chosen, the failure is an `lsp` error that says what to do.
    let rope = candor::backend::rope::RopeBackend::default();
    let error = backend::plan(
        BackendChoice::Lsp,
        backend::Semantic {
            lsp: &pool,
            rope: &rope,
            budget: None,
        },
        &p.root,
        &p.sources,
        &extract("src/main.rs", 3, "greet"),
        Language::Rust,
        &mock("crash", None),
    )
    .unwrap_err();
    match error {
        BackendError::Lsp(message) => {
            assert!(
                message.contains("exited during textDocument/codeAction"),
                "{message}"
            );
            assert!(
                message.contains("semantic_edit_backend \"tree-sitter\""),
                "{message}"
            );
        }
        other => panic!("expected an lsp error, got {other:?}"),
    }
}

#[test]
fn status_shows_indexing_while_a_request_waits_and_never_blocks() {
    let p = rust_project();
    let pool = pool(2);
    std::thread::scope(|scope| {
        let request = scope.spawn(|| {
            pool.plan(
                &p.root,
                &p.sources,
                &extract("src/main.rs", 3, "greet"),
                Language::Rust,
                &mock("never_ready", None),
            )
        });
        let mut seen = None;
        for _ in 0..400 {
            // The mock reports 0 %, then 50 %, and stays there.
            if let ServerStatus::Indexing { percent, message } = pool.status(Language::Rust)
                && percent == Some(50)
            {
                seen = Some((percent, message, request.is_finished()));
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let (percent, message, finished) = seen.expect("the status showed the server's progress");
        assert_eq!(percent, Some(50));
        assert_eq!(message.as_deref(), Some("Indexing: 1/2 — ünïcode"));
        assert!(
            !finished,
            "the status was read while the request was still waiting"
        );
        let (_, reason) = failure_reason(request.join().unwrap());
        assert!(
            reason.contains("was still loading the project after 2 s"),
            "{reason}"
        );
        assert!(reason.contains("request_timeout_secs"), "{reason}");
    });
}

#[test]
fn edits_outside_the_project_are_refused() {
    let p = rust_project();
    let pool = pool(20);
    let (failure, reason) = failure_reason(pool.plan(
        &p.root,
        &p.sources,
        &extract("src/main.rs", 3, "greet"),
        Language::Rust,
        &mock("outside", None),
    ));
    assert!(matches!(failure, LspFailure::Failed(_)), "{failure:?}");
    assert!(reason.contains("outside the project root"), "{reason}");
    assert!(reason.contains("candor-mock-outside.rs"), "{reason}");
}

#[test]
fn a_missing_server_is_unavailable_and_bad_requests_are_the_callers() {
    let p = rust_project();
    let pool = pool(20);
    let missing = ServerOverride {
        command: Some("/nonexistent/candor-lsp".to_string()),
        args: vec![],
    };
    let (failure, reason) = failure_reason(pool.plan(
        &p.root,
        &p.sources,
        &extract("src/main.rs", 3, "greet"),
        Language::Rust,
        &missing,
    ));
    assert!(matches!(failure, LspFailure::Unavailable(_)), "{failure:?}");
    assert!(
        reason.starts_with("`/nonexistent/candor-lsp` (the call's `command`) could not be started"),
        "{reason}"
    );

    // A bad request never reaches a server: it is the caller's error in every backend.
    for (request, param_or_line) in [
        (extract("src/main.rs", 9, "greet"), "line 9"),
        (extract("src/main.rs", 3, "fn"), "keyword"),
        (extract("src/main.rs", 3, "main"), "already defined"),
    ] {
        let (failure, reason) =
            failure_reason(pool.plan(&p.root, &p.sources, &request, Language::Rust, &missing));
        assert!(matches!(failure, LspFailure::Refactor(_)), "{failure:?}");
        assert!(reason.contains(param_or_line), "{reason}");
    }
}

#[test]
fn server_stderr_never_reaches_candors_output() {
    let p = rust_project();
    let mut args = json!({
        "file_path": "src/main.rs",
        "start_line": 3,
        "end_line": 3,
        "new_name": "greet",
        "semantic_edit_backend": "lsp",
    });
    let over = mock("noisy", None);
    args["command"] = json!(over.command);
    args["args"] = json!(over.args);
    let output = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args([
            "call",
            "refactor_extract_function",
            &args.to_string(),
            "--root",
        ])
        .arg(p.root.path())
        .env("XDG_CONFIG_HOME", p.root.path().join(".no-user-config"))
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    let envelope: Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("stdout is not one JSON document ({e}): {stdout}"));
    assert_eq!(envelope["success"], true, "{envelope:#}");
    assert_eq!(envelope["backend_used"], "lsp");
    assert_eq!(envelope["data"]["lsp_server"]["name"], "rust-analyzer");
    assert!(
        !stdout.contains("mock noise") && !stderr.contains("mock noise"),
        "stderr: {stderr}"
    );
}

/// Cancels `job` after `after`, from another thread (as the TUI's Esc does).
fn cancel_later(pool: &std::sync::Arc<LspPool>, job: candor::backend::lsp::JobId, after: Duration) {
    let pool = std::sync::Arc::clone(pool);
    std::thread::spawn(move || {
        std::thread::sleep(after);
        pool.cancel_job(job);
    });
}

#[test]
fn a_cancelled_job_sends_cancel_request_and_keeps_a_server_that_acknowledges() {
    let p = rust_project();
    let pid_file = p.root.path().join("mock.pid");
    let pool = std::sync::Arc::new(pool(60));
    pool.start(
        &p.root,
        "src/main.rs",
        &mock("cancellable", Some(&pid_file)),
    )
    .unwrap();
    let started = std::time::Instant::now();
    let job = pool.begin_job();
    cancel_later(&pool, job, Duration::from_millis(500));
    let (failure, reason) = failure_reason(pool.plan(
        &p.root,
        &p.sources,
        &extract("src/main.rs", 3, "greet"),
        Language::Rust,
        &mock("cancellable", Some(&pid_file)),
    ));
    assert!(matches!(failure, LspFailure::Cancelled(_)), "{failure:?}");
    assert!(reason.contains("cancelled"), "{reason}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "the cancel ended the wait, not the 60 s timeout: {:?}",
        started.elapsed()
    );
    // The server answered the cancel: it is free, and it is kept.
    let first_pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(Path::new(&format!("/proc/{first_pid}")).exists());
    assert_eq!(pool.status(Language::Rust), ServerStatus::Ready);
    // A cancel of that old job does not reach the next one (it runs until its own cancel).
    let next = pool.begin_job();
    pool.cancel_job(job);
    cancel_later(&pool, next, Duration::from_millis(800));
    let started = std::time::Instant::now();
    let (failure, _) = failure_reason(pool.plan(
        &p.root,
        &p.sources,
        &extract("src/main.rs", 3, "greet"),
        Language::Rust,
        &mock("cancellable", Some(&pid_file)),
    ));
    assert!(matches!(failure, LspFailure::Cancelled(_)), "{failure:?}");
    assert!(started.elapsed() >= Duration::from_millis(700));
    assert_eq!(
        std::fs::read_to_string(&pid_file).unwrap(),
        first_pid,
        "same server"
    );
    // Through the backend with `auto`: a cancelled job is an error, not a heuristic fallback.
    let job = pool.begin_job();
    pool.cancel_job(job);
    let rope = candor::backend::rope::RopeBackend::default();
    let result = backend::plan(
        BackendChoice::Auto,
        backend::Semantic {
            lsp: &pool,
            rope: &rope,
            budget: None,
        },
        &p.root,
        &p.sources,
        &extract("src/main.rs", 3, "greet"),
        Language::Rust,
        &mock("cancellable", Some(&pid_file)),
    );
    assert!(matches!(result, Err(BackendError::Lsp(_))), "{result:?}");
}

#[test]
fn a_server_that_ignores_the_cancel_is_stopped() {
    let p = rust_project();
    let pid_file = p.root.path().join("mock.pid");
    let pool = std::sync::Arc::new(pool(60));
    // Started and ready first, so the cancel comes while the request is in flight.
    pool.start(&p.root, "src/main.rs", &mock("timeout", Some(&pid_file)))
        .unwrap();
    let job = pool.begin_job();
    cancel_later(&pool, job, Duration::from_millis(500));
    let started = std::time::Instant::now();
    let (failure, _) = failure_reason(pool.plan(
        &p.root,
        &p.sources,
        &extract("src/main.rs", 3, "greet"),
        Language::Rust,
        &mock("timeout", Some(&pid_file)),
    ));
    assert!(matches!(failure, LspFailure::Cancelled(_)), "{failure:?}");
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{:?}",
        started.elapsed()
    );
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the server {pid} that stayed busy after $/cancelRequest was stopped, not left spinning"
    );
}
