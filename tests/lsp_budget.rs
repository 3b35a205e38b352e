//! Issue 22, item 4: under `auto` a language server works within the budget rope has
//! (`[auto] budget_ms` for a dry run): its start, its load of the project, the wait for it to be
//! free and its answers all count; when the budget runs out candor stops waiting, the heuristic
//! answers at once and `data.fallback_reason` says so with the budget and the key. The server is
//! kept for the next request (one still answering `initialize` is stopped). `lsp` asked for by
//! name has no budget. With the real rust-analyzer and pylsp (through `candor call`, and
//! rust-analyzer in one pool across requests), and a scripted server for the request given up on
//! in flight (`tests/support/mock_lsp.py`).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use candor::backend::lsp::{
    LspFailure, LspPool, LspSettings, ServerOverride, ServerStatus, Waited,
};
use candor::backend::{self, BackendChoice, Budget};
use candor::honesty::BackendKind;
use candor::lang::Language;
use candor::refactor::{ExtractRequest, Request};
use candor::workspace::{DiskSources, Limits, Root};
use serde_json::{Value, json};

mod common;

use common::servers::{manifest_dir, path_env, require};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name == "__pycache__" || name == ".ropeproject" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(&name));
        } else {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

fn fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &manifest_dir().join("tests/lsp_fixtures").join(name),
        dir.path(),
    );
    dir
}

fn line_of(root: &Path, file: &str, needle: &str) -> usize {
    let text = std::fs::read_to_string(root.join(file)).unwrap();
    text.lines().position(|l| l.contains(needle)).unwrap() + 1
}

/// `candor call` in `root` with `[auto] budget_ms = budget_ms` in the user config.
fn call(root: &Path, budget_ms: u64, tool: &str, args: &Value) -> Value {
    call_with_config(
        root,
        &format!("[auto]\nbudget_ms = {budget_ms}\n"),
        tool,
        args,
    )
}

/// `candor call` in `root` with `config` as the user config.
fn call_with_config(root: &Path, config: &str, tool: &str, args: &Value) -> Value {
    let home = root.join(".no-user-config");
    std::fs::create_dir_all(home.join("candor")).unwrap();
    std::fs::write(home.join("candor/config.toml"), config).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["call", tool, &args.to_string(), "--root"])
        .arg(root)
        .env("PATH", path_env())
        .env("XDG_CONFIG_HOME", &home)
        .env_remove("CANDOR_BACKEND")
        .output()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{tool}: stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

