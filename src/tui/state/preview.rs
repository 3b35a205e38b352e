//! A preview's data: what was asked, the answer (the outcome confirm writes, and its diff), what
//! it was computed from, and where the user is in it.

use std::collections::BTreeSet;

use crate::api::{ApiError, ToolCall};
use crate::backend::Outcome;
use crate::honesty::Tool;
use crate::refactor::{Finding, Severity};
use crate::tui::diffview::FileDiff;
use crate::verify::Level;

use super::check::{Check, CheckRun, checker_name, plural};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewFocus {
    Diff,
    Findings,
    /// The sites list (in the warning panel's place).
    Sites,
}

/// What the preview was asked for: enough to ask again when the files change.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewRequest {
    /// The typed call the engine computes: what `candor call` would have after parsing its
    /// JSON (the engine resolves its paths).
    pub call: ToolCall,
    /// `extract lines 12–18` `of src/lib.rs` `into parse_header`
    pub title: Title,
    /// The file the refactor started from, and the cursor line to return to.
    pub origin: String,
    pub origin_line: usize,
}

impl PreviewRequest {
    pub fn tool(&self) -> Tool {
        self.call.tool()
    }
}

/// How the warning panel lists the notes (info findings); errors and warnings are always listed
/// one by one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NotesMode {
    /// One row per kind with its count (`77 × `has` appears in a string; not updated`).
    #[default]
    Folded,
    /// Every note.
    All,
    /// No notes (their count stays in the panel's summary).
    Hidden,
}

impl NotesMode {
    /// The next mode of the panel's toggle.
    pub fn next(self) -> NotesMode {
        match self {
            NotesMode::Folded => NotesMode::All,
            NotesMode::All => NotesMode::Hidden,
            NotesMode::Hidden => NotesMode::Folded,
        }
    }
}

/// One row of the findings list, in the panel's order: why no semantic backend was used, then
/// candor's own errors and warnings (the cause comes first), then what the check found, then the
/// notes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingRow {
    /// Why `auto` did not use a semantic backend: one line, expanded on request.
    Fallback,
    /// A finding, by index.
    One(usize),
    /// Notes of one kind folded into a count; `first` is the index of the first of them.
    Group {
        kind: String,
        count: usize,
        first: usize,
    },
    /// Problems the check found in one file with one code (`E0425 × 2 in src/lib.rs`), by index
    /// into [`Check::groups`]; its problems follow as [`FindingRow::Check`] rows when open.
    CheckGroup(usize),
    /// A problem the check found (an introduced diagnostic or a newly failing test), by index
    /// into [`Check::findings`].
    Check(usize),
}

/// A row of the findings list that opens to show more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Fold {
    Fallback,
    CheckGroup(usize),
}

/// A preview's title in parts, so it gives way by importance on a narrow screen: what is done,
/// where (with its preposition: `of src/lib.rs`), and the detail (`into parse_header`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Title {
    pub operation: String,
    pub place: String,
    pub detail: String,
}

impl Title {
    pub fn new(operation: impl Into<String>, place: &str, detail: &str) -> Title {
        Title {
            operation: operation.into(),
            place: place.to_string(),
            detail: detail.to_string(),
        }
    }

