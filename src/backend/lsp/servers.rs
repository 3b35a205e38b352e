//! The language servers candor knows: how each is found (per-call override, config file, PATH),
//! what it is (rust-analyzer, pylsp with pylsp-rope, jedi-language-server, or an unknown one
//! driven by the protocol alone), how it is configured (rust-analyzer without `cargo check`,
//! pylsp without linters or project config files), what it offers, and which directory it
//! opens. A server the project's own config file names runs only in a trusted project; an
//! untrusted one may only pick a server candor knows, by name, found on the user's PATH.
//! Starts nothing.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use crate::config::ConfigSource;
use crate::honesty::Tool;
use crate::lang::Language;
use crate::workspace::Root;

use super::{LspFailure, LspSettings, ServerOverride};

/// A server we know how to drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flavor {
    RustAnalyzer,
    /// python-lsp-server; its refactors come from the pylsp-rope plugin.
    Pylsp,
    JediLanguageServer,
    /// `pyrefly lsp`: asked for inline variable only (see `pyrefly`).
    Pyrefly,
    /// Anything else: driven by the protocol alone.
    Other,
}

impl Flavor {
    /// The flavor of a server name (`serverInfo.name`) or a program's file name.
    pub fn from_name(name: &str) -> Option<Flavor> {
        let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
        if base.starts_with("rust-analyzer") {
            Some(Flavor::RustAnalyzer)
        } else if base == "pylsp" || base.starts_with("python-lsp-server") || base == "pyls" {
            Some(Flavor::Pylsp)
        } else if base.starts_with("pyrefly") {
            Some(Flavor::Pyrefly)
        } else if base.starts_with("jedi-language-server")
            || base.starts_with("jedi language server")
        {
            Some(Flavor::JediLanguageServer)
        } else {
            None
        }
    }

    /// The name users know the refactoring engine by.
    pub fn label(self) -> Option<&'static str> {
        match self {
            Flavor::RustAnalyzer => Some("rust-analyzer"),
            Flavor::Pylsp => Some("pylsp-rope"),
            Flavor::JediLanguageServer => Some("jedi-language-server"),
            Flavor::Pyrefly => Some("pyrefly"),
            Flavor::Other => None,
        }
    }

    /// Whether the server has a refactor for `tool` at all.
    pub fn offers(self, tool: Tool) -> bool {
        // pyrefly is asked for inline variable only: it was measured better than rope there
        // (rope drops needed parentheses), not for the other tools.
        if self == Flavor::Pyrefly {
            return tool == Tool::InlineVariable;
        }
        // None of them has move-to-file, change-signature, safe delete or introduce parameter
        // (rust-analyzer has no such code action); jedi cannot inline a function; only
        // rust-analyzer is asked for extract and inline variable. All of them rename.
        !matches!(
            (self, tool),
            (
                _,
                Tool::MoveToFile
                    | Tool::ChangeSignature
                    | Tool::SafeDelete
                    | Tool::IntroduceParameter
            ) | (Flavor::JediLanguageServer, Tool::InlineFunction)
                | (
                    Flavor::Pylsp | Flavor::JediLanguageServer,
                    Tool::ExtractVariable | Tool::InlineVariable
                )
        )
    }

    /// rust-analyzer settings: no `cargo check`, no build scripts or proc-macro server, no
    /// cache priming — candor asks a few questions of one crate and must answer in seconds.
    /// `launch.cargo_env` (an untrusted project's, see `project_guard::Launch`) is sent as
    /// `cargo.extraEnv`: rust-analyzer gives every cargo it runs the `[env]` of the project's
    /// cargo configuration, and `extraEnv` wins over it; with `launch.client_watching` its
    /// `files.watcher` is `client` (candor tells it what changed, see `watched`). pyrefly gets `launch.python` as its
    /// `python.pythonPath` (the interpreter it queries instead of finding one, e.g. the project's
    /// `.venv`).
    pub fn settings(self, launch: &super::project_guard::Launch) -> Value {
        match self {
            Flavor::RustAnalyzer if !launch.cargo_env.is_empty() => {
                let mut settings = Flavor::RustAnalyzer.settings(&Default::default());
                let extra: serde_json::Map<String, Value> = launch
                    .cargo_env
                    .iter()
                    .map(|(name, value)| (name.clone(), Value::String(value.clone())))
                    .collect();
                settings["cargo"]["extraEnv"] = Value::Object(extra);
                if launch.client_watching {
                    settings["files"]["watcher"] = json!("client");
                }
                settings
            }
            Flavor::RustAnalyzer => json!({
                "checkOnSave": false,
                "cachePriming": {"enable": false},
                "procMacro": {"enable": false},
                "cargo": {"buildScripts": {"enable": false}},
                "diagnostics": {"enable": false},
                "files": {"watcher": "server"},
                "lens": {"enable": false},
                "inlayHints": {"enable": false},
            }),
            Flavor::Pylsp => {
                // Only pylsp-rope (extract, inline), jedi's rename and jedi's references (the
                // references engine's check) are used; every other
                // plugin, built in or third-party, is off — several run a program named by a
                // setting — and no project config file (setup.cfg, tox.ini, .flake8) is read.
                let mut plugins = serde_json::Map::new();
                plugins.insert(
                    "pylsp_rope".into(),
                    json!({"enabled": true, "rename": false}),
                );
                plugins.insert("jedi_rename".into(), json!({"enabled": true}));
                plugins.insert("jedi_references".into(), json!({"enabled": true}));
                for plugin in UNUSED_PYLSP_PLUGINS {
                    plugins.insert(plugin.into(), json!({"enabled": false}));
                }
                json!({"configurationSources": [], "plugins": plugins})
            }
            Flavor::Pyrefly => match &launch.python {
                Some(python) => json!({"pythonPath": python}),
                None => Value::Null,
            },
            Flavor::JediLanguageServer | Flavor::Other => Value::Null,
        }
    }

    /// The `workspace/configuration` section the settings answer.
    pub fn section(self) -> Option<&'static str> {
        match self {
            Flavor::RustAnalyzer => Some("rust-analyzer"),
            Flavor::Pylsp => Some("pylsp"),
            Flavor::Pyrefly => Some("python"),
            _ => None,
        }
    }
}

