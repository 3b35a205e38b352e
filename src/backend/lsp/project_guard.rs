//! What a project could make a language server run, and how candor prevents it in a project the
//! user has not trusted (see `trust`). Decides before a server starts: the environment it gets
//! and whether it may start at all; starts nothing itself (except asking `rustup` which toolchain
//! is the user's default, from outside the project).
//!
//! - rust-analyzer (and cargo, which it runs) go through rustup proxies that honour the project's
//!   `rust-toolchain(.toml)` — a `path = …` toolchain would run the repository's own binaries:
//!   the server gets `RUSTUP_TOOLCHAIN` pinned to the user's default toolchain.
//! - cargo honours `.cargo/config(.toml)` from the workspace up (`build.rustc`, wrappers,
//!   linkers, runners, `[env]`, `include`…), and rust-analyzer runs `cargo metadata`, which runs
//!   rustc as configured: a cargo configuration with any key outside a list of keys that cannot
//!   name a program refuses the start, naming the key. So do a `rust-analyzer.toml` (it can set
//!   override commands) and a `rust-project.json` (it names a sysroot and commands).
//! - A cargo configuration can also appear after the start, and rust-analyzer reloads the
//!   workspace by itself on a `Cargo.toml` change, before candor's next request can stop it
//!   (`trust_stamp`): the server's environment, repeated as `cargo.extraEnv`, overrides what such
//!   a configuration could make cargo run (`cargo_overrides`), and its cargo is candor's cargo
//!   guard, which refuses to run cargo while the configuration holds what the start refuses
//!   (`guard_cargo`, `cargo_guard`).
//! - pylsp-rope opens the project with rope, which executes `.ropeproject/config.py` and unpickles
//!   the data files there, and imports the `extension_modules` of `[tool.rope]` in
//!   `pyproject.toml`: either refuses the start. (pylsp-rope ignores pylsp's `rope.ropeFolder`
//!   setting, so the folder cannot be redirected.) Every pylsp plugin candor does not use is
//!   disabled and pylsp reads no project config file (`configurationSources: []`), so no
//!   plugin's `executable` setting comes into play; jedi keeps its default of never loading
//!   compiled extensions found in the project.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::lang::Language;
use crate::trust::Trust;
use crate::workspace::Root;

use super::LspFailure;
use super::servers::{CommandLine, Flavor};

/// How a server may be started: extra environment variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Launch {
    pub env: Vec<(String, String)>,
    /// What rust-analyzer must also give every cargo it runs (`cargo.extraEnv`, which wins over
    /// the `[env]` of the project's cargo configuration that rust-analyzer passes on): the whole
    /// `env` of a rust-analyzer in an untrusted project, empty otherwise.
    pub cargo_env: Vec<(String, String)>,
    /// The interpreter pyrefly is told to query (`python.pythonPath`) in an untrusted project,
    /// instead of one it would find itself (the project's `.venv/bin/python`).
    pub python: Option<String>,
    /// rust-analyzer watches no file itself (`files.watcher = "client"`): candor tells it what
    /// changed at the start of each request, after the trust stamp was checked (`watched`).
    /// Set in an untrusted project.
    pub client_watching: bool,
}

/// Checks the project before a server for `lang` starts in `workspace`. A trusted project is
/// started as the user would start it; an untrusted one gets the pinned toolchain, or a refusal
/// saying what in the project would run and how to trust it. Either way the server's PATH has
/// no relative entry and none inside the project (see `programs`): what it runs by name (cargo,
/// rustc, python) is never the project's own.
pub fn launch(
    lang: Language,
    command: &CommandLine,
    root: &Root,
    workspace: &Path,
    trust: &Trust,
) -> Result<Launch, LspFailure> {
    let mut launch = launch_for_trust(lang, command, root, workspace, trust)?;
    if let Some(path) = crate::programs::child_path(root.path()) {
        launch
            .env
            .push(("PATH".to_string(), path.to_string_lossy().into_owned()));
    }
    if !launch.cargo_env.is_empty() {
        launch.cargo_env = launch.env.clone();
        guard_cargo(&mut launch, root.path());
    }
    Ok(launch)
}