    /// The whole title: `extract lines 12–18 of src/lib.rs into parse_header`.
    pub fn text(&self) -> String {
        [&self.operation, &self.place, &self.detail]
            .into_iter()
            .filter(|p| !p.is_empty())
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A computed refactor on screen: the outcome that confirm writes, and its diff.
#[derive(Debug, Clone, PartialEq)]
pub struct Ready {
    pub call: ToolCall,
    pub outcome: Outcome,
    pub diffs: Vec<FileDiff>,
    /// How long the engine took to compute it (a long one is not thrown away without asking).
    pub took: std::time::Duration,
    /// How far the check goes unless the user asks for more: the call's `verify`, else the
    /// project's `[verify] default`, else the check (the TUI's default).
    pub verify: Level,
    /// The check of this result with the project's own tools.
    pub check: Check,
    /// The plan as computed and the user's choice of its sites (`outcome` is the chosen plan).
    pub choice: super::SiteChoice,
}

impl Ready {
    pub fn new(call: ToolCall, outcome: Outcome, diffs: Vec<FileDiff>, verify: Level) -> Ready {
        let outcome_plan = outcome.plan.clone();
        Ready {
            call,
            outcome,
            diffs,
            took: std::time::Duration::ZERO,
            verify,
            check: Check::not_asked(),
            choice: super::SiteChoice::new(outcome_plan),
        }
    }

    /// The findings as the panel lists them (see [`FindingRow`]): errors, then warnings, one by
    /// one; then the check's problems, a group per file and code (`open` ones with their
    /// problems under them); then the notes as `notes` says.
    pub fn finding_rows(&self, notes: NotesMode, open: &BTreeSet<Fold>) -> Vec<FindingRow> {
        let findings = &self.outcome.plan.findings;
        let mut rows: Vec<FindingRow> = Vec::new();
        if self.outcome.fallback_reason.is_some() {
            rows.push(FindingRow::Fallback);
        }
        for severity in [Severity::Error, Severity::Warning] {
            rows.extend(
                findings
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.severity == severity)
                    .map(|(i, _)| FindingRow::One(i)),
            );
        }
        for (g, group) in self.check.groups.iter().enumerate() {
            if group.members.len() == 1 {
                rows.push(FindingRow::Check(group.members[0]));
                continue;
            }
            rows.push(FindingRow::CheckGroup(g));
            if open.contains(&Fold::CheckGroup(g)) {
                rows.extend(group.members.iter().map(|&i| FindingRow::Check(i)));
            }
        }
        match notes {
            NotesMode::Hidden => {}
            NotesMode::All => rows.extend(
                findings
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.severity == Severity::Info)
                    .map(|(i, _)| FindingRow::One(i)),
            ),
            NotesMode::Folded => rows.extend(
                crate::api::finding_counts::count(findings)
                    .by_kind
                    .into_iter()
                    .filter(|k| k.severity == Severity::Info)
                    .map(|k| {
                        if k.count == 1 {
                            FindingRow::One(k.first)
                        } else {
                            FindingRow::Group {
                                kind: k.message,
                                count: k.count,
                                first: k.first,
                            }
                        }
                    }),
            ),
        }
        rows
    }

    /// The problems of the check of `severity` and candor's own, as the panel's summary says
    /// them: `1 error: E0106 (cargo check)`, `3 errors: E0425 × 2 (cargo check), 1 from candor`.
    pub fn summary(&self) -> Vec<(Severity, String)> {
        let mut parts = Vec::new();
        for (severity, name) in [(Severity::Error, "error"), (Severity::Warning, "warning")] {
            let (checked, mut what) = self.check.summary(severity);
            let own = self.count(severity);
            if own > 0 && checked > 0 {
                what.push(format!("{own} from candor"));
            }
            let total = checked + own;
            if total > 0 {
                let head = plural(total, name);
                parts.push((
                    severity,
                    if what.is_empty() {
                        head
                    } else {
                        format!("{head}: {}", what.join(", "))
                    },
                ));
            }
        }
        let notes = self.count(Severity::Info);
        if notes > 0 {
            parts.push((Severity::Info, plural(notes, "note")));
        }
        parts
    }

    /// How many sites the user left out (possible references never chosen do not count).
    pub fn left_out(&self) -> usize {
        self.choice.excluded.len()
    }

    /// Who computed the edit when it was not the heuristic: its name and what it is (`a
    /// language server`, `the rope library`).
    pub fn engine(&self) -> Option<(String, String)> {
        match (&self.outcome.server, &self.outcome.semantic_backend) {
            (Some(server), _) => Some((server.name.clone(), "a language server".to_string())),
            (None, Some(library)) => Some((
                library.name.clone(),
                format!("the {} library", library.name),
            )),
            (None, None) => None,
        }
    }

