//! The open file in the code view: the document, the cursor, the selection, the outline's
//! cursor.

use crate::tui::document::Document;

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

/// The open file.
#[derive(Debug, Clone, PartialEq)]
pub struct CodeView {
    pub doc: Document,
    /// 0-based cursor line.
    pub cursor: usize,
    /// First visible line.
    pub top: usize,
    pub selection: Option<Selection>,
    /// Whether cursor moves extend the line selection (after `v`).
    pub visual: bool,
    pub focus: CodeFocus,
    pub outline_cursor: usize,
    /// The line where a mouse drag started.
    pub drag_from: Option<usize>,
}

impl CodeView {
    pub fn new(doc: Document) -> CodeView {
        CodeView {
            doc,
            cursor: 0,
            top: 0,
            selection: None,
            visual: false,
            focus: CodeFocus::Code,
            outline_cursor: 0,
            drag_from: None,
        }
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

/// `fn parse_header`, `class Box`, `impl Display for Foo`.
pub fn symbol_label(doc: &Document, symbol: &crate::lang::symbols::Symbol) -> String {
    use crate::lang::symbols::SymbolKind;
    if symbol.kind == SymbolKind::Impl {
        symbol.name.clone()
    } else {
        format!("{} {}", symbol.kind.label(doc.language), symbol.name)
    }
}
