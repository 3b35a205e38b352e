//! The cargo guard: what rust-analyzer runs as `CARGO` in a project the user has not trusted.
//! A cargo configuration can appear during a session, and rust-analyzer reloads the workspace by
//! itself (`cargo metadata`, `cargo config get env`) before candor's next request can stop it;
//! an `[env]` entry with `force = true` (`LD_PRELOAD`…) beats every environment candor gives it
//! (`project_guard::cargo_overrides`). So rust-analyzer's cargo (its `CARGO`, and the
//! `bin/cargo` of its own `CARGO_HOME`, which it prefers) is a small script in candor's own
//! cache that runs `candor cargo-guard --root ROOT -- CARGO ARGS…`: at every run, the guard
//! re-reads the project's cargo configuration the way the start does (`project_guard`) and
//! refuses to run cargo while anything it refuses is there; otherwise it execs the real cargo.
//!
//! Only the `candor` binary can be the guard (`enable`, from `main`); a library user's servers
//! get the overrides alone, as before.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::workspace::Root;

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// Lets `launch` point an untrusted rust-analyzer's `CARGO` at a guard that runs `program`
/// (the `candor` binary itself, which has the hidden `cargo-guard` subcommand).
pub fn enable(program: PathBuf) {
    let _ = PROGRAM.set(program);
}

/// A cargo home for rust-analyzer whose `bin/cargo` is the guard for `root` and the real
/// `cargo`: rust-analyzer takes `$CARGO_HOME/bin/cargo` before `$CARGO` once it knows the
/// sysroot (`toolchain::Tool::prefer_proxy`), so the server's `CARGO_HOME` is this folder and
/// `CARGO` its script; the script gives cargo back the user's `cargo_home`. Written (once per
/// content) under `<cache>/cargo-guard/` (0700 folders of this user, never inside the project);
/// `None` when the guard is not enabled or cannot be written — the server then has the
/// overrides alone.
pub(super) fn home(root: &Path, cargo: &Path, cargo_home: &Path) -> Option<PathBuf> {
    let program = PROGRAM.get()?;
    let base = crate::verify::cache::cache_root()?;
    if base.starts_with(root) {
        return None;
    }
    let text = format!(
        "#!/bin/sh\nCARGO_HOME={}\nexport CARGO_HOME\nexec {} cargo-guard --root {} -- {} \"$@\"\n",
        quoted(cargo_home),
        quoted(program),
        quoted(root),
        quoted(cargo)
    );
    let name = {
        use sha2::Digest;
        hex::encode(&sha2::Sha256::digest(text.as_bytes())[..12])
    };
    let home = base.join("cargo-guard").join(name);
    let bin = private_folder(&home.join("bin"))?;
    for dir in [base.join("cargo-guard"), home.clone()] {
        private_folder(&dir)?;
    }
    let path = bin.join("cargo");
    if std::fs::read_to_string(&path).is_ok_and(|old| old == text) {
        return Some(home);
    }
    let mut file = tempfile::Builder::new()
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o700))
        .tempfile_in(&bin)
        .ok()?;
    file.write_all(text.as_bytes()).ok()?;
    file.as_file().sync_all().ok()?;
    // A running file cannot be replaced in place (`ETXTBSY`); a rename never touches it.
    file.persist(&path).ok()?;
    Some(home)
}

/// `dir` created 0700 when missing; `None` unless it is a real folder (not a link) of this user
/// that nobody else may write.
fn private_folder(dir: &Path) -> Option<PathBuf> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let _ = std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir);
    let meta = std::fs::symlink_metadata(dir).ok()?;
    let ours = meta.uid() == rustix::process::getuid().as_raw();
    (meta.is_dir() && ours && meta.mode() & 0o022 == 0).then(|| dir.to_path_buf())
}

/// `path` as one single-quoted shell word.
fn quoted(path: &Path) -> String {
    format!("'{}'", path.to_string_lossy().replace('\'', "'\\''"))
}

/// Why the guard refuses to run cargo for the project at `root` from `cwd`, if it does: what the
/// start refuses (`project_guard::rust_problem`), read again now, from the folder cargo starts
/// in (or the root, when that is outside it) up to the root.
pub fn refusal(root: &Path, cwd: &Path) -> Option<String> {
    let root = match Root::new(root) {
        Ok(root) => root,
        Err(e) => {
            return Some(format!(
                "the project {} cannot be read: {e}",
                root.display()
            ));
        }
    };
    let cwd = cwd.canonicalize().unwrap_or_else(|_| cwd.to_path_buf());
    let workspace = if cwd.starts_with(root.path()) {
        cwd
    } else {
        root.path().to_path_buf()
    };
    super::project_guard::rust_problem(&root, &workspace)
}

/// The guard itself (`candor cargo-guard --root ROOT -- CARGO ARGS…`): refuses with a message
/// on stderr, or runs the real cargo in its place with the same overrides as the server's.
/// Returns only when cargo cannot run (the error to print).
pub fn run(root: &Path, command: &[OsString]) -> String {
    let Some((cargo, args)) = command.split_first() else {
        return "cargo-guard: no cargo to run (usage: candor cargo-guard --root ROOT -- CARGO ARGS…)"
            .to_string();
    };
    let cwd = std::env::current_dir().unwrap_or_else(|_| root.to_path_buf());
    if let Some(what) = refusal(root, &cwd) {
        return format!(
            "cargo-guard: candor refuses to run cargo in {}, a project the user has not trusted: {what}; run `candor trust` on the project if you trust it",
            root.display()
        );
    }
    let toolchain = std::env::var("RUSTUP_TOOLCHAIN").ok();
    let mut child = std::process::Command::new(cargo);
    child.args(args);
    for (name, value) in super::project_guard::cargo_overrides(root, toolchain.as_deref()) {
        if name != "CARGO" {
            child.env(name, value);
        }
    }
    child.env("CARGO", cargo);
    let error = std::os::unix::process::CommandExt::exec(&mut child);
    format!(
        "cargo-guard: {} could not run: {error}",
        Path::new(cargo).display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_guard_refuses_what_appeared_from_the_folder_cargo_starts_in_up_to_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("crates/a")).unwrap();
        assert_eq!(refusal(&root, &root.join("crates/a")), None);
        std::fs::create_dir_all(root.join(".cargo")).unwrap();
        std::fs::write(
            root.join(".cargo/config.toml"),
            "[env]\nLD_PRELOAD = { value = \"x.so\", force = true }\n",
        )
        .unwrap();
        for cwd in [root.join("crates/a"), root.clone(), PathBuf::from("/")] {
            let why = refusal(&root, &cwd).unwrap();
            assert!(
                why.contains(".cargo/config.toml") && why.contains("`env`"),
                "{why}"
            );
        }
        std::fs::write(root.join(".cargo/config.toml"), "[build]\njobs = 2\n").unwrap();
        assert_eq!(refusal(&root, &root), None);
    }

    #[test]
    fn a_path_is_one_shell_word() {
        assert_eq!(quoted(Path::new("/a b/it's")), "'/a b/it'\\''s'");
    }
}
