//! The one entry point every front end uses (`candor call`, `candor mcp`, the TUI): parse a
//! tool call, compute its outcome with the chosen backend, write it through the workspace
//! writer, and build the JSON envelope.

pub mod args;
pub mod envelope;
pub mod error;
pub mod finding_counts;
pub mod schema;

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::Value;

use crate::backend::lsp::{LspPool, LspSettings};
use crate::backend::{self, BackendChoice, Outcome};
use crate::config::Config;
use crate::honesty::Tool;
use crate::refactor::{Request, SourceError};
use crate::workspace::write::{self, ApplyReport};
use crate::workspace::{DiskSources, Limits, Root, SkipRecorder};

pub use args::{CallOptions, ToolCall};
pub use error::{ApiError, ErrorCode};

/// A project opened for refactoring, with its settings and language servers.
#[derive(Debug)]
pub struct Engine {
    root: Root,
    sources: DiskSources,
    lsp: LspPool,
    default_backend: BackendChoice,
    config: Config,
    /// Whether calls may name the language-server program (`command` / `args`).
    server_command_allowed: bool,
}

/// The envelope of one JSON call and the exit code `candor call` returns for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub envelope: Value,
    pub exit_code: i32,
}

impl Engine {
    /// Opens `root` with its config files; `backend` (from `--backend` or `CANDOR_BACKEND`)
    /// overrides the config's default.
    pub fn open(root: &Path, backend: Option<BackendChoice>) -> Result<Engine, ApiError> {
        let root = Root::new(root).map_err(|e| {
            ApiError::new(
                ErrorCode::Io,
                format!(
                    "cannot open project root {}: {e}; pass an existing directory with --root",
                    root.display()
                ),
            )
        })?;
        let config = Config::load(root.path())
            .map_err(|e| ApiError::new(ErrorCode::InvalidArgument, e.to_string()))?;
        Ok(Engine::with_config(root, config, backend))
    }

    pub fn with_config(root: Root, config: Config, backend: Option<BackendChoice>) -> Engine {
        let limits = Limits {
            max_file_bytes: config
                .max_file_bytes
                .unwrap_or(Limits::default().max_file_bytes),
        };
        Engine {
            sources: DiskSources::new(root.clone(), limits),
            lsp: LspPool::with_settings(LspSettings::from_config(&config.lsp)),
            default_backend: backend.or(config.semantic_edit_backend).unwrap_or_default(),
            root,
            config,
            server_command_allowed: true,
        }
    }

    /// Allows or refuses the per-call `command` / `args` arguments (refused over MCP unless the
    /// operator opts in: they choose a program to run).
    pub fn allow_server_command(&mut self, allowed: bool) {
        self.server_command_allowed = allowed;
    }

    pub fn root(&self) -> &Root {
        &self.root
    }

