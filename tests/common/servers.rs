//! The real language servers for the tests that start them: PATH as `scripts/test` sets it
//! (this repository's `.venv/bin` first), and whether a server is installed — when one is
//! missing the test fails in CI (`CI` set) and is skipped, saying so, elsewhere.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// PATH as `scripts/test` sets it: the repository's `.venv/bin` first.
pub fn path_env() -> OsString {
    let venv = manifest_dir().join(".venv/bin");
    let mut paths = vec![venv];
    if let Some(current) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&current));
    }
    std::env::join_paths(paths).unwrap()
}

pub fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("CANDOR_TEST_PYTHON") {
        return PathBuf::from(python);
    }
    let venv = manifest_dir().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

/// Whether `program --version` runs (a rustup proxy without its component does not).
pub fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .env("PATH", path_env())
        .output()
        .is_ok_and(|o| o.status.success())
}

/// True when every server is installed; otherwise fails in CI and skips (loudly) elsewhere.
pub fn require(programs: &[&str]) -> bool {
    let missing: Vec<&str> = programs.iter().copied().filter(|p| !runs(p)).collect();
    if missing.is_empty() {
        return true;
    }
    let message = format!(
        "{} not installed; scripts/test installs the language servers (rustup component rust-analyzer, .venv with tests/requirements.txt)",
        missing.join(", ")
    );
    assert!(!in_ci(), "CI must run the real-server tests: {message}");
    eprintln!("SKIPPED (CI unset): {message}");
    false
}

/// Gives `auto` all the time a real server needs in the user config under `config_home` (the
/// test's `XDG_CONFIG_HOME`), unless the test wrote one: a cold rust-analyzer takes more than
/// `auto`'s default 5 s to load a crate on a loaded machine, and these tests are about what the
/// server does, not about the budget (tests/lsp_budget.rs is).
pub fn patient_auto(config_home: &Path) {
    let file = config_home.join("candor/config.toml");
    if file.exists() {
        return;
    }
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        "[auto]\nbudget_ms = 600000\napply_budget_ms = 600000\n",
    )
    .unwrap();
}
