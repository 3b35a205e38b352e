//! The code view and its outline: cursor motions (with counts: `5j`, `52G`), the go-to-line and
//! search prompts, horizontal scrolling, line and symbol selection, and the keys that start a
//! refactor, open the picker or return to a pending preview.

use crate::tui::aim;
use crate::tui::effect::Effect;
use crate::tui::input;
use crate::tui::keymap::{Command, Context, Key};
use crate::tui::layout;
use crate::tui::motion;
use crate::tui::state::*;

use super::{refactor, writes};

/// Columns the view scrolls sideways per `z h` / `z l`.
const SIDE_STEP: usize = 8;

pub(super) fn outline_shown(state: &State) -> bool {
    layout::outline_always_shown(state.size)
        || state
            .code
            .as_ref()
            .is_some_and(|c| c.focus == CodeFocus::Outline)
}

/// Rows of code on screen.
pub(super) fn code_height(state: &State) -> usize {
    (layout::code(state.size, outline_shown(state)).code.height as usize).max(1)
}

/// Columns of code text on screen (the gutter left out).
fn text_width(state: &State, code: &CodeView) -> usize {
    let area = layout::code(state.size, outline_shown(state)).code;
    (area.width as usize)
        .saturating_sub(layout::code_gutter(code.doc.line_count()) as usize)
        .max(1)
}

/// [`text_width`] with the outline as it is when the code has the focus.
fn text_width_of(size: (u16, u16), code: &CodeView) -> usize {
    let area = layout::code(size, layout::outline_always_shown(size)).code;
    (area.width as usize)
        .saturating_sub(layout::code_gutter(code.doc.line_count()) as usize)
        .max(1)
}

/// Scrolls so the cursor has a few lines of context around it, like `scrolloff`, and a few
/// columns beside it; then says again what the cursor is on.
pub(super) fn keep_cursor_visible(state: &mut State) {
    let height = code_height(state);
    let width = state.code.as_ref().map_or(1, |c| text_width(state, c));
    let margin = (height / 4).min(3);
    let Some(code) = state.code.as_mut() else {
        return;
    };
    let last = code.doc.line_count().saturating_sub(1);
    code.cursor = code.cursor.min(last);
    if code.cursor < code.top + margin {
        code.top = code.cursor.saturating_sub(margin);
    } else if code.cursor + margin >= code.top + height {
        code.top = (code.cursor + margin + 1).saturating_sub(height);
    }
    // No empty screen below the end of the file.
    code.top = code.top.min((last + 1).saturating_sub(height));
    let col = code.col.min(motion::last_col(&code.doc, code.cursor));
    let x = motion::display_col(&code.doc, code.cursor, col);
    let side = (width / 8).min(4);
    if x < code.left + side {
        code.left = x.saturating_sub(side);
    } else if x + side >= code.left + width {
        code.left = (x + side + 1).saturating_sub(width);
    }
    code.aim = aim::aim(&code.doc, code.cursor, col, |_| true);
}

/// Moves the cursor, extending a line selection started with `v`.
fn move_to(code: &mut CodeView, line: usize, col: usize) {
    code.cursor = line.min(code.doc.line_count().saturating_sub(1));
    code.col = col;
    if code.visual
        && let Some(Selection::Lines { head, .. }) = code.selection.as_mut()
    {
        *head = code.cursor;
    }
}

