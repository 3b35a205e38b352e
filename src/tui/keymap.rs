//! Key bindings as data: typed commands per screen context, the defaults embedded from
//! `assets/keymap.toml`, a user file on top, and the help text generated from them. Pure: the
//! caller reads the user file.

use std::collections::HashMap;
use std::fmt;

use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

/// The default bindings, shipped with the binary.
pub const DEFAULT_KEYMAP: &str = include_str!("../../assets/keymap.toml");

/// Where a key is interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Context {
    Global,
    Picker,
    Code,
    Outline,
    Form,
    Preview,
    Findings,
    Confirm,
    Help,
}

impl Context {
    pub const ALL: [Context; 9] = [
        Context::Global,
        Context::Picker,
        Context::Code,
        Context::Outline,
        Context::Form,
        Context::Preview,
        Context::Findings,
        Context::Confirm,
        Context::Help,
    ];

    /// The section name in the keymap file.
    pub fn name(self) -> &'static str {
        match self {
            Context::Global => "global",
            Context::Picker => "picker",
            Context::Code => "code",
            Context::Outline => "outline",
            Context::Form => "form",
            Context::Preview => "preview",
            Context::Findings => "findings",
            Context::Confirm => "confirm",
            Context::Help => "help",
        }
    }

    /// The heading of the section in the help screen.
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::Picker => "File picker (type to filter)",
            Context::Code => "Code view",
            Context::Outline => "Outline",
            Context::Form => "Refactor form (type in the input)",
            Context::Preview => "Preview and warning panel",
            Context::Findings => "Findings list (warning panel)",
            Context::Confirm => "Confirmation prompt",
            Context::Help => "Help",
        }
    }

    /// Whether plain characters are typed into an input here (so only named keys can be
    /// commands, and global character bindings do not apply).
    pub fn takes_text(self) -> bool {
        matches!(self, Context::Picker | Context::Form)
    }

    /// The commands of this context, in help order.
    pub fn commands(self) -> &'static [Command] {
        use Command::*;
        match self {
            Context::Global => &[Quit, Help],
            Context::Picker => &[Up, Down, PageUp, PageDown, Open, Back],
            Context::Code => &[
                Up,
                Down,
                PageUp,
                PageDown,
                Top,
                Bottom,
                SelectLines,
                ExtendUp,
                ExtendDown,
                ClearSelection,
                Extract,
                Inline,
                MoveToFile,
                ChangeSignature,
                Undo,
                Outline,
                OpenPicker,
                ReturnToPreview,
                Quit,
            ],
            Context::Outline => &[Up, Down, PageUp, PageDown, Top, Bottom, SelectSymbol, Back],
            Context::Form => &[Submit, Cancel, Complete],
            Context::Preview => &[
                Up,
                Down,
                PageUp,
                PageDown,
                Top,
                Bottom,
                NextHunk,
                PrevHunk,
                NextFile,
                PrevFile,
                ScrollLeft,
                ScrollRight,
                ToggleContext,
                FocusWarnings,
                Apply,
                Back,
            ],
            Context::Findings => &[Up, Down, Jump, Back],
            Context::Confirm => &[Yes, No],
            Context::Help => &[Up, Down, PageUp, PageDown, Back],
        }
    }

    fn from_name(name: &str) -> Option<Context> {
        Context::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    Quit,
    Help,
    Up,
    Down,
    PageUp,
    PageDown,
    Top,
    Bottom,
    Open,
    Back,
    SelectLines,
    ExtendUp,
    ExtendDown,
    ClearSelection,
    Extract,
    Inline,
    MoveToFile,
    ChangeSignature,
    Undo,
    Outline,
    OpenPicker,
    ReturnToPreview,
    SelectSymbol,
    Submit,
    Cancel,
    Complete,
    Apply,
    NextHunk,
    PrevHunk,
    NextFile,
    PrevFile,
    ScrollLeft,
    ScrollRight,
    ToggleContext,
    FocusWarnings,
    Jump,
    Yes,
    No,
}