    pub fn sources(&self) -> &DiskSources {
        &self.sources
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    pub fn lsp(&self) -> &LspPool {
        &self.lsp
    }

    pub fn default_backend(&self) -> BackendChoice {
        self.default_backend
    }

    /// `candor call TOOL ARGS`: the whole JSON path, never failing — errors become envelopes.
    pub fn call_json(&self, tool_name: &str, args: &Value) -> Response {
        match self.call(tool_name, args) {
            Ok(envelope) => Response {
                envelope,
                exit_code: 0,
            },
            Err(error) => Response {
                envelope: envelope::error(tool_name, &error),
                exit_code: error.code.exit_code(),
            },
        }
    }

    /// Parses, computes and (when `dry_run` is false) writes; returns the success envelope.
    pub fn call(&self, tool_name: &str, args: &Value) -> Result<Value, ApiError> {
        let call = self.parse(tool_name, args)?;
        self.check_expected_hashes(&call.options)?;
        let outcome = self.preview(&call)?;
        let applied = if call.options.dry_run {
            None
        } else {
            self.apply(&outcome, &call.options)?
        };
        Ok(envelope::success(&call, &outcome, applied.as_ref()))
    }

    /// A caller that says which content it previewed (`expected_sha256`) learns first when the
    /// disk no longer holds it, before anything is computed from the new content.
    pub fn check_expected_hashes(&self, options: &CallOptions) -> Result<(), ApiError> {
        for (path, expected) in &options.expected_sha256 {
            let resolved = self
                .root
                .resolve(path)
                .map_err(|e| ApiError::from(e).with_param("expected_sha256"))?;
            // Through the writer's reader: it refuses what is not a regular file (a FIFO would
            // block a plain read forever).
            let found = match write::current_sha256(&resolved.real) {
                Ok(Some(hash)) => hash,
                Ok(None) => "nothing (no such file)".to_string(),
                Err(e) => return Err(ApiError::new(ErrorCode::Io, format!("{path}: {e}"))),
            };
            if !expected.eq_ignore_ascii_case(&found) {
                return Err(ApiError::new(
                    ErrorCode::StaleFile,
                    format!(
                        "{path} changed on disk since the preview you passed in expected_sha256 (expected sha256 {expected}, found {found}); nothing was written — preview again and re-apply"
                    ),
                )
                .with_param("expected_sha256"));
            }
        }
        Ok(())
    }

    /// Parses the arguments and resolves every path against the root.
    pub fn parse(&self, tool_name: &str, args: &Value) -> Result<ToolCall, ApiError> {
        let tool = envelope::tool_named(tool_name)?;
        let mut call = args::parse(tool, args)?;
        if !self.server_command_allowed
            && (call.options.server_override.command.is_some()
                || !call.options.server_override.args.is_empty())
        {
            return Err(ApiError::invalid(
                "command",
                "this server does not let calls choose the language-server program (`command` / `args`); configure servers in .candor/config.toml, or start `candor mcp --allow-server-command`",
            ));
        }
        self.resolve_paths(&mut call)?;
        Ok(call)
    }

    fn resolve_paths(&self, call: &mut ToolCall) -> Result<(), ApiError> {
        let relative = |path: &str, param: &str| -> Result<String, ApiError> {
            self.root
                .resolve(path)
                .map(|r| r.relative)
                .map_err(|e| ApiError::from(e).with_param(param))
        };
        match &mut call.request {
            Request::Extract(r) => r.file = relative(&r.file, "file_path")?,
            Request::Inline(r) => r.file = relative(&r.file, "file_path")?,
            Request::ChangeSignature(r) => r.file = relative(&r.file, "file_path")?,
            Request::Move(r) => {
                r.file = relative(&r.file, "file_path")?;
                r.target_file = relative(&r.target_file, "target_file")?;
            }
        }
        let mut expected = BTreeMap::new();
        for (path, hash) in std::mem::take(&mut call.options.expected_sha256) {
            expected.insert(relative(&path, "expected_sha256")?, hash);
        }
        call.options.expected_sha256 = expected;
        Ok(())
    }

    /// Computes the refactor without writing anything.
    pub fn preview(&self, call: &ToolCall) -> Result<Outcome, ApiError> {
        let file = call.request.file();
        if call.request.language().is_none() {
            return Err(ApiError::new(
                ErrorCode::UnsupportedLanguage,
                format!("{file} is not a Rust (.rs) or Python (.py, .pyi) file; candor refactors only those"),
            )
            .with_param("file_path"));
        }
        // The file itself must be readable text: binary, non-UTF-8 or oversized is an error here,
        // while such a file among those searched is skipped and reported as a finding.
        match self.sources.read(file) {
            Ok(Some(_)) => {}
            Ok(None) => {
                return Err(ApiError::from(SourceError::Missing {
                    path: file.to_string(),
                })
                .with_param("file_path"));
            }
            Err(e) => return Err(ApiError::from(e).with_param("file_path")),
        }
        let choice = call.options.backend.unwrap_or(self.default_backend);
        let recorder = SkipRecorder::new(&self.sources);
        let mut outcome = backend::plan(
            choice,
            &self.lsp,
            &self.root,
            &recorder,
            &call.request,
            &call.options.server_override,
        )?;
        let skipped = recorder.findings();
        if !skipped.is_empty() {
            outcome.plan.findings.extend(skipped);
            crate::refactor::findings::normalize(&mut outcome.plan.findings);
        }
        Ok(outcome)
    }

    /// Writes a computed outcome as one transaction. Refuses a result with syntax errors unless
    /// `allow_syntax_errors`; returns `None` when there was nothing to write.
    pub fn apply(
        &self,
        outcome: &Outcome,
        options: &CallOptions,
    ) -> Result<Option<ApplyReport>, ApiError> {
        if outcome.plan.has_syntax_errors() && !options.allow_syntax_errors {
            let finding = outcome
                .plan
                .findings
                .iter()
                .find(|f| f.is_syntax_error())
                .map(|f| format!("{}:{}: {}", f.file, f.line, f.message))
                .unwrap_or_default();
            return Err(ApiError::invalid(
                "allow_syntax_errors",
                format!(
                    "nothing was written: {finding}. Adjust the request, or pass allow_syntax_errors: true to write it anyway"
                ),
            ));
        }
        if outcome.plan.changes.is_empty() {
            return Ok(None);
        }
        let report = write::apply(
            &self.root,
            &outcome.plan.changes,
            &options.expected_sha256,
            outcome.tool,
        )?;
        Ok(Some(report))
    }
}

/// Names and descriptions of the tools, for `candor call` without a tool.
pub fn tool_list() -> Vec<(&'static str, String)> {
    Tool::ALL
        .iter()
        .map(|t| (t.name(), schema::description(*t)))
        .collect()
}
