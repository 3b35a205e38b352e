//! The one entry point every front end uses (`candor call`, `candor mcp`, the TUI): parse a
//! tool call, compute its outcome with the chosen backend, write it through the workspace
//! writer, and build the JSON envelope.

pub mod arg;
pub mod args;
pub mod envelope;
pub mod error;
pub mod finding_counts;
mod paths;
pub mod plan_id;
mod preview;
pub mod schema;
pub mod strict_json;
mod undo;

use std::path::Path;

use serde_json::Value;

use crate::backend::lsp::{LspPool, LspSettings};
use crate::backend::rope::{ConfiguredPython, RopeBackend, RopeSettings};
use crate::backend::{self, BackendChoice, Outcome, Semantic};
use crate::cancel::Cancel;
use crate::config::Config;
use crate::config::ConfigSource;
use crate::honesty::Tool;
use crate::refactor::{Finding, SourceError};
use crate::trust::{Trust, Untrusted};
use crate::verify::{self, Level, Verification};
use crate::workspace::transaction::Recovery;
use crate::workspace::write::{self, ApplyReport};
use crate::workspace::{DiskSources, Limits, Root, SkipRecorder};

pub use args::{CallOptions, ToolCall};
pub use error::{ApiError, ErrorCode, Exit};
pub use plan_id::plan_id;
pub use preview::Preview;

/// A project opened for refactoring, with its settings, its trust and language servers.
#[derive(Debug)]
pub struct Engine {
    root: Root,
    sources: DiskSources,
    lsp: LspPool,
    rope: RopeBackend,
    default_backend: BackendChoice,
    config: Config,
    trust: Trust,
    /// Whether calls may name the language-server program (`command` / `args`).
    server_command_allowed: bool,
    /// What the recent previews would write, by plan id (to name what differs at apply).
    previews: plan_id::Previews,
}

/// The envelope of one JSON call and the exit code `candor call` returns for it.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub envelope: Value,
    pub exit_code: i32,
}

/// [`Response`] as the text `candor call` prints.
pub struct TextResponse {
    pub text: String,
    pub exit_code: i32,
}

impl Engine {
    /// Opens `root` with its config files and the user's trust in it; `backend` (from
    /// `--backend` or `CANDOR_BACKEND`) overrides the config's default.
    pub fn open(root: &Path, backend: Option<BackendChoice>) -> Result<Engine, ApiError> {
        let root = open_root(root)?;
        let loaded = Config::load(&root)
            .map_err(|e| ApiError::new(ErrorCode::InvalidArgument, e.to_string()))?;
        let trust = crate::trust::of_config(&root, loaded.project_sha256.as_deref())
            .map_err(|e| ApiError::new(ErrorCode::InvalidArgument, e.to_string()))?;
        Ok(Engine::with_settings(root, loaded.config, backend, trust))
    }

    /// Opens `root` without reading any settings or trust: for undo and its history, which run
    /// nothing and need none (a broken config file must never block an undo).
    pub fn open_bare(root: &Path) -> Result<Engine, ApiError> {
        Ok(Engine::with_config(
            open_root(root)?,
            Config::default(),
            Some(BackendChoice::TreeSitter),
        ))
    }

    /// An engine on `config`, for a project that is not trusted.
    pub fn with_config(root: Root, config: Config, backend: Option<BackendChoice>) -> Engine {
        let trust = Trust::Untrusted {
            root: root.path().to_path_buf(),
            why: Untrusted::Never,
        };
        Engine::with_settings(root, config, backend, trust)
    }

