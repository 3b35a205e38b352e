//! What a cloned repository could make the real language servers run, with the real
//! rust-analyzer (through the rustup proxies) and the real pylsp-rope: a hostile
//! `.cargo/config.toml` (`build.rustc`), a hostile `rust-toolchain.toml` (a `path` toolchain of
//! the repository's own binaries) and a hostile `.ropeproject/config.py`, each writing a marker
//! file when run. In an untrusted project the marker never appears (`auto` falls back and says
//! why, `lsp` is an error; with the toolchain pinned rust-analyzer still works); once the user
//! trusts the project the same files run — which shows each test can fail.

mod common;

use std::path::Path;
use std::process::Command;

use common::servers::{path_env, require};
use serde_json::{Value, json};

/// `candor ARGS` in `root` with the real servers on PATH and a user config of the test's own.
fn candor(home: &Path, root: &Path, args: &[&str]) -> std::process::Output {
    common::servers::patient_auto(home);
    Command::new(common::candor_bin())
        .args(args)
        .current_dir(root)
        .env("PATH", path_env())
        .env("XDG_CONFIG_HOME", home)
        .env_remove("CANDOR_BACKEND")
        .env_remove("RUSTUP_TOOLCHAIN")
        .output()
        .unwrap()
}

fn call(home: &Path, root: &Path, tool: &str, args: &Value, backend: &str) -> (Value, i32) {
    let text = args.to_string();
    let out = candor(
        home,
        root,
        &[
            "call",
            tool,
            &text,
            "--root",
            root.to_str().unwrap(),
            "--backend",
            backend,
        ],
    );
    let envelope = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&out.stdout)
        )
    });
    (envelope, out.status.code().unwrap_or(-1))
}

