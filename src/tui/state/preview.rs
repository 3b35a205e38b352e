//! A preview's data: what was asked, the answer (the outcome confirm writes, and its diff), what
//! it was computed from, and where the user is in it.

use crate::api::{ApiError, ToolCall};
use crate::backend::Outcome;
use crate::honesty::Tool;
use crate::refactor::Severity;
use crate::tui::diffview::FileDiff;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewFocus {
    Diff,
    Findings,
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

/// One row of the findings list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingRow {
    /// A finding, by index.
    One(usize),
    /// Notes of one kind folded into a count; `first` is the index of the first of them.
    Group {
        kind: String,
        count: usize,
        first: usize,
    },
}

impl FindingRow {
    /// The finding a jump goes to.
    pub fn finding(&self) -> usize {
        match self {
            FindingRow::One(i) => *i,
            FindingRow::Group { first, .. } => *first,
        }
    }
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
}

impl Ready {
    /// The findings as the panel lists them: errors, then warnings, one by one; then the notes
    /// as `notes` says.
    pub fn finding_rows(&self, notes: NotesMode) -> Vec<FindingRow> {
        let findings = &self.outcome.plan.findings;
        let mut rows = Vec::new();
        for severity in [Severity::Error, Severity::Warning] {
            rows.extend(
                findings
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.severity == severity)
                    .map(|(i, _)| FindingRow::One(i)),
            );
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
                                kind: k.kind,
                                count: k.count,
                                first: k.first,
                            }
                        }
                    }),
            ),
        }
        rows
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

    /// Whether confirming needs the explicit second keystroke.
    pub fn needs_second_confirmation(&self) -> bool {
        self.outcome.is_heuristic()
            || self.count(Severity::Warning) > 0
            || self.count(Severity::Error) > 0
    }

    /// `apply despite 4 caveats and 2 warnings? y/n`
    pub fn confirm_question(&self) -> String {
        let plural = |n: usize, one: &str| {
            if n == 1 {
                format!("{n} {one}")
            } else {
                format!("{n} {one}s")
            }
        };
        let mut parts = Vec::new();
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
        let despite = match parts.len() {
            0 => String::new(),
            1 => format!(" despite {}", parts[0]),
            _ => {
                let last = parts.pop().unwrap_or_default();
                format!(" despite {} and {last}", parts.join(", "))
            }
        };
        format!("apply{despite}? y/n")
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
}

impl Preview {
    pub fn ready(&self) -> Option<&Ready> {
        match &self.result {
            Some(Ok(ready)) => Some(ready),
            _ => None,
        }
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