fn diffs(envelope: &Value) -> String {
    envelope["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["diff"].as_str())
        .collect()
}

/// A 1 ms budget: the heuristic answers, saying which server ran out of which budget; a
/// generous one: the server answers; `lsp` by name with 1 ms: the server answers.
/// `label` is the server as candor's messages name it, `server` as it names itself.
fn falls_back_only_under_auto(
    root: &Path,
    (label, server): (&str, &str),
    args: Value,
    new_function: &str,
) {
    let tool = "refactor_extract_function";
    let fallback = call(root, 1, tool, &args);
    assert_eq!(fallback["success"], true, "{fallback:#}");
    assert_eq!(fallback["backend_used"], "hybrid", "{fallback:#}");
    let reason = fallback["data"]["fallback_reason"].as_str().unwrap();
    assert!(
        reason.starts_with(&format!(
            "{label} did not answer within the 1 ms that `auto` gives it ([auto] budget_ms; "
        )) && reason.ends_with("), so the heuristic answered"),
        "{reason}"
    );
    assert!(
        diffs(&fallback).contains(new_function),
        "the heuristic did the extract: {fallback:#}"
    );

    let generous = call(root, 600_000, tool, &args);
    assert_eq!(generous["backend_used"], "lsp", "{generous:#}");
    assert!(
        generous["data"].get("fallback_reason").is_none(),
        "{generous:#}"
    );
    assert_eq!(generous["data"]["lsp_server"]["name"], server);

    let mut named = args.clone();
    named["semantic_edit_backend"] = json!("lsp");
    let named = call(root, 1, tool, &named);
    assert_eq!(
        named["backend_used"], "lsp",
        "no budget for lsp by name: {named:#}"
    );
}

#[test]
fn rust_analyzer_under_auto_falls_back_when_the_budget_runs_out() {
    if !require(&["rust-analyzer"]) {
        return;
    }
    let project = fixture("rust_crate");
    let root = project.path();
    let args = json!({
        "file_path": "src/lib.rs",
        "start_line": line_of(root, "src/lib.rs", "for line in lines"),
        "end_line": line_of(root, "src/lib.rs", "let average") - 1,
        "new_name": "accumulate",
    });
    falls_back_only_under_auto(
        root,
        ("rust-analyzer", "rust-analyzer"),
        args,
        "fn accumulate(",
    );
}

#[test]
fn pylsp_under_auto_falls_back_when_the_budget_runs_out() {
    if !require(&["pylsp"]) {
        return;
    }
    let project = fixture("py_pkg");
    let root = project.path();
    let file = "orders/totals.py";
    let args = json!({
        "file_path": file,
        "start_line": line_of(root, file, "largest = 0"),
        "end_line": line_of(root, file, "largest = max(largest, cost)"),
        "new_name": "accumulate",
    });
    falls_back_only_under_auto(root, ("pylsp-rope", "pylsp"), args, "def accumulate(");
}

fn budget(limit: Duration) -> Budget {
    Budget {
        limit,
        key: "[auto] budget_ms",
    }
}

/// One pool across requests, as the TUI and `candor mcp` keep it: a request that runs out of
/// budget leaves rust-analyzer running and ready, and the next request with time is its.
#[test]
fn rust_analyzer_is_kept_after_a_request_that_ran_out_of_budget() {
    if !require(&["rust-analyzer"]) {
        return;
    }
    let project = fixture("rust_crate");
    let root = Root::new(project.path()).unwrap();
    let sources = DiskSources::new(root.clone(), Limits::default());
    let pool = LspPool::with_settings(LspSettings {
        request_timeout: Duration::from_secs(300),
        ..LspSettings::default()
    });
    let rope = backend::rope::RopeBackend::default();
    let request = Request::Extract(ExtractRequest {
        file: "src/lib.rs".to_string(),
        start_line: line_of(project.path(), "src/lib.rs", "for line in lines"),
        end_line: line_of(project.path(), "src/lib.rs", "let average") - 1,
        new_name: "accumulate".to_string(),
    });
    let plan = |limit: Duration| {
        backend::plan(
            BackendChoice::Auto,
            backend::Semantic {
                lsp: &pool,
                rope: &rope,
                budget: Some(budget(limit)),
            },
            &root,
            &sources,
            &request,
            Language::Rust,
            &ServerOverride::default(),
        )
        .unwrap_or_else(|e| panic!("{e}"))
    };
    let first = plan(Duration::from_secs(300));
    assert_eq!(
        first.backend,
        BackendKind::Lsp,
        "{:?}",
        first.fallback_reason
    );
    assert_eq!(pool.status(Language::Rust), ServerStatus::Ready);

    let short = plan(Duration::from_millis(1));
    assert_eq!(short.backend, BackendKind::Hybrid);
    let reason = short.fallback_reason.unwrap();
    assert!(
        reason.contains("rust-analyzer did not answer within the 1 ms")
            && reason.contains("[auto] budget_ms"),
        "{reason}"
    );
    assert_eq!(
        pool.status(Language::Rust),
        ServerStatus::Ready,
        "the server is kept, ready"
    );

    let again = plan(Duration::from_secs(300));
    assert_eq!(
        again.backend,
        BackendKind::Lsp,
        "{:?}",
        again.fallback_reason
    );
    assert_eq!(again.plan.changes, first.plan.changes);
}

// The request given up on in flight, with the scripted server (deterministic timing).

fn mock(scenario: &str, pid_file: &Path) -> ServerOverride {
    let python = std::env::var("CANDOR_TEST_PYTHON").unwrap_or_else(|_| "python3".to_string());
    ServerOverride {
        command: Some(python),
        args: vec![
            manifest_dir()
                .join("tests/support/mock_lsp.py")
                .to_string_lossy()
                .into_owned(),
            scenario.to_string(),
            pid_file.to_string_lossy().into_owned(),
        ],
    }
}

struct MockProject {
    _dir: tempfile::TempDir,
    root: Root,
    sources: DiskSources,
    pid_file: PathBuf,
}

fn mock_project() -> MockProject {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"mock\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/main.rs"),
        "fn main() {\n    let greeting = \"hello\";\n    println!(\"{greeting}\");\n}\n",
    )
    .unwrap();
    let root = Root::new(dir.path()).unwrap();
    let sources = DiskSources::new(root.clone(), Limits::default());
    let pid_file = dir.path().join("mock.pid");
    MockProject {
        _dir: dir,
        root,
        sources,
        pid_file,
    }
}

fn extract_greeting() -> Request {
    Request::Extract(ExtractRequest {
        file: "src/main.rs".to_string(),
        start_line: 3,
        end_line: 3,
        new_name: "greet".to_string(),
    })
}

fn plan_within(
    pool: &LspPool,
    p: &MockProject,
    scenario: &str,
    limit: Option<Duration>,
) -> Result<Duration, LspFailure> {
    let started = Instant::now();
    pool.plan_within(
        &p.root,
        &p.sources,
        &extract_greeting(),
        Language::Rust,
        &mock(scenario, &p.pid_file),
        limit.map(budget),
    )
    .map(|_| started.elapsed())
}

