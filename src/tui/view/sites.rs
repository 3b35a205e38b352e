//! The sites list, drawn in the warning panel's place while it has the focus: how many sites
//! are written, then each file with its counts and its sites (`[x]` written, `[ ]` left out).
//! Only the rows in view are built, so a list of thousands redraws at once.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::refactor::sites::counts;
use crate::tui::keymap::{Command, Context};
use crate::tui::state::{Preview, SiteRow, State, rows};

pub fn render(state: &State, preview: &Preview, frame: &mut Frame, outer: Rect, area: Rect) {
    let t = &state.theme;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border_focused)
        .title(Span::styled(" Sites ", t.title));
    frame.render_widget(block, outer);
    let Some(ready) = preview.ready() else {
        return;
    };
    let sites = &ready.outcome.plan.sites;
    let (written, total) = counts(sites);
    let key = |c| state.keymap.hint(Context::Sites, c);
    let mut lines: Vec<Line<'static>> = vec![
        Line::from(Span::styled(
            format!("{written} of {total} sites written"),
            Style::default().add_modifier(Modifier::BOLD),
        )),
        Line::from(Span::styled(
            format!(
                "{} site · {} file · {} all · {} show",
                key(Command::ToggleSite),
                key(Command::ToggleFile),
                key(Command::ToggleAll),
                key(Command::Jump)
            ),
            t.dim,
        )),
    ];
    let rows = rows(sites);
    let height = (area.height as usize).saturating_sub(lines.len()).max(1);
    let selected = preview.site.min(rows.len().saturating_sub(1));
    let first = selected.saturating_sub(height.saturating_sub(1));
    for (index, row) in rows.iter().enumerate().skip(first).take(height) {
        let line = match row {
            SiteRow::File {
                path,
                chosen,
                total,
            } => Line::from(vec![
                Span::styled(path.clone(), Style::default().add_modifier(Modifier::BOLD)),
                Span::styled(format!("  {chosen}/{total}"), t.dim),
            ]),
            SiteRow::Site(i) => {
                let site = &sites[*i];
                let mark = if site.chosen { "[x]" } else { "[ ]" };
                let style = if site.chosen { t.ok } else { t.warning };
                let possible = if site.certain { "" } else { " (possible)" };
                Line::from(vec![
                    Span::styled(format!("  {mark} "), style),
                    Span::raw(format!("{}:{}", site.line, site.column)),
                    Span::styled(format!(" {}{possible}", site.kind.as_str()), t.dim),
                ])
            }
        };
        lines.push(if index == selected {
            line.style(t.list_selected)
        } else {
            line
        });
    }
    frame.render_widget(Paragraph::new(lines), area);
}
