//! User and project settings: `$XDG_CONFIG_HOME/candor/config.toml`, then
//! `<root>/.candor/config.toml` on top. Every key is optional; defaults live in code. Each server
//! command remembers which file named it: one from the project's file runs only in a project the
//! user trusts (see `trust`). The project's file is read once, through the root's handle (never
//! through a symbolic link), and its hash kept for the trust check.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::workspace::Root;

/// `semantic_edit_backend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum BackendChoice {
    /// A language server where it can, the heuristic otherwise (saying why).
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// A language server or a clear error.
    #[serde(rename = "lsp")]
    Lsp,
    /// Always the tree-sitter heuristic.
    #[serde(rename = "tree-sitter", alias = "tree_sitter", alias = "treesitter")]
    TreeSitter,
}

impl BackendChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Lsp => "lsp",
            BackendChoice::TreeSitter => "tree-sitter",
        }
    }
}

impl FromStr for BackendChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<BackendChoice, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(BackendChoice::Auto),
            "lsp" => Ok(BackendChoice::Lsp),
            "tree-sitter" | "tree_sitter" | "treesitter" => Ok(BackendChoice::TreeSitter),
            other => Err(format!(
                "`{other}` is not a backend; use `auto`, `lsp` or `tree-sitter`"
            )),
        }
    }
}

/// How far the check of a result goes (the `verify` argument).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VerifyLevel {
    /// No check: `data.verification.state` is "skipped".
    #[default]
    Off,
    /// The project's checker, before and after.
    Check,
    /// The checker, then the project's tests, before and after.
    Tests,
}

impl VerifyLevel {
    /// `true`, `false`, `"tests"` (also `"true"`, `"false"`, `"check"`, `"off"`).
    pub fn from_json(value: &serde_json::Value) -> Result<VerifyLevel, String> {
        match value {
            serde_json::Value::Bool(true) => Ok(VerifyLevel::Check),
            serde_json::Value::Bool(false) => Ok(VerifyLevel::Off),
            serde_json::Value::String(s) => s.parse(),
            other => Err(format!(
                "`verify` must be true, false or \"tests\", not {}",
                match other {
                    serde_json::Value::Null => "null",
                    serde_json::Value::Number(_) => "a number",
                    serde_json::Value::Array(_) => "an array",
                    _ => "an object",
                }
            )),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            VerifyLevel::Off => "off",
            VerifyLevel::Check => "check",
            VerifyLevel::Tests => "tests",
        }
    }
}

impl std::str::FromStr for VerifyLevel {
    type Err = String;

    fn from_str(s: &str) -> Result<VerifyLevel, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "true" | "check" | "on" => Ok(VerifyLevel::Check),
            "false" | "off" | "none" => Ok(VerifyLevel::Off),
            "tests" | "test" => Ok(VerifyLevel::Tests),
            other => Err(format!(
                "`{other}` is not a verify level; use true, false or \"tests\""
            )),
        }
    }
}

impl<'de> Deserialize<'de> for VerifyLevel {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<VerifyLevel, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Flag(bool),
            Name(String),
        }
        match Raw::deserialize(deserializer)? {
            Raw::Flag(true) => Ok(VerifyLevel::Check),
            Raw::Flag(false) => Ok(VerifyLevel::Off),
            Raw::Name(name) => name.parse().map_err(serde::de::Error::custom),
        }
    }
}

/// Which settings file named something.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum ConfigSource {
    /// The user's own file: always honoured.
    User,
    /// The project's `.candor/config.toml`: it came with the repository. (The default, so that
    /// nothing is mistaken for the user's by accident.)
    #[default]
    Project,
}

/// A language server command line.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServerCommand {
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
    /// Set when the file is read.
    #[serde(skip)]
    pub source: ConfigSource,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LspConfig {
    /// Replaces `rust-analyzer` on PATH.
    pub rust: Option<ServerCommand>,
    /// Replaces the Python server search (`pylsp`, then `jedi-language-server`).
    pub python: Option<ServerCommand>,
    /// Seconds a language server may take to answer one request (default 60).
    pub request_timeout_secs: Option<u64>,
}

/// The rope backend (Python move to file and change signature).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RopeConfig {
    /// The Python interpreter that runs rope (replaces the search: the project's `.venv` when
    /// trusted, then `python3` and `python` on PATH).
    pub python: Option<String>,
    /// Which file named `python` (a project's file is honoured only in a trusted project).
    #[serde(skip)]
    pub source: ConfigSource,
}

