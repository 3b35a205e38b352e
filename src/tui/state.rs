//! Everything the UI knows, as plain data: the screens, the open file, the form, the preview
//! and its outcome, pending work. Changed only by `update`; drawn by reference by `view`.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui_textarea::TextArea;
use serde_json::Value;

use crate::api::{ApiError, ToolCall};
use crate::backend::{BackendChoice, Outcome};
use crate::edit::FileChange;
use crate::honesty::Tool;
use crate::lang::Language;
use crate::refactor::Severity;

use super::diffview::FileDiff;
use super::document::Document;
use super::keymap::{Context, Keymap};
use super::theme::Theme;

/// How many picker matches get their matched characters computed (the visible ones at most).
pub const PICKER_HIGHLIGHTED: usize = 200;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Screen {
    Picker,
    Code,
    Form,
    Preview,
}

/// The whole UI state.
#[derive(Debug)]
pub struct State {
    /// The project root's directory name (never an absolute path: screens stay reproducible).
    pub project_name: String,
    pub backend: BackendChoice,
    /// Terminal size (columns, rows).
    pub size: (u16, u16),
    pub screen: Screen,
    pub picker: Picker,
    pub code: Option<CodeView>,
    pub form: Option<Form>,
    pub preview: Option<Preview>,
    /// The help overlay and its scroll offset.
    pub help: Option<usize>,
    pub notice: Option<Notice>,
    /// The last refactor written in this session, for `u`.
    pub last_applied: Option<Applied>,
    pub loading: Option<Loading>,
    /// The apply or undo being written, by request id.
    pub writing: Option<Writing>,
    pub keymap: Keymap,
    pub theme: Theme,
    pub spinner: usize,
    pub next_id: u64,
    pub quit: bool,
    /// The files the watcher reports on (the open file and the preview's files).
    pub watched: Vec<String>,
    /// What the open file's language server is doing, when one is used.
    pub lsp_status: Option<super::action::LspStatus>,
}

impl State {
    pub fn new(
        project_name: String,
        backend: BackendChoice,
        keymap: Keymap,
        theme: Theme,
        size: (u16, u16),
    ) -> State {
        State {
            project_name,
            backend,
            size,
            screen: Screen::Picker,
            picker: Picker::new(),
            code: None,
            form: None,
            preview: None,
            help: None,
            notice: None,
            last_applied: None,
            loading: None,
            writing: None,
            keymap,
            theme,
            spinner: 0,
            next_id: 1,
            quit: false,
            watched: Vec::new(),
            lsp_status: None,
        }
    }

    pub fn fresh_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Whether background work is under way (the spinner turns).
    pub fn busy(&self) -> bool {
        self.loading.is_some()
            || self.writing.is_some()
            || self.picker.scanning
            || self.preview.as_ref().is_some_and(|p| p.computing)
            || self.lsp_status.as_ref().is_some_and(|s| s.busy)
    }

    /// Where keys go now.
    pub fn context(&self) -> Context {
        if self.help.is_some() {
            return Context::Help;
        }
        match self.screen {
            Screen::Picker => Context::Picker,
            Screen::Code => match &self.code {
                Some(code) if code.focus == CodeFocus::Outline => Context::Outline,
                _ => Context::Code,
            },
            Screen::Form => Context::Form,
            Screen::Preview => match &self.preview {
                Some(p) if p.confirm => Context::Confirm,
                Some(p) if p.focus == PreviewFocus::Findings => Context::Findings,
                _ => Context::Preview,
            },
        }
    }

    pub fn info(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice::new(NoticeLevel::Info, text));
    }

    pub fn warn(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice::new(NoticeLevel::Warning, text));
    }

    pub fn error(&mut self, text: impl Into<String>) {
        self.notice = Some(Notice::new(NoticeLevel::Error, text));
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeLevel {
    Info,
    Warning,
    Error,
}

/// A message above the status line until the next key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub level: NoticeLevel,
    pub text: String,
}

impl Notice {
    pub fn new(level: NoticeLevel, text: impl Into<String>) -> Notice {
        Notice {
            level,
            text: text.into(),
        }
    }
}