fn over_budget(result: Result<Duration, LspFailure>) -> Waited {
    match result {
        Err(LspFailure::OverBudget { waited, budget, .. }) => {
            assert_eq!(budget.key, "[auto] budget_ms");
            waited
        }
        other => panic!("expected the budget to run out, got {other:?}"),
    }
}

/// A server that answers the cancel: candor gives up at the budget without waiting for the
/// acknowledgement, the server is kept (same process), and the next request finds it free.
#[test]
fn a_request_given_up_at_the_budget_keeps_the_server() {
    let p = mock_project();
    let pool = LspPool::with_settings(LspSettings {
        request_timeout: Duration::from_secs(60),
        ..LspSettings::default()
    });
    pool.start(&p.root, "src/main.rs", &mock("cancellable", &p.pid_file))
        .unwrap();
    let pid = std::fs::read_to_string(&p.pid_file).unwrap();
    let started = Instant::now();
    let waited = over_budget(plan_within(
        &pool,
        &p,
        "cancellable",
        Some(Duration::from_millis(300)),
    ));
    assert_eq!(
        waited,
        Waited::Request("textDocument/codeAction".to_string())
    );
    assert!(
        started.elapsed() < Duration::from_secs(60),
        "the budget ended the wait, not the request timeout"
    );
    assert_eq!(pool.status(Language::Rust), ServerStatus::Ready);
    assert_eq!(std::fs::read_to_string(&p.pid_file).unwrap(), pid, "kept");
    // The earlier request was answered (cancelled): this one is asked, and given up on in turn.
    let waited = over_budget(plan_within(
        &pool,
        &p,
        "cancellable",
        Some(Duration::from_millis(300)),
    ));
    assert_eq!(
        waited,
        Waited::Request("textDocument/codeAction".to_string())
    );
    assert_eq!(std::fs::read_to_string(&p.pid_file).unwrap(), pid, "kept");
}

/// A server that never answers: the next request under a budget waits for the earlier one
/// within its own budget and says so (still the same server); a request with no budget waits
/// the request timeout for it, then replaces the stuck server.
#[test]
fn a_server_stuck_on_a_request_given_up_on_is_replaced_only_without_a_budget() {
    let p = mock_project();
    let pool = LspPool::with_settings(LspSettings {
        request_timeout: Duration::from_secs(2),
        ..LspSettings::default()
    });
    pool.start(&p.root, "src/main.rs", &mock("timeout", &p.pid_file))
        .unwrap();
    let pid = std::fs::read_to_string(&p.pid_file).unwrap();
    let short = Some(Duration::from_millis(300));
    let waited = over_budget(plan_within(&pool, &p, "timeout", short));
    assert_eq!(
        waited,
        Waited::Request("textDocument/codeAction".to_string())
    );
    let waited = over_budget(plan_within(&pool, &p, "timeout", short));
    assert_eq!(
        waited,
        Waited::Earlier("textDocument/codeAction".to_string())
    );
    assert_eq!(std::fs::read_to_string(&p.pid_file).unwrap(), pid, "kept");
    assert_eq!(pool.status(Language::Rust), ServerStatus::Ready);

    match plan_within(&pool, &p, "timeout", None) {
        Err(LspFailure::Failed(why)) => assert!(
            why.contains("did not finish an earlier textDocument/codeAction"),
            "{why}"
        ),
        other => panic!("expected the stuck server to fail the request, got {other:?}"),
    }
    assert!(matches!(
        pool.status(Language::Rust),
        ServerStatus::Failed(_)
    ));
    // The next request starts a new server.
    let _ = plan_within(&pool, &p, "timeout", short);
    assert_ne!(
        std::fs::read_to_string(&p.pid_file).unwrap(),
        pid,
        "replaced"
    );
}

/// The load of the project counts: a server that never finishes loading is left loading when
/// the budget runs out (not stopped, not failed).
#[test]
fn the_load_of_the_project_counts_and_the_server_goes_on_loading() {
    let p = mock_project();
    let pool = LspPool::with_settings(LspSettings {
        request_timeout: Duration::from_secs(60),
        ..LspSettings::default()
    });
    let waited = over_budget(plan_within(
        &pool,
        &p,
        "never_ready",
        Some(Duration::from_millis(1_500)),
    ));
    assert_eq!(waited, Waited::Loading);
    assert!(
        matches!(pool.status(Language::Rust), ServerStatus::Indexing { .. }),
        "{:?}",
        pool.status(Language::Rust)
    );
    let pid = std::fs::read_to_string(&p.pid_file).unwrap();
    assert!(
        Path::new(&format!("/proc/{}", pid.trim())).exists(),
        "still running"
    );
}

