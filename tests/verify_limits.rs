//! The check under hostile conditions (issue 21, items 4 and 7 and a minor one), through the real
//! `candor call` and the real checkers: a project setting that makes ruff read `/dev/zero`; a
//! checker that hits its memory limit; `kill -9` of candor in the middle of a check; a cache
//! whose manifest names a path outside it, or whose folder is a symbolic link; a path too long
//! for the cache.

mod verify_common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use verify_common::*;

fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, text).unwrap();
    }
    dir
}

const MODULE: &str = "def area(w, h):\n    size = w * h\n    return size\n";

fn extract(verify: Value) -> Value {
    json!({"file_path": "pkg/geo.py", "start_line": 2, "end_line": 2, "new_name": "product", "semantic_edit_backend": "tree-sitter", "verify": verify})
}

#[test]
fn ruff_never_reads_what_an_untrusted_project_names_and_a_limit_stops_a_checker() {
    if !require(&["ruff"]) {
        return;
    }
    let env = Env::new();
    // The file the project's settings name is a FIFO: whoever opens it to read is seen.
    let spy = tempfile::tempdir().unwrap();
    let fifo = spy.path().join("extend.toml");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    let hostile = format!("[tool.ruff]\nextend = {:?}\n", fifo.display().to_string());
    let project = package(&[
        ("pkg/__init__.py", ""),
        ("pkg/geo.py", MODULE),
        ("pyproject.toml", &hostile),
    ]);
    let root = project.path();
    let done = std::sync::atomic::AtomicBool::new(false);
    let opened = std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            use std::os::unix::fs::OpenOptionsExt;
            while !done.load(std::sync::atomic::Ordering::SeqCst) {
                // Succeeds only while a reader has the FIFO open.
                let writer = std::fs::File::options()
                    .write(true)
                    .custom_flags(0o4000) // O_NONBLOCK
                    .open(&fifo);
                if writer.is_ok() {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            false
        });
        let (envelope, _) = env.call(root, "refactor_extract_function", &extract(json!(true)));
        done.store(true, std::sync::atomic::Ordering::SeqCst);
        let verification = &envelope["data"]["verification"];
        assert_eq!(verification["state"], "clean", "{envelope:#}");
        assert!(
            verification["checker"]
                .as_str()
                .unwrap()
                .starts_with("ruff + "),
            "{envelope:#}"
        );
        watcher.join().unwrap()
    });
    assert!(
        !opened,
        "ruff read the file an untrusted project's settings named"
    );

    // Trusted, ruff reads the project's settings: `extend = "/dev/zero"` runs it into candor's
    // memory limit, and the check says so instead of eating the machine.
    std::fs::write(
        root.join("pyproject.toml"),
        "[tool.ruff]\nextend = \"/dev/zero\"\n",
    )
    .unwrap();
    env.trust(root);
    std::fs::create_dir_all(env.config.path().join("candor")).unwrap();
    std::fs::write(
        env.config.path().join("candor/config.toml"),
        "[verify]\nmemory_limit_mib = 256\n",
    )
    .unwrap();
    let (envelope, _) = env.call(root, "refactor_extract_function", &extract(json!(true)));
    let not_run = envelope["data"]["verification"]["not_run"].to_string();
    assert!(
        not_run.contains("ruff") && not_run.contains("memory limit of 256 MiB"),
        "{envelope:#}"
    );
}

/// The processes whose command line mentions `needle`.
fn processes_mentioning(needle: &str) -> Vec<(u32, String)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else {
            continue;
        };
        let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
        if cmdline.contains(needle) {
            found.push((pid, cmdline));
        }
    }
    found
}

#[test]
fn a_kill_9_of_candor_mid_check_leaves_no_checker_running() {
    if !require(&["basedpyright", "ruff"]) {
        return;
    }
    let env = Env::new();
    // basedpyright (a Python wrapper starting Node: a grandchild) is slow enough to be caught.
    let project = package(&[
        ("pkg/__init__.py", ""),
        ("pkg/geo.py", MODULE),
        ("pyproject.toml", "[tool.basedpyright]\n"),
    ]);
    let root = project.path();
    let cache = env.cache.path().canonicalize().unwrap();
    let needle = cache.display().to_string();
    let mut child = env
        .candor()
        .args([
            "call",
            "refactor_extract_function",
            &extract(json!(true)).to_string(),
            "--root",
        ])
        .arg(root)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    // Node's command line names candor's settings file in the cache.
    let running = |name: &str| {
        processes_mentioning(&needle)
            .iter()
            .any(|(_, cmd)| cmd.contains(name))
    };
    while !running("node") && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(running("node"), "basedpyright's Node process started");
    // SIGKILL: candor cannot clean up after itself.
    child.kill().unwrap();
    child.wait().unwrap();
    let killed = Instant::now();
    let left = || {
        let mut left = processes_mentioning(&needle);
        left.extend(
            processes_under(&cache)
                .into_iter()
                .map(|(pid, cwd)| (pid, cwd.display().to_string())),
        );
        left
    };
    while !left().is_empty() && killed.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(left(), vec![], "no checker survives candor");
}

