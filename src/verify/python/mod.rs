//! The Python check, on both shadows at once: `ruff check` (pyflakes rules and syntax errors),
//! `compile()` of each file (what `py_compile` does, without writing bytecode) and a type
//! checker — the one the project configures (`[tool.pyrefly]`/`pyrefly.toml` → pyrefly,
//! `[tool.basedpyright]`/`[tool.pyright]`/`pyrightconfig.json` → basedpyright, `[tool.mypy]`/
//! `mypy.ini` → mypy), pyrefly otherwise — on the changed files and those that mention the
//! changed name only. Every checker runs at once, on both sides; what each said about the
//! project before the refactor is remembered by content, so checking the same base again runs
//! the "after" side only.
//!
//! None of them runs project code: the interpreter is candor's (config or PATH), started
//! isolated (`-I -S`) from a directory outside the project; the type checker gets that
//! interpreter explicitly and candor's own settings; ruff reads the project's settings only in a
//! trusted project (`--isolated` otherwise: a setting can make it read any file).

mod compile;
mod ruff;
mod tools;
mod types;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::lang::Language;

use super::memo::{self, Stored};
use super::progress::Tally;
use super::{Checked, Context, Diagnostic, Side, StepError, diff};

pub(super) use tools::Checker;

/// What one checker said on one side: its diagnostics, or why it could not say.
pub(super) type Said = Result<Vec<Diagnostic>, String>;

pub(super) fn check(cx: &mut Context<'_>) -> Result<Checked, StepError> {
    let cx = &*cx;
    let tools = cx
        .progress
        .timed("finding the checkers", || tools::find(cx))?;
    let files = files_to_check(cx);
    if files.is_empty() {
        return Err(StepError::Unavailable(
            "the refactor changes no Python file".to_string(),
        ));
    }
    let extra = tools.extra_files(cx);
    let (before_sync, after_sync) = std::thread::scope(|s| {
        let before = s.spawn(|| cx.sync(Side::Before, &extra));
        let after = cx.sync(Side::After, &extra);
        (before.join(), after)
    });
    let before_sync = before_sync.map_err(|_| panicked("preparing the shadow"))??;
    after_sync?;
    let before_key = cx.before_key(&before_sync, Side::Before);
    let keys: Vec<String> = tools
        .checkers
        .iter()
        .map(|c| {
            memo::key(&[
                "python before",
                &c.identity(),
                &files.join("\n"),
                &before_key,
            ])
        })
        .collect();
    let remembered: Vec<Option<Vec<Stored>>> = keys.iter().map(|k| cx.memo.get(k)).collect();
    let runs = tools.checkers.len() + remembered.iter().filter(|r| r.is_none()).count();
    let tally = Tally::new(files.len() * runs);
    let results = run_all(cx, &tools, &files, &remembered, &tally)?;
    let maps = diff::line_maps(&cx.job.changes);
    let mut checked = Checked {
        not_run: tools.not_run.clone(),
        ..Checked::default()
    };
    for (i, checker) in tools.checkers.iter().enumerate() {
        let (before, after) = &results[i];
        match (before, after) {
            (Ok(old), Ok(new)) => {
                if remembered[i].is_none() {
                    let stored: Vec<Stored> = old.iter().map(Stored::of).collect();
                    cx.memo.put(&keys[i], &stored);
                }
                let (introduced, preexisting) = diff::introduced(old, new, &maps);
                checked.introduced.extend(introduced);
                checked.preexisting += preexisting;
                checked.checkers.push(checker.name().to_string());
            }
            (Err(reason), _) | (_, Err(reason)) => {
                checked
                    .not_run
                    .push(format!("{}: {reason}", checker.name()));
            }
        }
    }
    if checked.checkers.is_empty() {
        return Err(StepError::Unavailable(format!(
            "no Python checker could run: {}",
            checked.not_run.join("; ")
        )));
    }
    Ok(checked)
}

fn panicked(what: &str) -> StepError {
    StepError::Unavailable(format!("the check panicked while {what}"))
}

