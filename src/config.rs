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

/// The rope backend (Python move to file and change signature).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RopeConfig {
    /// The Python interpreter that runs rope (replaces the search: the project's `.venv` when
    /// trusted, then `python3` and `python` on PATH).
    pub python: Option<String>,
    /// Set by [`Config::load`] when `python` comes from the project's file (used only when the
    /// project is trusted).
    #[serde(skip)]
    pub python_from_project: bool,
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
        let project = Config::read(&root.join(".candor").join("config.toml"))?;
        let rope_python_from_project = project.rope.python.is_some();
        config = config.overlay(project);
        config.rope.python_from_project = rope_python_from_project;
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
            rope: RopeConfig {
                python: other.rope.python.or(self.rope.python),
                python_from_project: false,
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
    }
}