/// `[auto]`: how long a semantic backend (rope, a language server) may work on one request
/// under `semantic_edit_backend = "auto"` before the heuristic answers instead.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AutoConfig {
    /// Milliseconds for a dry run (default 5000).
    pub budget_ms: Option<u64>,
    /// Milliseconds for an apply (default 30000).
    pub apply_budget_ms: Option<u64>,
}

impl AutoConfig {
    /// The budget of a dry run (`dry_run`) or of an apply.
    pub fn budget(&self, dry_run: bool) -> std::time::Duration {
        let ms = if dry_run {
            self.budget_ms.unwrap_or(DEFAULT_AUTO_BUDGET_MS)
        } else {
            self.apply_budget_ms.unwrap_or(DEFAULT_AUTO_APPLY_BUDGET_MS)
        };
        std::time::Duration::from_millis(ms)
    }
}

/// `[auto] budget_ms` when the config does not say.
pub const DEFAULT_AUTO_BUDGET_MS: u64 = 5_000;
/// `[auto] apply_budget_ms` when the config does not say.
pub const DEFAULT_AUTO_APPLY_BUDGET_MS: u64 = 30_000;

/// `[verify]`: the check of a result with the project's own tools before it is written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyConfig {
    /// `verify` when a call does not say: true, false or "tests" (default: true in the TUI,
    /// false for `candor call` and MCP).
    pub default: Option<VerifyLevel>,
    /// Seconds the check of one result may take (default 120).
    pub timeout_secs: Option<u64>,
    /// Seconds the tests may take (default 600).
    pub tests_timeout_secs: Option<u64>,
    /// Replaces `cargo` on PATH.
    pub cargo: Option<ServerCommand>,
    /// Replaces `python3` on PATH (compile, the type checker's interpreter, the tests).
    pub python: Option<ServerCommand>,
    /// Replaces `ruff` on PATH.
    pub ruff: Option<ServerCommand>,
    /// Replaces `basedpyright` (then `pyright`) on PATH.
    pub pyright: Option<ServerCommand>,
    /// Replaces `pyrefly` on PATH.
    pub pyrefly: Option<ServerCommand>,
    /// Replaces `mypy` on PATH.
    pub mypy: Option<ServerCommand>,
    /// The Python type checker (default: the one the project configures, else pyrefly).
    pub type_checker: Option<TypeChecker>,
    /// Address-space limit of each checker process, in MiB (default 4096).
    pub memory_limit_mib: Option<u64>,
    /// How large candor's cache may grow before the least recently used projects' checks are
    /// removed, in MiB (default 1024).
    pub cache_limit_mib: Option<u64>,
    /// The terminal UI runs the tests with every check when they took less than this many
    /// seconds before (default 20; 0: only on request).
    pub tests_budget_secs: Option<u64>,
}

/// `[verify] type_checker`: which Python type checker the check runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TypeChecker {
    Pyrefly,
    /// basedpyright, or pyright where only it is installed.
    Basedpyright,
    Mypy,
    /// No type check (ruff and compile() only).
    None,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// `auto` (default), `lsp` or `tree-sitter`.
    pub semantic_edit_backend: Option<BackendChoice>,
    /// Files larger than this many bytes are refused (default 5 MiB).
    pub max_file_bytes: Option<u64>,
    #[serde(default)]
    pub lsp: LspConfig,
    #[serde(default)]
    pub rope: RopeConfig,
    #[serde(default)]
    pub verify: VerifyConfig,
    #[serde(default)]
    pub auto: AutoConfig,
    #[serde(default)]
    pub store: StoreConfig,
}

/// `[store]`: the warm store of a long-lived front end (`candor mcp`, the TUI).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StoreConfig {
    /// The memory it may hold, in MB (default 512).
    pub max_mb: Option<u64>,
}

#[derive(Debug, thiserror::Error)]
#[error("the config file {path} is not valid: {message}; fix or remove it")]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

/// The settings of a project and the facts about its own file the trust check needs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Loaded {
    /// The user file with the project file over it.
    pub config: Config,
    /// sha256 of `.candor/config.toml` as read (`None`: there is none).
    pub project_sha256: Option<String>,
}

/// Where the project's own settings live, under the root.
pub const PROJECT_CONFIG: &str = ".candor/config.toml";