pub(super) fn key(
    state: &mut State,
    command: Option<Command>,
    count: Option<usize>,
    fx: &mut Vec<Effect>,
) -> Screen {
    let height = code_height(state);
    let Some(command) = command else {
        return Screen::Code;
    };
    let Some(code) = state.code.as_mut() else {
        // The first file is still being read.
        return match command {
            Command::OpenPicker => Screen::Picker,
            _ => Screen::Code,
        };
    };
    let n = count.unwrap_or(1).max(1);
    let last = code.doc.line_count().saturating_sub(1);
    let col = code.col.min(motion::last_col(&code.doc, code.cursor));
    let search_key = state.keymap.hint(Context::Code, Command::Search);
    let mut notice = None;
    match command {
        Command::Up => move_to(code, code.cursor.saturating_sub(n), code.col),
        Command::Down => move_to(code, code.cursor + n, code.col),
        Command::Left => move_to(code, code.cursor, col.saturating_sub(n)),
        Command::Right => {
            let right = (col + n).min(motion::last_col(&code.doc, code.cursor));
            move_to(code, code.cursor, right)
        }
        Command::WordForward | Command::WordBack => {
            let (mut line, mut at) = (code.cursor, col);
            for _ in 0..n {
                (line, at) = if command == Command::WordForward {
                    motion::next_word(&code.doc, line, at)
                } else {
                    motion::previous_word(&code.doc, line, at)
                };
            }
            move_to(code, line, at);
        }
        Command::LineStart => move_to(code, code.cursor, 0),
        Command::LineEnd => {
            let end = motion::last_col(&code.doc, code.cursor);
            move_to(code, code.cursor, end)
        }
        Command::PageUp => move_to(code, code.cursor.saturating_sub(height * n), code.col),
        Command::PageDown => move_to(code, code.cursor + height * n, code.col),
        Command::Top | Command::Bottom => {
            let line = match (count, command) {
                (Some(line), _) => line.saturating_sub(1).min(last),
                (None, Command::Top) => 0,
                (None, _) => last,
            };
            move_to(code, line, code.col);
        }
        Command::GotoLine | Command::Search => {
            let (kind, placeholder) = if command == Command::GotoLine {
                (PromptKind::GotoLine, "line number")
            } else {
                (PromptKind::Search, "text to find")
            };
            code.prompt = Some(Prompt {
                kind,
                input: input::field(placeholder, ""),
                origin: (code.cursor, code.col, code.top),
            });
        }
        Command::SearchNext | Command::SearchPrev => {
            notice = search_again(code, command == Command::SearchNext, n, &search_key);
        }
        Command::ScrollLeft | Command::ScrollRight => {
            let width = text_width_of(state.size, code);
            scroll_sideways(code, command == Command::ScrollRight, n, width, height);
            return Screen::Code;
        }
        Command::SelectLines => {
            if code.visual {
                code.visual = false;
            } else {
                code.visual = true;
                code.selection = Some(Selection::Lines {
                    anchor: code.cursor,
                    head: code.cursor,
                });
            }
        }
        Command::ExtendUp | Command::ExtendDown => {
            let anchor = match code.selection {
                Some(Selection::Lines { anchor, .. }) => anchor,
                _ => code.cursor,
            };
            code.cursor = if command == Command::ExtendUp {
                code.cursor.saturating_sub(n)
            } else {
                (code.cursor + n).min(last)
            };
            code.selection = Some(Selection::Lines {
                anchor,
                head: code.cursor,
            });
        }
        Command::ClearSelection => {
            code.selection = None;
            code.visual = false;
        }
        Command::Outline => open_outline(code),
        Command::OpenPicker => {
            input::select_all(&mut state.picker.query);
            return Screen::Picker;
        }
        Command::ReturnToPreview => {
            return match state.parked.take() {
                Some(preview) => Screen::Preview {
                    preview,
                    form: None,
                },
                None => {
                    state.info("there is no pending preview");
                    Screen::Code
                }
            };
        }
        Command::Undo => writes::undo(state, fx),
        Command::Extract => return refactor::start_extract(state),
        Command::Inline => return refactor::start_inline(state, fx),
        Command::MoveToFile => return refactor::start_move(state),
        Command::ChangeSignature => return refactor::start_change_signature(state),
        Command::Rename => return refactor::start_rename(state),
        Command::ExtractVariable => return refactor::start_extract_variable(state),
        Command::InlineVariable => return refactor::start_inline_variable(state, fx),
        Command::SafeDelete => return refactor::start_safe_delete(state, fx),
        Command::IntroduceParameter => return refactor::start_introduce_parameter(state),
        _ => {}
    }
    if let Some(notice) = notice {
        state.notice = Some(notice);
    }
    keep_cursor_visible(state);
    Screen::Code
}