    /// The line under "Caveats: none" for a semantic result: who did the refactor, and what
    /// the check said of it (so the panel speaks with one voice).
    pub fn semantic_caveat(&self) -> Option<String> {
        let (name, what) = self.engine()?;
        let who = format!("{name} ({what}) did the refactor");
        let lang = self.outcome.lang;
        let untested = "it does not compile, type-check or test its result";
        Some(match &self.check.run {
            CheckRun::Done(v) if v.state == crate::verify::State::Clean => {
                let checker = v.checker.as_deref().unwrap_or_else(|| checker_name(lang));
                match v.introduced_warnings.len() {
                    0 => format!("{who}, and {checker} found nothing new in it"),
                    // Clean, but not "nothing new": the new warnings are listed under Check.
                    n => format!(
                        "{who}, and {checker} found no new error in it, {} (see Check)",
                        plural(n, "new warning")
                    ),
                }
            }
            CheckRun::Done(v) if v.state == crate::verify::State::Introduced => {
                let checker = v.checker.as_deref().unwrap_or_else(|| checker_name(lang));
                // The checker is named here already: not "… found 2 new errors found by the check".
                let found: Vec<String> = self
                    .check
                    .found(lang)
                    .into_iter()
                    .map(|part| part.replace(" found by the check", ""))
                    .collect();
                let found = if found.is_empty() {
                    "problems".to_string()
                } else {
                    found.join(" and ")
                };
                format!("{who}; {untested} — {checker} found {found} in it (see Check)")
            }
            CheckRun::Running { .. } => {
                format!(
                    "{who}; {untested} — {} is checking it now",
                    checker_name(lang)
                )
            }
            _ => {
                let why = self
                    .check
                    .unchecked_why(lang)
                    .unwrap_or_else(|| "not checked".to_string());
                format!("{who}; {untested}, and it was not checked ({why})")
            }
        })
    }

    /// The finding of a row (the first of a folded group).
    pub fn row_finding(&self, row: &FindingRow) -> Option<&Finding> {
        match row {
            FindingRow::One(i) | FindingRow::Group { first: i, .. } => {
                self.outcome.plan.findings.get(*i)
            }
            FindingRow::Check(i) => self.check.findings.get(*i),
            FindingRow::CheckGroup(g) => self
                .check
                .groups
                .get(*g)
                .and_then(|group| self.check.findings.get(group.members[0])),
            FindingRow::Fallback => None,
        }
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.outcome
            .plan
            .findings
            .iter()
            .filter(|f| f.severity == severity)
            .count()
    }

    /// The canonical caveats on screen (none for a language-server result).
    pub fn caveats(&self) -> &'static [&'static str] {
        if self.outcome.is_heuristic() {
            self.outcome.tool.caveats()
        } else {
            &[]
        }
    }

    /// What candor did about `caveat` in this result, if anything (shown under the caveat).
    pub fn caveat_notes(&self, caveat: &str) -> impl Iterator<Item = &str> {
        self.outcome
            .plan
            .caveat_notes
            .iter()
            .filter(move |n| n.caveat.text() == caveat)
            .map(|n| n.note.as_str())
    }

    /// Whether confirming needs the explicit second keystroke: a heuristic result, findings,
    /// a check that found new errors or broken tests, one that has not finished, or a result
    /// that was not checked at all (the check unavailable, timed out, stopped or off) —
    /// whatever the backend.
    pub fn needs_second_confirmation(&self) -> bool {
        self.left_out() > 0
            || self.outcome.is_heuristic()
            || self.count(Severity::Warning) > 0
            || self.count(Severity::Error) > 0
            || self.check.blocks_apply()
            || self.check.is_running()
            || self.check.unchecked_why(self.outcome.lang).is_some()
    }

    /// What the confirmation asks the user to read, as the panel shows it: `Read the caveats
    /// and why it was not checked in the warning panel.`
    pub fn confirm_hint(&self) -> String {
        let mut what = Vec::new();
        if self.outcome.is_heuristic() {
            what.push("the caveats");
        }
        if self.count(Severity::Warning) + self.count(Severity::Error) > 0 {
            what.push("the findings");
        }
        if self.check.blocks_apply() {
            what.push("what the check found");
        } else if self.check.is_running() {
            what.push("the check's progress");
        } else if self.check.unchecked_why(self.outcome.lang).is_some() {
            what.push("why it was not checked");
        }
        match what.len() {
            0 => "Read the warning panel.".to_string(),
            1 => format!("Read {} in the warning panel.", what[0]),
            _ => {
                let last = what.pop().unwrap_or_default();
                format!("Read {} and {last} in the warning panel.", what.join(", "))
            }
        }
    }

    /// `apply despite 2 new compile errors, 4 caveats and 2 warnings? y/n`; `apply before the
    /// check has finished, despite 4 caveats? y/n` while it runs.
    pub fn confirm_question(&self) -> String {
        let unchecked = self.check.unchecked_why(self.outcome.lang);
        let before = match (self.check.is_running(), self.check.level, &unchecked) {
            (true, Level::Tests, _) => " before the tests have finished".to_string(),
            (true, _, _) => " before the check has finished".to_string(),
            (false, _, Some(why)) => format!(" without a check ({why})"),
            (false, _, None) => String::new(),
        };
        let mut parts = self.check.found(self.outcome.lang);
        let caveats = self.caveats().len();
        if caveats > 0 {
            parts.push(plural(caveats, "caveat"));
        }
        for (severity, name) in [(Severity::Warning, "warning"), (Severity::Error, "error")] {
            let n = self.count(severity);
            if n > 0 {
                parts.push(plural(n, name));
            }
        }
        let written = crate::refactor::sites::counts(&self.outcome.plan.sites).0;
        let total = written + self.left_out();
        let before = if written < total {
            // What is left out is named first: `apply 14 of 16 sites, despite …`.
            format!(" {written} of {total} sites{before}")
        } else {
            before
        };
        let comma = if before.is_empty() { "" } else { "," };
        let despite = match parts.len() {
            0 => String::new(),
            1 => format!("{comma} despite {}", parts[0]),
            _ => {
                let last = parts.pop().unwrap_or_default();
                format!("{comma} despite {} and {last}", parts.join(", "))
            }
        };
        format!("apply{before}{despite}? y/n")
    }
}

