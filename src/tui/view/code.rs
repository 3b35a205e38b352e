//! The code view: line numbers, syntax colours, the cursor (line and column), the selection,
//! horizontal scrolling with `‹` `›` where lines go on out of sight, the go-to-line and search
//! prompts, and the outline of the file's symbols beside it with its filter.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use crate::tui::layout;
use crate::tui::layout::list_offset;
use crate::tui::motion::char_width;
use crate::tui::state::{CodeFocus, CodeView, PromptKind, Selection, State, symbol_label};
use crate::tui::theme::Theme;

use super::fit;

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
    let room = (areas.code_box.width as usize).saturating_sub(4);
    let title = format!(" {} ", fit::shorten(&code.doc.path, room.saturating_sub(2)));
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if outline_focused {
            t.border
        } else {
            t.border_focused
        })
        .title(Span::styled(title, t.title));
    frame.render_widget(block, areas.code_box);

    let mut text_area = areas.code;
    if code.prompt.is_some() && text_area.height > 1 {
        text_area.height -= 1;
    }
    code_lines(state, code, frame, text_area, !outline_focused);
    if let Some(prompt) = &code.prompt {
        let row = Rect::new(
            areas.code.x,
            areas.code.bottom().saturating_sub(1),
            areas.code.width,
            1,
        );
        let sign = match prompt.kind {
            PromptKind::GotoLine => ":",
            PromptKind::Search => "/",
        };
        frame.render_widget(Span::styled(sign, t.info), row);
        frame.render_widget(
            &prompt.input,
            Rect::new(row.x + 1, row.y, row.width.saturating_sub(1), 1),
        );
    }
    if let (Some(outline_box), Some(outline)) = (areas.outline_box, areas.outline) {
        outline_panel(state, code, frame, outline_box, outline, outline_focused);
    }
}

fn code_lines(state: &State, code: &CodeView, frame: &mut Frame, area: Rect, focused: bool) {
    let t = &state.theme;
    let selected = code.selected_lines();
    let symbol_selected = matches!(code.selection, Some(Selection::Symbol(_)));
    let gutter = layout::code_gutter(code.doc.line_count()) as usize;
    let digits = gutter - 2;
    let width = (area.width as usize).saturating_sub(gutter);
    let lines: Vec<Line> = (code.top..code.top + area.height as usize)
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
            let cursor = (focused && i == code.cursor).then_some(code.col);
            let mut spans = vec![
                Span::styled(format!("{:>digits$}", i + 1), number_style),
                Span::styled(marker, t.info),
                Span::raw(" "),
            ];
            spans.extend(code_spans(code, i, t, code.left, width, cursor));
            Line::from(spans).style(line_style)
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// The coloured text of line `index` from display column `left`, `width` columns of it, tabs
/// expanded; the cursor's character reversed; `‹` / `›` where the line goes on out of sight.
fn code_spans(
    code: &CodeView,
    index: usize,
    t: &Theme,
    left: usize,
    width: usize,
    cursor: Option<usize>,
) -> Vec<Span<'static>> {
    let text = code.doc.line(index);
    let runs = code
        .doc
        .highlights
        .get(index)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let cursor = cursor.map(|c| c.min(text.chars().count().saturating_sub(1)));
    let style_at = |byte: usize| -> Style {
        runs.iter()
            .find(|(range, _)| range.contains(&byte))
            .map_or(Style::default(), |(_, class)| t.syntax(*class))
    };
    let total: usize = text.chars().map(char_width).sum();
    let hidden_left = left > 0 && total > left;
    let hidden_right = total > left + width;
    // The markers take a column each.
    let start = left + usize::from(hidden_left);
    let budget = width
        .saturating_sub(usize::from(hidden_left))
        .saturating_sub(usize::from(hidden_right));
    let mut spans: Vec<Span> = Vec::new();
    if hidden_left {
        spans.push(Span::styled("‹", t.dim));
    }
    let mut x = 0;
    for (col, (byte, c)) in text.char_indices().enumerate() {
        let w = char_width(c);
        let at = x;
        x += w;
        if at < start {
            continue;
        }
        if at + w > start + budget {
            break;
        }
        let piece = if c == '\t' {
            " ".repeat(4)
        } else {
            c.to_string()
        };
        let mut style = style_at(byte);
        if cursor == Some(col) {
            style = style.add_modifier(Modifier::REVERSED);
        }
        match spans.last_mut() {
            Some(last) if last.style == style && last.content != "‹" => {
                last.content.to_mut().push_str(&piece)
            }
            _ => spans.push(Span::styled(piece, style)),
        }
    }
    if cursor.is_some() && text.is_empty() {
        spans.push(Span::styled(
            " ",
            Style::default().add_modifier(Modifier::REVERSED),
        ));
    }
    if hidden_right {
        let shown: usize = spans.iter().map(Span::width).sum();
        spans.push(Span::raw(" ".repeat(width.saturating_sub(shown + 1))));
        spans.push(Span::styled("›", t.dim));
    }
    spans
}

fn outline_panel(
    state: &State,
    code: &CodeView,
    frame: &mut Frame,
    outline_box: Rect,
    outline: Rect,
    focused: bool,
) {
    let t = &state.theme;
    let title = format!(" Outline ({}) ", code.doc.symbols.len());
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { t.border_focused } else { t.border })
        .title(Span::styled(title, t.title));
    frame.render_widget(block, outline_box);
    // The filter on the first row.
    let filter_row = Rect::new(outline.x, outline.y, outline.width, outline.height.min(1));
    if focused {
        frame.render_widget(Span::styled("› ", t.info), filter_row);
        frame.render_widget(
            &code.outline.input,
            Rect::new(
                filter_row.x + 2,
                filter_row.y,
                filter_row.width.saturating_sub(2),
                filter_row.height,
            ),
        );
    } else {
        let open = state.keymap.hint(
            crate::tui::keymap::Context::Code,
            crate::tui::keymap::Command::Outline,
        );
        frame.render_widget(
            Span::styled(format!("{open}: find a symbol"), t.dim),
            filter_row,
        );
    }
    let list = Rect::new(
        outline.x,
        outline.y + filter_row.height,
        outline.width,
        outline.height.saturating_sub(filter_row.height),
    );
    let offset = list_offset(code.outline_cursor, list.height as usize);
    let width = list.width as usize;
    let rows: Vec<Line> = code
        .outline
        .matches
        .iter()
        .enumerate()
        .skip(offset)
        .take(list.height as usize)
        .filter_map(|(row, &i)| {
            let symbol = code.doc.symbols.get(i)?;
            let chosen = code.selection == Some(Selection::Symbol(i));
            let depth = if code.outline.matches.len() == code.doc.symbols.len() {
                code.doc.depths.get(i).copied().unwrap_or(0)
            } else {
                0
            };
            let text = format!(
                "{}{}{}",
                if chosen { "●" } else { " " },
                "  ".repeat(depth),
                symbol_label(&code.doc, symbol)
            );
            let style = if focused && row == code.outline_cursor {
                t.list_selected
            } else {
                Style::default()
            };
            Some(Line::from(Span::raw(fit::shorten(&text, width))).style(style))
        })
        .collect();
    if rows.is_empty() {
        let message = if code.doc.symbols.is_empty() {
            " no symbols"
        } else {
            " no symbol matches"
        };
        frame.render_widget(Paragraph::new(Span::styled(message, t.dim)), list);
    } else {
        frame.render_widget(Paragraph::new(rows), list);
    }
}