impl Config {
    /// The user file, then the project file over it. A missing file is fine; a broken one is an
    /// error naming it.
    pub fn load(root: &Root) -> Result<Loaded, ConfigError> {
        let mut config = Config::default();
        if let Some(user) = user_config_path() {
            config = config.overlay(Config::read(&user)?.stamped(ConfigSource::User));
        }
        let project_path = root.path().join(PROJECT_CONFIG);
        let bytes = project_config_bytes(root).map_err(|message| ConfigError {
            path: project_path.clone(),
            message,
        })?;
        let project_sha256 = bytes.as_deref().map(crate::edit::sha256_hex);
        if let Some(bytes) = bytes {
            let project = Config::parse(&project_path, &bytes)?.stamped(ConfigSource::Project);
            config = config.overlay(project);
        }
        Ok(Loaded {
            config,
            project_sha256,
        })
    }

    fn read(path: &Path) -> Result<Config, ConfigError> {
        match std::fs::read(path) {
            Ok(bytes) => Config::parse(path, &bytes),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(ConfigError {
                path: path.to_path_buf(),
                message: e.to_string(),
            }),
        }
    }

    fn parse(path: &Path, bytes: &[u8]) -> Result<Config, ConfigError> {
        let error = |message: String| ConfigError {
            path: path.to_path_buf(),
            message,
        };
        let text = std::str::from_utf8(bytes).map_err(|e| error(e.to_string()))?;
        toml::from_str(text).map_err(|e| error(e.to_string()))
    }

    /// Marks every server command (and rope's interpreter) as named by `source`.
    fn stamped(mut self, source: ConfigSource) -> Config {
        for command in [
            &mut self.lsp.rust,
            &mut self.lsp.python,
            &mut self.verify.cargo,
            &mut self.verify.python,
            &mut self.verify.ruff,
            &mut self.verify.pyright,
            &mut self.verify.pyrefly,
            &mut self.verify.mypy,
        ]
        .into_iter()
        .flatten()
        {
            command.source = source;
        }
        self.rope.source = source;
        self
    }

    /// `other`'s settings where it has them, ours elsewhere.
    fn overlay(self, other: Config) -> Config {
        Config {
            semantic_edit_backend: other.semantic_edit_backend.or(self.semantic_edit_backend),
            max_file_bytes: other.max_file_bytes.or(self.max_file_bytes),
            store: StoreConfig {
                max_mb: other.store.max_mb.or(self.store.max_mb),
            },
            lsp: LspConfig {
                rust: other.lsp.rust.or(self.lsp.rust),
                python: other.lsp.python.or(self.lsp.python),
                request_timeout_secs: other
                    .lsp
                    .request_timeout_secs
                    .or(self.lsp.request_timeout_secs),
            },
            rope: if other.rope.python.is_some() {
                other.rope
            } else {
                self.rope
            },
            auto: AutoConfig {
                budget_ms: other.auto.budget_ms.or(self.auto.budget_ms),
                apply_budget_ms: other.auto.apply_budget_ms.or(self.auto.apply_budget_ms),
            },
            verify: VerifyConfig {
                default: other.verify.default.or(self.verify.default),
                timeout_secs: other.verify.timeout_secs.or(self.verify.timeout_secs),
                tests_timeout_secs: other
                    .verify
                    .tests_timeout_secs
                    .or(self.verify.tests_timeout_secs),
                cargo: other.verify.cargo.or(self.verify.cargo),
                python: other.verify.python.or(self.verify.python),
                ruff: other.verify.ruff.or(self.verify.ruff),
                pyright: other.verify.pyright.or(self.verify.pyright),
                pyrefly: other.verify.pyrefly.or(self.verify.pyrefly),
                mypy: other.verify.mypy.or(self.verify.mypy),
                type_checker: other.verify.type_checker.or(self.verify.type_checker),
                memory_limit_mib: other
                    .verify
                    .memory_limit_mib
                    .or(self.verify.memory_limit_mib),
                cache_limit_mib: other.verify.cache_limit_mib.or(self.verify.cache_limit_mib),
                tests_budget_secs: other
                    .verify
                    .tests_budget_secs
                    .or(self.verify.tests_budget_secs),
            },
        }
    }
}