/// The pylsp plugins candor never uses (built-in, and the common third-party ones), turned off.
const UNUSED_PYLSP_PLUGINS: [&str; 28] = [
    "autopep8",
    "flake8",
    "folding",
    "jedi_completion",
    "jedi_definition",
    "jedi_highlight",
    "jedi_hover",
    "jedi_signature_help",
    "jedi_symbols",
    "mccabe",
    "preload",
    "pycodestyle",
    "pydocstyle",
    "pyflakes",
    "pylint",
    "rope_autoimport",
    "rope_completion",
    "rope_rename",
    "yapf",
    "black",
    "isort",
    "mypy",
    "pylsp_black",
    "pylsp_isort",
    "pylsp_mypy",
    "pyls_isort",
    "memestra",
    "ruff",
];

/// The server of Python inline variable, tried before rope (see `backend::plan`): `pyrefly lsp`,
/// found on PATH outside the project.
pub fn pyrefly(root: &Path) -> Result<ServerOverride, LspFailure> {
    let lookup = crate::programs::find("pyrefly", root);
    match lookup.found {
        Some(found) => Ok(ServerOverride {
            command: Some(found.to_string_lossy().into_owned()),
            args: vec!["lsp".to_string()],
        }),
        None => Err(LspFailure::Unavailable(format!(
            "pyrefly not found on PATH (pip install pyrefly){}",
            lookup.skipped_suffix()
        ))),
    }
}

/// The servers a project's config file may choose by bare name (found on the user's PATH) even
/// when the project is not trusted.
fn known_servers(lang: Language) -> &'static [&'static str] {
    match lang {
        Language::Rust => &["rust-analyzer"],
        Language::Python => &["pylsp", "jedi-language-server"],
    }
}

/// Where a server command line came from (for messages).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Origin {
    Path,
    Config(&'static str),
    Call,
}

/// A server command line.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CommandLine {
    pub program: String,
    pub args: Vec<String>,
    pub origin: Origin,
}

impl CommandLine {
    /// How messages name the server before it has introduced itself.
    pub fn describe(&self) -> String {
        match &self.origin {
            Origin::Path => self.file_name().to_string(),
            Origin::Config(key) => format!("`{}` ({key} in the config file)", self.program),
            Origin::Call => format!("`{}` (the call's `command`)", self.program),
        }
    }

    pub fn file_name(&self) -> &str {
        self.program.rsplit('/').next().unwrap_or(&self.program)
    }

