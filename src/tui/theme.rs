//! Colours and text styles of every screen, in one place; a monochrome variant (modifiers
//! only) when `NO_COLOR` is set. Pure: the caller reads the environment.

use ratatui::style::{Color, Modifier, Style};

use super::highlight::Highlight;

/// The styles the views draw with.
#[derive(Debug, Clone, PartialEq)]
pub struct Theme {
    pub color: bool,
    pub title: Style,
    pub border: Style,
    pub border_focused: Style,
    pub dim: Style,
    pub line_number: Style,
    pub cursor_line: Style,
    pub selection: Style,
    pub symbol_selection: Style,
    pub status: Style,
    pub status_key: Style,
    pub info: Style,
    pub error: Style,
    pub warning: Style,
    pub ok: Style,
    pub match_char: Style,
    pub list_selected: Style,
    pub added: Style,
    pub removed: Style,
    pub added_emphasis: Style,
    pub removed_emphasis: Style,
    pub hunk: Style,
    pub stale: Style,
}

impl Theme {
    /// The colour theme, or the monochrome one when `no_color` (the `NO_COLOR` convention).
    pub fn new(no_color: bool) -> Theme {
        if no_color {
            Theme::monochrome()
        } else {
            Theme::colored()
        }
    }

    /// Whether `NO_COLOR` asks for no colour: set and not empty (see no-color.org).
    pub fn no_color_requested(value: Option<&std::ffi::OsStr>) -> bool {
        value.is_some_and(|v| !v.is_empty())
    }

    pub fn colored() -> Theme {
        let plain = Style::default();
        Theme {
            color: true,
            title: plain.fg(Color::Cyan).add_modifier(Modifier::BOLD),
            border: plain.fg(Color::DarkGray),
            border_focused: plain.fg(Color::Cyan),
            dim: plain.fg(Color::DarkGray),
            line_number: plain.fg(Color::DarkGray),
            cursor_line: plain.bg(Color::Rgb(40, 44, 52)),
            selection: plain.bg(Color::Rgb(38, 79, 120)),
            symbol_selection: plain.bg(Color::Rgb(60, 56, 96)),
            status: plain.fg(Color::White).bg(Color::Rgb(30, 30, 30)),
            status_key: plain
                .fg(Color::Yellow)
                .bg(Color::Rgb(30, 30, 30))
                .add_modifier(Modifier::BOLD),
            info: plain.fg(Color::Cyan),
            error: plain.fg(Color::Red).add_modifier(Modifier::BOLD),
            warning: plain.fg(Color::Yellow),
            ok: plain.fg(Color::Green),
            match_char: plain.fg(Color::Yellow).add_modifier(Modifier::BOLD),
            list_selected: plain
                .bg(Color::Rgb(38, 79, 120))
                .add_modifier(Modifier::BOLD),
            added: plain.fg(Color::Green),
            removed: plain.fg(Color::Red),
            added_emphasis: plain.fg(Color::Black).bg(Color::Green),
            removed_emphasis: plain.fg(Color::Black).bg(Color::Red),
            hunk: plain.fg(Color::Cyan),
            stale: plain
                .fg(Color::Black)
                .bg(Color::Yellow)
                .add_modifier(Modifier::BOLD),
        }
    }

    /// No colour at all: selections and emphasis stay visible through reverse video, bold and
    /// underline.
    pub fn monochrome() -> Theme {
        let plain = Style::default();
        Theme {
            color: false,
            title: plain.add_modifier(Modifier::BOLD),
            border: plain,
            border_focused: plain.add_modifier(Modifier::BOLD),
            dim: plain.add_modifier(Modifier::DIM),
            line_number: plain.add_modifier(Modifier::DIM),
            cursor_line: plain.add_modifier(Modifier::UNDERLINED),
            selection: plain.add_modifier(Modifier::REVERSED),
            symbol_selection: plain.add_modifier(Modifier::REVERSED),
            status: plain.add_modifier(Modifier::REVERSED),
            status_key: plain.add_modifier(Modifier::REVERSED | Modifier::BOLD),
            info: plain,
            error: plain.add_modifier(Modifier::BOLD),
            warning: plain.add_modifier(Modifier::BOLD),
            ok: plain,
            match_char: plain.add_modifier(Modifier::UNDERLINED | Modifier::BOLD),
            list_selected: plain.add_modifier(Modifier::REVERSED),
            added: plain,
            removed: plain,
            added_emphasis: plain.add_modifier(Modifier::UNDERLINED | Modifier::BOLD),
            removed_emphasis: plain.add_modifier(Modifier::UNDERLINED | Modifier::BOLD),
            hunk: plain.add_modifier(Modifier::DIM),
            stale: plain.add_modifier(Modifier::REVERSED | Modifier::BOLD),
        }
    }

    /// The style of a syntax class (nothing in monochrome, except comments dimmed).
    pub fn syntax(&self, highlight: Highlight) -> Style {
        let plain = Style::default();
        if !self.color {
            return match highlight {
                Highlight::Comment => plain.add_modifier(Modifier::DIM),
                Highlight::Keyword => plain.add_modifier(Modifier::BOLD),
                _ => plain,
            };
        }
        match highlight {
            Highlight::Keyword => plain.fg(Color::Magenta),
            Highlight::String => plain.fg(Color::Green),
            Highlight::Comment => plain.fg(Color::DarkGray).add_modifier(Modifier::ITALIC),
            Highlight::Number | Highlight::Constant => plain.fg(Color::LightRed),
            Highlight::Function => plain.fg(Color::Blue),
            Highlight::Type => plain.fg(Color::Yellow),
            Highlight::Attribute => plain.fg(Color::Cyan),
            Highlight::Property => plain.fg(Color::LightCyan),
            Highlight::Operator | Highlight::Punctuation => plain.fg(Color::Gray),
            Highlight::Variable => plain,
        }
    }

    /// The colour of the confidence gauge: green from 0.85, yellow from 0.6, red below.
    pub fn confidence(&self, confidence: f64) -> Style {
        if !self.color {
            return Style::default().add_modifier(Modifier::BOLD);
        }
        let color = if confidence >= 0.85 {
            Color::Green
        } else if confidence >= 0.6 {
            Color::Yellow
        } else {
            Color::Red
        };
        Style::default().fg(color)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_color_means_set_and_not_empty() {
        assert!(Theme::no_color_requested(Some(std::ffi::OsStr::new("1"))));
        assert!(!Theme::no_color_requested(Some(std::ffi::OsStr::new(""))));
        assert!(!Theme::no_color_requested(None));
        let mono = Theme::new(true);
        for style in [
            mono.added,
            mono.removed,
            mono.selection,
            mono.error,
            mono.syntax(Highlight::String),
        ] {
            assert_eq!((style.fg, style.bg), (None, None));
        }
        assert_ne!(
            mono.selection,
            Style::default(),
            "a selection stays visible without colour"
        );
    }
}