/// The bytes of the project's `.candor/config.toml` (`None` when there is none), read from the
/// root's handle one name at a time: a symbolic link at `.candor` or at the file is refused.
pub fn project_config_bytes(root: &Root) -> Result<Option<Vec<u8>>, String> {
    let link = |e: std::io::Error| {
        format!("{e}; candor reads its settings only from a real file in a real .candor folder")
    };
    let Some(candor) = root
        .dir()
        .open_dir(OsStr::new(crate::workspace::journal::CANDOR_DIR))
        .map_err(link)?
    else {
        return Ok(None);
    };
    candor.read_file(OsStr::new("config.toml")).map_err(link)
}

/// The user's candor folder: `$XDG_CONFIG_HOME/candor` (or the platform's config directory).
pub fn user_config_dir() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(dirs::config_dir)
        .map(|dir| dir.join("candor"))
}

/// `$XDG_CONFIG_HOME/candor/config.toml` (or the platform's config directory).
pub fn user_config_path() -> Option<PathBuf> {
    user_config_dir().map(|dir| dir.join("config.toml"))
}

/// The `[verify]` settings of the user's own config file (`candor cache` has no project).
pub fn user_verify_config() -> Result<VerifyConfig, ConfigError> {
    match user_config_path() {
        Some(path) => Ok(Config::read(&path)?.verify),
        None => Ok(VerifyConfig::default()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_file_overrides_and_bad_files_are_named() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".candor")).unwrap();
        std::fs::write(
            dir.path().join(".candor/config.toml"),
            "semantic_edit_backend = \"tree-sitter\"\nmax_file_bytes = 10\n[lsp]\nrust = { command = \"ra\", args = [\"-v\"] }\n",
        )
        .unwrap();
        let config = Config::read(&dir.path().join(".candor/config.toml")).unwrap();
        assert_eq!(
            config.semantic_edit_backend,
            Some(BackendChoice::TreeSitter)
        );
        assert_eq!(config.lsp.rust.as_ref().unwrap().args, vec!["-v"]);
        let root = Root::new(dir.path()).unwrap();
        let loaded = Config::load(&root).unwrap();
        assert_eq!(
            loaded.config.lsp.rust.unwrap().source,
            ConfigSource::Project,
            "a command from the project's file is marked as such"
        );
        assert!(loaded.project_sha256.is_some());
        std::fs::write(
            dir.path().join(".candor/config.toml"),
            "semantic_edit_backend = \"magic\"\n",
        )
        .unwrap();
        let err = Config::read(&dir.path().join(".candor/config.toml")).unwrap_err();
        assert!(err.to_string().contains("config.toml"));
        std::fs::write(
            dir.path().join(".candor/config.toml"),
            "[lsp]\npython = { command = \"pylsp\", env = { X = \"1\" } }\n",
        )
        .unwrap();
        assert!(
            Config::load(&root).is_err(),
            "no environment can be given to a server"
        );
    }

    #[test]
    fn a_linked_project_config_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("c.toml"), "max_file_bytes = 1\n").unwrap();
        std::fs::create_dir(dir.path().join(".candor")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("c.toml"),
            dir.path().join(".candor/config.toml"),
        )
        .unwrap();
        let root = Root::new(dir.path()).unwrap();
        let err = Config::load(&root).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
    }

    #[test]
    fn verify_settings_parse_merge_and_are_stamped() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".candor")).unwrap();
        std::fs::write(
            dir.path().join(".candor/config.toml"),
            "[verify]\ndefault = \"tests\"\ntimeout_secs = 30\nruff = { command = \"/opt/ruff\" }\n",
        )
        .unwrap();
        let root = Root::new(dir.path()).unwrap();
        let config = Config::load(&root).unwrap().config;
        assert_eq!(config.verify.default, Some(VerifyLevel::Tests));
        assert_eq!(config.verify.timeout_secs, Some(30));
        let ruff = config.verify.ruff.unwrap();
        assert_eq!(ruff.command, "/opt/ruff");
        assert_eq!(
            ruff.source,
            ConfigSource::Project,
            "a checker named by the project's file runs only in a trusted project"
        );
        std::fs::write(
            dir.path().join(".candor/config.toml"),
            "[verify]\ndefault = true\n",
        )
        .unwrap();
        let config = Config::load(&root).unwrap().config;
        assert_eq!(config.verify.default, Some(VerifyLevel::Check));
        std::fs::write(
            dir.path().join(".candor/config.toml"),
            "[verify]\ndefault = \"always\"\n",
        )
        .unwrap();
        assert!(Config::load(&root).is_err());
    }
}