    pub fn with_settings(
        root: Root,
        config: Config,
        backend: Option<BackendChoice>,
        trust: Trust,
    ) -> Engine {
        let limits = Limits {
            max_file_bytes: config
                .max_file_bytes
                .unwrap_or(Limits::default().max_file_bytes),
        };
        let lsp = LspSettings::from_config(&config.lsp, trust.clone());
        let rope = RopeSettings {
            python: config.rope.python.clone().map(|program| ConfiguredPython {
                program,
                from_project: config.rope.source == ConfigSource::Project,
            }),
            trust: trust.clone(),
            request_timeout: lsp.request_timeout,
        };
        Engine {
            sources: DiskSources::new(root.clone(), limits).with_store_mb(
                config
                    .store
                    .max_mb
                    .unwrap_or(crate::workspace::store::DEFAULT_MAX_MB),
            ),
            lsp: LspPool::with_settings(lsp),
            rope: RopeBackend::new(rope),
            default_backend: backend.or(config.semantic_edit_backend).unwrap_or_default(),
            root,
            config,
            trust,
            server_command_allowed: true,
            previews: plan_id::Previews::default(),
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

    /// Ends the engine of a process that exits next (`candor call`): the trees its store kept for
    /// later requests are left to the operating system rather than freed one by one (a
    /// twentieth of a project-wide rename); the rest is dropped as usual (servers stopped).
    pub fn finish(mut self) {
        self.sources.forget_store();
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// Whether the user trusts this project to make candor run programs it controls.
    pub fn trust(&self) -> &Trust {
        &self.trust
    }

    pub fn lsp(&self) -> &LspPool {
        &self.lsp
    }

    pub fn rope(&self) -> &RopeBackend {
        &self.rope
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
        self.call_cancellable(tool_name, args, &Cancel::never())
    }

    /// [`Engine::call`], stopping early (with an error, nothing written) once `cancel` is set.
    pub fn call_cancellable(
        &self,
        tool_name: &str,
        args: &Value,
        cancel: &Cancel,
    ) -> Result<Value, ApiError> {
        self.call_then(tool_name, args, cancel, |success| success.to_value())
    }

    /// `candor call TOOL ARGS` as the text it prints (never failing: errors become envelopes) and
    /// its exit code: [`Engine::call_json`]'s envelope, written straight from the result.
    pub fn call_text(&self, tool_name: &str, args: &Value) -> TextResponse {
        match self.call_then(tool_name, args, &Cancel::never(), |success| {
            success.to_text()
        }) {
            Ok(text) => TextResponse { text, exit_code: 0 },
            Err(error) => TextResponse {
                text: serde_json::to_string_pretty(&envelope::error(tool_name, &error))
                    .unwrap_or_default(),
                exit_code: error.code.exit_code(),
            },
        }
    }

    /// [`Engine::call_cancellable`], the success envelope handed to `render` (to write it as text
    /// without building it as a value first).
    pub fn call_then<R>(
        &self,
        tool_name: &str,
        args: &Value,
        cancel: &Cancel,
        render: impl FnOnce(&envelope::Success<'_>) -> R,
    ) -> Result<R, ApiError> {
        let call = self.parse(tool_name, args)?;
        let recovered = self.recover()?;
        self.check_expected_hashes(&call.options)
            .map_err(|e| with_recovery_note(e, &recovered))?;
        let mut preview = self.compute(&call, cancel)?;
        if !call.options.dry_run {
            preview = self.as_previewed(&call, preview, cancel)?;
        }
        preview.recovered = recovered;
        add_recovery_findings(&mut preview);
        // A write of another plan than the one previewed is refused before anything is checked.
        if !call.options.dry_run {
            self.check_previewed(&call.options, &preview)?;
        }
        // Every write is checked unless the call itself opts out (a config file may ask for more,
        // the tests, never for less); a preview only when asked.
        let level = if call.options.dry_run {
            self.verify_level(&call.options, Level::Off)
        } else {
            call.options
                .verify
                .unwrap_or(match self.config.verify.default {
                    Some(Level::Tests) => Level::Tests,
                    _ => Level::Check,
                })
        };
        let mut verification = self.verify(&call, &preview.outcome, level, cancel);
        if level == Level::Off && !call.options.dry_run {
            verification.reason = Some(verify::unchecked_write_reason(preview.outcome.lang));
        }
        cancel.check().map_err(cancelled)?;
        add_verification_findings(&mut preview, &call, verification);
        let applied = if call.options.dry_run {
            None
        } else {
            refuse_introduced_errors(&preview, &call.options)?;
            cancel.check().map_err(cancelled)?;
            self.apply(&preview.outcome, &call.options)?
        };
        let success =
            envelope::success(&call, &preview, applied.as_ref(), cancel).map_err(cancelled)?;
        Ok(render(&success))
    }

    /// Rolls back the project's interrupted writes, if any (see `write::recover_interrupted`).
    pub fn recover(&self) -> Result<Vec<Recovery>, ApiError> {
        write::recover_interrupted(&self.root)
            .map_err(|e| ApiError::new(ErrorCode::Io, e.to_string()))
    }

    /// A caller that says which content it previewed (`expected_sha256`) learns first when the
    /// disk no longer holds it, before anything is computed from the new content.
    pub fn check_expected_hashes(&self, options: &CallOptions) -> Result<(), ApiError> {
        for (path, expected) in &options.expected_sha256 {
            let resolved = self
                .root
                .resolve(path)
                .map_err(|e| ApiError::from(e).with_param(arg::EXPECTED_SHA256))?;
            // Through the root's handle: a FIFO is never opened for a blocking read, and what is
            // not a file is named as such.
            let found = match self.root.sha256_of(&resolved.real_relative) {
                Ok(Some(hash)) => hash,
                Ok(None) => "nothing (no such file)".to_string(),
                Err(e) => format!("something that cannot be read as a file ({e})"),
            };
            if !expected.eq_ignore_ascii_case(&found) {
                return Err(ApiError::new(
                    ErrorCode::StaleFile,
                    format!(
                        "{path} changed on disk since the preview you passed in expected_sha256 (expected sha256 {expected}, found {found}); nothing was written — preview again and re-apply"
                    ),
                )
                .with_param(arg::EXPECTED_SHA256));
            }
        }
        Ok(())
    }

    /// An apply under `auto` whose `plan_id` is not the semantic backend's plan computed now may
    /// name the heuristic's preview: `auto` fell back when the preview ran (a server still
    /// loading, a dry run's shorter budget) and not now. The heuristic computes the plan again;
    /// when it is the one previewed, that is what is written, and `fallback_reason` says why.
    /// Otherwise the semantic plan stays, and `check_previewed` refuses it as before.
    fn as_previewed(
        &self,
        call: &ToolCall,
        preview: Preview,
        cancel: &Cancel,
    ) -> Result<Preview, ApiError> {
        let Some(id) = &call.options.plan_id else {
            return Ok(preview);
        };
        let auto = call.options.backend.unwrap_or(self.default_backend) == BackendChoice::Auto;
        if !auto || preview.outcome.is_heuristic() || id.eq_ignore_ascii_case(&preview.plan_id) {
            return Ok(preview);
        }
        let mut heuristic_call = call.clone();
        heuristic_call.options.backend = Some(BackendChoice::TreeSitter);
        let mut heuristic = self.compute(&heuristic_call, cancel)?;
        if !id.eq_ignore_ascii_case(&heuristic.plan_id) {
            return Ok(preview);
        }
        heuristic.outcome.fallback_reason = Some(applied_heuristic_preview(id));
        Ok(heuristic)
    }

    /// The plan computed now must be the one the caller previewed: the same `plan_id` when it
    /// passed one, and no file beyond those of its `expected_sha256` when it passed that.
    fn check_previewed(&self, options: &CallOptions, preview: &Preview) -> Result<(), ApiError> {
        let fresh = plan_id::PlanSummary::of(&preview.outcome.plan.changes);
        if let Some(id) = &options.plan_id
            && !id.eq_ignore_ascii_case(&preview.plan_id)
        {
            let previewed = self.previews.get(id);
            return Err(stale_plan(
                arg::PLAN_ID,
                &plan_id::differences(previewed.as_ref(), &fresh),
            ));
        }
        if !options.expected_sha256.is_empty() {
            let grown: Vec<String> = fresh
                .existing_paths()
                .filter(|path| !options.expected_sha256.contains_key(*path))
                .map(|path| {
                    format!("{path} now needs a change too, and it is not in expected_sha256 (the preview you passed did not change it)")
                })
                .collect();
            if !grown.is_empty() {
                return Err(stale_plan(arg::EXPECTED_SHA256, &grown));
            }
        }
        Ok(())
    }

    /// Parses the JSON arguments (`candor call`, MCP) and resolves the call ([`Engine::resolve`]).
    pub fn parse(&self, tool_name: &str, args: &Value) -> Result<ToolCall, ApiError> {
        let tool = envelope::tool_named(tool_name)?;
        self.resolve(args::parse(tool, args)?)
    }

    /// Makes a typed call (from [`Engine::parse`], or built by the TUI) one this engine can
    /// carry out: every path checked and resolved inside the root, and the language-server
    /// program chosen by the call refused where the operator did not allow it.
    pub fn resolve(&self, mut call: ToolCall) -> Result<ToolCall, ApiError> {
        if !self.server_command_allowed
            && (call.options.server_override.command.is_some()
                || !call.options.server_override.args.is_empty())
        {
            return Err(ApiError::invalid(
                arg::COMMAND,
                "this server does not let calls choose the language-server program (`command` / `args`); configure servers in your own $XDG_CONFIG_HOME/candor/config.toml (or the project's, once you trust it with `candor trust`), or start `candor mcp --allow-server-command`",
            ));
        }
        paths::resolve(&self.root, &mut call)?;
        Ok(call)
    }

    /// Computes the refactor without writing anything, after rolling back an interrupted write
    /// (which the outcome's findings then report).
    pub fn preview(&self, call: &ToolCall) -> Result<Outcome, ApiError> {
        let recovered = self.recover()?;
        let mut preview = self.compute(call, &Cancel::never())?;
        preview.recovered = recovered;
        add_recovery_findings(&mut preview);
        Ok(preview.outcome)
    }

    /// The TUI's confirm: computes the plan again and writes it only if it is exactly the one
    /// `previewed` (the plan on screen); otherwise the refusal is a `stale_file` naming what
    /// differs. Returns `None` when there was nothing to write.
    pub fn apply_previewed(
        &self,
        call: &ToolCall,
        previewed: &Outcome,
    ) -> Result<Option<ApplyReport>, ApiError> {
        let recovered = self.recover()?;
        // What was on screen is what is written: a preview `auto` left to the heuristic (a
        // server still loading, its budget spent) is computed again by the heuristic.
        let auto = call.options.backend.unwrap_or(self.default_backend) == BackendChoice::Auto;
        let fresh = if auto && previewed.is_heuristic() {
            let mut heuristic_call = call.clone();
            heuristic_call.options.backend = Some(BackendChoice::TreeSitter);
            let mut fresh = self.compute(&heuristic_call, &Cancel::never())?;
            fresh.outcome.fallback_reason = previewed.fallback_reason.clone();
            fresh
        } else {
            self.compute(call, &Cancel::never())?
        };
        let wanted = plan_id(&previewed.plan.changes);
        if fresh.plan_id != wanted {
            let mut clauses = plan_id::differences(
                Some(&plan_id::PlanSummary::of(&previewed.plan.changes)),
                &plan_id::PlanSummary::of(&fresh.outcome.plan.changes),
            );
            clauses.extend(recovered.iter().map(|r| format!("{r} first")));
            return Err(stale_plan(arg::PLAN_ID, &clauses));
        }
        let mut options = call.options.clone();
        options.dry_run = false;
        self.apply(&fresh.outcome, &options)
    }

    /// The plan of `call` on the project as it is, with its token. The request's language is
    /// decided here, once, from its (resolved) file; everything after reads it from the outcome.
    fn compute(&self, call: &ToolCall, cancel: &Cancel) -> Result<Preview, ApiError> {
        let file = call.request.file();
        let Some(lang) = call.request.language() else {
            return Err(ApiError::new(
                ErrorCode::UnsupportedLanguage,
                format!("{file} is not a Rust (.rs) or Python (.py, .pyi) file; candor refactors only those"),
            )
            .with_param(arg::FILE_PATH));
        };
        // The file itself must be readable text: binary, non-UTF-8 or oversized is an error here,
        // while such a file among those searched is skipped and reported as a finding.
        match self.sources.read(file) {
            Ok(Some(_)) => {}
            Ok(None) => {
                return Err(ApiError::from(SourceError::Missing {
                    path: file.to_string(),
                })
                .with_param(arg::FILE_PATH));
            }
            Err(e) => return Err(ApiError::from(e).with_param(arg::FILE_PATH)),
        }
        let choice = call.options.backend.unwrap_or(self.default_backend);
        let recorder = SkipRecorder::new(&self.sources).with_cancel(cancel.clone());
        let planned = backend::plan(
            choice,
            Semantic {
                lsp: &self.lsp,
                rope: &self.rope,
                budget: Some(backend::Budget::of(&self.config.auto, call.options.dry_run)),
            },
            &self.root,
            &recorder,
            &call.request,
            lang,
            &call.options.server_override,
        );
        cancel.check().map_err(cancelled)?;
        let mut outcome = planned.map_err(|e| names_the_file(ApiError::from(e), file))?;
        // A skipped file the refactor already reported (change signature says which calls it
        // could not search) is warned once, not twice.
        let skipped: Vec<Finding> = recorder
            .findings()
            .into_iter()
            .filter(|skip| {
                !outcome
                    .plan
                    .findings
                    .iter()
                    .any(|f| f.file == skip.file && f.message.contains("not searched"))
            })
            .collect();
        if outcome.plan.sites.is_empty() && !outcome.is_heuristic() {
            outcome.plan.sites = backend_sites(&call.request, &outcome.plan);
        }
        self.previews.remember_sites(
            outcome
                .plan
                .sites
                .iter()
                .map(|s| (s.id.as_str(), s.file.as_str())),
        );
        // The choice of sites, before the checks: they and the verification see the chosen plan.
        self.choose_sites(&call.options, &mut outcome)?;
        // candor's own checks of the result, whichever backend made it.
        let mut extra = crate::refactor::cross::check(
            &call.request,
            lang,
            &outcome.plan.changes,
            &recorder,
            &outcome.plan.findings,
        );
        // The cross-checks of a big file take a while: a cancel during them is answered here.
        cancel.check().map_err(cancelled)?;
        extra.extend(skipped);
        extra.extend(self.hard_link_findings(&outcome));
        if !extra.is_empty() {
            outcome.plan.findings.extend(extra);
            crate::refactor::findings::normalize(&mut outcome.plan.findings);
        }
        let id = plan_id(&outcome.plan.changes);
        self.previews
            .remember(&id, plan_id::PlanSummary::of(&outcome.plan.changes));
        Ok(Preview {
            outcome,
            recovered: Vec::new(),
            plan_id: id,
            verification: None,
        })
    }

    /// Leaves out the sites of `exclude_sites` and writes those of `include_sites`: the changes
    /// are computed again from the same texts, and each site left out gets its finding. An id
    /// not in the plan is `stale_file` when a recent preview listed it (its file changed), else
    /// `invalid_argument`.
    fn choose_sites(&self, options: &CallOptions, outcome: &mut Outcome) -> Result<(), ApiError> {
        use crate::refactor::sites::{self, ChoiceError};
        if options.exclude_sites.is_empty() && options.include_sites.is_empty() {
            return Ok(());
        }
        let plan = &mut outcome.plan;
        let chosen = sites::choose(
            outcome.tool,
            plan,
            &options.exclude_sites,
            &options.include_sites,
        );
        let chosen = match chosen {
            Ok(chosen) => chosen,
            Err(ChoiceError::Unknown(id)) => {
                let param = if options.exclude_sites.contains(&id) {
                    arg::EXCLUDE_SITES
                } else {
                    arg::INCLUDE_SITES
                };
                return Err(match self.previews.site_file(&id) {
                    Some(file) => ApiError::new(
                        ErrorCode::StaleFile,
                        crate::refactor::sites_wording::stale_site(&id, &file),
                    )
                    .with_param(param),
                    None => ApiError::invalid(param, ChoiceError::Unknown(id).to_string()),
                });
            }
            Err(e @ ChoiceError::Both(_)) => {
                return Err(ApiError::invalid(arg::EXCLUDE_SITES, e.to_string()));
            }
            Err(ChoiceError::Edit(e)) => {
                return Err(ApiError::from(crate::refactor::RefactorError::Edit(e)));
            }
        };
        plan.findings.retain(|f| !chosen.supersedes(f));
        plan.changes = chosen.changes;
        plan.sites = chosen.sites;
        // The parse check of the result follows the choice too.
        plan.findings.retain(|f| !f.is_syntax_error());
        plan.findings
            .extend(crate::refactor::findings::check_syntax(&plan.changes));
        plan.findings.extend(chosen.findings);
        crate::refactor::findings::normalize(&mut plan.findings);
        Ok(())
    }

    /// How far to check a result: what the call says, else the project's `[verify] default`,
    /// else the front end's own default (for `candor call` and MCP: on for an apply, off for a
    /// dry run; on in the terminal UI).
    pub fn verify_level(&self, options: &CallOptions, front_end_default: Level) -> Level {
        options
            .verify
            .or(self.config.verify.default)
            .unwrap_or(front_end_default)
    }

    /// The check of `outcome` with the project's own tools, ready to run on any thread
    /// ([`verify::run`] with a cancellation token and a progress callback).
    pub fn verification_job(
        &self,
        call: &ToolCall,
        outcome: &Outcome,
        level: Level,
    ) -> verify::Job {
        verify::Job {
            root: self.root.path().to_path_buf(),
            lang: outcome.lang,
            changes: outcome.plan.changes.clone(),
            also_check: self.files_to_type_check(call, outcome),
            level,
            tests_when_cheap: false,
            settings: verify::Settings::from_config(&self.config.verify),
            trust: self.trust.clone(),
        }
    }

    /// Runs the check of `outcome` here (for `candor call` and MCP; the TUI runs the job on a
    /// worker thread). Level off gives the "skipped" verification that says what nobody checked.
    pub fn verify(
        &self,
        call: &ToolCall,
        outcome: &Outcome,
        level: Level,
        cancel: &Cancel,
    ) -> Verification {
        if level == Level::Off {
            return Verification::skipped(verify::not_checked_reason(outcome.lang));
        }
        verify::run(
            &self.verification_job(call, outcome, level),
            cancel,
            &|_| {},
        )
    }

    /// Unchanged Python files that mention the function or item the refactor removed or
    /// changed: the type checker looks at them too (an import of an inlined function, a call of
    /// a changed signature). At most 50.
    fn files_to_type_check(&self, call: &ToolCall, outcome: &Outcome) -> Vec<String> {
        use crate::refactor::Request;
        let lang = crate::lang::Language::Python;
        if outcome.lang != lang {
            return Vec::new();
        }
        let name = match &call.request {
            Request::Inline(r) => &r.function.name,
            Request::ChangeSignature(r) => &r.function.name,
            Request::Move(r) => &r.symbol.name,
            // Files still naming the old name after a rename.
            Request::Rename(r) if !r.symbol.name.is_empty() => &r.symbol.name,
            // Files that imported or used the deleted item.
            Request::SafeDelete(r) if !r.symbol.name.is_empty() => &r.symbol.name,
            Request::Extract(_)
            | Request::Rename(_)
            | Request::ExtractVariable(_)
            | Request::InlineVariable(_)
            | Request::SafeDelete(_)
            | Request::IntroduceParameter(_) => return Vec::new(),
        };
        let name = name.rsplit('/').next().unwrap_or(name);
        let Ok(mentioning) = crate::refactor::Sources::files_mentioning(&self.sources, lang, name)
        else {
            return Vec::new();
        };
        mentioning
            .files
            .into_iter()
            .map(|f| f.path)
            .filter(|p| !outcome.plan.changes.iter().any(|c| &c.path == p))
            .take(50)
            .collect()
    }

    /// A file with several hard links is written as a new file in its place (atomically), so
    /// its other names keep the old content: said in the preview, never done silently. Names in
    /// candor's own cache (an older candor's shadows) do not count.
    fn hard_link_findings(&self, outcome: &Outcome) -> Vec<Finding> {
        use std::os::unix::fs::MetadataExt;
        outcome
            .plan
            .changes
            .iter()
            .filter(|c| c.sha256_before.is_some())
            .filter_map(|c| {
                let resolved = self.root.resolve(&c.path).ok()?;
                let (dir, name) = self.root.parent_of(&resolved.real_relative).ok()??;
                let mut links = dir.meta(&name).ok()??.links;
                if links > 1 {
                    let real = self.root.path().join(&resolved.real_relative);
                    if let Ok(meta) = std::fs::symlink_metadata(&real) {
                        let ours = verify::links_in_cache(
                            self.root.path(),
                            &resolved.real_relative,
                            meta.dev(),
                            meta.ino(),
                        );
                        links = links.saturating_sub(ours);
                    }
                }
                (links > 1).then(|| {
                    Finding::warning(
                        &c.path,
                        1,
                        format!(
                            "{} has {links} hard links: candor writes the new content as a new file in its place, so the link is split and the other {} name(s) keep the old content; change them yourself if they must change too",
                            c.path,
                            links - 1
                        ),
                    )
                })
            })
            .collect()
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
                arg::ALLOW_SYNTAX_ERRORS,
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

/// The sites of a language server's or rope's result (see `sites::of_backend`).
fn backend_sites(
    request: &crate::refactor::Request,
    plan: &crate::refactor::Plan,
) -> Vec<crate::refactor::sites::Site> {
    let definition = match &plan.details {
        crate::refactor::Details::Rename(d) => d
            .definition
            .rsplit_once(':')
            .and_then(|(path, line)| Some((path, line.parse::<usize>().ok()?))),
        _ => None,
    };
    crate::refactor::sites::of_backend(request.tool(), request.file(), &plan.changes, definition)
}

fn open_root(root: &Path) -> Result<Root, ApiError> {
    Root::new(root).map_err(|e| {
        ApiError::new(
            ErrorCode::Io,
            format!(
                "cannot open project root {}: {e}; pass an existing directory with --root",
                root.display()
            ),
        )
    })
}

/// The refusal of a plan that is not the one previewed.
/// Why an apply under `auto` was made by the heuristic although a semantic backend answered.
fn applied_heuristic_preview(plan_id: &str) -> String {
    format!(
        "the preview this apply names (plan_id {plan_id}) was the heuristic's — auto had fallen back then — and the semantic backend now answers with another plan, so the heuristic computed the previewed plan again and that is what is applied"
    )
}

fn stale_plan(param: &str, clauses: &[String]) -> ApiError {
    let what = if clauses.is_empty() {
        "the plan computed now is not the one previewed".to_string()
    } else {
        clauses.join("; ")
    };
    ApiError::new(
        ErrorCode::StaleFile,
        format!(
            "the refactor computed now is not the one you previewed ({param}): {what}; nothing was written — preview again, read the new diff, and apply that one"
        ),
    )
    .with_param(param)
}

fn cancelled(e: crate::cancel::Cancelled) -> ApiError {
    ApiError::new(ErrorCode::Io, e.to_string())
}

/// Adds, to the error of a call, the interrupted writes that were rolled back before it.
fn with_recovery_note(mut error: ApiError, recovered: &[Recovery]) -> ApiError {
    if !recovered.is_empty() {
        let notes: Vec<String> = recovered.iter().map(ToString::to_string).collect();
        error.message = format!("{} (first, {})", error.message, notes.join("; "));
    }
    error
}

/// The check's new errors and broken tests become error findings; the verification goes into
/// `data.verification`.
fn add_verification_findings(preview: &mut Preview, call: &ToolCall, verification: Verification) {
    let findings = verification.findings(call.request.file());
    if !findings.is_empty() {
        preview.outcome.plan.findings.extend(findings);
        crate::refactor::findings::normalize(&mut preview.outcome.plan.findings);
    }
    preview.verification = Some(verification);
}

/// A result the check found broken is not written unless the caller insists.
fn refuse_introduced_errors(preview: &Preview, options: &CallOptions) -> Result<(), ApiError> {
    let Some(verification) = &preview.verification else {
        return Ok(());
    };
    if !verification.blocks_apply() || options.allow_introduced_errors {
        return Ok(());
    }
    let mut what: Vec<String> = verification
        .introduced_errors()
        .map(|d| {
            let code = if d.code.is_empty() {
                String::new()
            } else {
                format!("{} ", d.code)
            };
            format!("{}:{}: {code}{}", d.file, d.line, d.message)
        })
        .chain(
            verification
                .failing_tests()
                .iter()
                .map(|t| format!("test `{}` now fails", t.name)),
        )
        .collect();
    let count = what.len();
    what.truncate(3);
    Err(ApiError::invalid(
        arg::ALLOW_INTRODUCED_ERRORS,
        format!(
            "nothing was written: {} found {count} problem(s) this refactor introduces ({}{}). Adjust the request, or pass allow_introduced_errors: true to write it anyway",
            verification.checker.as_deref().unwrap_or("the check"),
            what.join("; "),
            if count > 3 { "; …" } else { "" }
        ),
    ))
}

/// One warning per rolled-back interrupted write, on the first file it restored.
/// A `not_found` error says in which file the symbol was looked for ("no function named `x` in
/// src/app.py"), not "in this file": the caller may have passed another path than it meant.
fn names_the_file(mut error: ApiError, file: &str) -> ApiError {
    if error.code != ErrorCode::NotFound {
        return error;
    }
    if error.message.contains(" in this file") {
        error.message = error
            .message
            .replacen(" in this file", &format!(" in {file}"), 1);
    } else if !error.message.contains(file) {
        error.message = format!("{file}: {}", error.message);
    }
    error
}

fn add_recovery_findings(preview: &mut Preview) {
    if preview.recovered.is_empty() {
        return;
    }
    for recovery in &preview.recovered {
        let file = recovery.restored.first().cloned().unwrap_or_else(|| {
            format!(
                "{}/journal/{}",
                crate::workspace::journal::CANDOR_DIR,
                recovery.transaction
            )
        });
        preview.outcome.plan.findings.push(Finding::warning(
            &file,
            1,
            format!("{recovery}, before this result was computed"),
        ));
    }
    crate::refactor::findings::normalize(&mut preview.outcome.plan.findings);
}

/// Names and descriptions of the tools, for `candor call` without a tool.
pub fn tool_list() -> Vec<(&'static str, String)> {
    Tool::ALL
        .iter()
        .map(|t| (t.name(), schema::description(*t)))
        .collect()
}
