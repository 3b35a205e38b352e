//! The questions over the screen: trusting the project (what that lets candor run, before the
//! user says yes), stopping to trust it, and closing a preview that took long to compute.

use ratatui::Frame;
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::tui::keymap::{Command, Context};
use crate::tui::layout;
use crate::tui::state::{Question, State};

/// What trusting a project lets candor run, one line each (`T` shows them before asking).
pub const TRUST_ALLOWS: [&str; 4] = [
    "cargo check of the result: the crate's build scripts (build.rs) and proc macros run",
    "its toolchain (rust-toolchain.toml) and .cargo/config.toml, for rust-analyzer and cargo",
    "the language servers and the interpreter its .candor/config.toml names, and its .venv/bin/python for rope",
    "its tests, when you ask for them",
];

/// The title, the text and the answers of `question`.
pub fn words(state: &State, question: &Question) -> (String, Vec<String>, String) {
    let keys = &state.keymap;
    let yes = keys.hint(Context::Ask, Command::Yes);
    let no = keys.hint(Context::Ask, Command::No);
    let project = &state.project_name;
    match question {
        Question::Trust { trust: true } => {
            let mut text = vec![
                format!("{project} is not trusted: candor runs nothing it controls."),
                "Trusting it lets candor run, for this project:".to_string(),
            ];
            text.extend(TRUST_ALLOWS.iter().map(|l| format!("• {l}")));
            text.push(
                "Trust only a project you would build and run yourself. A change of its .candor/config.toml takes the trust back; `candor trust --revoke DIR` or T here ends it."
                    .to_string(),
            );
            (
                " Trust this project? ".to_string(),
                text,
                format!("{yes} trust it · {no} no"),
            )
        }
        Question::Trust { trust: false } => {
            let mut text = vec![format!(
                "{project} is trusted. Stop trusting it? candor will no longer run:"
            )];
            text.extend(TRUST_ALLOWS.iter().map(|l| format!("• {l}")));
            (
                " Stop trusting this project? ".to_string(),
                text,
                format!("{yes} stop trusting it · {no} keep it"),
            )
        }
        Question::Discard { secs } => (
            " Close this preview? ".to_string(),
            vec![format!(
                "It took {secs} s to compute. Closing throws it away (nothing was written); computing it again takes as long."
            )],
            format!("{yes} close it · {no} keep it"),
        ),
    }
}

pub fn render(state: &State, question: &Question, frame: &mut Frame) {
    let t = &state.theme;
    let (title, text, answers) = words(state, question);
    let body = layout::frame(state.size).body;
    let width = body.width.saturating_sub(4).min(84);
    let inner = width.saturating_sub(2) as usize;
    let mut lines: Vec<Line> = Vec::new();
    for paragraph in &text {
        let (first, rest) = match paragraph.strip_prefix("• ") {
            Some(item) => (item, "  "),
            None => (paragraph.as_str(), ""),
        };
        for (i, piece) in super::wrap(first, inner.saturating_sub(rest.len()))
            .into_iter()
            .enumerate()
        {
            let lead = match (i, rest.is_empty()) {
                (_, true) => "",
                (0, false) => "• ",
                _ => rest,
            };
            lines.push(Line::from(format!("{lead}{piece}")));
        }
    }
    lines.push(Line::from(""));
    lines.push(Line::from(Span::styled(
        answers,
        t.warning.add_modifier(Modifier::BOLD),
    )));
    let height = (lines.len() as u16 + 2).min(body.height);
    let area = layout::popup(state.size, width, height);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.warning)
        .title(Span::styled(title, t.warning));
    frame.render_widget(Paragraph::new(lines).block(block), area);
}
