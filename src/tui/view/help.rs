//! The help overlay, generated from the keymap in effect (defaults plus the user's file).

use ratatui::Frame;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::layout;
use crate::tui::state::State;

/// The help text, one line per entry (also used by the README's key table test).
pub fn help_lines(state: &State) -> Vec<Line<'static>> {
    let t = &state.theme;
    let mut lines = Vec::new();
    let sections = state.keymap.help_sections();
    let key_width = sections
        .iter()
        .flat_map(|s| s.entries.iter().map(|(k, _)| k.join("  ").chars().count()))
        .max()
        .unwrap_or(8)
        .min(24);
    for section in sections {
        if section.entries.is_empty() {
            continue;
        }
        if !lines.is_empty() {
            lines.push(Line::from(""));
        }
        lines.push(Line::from(Span::styled(
            section.title,
            Style::default().add_modifier(Modifier::BOLD),
        )));
        for (keys, description) in section.entries {
            let keys = keys.join("  ");
            lines.push(Line::from(vec![
                Span::styled(format!("  {keys:<key_width$}  "), t.title),
                Span::raw(description),
            ]));
        }
    }
    lines
}

pub fn render(state: &State, frame: &mut Frame) {
    let t = &state.theme;
    let area = layout::help(state.size);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border_focused)
        .title(Span::styled(
            " Keys (assets/keymap.toml, overridable in ~/.config/candor/keymap.toml) ",
            t.title,
        ));
    let lines = help_lines(state);
    let height = layout::inner(area).height as usize;
    let scroll = state
        .help
        .unwrap_or(0)
        .min(lines.len().saturating_sub(height));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((scroll as u16, 0)),
        area,
    );
}
