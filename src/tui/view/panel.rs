//! The warning panel beside the diff, one voice from top to bottom: who did the work (and, one
//! line with `…` to open, why not a semantic backend), the confidence, a summary that counts
//! candor's findings and the check's problems together (`1 error: E0106 (cargo check)`), then
//! the cause first — candor's own errors and warnings — then the check with its problems grouped
//! by file and code (`E0425 × 2 in src/lib.rs`, each opening to its problems), the degraded
//! reason, the caveats (what candor did about one this time under it), and the notes. Every
//! selectable row is a [`FindingRow`], in the list's order.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::honesty::DEGRADED_REASON;
use crate::refactor::Severity;
use crate::tui::keymap::{Command, Context};
use crate::tui::state::{FindingRow, Fold, NotesMode, Preview, PreviewFocus, Ready, State};
use crate::tui::theme::Theme;

/// The panel's lines as they are built, with where the selected row starts.
struct Panel<'a> {
    t: &'a Theme,
    width: usize,
    lines: Vec<Line<'static>>,
    /// The selected row's index in the rows, when the list has the focus.
    selected: Option<usize>,
    selected_at: Option<usize>,
}

impl Panel<'_> {
    fn heading(&mut self, text: impl Into<String>) {
        self.lines.push(Line::from(Span::styled(
            text.into(),
            Style::default().add_modifier(Modifier::BOLD),
        )));
    }

    /// `text` wrapped to the panel, the first line after `first`, the others indented.
    fn say(&mut self, text: &str, first: &str, style: Style) {
        super::push(&mut self.lines, text, first, style, self.width);
    }

    /// A selectable row (`index` in the rows): highlighted when selected.
    fn row(&mut self, index: usize, text: &str, first: &str, style: Style) {
        let start = self.lines.len();
        self.say(text, first, style);
        if self.selected == Some(index) {
            self.selected_at = Some(start);
            for line in &mut self.lines[start..] {
                *line = line.clone().style(self.t.list_selected);
            }
        }
    }

    /// A row cut to one line with `…` (its whole text when open).
    fn folded_row(&mut self, index: usize, text: &str, open: bool, style: Style) {
        let width = self.width.saturating_sub(2);
        if open || Span::raw(text).width() <= width {
            self.row(index, text, "  ", style);
            return;
        }
        let mut cut = String::new();
        for c in text.chars() {
            if Span::raw(format!("{cut}{c}…")).width() > width {
                break;
            }
            cut.push(c);
        }
        cut.push('…');
        self.row(index, &cut, "  ", style);
    }
}

fn mark(severity: Severity, t: &Theme) -> (&'static str, Style) {
    match severity {
        Severity::Error => ("✗ ", t.error),
        Severity::Warning => ("▲ ", t.warning),
        Severity::Info => ("· ", t.info),
    }
}

/// The warning panel. Drawn beside the diff while a preview is open (not while the diff has the
/// whole screen).
pub fn render(state: &State, preview: &Preview, frame: &mut Frame, outer: Rect, area: Rect) {
    if outer.width == 0 {
        return;
    }
    let t = &state.theme;
    let focused = preview.focus == PreviewFocus::Findings;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { t.border_focused } else { t.border })
        .title(Span::styled(" Warnings ", t.title));
    frame.render_widget(block, outer);
    let mut panel = Panel {
        t,
        width: area.width.saturating_sub(1) as usize,
        lines: Vec::new(),
        selected: focused.then_some(preview.finding),
        selected_at: None,
    };
    let Some(ready) = preview.ready() else {
        let text = match &preview.result {
            Some(Err(_)) => {
                "No result: the refactor was refused (see the message). Nothing will be written."
            }
            _ => "Waiting for the result…",
        };
        panel.say(text, "  ", t.dim);
        frame.render_widget(Paragraph::new(panel.lines), area);
        return;
    };
    let rows = preview.rows();
    backend(&mut panel, preview, ready, &rows);
    confidence(&mut panel, ready);
    summary(&mut panel, ready);
    sites(state, &mut panel, ready, rows.is_empty());
    findings(&mut panel, ready, &rows);
    super::check::section(state, ready, panel.width, &mut panel.lines);
    check_rows(&mut panel, preview, ready, &rows);
    super::check::tests_hint(state, ready, panel.width, &mut panel.lines);
    if ready.outcome.is_heuristic() {
        panel.heading("Degraded");
        panel.say(DEGRADED_REASON, "  ", t.warning);
    }
    caveats(&mut panel, ready);
    notes(&mut panel, preview, ready, &rows);
    show(
        state,
        panel,
        focused,
        preview.finding,
        rows.len(),
        frame,
        area,
    );
}

