//! One-line text fields (the picker's filter, the outline's filter, the go-to-line and search
//! prompts, the refactor forms): shell/readline editing through the keymap's `[input]`
//! commands (Ctrl-A/E/U/K/W, Alt-B/F, …) and plain characters typed in. Nothing else reaches
//! the text: no textarea shortcut (its Ctrl-U is undo) surprises anyone. Pure.

use ratatui::crossterm::event::KeyCode;
use ratatui::style::{Modifier, Style};
use ratatui_textarea::{CursorMove, TextArea};

use super::keymap::{Command, Key};

/// A new field showing `placeholder` while empty, holding `text`.
pub fn field(placeholder: &str, text: &str) -> TextArea<'static> {
    let mut field = TextArea::default();
    field.set_placeholder_text(placeholder);
    field.set_cursor_line_style(Style::default());
    // Reversed video: visible with NO_COLOR too.
    field.set_selection_style(Style::default().add_modifier(Modifier::REVERSED));
    field.insert_str(text);
    field
}

/// The text of a field (one line).
pub fn text(field: &TextArea<'_>) -> String {
    field.lines().join(" ")
}

/// Replaces the text of a field, the cursor at its end.
pub fn set_text(field: &mut TextArea<'static>, text: &str) {
    field.select_all();
    field.cut();
    field.insert_str(text);
}

/// Selects the whole text: the next character typed replaces it (a field opened again with its
/// old text), a motion keeps it.
pub fn select_all(field: &mut TextArea<'static>) {
    if !text(field).is_empty() {
        field.select_all();
    }
}

/// Applies an editing command, or types `key` when it is a plain character. Returns whether
/// the text changed.
pub fn edit(field: &mut TextArea<'static>, command: Option<Command>, key: Key) -> bool {
    let before = text(field);
    let motion = |field: &mut TextArea<'static>, to: CursorMove| {
        field.cancel_selection();
        field.move_cursor(to);
    };
    match command {
        Some(Command::Left) => motion(field, CursorMove::Back),
        Some(Command::Right) => motion(field, CursorMove::Forward),
        Some(Command::WordBack) => {
            field.cancel_selection();
            word_back(field);
        }
        Some(Command::WordForward) => {
            field.cancel_selection();
            word_forward(field);
        }
        Some(Command::LineStart) => motion(field, CursorMove::Head),
        Some(Command::LineEnd) => motion(field, CursorMove::End),
        Some(Command::DeleteBack) => {
            field.delete_char();
        }
        Some(Command::DeleteForward) => {
            field.delete_next_char();
        }
        Some(Command::DeleteWordBack) => delete_word_back(field),
        Some(Command::DeleteWordForward) => {
            field.delete_next_word();
        }
        Some(Command::DeleteToStart) => {
            field.delete_line_by_head();
        }
        Some(Command::DeleteToEnd) => {
            field.delete_line_by_end();
        }
        Some(Command::UndoEdit) => {
            field.undo();
        }
        Some(_) => {}
        None => {
            if let (KeyCode::Char(c), true) = (key.code, key.is_plain_char()) {
                field.insert_char(c);
            }
        }
    }
    text(field) != before
}

fn is_word(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// The characters of the line and the cursor's column in them.
fn line_and_column(field: &TextArea<'static>) -> (Vec<char>, usize) {
    let ratatui_textarea::DataCursor(row, col) = field.cursor();
    let chars = field
        .lines()
        .get(row)
        .map(|l| l.chars().collect())
        .unwrap_or_default();
    (chars, col)
}

/// Alt-B: to the start of the word before the cursor.
fn word_back(field: &mut TextArea<'static>) {
    let (chars, col) = line_and_column(field);
    let mut at = col.min(chars.len());
    while at > 0 && !is_word(chars[at - 1]) {
        at -= 1;
    }
    while at > 0 && is_word(chars[at - 1]) {
        at -= 1;
    }
    for _ in at..col {
        field.move_cursor(CursorMove::Back);
    }
}

/// Alt-F: past the end of the word after the cursor.
fn word_forward(field: &mut TextArea<'static>) {
    let (chars, col) = line_and_column(field);
    let mut at = col.min(chars.len());
    while at < chars.len() && !is_word(chars[at]) {
        at += 1;
    }
    while at < chars.len() && is_word(chars[at]) {
        at += 1;
    }
    for _ in col..at {
        field.move_cursor(CursorMove::Forward);
    }
}

/// Deletes the word before the cursor, and the separators (`/`, `.`, spaces…) between it and
/// the cursor: `python/shop/receipt.` becomes `python/shop/`. A selection is deleted instead.
fn delete_word_back(field: &mut TextArea<'static>) {
    if field.is_selecting() {
        field.cut();
        return;
    }
    let (chars, col) = line_and_column(field);
    let before: Vec<char> = chars.into_iter().take(col).collect();
    let mut start = before.len();
    while start > 0 && !is_word(before[start - 1]) {
        start -= 1;
    }
    while start > 0 && is_word(before[start - 1]) {
        start -= 1;
    }
    let count = before.len() - start;
    for _ in 0..count {
        field.move_cursor(CursorMove::Back);
    }
    field.delete_str(count);
}

#[cfg(test)]
mod tests {
    use ratatui::crossterm::event::KeyModifiers;

    use super::*;

    fn typed(field: &mut TextArea<'static>, text: &str) {
        for c in text.chars() {
            edit(field, None, Key::new(KeyCode::Char(c), KeyModifiers::NONE));
        }
    }

    fn run(field: &mut TextArea<'static>, command: Command) -> bool {
        edit(
            field,
            Some(command),
            Key::new(KeyCode::Null, KeyModifiers::NONE),
        )
    }

    #[test]
    fn readline_keys_edit_like_a_shell() {
        let mut f = field("", "");
        typed(&mut f, "shop/receipt.py");
        run(&mut f, Command::WordBack);
        run(&mut f, Command::DeleteToEnd);
        assert_eq!(text(&f), "shop/receipt.");
        run(&mut f, Command::LineStart);
        typed(&mut f, "python/");
        assert_eq!(text(&f), "python/shop/receipt.");
        run(&mut f, Command::LineEnd);
        run(&mut f, Command::DeleteWordBack);
        assert_eq!(text(&f), "python/shop/");
        run(&mut f, Command::DeleteToStart);
        assert_eq!(text(&f), "", "Ctrl-U deletes to the start, it is not undo");
        run(&mut f, Command::UndoEdit);
        assert_eq!(text(&f), "python/shop/");
        assert!(!run(&mut f, Command::Left), "a motion changes no text");
    }

    #[test]
    fn a_selected_text_is_replaced_by_typing() {
        let mut f = field("", "money");
        select_all(&mut f);
        typed(&mut f, "lib");
        assert_eq!(text(&f), "lib");
        let mut f = field("", "money");
        select_all(&mut f);
        run(&mut f, Command::LineEnd);
        typed(&mut f, ".py");
        assert_eq!(text(&f), "money.py", "a motion keeps the text");
        let mut f = field("", "money");
        select_all(&mut f);
        run(&mut f, Command::DeleteBack);
        assert_eq!(text(&f), "");
    }
}
