//! The Python checkers found for one check — candor's interpreter (for `compile()` and the type
//! checker's imports), ruff, and the type checker — and how each is run on a shadow.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::super::process::Program;
use super::super::{Context, Side, StepError};
use super::types::{self, TypeChecker};
use super::{Said, compile, install_hint, ruff};

/// One checker of the Python check.
pub(crate) enum Checker {
    Ruff(Program),
    /// `compile()` in this interpreter.
    Compile(PathBuf),
    Types(TypeChecker),
}

impl Checker {
    /// Its name in `checker`, `not_run` and the diagnostics' `source`.
    pub fn name(&self) -> &'static str {
        match self {
            Checker::Ruff(_) => "ruff",
            Checker::Compile(_) => "compile",
            Checker::Types(checker) => checker.kind.name(),
        }
    }

    /// What its answer depends on besides the files: the program's build and how it is run.
    pub fn identity(&self) -> String {
        match self {
            Checker::Ruff(program) => format!("ruff|{}|{}", program.identity(), ruff::SETTINGS),
            Checker::Compile(python) => format!(
                "compile|{}|{}",
                Program {
                    path: python.clone(),
                    ..Program::default()
                }
                .identity(),
                compile::SCRIPT
            ),
            Checker::Types(checker) => format!(
                "{}|{}|{}",
                checker.kind.name(),
                checker.program.identity(),
                checker.settings
            ),
        }
    }

    /// Runs it on `files` (absolute, in `shadow`).
    pub fn run(
        &self,
        cx: &Context<'_>,
        tools: &Tools,
        shadow: &Path,
        files: &[PathBuf],
        side: Side,
    ) -> Result<Said, StepError> {
        match self {
            Checker::Ruff(program) => ruff::check(cx, program, shadow, files, side),
            Checker::Compile(python) => compile::check(cx, python, shadow, files, side),
            Checker::Types(checker) => {
                types::check(cx, checker, tools.python.as_deref(), shadow, files, side)
            }
        }
    }
}

/// The checkers found for this check.
pub(crate) struct Tools {
    /// The real interpreter (`sys.executable`).
    pub python: Option<PathBuf>,
    pub checkers: Vec<Checker>,
    pub not_run: Vec<String>,
}

impl Tools {
    /// Files candor writes into both shadows for its checkers (the type checker's settings).
    pub fn extra_files(&self, _cx: &Context<'_>) -> BTreeMap<String, Vec<u8>> {
        self.checkers
            .iter()
            .filter_map(|c| match c {
                Checker::Types(checker) => Some(checker.config_file()),
                _ => None,
            })
            .collect()
    }
}

/// The checkers on PATH or in the config file; an error when there is none at all.
pub(super) fn find(cx: &Context<'_>) -> Result<Tools, StepError> {
    let settings = &cx.job.settings;
    let mut not_run = Vec::new();
    let mut checkers = Vec::new();
    let ruff = cx.program("ruff", settings.ruff.as_ref(), &["ruff"]);
    match ruff {
        Ok(program) => checkers.push(Checker::Ruff(program)),
        Err(e) => not_run.push(format!("ruff: {e}{}", install_hint(&e, "ruff"))),
    }
    let python = cx
        .program("python", settings.python.as_ref(), &["python3", "python"])
        .map_err(|e| format!("compile: {e}"))
        .and_then(|program| interpreter(cx, &program));
    let python = match python {
        Ok(found) => {
            checkers.push(Checker::Compile(found.clone()));
            Some(found)
        }
        Err(reason) => {
            not_run.push(reason);
            None
        }
    };
    if let Some(checker) = types::choose(cx, python.as_deref(), &mut not_run) {
        checkers.push(Checker::Types(checker));
    }
    if checkers.is_empty() {
        return Err(StepError::Unavailable(format!(
            "no Python checker found ({}); install them or name them in [verify] of .candor/config.toml",
            not_run.join("; ")
        )));
    }
    Ok(Tools {
        python,
        checkers,
        not_run,
    })
}

/// The interpreter behind `program` (a pyenv shim or a venv link resolved), asked in isolated
/// mode from the scratch directory.
fn interpreter(cx: &Context<'_>, program: &Program) -> Result<PathBuf, String> {
    let mut command = program.command();
    command
        .args(["-I", "-S", "-c", "import sys; print(sys.executable)"])
        .current_dir(cx.cache.scratch());
    let done = cx
        .run(&mut command, "finding the Python interpreter")
        .map_err(|e| format!("compile: {} did not start: {e:?}", program.path.display()))?;
    let out = done.stdout_text();
    match out.lines().next() {
        Some(exe) if done.status.success() && !exe.is_empty() => Ok(PathBuf::from(exe)),
        _ => Err(format!(
            "compile: {} is not a working Python interpreter: {}",
            program.path.display(),
            done.stderr_tail(2)
        )),
    }
}