    pub fn flavor_guess(&self) -> Flavor {
        Flavor::from_name(self.file_name()).unwrap_or(Flavor::Other)
    }

    /// The refactoring engine's name for messages about what it offers.
    pub fn label(&self) -> String {
        self.flavor_guess()
            .label()
            .map(str::to_string)
            .unwrap_or_else(|| self.file_name().to_string())
    }
}

/// The command that serves `lang`: the call's `command`, else the config file's, else the first
/// default found on PATH.
pub fn resolve_command(
    lang: Language,
    root: &Path,
    settings: &LspSettings,
    over: &ServerOverride,
) -> Result<CommandLine, LspFailure> {
    if let Some(program) = &over.command {
        return Ok(CommandLine {
            program: program.clone(),
            args: over.args.clone(),
            origin: Origin::Call,
        });
    }
    let (configured, key) = match lang {
        Language::Rust => (&settings.rust, "lsp.rust"),
        Language::Python => (&settings.python, "lsp.python"),
    };
    if let Some(configured) = configured {
        let from_project = configured.source == ConfigSource::Project;
        if from_project && !settings.trust.allows_project_programs() {
            return untrusted_choice(lang, root, configured, key, settings);
        }
        return Ok(CommandLine {
            program: configured.command.clone(),
            args: configured.args.clone(),
            origin: Origin::Config(key),
        });
    }
    let defaults: &[&str] = match lang {
        Language::Rust => &["rust-analyzer"],
        Language::Python => &["pylsp", "jedi-language-server"],
    };
    let mut skipped = Vec::new();
    for program in defaults {
        let lookup = crate::programs::find(program, root);
        if let Some(found) = lookup.found {
            return Ok(CommandLine {
                program: found.to_string_lossy().into_owned(),
                args: Vec::new(),
                origin: Origin::Path,
            });
        }
        skipped.extend(lookup.skipped);
    }
    let skipped = crate::programs::Lookup {
        found: None,
        skipped,
    }
    .skipped_suffix();
    Err(LspFailure::Unavailable(match defaults {
        [one] => format!("{one} not found on PATH{skipped}"),
        _ => format!("neither {} found on PATH{skipped}", defaults.join(" nor ")),
    }))
}

/// The server an untrusted project's config file chose: one candor knows, by its bare name and
/// without arguments, found on the user's PATH — or the refusal that says how to trust.
fn untrusted_choice(
    lang: Language,
    root: &Path,
    configured: &crate::config::ServerCommand,
    key: &'static str,
    settings: &LspSettings,
) -> Result<CommandLine, LspFailure> {
    let known = known_servers(lang)
        .iter()
        .find(|name| **name == configured.command && configured.args.is_empty());
    if let Some(name) = known {
        let lookup = crate::programs::find(name, root);
        return match lookup.found {
            Some(found) => Ok(CommandLine {
                program: found.to_string_lossy().into_owned(),
                args: Vec::new(),
                origin: Origin::Config(key),
            }),
            None => Err(LspFailure::Unavailable(format!(
                "{name} ({key} in the project's .candor/config.toml) not found on PATH{}",
                lookup.skipped_suffix()
            ))),
        };
    }
    let mut shown = configured.command.clone();
    for arg in &configured.args {
        shown.push(' ');
        shown.push_str(arg);
    }
    Err(LspFailure::Untrusted(settings.trust.refusal(&format!(
        "`{shown}`, which {key} in the project's .candor/config.toml names (an untrusted project may only choose {} by name)",
        known_servers(lang).join(" or ")
    ))))
}

/// The default label for `lang` when no server could be resolved.
pub fn default_label(lang: Language) -> &'static str {
    match lang {
        Language::Rust => "rust-analyzer",
        Language::Python => "pylsp-rope",
    }
}