/// Who did the work, and why not a semantic backend (one line with `…`, open on Enter).
fn backend(panel: &mut Panel, preview: &Preview, ready: &Ready, rows: &[FindingRow]) {
    let t = panel.t;
    panel.heading("Backend");
    let outcome = &ready.outcome;
    match ready.engine() {
        Some((name, what)) => {
            let engine = outcome
                .server
                .as_ref()
                .or(outcome.semantic_backend.as_ref());
            let version = engine
                .and_then(|e| e.version.as_deref())
                .map(|v| format!(" {v}"))
                .unwrap_or_default();
            panel.say(&format!("{name}{version} ({what})"), "  ", t.ok);
        }
        None => panel.say("tree-sitter heuristic", "  ", t.warning),
    }
    if let Some(reason) = &outcome.fallback_reason
        && let Some(index) = rows.iter().position(|r| *r == FindingRow::Fallback)
    {
        let open = preview.open.contains(&Fold::Fallback);
        panel.folded_row(index, &format!("why the heuristic: {reason}"), open, t.dim);
    }
}

fn confidence(panel: &mut Panel, ready: &Ready) {
    let confidence = ready.outcome.confidence();
    panel.heading("Confidence");
    let gauge_width = panel.width.saturating_sub(8).max(4);
    let filled = ((confidence * gauge_width as f64).round() as usize).min(gauge_width);
    let style = panel.t.confidence(confidence);
    panel.lines.push(Line::from(vec![
        Span::raw("  "),
        Span::styled("█".repeat(filled), style),
        Span::styled("░".repeat(gauge_width - filled), panel.t.dim),
        Span::styled(
            format!(" {confidence:.2}"),
            style.add_modifier(Modifier::BOLD),
        ),
    ]));
}

/// The counts first, so they show even when the list is below the fold: candor's findings and
/// the check's problems together.
fn summary(panel: &mut Panel, ready: &Ready) {
    let t = panel.t;
    let parts = ready.summary();
    if parts.is_empty() {
        return;
    }
    let mut spans = vec![Span::raw("  ")];
    for (i, (severity, text)) in parts.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", t.dim));
        }
        spans.push(Span::styled(text, mark(severity, t).1));
    }
    // Long summaries wrap like the rest of the panel.
    let text: String = spans.iter().map(|s| s.content.as_ref()).collect();
    if Span::raw(text.as_str()).width() <= panel.width {
        panel.lines.push(Line::from(spans));
    } else {
        let style = spans.get(1).map_or(t.dim, |s| s.style);
        panel.say(text.trim_start(), "  ", style);
    }
}

/// How many of the plan's sites are written: one line, and when some are left out, the keys
/// that choose them (the status line says them in the findings list too).
fn sites(state: &State, panel: &mut Panel, ready: &Ready, no_findings: bool) {
    let sites = &ready.outcome.plan.sites;
    if sites.is_empty() {
        return;
    }
    let (written, total) = crate::refactor::sites::counts(sites);
    panel.heading(format!("Sites: {written} of {total} written"));
    if ready.left_out() > 0 {
        let tab = state.keymap.hint(Context::Preview, Command::FocusWarnings);
        let then = state.keymap.hint(Context::Findings, Command::FocusSites);
        let keys = if no_findings {
            tab
        } else {
            format!("{tab} {then}")
        };
        let left = ready.left_out();
        panel.say(
            &format!("{left} left out by you ({keys}: the list)"),
            "  ",
            panel.t.warning,
        );
    }
}

/// candor's own errors and warnings: the cause comes first.
fn findings(panel: &mut Panel, ready: &Ready, rows: &[FindingRow]) {
    let t = panel.t;
    let own = &ready.outcome.plan.findings;
    let serious: Vec<(usize, usize)> = rows
        .iter()
        .enumerate()
        .filter_map(|(index, row)| match row {
            FindingRow::One(i) if own[*i].severity != Severity::Info => Some((index, *i)),
            _ => None,
        })
        .collect();
    if serious.is_empty() {
        if own.is_empty() && !ready.check.blocks_apply() && ready.check.groups.is_empty() {
            panel.heading("Findings: none");
            // Never "nothing noticed" for a result the project's checker has not examined.
            let who = if ready.check.is_clean() {
                "nothing specific to this edit was noticed"
            } else {
                "candor's own checks noticed nothing; see Check"
            };
            let note = if ready.outcome.is_heuristic() {
                format!("{who}; the caveats still apply")
            } else {
                who.to_string()
            };
            panel.say(&note, "  ", t.dim);
        }
        return;
    }
    panel.heading(format!(
        "Findings: {}",
        counts(ready.count(Severity::Error), ready.count(Severity::Warning))
    ));
    for (index, i) in serious {
        let finding = &own[i];
        let (first, style) = mark(finding.severity, t);
        panel.row(
            index,
            &placed(&finding.file, finding.line, &finding.message),
            first,
            style,
        );
    }
}

