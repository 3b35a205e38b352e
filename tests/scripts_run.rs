//! `scripts/run` with a stand-in `cargo` on PATH: the build's progress reaches the terminal
//! (the first build takes minutes; a blank screen for all that time looks like a hang), and the
//! built binary is started on the demo project (trusted first: it is candor's own), or on the
//! path given. And the README's walk-through from one shell: `./scripts/run`, the `export` line
//! it prints, then every `candor` example — with the real binary as the one built.

mod tui_common;

use std::path::Path;
use std::process::Command;

#[test]
fn scripts_run_shows_the_build_and_starts_candor_on_the_demo() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    let target = dir.path().join("target");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(target.join("release")).unwrap();
    // cargo prints its progress on stderr, as the real one does on a terminal.
    let cargo = bin.join("cargo");
    std::fs::write(
        &cargo,
        "#!/bin/sh\necho \"cargo $*\" >&2\necho '   Compiling candor v0.1.0' >&2\necho '    Building [=====>    ] 120/250' >&2\n",
    )
    .unwrap();
    let candor = target.join("release/candor");
    let log = dir.path().join("candor.log");
    std::fs::write(
        &candor,
        format!(
            "#!/bin/sh\necho \"candor $*\" >> '{}'\necho \"candor $*\"\n",
            log.display()
        ),
    )
    .unwrap();
    for file in [&cargo, &candor] {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(file, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/run");
    let run = |args: &[&str]| {
        let output = Command::new(&script)
            .args(args)
            .env("PATH", &path)
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .unwrap();
        assert!(output.status.success(), "{output:?}");
        (
            String::from_utf8(output.stdout).unwrap(),
            String::from_utf8(output.stderr).unwrap(),
        )
    };
    let (out, err) = run(&["--backend", "tree-sitter"]);
    assert!(
        err.contains("Compiling candor") && err.contains("Building ["),
        "cargo's progress is shown: {err}"
    );
    let cargo_line = err.lines().find(|l| l.starts_with("cargo ")).unwrap();
    assert!(cargo_line.contains("build --release"), "{cargo_line}");
    assert!(!cargo_line.contains("--quiet"), "{cargo_line}");
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
    assert_eq!(
        out.trim_end(),
        format!("candor {} --backend tree-sitter", demo.display())
    );
    // The demo is trusted first (its own check needs it), and it says how to get `candor` on
    // PATH in this shell.
    let calls = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        calls.lines().next(),
        Some(format!("candor trust {}", demo.display()).as_str()),
        "{calls}"
    );
    assert!(
        err.contains(&format!(
            "export PATH=\"{}:$PATH\"",
            target.join("release").display()
        )),
        "{err}"
    );
    std::fs::remove_file(&log).unwrap();
    let (out, _) = run(&["some/project"]);
    assert_eq!(out.trim_end(), "candor some/project");
    let calls = std::fs::read_to_string(&log).unwrap();
    assert!(
        !calls.contains("trust"),
        "another project is never trusted: {calls}"
    );
}

/// The bodies of the ```sh blocks of the README.
fn sh_blocks() -> Vec<String> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let mut found = Vec::new();
    let mut rest = readme.as_str();
    while let Some(start) = rest.find("```sh\n") {
        let body = &rest[start + 6..];
        let end = body.find("```").unwrap();
        found.push(body[..end].to_string());
        rest = &body[end + 3..];
    }
    found
}

#[test]
fn the_readme_walk_through_works_from_one_shell_after_scripts_run() {
    let dir = tempfile::tempdir().unwrap();
    // The repository as a user has it: scripts/run, the demo, and `target/release/candor` (the
    // real binary; the build itself is a stand-in `cargo` here).
    let repo = dir.path().join("candor");
    tui_common::copy_tree(&tui_common::demo_dir(), &repo.join("assets/demo"));
    std::fs::create_dir_all(repo.join("scripts")).unwrap();
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/run"),
        repo.join("scripts/run"),
    )
    .unwrap();
    std::fs::create_dir_all(repo.join("target/release")).unwrap();
    std::os::unix::fs::symlink(
        env!("CARGO_BIN_EXE_candor"),
        repo.join("target/release/candor"),
    )
    .unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    // `cargo build` is the stand-in's; anything else (the check's cargo metadata and cargo
    // check) goes to the real cargo.
    std::fs::write(
        bin.join("cargo"),
        format!(
            "#!/bin/sh\nif [ \"$1\" = build ]; then exit 0; fi\nexec '{}' \"$@\"\n",
            env!("CARGO")
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(bin.join("cargo"), std::fs::Permissions::from_mode(0o755)).unwrap();
    // No `candor` on PATH before the walk-through puts it there.
    let mut paths = vec![bin];
    paths.extend(
        std::env::split_paths(&tui_common::path_with_venv()).filter(|p| !p.join("candor").exists()),
    );
    let path = std::env::join_paths(paths).unwrap();

    // One shell: the set-up block's lines in order (the TUI opened in a pseudo-terminal and left
    // after its first frame), then every `candor` example of the README.
    let blocks = sh_blocks();
    let setup = blocks
        .iter()
        .find(|b| b.contains("./scripts/run"))
        .expect("a set-up block with ./scripts/run");
    let mut script = String::from("set -e\ncommand -v candor && exit 90\n");
    for line in setup.lines() {
        let command = line.split("  #").next().unwrap().trim();
        if command.starts_with("./scripts/run") {
            script.push_str(&format!(
                "CANDOR_EXIT_AFTER_FIRST_FRAME=1 script -qec '{command}' /dev/null > /dev/null\n"
            ));
        } else if command.starts_with("./scripts/test") || command.is_empty() {
            continue;
        } else {
            script.push_str(command);
            script.push('\n');
        }
    }
    // Then the README's line that puts the built candor on PATH, in the same shell.
    let export = blocks
        .iter()
        .flat_map(|b| b.lines())
        .find(|l| l.trim_start().starts_with("export PATH="))
        .expect("the README says how to put candor on PATH");
    script.push_str(export.split("  #").next().unwrap().trim());
    script.push('\n');
    script.push_str("candor trust --list\n");
    // The demo's Rust check runs: no second shell was needed to trust it.
    script.push_str(
        "candor call refactor_extract_function '{\"file_path\": \"rust/src/lib.rs\", \"start_line\": 52, \"end_line\": 54, \"new_name\": \"print_header\", \"verify\": true}' --root assets/demo --backend tree-sitter > check.json\n",
    );
    for block in &blocks {
        for line in block.lines().filter(|l| l.starts_with("candor ")) {
            script.push_str(line);
            script.push_str(" > /dev/null\n");
        }
    }
    let out = std::process::Command::new("bash")
        .args(["-c", &script])
        .current_dir(&repo)
        .env("PATH", &path)
        .env("XDG_CONFIG_HOME", dir.path().join("config"))
        .env("XDG_CACHE_HOME", dir.path().join("cache"))
        .env_remove("CANDOR_BACKEND")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "the walk-through failed:\n{script}\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let demo = repo.join("assets/demo").canonicalize().unwrap();
    assert!(
        stdout.contains(&format!("{}  (trusted)", demo.display())),
        "scripts/run trusted the demo: {stdout}"
    );
    let check: serde_json::Value =
        serde_json::from_slice(&std::fs::read(repo.join("check.json")).unwrap()).unwrap();
    assert_eq!(
        check["data"]["verification"]["state"], "clean",
        "{:#}",
        check["data"]["verification"]
    );
}
