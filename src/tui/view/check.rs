//! The "Check" section of the warning panel: what the project's own tools said about this
//! result (cargo check; ruff, compile() and a type checker; the tests on request or when cheap),
//! the spinner, step, seconds and files done while they run, and — until a check has run — what
//! nobody has verified yet, with the way to trust the project from here when that is what stops
//! it. The problems it found are
//! rows of the findings list, drawn by the panel under this.

use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};

use crate::tui::keymap::{Command, Context};
use crate::tui::state::{CheckRun, Ready, State, checker_name, plural};
use crate::verify::{Level, State as Outcome, TestReport, Verification};

use super::push;

/// Appends the section's heading and status to `lines`.
pub fn section(state: &State, ready: &Ready, width: usize, lines: &mut Vec<Line<'static>>) {
    let t = &state.theme;
    let check = &ready.check;
    let lang = ready.outcome.lang;
    let keys = &state.keymap;
    let again = keys.hint(Context::Preview, Command::Check);
    let tests = keys.hint(Context::Preview, Command::RunTests);
    let stop = match check.level {
        Level::Tests => tests.clone(),
        _ => again.clone(),
    };
    let heading = match check.level {
        Level::Tests => "Check (and tests)",
        _ => "Check",
    };
    lines.push(Line::from(Span::styled(
        heading,
        Style::default().add_modifier(Modifier::BOLD),
    )));
    let mut say = |text: &str, first: &str, style: Style| push(lines, text, first, style, width);
    match &check.run {
        CheckRun::NotAsked if ready.outcome.plan.changes.is_empty() => {
            say(
                "nothing to check: the refactor changes nothing",
                "  ",
                t.dim,
            );
        }
        CheckRun::NotAsked => {
            say(&not_verified(ready), "  ", t.warning);
            say(
                &format!(
                    "{again}: check it with {} · {tests}: also run the tests",
                    checker_name(lang)
                ),
                "  ",
                t.dim,
            );
        }
        CheckRun::Running {
            step,
            files,
            started,
        } => {
            let spinner = super::spinner(state);
            let what = step.clone().unwrap_or_else(|| "starting".to_string());
            let mut line = format!("{}: {what}…", checker_name(lang));
            let seconds = started.elapsed().as_secs();
            if seconds > 0 {
                line.push_str(&format!(" · {seconds} s"));
            }
            if let Some((done, total)) = files {
                line.push_str(&format!(" · {done}/{total} files"));
            }
            say(&line, &format!("{spinner} "), t.info);
            say(
                &format!("{} ({stop} stops it)", not_verified(ready)),
                "  ",
                t.dim,
            );
        }
        CheckRun::Cancelled => {
            say("stopped", "  ", t.warning);
            say(&not_verified(ready), "  ", t.warning);
            say(
                &format!("{again}: check it · {tests}: also run the tests"),
                "  ",
                t.dim,
            );
        }
        CheckRun::Done(verification) => done(state, verification, lang, width, lines),
    }
}

/// After the check's problems: the offer to run the tests too, once the check ran.
pub fn tests_hint(state: &State, ready: &Ready, width: usize, lines: &mut Vec<Line<'static>>) {
    let check = &ready.check;
    let tests = state.keymap.hint(Context::Preview, Command::RunTests);
    // Not when the check says something of the tests already (they ran, cheap enough, or it
    // says why not and names the key).
    let ran = check.verification().is_some_and(|v| {
        matches!(v.state, Outcome::Clean | Outcome::Introduced) && v.tests.is_none()
    });
    if ran && check.level != Level::Tests {
        push(
            lines,
            &format!("{tests}: also run the project's tests"),
            "  ",
            state.theme.dim,
            width,
        );
    }
}

/// The lines of a finished check: its summary, then why (unavailable, timeout, skipped), what
/// could not run, and the tests.
fn done(
    state: &State,
    verification: &Verification,
    lang: crate::lang::Language,
    width: usize,
    lines: &mut Vec<Line<'static>>,
) {
    let t = &state.theme;
    // Only the tests broke: the checker itself found nothing new (the tests say the rest).
    let checker_clean = verification.state == Outcome::Clean
        || (verification.state == Outcome::Introduced && verification.introduced.is_empty());
    let (mark, style) = match verification.state {
        _ if checker_clean => ("✓ ", t.ok),
        Outcome::Introduced if verification.blocks_apply() => ("✗ ", t.error),
        Outcome::Introduced => ("▲ ", t.warning),
        Outcome::Clean | Outcome::Unavailable | Outcome::Timeout | Outcome::Skipped => {
            ("▲ ", t.warning)
        }
    };
    let checker = verification
        .checker
        .as_deref()
        .unwrap_or_else(|| checker_name(lang));
    let warnings = verification.introduced_warnings.len();
    let headline = match verification.state {
        _ if checker_clean && warnings > 0 => {
            format!("{checker}: clean ({})", plural(warnings, "new warning"))
        }
        _ if checker_clean => format!("{checker}: clean"),
        Outcome::Unavailable | Outcome::Timeout | Outcome::Skipped => {
            format!("{checker}: {}", verification.state.as_str())
        }
        _ => verification.summary(),
    };
    push(lines, &headline, mark, style, width);
    if let Some(reason) = &verification.reason {
        push(lines, reason, "  ", t.dim, width);
        if reason.contains("not trusted") && !state.trust.allows_project_programs() {
            let trust = state.keymap.hint(Context::Preview, Command::Trust);
            push(
                lines,
                &format!("{trust}: trust it from here (shows what that allows, and asks)"),
                "  ",
                t.dim,
                width,
            );
        }
    }
    if verification.preexisting > 0 {
        push(
            lines,
            &format!(
                "{} already there before the refactor (not listed)",
                plural(verification.preexisting, "problem")
            ),
            "  ",
            t.dim,
            width,
        );
    }
    for not_run in &verification.not_run {
        push(lines, &format!("not run: {not_run}"), "  ", t.dim, width);
    }
    for note in &verification.notes {
        push(lines, &format!("note: {note}"), "  ", t.dim, width);
    }
    if let Some(tests) = &verification.tests {
        tests_lines(state, tests, width, lines);
    }
}

fn tests_lines(state: &State, tests: &TestReport, width: usize, lines: &mut Vec<Line<'static>>) {
    let t = &state.theme;
    let runner = tests.runner.as_deref().unwrap_or("tests");
    let (text, mark, style) = match tests.state {
        Outcome::Clean => (
            format!(
                "{runner}: no test newly fails ({} passed before)",
                tests.passed_before
            ),
            "✓ ",
            t.ok,
        ),
        Outcome::Introduced => (
            format!(
                "{runner}: {}",
                plural(tests.failing.len(), "newly failing test")
            ),
            "✗ ",
            t.error,
        ),
        other => (format!("{runner}: {}", other.as_str()), "▲ ", t.warning),
    };
    push(lines, &text, mark, style, width);
    if let Some(reason) = &tests.reason {
        push(lines, reason, "  ", t.dim, width);
    }
}

/// What nobody has verified about this result yet: what the server did and did not do.
fn not_verified(ready: &Ready) -> String {
    let who = match (&ready.outcome.server, &ready.outcome.semantic_backend) {
        (Some(server), _) => format!("{} computed the edit; ", server.name),
        (None, Some(library)) => format!("{} computed the edit; ", library.name),
        (None, None) => String::new(),
    };
    format!("{who}not compiled or type-checked yet")
}