/// `file:line message`, unless the message names its place already.
fn placed(file: &str, line: usize, message: &str) -> String {
    let place = format!("{file}:{line}");
    if message.contains(&place) {
        message.to_string()
    } else {
        format!("{place} {message}")
    }
}

/// The check's problems, after its status: a group per file and code, open or folded.
fn check_rows(panel: &mut Panel, preview: &Preview, ready: &Ready, rows: &[FindingRow]) {
    let t = panel.t;
    let check = &ready.check;
    for (index, row) in rows.iter().enumerate() {
        match row {
            FindingRow::CheckGroup(g) => {
                let Some(group) = check.groups.get(*g) else {
                    continue;
                };
                let open = preview.open.contains(&Fold::CheckGroup(*g));
                let (_, style) = mark(group.severity, t);
                let arrow = if open { "▾ " } else { "▸ " };
                panel.row(index, &group.label(), arrow, style);
            }
            FindingRow::Check(i) => {
                let Some(finding) = check.findings.get(*i) else {
                    continue;
                };
                let (first, style) = mark(finding.severity, t);
                // A problem of an open group sits under it.
                let grouped = check
                    .groups
                    .iter()
                    .any(|g| g.members.len() > 1 && g.members.contains(i));
                let first = if grouped {
                    format!("  {first}")
                } else {
                    first.to_string()
                };
                let text = placed(&finding.file, finding.line, &finding.message);
                panel.row(index, &text, &first, style);
            }
            _ => {}
        }
    }
}

/// The canonical caveats, verbatim, each with what candor did about it this time; for a
/// semantic result, who did the work and what the check said of it.
fn caveats(panel: &mut Panel, ready: &Ready) {
    let t = panel.t;
    let caveats = ready.caveats();
    if caveats.is_empty() {
        panel.heading("Caveats: none");
        if let Some(line) = ready.semantic_caveat() {
            panel.say(&line, "  ", t.dim);
        }
        return;
    }
    panel.heading(format!("Caveats ({})", caveats.len()));
    for caveat in caveats {
        panel.say(caveat, "• ", t.warning);
        for note in ready.caveat_notes(caveat) {
            panel.say(&format!("this time: {note}"), "  ↳ ", t.dim);
        }
    }
}

fn notes(panel: &mut Panel, preview: &Preview, ready: &Ready, rows: &[FindingRow]) {
    let t = panel.t;
    let count = ready.count(Severity::Info);
    if count == 0 {
        return;
    }
    let how = match preview.notes {
        NotesMode::Folded => "folded by kind",
        NotesMode::All => "all",
        NotesMode::Hidden => "hidden",
    };
    panel.heading(format!("Notes ({count}, {how})"));
    let own = &ready.outcome.plan.findings;
    for (index, row) in rows.iter().enumerate() {
        match row {
            FindingRow::One(i) if own[*i].severity == Severity::Info => {
                let finding = &own[*i];
                let text = placed(&finding.file, finding.line, &finding.message);
                panel.row(index, &text, "· ", t.info);
            }
            FindingRow::Group { kind, count, .. } => {
                panel.row(index, &format!("{count} × {kind}"), "· ", t.info);
            }
            _ => {}
        }
    }
}

/// Scrolls so the selected row shows (on the last row, the rest of the panel comes into view),
/// and says when more is below.
fn show(
    state: &State,
    panel: Panel,
    focused: bool,
    selected: usize,
    rows: usize,
    frame: &mut Frame,
    area: Rect,
) {
    let t = panel.t;
    let height = area.height as usize;
    let selected_at = panel.selected_at.unwrap_or(0);
    let lines = panel.lines;
    let mut scroll = if focused && selected_at + 2 > height {
        selected_at + 2 - height
    } else {
        0
    };
    if focused && selected + 1 >= rows {
        scroll = scroll
            .max(lines.len().saturating_sub(height))
            .min(selected_at);
    }
    let scroll = scroll.min(lines.len().saturating_sub(height));
    let total = lines.len();
    let mut visible: Vec<Line> = lines.into_iter().skip(scroll).take(height).collect();
    if total > scroll + height && height > 0 {
        // Say so rather than let the panel end silently at the border.
        let tab = state.keymap.hint(Context::Preview, Command::FocusWarnings);
        let bottom = state.keymap.hint(Context::Findings, Command::Bottom);
        let hint = if focused {
            format!("▼ more below (↓, {bottom}: the last)")
        } else {
            format!("▼ more below ({tab}, then ↓)")
        };
        visible[height - 1] = Line::from(Span::styled(hint, t.dim));
    }
    frame.render_widget(Paragraph::new(visible), area);
}

/// `1 error, 2 warnings`.
fn counts(errors: usize, warnings: usize) -> String {
    let plural = crate::tui::state::plural;
    match (errors, warnings) {
        (0, w) => plural(w, "warning"),
        (e, 0) => plural(e, "error"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}
