//! User and project settings: `$XDG_CONFIG_HOME/candor/config.toml`, then
//! `<root>/.candor/config.toml` on top. Every key is optional; defaults live in code.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::backend::BackendChoice;

/// A language server command line.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct ServerCommand {
    pub command: String,
    #[serde(default)]
    pub args: Vec<String>,
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

/// `[verify]`: the check of a result with the project's own tools before it is written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerifyConfig {
    /// `verify` when a call does not say: true, false or "tests" (default: true in the TUI,
    /// false for `candor call` and MCP).
    pub default: Option<crate::verify::Level>,
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
    pub verify: VerifyConfig,
}

#[derive(Debug, thiserror::Error)]
#[error("the config file {path} is not valid: {message}; fix or remove it")]
pub struct ConfigError {
    pub path: PathBuf,
    pub message: String,
}

impl Config {
    /// The user file, then the project file over it. A missing file is fine; a broken one is an
    /// error naming it.
    pub fn load(root: &Path) -> Result<Config, ConfigError> {
        let mut config = Config::default();
        if let Some(user) = user_config_path() {
            config = config.overlay(Config::read(&user)?);
        }
        config = config.overlay(Config::read(&root.join(".candor").join("config.toml"))?);
        Ok(config)
    }

    fn read(path: &Path) -> Result<Config, ConfigError> {
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map_err(|e| ConfigError {
                path: path.to_path_buf(),
                message: e.to_string(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(e) => Err(ConfigError {
                path: path.to_path_buf(),
                message: e.to_string(),
            }),
        }
    }

    /// `other`'s settings where it has them, ours elsewhere.
    fn overlay(self, other: Config) -> Config {
        Config {
            semantic_edit_backend: other.semantic_edit_backend.or(self.semantic_edit_backend),
            max_file_bytes: other.max_file_bytes.or(self.max_file_bytes),
            lsp: LspConfig {
                rust: other.lsp.rust.or(self.lsp.rust),
                python: other.lsp.python.or(self.lsp.python),
                request_timeout_secs: other
                    .lsp
                    .request_timeout_secs
                    .or(self.lsp.request_timeout_secs),
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
            },
        }
    }
}

/// `$XDG_CONFIG_HOME/candor/config.toml` (or the platform's config directory).
pub fn user_config_path() -> Option<PathBuf> {
    std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(dirs::config_dir)
        .map(|dir| dir.join("candor").join("config.toml"))
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
        std::fs::write(
            dir.path().join(".candor/config.toml"),
            "semantic_edit_backend = \"magic\"\n",
        )
        .unwrap();
        let err = Config::read(&dir.path().join(".candor/config.toml")).unwrap_err();
        assert!(err.to_string().contains("config.toml"));
        std::fs::write(
            dir.path().join(".candor/config.toml"),
            "[verify]\ndefault = \"tests\"\ntimeout_secs = 30\nruff = { command = \"/opt/ruff\" }\n",
        )
        .unwrap();
        let config = Config::read(&dir.path().join(".candor/config.toml")).unwrap();
        assert_eq!(config.verify.default, Some(crate::verify::Level::Tests));
        assert_eq!(config.verify.timeout_secs, Some(30));
        let merged = Config::default().overlay(config);
        assert_eq!(merged.verify.ruff.unwrap().command, "/opt/ruff");
        std::fs::write(dir.path().join(".candor/config.toml"), "[verify]\ndefault = true\n").unwrap();
        let config = Config::read(&dir.path().join(".candor/config.toml")).unwrap();
        assert_eq!(config.verify.default, Some(crate::verify::Level::Check));
    }
}