fn launch_for_trust(
    lang: Language,
    command: &CommandLine,
    root: &Root,
    workspace: &Path,
    trust: &Trust,
) -> Result<Launch, LspFailure> {
    if trust.allows_project_programs() {
        return Ok(Launch::default());
    }
    let refuse = |what: String| {
        Err(LspFailure::Untrusted(format!(
            "{} is not started: {}",
            command.label(),
            trust.refusal(&what)
        )))
    };
    let problem = match (lang, command.flavor_guess()) {
        (Language::Rust, _) => rust_problem(root, workspace),
        (Language::Python, Flavor::JediLanguageServer) => None,
        (Language::Python, Flavor::Pyrefly) => pyrefly_problem(root),
        (Language::Python, _) => rope_problem(root),
    };
    if let Some(what) = problem {
        return refuse(what);
    }
    if command.flavor_guess() == Flavor::Pyrefly {
        return match safe_python(root.path()) {
            Some(python) => Ok(Launch {
                python: Some(python),
                ..Launch::default()
            }),
            None => refuse(
                "pyrefly without an interpreter of yours to query (python3 or python on PATH): it would look for one in the project, such as its .venv/bin/python".to_string(),
            ),
        };
    }
    if lang != Language::Rust {
        return Ok(Launch::default());
    }
    let mut env = match pinned_toolchain(root.path()) {
        Ok(Some(toolchain)) => vec![("RUSTUP_TOOLCHAIN".to_string(), toolchain)],
        Ok(None) => Vec::new(),
        Err(reason) => match toolchain_file(root, workspace) {
            Some(file) => {
                return refuse(format!(
                    "the toolchain {file} names ({reason}, so candor cannot use the user's default instead)"
                ));
            }
            None => Vec::new(),
        },
    };
    let toolchain = env.first().map(|(_, name)| name.clone());
    env.extend(cargo_overrides(root.path(), toolchain.as_deref()));
    Ok(Launch {
        cargo_env: env.clone(),
        env,
        python: None,
        client_watching: true,
    })
}

