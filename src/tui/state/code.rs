//! The open file in the code view: the document, the cursor (line and column), the horizontal
//! scroll, the selection, what the cursor is on, the outline and its filter, the go-to-line and
//! search prompts.

use ratatui_textarea::TextArea;

use crate::tui::aim::Aim;
use crate::tui::document::Document;
pub use crate::tui::document::symbol_label;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CodeFocus {
    Code,
    Outline,
}

/// What the user selected in the code view.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Selection {
    /// 0-based lines from `anchor` to `head` (either order).
    Lines { anchor: usize, head: usize },
    /// An outline symbol, by index.
    Symbol(usize),
}

/// What a prompt of the code view asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PromptKind {
    /// `:52`
    GotoLine,
    /// `/text`, searched as it is typed.
    Search,
}

/// The one-line prompt at the bottom of the code view, and where the cursor was when it opened
/// (Esc goes back there).
#[derive(Debug)]
pub struct Prompt {
    pub kind: PromptKind,
    pub input: TextArea<'static>,
    pub origin: (usize, usize, usize),
}

/// The outline's filter: the symbols whose name matches what is typed, best first.
#[derive(Debug)]
pub struct OutlineFilter {
    pub input: TextArea<'static>,
    /// Indices into the document's symbols, in the order shown.
    pub matches: Vec<usize>,
}

/// The open file.
#[derive(Debug)]
pub struct CodeView {
    pub doc: Document,
    /// 0-based cursor line.
    pub cursor: usize,
    /// 0-based cursor column, in characters of the line (may be past its end).
    pub col: usize,
    /// First visible line.
    pub top: usize,
    /// First visible display column (horizontal scroll; tabs count 4).
    pub left: usize,
    pub selection: Option<Selection>,
    /// Whether cursor moves extend the line selection (after `v`).
    pub visual: bool,
    pub focus: CodeFocus,
    /// Index into `outline.matches` of the highlighted symbol.
    pub outline_cursor: usize,
    pub outline: OutlineFilter,
    /// The line where a mouse drag started.
    pub drag_from: Option<usize>,
    /// What the cursor is on (kept up to date as it moves).
    pub aim: Aim,
    pub prompt: Option<Prompt>,
    /// The last search, for `n` / `N`.
    pub search: Option<String>,
}

impl CodeView {
    pub fn new(doc: Document) -> CodeView {
        let matches = (0..doc.symbols.len()).collect();
        CodeView {
            doc,
            cursor: 0,
            col: 0,
            top: 0,
            left: 0,
            selection: None,
            visual: false,
            focus: CodeFocus::Code,
            outline_cursor: 0,
            outline: OutlineFilter {
                input: crate::tui::input::field("type to filter the symbols", ""),
                matches,
            },
            drag_from: None,
            aim: Aim::Around(None),
            prompt: None,
            search: None,
        }
    }

    /// The symbol highlighted in the outline.
    pub fn outline_symbol(&self) -> Option<usize> {
        self.outline.matches.get(self.outline_cursor).copied()
    }

    /// The selected lines, 0-based inclusive, in order.
    pub fn selected_lines(&self) -> Option<(usize, usize)> {
        match self.selection? {
            Selection::Lines { anchor, head } => Some((anchor.min(head), anchor.max(head))),
            Selection::Symbol(i) => {
                let s = self.doc.symbols.get(i)?;
                Some((s.first_line.saturating_sub(1), s.end_line.saturating_sub(1)))
            }
        }
    }

    /// What the status line says is selected: `lines 12–18`, `fn parse_header`.
    pub fn selection_label(&self) -> Option<String> {
        match self.selection? {
            Selection::Lines { anchor, head } => {
                let (a, b) = (anchor.min(head) + 1, anchor.max(head) + 1);
                Some(if a == b {
                    format!("line {a}")
                } else {
                    format!("lines {a}\u{2013}{b}")
                })
            }
            Selection::Symbol(i) => self.doc.symbols.get(i).map(|s| symbol_label(&self.doc, s)),
        }
    }
}

impl OutlineFilter {
    /// The symbols of `doc` matching the filter's text, best first (nucleo, smart case, on the
    /// name path so `Cart/add` is found by `cart add`); all of them in file order when empty.
    pub fn refilter(&mut self, doc: &Document) {
        use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
        use nucleo_matcher::{Config, Matcher, Utf32Str};
        let query = crate::tui::input::text(&self.input);
        if query.trim().is_empty() {
            self.matches = (0..doc.symbols.len()).collect();
            return;
        }
        let pattern = Pattern::parse(&query, CaseMatching::Smart, Normalization::Smart);
        let mut matcher = Matcher::new(Config::DEFAULT);
        let mut buffer = Vec::new();
        let mut scored: Vec<(u32, usize)> = doc
            .symbols
            .iter()
            .enumerate()
            .filter_map(|(i, s)| {
                pattern
                    .score(Utf32Str::new(&s.name_path, &mut buffer), &mut matcher)
                    .map(|score| (score, i))
            })
            .collect();
        scored.sort_by_key(|&(score, i)| (std::cmp::Reverse(score), i));
        self.matches = scored.into_iter().map(|(_, i)| i).collect();
    }
}
