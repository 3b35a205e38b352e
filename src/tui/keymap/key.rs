//! One key as the keymap names it (`ctrl-d`, `shift-down`, `?`, `enter`), normalised like the
//! terminal's events, and a sequence of keys (`z h`). Pure.

use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// A key with its modifiers, normalised (a shifted character is just the character).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    pub code: KeyCode,
    pub modifiers: KeyModifiers,
}

impl Key {
    pub fn new(code: KeyCode, modifiers: KeyModifiers) -> Key {
        let mut modifiers =
            modifiers & (KeyModifiers::CONTROL | KeyModifiers::ALT | KeyModifiers::SHIFT);
        let code = match code {
            KeyCode::BackTab => {
                modifiers |= KeyModifiers::SHIFT;
                KeyCode::Tab
            }
            KeyCode::Char(c) => {
                modifiers.remove(KeyModifiers::SHIFT);
                if modifiers.contains(KeyModifiers::CONTROL) {
                    KeyCode::Char(c.to_ascii_lowercase())
                } else {
                    KeyCode::Char(c)
                }
            }
            other => other,
        };
        Key { code, modifiers }
    }

    /// The key of a terminal event; `None` for key releases.
    pub fn from_event(event: &KeyEvent) -> Option<Key> {
        if event.kind == KeyEventKind::Release {
            return None;
        }
        Some(Key::new(event.code, event.modifiers))
    }

    /// A plain character without control or alt.
    pub fn is_plain_char(&self) -> bool {
        matches!(self.code, KeyCode::Char(_))
            && !self
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
    }

    /// Parses `ctrl-d`, `shift-down`, `enter`, `?`, `V`.
    pub fn parse(text: &str) -> Result<Key, String> {
        let mut modifiers = KeyModifiers::NONE;
        let mut rest = text;
        loop {
            let lower = rest.to_ascii_lowercase();
            let (prefix, m) = if lower.starts_with("ctrl-") && rest.len() > 5 {
                ("ctrl-", KeyModifiers::CONTROL)
            } else if lower.starts_with("alt-") && rest.len() > 4 {
                ("alt-", KeyModifiers::ALT)
            } else if lower.starts_with("shift-") && rest.len() > 6 {
                ("shift-", KeyModifiers::SHIFT)
            } else {
                break;
            };
            modifiers |= m;
            rest = &rest[prefix.len()..];
        }
        let mut chars = rest.chars();
        let code = match (chars.next(), chars.next()) {
            (Some(c), None) => KeyCode::Char(c),
            _ => match rest.to_ascii_lowercase().as_str() {
                "enter" | "return" => KeyCode::Enter,
                "esc" | "escape" => KeyCode::Esc,
                "tab" => KeyCode::Tab,
                "backtab" => KeyCode::BackTab,
                "backspace" => KeyCode::Backspace,
                "delete" | "del" => KeyCode::Delete,
                "up" => KeyCode::Up,
                "down" => KeyCode::Down,
                "left" => KeyCode::Left,
                "right" => KeyCode::Right,
                "home" => KeyCode::Home,
                "end" => KeyCode::End,
                "pageup" => KeyCode::PageUp,
                "pagedown" => KeyCode::PageDown,
                "space" => KeyCode::Char(' '),
                "insert" => KeyCode::Insert,
                f if f.starts_with('f') && f.len() > 1 => match f[1..].parse::<u8>() {
                    Ok(n) if (1..=12).contains(&n) => KeyCode::F(n),
                    _ => return Err(format!("`{text}` is not a key: function keys are f1 … f12")),
                },
                _ => {
                    return Err(format!(
                        "`{text}` is not a key; use a character or a key name (enter, esc, tab, up, pagedown, f1, …) with ctrl-, alt-, shift- in front"
                    ));
                }
            },
        };
        Ok(Key::new(code, modifiers))
    }
}

impl fmt::Display for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.modifiers.contains(KeyModifiers::CONTROL) {
            f.write_str("ctrl-")?;
        }
        if self.modifiers.contains(KeyModifiers::ALT) {
            f.write_str("alt-")?;
        }
        if self.modifiers.contains(KeyModifiers::SHIFT) {
            f.write_str("shift-")?;
        }
        match self.code {
            KeyCode::Char(' ') => f.write_str("space"),
            KeyCode::Char(c) => write!(f, "{c}"),
            KeyCode::Enter => f.write_str("enter"),
            KeyCode::Esc => f.write_str("esc"),
            KeyCode::Tab => f.write_str("tab"),
            KeyCode::Backspace => f.write_str("backspace"),
            KeyCode::Delete => f.write_str("delete"),
            KeyCode::Up => f.write_str("up"),
            KeyCode::Down => f.write_str("down"),
            KeyCode::Left => f.write_str("left"),
            KeyCode::Right => f.write_str("right"),
            KeyCode::Home => f.write_str("home"),
            KeyCode::End => f.write_str("end"),
            KeyCode::PageUp => f.write_str("pageup"),
            KeyCode::PageDown => f.write_str("pagedown"),
            KeyCode::Insert => f.write_str("insert"),
            KeyCode::F(n) => write!(f, "f{n}"),
            other => write!(f, "{other:?}"),
        }
    }
}

/// Keys pressed one after the other (`z h`); most bindings are one key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct KeySeq(pub Vec<Key>);

impl KeySeq {
    /// Parses `ctrl-d`, or keys separated by spaces (`z h`) for a sequence.
    pub fn parse(text: &str) -> Result<KeySeq, String> {
        let keys = text
            .split(' ')
            .filter(|k| !k.is_empty())
            .map(Key::parse)
            .collect::<Result<Vec<Key>, String>>()?;
        if keys.is_empty() {
            return Err("an empty key; write a key like \"e\" or \"ctrl-d\"".to_string());
        }
        Ok(KeySeq(keys))
    }

    /// A single plain character (typed into a text field rather than bound there).
    pub fn is_plain_char(&self) -> bool {
        matches!(self.0.as_slice(), [key] if key.is_plain_char())
    }
}

impl fmt::Display for KeySeq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, key) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{key}")?;
        }
        Ok(())
    }
}