/// The environment that makes cargo ignore what a project's cargo configuration could make it
/// run, for a rust-analyzer started in an untrusted project. The check above refuses such a
/// configuration when the server starts; this covers one that appears later, when rust-analyzer
/// reloads the workspace by itself (its own file watcher, on a `Cargo.toml` change) before
/// candor's next request can stop it (`trust_stamp`). Each was tried with the real cargo
/// (`cargo metadata`, `cargo check`); the environment beats the configuration:
/// - `RUSTC_WRAPPER` and `RUSTC_WORKSPACE_WRAPPER` empty: no wrapper (`build.rustc-wrapper`,
///   `build.rustc-workspace-wrapper`, also when they come through `include`);
/// - `RUSTC` and `RUSTDOC`: the pinned toolchain's own, by absolute path (`build.rustc`,
///   `build.rustdoc`); left out when neither rustup nor PATH has one;
/// - `CARGO_ENCODED_RUSTFLAGS` and `CARGO_ENCODED_RUSTDOCFLAGS` empty: no flags from
///   `build.rustflags`, `target.<triple>.rustflags` (`-C linker=…`), `profile.*.rustflags`;
/// - `CARGO` too, which rust-analyzer runs instead of the `cargo` on PATH;
/// - `LD_PRELOAD`, `LD_AUDIT`, `LD_LIBRARY_PATH`, `HOME`, `CARGO_HOME`, `RUSTUP_HOME` as the
///   user has them (the loader ones empty when unset): an `[env]` entry without `force = true`
///   does not replace a variable that is set.
///
/// rust-analyzer itself passes the configuration's `[env]` to the cargo it runs; the same
/// variables go to it as `cargo.extraEnv`, which wins (see `Launch::cargo_env`).
///
/// Not covered by the environment: an `[env]` entry with `force = true` (cargo gives it to the
/// rustc it runs for `cargo metadata` whatever the environment), and `[env]` entries of other
/// variables — the cargo guard covers those (`guard_cargo`); `target.<triple>.linker` and
/// `runner` (nothing rust-analyzer runs links or runs a binary: build scripts and `cargo check`
/// are off, see `servers::Flavor::settings`), which the guard refuses too.
pub(super) fn cargo_overrides(root: &Path, toolchain: Option<&str>) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = [
        "RUSTC_WRAPPER",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_ENCODED_RUSTDOCFLAGS",
    ]
    .iter()
    .map(|name| (name.to_string(), String::new()))
    .collect();
    for name in ["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH"] {
        let value = std::env::var_os(name).unwrap_or_default();
        env.push((name.to_string(), value.to_string_lossy().into_owned()));
    }
    let home = std::env::var_os("HOME").map(PathBuf::from);
    for (name, default) in [
        ("HOME", ""),
        ("CARGO_HOME", ".cargo"),
        ("RUSTUP_HOME", ".rustup"),
    ] {
        let value = std::env::var_os(name)
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|home| home.join(default)));
        if let Some(value) = value {
            env.push((name.to_string(), value.to_string_lossy().into_owned()));
        }
    }
    for (var, program) in [
        ("CARGO", "cargo"),
        ("RUSTC", "rustc"),
        ("RUSTDOC", "rustdoc"),
    ] {
        if let Some(path) = toolchain_program(root, toolchain, program) {
            env.push((var.to_string(), path.to_string_lossy().into_owned()));
        }
    }
    env
}

/// Points an untrusted rust-analyzer's cargo at candor's cargo guard for `root`, when the guard
/// is enabled: an `[env]` entry with `force = true` beats every variable of `cargo_overrides`,
/// so the guard re-reads the configuration at each of rust-analyzer's cargo runs and refuses to
/// run cargo while it holds anything the start refuses (see `cargo_guard`). `CARGO` (here and in
/// `cargo.extraEnv`) is the guard; the server's own `CARGO_HOME` is the guard's home, whose
/// `bin/cargo` rust-analyzer prefers to `CARGO` (cargo itself gets the user's back).
fn guard_cargo(launch: &mut Launch, root: &Path) {
    let get = |name: &str| {
        launch
            .env
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| PathBuf::from(v))
    };
    let (Some(cargo), Some(cargo_home)) = (get("CARGO"), get("CARGO_HOME")) else {
        return;
    };
    let Some(home) = super::cargo_guard::home(root, &cargo, &cargo_home) else {
        return;
    };
    let script = home.join("bin/cargo").to_string_lossy().into_owned();
    let home = home.to_string_lossy().into_owned();
    for (env, own_home) in [(&mut launch.env, true), (&mut launch.cargo_env, false)] {
        for (name, value) in env.iter_mut() {
            match name.as_str() {
                "CARGO" => *value = script.clone(),
                "CARGO_HOME" if own_home => *value = home.clone(),
                _ => {}
            }
        }
    }
}