/// The directory a server for `file` opens as its workspace. rust-analyzer needs a Cargo
/// project, found as cargo finds it: the package is the nearest directory above the file with a
/// `Cargo.toml` (or a `rust-project.json`), and its workspace is the nearest directory from
/// there up (inside the root) whose `Cargo.toml` has a `[workspace]` table, else the package
/// itself. A nested crate that belongs to no workspace is opened on its own. Python servers
/// open the root.
pub fn workspace_root(lang: Language, root: &Root, file: &str) -> Result<PathBuf, LspFailure> {
    if lang == Language::Python {
        return Ok(root.path().to_path_buf());
    }
    // Directories from the file's up to the root, nearest first.
    let mut ancestors = Vec::new();
    let mut dir = root.path().join(file);
    while dir.pop() && dir.starts_with(root.path()) {
        ancestors.push(dir.clone());
    }
    let package = ancestors
        .iter()
        .position(|d| d.join("Cargo.toml").is_file() || d.join("rust-project.json").is_file())
        .ok_or_else(|| {
            LspFailure::Unavailable(format!(
                "rust-analyzer needs a Cargo project, and no Cargo.toml is above {file} inside the project root"
            ))
        })?;
    let workspace = ancestors[package..]
        .iter()
        .find(|d| declares_workspace(&d.join("Cargo.toml")))
        .unwrap_or(&ancestors[package]);
    Ok(workspace.clone())
}

