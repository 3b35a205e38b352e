//! Key bindings as data: typed commands per screen context, the defaults embedded from
//! `assets/keymap.toml`, a user file on top, and the help text generated from them. A binding
//! is one key or a sequence (`z h`). Pure: the caller reads the user file and keeps the keys of
//! a sequence pressed so far.

mod commands;
mod key;

use std::collections::{HashMap, HashSet};

pub use commands::{Command, Context};
pub use key::{Key, KeySeq};

/// The default bindings, shipped with the binary.
pub const DEFAULT_KEYMAP: &str = include_str!("../../../assets/keymap.toml");

/// What a key means, given the keys of a sequence pressed before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved {
    Command(Command),
    /// The start of a sequence (`z` of `z h`): wait for the next key.
    Pending,
    /// Not bound (in a text field, a plain character is then typed).
    Unbound,
}

/// The bindings in effect.
#[derive(Debug, Clone, PartialEq)]
pub struct Keymap {
    /// (context, command) → bindings, in the order they were given.
    keys: HashMap<(Context, Command), Vec<KeySeq>>,
    lookup: HashMap<(Context, KeySeq), Command>,
    /// The proper beginnings of every sequence, per context.
    prefixes: HashSet<(Context, KeySeq)>,
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
        let mut keys: HashMap<(Context, Command), Vec<KeySeq>> = HashMap::new();
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
                            KeySeq::parse(k)
                                .map_err(|m| error(format!("[{section}] {command_name}: {m}")))
                        })
                        .collect::<Result<Vec<_>, _>>()?;
                    keys.insert((context, command), parsed);
                }
            }
        }
        let last_source = sources.last().map(|s| s.0).unwrap_or("keymap").to_string();
        let conflict = |context: Context, message: String| KeymapError {
            source_name: last_source.clone(),
            message: format!("[{}] {message}", context.name()),
        };
        let mut lookup: HashMap<(Context, KeySeq), Command> = HashMap::new();
        let mut prefixes = HashSet::new();
        for context in Context::ALL {
            for command in context.commands() {
                for seq in keys.get(&(context, *command)).into_iter().flatten() {
                    if let Some(other) = lookup.insert((context, seq.clone()), *command)
                        && other != *command
                    {
                        return Err(conflict(
                            context,
                            format!(
                                "binds `{seq}` to both `{}` and `{}`; give each key one command",
                                other.name(),
                                command.name()
                            ),
                        ));
                    }
                    for end in 1..seq.0.len() {
                        prefixes.insert((context, KeySeq(seq.0[..end].to_vec())));
                    }
                }
            }
        }
        for (context, prefix) in &prefixes {
            if let Some(command) = lookup.get(&(*context, prefix.clone())) {
                return Err(conflict(
                    *context,
                    format!(
                        "binds `{prefix}` to `{}` and also starts a longer sequence with it; one of them could never be typed",
                        command.name()
                    ),
                ));
            }
        }
        Ok(Keymap {
            keys,
            lookup,
            prefixes,
        })
    }

    /// What `key` means in `context` after the keys `pending` of an unfinished sequence. The
    /// context's own bindings come first; in a text field, then the editing keys
    /// ([`Context::Input`]), and a plain character is typed; then the global bindings.
    pub fn resolve(&self, context: Context, pending: &[Key], key: Key) -> Resolved {
        let mut seq = pending.to_vec();
        seq.push(key);
        let seq = KeySeq(seq);
        if let Some(command) = self.lookup.get(&(context, seq.clone())) {
            return Resolved::Command(*command);
        }
        if self.prefixes.contains(&(context, seq.clone())) {
            return Resolved::Pending;
        }
        if !pending.is_empty() {
            // Not a sequence after all: the last key on its own.
            return self.resolve(context, &[], key);
        }
        if context.takes_text() {
            if let Some(command) = self.lookup.get(&(Context::Input, seq.clone())) {
                return Resolved::Command(*command);
            }
            if key.is_plain_char() {
                return Resolved::Unbound;
            }
        }
        match self.lookup.get(&(Context::Global, seq)) {
            Some(command) => Resolved::Command(*command),
            None => Resolved::Unbound,
        }
    }

    /// The command of a single `key` in `context` (no sequence pending).
    pub fn command(&self, context: Context, key: Key) -> Option<Command> {
        match self.resolve(context, &[], key) {
            Resolved::Command(command) => Some(command),
            _ => None,
        }
    }

    /// The keys of a command, as shown to the user (`"e"`, `"ctrl-d"`, `"z h"`).
    pub fn keys_of(&self, context: Context, command: Command) -> Vec<String> {
        self.keys
            .get(&(context, command))
            .map(|keys| keys.iter().map(KeySeq::to_string).collect())
            .unwrap_or_default()
    }

    /// The first key of a command, for hints in the status line (`"(unbound)"` when unbound).
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
            .map(KeySeq::to_string)
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
                        (!keys.is_empty()).then(|| (keys, command.description(context)))
                    })
                    .collect(),
            })
            .collect()
    }

    /// The line of the help screen where `context`'s section starts (`?` opens the help there):
    /// the sections as [`Keymap::help_sections`] lists them, empty ones left out, a blank line
    /// between two.
    pub fn help_line_of(&self, context: Context) -> usize {
        let mut line = 0;
        let mut first = true;
        for (section_context, section) in Context::ALL.iter().zip(self.help_sections()) {
            if section.entries.is_empty() {
                continue;
            }
            if !first {
                line += 1;
            }
            first = false;
            if *section_context == context {
                return line;
            }
            line += 1 + section.entries.len();
        }
        0
    }

    /// The keys as a Markdown table (the README's key table is this, checked by a test).
    pub fn markdown_table(&self) -> String {
        let mut table = String::from("| where | keys | what |\n|---|---|---|\n");
        for section in self.help_sections() {
            let title = section.title.split(" (").next().unwrap_or(section.title);
            for (keys, description) in section.entries {
                let keys: Vec<String> = keys.iter().map(|k| format!("`{k}`")).collect();
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
    /// (the bindings, what they do)
    pub entries: Vec<(Vec<String>, &'static str)>,
}

#[cfg(test)]
mod tests {
    use ratatui::crossterm::event::{KeyCode, KeyModifiers};

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
    fn text_fields_have_the_shell_editing_keys() {
        let keymap = Keymap::default_keymap();
        for context in [
            Context::Picker,
            Context::Form,
            Context::Outline,
            Context::Prompt,
        ] {
            for (text, command) in [
                ("ctrl-a", Command::LineStart),
                ("ctrl-e", Command::LineEnd),
                ("ctrl-u", Command::DeleteToStart),
                ("ctrl-k", Command::DeleteToEnd),
                ("ctrl-w", Command::DeleteWordBack),
                ("alt-b", Command::WordBack),
                ("alt-f", Command::WordForward),
                ("backspace", Command::DeleteBack),
            ] {
                assert_eq!(
                    keymap.command(context, key(text)),
                    Some(command),
                    "{text} in {}",
                    context.name()
                );
            }
        }
        // Not in the code view: there `e` extracts and ctrl-u pages up.
        assert_eq!(
            keymap.command(Context::Code, key("ctrl-u")),
            Some(Command::PageUp)
        );
        let help = keymap.help_sections();
        let input = help
            .iter()
            .find(|s| s.title.starts_with("Text fields"))
            .unwrap();
        assert!(
            input
                .entries
                .iter()
                .any(|(k, d)| k.contains(&"ctrl-u".to_string()) && d.contains("start")),
            "{input:?}"
        );
    }

    #[test]
    fn the_help_opens_at_the_section_of_the_screen_it_is_asked_from() {
        let keymap = Keymap::default_keymap();
        // The help screen's lines: a title per section, its entries, a blank line between.
        let mut lines: Vec<String> = Vec::new();
        for section in keymap.help_sections() {
            if section.entries.is_empty() {
                continue;
            }
            if !lines.is_empty() {
                lines.push(String::new());
            }
            lines.push(section.title.to_string());
            lines.extend(section.entries.iter().map(|(_, d)| d.to_string()));
        }
        for context in [
            Context::Code,
            Context::Preview,
            Context::Findings,
            Context::Form,
        ] {
            assert_eq!(
                lines[keymap.help_line_of(context)],
                context.title(),
                "{}",
                context.name()
            );
        }
        assert!(
            keymap.help_line_of(Context::Preview) > 40,
            "below the fold at 120×40"
        );
    }

    #[test]
    fn sequences_wait_for_their_second_key() {
        let keymap = Keymap::default_keymap();
        assert_eq!(
            keymap.resolve(Context::Code, &[], key("z")),
            Resolved::Pending
        );
        assert_eq!(
            keymap.resolve(Context::Code, &[key("z")], key("l")),
            Resolved::Command(Command::ScrollRight)
        );
        // Not a sequence after all: the key alone.
        assert_eq!(
            keymap.resolve(Context::Code, &[key("z")], key("j")),
            Resolved::Command(Command::Down)
        );
        assert!(
            keymap
                .keys_of(Context::Code, Command::ScrollRight)
                .contains(&"z l".to_string())
        );
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
        assert_eq!(KeySeq::parse("z h").unwrap().to_string(), "z h");
        assert!(KeySeq::parse(" ").is_err());
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
                .any(|(k, d)| k == &["x", "ctrl-e"] && d.starts_with("extract"))
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
        let err = Keymap::with_user_file("user.toml", "[code]\nextract = [\"x\", \"x y\"]\n")
            .unwrap_err();
        assert!(err.message.contains("longer sequence"), "{err}");
        assert!(Keymap::with_user_file("user.toml", "not toml [").is_err());
    }
}