fn write(root: &Path, path: &str, text: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

fn executable(root: &Path, path: &str, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    write(root, path, text);
    std::fs::set_permissions(root.join(path), std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn trust(home: &Path, root: &Path) {
    let out = candor(home, root, &["trust", root.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

const LIB_RS: &str = "pub fn total(values: &[i32]) -> i32 {\n    let mut sum = 0;\n    for v in values {\n        sum += v;\n    }\n    sum\n}\n";

fn cargo_project(root: &Path) {
    write(
        root,
        "Cargo.toml",
        "[package]\nname = \"hostile\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    write(root, "src/lib.rs", LIB_RS);
}

fn extract_rust() -> Value {
    json!({"file_path": "src/lib.rs", "start_line": 3, "end_line": 5, "new_name": "add_all"})
}

#[test]
fn a_hostile_cargo_config_never_runs_in_an_untrusted_project() {
    if !require(&["rust-analyzer"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let marker = root.join("MARKER");
    cargo_project(&root);
    executable(
        &root,
        "tools/rustc",
        &format!(
            "#!/bin/sh\necho ran >> '{}'\nexec rustc \"$@\"\n",
            marker.display()
        ),
    );
    write(
        &root,
        ".cargo/config.toml",
        &format!(
            "[build]\nrustc = \"{}\"\n",
            root.join("tools/rustc").display()
        ),
    );
    let (envelope, code) = call(
        home.path(),
        &root,
        "refactor_extract_function",
        &extract_rust(),
        "auto",
    );
    assert_eq!(code, 0, "{envelope}");
    assert_eq!(envelope["backend_used"], "hybrid");
    let reason = envelope["data"]["fallback_reason"].as_str().unwrap();
    assert!(
        reason.contains(".cargo/config.toml") && reason.contains("build.rustc"),
        "{reason}"
    );
    assert!(reason.contains("candor trust"), "{reason}");
    let (envelope, code) = call(
        home.path(),
        &root,
        "refactor_extract_function",
        &extract_rust(),
        "lsp",
    );
    assert_eq!(
        (envelope["error"]["code"].as_str(), code),
        (Some("lsp"), 1),
        "{envelope}"
    );
    assert!(!marker.exists(), "the repository's rustc ran");

    trust(home.path(), &root);
    let (envelope, _) = call(
        home.path(),
        &root,
        "refactor_extract_function",
        &extract_rust(),
        "auto",
    );
    assert_eq!(envelope["backend_used"], "lsp", "{envelope}");
    assert!(
        marker.exists(),
        "trusted, cargo runs the configured rustc (the vector is real)"
    );
}

#[test]
fn a_hostile_toolchain_file_is_ignored_in_an_untrusted_project() {
    if !require(&["rust-analyzer", "rustup"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let marker = root.join("MARKER");
    cargo_project(&root);
    for program in ["rust-analyzer", "cargo", "rustc"] {
        executable(
            &root,
            &format!("toolchain/bin/{program}"),
            &format!(
                "#!/bin/sh\necho {program} >> '{}'\nexit 1\n",
                marker.display()
            ),
        );
    }
    std::fs::create_dir_all(root.join("toolchain/lib")).unwrap();
    write(
        &root,
        "rust-toolchain.toml",
        &format!(
            "[toolchain]\npath = \"{}\"\n",
            root.join("toolchain").display()
        ),
    );
    // The user's default toolchain serves instead: rust-analyzer works, the repository's
    // binaries never run.
    let (envelope, code) = call(
        home.path(),
        &root,
        "refactor_extract_function",
        &extract_rust(),
        "lsp",
    );
    assert_eq!(
        (envelope["backend_used"].as_str(), code),
        (Some("lsp"), 0),
        "{envelope}"
    );
    assert!(!marker.exists(), "the repository's toolchain ran");

    trust(home.path(), &root);
    let (envelope, _) = call(
        home.path(),
        &root,
        "refactor_extract_function",
        &extract_rust(),
        "auto",
    );
    assert_eq!(envelope["backend_used"], "hybrid", "{envelope}");
    assert!(
        marker.exists(),
        "trusted, rustup runs the project's toolchain (the vector is real)"
    );
}

#[test]
fn a_hostile_rope_config_never_runs_in_an_untrusted_project() {
    if !require(&["pylsp"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let marker = root.join("MARKER");
    write(
        &root,
        "calc.py",
        "def total(values):\n    result = 0\n    for v in values:\n        result += v\n    return result\n",
    );
    write(
        &root,
        ".ropeproject/config.py",
        &format!(
            "open({:?}, \"a\").write(\"ran\\n\")\n",
            marker.display().to_string()
        ),
    );
    let extract =
        json!({"file_path": "calc.py", "start_line": 3, "end_line": 4, "new_name": "add_all"});
    let (envelope, code) = call(
        home.path(),
        &root,
        "refactor_extract_function",
        &extract,
        "auto",
    );
    assert_eq!(code, 0, "{envelope}");
    let reason = envelope["data"]["fallback_reason"].as_str().unwrap();
    assert!(
        reason.contains(".ropeproject") && reason.contains("candor trust"),
        "{reason}"
    );
    let (envelope, code) = call(
        home.path(),
        &root,
        "refactor_extract_function",
        &extract,
        "lsp",
    );
    assert_eq!(
        (envelope["error"]["code"].as_str(), code),
        (Some("lsp"), 1),
        "{envelope}"
    );
    assert!(!marker.exists(), "rope ran the repository's config.py");

    trust(home.path(), &root);
    let (envelope, _) = call(
        home.path(),
        &root,
        "refactor_extract_function",
        &extract,
        "auto",
    );
    assert_eq!(envelope["backend_used"], "lsp", "{envelope}");
    assert!(
        marker.exists(),
        "trusted, rope runs config.py (the vector is real)"
    );
}

#[test]
fn rust_analyzer_settings_of_the_project_refuse_the_start() {
    let home = tempfile::tempdir().unwrap();
    for (path, text) in [
        (
            "rust-analyzer.toml",
            "[cargo.buildScripts]\noverrideCommand = [\"sh\"]\n",
        ),
        ("rust-project.json", "{\"crates\": []}\n"),
        (".cargo/config.toml", "[env]\nLD_PRELOAD = \"x.so\"\n"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        cargo_project(&root);
        write(&root, path, text);
        let (envelope, code) = call(
            home.path(),
            &root,
            "refactor_extract_function",
            &extract_rust(),
            "auto",
        );
        assert_eq!(code, 0, "{envelope}");
        let reason = envelope["data"]["fallback_reason"].as_str().unwrap();
        assert!(
            reason.contains(path.trim_start_matches("./")) && reason.contains("not trusted"),
            "{path}: {reason}"
        );
    }
}

/// A `candor mcp` session on `root`, spoken to in JSON lines.
struct Mcp {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    lines: std::io::Lines<std::io::BufReader<std::process::ChildStdout>>,
}

impl Mcp {
    fn start(home: &Path, root: &Path) -> Mcp {
        Mcp::start_with(home, root, &[])
    }

    fn start_with(home: &Path, root: &Path, env: &[(&str, std::path::PathBuf)]) -> Mcp {
        use std::io::BufRead;
        common::servers::patient_auto(home);
        let mut child = Command::new(common::candor_bin())
            .args(["mcp", "--root"])
            .arg(root)
            .current_dir(root)
            .env("PATH", path_env())
            .env("XDG_CONFIG_HOME", home)
            .env_remove("CANDOR_BACKEND")
            .env_remove("RUSTUP_TOOLCHAIN")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
        let mut mcp = Mcp {
            child,
            stdin,
            lines,
        };
        mcp.request(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}));
        mcp.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        mcp
    }

    fn send(&mut self, message: &Value) {
        use std::io::Write;
        writeln!(self.stdin, "{message}").unwrap();
        self.stdin.flush().unwrap();
    }

    fn request(&mut self, message: Value) -> Value {
        self.send(&message);
        let line = self.lines.next().expect("an answer").unwrap();
        serde_json::from_str(&line).unwrap()
    }

    /// The envelope of one tool call.
    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        let reply = self.request(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": arguments}}));
        reply["result"]["structuredContent"].clone()
    }
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_cargo_config_that_appears_during_a_session_stops_the_server_at_the_next_request() {
    if !require(&["rust-analyzer"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let marker = root.join("MARKER");
    cargo_project(&root);
    let mut args = extract_rust();
    args["semantic_edit_backend"] = json!("auto");
    let mut mcp = Mcp::start(home.path(), &root);
    let first = mcp.call(1, "refactor_extract_function", args.clone());
    assert_eq!(first["backend_used"], "lsp", "{first:#}");

    // The repository now gains a cargo configuration whose wrapper would run on the next load.
    executable(
        &root,
        "tools/wrap",
        &format!(
            "#!/bin/sh\necho ran >> '{}'\nexec \"$@\"\n",
            marker.display()
        ),
    );
    write(
        &root,
        ".cargo/config.toml",
        &format!(
            "[build]\nrustc-wrapper = \"{}\"\n",
            root.join("tools/wrap").display()
        ),
    );
    let second = mcp.call(2, "refactor_extract_function", args.clone());
    let third = mcp.call(3, "refactor_extract_function", args);
    drop(mcp);
    assert!(!marker.exists(), "the repository's rustc wrapper ran");
    assert_eq!(second["success"], true, "{second:#}");
    assert_eq!(second["backend_used"], "hybrid", "{second:#}");
    let reason = second["data"]["fallback_reason"].as_str().unwrap();
    assert!(
        reason.contains("rust-analyzer was stopped")
            && reason.contains(".cargo/config.toml appeared"),
        "{reason}"
    );
    assert!(reason.contains("build.rustc-wrapper"), "{reason}");
    assert_eq!(third["backend_used"], "hybrid", "{third:#}");
}

/// Issue 21 item 2: rust-analyzer reloads the workspace by itself (its own file watcher) when
/// `Cargo.toml` changes — between two requests, before candor's stamp check can stop it. A cargo
/// configuration that appeared with that change must not make that reload run a program of the
/// repository: in an untrusted project the server's environment overrides what the
/// configuration could make cargo run. `setup(root, marker)` writes the program (which writes
/// `marker` when run) and returns the configuration; `key` is the one the second answer's
/// refusal names.
fn reload_with_config(setup: impl Fn(&Path, &Path) -> String, key: &str) {
    if !require(&["rust-analyzer"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let marker = root.join("MARKER");
    cargo_project(&root);
    let mut args = extract_rust();
    args["semantic_edit_backend"] = json!("auto");
    let mut mcp = Mcp::start(home.path(), &root);
    let first = mcp.call(1, "refactor_extract_function", args.clone());
    assert_eq!(first["backend_used"], "lsp", "{first:#}");

    let config = setup(&root, &marker);
    write(&root, ".cargo/config.toml", &config);
    // The change rust-analyzer's own watcher reacts to.
    write(
        &root,
        "Cargo.toml",
        "[package]\nname = \"hostile\"\nversion = \"0.1.1\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    // Long enough for its debounce and the reload (`cargo metadata`, the sysroot's rustc).
    let start = std::time::Instant::now();
    while !marker.exists() && start.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    assert!(
        !marker.exists(),
        "the repository's program ran on rust-analyzer's own reload:\n{config}\n{}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
    let second = mcp.call(2, "refactor_extract_function", args);
    drop(mcp);
    assert!(!marker.exists(), "the repository's program ran:\n{config}");
    assert_eq!(second["success"], true, "{second:#}");
    let reason = second["data"]["fallback_reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("rust-analyzer was stopped") && reason.contains(&format!("`{key}`")),
        "{second:#}"
    );
}

/// A shell script at `path` in `root` that notes its run in `marker`, then runs its arguments.
fn marker_script(root: &Path, path: &str, marker: &Path) -> String {
    executable(
        root,
        path,
        &format!(
            "#!/bin/sh\necho ran >> '{}'\nexec \"$@\"\n",
            marker.display()
        ),
    );
    root.join(path).display().to_string()
}

#[test]
fn a_rustc_wrapper_that_appears_with_a_cargo_toml_change_does_not_run_on_the_servers_reload() {
    reload_with_config(
        |root, marker| {
            let wrap = marker_script(root, "tools/wrap", marker);
            format!("[build]\nrustc-wrapper = \"{wrap}\"\nrustc-workspace-wrapper = \"{wrap}\"\n")
        },
        "build.rustc-workspace-wrapper",
    );
}

#[test]
fn a_build_rustc_that_appears_with_a_cargo_toml_change_does_not_run_on_the_servers_reload() {
    reload_with_config(
        |root, marker| {
            // A working rustc that notes its run.
            executable(
                root,
                "tools/rustc",
                &format!(
                    "#!/bin/sh\necho ran >> '{}'\nexec rustc \"$@\"\n",
                    marker.display()
                ),
            );
            format!(
                "[build]\nrustc = \"{}\"\n",
                root.join("tools/rustc").display()
            )
        },
        "build.rustc",
    );
}

/// `[env]` (without `force`) with `LD_PRELOAD` of a small library, built with the real gcc,
/// whose constructor writes the marker: cargo would start rustc with it.
#[test]
fn an_env_ld_preload_that_appears_with_a_cargo_toml_change_does_not_run_on_the_servers_reload() {
    ld_preload_reload("\"{}\"");
}

/// The same with `force = true`, which beats any environment (cargo gives a forced entry to the
/// rustc it runs whatever the environment says): in an untrusted project rust-analyzer's
/// `CARGO` is candor's cargo guard, which re-reads the cargo configuration at each run and
/// refuses to run cargo at all while an `[env]` entry is there.
#[test]
fn a_forced_env_ld_preload_that_appears_with_a_cargo_toml_change_does_not_run_on_the_servers_reload()
 {
    ld_preload_reload("{ value = \"{}\", force = true }");
}

/// `[env] LD_PRELOAD = <value>` (`value` a format with `{}` for the library's path) of a small
/// library, built with the real gcc, whose constructor writes the marker.
fn ld_preload_reload(value: &'static str) {
    if !require(&["gcc"]) {
        return;
    }
    reload_with_config(
        |root, marker| {
            let source = root.join("tools/pre.c");
            write(
                root,
                "tools/pre.c",
                &format!(
                    "#include <stdio.h>\n#include <unistd.h>\n__attribute__((constructor)) static void m(void) {{ char exe[512] = {{0}}; readlink(\"/proc/self/exe\", exe, 511); FILE *f = fopen(\"{}\", \"a\"); if (f) {{ fprintf(f, \"ran in %s\\n\", exe); fclose(f); }} }}\n",
                    marker.display()
                ),
            );
            let library = root.join("tools/pre.so");
            let built = Command::new("gcc")
                .args(["-shared", "-fPIC", "-o"])
                .arg(&library)
                .arg(&source)
                .status()
                .unwrap();
            assert!(built.success());
            let value = value.replacen("{}", &library.display().to_string(), 1);
            format!("[env]\nLD_PRELOAD = {value}\n")
        },
        "env",
    );
}

/// A session whose cache (and so its cargo guard, see `cargo_guard`) is `home/cache`.
fn mcp_with_cache(home: &Path, root: &Path) -> Mcp {
    let mut mcp = Mcp::start_with(home, root, &[("XDG_CACHE_HOME", home.join("cache"))]);
    mcp.call(1, "refactor_extract_function", {
        let mut args = extract_rust();
        args["semantic_edit_backend"] = json!("auto");
        args
    });
    mcp
}

/// Makes every cargo run of the session's rust-analyzer (its cargo is candor's cargo guard, a
/// script in the test's own cache) note its arguments in `log` first. The guard's script is
/// rewritten only when a server starts.
fn spy_on_cargo(home: &Path, log: &Path) {
    let guards = home.join("cache/candor/cargo-guard");
    let mut spied = 0;
    for entry in std::fs::read_dir(&guards).unwrap() {
        let script = entry.unwrap().path().join("bin/cargo");
        let text = std::fs::read_to_string(&script).unwrap();
        let (shebang, rest) = text.split_once('\n').unwrap();
        std::fs::write(
            &script,
            format!("{shebang}\necho \"$*\" >> '{}'\n{rest}", log.display()),
        )
        .unwrap();
        spied += 1;
    }
    assert_eq!(spied, 1, "one guard in {}", guards.display());
}

/// Waits `secs` seconds for `path` to appear; whether it did.
fn appears_within(path: &Path, secs: u64) -> bool {
    let start = std::time::Instant::now();
    while !path.exists() && start.elapsed() < std::time::Duration::from_secs(secs) {
        std::thread::sleep(std::time::Duration::from_millis(200));
    }
    path.exists()
}

/// Issue 21 (what the last stop left open): a `rust-analyzer.toml` that appears between two
/// requests of one session would be read by rust-analyzer itself, not through cargo (the cargo
/// guard never sees it), before candor's stamp check at the next request could stop the server;
/// a workspace `rust-analyzer.toml` wins over the settings candor sends (flycheck and build
/// scripts on, with override commands; an `extraEnv` with a rustc wrapper). With a `Cargo.toml`
/// change and a source edit beside it, the server (which, in an untrusted project, watches no
/// file itself) must not reload, run cargo or read anything before the next request — where
/// the stamp check stops it — and the marker never appears. On the previous main the server's
/// own watcher reloaded at once: its cargo ran between the requests (`metadata`…).
#[test]
fn a_rust_analyzer_toml_that_appears_during_a_session_is_not_read_before_the_check() {
    if !require(&["rust-analyzer"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let marker = root.join("MARKER");
    let log = home.path().join("cargo-runs.log");
    cargo_project(&root);
    let mut mcp = mcp_with_cache(home.path(), &root);
    spy_on_cargo(home.path(), &log);

    let run = marker_script(&root, "tools/run", &marker);
    let quoted = format!("\"{run}\"");
    write(
        &root,
        "rust-analyzer.toml",
        &format!(
            "checkOnSave = true\n\n[check]\nworkspace = true\noverrideCommand = [{quoted}, \"cargo\", \"check\", \"--message-format=json\"]\n\n[cargo]\nextraEnv = {{ RUSTC_WRAPPER = {quoted} }}\n\n[cargo.buildScripts]\nenable = true\nrebuildOnSave = true\noverrideCommand = [{quoted}, \"cargo\", \"check\", \"--message-format=json\"]\n"
        ),
    );
    write(
        &root,
        "Cargo.toml",
        "[package]\nname = \"hostile\"\nversion = \"0.1.1\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    write(
        &root,
        "src/lib.rs",
        &format!("{LIB_RS}\npub fn more() {{}}\n"),
    );
    let ran = appears_within(&log, 8);
    assert!(
        !ran,
        "rust-analyzer ran cargo on its own between two requests:\n{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    assert!(!marker.exists(), "the repository's program ran");
    let mut args = extract_rust();
    args["semantic_edit_backend"] = json!("auto");
    let second = mcp.call(2, "refactor_extract_function", args);
    std::thread::sleep(std::time::Duration::from_secs(2));
    drop(mcp);
    assert!(
        !marker.exists(),
        "the repository's program ran:\n{}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
    assert!(!log.exists(), "the stopped server ran cargo");
    assert_eq!(second["success"], true, "{second:#}");
    let reason = second["data"]["fallback_reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("rust-analyzer was stopped") && reason.contains("rust-analyzer.toml"),
        "{second:#}"
    );
}

/// The other side: in an untrusted project rust-analyzer watches no file itself, and still sees
/// what changed between two requests — a new module file and a `Cargo.toml` change — because
/// candor tells it at the start of the next request (after the stamp check): its rename there
/// reaches the new file, and its reload (cargo) runs then, not before.
#[test]
fn an_untrusted_projects_server_sees_files_changed_between_requests() {
    if !require(&["rust-analyzer"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let log = home.path().join("cargo-runs.log");
    cargo_project(&root);
    let mut mcp = mcp_with_cache(home.path(), &root);
    spy_on_cargo(home.path(), &log);

    write(
        &root,
        "Cargo.toml",
        "[package]\nname = \"hostile\"\nversion = \"0.1.1\"\nedition = \"2021\"\n\n[dependencies]\n",
    );
    write(&root, "src/lib.rs", &format!("pub mod extra;\n\n{LIB_RS}"));
    write(
        &root,
        "src/extra.rs",
        "pub fn twice(values: &[i32]) -> i32 {\n    crate::total(values) * 2\n}\n",
    );
    assert!(
        !appears_within(&log, 6),
        "rust-analyzer ran cargo on its own between two requests:\n{}",
        std::fs::read_to_string(&log).unwrap_or_default()
    );
    let rename = json!({"file_path": "src/lib.rs", "symbol_name": "total", "line": 3, "column": 8,
        "new_name": "sum_all", "semantic_edit_backend": "lsp", "dry_run": true, "verify": false});
    let second = mcp.call(2, "refactor_rename_symbol", rename);
    drop(mcp);
    assert_eq!(second["success"], true, "{second:#}");
    assert_eq!(second["backend_used"], "lsp", "{second:#}");
    let changes = second["data"]["changes"].to_string();
    assert!(
        changes.contains("src/extra.rs") && changes.contains("crate::sum_all(values)"),
        "the rename did not reach the new file: {second:#}"
    );
    let runs = std::fs::read_to_string(&log).unwrap_or_default();
    assert!(
        runs.contains("metadata"),
        "the Cargo.toml change reloaded nothing at the next request: {runs:?}"
    );
}