/// The absolute path of `program` in the pinned toolchain: `rustup which` (with
/// `RUSTUP_TOOLCHAIN` when candor pins one), run from `/` so that no project's toolchain file is
/// read; without rustup, the program found on PATH outside the project. Asked once per process.
fn toolchain_program(root: &Path, toolchain: Option<&str>, program: &str) -> Option<PathBuf> {
    static FOUND: OnceLock<std::sync::Mutex<Vec<(String, Option<PathBuf>)>>> = OnceLock::new();
    let key = format!("{}/{program}", toolchain.unwrap_or(""));
    let cache = FOUND.get_or_init(Default::default);
    if let Some((_, found)) = cache.lock().ok()?.iter().find(|(k, _)| *k == key).cloned() {
        return found;
    }
    let found = match crate::programs::find("rustup", root).found {
        Some(rustup) => {
            let mut command = std::process::Command::new(rustup);
            command
                .args(["which", program])
                .current_dir("/")
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null());
            if let Some(name) = toolchain {
                command.env("RUSTUP_TOOLCHAIN", name);
            }
            command.output().ok().and_then(|output| {
                let text = String::from_utf8_lossy(&output.stdout).trim().to_string();
                let path = PathBuf::from(text);
                (output.status.success() && path.is_absolute() && !path.starts_with(root))
                    .then_some(path)
            })
        }
        None => crate::programs::find(program, root).found,
    };
    if let Ok(mut cache) = cache.lock() {
        cache.push((key, found.clone()));
    }
    found
}

/// The directories from `workspace` up to the root, nearest first (those whose settings cargo
/// and rustup read that the project controls).
pub(super) fn ancestors(root: &Root, workspace: &Path) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    let mut dir = workspace.to_path_buf();
    loop {
        if !dir.starts_with(root.path()) {
            break;
        }
        dirs.push(dir.clone());
        if !dir.pop() {
            break;
        }
    }
    dirs
}

fn shown(root: &Root, path: &Path) -> String {
    root.relative_of(path)
        .unwrap_or_else(|| path.display().to_string())
}

/// What in a Rust workspace would make rust-analyzer or cargo run a program of the project.
pub(super) fn rust_problem(root: &Root, workspace: &Path) -> Option<String> {
    for dir in ancestors(root, workspace) {
        for name in [
            "rust-project.json",
            "rust-analyzer.toml",
            ".rust-analyzer.toml",
        ] {
            let path = dir.join(name);
            if std::fs::symlink_metadata(&path).is_ok() {
                return Some(format!(
                    "rust-analyzer with the project's {} (it can name programs to run)",
                    shown(root, &path)
                ));
            }
        }
        for name in [".cargo/config.toml", ".cargo/config"] {
            let path = dir.join(name);
            if std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            if let Some(key) = cargo_config_problem(&path) {
                return Some(format!(
                    "cargo with the project's {}, whose `{key}` can make cargo run a program",
                    shown(root, &path)
                ));
            }
        }
    }
    find_below(workspace, &["rust-analyzer.toml", ".rust-analyzer.toml"]).map(|path| {
        format!(
            "rust-analyzer with the project's {} (it can name programs to run)",
            shown(root, &path)
        )
    })
}

/// The first key of a cargo configuration file that could name a program (or the reason it
/// cannot be read), `None` when every key is one that cannot.
fn cargo_config_problem(path: &Path) -> Option<String> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => return Some(format!("(unreadable: {e})")),
    };
    let table = match text.parse::<toml::Table>() {
        Ok(table) => table,
        Err(_) => return Some("(it does not parse)".to_string()),
    };
    cargo_keys_problem(&table)
}