/// Every checker on the "after" shadow and, unless remembered, on the "before" one, all at once.
/// Returns (before, after) per checker. A checker that fails is reported, not fatal; running
/// out of time is.
fn run_all(
    cx: &Context<'_>,
    tools: &tools::Tools,
    files: &[String],
    remembered: &[Option<Vec<Stored>>],
    tally: &Tally,
) -> Result<Vec<(Said, Said)>, StepError> {
    let one = |checker: &Checker, side: Side| -> Result<Said, StepError> {
        let (_, shadow) = cx.shadow(side);
        let present: Vec<PathBuf> = files
            .iter()
            .map(|f| shadow.join(f))
            .filter(|p| p.is_file())
            .collect();
        let started = Instant::now();
        let said = if present.is_empty() {
            Ok(Ok(Vec::new()))
        } else {
            checker.run(cx, tools, &shadow, &present, side)
        };
        // A message naming a file names it in the shadow: the same message on both sides.
        let said = said.map(|said| said.map(|found| without_shadow(found, &shadow)));
        cx.progress
            .record(&format!("{} {}", checker.name(), side.short()), started);
        let (done, total) = tally.add(files.len());
        cx.progress.say(
            &format!("{} {} the refactor: done", checker.name(), side.as_str()),
            Some((done, total)),
        );
        said
    };
    std::thread::scope(|s| {
        let handles: Vec<_> = tools
            .checkers
            .iter()
            .zip(remembered)
            .map(|(checker, remembered)| {
                let before = match remembered {
                    Some(stored) => {
                        let name = format!("{} before (remembered)", checker.name());
                        cx.progress.record(&name, Instant::now());
                        Err(stored.iter().cloned().map(Stored::diagnostic).collect())
                    }
                    None => Ok(s.spawn(move || one(checker, Side::Before))),
                };
                let after = s.spawn(move || one(checker, Side::After));
                (before, after)
            })
            .collect();
        handles
            .into_iter()
            .map(|(before, after)| {
                let after = after.join().map_err(|_| panicked("checking"))??;
                let before = match before {
                    Ok(handle) => handle.join().map_err(|_| panicked("checking"))??,
                    Err(stored) => Ok(stored),
                };
                Ok((before, after))
            })
            .collect()
    })
}

/// The diagnostics with the shadow's path taken out of their messages.
fn without_shadow(found: Vec<Diagnostic>, shadow: &Path) -> Vec<Diagnostic> {
    let prefix = format!("{}/", shadow.display());
    found
        .into_iter()
        .map(|mut d| {
            if d.message.contains(&prefix) {
                d.message = d.message.replace(&prefix, "");
            }
            d
        })
        .collect()
}

/// The changed Python files and the other files worth checking, project-relative.
fn files_to_check(cx: &Context<'_>) -> Vec<String> {
    let mut files: Vec<String> = cx
        .job
        .changes
        .iter()
        .map(|c| c.path.clone())
        .chain(cx.job.also_check.iter().cloned())
        .filter(|p| Language::from_path(p) == Some(Language::Python))
        .collect();
    files.sort();
    files.dedup();
    files
}

/// " (pip install NAME)" after a "not found", nothing after a refusal.
pub(super) fn install_hint(reason: &str, package: &str) -> String {
    if reason.contains("not found") {
        format!(" (pip install {package})")
    } else {
        String::new()
    }
}

/// Runs one checker command; `Ok(Err(reason))` when it ran but failed (or hit a limit).
pub(super) fn run_tool(
    cx: &Context<'_>,
    command: &mut std::process::Command,
    step: &str,
) -> Result<Result<super::process::Finished, String>, StepError> {
    match cx.run(command, step) {
        Ok(done) => Ok(Ok(done)),
        Err(StepError::Unavailable(reason)) => Ok(Err(reason)),
        Err(stop) => Err(stop),
    }
}

/// The project-relative path of a file in a shadow; `None` for anything outside it.
pub(super) fn relative(shadow: &Path, file: &str) -> Option<String> {
    let path = Path::new(file);
    if path.is_relative() {
        return Some(file.to_string());
    }
    path.strip_prefix(shadow)
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

/// The project's config files a checker would read, by name, as text (read from the root).
pub(super) fn project_files(root: &Path) -> BTreeMap<&'static str, String> {
    let mut found = BTreeMap::new();
    for name in [
        "pyproject.toml",
        "pyrefly.toml",
        "pyrightconfig.json",
        "mypy.ini",
        ".mypy.ini",
        "setup.cfg",
    ] {
        if let Ok(text) = std::fs::read_to_string(root.join(name)) {
            found.insert(name, text);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_outside_the_shadow_are_dropped() {
        let shadow = Path::new("/cache/edit");
        assert_eq!(
            relative(shadow, "/cache/edit/pkg/a.py").as_deref(),
            Some("pkg/a.py")
        );
        assert_eq!(relative(shadow, "pkg/a.py").as_deref(), Some("pkg/a.py"));
        assert_eq!(relative(shadow, "/usr/lib/python3/os.py"), None);
    }

    #[test]
    fn a_message_naming_a_shadow_file_is_the_same_on_both_sides() {
        let said = |shadow: &str| Diagnostic {
            file: "pkg/a.pyi".into(),
            line: 1,
            severity: crate::refactor::Severity::Error,
            code: String::new(),
            message: format!("Duplicate module named \"pkg.a\" (also at \"{shadow}/pkg/a.py\")"),
            source: "mypy".into(),
        };
        let base = without_shadow(vec![said("/cache/base")], Path::new("/cache/base"));
        let edit = without_shadow(vec![said("/cache/edit")], Path::new("/cache/edit"));
        assert_eq!(base, edit);
        assert_eq!(
            base[0].message,
            "Duplicate module named \"pkg.a\" (also at \"pkg/a.py\")"
        );
    }
}