impl Command {
    const ALL: [Command; 38] = [
        Command::Quit,
        Command::Help,
        Command::Up,
        Command::Down,
        Command::PageUp,
        Command::PageDown,
        Command::Top,
        Command::Bottom,
        Command::Open,
        Command::Back,
        Command::SelectLines,
        Command::ExtendUp,
        Command::ExtendDown,
        Command::ClearSelection,
        Command::Extract,
        Command::Inline,
        Command::MoveToFile,
        Command::ChangeSignature,
        Command::Undo,
        Command::Outline,
        Command::OpenPicker,
        Command::ReturnToPreview,
        Command::SelectSymbol,
        Command::Submit,
        Command::Cancel,
        Command::Complete,
        Command::Apply,
        Command::NextHunk,
        Command::PrevHunk,
        Command::NextFile,
        Command::PrevFile,
        Command::ScrollLeft,
        Command::ScrollRight,
        Command::ToggleContext,
        Command::FocusWarnings,
        Command::Jump,
        Command::Yes,
        Command::No,
    ];

    /// The name in the keymap file.
    pub fn name(self) -> &'static str {
        match self {
            Command::Quit => "quit",
            Command::Help => "help",
            Command::Up => "up",
            Command::Down => "down",
            Command::PageUp => "page_up",
            Command::PageDown => "page_down",
            Command::Top => "top",
            Command::Bottom => "bottom",
            Command::Open => "open",
            Command::Back => "back",
            Command::SelectLines => "select_lines",
            Command::ExtendUp => "extend_up",
            Command::ExtendDown => "extend_down",
            Command::ClearSelection => "clear_selection",
            Command::Extract => "extract",
            Command::Inline => "inline",
            Command::MoveToFile => "move_to_file",
            Command::ChangeSignature => "change_signature",
            Command::Undo => "undo",
            Command::Outline => "outline",
            Command::OpenPicker => "open_picker",
            Command::ReturnToPreview => "return_to_preview",
            Command::SelectSymbol => "select_symbol",
            Command::Submit => "submit",
            Command::Cancel => "cancel",
            Command::Complete => "complete",
            Command::Apply => "apply",
            Command::NextHunk => "next_hunk",
            Command::PrevHunk => "prev_hunk",
            Command::NextFile => "next_file",
            Command::PrevFile => "prev_file",
            Command::ScrollLeft => "scroll_left",
            Command::ScrollRight => "scroll_right",
            Command::ToggleContext => "toggle_context",
            Command::FocusWarnings => "focus_warnings",
            Command::Jump => "jump",
            Command::Yes => "yes",
            Command::No => "no",
        }
    }

    fn from_name(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.name() == name)
    }

    /// What the command does in `context`, for the help screen.
    pub fn description(self, context: Context) -> &'static str {
        use Command::*;
        match (context, self) {
            (_, Quit) => "quit candor",
            (_, Help) => "show this help",
            (Context::Help, Up) | (Context::Help, Down) => "scroll",
            (Context::Preview, Up) => "scroll the diff up",
            (Context::Preview, Down) => "scroll the diff down",
            (Context::Findings, Up) => "previous finding",
            (Context::Findings, Down) => "next finding",
            (Context::Picker, Up) => "previous file",
            (Context::Picker, Down) => "next file",
            (Context::Outline, Up) => "previous symbol",
            (Context::Outline, Down) => "next symbol",
            (_, Up) => "cursor up",
            (_, Down) => "cursor down",
            (_, PageUp) => "page up",
            (_, PageDown) => "page down",
            (_, Top) => "go to the top",
            (_, Bottom) => "go to the bottom",
            (_, Open) => "open the file",
            (Context::Picker, Back) => "back to the code view",
            (Context::Outline, Back) => "close the outline",
            (Context::Preview, Back) => "cancel: back to the code view, nothing is written",
            (Context::Findings, Back) => "back to the diff",
            (Context::Help, Back) => "close the help",
            (_, Back) => "back",
            (_, SelectLines) => "start or end a line selection at the cursor",
            (_, ExtendUp) => "extend the selection up",
            (_, ExtendDown) => "extend the selection down",
            (_, ClearSelection) => "clear the selection",
            (_, Extract) => "extract the selected lines into a new function",
            (_, Inline) => "inline the selected function (or the one at the cursor)",
            (_, MoveToFile) => "move the selected top-level item to another file",
            (_, ChangeSignature) => "change the parameter list of the selected function",
            (_, Undo) => "undo the last refactor candor wrote",
            (_, Outline) => "outline: jump to and select a symbol",
            (_, OpenPicker) => "open another file",
            (_, ReturnToPreview) => "return to the pending preview",
            (_, SelectSymbol) => "jump to the symbol and select it",
            (_, Submit) => "compute the preview",
            (_, Cancel) => "cancel",
            (_, Complete) => "complete the path",
            (_, Apply) => "apply: write the previewed change (asks again for heuristic results)",
            (_, NextHunk) => "next hunk",
            (_, PrevHunk) => "previous hunk",
            (_, NextFile) => "next changed file",
            (_, PrevFile) => "previous changed file",
            (_, ScrollLeft) => "scroll left",
            (_, ScrollRight) => "scroll right",
            (_, ToggleContext) => "show the whole file / only the changes",
            (_, FocusWarnings) => "select findings in the warning panel",
            (_, Jump) => "jump to the finding's line",
            (_, Yes) => "yes, apply",
            (_, No) => "no, go back",
        }
    }
}

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