/// A file being read for the code view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loading {
    pub id: u64,
    pub path: String,
    /// 0-based line to put the cursor on; `None` keeps the cursor where it was (same file).
    pub goto: Option<usize>,
    /// Switch to the code view when it is loaded.
    pub show: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WritingKind {
    Apply,
    Undo,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Writing {
    pub id: u64,
    pub kind: WritingKind,
}

/// A refactor written in this session.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub tool: Tool,
    pub label: String,
    /// Project-relative paths written.
    pub files: Vec<String>,
    /// The changes as written (their `sha256_after` is what undo expects on disk).
    pub changes: Vec<FileChange>,
    /// The undo journal's id for the write, when there is a journal.
    pub transaction: Option<String>,
}

/// The file picker.
#[derive(Debug)]
pub struct Picker {
    pub query: TextArea<'static>,
    /// Every Rust and Python file found so far, in the order found (indices are stable).
    pub files: Vec<String>,
    pub scanning: bool,
    /// Indices into `files`, best match first (by path when the query is empty).
    pub matches: Vec<usize>,
    /// Matched character positions of the first [`PICKER_HIGHLIGHTED`] matches.
    pub matched_chars: Vec<Vec<u32>>,
    pub selected: usize,
    pub error: Option<String>,
    /// Indices into `files` sorted by path.
    by_path: Vec<usize>,
    /// (score, index) of the files matching the query, best first.
    scored: Vec<(u32, usize)>,
    /// The query `scored` is for.
    scored_query: String,
    matcher: Matcher,
}

impl Picker {
    pub fn new() -> Picker {
        let mut query = TextArea::default();
        query.set_placeholder_text("type to filter, e.g. `lib` or `shop/rec`");
        query.set_cursor_line_style(ratatui::style::Style::default());
        Picker {
            query,
            files: Vec::new(),
            scanning: true,
            matches: Vec::new(),
            matched_chars: Vec::new(),
            selected: 0,
            error: None,
            by_path: Vec::new(),
            scored: Vec::new(),
            scored_query: String::new(),
            matcher: Matcher::new(Config::DEFAULT.match_paths()),
        }
    }

    pub fn query_text(&self) -> String {
        self.query.lines().join(" ")
    }

    pub fn selected_path(&self) -> Option<&str> {
        self.matches
            .get(self.selected)
            .and_then(|i| self.files.get(*i))
            .map(String::as_str)
    }

    /// Adds a batch of found files. Only the batch is sorted and scored, then merged in, so a
    /// walk of a large project in many batches stays linear and the UI stays responsive.
    pub fn add_files(&mut self, found: Vec<String>) {
        let keep = self.selected_path().map(str::to_string);
        let first = self.files.len();
        self.files.extend(found);
        let files = &self.files;
        let mut batch: Vec<usize> = (first..files.len()).collect();
        batch.sort_by(|a, b| files[*a].cmp(&files[*b]));
        self.by_path = merge_sorted(&self.by_path, &batch, |a, b| files[*a] <= files[*b]);
        let query = self.query_text();
        if !query.trim().is_empty() {
            let scored = self.score(&query, first..self.files.len());
            self.scored_query = query.clone();
            let files = &self.files;
            self.scored = merge_sorted(&self.scored, &scored, |a, b| better(files, a, b));
        }
        self.publish(keep.as_deref());
    }

    /// Scores every file against the query again (nucleo, path-aware, smart case).
    pub fn refilter(&mut self, keep: Option<&str>) {
        let query = self.query_text();
        self.scored = if query.trim().is_empty() {
            Vec::new()
        } else if !self.scored_query.trim().is_empty()
            && query.starts_with(&self.scored_query)
            && !query.contains(['!', '^', '$', '\'', '\\'])
        {
            // Typing more only narrows a plain fuzzy query (not a negation or an anchor):
            // rescore the current matches only.
            let candidates: Vec<usize> = self.scored.iter().map(|(_, i)| *i).collect();
            self.score(&query, candidates)
        } else {
            self.score(&query, 0..self.files.len())
        };
        self.scored_query = query;
        self.publish(keep);
    }