// An apply names the preview it writes: when `auto` fell back for the preview (the server was
// still loading, a dry run's shorter budget) and the server answers the apply, the heuristic's
// previewed plan is what is written, not a refusal because the server's plan differs.

/// `candor call` in `root` with `[auto]` budgets for a dry run and an apply.
fn call_with_budgets(
    root: &Path,
    budget_ms: u64,
    apply_ms: u64,
    tool: &str,
    args: &Value,
) -> Value {
    let config = format!("[auto]\nbudget_ms = {budget_ms}\napply_budget_ms = {apply_ms}\n");
    call_with_config(root, &config, tool, args)
}

fn pylsp_extract_args(root: &Path) -> (String, Value) {
    let file = "orders/totals.py".to_string();
    let args = json!({
        "file_path": file,
        "start_line": line_of(root, &file, "largest = 0"),
        "end_line": line_of(root, &file, "largest = max(largest, cost)"),
        "new_name": "accumulate",
        "verify": false,
    });
    (file, args)
}

#[test]
fn applying_the_heuristics_preview_under_auto_writes_it_when_the_server_answers_the_apply() {
    if !require(&["pylsp"]) {
        return;
    }
    let project = fixture("py_pkg");
    let root = project.path();
    let (file, args) = pylsp_extract_args(root);
    let tool = "refactor_extract_function";
    let before = std::fs::read_to_string(root.join(&file)).unwrap();
    // The server's own plan is another one (else the apply would not tell them apart).
    let served = call_with_budgets(root, 600_000, 600_000, tool, &args);
    assert_eq!(served["backend_used"], "lsp", "{served:#}");
    let preview = call_with_budgets(root, 1, 600_000, tool, &args);
    assert_eq!(preview["backend_used"], "hybrid", "{preview:#}");
    let plan_id = preview["data"]["plan_id"].as_str().unwrap().to_string();
    assert_ne!(served["data"]["plan_id"].as_str().unwrap(), plan_id);
    let expected_after = preview["data"]["changes"][0]["after"]
        .as_str()
        .map(str::to_string);

    let mut apply = args.clone();
    apply["dry_run"] = json!(false);
    apply["plan_id"] = json!(plan_id);
    let applied = call_with_budgets(root, 1, 600_000, tool, &apply);
    assert_eq!(applied["success"], true, "{applied:#}");
    assert_eq!(applied["backend_used"], "hybrid", "{applied:#}");
    assert!(
        applied["data"]["fallback_reason"]
            .as_str()
            .unwrap()
            .starts_with(&format!(
                "the preview this apply names (plan_id {plan_id}) was the heuristic's"
            )),
        "{applied:#}"
    );
    let after = std::fs::read_to_string(root.join(&file)).unwrap();
    assert_ne!(after, before);
    assert!(after.contains("def accumulate("), "{after}");
    if let Some(expected) = expected_after {
        assert_eq!(after, expected);
    }
}

/// The TUI's confirm: what was on screen is the heuristic's plan, so the heuristic writes it
/// even though the server (ready by now) would answer with another.
#[test]
fn the_tuis_confirm_of_a_heuristic_preview_under_auto_writes_what_was_on_screen() {
    if !require(&["pylsp"]) {
        return;
    }
    use candor::api::Engine;
    use candor::api::ToolCall;
    use candor::config::{AutoConfig, Config};
    let project = fixture("py_pkg");
    let path = project.path();
    let (file, args) = pylsp_extract_args(path);
    let request = Request::Extract(ExtractRequest {
        file: file.clone(),
        start_line: args["start_line"].as_u64().unwrap() as usize,
        end_line: args["end_line"].as_u64().unwrap() as usize,
        new_name: "accumulate".to_string(),
    });
    let engine = |budget_ms: u64| {
        let config = Config {
            auto: AutoConfig {
                budget_ms: Some(budget_ms),
                apply_budget_ms: Some(budget_ms),
            },
            ..Config::default()
        };
        Engine::with_config(Root::new(path).unwrap(), config, Some(BackendChoice::Auto))
    };
    let hurried = engine(1);
    let call = hurried.resolve(ToolCall::new(request)).unwrap();
    let on_screen = hurried.preview(&call).unwrap();
    assert_eq!(on_screen.backend, BackendKind::Hybrid);
    let patient = engine(600_000);
    let served = patient.preview(&call).unwrap();
    assert_eq!(
        served.backend,
        BackendKind::Lsp,
        "{:?}",
        served.fallback_reason
    );
    assert_ne!(served.plan.changes, on_screen.plan.changes);

    patient
        .apply_previewed(&call, &on_screen)
        .unwrap_or_else(|e| panic!("{e}"))
        .expect("something written");
    let after = std::fs::read_to_string(path.join(&file)).unwrap();
    let expected = on_screen.plan.changes[0].after.as_str();
    assert_eq!(after, expected);
}
