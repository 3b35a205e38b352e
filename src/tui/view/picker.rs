//! The file picker: the filter input and the matching files, matched characters highlighted.

use ratatui::Frame;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::tui::layout;
use crate::tui::layout::list_offset;
use crate::tui::state::State;

pub fn render(state: &State, frame: &mut Frame) {
    let t = &state.theme;
    let p = &state.picker;
    let areas = layout::picker(state.size);
    let query_block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border_focused)
        .title(Span::styled(" Open a Rust or Python file ", t.title));
    frame.render_widget(query_block, areas.query_box);
    let input_area = layout::inner(areas.query_box);
    frame.render_widget(Span::styled("› ", t.info), input_area);
    let text_area = ratatui::layout::Rect::new(
        input_area.x + 2,
        input_area.y,
        input_area.width.saturating_sub(2),
        input_area.height,
    );
    frame.render_widget(&p.query, text_area);

    let mut title = format!(" {} of {} files ", p.matches.len(), p.files.len());
    if p.scanning {
        title.push_str(&format!("{} scanning… ", super::spinner(state)));
    }
    let list_block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border)
        .title(Span::styled(title, t.title));
    frame.render_widget(list_block, areas.list_box);

    let height = areas.list.height as usize;
    if p.matches.is_empty() {
        let message = if let Some(error) = &p.error {
            Span::styled(format!(" {error}"), t.error)
        } else if p.scanning {
            Span::styled(
                " looking for .rs, .py and .pyi files (.gitignore respected)…",
                t.dim,
            )
        } else if p.files.is_empty() {
            Span::styled(
                " no Rust or Python files in this project (.gitignore respected)",
                t.warning,
            )
        } else {
            Span::styled(" no file matches the filter", t.warning)
        };
        frame.render_widget(Paragraph::new(message), areas.list);
        return;
    }
    let offset = list_offset(p.selected, height);
    let width = areas.list.width.saturating_sub(2) as usize;
    let rows: Vec<Line> = p
        .matches
        .iter()
        .enumerate()
        .skip(offset)
        .take(height)
        .map(|(rank, &file)| {
            let path = p.files.get(file).map(String::as_str).unwrap_or("");
            let matched = p.matched_chars.get(rank).map(Vec::as_slice).unwrap_or(&[]);
            let selected = rank == p.selected;
            let mut spans = vec![Span::styled(if selected { "▶ " } else { "  " }, t.info)];
            let shown = super::shorten_left(path, width);
            let skipped = path.chars().count() - shown.chars().count().min(path.chars().count());
            for (i, c) in shown.chars().enumerate() {
                let original = (i + skipped) as u32;
                let is_match = matched.binary_search(&original).is_ok() && !(skipped > 0 && i == 0);
                spans.push(Span::styled(
                    c.to_string(),
                    if is_match {
                        t.match_char
                    } else {
                        Style::default()
                    },
                ));
            }
            Line::from(spans).style(if selected {
                t.list_selected
            } else {
                Style::default()
            })
        })
        .collect();
    frame.render_widget(Paragraph::new(rows), areas.list);
}
