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
//!
//! The guard folders (one per project, cargo and binary) are touched at each server start; one
//! no server started from for [`UNUSED_DAYS`] is removed at the next start (`prune`), and
//! `candor cache --clear` removes them all (`verify::clear`), never following a link.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::workspace::Root;
use crate::workspace::dir::{Dir, Kind};

static PROGRAM: OnceLock<PathBuf> = OnceLock::new();

/// The folder of the guard folders under candor's cache root.
pub const GUARDS: &str = "cargo-guard";

/// A guard folder no server was started from for this many days goes at the next start.
pub const UNUSED_DAYS: u64 = 30;

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
    let home = base.join(GUARDS).join(&name);
    let bin = private_folder(&home.join("bin"))?;
    for dir in [base.join(GUARDS), home.clone()] {
        private_folder(&dir)?;
    }
    let path = bin.join("cargo");
    used_now(&base, &name);
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

/// Marks the guard folder `name` as used now (its modification time) and removes the others
/// unused for [`UNUSED_DAYS`]. Through handles opened without following a link; a failure
/// only means the folders stay.
fn used_now(base: &Path, name: &str) {
    let Ok((cache, _)) = crate::verify::cache::open_root(Some(base), None) else {
        return;
    };
    let Ok(Some(guards)) = cache.open_dir(std::ffi::OsStr::new(GUARDS)) else {
        return;
    };
    let now = std::time::SystemTime::now();
    if let Ok(Some(home)) = guards.open_dir(std::ffi::OsStr::new(name)) {
        let since = now
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let stamp = rustix::fs::Timespec {
            tv_sec: since.as_secs() as i64,
            tv_nsec: i64::from(since.subsec_nanos()) as _,
        };
        let _ = rustix::fs::futimens(
            home.as_fd(),
            &rustix::fs::Timestamps {
                last_access: stamp,
                last_modification: stamp,
            },
        );
    }
    prune(&guards, name, now, UNUSED_DAYS);
}

/// Removes the guard folders in `guards` (except `keep`) whose modification time is more than
/// `days` days before `now`; anything else there (a file, a link) is removed too, a link
/// without following it. Returns how many went.
pub(crate) fn prune(guards: &Dir, keep: &str, now: std::time::SystemTime, days: u64) -> usize {
    let Ok(entries) = guards.entries() else {
        return 0;
    };
    let limit = std::time::Duration::from_secs(days * 86_400);
    let mut removed = 0;
    for (entry, kind) in entries {
        if entry == keep {
            continue;
        }
        let old = kind != Kind::Dir
            || rustix::fs::statat(
                guards.as_fd(),
                &entry,
                rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
            )
            .is_ok_and(|stat| {
                let modified = std::time::UNIX_EPOCH
                    + std::time::Duration::from_secs(stat.st_mtime.max(0) as u64);
                now.duration_since(modified).is_ok_and(|age| age > limit)
            });
        if old && guards.remove_tree(&entry).is_ok() {
            removed += 1;
        }
    }
    removed
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

    /// A folder `name` under `guards` holding a script, last modified `days` ago.
    fn guard_folder(guards: &Path, name: &str, days: u64) {
        let home = guards.join(name);
        std::fs::create_dir_all(home.join("bin")).unwrap();
        std::fs::write(home.join("bin/cargo"), "#!/bin/sh\n").unwrap();
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(days * 86_400);
        std::fs::File::open(&home)
            .unwrap()
            .set_modified(when)
            .unwrap();
    }

    #[test]
    fn a_start_marks_its_guard_used_and_removes_those_unused_for_a_month() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().join("candor");
        let guards = base.join(GUARDS);
        guard_folder(&guards, "current", 90);
        guard_folder(&guards, "old", 31);
        guard_folder(&guards, "recent", 29);
        // A link to a folder outside, as old as can be: removed, its target untouched.
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("keep.txt"), "mine").unwrap();
        std::os::unix::fs::symlink(outside.path(), guards.join("link")).unwrap();
        std::fs::write(guards.join("stray"), "").unwrap();
        used_now(&base, "current");
        let mut left: Vec<String> = std::fs::read_dir(&guards)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["current", "recent"]);
        assert!(outside.path().join("keep.txt").exists());
        let age = std::fs::metadata(guards.join("current"))
            .unwrap()
            .modified()
            .unwrap()
            .elapsed()
            .unwrap_or_default();
        assert!(
            age.as_secs() < 60,
            "the used folder is marked used: {age:?}"
        );
        assert!(guards.join("current/bin/cargo").exists());
    }

    #[test]
    fn a_path_is_one_shell_word() {
        assert_eq!(quoted(Path::new("/a b/it's")), "'/a b/it'\\''s'");
    }
}