    /// The matching files of `range`, sorted best first.
    fn score(&mut self, query: &str, range: impl IntoIterator<Item = usize>) -> Vec<(u32, usize)> {
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, usize)> = range
            .into_iter()
            .filter_map(|i| {
                let path = self.files.get(i)?;
                pattern
                    .score(Utf32Str::new(path, &mut buf), &mut self.matcher)
                    .map(|s| (s, i))
            })
            .collect();
        let files = &self.files;
        scored.sort_by(|a, b| {
            if better(files, a, b) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }
        });
        scored
    }

    /// Rebuilds `matches` and the highlighted characters, keeping `keep` selected.
    fn publish(&mut self, keep: Option<&str>) {
        let query = self.query_text();
        self.matched_chars.clear();
        if query.trim().is_empty() {
            self.matches = self.by_path.clone();
        } else {
            self.matches = self.scored.iter().map(|(_, i)| *i).collect();
            let pattern = Pattern::parse(&query, CaseMatching::Smart, Normalization::Smart);
            let mut buf = Vec::new();
            for &i in self.matches.iter().take(PICKER_HIGHLIGHTED) {
                let mut indices = Vec::new();
                let _ = pattern.indices(
                    Utf32Str::new(&self.files[i], &mut buf),
                    &mut self.matcher,
                    &mut indices,
                );
                indices.sort_unstable();
                indices.dedup();
                self.matched_chars.push(indices);
            }
        }
        self.selected = keep
            .and_then(|path| self.matches.iter().position(|&i| self.files[i] == path))
            .unwrap_or(0);
    }
}

/// Whether `a` ranks before `b`: higher score, then shorter path, then path order.
fn better(files: &[String], a: &(u32, usize), b: &(u32, usize)) -> bool {
    (std::cmp::Reverse(a.0), files[a.1].len(), &files[a.1])
        <= (std::cmp::Reverse(b.0), files[b.1].len(), &files[b.1])
}