/// `n` / `N`: the next or previous match of the last search, `n` times; a notice when it
/// wrapped around or found nothing.
fn search_again(code: &mut CodeView, forward: bool, n: usize, search_key: &str) -> Option<Notice> {
    let Some(query) = code.search.clone() else {
        return Some(Notice::new(
            NoticeLevel::Info,
            format!("nothing searched yet: {search_key} searches"),
        ));
    };
    let col = code.col.min(motion::last_col(&code.doc, code.cursor));
    let (mut line, mut at) = (code.cursor, col);
    let mut wrapped = false;
    for _ in 0..n {
        let Some(((l, c), w)) = motion::find(&code.doc, &query, line, at, forward) else {
            return Some(Notice::new(
                NoticeLevel::Warning,
                format!("`{query}` is not in this file"),
            ));
        };
        (line, at) = (l, c);
        wrapped |= w;
    }
    move_to(code, line, at);
    wrapped.then(|| {
        Notice::new(
            NoticeLevel::Info,
            if forward {
                "search went on from the top"
            } else {
                "search went on from the bottom"
            },
        )
    })
}

/// `z h` / `z l`: the view moves sideways by `n` steps (no further than the longest line on
/// screen allows); the cursor stays on screen.
fn scroll_sideways(code: &mut CodeView, right: bool, n: usize, width: usize, height: usize) {
    let longest = (code.top..code.top + height)
        .map(|l| motion::display_col(&code.doc, l, usize::MAX))
        .max()
        .unwrap_or(0);
    code.left = if right {
        (code.left + SIDE_STEP * n).min(longest.saturating_sub(width / 2))
    } else {
        code.left.saturating_sub(SIDE_STEP * n)
    };
    let x = motion::display_col(&code.doc, code.cursor, code.col);
    if x < code.left || x >= code.left + width {
        let target = if x < code.left {
            code.left
        } else {
            code.left + width - 1
        };
        code.col = motion::col_at_display(&code.doc, code.cursor, target);
    }
    let col = code.col.min(motion::last_col(&code.doc, code.cursor));
    code.aim = aim::aim(&code.doc, code.cursor, col, |_| true);
}

fn open_outline(code: &mut CodeView) {
    code.focus = CodeFocus::Outline;
    input::select_all(&mut code.outline.input);
    let around = code.doc.symbol_at(code.cursor, |_| true);
    code.outline_cursor = around
        .and_then(|i| code.outline.matches.iter().position(|&m| m == i))
        .unwrap_or(0);
}

/// The go-to-line and search prompts: typing (a search moves as it is typed), Enter, Esc.
pub(super) fn prompt_key(state: &mut State, command: Option<Command>, key: Key) -> Screen {
    let Some(code) = state.code.as_mut() else {
        return Screen::Code;
    };
    let Some(prompt) = code.prompt.as_mut() else {
        return Screen::Code;
    };
    let (origin_line, origin_col, origin_top) = prompt.origin;
    let mut notice = None;
    match command {
        Some(Command::Cancel) => {
            code.prompt = None;
            code.cursor = origin_line;
            code.col = origin_col;
            code.top = origin_top;
        }
        Some(Command::Submit) => {
            let text = input::text(&prompt.input).trim().to_string();
            let kind = prompt.kind;
            code.prompt = None;
            match kind {
                PromptKind::GotoLine => notice = goto_line(code, &text),
                PromptKind::Search if text.is_empty() => {}
                PromptKind::Search => code.search = Some(text),
            }
        }
        _ => {
            if input::edit(&mut prompt.input, command, key) && prompt.kind == PromptKind::Search {
                let query = input::text(&prompt.input);
                match motion::find(&code.doc, &query, origin_line, origin_col, true) {
                    Some(((line, col), _)) => move_to(code, line, col),
                    None => {
                        move_to(code, origin_line, origin_col);
                        if !query.is_empty() {
                            notice = Some(Notice::new(
                                NoticeLevel::Warning,
                                format!("`{query}` is not in this file"),
                            ));
                        }
                    }
                }
            }
        }
    }
    if notice.is_some() {
        state.notice = notice;
    }
    keep_cursor_visible(state);
    Screen::Code
}

