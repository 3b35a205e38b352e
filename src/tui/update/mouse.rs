//! The mouse: wheel scrolling, clicks in the picker, the code view and the outline, and drags
//! that select lines.

use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use crate::tui::layout;
use crate::tui::state::*;

use crate::tui::motion;

use super::code::{keep_cursor_visible, outline_shown, select_symbol};
use crate::tui::layout::list_offset;

pub(super) fn on_mouse(state: &mut State, event: MouseEvent) {
    if let Some(scroll) = state.help.as_mut() {
        match event.kind {
            MouseEventKind::ScrollDown => *scroll += 3,
            MouseEventKind::ScrollUp => *scroll = scroll.saturating_sub(3),
            _ => {}
        }
        return;
    }
    match &mut state.screen {
        Screen::Code => code_mouse(state, event),
        Screen::Picker => picker_mouse(state, event),
        Screen::Preview { preview, .. } => {
            let rows = preview
                .ready()
                .and_then(|r| r.diffs.get(preview.file))
                .map_or(0, |d| d.rows.len());
            match event.kind {
                MouseEventKind::ScrollDown => {
                    preview.scroll = (preview.scroll + 3).min(rows.saturating_sub(1))
                }
                MouseEventKind::ScrollUp => preview.scroll = preview.scroll.saturating_sub(3),
                _ => {}
            }
        }
        Screen::Form(_) => {}
    }
}

fn picker_mouse(state: &mut State, event: MouseEvent) {
    let list = layout::picker(state.size).list;
    let picker = &mut state.picker;
    let last = picker.matches.len().saturating_sub(1);
    match event.kind {
        MouseEventKind::ScrollDown => picker.selected = (picker.selected + 3).min(last),
        MouseEventKind::ScrollUp => picker.selected = picker.selected.saturating_sub(3),
        MouseEventKind::Down(MouseButton::Left)
            if layout::contains(list, event.column, event.row) =>
        {
            let offset = list_offset(picker.selected, list.height as usize);
            let row = offset + (event.row - list.y) as usize;
            if row <= last && !picker.matches.is_empty() {
                picker.selected = row;
            }
        }
        _ => {}
    }
}

fn code_mouse(state: &mut State, event: MouseEvent) {
    let areas = layout::code(state.size, outline_shown(state));
    let Some(code) = state.code.as_mut() else {
        return;
    };
    let last = code.doc.line_count().saturating_sub(1);
    let line_at = |row: u16, top: usize| -> usize {
        let offset = row.saturating_sub(areas.code.y) as usize;
        (top + offset).min(last)
    };
    match event.kind {
        // The wheel moves the view and the cursor with it, so the cursor stays on screen.
        MouseEventKind::ScrollDown => {
            code.top = (code.top + 3).min(last);
            code.cursor = (code.cursor + 3).min(last);
        }
        MouseEventKind::ScrollUp => {
            code.top = code.top.saturating_sub(3);
            code.cursor = code.cursor.saturating_sub(3);
        }
        MouseEventKind::Down(MouseButton::Left) => {
            if layout::contains(areas.code, event.column, event.row) {
                let line = line_at(event.row, code.top);
                let gutter = layout::code_gutter(code.doc.line_count());
                let x = event.column.saturating_sub(areas.code.x + gutter) as usize + code.left;
                code.cursor = line;
                code.col = motion::col_at_display(&code.doc, line, x);
                code.selection = None;
                code.visual = false;
                code.focus = CodeFocus::Code;
                code.drag_from = Some(line);
            } else if let Some(outline) = areas
                .outline
                .filter(|r| layout::contains(*r, event.column, event.row))
            {
                // The first row is the filter.
                let list_height = outline.height.saturating_sub(1) as usize;
                let offset = list_offset(code.outline_cursor, list_height);
                let row = (event.row - outline.y) as usize;
                if let Some(&symbol) = row
                    .checked_sub(1)
                    .and_then(|r| code.outline.matches.get(offset + r))
                {
                    code.outline_cursor = offset + row - 1;
                    select_symbol(code, symbol);
                }
            }
        }
        MouseEventKind::Drag(MouseButton::Left) => {
            if let Some(from) = code.drag_from {
                if event.row < areas.code.y {
                    code.top = code.top.saturating_sub(1);
                } else if event.row >= areas.code.y + areas.code.height {
                    code.top = (code.top + 1).min(last);
                }
                let line = line_at(
                    event.row.clamp(
                        areas.code.y,
                        (areas.code.y + areas.code.height).saturating_sub(1),
                    ),
                    code.top,
                );
                code.cursor = line;
                code.selection = Some(Selection::Lines {
                    anchor: from,
                    head: line,
                });
            }
        }
        MouseEventKind::Up(MouseButton::Left) => code.drag_from = None,
        _ => {}
    }
    keep_cursor_visible(state);
}