#[test]
fn a_hostile_cache_is_refused_or_ignored_never_followed() {
    if !require(&["ruff"]) {
        return;
    }
    let env = Env::new();
    let project = package(&[("pkg/__init__.py", ""), ("pkg/geo.py", MODULE)]);
    let root = project.path();
    let (envelope, _) = env.call(root, "refactor_extract_function", &extract(json!(true)));
    assert_eq!(
        envelope["data"]["verification"]["state"], "clean",
        "{envelope:#}"
    );
    let verify = env.cache.path().join("candor/verify");
    let project_dir = std::fs::read_dir(&verify)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();

    // A manifest whose keys climb out of the shadow to a victim folder.
    let outside = tempfile::tempdir().unwrap();
    let victim = outside.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    std::fs::write(victim.join("precious.txt"), "keep me").unwrap();
    let manifest_path = project_dir.join("edit.manifest.json");
    let mut manifest: serde_json::Map<String, Value> =
        serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    let entry = manifest.values().next().unwrap().clone();
    let climb = "../".repeat(16) + victim.strip_prefix("/").unwrap().to_str().unwrap();
    manifest.insert("../../../../victim".to_string(), entry.clone());
    manifest.insert(climb, entry);
    std::fs::write(&manifest_path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    let (envelope, _) = env.call(root, "refactor_extract_function", &extract(json!(true)));
    assert_eq!(
        envelope["data"]["verification"]["state"], "clean",
        "{envelope:#}"
    );
    assert_eq!(
        std::fs::read_to_string(victim.join("precious.txt")).unwrap(),
        "keep me"
    );

    // A shadow folder that is a symbolic link to another folder: refused, nothing written there.
    let target = tempfile::tempdir().unwrap();
    std::fs::remove_dir_all(project_dir.join("edit")).unwrap();
    std::os::unix::fs::symlink(target.path(), project_dir.join("edit")).unwrap();
    let (envelope, _) = env.call(root, "refactor_extract_function", &extract(json!(true)));
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "unavailable", "{envelope:#}");
    assert!(
        verification["reason"]
            .as_str()
            .unwrap()
            .contains("is a symbolic link"),
        "{envelope:#}"
    );
    assert_eq!(std::fs::read_dir(target.path()).unwrap().count(), 0);
    assert_eq!(
        std::fs::read_to_string(root.join("pkg/geo.py")).unwrap(),
        MODULE
    );
}

#[test]
fn a_path_too_long_for_the_cache_does_not_stop_the_check() {
    if !require(&["ruff"]) {
        return;
    }
    // A file whose path fits the system's limit in the project, not behind the cache's longer
    // prefix.
    let project = package(&[("pkg/__init__.py", ""), ("pkg/geo.py", MODULE)]);
    let root = project.path().canonicalize().unwrap();
    let env = Env::new();
    let cache_prefix = env
        .cache
        .path()
        .join("candor/verify/0123456789abcdef01234567/edit/");
    let room = 4090 - root.as_os_str().len() - "/m.py".len();
    let mut deep = std::path::PathBuf::new();
    while deep.as_os_str().len() + 201 < room {
        deep.push("d".repeat(200));
    }
    let rest = room - deep.as_os_str().len() - 1;
    deep.push("e".repeat(rest.min(255)));
    std::fs::create_dir_all(root.join(&deep)).unwrap();
    std::fs::write(root.join(deep.join("m.py")), "x = 1\n").unwrap();
    assert!(cache_prefix.join(&deep).join("m.py").as_os_str().len() > 4096);
    let (envelope, _) = env.call(&root, "refactor_extract_function", &extract(json!(true)));
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "clean", "{envelope:#}");
}