/// Keys of a cargo configuration that cannot make cargo run anything: everything else (`env`,
/// `include`, `target`, `host`, `unstable`, `build.rustc*`, `build.rustflags`, credential
/// providers…) is refused. An allow-list, so a key cargo adds later is refused too.
fn cargo_keys_problem(table: &toml::Table) -> Option<String> {
    const FREE: [&str; 7] = [
        "alias",
        "cargo-new",
        "future-incompat-report",
        "http",
        "patch",
        "source",
        "term",
    ];
    const BUILD: [&str; 7] = [
        "jobs",
        "target",
        "target-dir",
        "build-dir",
        "incremental",
        "dep-info-basedir",
        "pipelining",
    ];
    for (key, value) in table {
        let sub = |allowed: &dyn Fn(&str) -> bool| -> Option<String> {
            let toml::Value::Table(inner) = value else {
                return Some(key.clone());
            };
            inner
                .iter()
                .find(|(k, _)| !allowed(k))
                .map(|(k, _)| format!("{key}.{k}"))
        };
        let problem = match key.as_str() {
            k if FREE.contains(&k) => None,
            "build" => sub(&|k| BUILD.contains(&k)),
            "net" => sub(&|k| k == "retry" || k == "offline"),
            "resolver" | "cache" => None,
            "profile" => {
                let toml::Value::Table(profiles) = value else {
                    return Some(key.clone());
                };
                profiles.iter().find_map(|(name, profile)| {
                    profile.as_table().and_then(|p| {
                        p.keys()
                            .find(|k| k.contains("rustflags"))
                            .map(|k| format!("profile.{name}.{k}"))
                    })
                })
            }
            "registries" => {
                let toml::Value::Table(registries) = value else {
                    return Some(key.clone());
                };
                registries.iter().find_map(|(name, registry)| {
                    registry.as_table().and_then(|r| {
                        r.keys()
                            .find(|k| *k != "index" && *k != "protocol")
                            .map(|k| format!("registries.{name}.{k}"))
                    })
                })
            }
            "registry" => sub(&|k| k == "default"),
            _ => Some(key.clone()),
        };
        if problem.is_some() {
            return problem;
        }
    }
    None
}

/// A file named one of `names` in `dir` or below it (links not followed; `target`, `.git` and
/// `node_modules` not entered).
fn find_below(dir: &Path, names: &[&str]) -> Option<PathBuf> {
    find_below_where(dir, names, &|_| true)
}

/// Like `find_below`, the first such file for which `wanted` holds.
fn find_below_where(dir: &Path, names: &[&str], wanted: &dyn Fn(&Path) -> bool) -> Option<PathBuf> {
    let mut stack = vec![(dir.to_path_buf(), 0usize)];
    while let Some((current, depth)) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&current) else {
            continue;
        };
        for entry in read.flatten() {
            let name = entry.file_name();
            let Ok(file_type) = entry.file_type() else {
                continue;
            };
            if names.iter().any(|n| name == *n) && wanted(&entry.path()) {
                return Some(entry.path());
            }
            if file_type.is_dir()
                && depth < 64
                && !["target", ".git", "node_modules", ".candor"]
                    .iter()
                    .any(|skip| name == *skip)
            {
                stack.push((entry.path(), depth + 1));
            }
        }
    }
    None
}

/// The project's toolchain file nearest the workspace, if any (for messages).
fn toolchain_file(root: &Root, workspace: &Path) -> Option<String> {
    ancestors(root, workspace).into_iter().find_map(|dir| {
        ["rust-toolchain.toml", "rust-toolchain"]
            .iter()
            .map(|name| dir.join(name))
            .find(|path| std::fs::symlink_metadata(path).is_ok())
            .map(|path| shown(root, &path))
    })
}

/// The toolchain to pin for a server in an untrusted project: `Ok(None)` when nothing needs
/// pinning (the user pinned one already with `RUSTUP_TOOLCHAIN`, or there is no rustup whose
/// proxies would read the project's toolchain file); the user's default otherwise, asked of
/// `rustup default` once per process, from `/`.
fn pinned_toolchain(root: &Path) -> Result<Option<String>, String> {
    static DEFAULT: OnceLock<Result<Option<String>, String>> = OnceLock::new();
    if std::env::var_os("RUSTUP_TOOLCHAIN").is_some() {
        return Ok(None);
    }
    DEFAULT
        .get_or_init(|| {
            let Some(rustup) = crate::programs::find("rustup", root).found else {
                return Ok(None);
            };
            let output = std::process::Command::new(rustup)
                .arg("default")
                .current_dir("/")
                .stdin(std::process::Stdio::null())
                .stderr(std::process::Stdio::null())
                .output()
                .map_err(|e| format!("`rustup default` could not run: {e}"))?;
            let text = String::from_utf8_lossy(&output.stdout);
            match text.split_whitespace().next() {
                Some(name) if output.status.success() && !name.is_empty() => {
                    Ok(Some(name.to_string()))
                }
                _ => Err("rustup has no default toolchain".to_string()),
            }
        })
        .clone()
}

