//! What the TUI remembers between sessions, in the user's config folder
//! (`$XDG_CONFIG_HOME/candor/tui.toml`): how the preview splits the width between the diff and
//! the warning panel (`<` / `>` / `=`). Parsed and written here (pure); the runtime reads and
//! saves the file. The diff-only view (`Z`) is not remembered: a new preview always shows its
//! warning panel.

use serde::{Deserialize, Serialize};

use super::layout::Split;

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    preview: Preview,
}

#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct Preview {
    /// The warning panel's width in columns; absent: it follows the terminal's width.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    panel_width: Option<u16>,
}

/// The split remembered in `text` (the file's content).
pub fn parse(text: &str) -> Result<Split, String> {
    let file: File = toml::from_str(text).map_err(|e| e.to_string())?;
    Ok(Split {
        panel: file.preview.panel_width,
        zoom: false,
    })
}

/// The file's content remembering `split`.
pub fn format(split: Split) -> String {
    let file = File {
        preview: Preview {
            panel_width: split.panel,
        },
    };
    let body = toml::to_string(&file).unwrap_or_default();
    format!(
        "# Written by candor's terminal UI: what it remembers between sessions.\n# [preview] panel_width: the warning panel's width (< and > in a preview; = makes it follow\n# the terminal's width again, which removes it).\n\n{body}"
    )
}

/// `$XDG_CONFIG_HOME/candor/tui.toml`.
pub fn path() -> Option<std::path::PathBuf> {
    crate::config::user_config_dir().map(|dir| dir.join("tui.toml"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_round_trips_and_a_bad_file_is_named() {
        let split = Split {
            panel: Some(48),
            zoom: true,
        };
        let remembered = parse(&format(split)).unwrap();
        assert_eq!(remembered.panel, Some(48));
        assert!(!remembered.zoom, "the diff-only view is never remembered");
        assert_eq!(parse(&format(Split::default())).unwrap(), Split::default());
        assert_eq!(parse("").unwrap(), Split::default());
        assert!(
            parse("[preview]\npanel = 3\n")
                .unwrap_err()
                .contains("panel")
        );
    }
}