/// The bindings in effect.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    /// (context, command) → keys, in the order they were given.
    keys: HashMap<(Context, Command), Vec<Key>>,
    lookup: HashMap<(Context, Key), Command>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{source_name}: {message}")]
pub struct KeymapError {
    pub source_name: String,
    pub message: String,
}

impl Keymap {
    /// The defaults of `assets/keymap.toml`.
    pub fn default_keymap() -> Keymap {
        Keymap::from_sources(&[("assets/keymap.toml", DEFAULT_KEYMAP)])
            .expect("the embedded default keymap is valid (tested)")
    }

    /// The defaults with `user` (the text of the user's keymap file) on top.
    pub fn with_user_file(name: &str, user: &str) -> Result<Keymap, KeymapError> {
        Keymap::from_sources(&[("assets/keymap.toml", DEFAULT_KEYMAP), (name, user)])
    }

    /// Layers keymap files, later ones replacing the keys of the commands they list.
    fn from_sources(sources: &[(&str, &str)]) -> Result<Keymap, KeymapError> {
        let mut keys: HashMap<(Context, Command), Vec<Key>> = HashMap::new();
        for (name, text) in sources {
            let error = |message: String| KeymapError {
                source_name: name.to_string(),
                message,
            };
            let table: toml::Table = toml::from_str(text).map_err(|e| error(e.to_string()))?;
            for (section, value) in &table {
                let context = Context::from_name(section).ok_or_else(|| {
                    error(format!(
                        "unknown section [{section}]; the sections are {}",
                        Context::ALL
                            .iter()
                            .map(|c| c.name())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ))
                })?;
                let toml::Value::Table(bindings) = value else {
                    return Err(error(format!(
                        "[{section}] must be a table of command = [\"key\", …]"
                    )));
                };
                for (command_name, keys_value) in bindings {
                    let command = Command::from_name(command_name)
                        .filter(|c| context.commands().contains(c))
                        .ok_or_else(|| {
                            error(format!(
                                "[{section}] has no command `{command_name}`; its commands are {}",
                                context
                                    .commands()
                                    .iter()
                                    .map(|c| c.name())
                                    .collect::<Vec<_>>()
                                    .join(", ")
                            ))
                        })?;
                    let list: Vec<&str> = match keys_value {
                        toml::Value::String(s) => vec![s.as_str()],
                        toml::Value::Array(items) => items
                            .iter()
                            .map(|v| {
                                v.as_str().ok_or_else(|| {
                                    error(format!("[{section}] {command_name}: every key must be a string like \"ctrl-d\""))
                                })
                            })
                            .collect::<Result<_, _>>()?,
                        _ => {
                            return Err(error(format!(
                                "[{section}] {command_name} must be a list of keys like [\"e\", \"ctrl-e\"]"
                            )));
                        }
                    };
                    let parsed = list
                        .iter()
                        .map(|k| {
                            Key::parse(k)
                                .map_err(|m| error(format!("[{section}] {command_name}: {m}")))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    keys.insert((context, command), parsed);
                }
            }
        }
        let mut lookup = HashMap::new();
        for context in Context::ALL {
            for command in context.commands() {
                for key in keys.get(&(context, *command)).into_iter().flatten() {
                    if let Some(other) = lookup.insert((context, *key), *command)
                        && other != *command
                    {
                        return Err(KeymapError {
                            source_name: sources
                                .last()
                                .map(|s| s.0)
                                .unwrap_or("keymap")
                                .to_string(),
                            message: format!(
                                "[{}] binds `{key}` to both `{}` and `{}`; give each key one command",
                                context.name(),
                                other.name(),
                                command.name()
                            ),
                        });
                    }
                }
            }
        }
        Ok(Keymap { keys, lookup })
    }

    /// The command of `key` in `context`, falling back to the global bindings (except plain
    /// characters where the context types text).
    pub fn command(&self, context: Context, key: Key) -> Option<Command> {
        if let Some(command) = self.lookup.get(&(context, key)) {
            return Some(*command);
        }
        if context.takes_text() && key.is_plain_char() {
            return None;
        }
        self.lookup.get(&(Context::Global, key)).copied()
    }

    /// The keys of a command, as shown to the user (`"e"`, `"ctrl-d"`).
    pub fn keys_of(&self, context: Context, command: Command) -> Vec<String> {
        self.keys
            .get(&(context, command))
            .map(|keys| keys.iter().map(Key::to_string).collect())
            .unwrap_or_default()
    }

    /// The first key of a command, for hints in the status line (`"?"` when unbound).
    pub fn hint(&self, context: Context, command: Command) -> String {
        self.keys_of(context, command)
            .into_iter()
            .next()
            .unwrap_or_else(|| "(unbound)".to_string())
    }

    /// The first key of a command that works in `context` (in a context that takes text, a
    /// plain character would be typed, so the first named key is shown).
    pub fn hint_in(&self, context: Context, from: Context, command: Command) -> String {
        let keys = self.keys.get(&(from, command)).cloned().unwrap_or_default();
        keys.iter()
            .find(|k| !(context.takes_text() && k.is_plain_char()))
            .map(Key::to_string)
            .unwrap_or_else(|| "(unbound)".to_string())
    }

    /// The help screen: one section per context, each line the keys and what they do.
    pub fn help_sections(&self) -> Vec<HelpSection> {
        Context::ALL
            .iter()
            .map(|&context| HelpSection {
                title: context.title(),
                entries: context
                    .commands()
                    .iter()
                    .filter_map(|&command| {
                        let keys = self.keys_of(context, command);
                        (!keys.is_empty()).then(|| (keys.join(" "), command.description(context)))
                    })
                    .collect(),
            })
            .collect()
    }
}

impl Keymap {
    /// The keys as a Markdown table (the README's key table is this, checked by a test).
    pub fn markdown_table(&self) -> String {
        let mut table = String::from("| where | keys | what |\n|---|---|---|\n");
        for section in self.help_sections() {
            let title = section.title.split(" (").next().unwrap_or(section.title);
            for (keys, description) in section.entries {
                let keys: Vec<String> = keys.split(' ').map(|k| format!("`{k}`")).collect();
                table.push_str(&format!(
                    "| {title} | {} | {description} |\n",
                    keys.join(" ")
                ));
            }
        }
        table
    }
}

/// One section of the generated help.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HelpSection {
    pub title: &'static str,
    /// (keys, description)
    pub entries: Vec<(String, &'static str)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(text: &str) -> Key {
        Key::parse(text).unwrap()
    }

    #[test]
    fn default_keymap_binds_every_command_of_every_context() {
        let keymap = Keymap::default_keymap();
        for context in Context::ALL {
            for command in context.commands() {
                assert!(
                    !keymap.keys_of(context, *command).is_empty(),
                    "[{}] {} has no key",
                    context.name(),
                    command.name()
                );
            }
        }
        assert_eq!(
            keymap.command(Context::Code, key("e")),
            Some(Command::Extract)
        );
        assert_eq!(keymap.command(Context::Code, key("?")), Some(Command::Help));
        assert_eq!(
            keymap.command(Context::Picker, key("?")),
            None,
            "typed into the query"
        );
        assert_eq!(
            keymap.command(Context::Picker, key("f1")),
            Some(Command::Help)
        );
        assert_eq!(
            keymap.command(Context::Form, key("ctrl-c")),
            Some(Command::Quit)
        );
        assert_eq!(keymap.command(Context::Help, key("?")), Some(Command::Back));
    }

    #[test]
    fn keys_parse_and_normalise_like_terminal_events() {
        assert_eq!(key("V"), Key::new(KeyCode::Char('V'), KeyModifiers::SHIFT));
        assert_eq!(
            key("ctrl-D"),
            Key::new(KeyCode::Char('d'), KeyModifiers::CONTROL)
        );
        assert_eq!(
            key("shift-tab"),
            Key::new(KeyCode::BackTab, KeyModifiers::NONE)
        );
        assert_eq!(key("backtab"), key("shift-tab"));
        assert_eq!(key("-"), Key::new(KeyCode::Char('-'), KeyModifiers::NONE));
        assert_eq!(key("f5").code, KeyCode::F(5));
        assert_eq!(key("shift-down").to_string(), "shift-down");
        assert!(Key::parse("f13").is_err());
        assert!(Key::parse("banana").unwrap_err().contains("banana"));
    }

    #[test]
    fn user_file_replaces_only_the_commands_it_lists() {
        let keymap =
            Keymap::with_user_file("user.toml", "[code]\nextract = [\"x\", \"ctrl-e\"]\n").unwrap();
        assert_eq!(
            keymap.command(Context::Code, key("x")),
            Some(Command::Extract)
        );
        assert_eq!(keymap.command(Context::Code, key("e")), None);
        assert_eq!(
            keymap.command(Context::Code, key("i")),
            Some(Command::Inline)
        );
        assert_eq!(
            keymap.keys_of(Context::Code, Command::Extract),
            vec!["x", "ctrl-e"]
        );
        let help = keymap.help_sections();
        let code = help.iter().find(|s| s.title == "Code view").unwrap();
        assert!(
            code.entries
                .iter()
                .any(|(k, d)| k == "x ctrl-e" && d.starts_with("extract"))
        );
    }

    #[test]
    fn bad_user_files_say_what_is_wrong() {
        let err = Keymap::with_user_file("user.toml", "[code]\nexplode = [\"x\"]\n").unwrap_err();
        assert!(err.to_string().contains("user.toml") && err.message.contains("explode"));
        let err = Keymap::with_user_file("user.toml", "[nowhere]\n").unwrap_err();
        assert!(err.message.contains("nowhere"));
        let err = Keymap::with_user_file("user.toml", "[code]\nextract = [\"i\"]\n").unwrap_err();
        assert!(err.message.contains("both"), "{err}");
        let err =
            Keymap::with_user_file("user.toml", "[code]\nextract = [\"hyper-x\"]\n").unwrap_err();
        assert!(err.message.contains("hyper-x"));
        assert!(Keymap::with_user_file("user.toml", "not toml [").is_err());
    }
}
