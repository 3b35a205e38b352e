//! `scripts/run` with a stand-in `cargo` on PATH: the build's progress reaches the terminal
//! (the first build takes minutes; a blank screen for all that time looks like a hang), and the
//! built binary is started on the demo project, or on the path given.

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
    std::fs::write(&candor, "#!/bin/sh\necho \"candor $*\"\n").unwrap();
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
    let (out, _) = run(&["some/project"]);
    assert_eq!(out.trim_end(), "candor some/project");
}