/// Merges two lists sorted by `before_or_equal`.
fn merge_sorted<T: Copy>(
    left: &[T],
    right: &[T],
    before_or_equal: impl Fn(&T, &T) -> bool,
) -> Vec<T> {
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        if before_or_equal(&left[i], &right[j]) {
            out.push(left[i]);
            i += 1;
        } else {
            out.push(right[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&left[i..]);
    out.extend_from_slice(&right[j..]);
    out
}

impl Default for Picker {
    fn default() -> Picker {
        Picker::new()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeFocus {
    Code,
    Outline,
}

/// What the user selected in the code view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// 0-based lines from `anchor` to `head` (either order).
    Lines { anchor: usize, head: usize },
    /// An outline symbol, by index.
    Symbol(usize),
}

/// The open file.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeView {
    pub doc: Document,
    /// 0-based cursor line.
    pub cursor: usize,
    /// First visible line.
    pub top: usize,
    pub selection: Option<Selection>,
    /// Whether cursor moves extend the line selection (after `v`).
    pub visual: bool,
    pub focus: CodeFocus,
    pub outline_cursor: usize,
    /// The line where a mouse drag started.
    pub drag_from: Option<usize>,
}

impl CodeView {
    pub fn new(doc: Document) -> CodeView {
        CodeView {
            doc,
            cursor: 0,
            top: 0,
            selection: None,
            visual: false,
            focus: CodeFocus::Code,
            outline_cursor: 0,
            drag_from: None,
        }
    }

    /// The selected lines, 0-based inclusive, in order.
    pub fn selected_lines(&self) -> Option<(usize, usize)> {
        match self.selection? {
            Selection::Lines { anchor, head } => Some((anchor.min(head), anchor.max(head))),
            Selection::Symbol(i) => {
                let s = self.doc.symbols.get(i)?;
                Some((s.first_line.saturating_sub(1), s.end_line.saturating_sub(1)))
            }
        }
    }

    /// What the status line says is selected: `lines 12–18`, `fn parse_header`.
    pub fn selection_label(&self) -> Option<String> {
        match self.selection? {
            Selection::Lines { anchor, head } => {
                let (a, b) = (anchor.min(head) + 1, anchor.max(head) + 1);
                Some(if a == b {
                    format!("line {a}")
                } else {
                    format!("lines {a}\u{2013}{b}")
                })
            }
            Selection::Symbol(i) => self.doc.symbols.get(i).map(|s| symbol_label(&self.doc, s)),
        }
    }
}

/// `fn parse_header`, `class Box`, `impl Display for Foo`.
pub fn symbol_label(doc: &Document, symbol: &crate::lang::symbols::Symbol) -> String {
    use crate::lang::symbols::SymbolKind;
    if symbol.kind == SymbolKind::Impl {
        symbol.name.clone()
    } else {
        format!("{} {}", symbol.kind.label(doc.language), symbol.name)
    }
}

/// The symbol a refactor is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub name_path: String,
    /// 1-based line of its name.
    pub line: usize,
    /// `fn parse_header`
    pub label: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormKind {
    Extract {
        file: String,
        /// 1-based, inclusive.
        start: usize,
        end: usize,
        language: Language,
    },
    Move {
        file: String,
        target: Target,
    },
    ChangeSignature {
        file: String,
        target: Target,
        language: Language,
        is_method: bool,
    },
}

impl FormKind {
    pub fn tool(&self) -> Tool {
        match self {
            FormKind::Extract { .. } => Tool::ExtractFunction,
            FormKind::Move { .. } => Tool::MoveToFile,
            FormKind::ChangeSignature { .. } => Tool::ChangeSignature,
        }
    }
}

/// A refactor form: one input line.
#[derive(Debug)]
pub struct Form {
    pub kind: FormKind,
    pub input: TextArea<'static>,
    /// What is wrong with the input as it stands (shown under it; submit is refused).
    pub error: Option<String>,
    /// Move: existing paths that complete the input.
    pub completions: Vec<String>,
    /// The completion `Tab` last put in the input.
    pub completion: Option<usize>,
}

impl Form {
    pub fn input_text(&self) -> String {
        self.input.lines().join(" ")
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewFocus {
    Diff,
    Findings,
}

/// What the preview was asked for: enough to ask again when the files change.
#[derive(Debug, Clone, PartialEq)]
pub struct PreviewRequest {
    pub tool: Tool,
    /// The tool arguments, exactly as `candor call` takes them.
    pub args: Value,
    /// `extract function — lines 12–18 of src/lib.rs`
    pub title: String,
    /// The file the refactor started from, and the cursor line to return to.
    pub origin: String,
    pub origin_line: usize,
}

/// A computed refactor on screen: the outcome that confirm writes, and its diff.
#[derive(Debug, Clone, PartialEq)]
pub struct Ready {
    pub call: ToolCall,
    pub outcome: Outcome,
    pub diffs: Vec<FileDiff>,
}

impl Ready {
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
    pub finding: usize,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(picker: &Picker) -> Vec<&str> {
        picker
            .matches
            .iter()
            .map(|&i| picker.files[i].as_str())
            .collect()
    }

    #[test]
    fn batches_merge_into_the_same_order_as_one_list() {
        let mut picker = Picker::new();
        picker.add_files(vec!["src/b.rs".into(), "src/lib.rs".into()]);
        picker.add_files(vec![
            "a.py".into(),
            "src/a/lib.rs".into(),
            "tests/t.py".into(),
        ]);
        assert_eq!(
            paths(&picker),
            [
                "a.py",
                "src/a/lib.rs",
                "src/b.rs",
                "src/lib.rs",
                "tests/t.py"
            ]
        );
        picker.query.insert_str("lib");
        picker.refilter(None);
        assert_eq!(paths(&picker), ["src/lib.rs", "src/a/lib.rs"]);
        // Files found while a query is typed are scored and merged in place.
        picker.selected = 1;
        picker.add_files(vec!["lib.rs".into(), "docs/x.py".into()]);
        assert_eq!(paths(&picker), ["lib.rs", "src/lib.rs", "src/a/lib.rs"]);
        assert_eq!(
            picker.selected_path(),
            Some("src/a/lib.rs"),
            "the selection follows its file"
        );
        assert_eq!(picker.matched_chars[0], vec![0, 1, 2]);
        // Narrowing as one types gives what a fresh search gives; a negation widens again.
        picker.query.insert_str(".r");
        picker.refilter(None);
        assert_eq!(paths(&picker), ["lib.rs", "src/lib.rs", "src/a/lib.rs"]);
        picker.query.insert_str(" !src");
        picker.refilter(None);
        assert_eq!(paths(&picker), ["lib.rs"]);
        for _ in 0..5 {
            picker.query.delete_char();
        }
        picker.refilter(None);
        assert_eq!(paths(&picker), ["lib.rs", "src/lib.rs", "src/a/lib.rs"]);
    }
}