/// What in the project pylsp-rope would execute: `.ropeproject` (its `config.py` runs and its
/// data files are unpickled), or `[tool.rope] extension_modules` in `pyproject.toml` (imported).
/// An empty `.ropeproject` folder, as rope itself leaves it, is harmless.
fn rope_problem(root: &Root) -> Option<String> {
    let folder = root.path().join(".ropeproject");
    if let Ok(meta) = std::fs::symlink_metadata(&folder) {
        let empty_dir = meta.is_dir()
            && std::fs::read_dir(&folder).is_ok_and(|mut entries| entries.next().is_none());
        if !empty_dir {
            return Some(
                "pylsp-rope with the project's .ropeproject (rope executes its config.py and loads its data files)"
                    .to_string(),
            );
        }
    }
    let pyproject = std::fs::read_to_string(root.path().join("pyproject.toml")).ok()?;
    let table = pyproject.parse::<toml::Table>().ok()?;
    let rope = table.get("tool")?.get("rope")?.as_table()?;
    let risky: BTreeSet<&str> = rope
        .keys()
        .map(String::as_str)
        .filter(|k| *k == "extension_modules")
        .collect();
    (!risky.is_empty()).then(|| {
        "pylsp-rope with the `[tool.rope] extension_modules` of the project's pyproject.toml (rope imports those modules)".to_string()
    })
}

/// What in the project pyrefly would take its settings from: a `pyrefly.toml`, or a
/// `pyproject.toml` with a `[tool.pyrefly]` table, anywhere in the project (pyrefly looks for
/// the nearest one above each file). Either can name an interpreter to run
/// (`python-interpreter-path`, `fallback-python-interpreter-name`, `conda-environment`) or a
/// build system to query, so neither is read in an untrusted project: the start is refused.
fn pyrefly_problem(root: &Root) -> Option<String> {
    let has_table = |path: &Path| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|text| text.parse::<toml::Table>().ok())
            .is_some_and(|table| table.get("tool").and_then(|t| t.get("pyrefly")).is_some())
    };
    let found = find_below(root.path(), &["pyrefly.toml"])
        .or_else(|| find_below_where(root.path(), &["pyproject.toml"], &has_table))?;
    Some(format!(
        "pyrefly with the project's {} (its settings can name an interpreter or a build system to run)",
        shown(root, &found)
    ))
}

