//! The code view: line numbers, syntax colours, the cursor line, the selection, and the outline
//! of the file's symbols beside it.

use ratatui::Frame;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::tui::layout;
use crate::tui::state::{CodeFocus, CodeView, Selection, State, symbol_label};
use crate::tui::theme::Theme;
use crate::tui::update::list_offset;

pub fn render(state: &State, frame: &mut Frame) {
    let t = &state.theme;
    let Some(code) = &state.code else {
        let body = layout::frame(state.size).body;
        let text = match &state.loading {
            Some(loading) => format!("{} opening {}…", super::spinner(state), loading.path),
            None => "no file is open".to_string(),
        };
        frame.render_widget(
            Paragraph::new(text).block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(t.border),
            ),
            body,
        );
        return;
    };
    let outline_focused = code.focus == CodeFocus::Outline;
    let areas = layout::code(
        state.size,
        layout::outline_always_shown(state.size) || outline_focused,
    );
    let title = format!(" {} ", code.doc.path);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if outline_focused {
            t.border
        } else {
            t.border_focused
        })
        .title(Span::styled(title, t.title));
    frame.render_widget(block, areas.code_box);

    let selected = code.selected_lines();
    let symbol_selected = matches!(code.selection, Some(Selection::Symbol(_)));
    let digits = code.doc.line_count().to_string().len().max(3);
    let height = areas.code.height as usize;
    let lines: Vec<Line> = (code.top..code.top + height)
        .take_while(|&i| i < code.doc.line_count())
        .map(|i| {
            let in_selection = selected.is_some_and(|(a, b)| a <= i && i <= b);
            let mut line_style = Style::default();
            if in_selection {
                line_style = if symbol_selected {
                    t.symbol_selection
                } else {
                    t.selection
                };
            } else if i == code.cursor {
                line_style = t.cursor_line;
            }
            let number_style = if i == code.cursor {
                t.line_number
                    .add_modifier(Modifier::BOLD)
                    .remove_modifier(Modifier::DIM)
            } else {
                t.line_number
            };
            let marker = if in_selection {
                "▌"
            } else if i == code.cursor {
                "▸"
            } else {
                " "
            };
            let mut spans = vec![
                Span::styled(format!("{:>digits$}", i + 1), number_style),
                Span::styled(marker, t.info),
            ];
            spans.extend(code_spans(code, i, t));
            Line::from(spans).style(line_style)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), areas.code);

    if let (Some(outline_box), Some(outline)) = (areas.outline_box, areas.outline) {
        let title = format!(" Outline ({}) ", code.doc.symbols.len());
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(if outline_focused {
                t.border_focused
            } else {
                t.border
            })
            .title(Span::styled(title, t.title));
        frame.render_widget(block, outline_box);
        let offset = list_offset(code.outline_cursor, outline.height as usize);
        let rows: Vec<Line> = code
            .doc
            .symbols
            .iter()
            .enumerate()
            .skip(offset)
            .take(outline.height as usize)
            .map(|(i, symbol)| {
                let chosen = code.selection == Some(Selection::Symbol(i));
                let depth = code.doc.depths.get(i).copied().unwrap_or(0);
                let text = format!(
                    "{}{}{}",
                    if chosen { "●" } else { " " },
                    "  ".repeat(depth),
                    symbol_label(&code.doc, symbol)
                );
                let style = if outline_focused && i == code.outline_cursor {
                    t.list_selected
                } else {
                    Style::default()
                };
                Line::from(Span::raw(text)).style(style)
            })
            .collect();
        if rows.is_empty() {
            frame.render_widget(Paragraph::new(Span::styled(" no symbols", t.dim)), outline);
        } else {
            frame.render_widget(Paragraph::new(rows), outline);
        }
    }
}

/// The coloured text of line `index`, tabs expanded.
fn code_spans<'a>(code: &'a CodeView, index: usize, t: &Theme) -> Vec<Span<'a>> {
    let text = code.doc.line(index);
    let runs = code
        .doc
        .highlights
        .get(index)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut spans = vec![Span::raw(" ")];
    let mut at = 0;
    let mut push = |piece: &str, style: Style| {
        if !piece.is_empty() {
            spans.push(Span::styled(piece.replace('\t', "    "), style));
        }
    };
    for (range, class) in runs {
        if range.start > at {
            push(text.get(at..range.start).unwrap_or(""), Style::default());
        }
        push(text.get(range.clone()).unwrap_or(""), t.syntax(*class));
        at = range.end;
    }
    if at < text.len() {
        push(text.get(at..).unwrap_or(""), Style::default());
    }
    spans
}