/// `:52`: the cursor on the first word of line 52 (`$` the last line).
fn goto_line(code: &mut CodeView, text: &str) -> Option<Notice> {
    let last = code.doc.line_count();
    let line = match text {
        "" => return None,
        "$" => last,
        _ => match text.parse::<usize>() {
            Ok(n) if n >= 1 => n.min(last),
            _ => {
                return Some(Notice::new(
                    NoticeLevel::Warning,
                    format!("`{text}` is not a line number: type one between 1 and {last}"),
                ));
            }
        },
    };
    let first = code
        .doc
        .line(line - 1)
        .chars()
        .position(|c| !c.is_whitespace())
        .unwrap_or(0);
    move_to(code, line - 1, first);
    None
}

/// The outline with its filter: moving in the matches, typing to filter, Enter to jump.
pub(super) fn outline_key(state: &mut State, command: Option<Command>, key: Key) -> Screen {
    let height = layout::code(state.size, true)
        .outline
        .map_or(1, |r| r.height.saturating_sub(1).max(1) as usize);
    let Some(code) = state.code.as_mut() else {
        return Screen::Code;
    };
    let last = code.outline.matches.len().saturating_sub(1);
    match command {
        Some(Command::Up) => code.outline_cursor = code.outline_cursor.saturating_sub(1),
        Some(Command::Down) => code.outline_cursor = (code.outline_cursor + 1).min(last),
        Some(Command::PageUp) => code.outline_cursor = code.outline_cursor.saturating_sub(height),
        Some(Command::PageDown) => code.outline_cursor = (code.outline_cursor + height).min(last),
        Some(Command::Top) => code.outline_cursor = 0,
        Some(Command::Bottom) => code.outline_cursor = last,
        Some(Command::SelectSymbol) => match code.outline_symbol() {
            Some(symbol) => {
                select_symbol(code, symbol);
                clear_outline_filter(code);
            }
            None => {
                let typed = input::text(&code.outline.input);
                state.warn(format!("no symbol of this file matches `{typed}`"));
                return Screen::Code;
            }
        },
        Some(Command::Back) => {
            code.focus = CodeFocus::Code;
            clear_outline_filter(code);
        }
        _ => {
            if input::edit(&mut code.outline.input, command, key) {
                code.outline.refilter(&code.doc);
                code.outline_cursor = 0;
            }
            return Screen::Code;
        }
    }
    keep_cursor_visible(state);
    Screen::Code
}

/// Leaving the outline: the filter is emptied, so the outline beside the code lists every
/// symbol again (with the one around the cursor highlighted).
fn clear_outline_filter(code: &mut CodeView) {
    input::set_text(&mut code.outline.input, "");
    code.outline.refilter(&code.doc);
    let around = code.doc.symbol_at(code.cursor, |_| true);
    code.outline_cursor = around
        .and_then(|i| code.outline.matches.iter().position(|&m| m == i))
        .unwrap_or(0);
}

/// Selects symbol `index` (the outline's Enter, a click): the cursor goes to its name.
pub(super) fn select_symbol(code: &mut CodeView, index: usize) {
    let Some(symbol) = code.doc.symbols.get(index) else {
        return;
    };
    let line = symbol.line.saturating_sub(1);
    let line_start = code.doc.lines.get(line).map_or(0, |r| r.start);
    let col = code
        .doc
        .text
        .get(line_start..symbol.name_range.start)
        .map_or(0, |before| before.chars().count());
    code.selection = Some(Selection::Symbol(index));
    code.visual = false;
    code.cursor = line;
    code.col = col;
    code.top = symbol.first_line.saturating_sub(1).min(code.cursor);
    code.focus = CodeFocus::Code;
}