/// The interpreter pyrefly queries in an untrusted project: `python3` (else `python`) on PATH,
/// outside the project — never the project's `.venv`, which pyrefly would find by itself.
fn safe_python(root: &Path) -> Option<String> {
    ["python3", "python"].iter().find_map(|name| {
        crate::programs::find(name, root)
            .found
            .map(|path| path.to_string_lossy().into_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Option<String> {
        cargo_keys_problem(&text.parse::<toml::Table>().unwrap())
    }

    #[test]
    fn cargo_keys_that_can_name_a_program_are_found() {
        assert_eq!(
            keys("[alias]\nb = \"build\"\n[build]\ntarget-dir = \"t\"\njobs = 2\n"),
            None
        );
        assert_eq!(
            keys("[net]\nretry = 3\n[registries.x]\nindex = \"u\"\n"),
            None
        );
        for (text, key) in [
            ("[build]\nrustc = \"/bin/sh\"\n", "build.rustc"),
            ("[build]\nrustc-wrapper = \"w\"\n", "build.rustc-wrapper"),
            ("[build]\nrustflags = [\"-Clinker=x\"]\n", "build.rustflags"),
            (
                "[target.x86_64-unknown-linux-gnu]\nlinker = \"x\"\n",
                "target",
            ),
            ("[env]\nLD_PRELOAD = \"x\"\n", "env"),
            ("include = [\"other.toml\"]\n", "include"),
            (
                "[registry]\ncredential-provider = \"x\"\n",
                "registry.credential-provider",
            ),
            (
                "[registries.x]\ncredential-provider = \"x\"\n",
                "registries.x.credential-provider",
            ),
            (
                "[net]\ngit-fetch-with-cli = true\n",
                "net.git-fetch-with-cli",
            ),
            (
                "[profile.dev]\nrustflags = [\"x\"]\n",
                "profile.dev.rustflags",
            ),
            ("[unstable]\nbuild-std = true\n", "unstable"),
        ] {
            assert_eq!(keys(text).as_deref(), Some(key), "{text}");
        }
    }

    #[test]
    fn an_untrusted_rust_analyzer_gets_an_environment_that_beats_the_cargo_configuration() {
        let dir = tempfile::tempdir().unwrap();
        let env = cargo_overrides(dir.path(), None);
        let get = |name: &str| env.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone());
        for name in [
            "RUSTC_WRAPPER",
            "RUSTC_WORKSPACE_WRAPPER",
            "CARGO_ENCODED_RUSTFLAGS",
            "CARGO_ENCODED_RUSTDOCFLAGS",
        ] {
            assert_eq!(get(name).as_deref(), Some(""), "{name}");
        }
        for name in ["LD_PRELOAD", "LD_AUDIT", "LD_LIBRARY_PATH"] {
            assert!(get(name).is_some(), "{name} is pinned");
        }
        // Where there is a toolchain, its programs are named by absolute paths outside the
        // project (the CI machines have one).
        for name in ["CARGO", "RUSTC", "RUSTDOC"] {
            if let Some(path) = get(name) {
                let path = Path::new(&path);
                assert!(
                    path.is_absolute() && path.exists(),
                    "{name}={}",
                    path.display()
                );
                assert!(!path.starts_with(dir.path()));
            }
        }
        assert!(
            crate::programs::find("rustc", dir.path()).found.is_none() || get("RUSTC").is_some()
        );
    }

    #[test]
    fn pyrefly_settings_anywhere_in_the_project_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        std::fs::create_dir_all(dir.path().join("pkg/sub")).unwrap();
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[tool.ruff]\nline-length = 90\n",
        )
        .unwrap();
        assert_eq!(pyrefly_problem(&root), None);
        std::fs::write(
            dir.path().join("pkg/sub/pyproject.toml"),
            "[tool.pyrefly]\npython-interpreter-path = \"x\"\n",
        )
        .unwrap();
        assert!(
            pyrefly_problem(&root)
                .unwrap()
                .contains("pkg/sub/pyproject.toml")
        );
        std::fs::remove_file(dir.path().join("pkg/sub/pyproject.toml")).unwrap();
        std::fs::write(dir.path().join("pkg/pyrefly.toml"), "").unwrap();
        assert!(pyrefly_problem(&root).unwrap().contains("pkg/pyrefly.toml"));
    }

    #[test]
    fn rope_settings_that_run_code_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        assert_eq!(rope_problem(&root), None);
        std::fs::create_dir(dir.path().join(".ropeproject")).unwrap();
        assert_eq!(rope_problem(&root), None, "an empty folder is harmless");
        std::fs::write(dir.path().join(".ropeproject/config.py"), "x = 1\n").unwrap();
        assert!(rope_problem(&root).unwrap().contains(".ropeproject"));
        std::fs::remove_dir_all(dir.path().join(".ropeproject")).unwrap();
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[tool.rope]\nextension_modules = [\"evil\"]\n",
        )
        .unwrap();
        assert!(rope_problem(&root).unwrap().contains("extension_modules"));
        std::fs::write(
            dir.path().join("pyproject.toml"),
            "[tool.rope]\nsave_history = false\n",
        )
        .unwrap();
        assert_eq!(rope_problem(&root), None);
    }
}