/// The preview screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub request: PreviewRequest,
    /// The id of the latest request; older answers are dropped.
    pub id: u64,
    pub computing: bool,
    /// The last answer: a refactor to show, or why there is none.
    pub result: Option<Result<Box<Ready>, ApiError>>,
    /// Set when a file of the preview changed on disk after it was computed.
    pub stale: Option<String>,
    /// The content (sha256, `None`: no such file) of each file the preview depends on, as it was
    /// when asked for (the origin) or as the result was computed from (its changed files). Only
    /// a file whose content differs from this makes the preview stale: an event that leaves
    /// the bytes as they were (a read, a touch, our own write) never asks again.
    pub based_on: std::collections::BTreeMap<String, Option<String>>,
    /// Index of the file shown.
    pub file: usize,
    pub scroll: usize,
    pub hscroll: usize,
    pub focus: PreviewFocus,
    /// Index into [`Ready::finding_rows`] of the selected row.
    pub finding: usize,
    /// How the panel lists the notes.
    pub notes: NotesMode,
    /// The second-keystroke prompt is open.
    pub confirm: bool,
    /// The diff row a finding jumped to.
    pub marked_row: Option<usize>,
    /// The rows of the findings list that are open.
    pub open: BTreeSet<Fold>,
    /// The diff shows the line of the finding selected in the list: Esc goes back to the list.
    pub from_findings: bool,
    /// Index into the rows of the sites list of the selected row.
    pub site: usize,
}

impl Preview {
    pub fn ready(&self) -> Option<&Ready> {
        match &self.result {
            Some(Ok(ready)) => Some(ready),
            _ => None,
        }
    }

    /// The rows of the findings list as they are now (see [`Ready::finding_rows`]).
    pub fn rows(&self) -> Vec<FindingRow> {
        self.ready()
            .map_or_else(Vec::new, |r| r.finding_rows(self.notes, &self.open))
    }

    /// Whether `path` now holding `sha256` is new content for this preview.
    pub fn changed_under(&self, path: &str, sha256: Option<&str>) -> bool {
        self.based_on
            .get(path)
            .is_some_and(|known| known.as_deref() != sha256)
    }

    /// The paths the preview depends on: its changed files and the file it started from.
    pub fn paths(&self) -> Vec<String> {
        let mut paths = vec![self.request.origin.clone()];
        if let Some(ready) = self.ready() {
            paths.extend(ready.outcome.plan.changes.iter().map(|c| c.path.clone()));
        }
        paths.sort();
        paths.dedup();
        paths
    }
}