/// Whether a manifest has a `[workspace]` table (an unreadable one has not).
fn declares_workspace(manifest: &Path) -> bool {
    std::fs::read_to_string(manifest)
        .ok()
        .and_then(|text| text.parse::<toml::Table>().ok())
        .is_some_and(|table| table.contains_key("workspace"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn an_untrusted_projects_cargo_environment_is_sent_as_extra_env() {
        let plain = Flavor::RustAnalyzer.settings(&Default::default());
        assert!(plain["cargo"].get("extraEnv").is_none());
        assert_eq!(plain["cargo"]["buildScripts"]["enable"], false);
        let env = [("RUSTC_WRAPPER".to_string(), String::new())];
        let settings = Flavor::RustAnalyzer.settings(&super::super::project_guard::Launch {
            cargo_env: env.to_vec(),
            ..Default::default()
        });
        assert_eq!(settings["cargo"]["extraEnv"]["RUSTC_WRAPPER"], "");
        assert_eq!(settings["files"]["watcher"], "server");
        let watching = Flavor::RustAnalyzer.settings(&super::super::project_guard::Launch {
            cargo_env: env.to_vec(),
            client_watching: true,
            ..Default::default()
        });
        assert_eq!(watching["files"]["watcher"], "client");
        assert_eq!(settings["cargo"]["buildScripts"]["enable"], false);
        assert_eq!(settings["checkOnSave"], false);
        assert_eq!(settings["procMacro"]["enable"], false);
    }

    use super::*;

    #[test]
    fn flavors_from_names() {
        assert_eq!(
            Flavor::from_name("/usr/bin/rust-analyzer"),
            Some(Flavor::RustAnalyzer)
        );
        assert_eq!(Flavor::from_name("pylsp"), Some(Flavor::Pylsp));
        assert_eq!(
            Flavor::from_name("jedi-language-server"),
            Some(Flavor::JediLanguageServer)
        );
        assert_eq!(Flavor::from_name("python3"), None);
        assert!(!Flavor::JediLanguageServer.offers(Tool::InlineFunction));
        assert!(Flavor::Pylsp.offers(Tool::InlineFunction));
        assert!(!Flavor::RustAnalyzer.offers(Tool::MoveToFile));
        assert_eq!(Flavor::from_name("/v/bin/pyrefly"), Some(Flavor::Pyrefly));
        assert_eq!(Flavor::from_name("pyrefly-lsp"), Some(Flavor::Pyrefly));
        assert!(Flavor::Pyrefly.offers(Tool::InlineVariable));
        assert!(!Flavor::Pyrefly.offers(Tool::ExtractVariable));
        assert!(!Flavor::Pyrefly.offers(Tool::RenameSymbol));
    }

    #[test]
    fn pyrefly_is_told_which_interpreter_to_query_when_candor_pins_one() {
        use super::super::project_guard::Launch;
        assert_eq!(Flavor::Pyrefly.settings(&Launch::default()), Value::Null);
        let pinned = Launch {
            python: Some("/usr/bin/python3".to_string()),
            ..Launch::default()
        };
        assert_eq!(
            Flavor::Pyrefly.settings(&pinned),
            json!({"pythonPath": "/usr/bin/python3"})
        );
        assert_eq!(Flavor::Pyrefly.section(), Some("python"));
    }

    #[test]
    fn rust_analyzer_opens_the_cargo_workspace_of_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, text: &str| {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        };
        write("Cargo.toml", "[package]\nname = \"top\"\n");
        write("ws/Cargo.toml", "[workspace]\nmembers = [\"member\"]\n");
        write("ws/member/Cargo.toml", "[package]\nname = \"member\"\n");
        write("ws/member/src/lib.rs", "");
        write("fixtures/alone/Cargo.toml", "[package]\nname = \"alone\"\n");
        write("fixtures/alone/src/lib.rs", "");
        write("src/main.rs", "");
        let root = Root::new(dir.path()).unwrap();
        let open = |file: &str| workspace_root(Language::Rust, &root, file).unwrap();
        assert_eq!(open("ws/member/src/lib.rs"), root.path().join("ws"));
        assert_eq!(
            open("fixtures/alone/src/lib.rs"),
            root.path().join("fixtures/alone")
        );
        assert_eq!(open("src/main.rs"), root.path());
        let bare = tempfile::tempdir().unwrap();
        std::fs::write(bare.path().join("loose.rs"), "").unwrap();
        let bare_root = Root::new(bare.path()).unwrap();
        let err = workspace_root(Language::Rust, &bare_root, "loose.rs").unwrap_err();
        assert!(err.reason().contains("Cargo"), "{err}");
        assert_eq!(
            workspace_root(Language::Python, &root, "a/b.py").unwrap(),
            root.path()
        );
    }

    #[test]
    fn commands_come_from_the_call_then_the_config() {
        let settings = LspSettings {
            rust: Some(crate::config::ServerCommand {
                command: "/opt/ra".to_string(),
                args: vec!["--x".to_string()],
                source: ConfigSource::User,
            }),
            ..LspSettings::default()
        };
        let from_config = resolve_command(
            Language::Rust,
            Path::new("/nonexistent-root"),
            &settings,
            &ServerOverride::default(),
        )
        .unwrap();
        assert_eq!(
            (from_config.program.as_str(), from_config.args.len()),
            ("/opt/ra", 1)
        );
        assert!(from_config.describe().contains("lsp.rust"));
        let over = ServerOverride {
            command: Some("my-ra".to_string()),
            args: vec![],
        };
        let from_call = resolve_command(
            Language::Rust,
            Path::new("/nonexistent-root"),
            &settings,
            &over,
        )
        .unwrap();
        assert_eq!(from_call.program, "my-ra");
        assert_eq!(from_call.origin, Origin::Call);
    }

    #[test]
    fn an_untrusted_project_config_may_not_name_a_program() {
        let hostile = crate::config::ServerCommand {
            command: "/bin/sh".to_string(),
            args: vec!["-c".to_string(), "id > pwned.txt".to_string()],
            source: ConfigSource::Project,
        };
        let untrusted = LspSettings {
            python: Some(hostile.clone()),
            ..LspSettings::default()
        };
        let refusal = resolve_command(
            Language::Python,
            Path::new("/nonexistent-root"),
            &untrusted,
            &ServerOverride::default(),
        )
        .unwrap_err()
        .reason();
        assert!(refusal.contains("`/bin/sh -c id > pwned.txt`"), "{refusal}");
        assert!(refusal.contains("candor trust"), "{refusal}");
        // The same line from the user's own file runs.
        let mine = LspSettings {
            python: Some(crate::config::ServerCommand {
                source: ConfigSource::User,
                ..hostile.clone()
            }),
            ..LspSettings::default()
        };
        let line = resolve_command(
            Language::Python,
            Path::new("/nonexistent-root"),
            &mine,
            &ServerOverride::default(),
        )
        .unwrap();
        assert_eq!(line.program, "/bin/sh");
        // And from a trusted project's file.
        let trusted = LspSettings {
            python: Some(hostile),
            trust: crate::trust::Trust::Trusted,
            ..LspSettings::default()
        };
        assert!(
            resolve_command(
                Language::Python,
                Path::new("/nonexistent-root"),
                &trusted,
                &ServerOverride::default()
            )
            .is_ok()
        );
        // A server candor knows, by bare name, is a choice, not a program: allowed (found on
        // PATH, or "not found" — never refused for trust).
        let by_name = LspSettings {
            python: Some(crate::config::ServerCommand {
                command: "jedi-language-server".to_string(),
                args: Vec::new(),
                source: ConfigSource::Project,
            }),
            ..LspSettings::default()
        };
        match resolve_command(
            Language::Python,
            Path::new("/nonexistent-root"),
            &by_name,
            &ServerOverride::default(),
        ) {
            Ok(line) => assert!(line.program.ends_with("jedi-language-server")),
            Err(e) => assert!(e.reason().contains("not found on PATH"), "{e}"),
        }
    }
}
