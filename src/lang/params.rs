//! Parameter lists as written: one [`Param`] per entry (markers such as Python's `*` and `/`
//! included), the comments and attributes hanging on each, and the layout the author chose (one
//! line, one parameter per line, aligned, trailing comma). The languages read their own lists
//! (`rust::params`, `python::params`) through [`parse_list`]; change signature rewrites them and
//! the TUI's form parses what the user types with them. Pure.

use std::ops::Range;

use tree_sitter::Node;

use crate::text::indentation_at;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// `a`, `a: int = 1`, `mut a: i32`, `(x, y): (u8, u8)`.
    Regular,
    /// Python `*args`, Rust's C-variadic `...`.
    VarPositional,
    /// Python `**kwargs`.
    VarKeyword,
    /// Python's bare `*`: what follows is keyword-only.
    KeywordMarker,
    /// Python's `/`: what precedes is positional-only.
    PositionalMarker,
}

/// One entry of a parameter list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    pub kind: ParamKind,
    /// How `new_parameters` spells it: `a`, `*args`, `**kw`, `*`, `/`, `(x, y)`, `...`.
    pub spelled: String,
    /// The bound name (`a`, `args`); the pattern for a Rust pattern parameter; the marker itself.
    pub name: String,
    /// Rust `mut a`: the binding is mutable (kept when the parameter is kept).
    pub mutable: bool,
    pub ty: Option<String>,
    pub default: Option<String>,
    /// As written (old list) or as it will be written (new list), with its comments.
    pub item: Item,
    /// For a new parameter: the index in the old list of the parameter it continues.
    pub old: Option<usize>,
}

impl Param {
    pub fn has_default(&self) -> bool {
        self.default.is_some()
    }

    /// Whether the parameter binds a name a body can use (not a marker).
    pub fn binds(&self) -> bool {
        matches!(
            self.kind,
            ParamKind::Regular | ParamKind::VarPositional | ParamKind::VarKeyword
        ) && self.spelled != "..."
    }
}

/// The parameter list of the definition as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParamList {
    /// `self`, `&mut self`, `self: Box<Self>` in Rust; `self`/`cls` of a Python method.
    pub receiver: Option<Param>,
    pub params: Vec<Param>,
    pub layout: Layout,
    /// Comment lines after the last parameter.
    pub footer: Vec<Decoration>,
    /// The list with its parentheses.
    pub range: Range<usize>,
}

impl ParamList {
    /// The text of every entry (receiver first), without comments.
    pub fn entry_texts(&self) -> Vec<&str> {
        self.receiver
            .iter()
            .chain(&self.params)
            .map(|p| p.item.text.as_str())
            .collect()
    }
}

/// A comment or attribute written next to an item of the list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoration {
    pub text: String,
    /// A `//` or `#` comment: it ends its line, so something must break the line after it.
    pub line_comment: bool,
}

/// One item of a list with what hangs on it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Item {
    /// Comment or attribute lines above the item, each on its own line.
    pub leading: Vec<Decoration>,
    /// Comments or attributes on the item's own line, before it (kept with their spacing).
    pub prefix: String,
    /// The item itself (`a: i32`, `b=1`).
    pub text: String,
    /// A comment after the item on its last line (after the comma).
    pub trailing: Option<Decoration>,
    /// The blanks written before `trailing` (PEP 8 wants two spaces before `#`).
    pub trailing_gap: String,
}

impl Item {
    pub fn plain(text: impl Into<String>) -> Item {
        Item {
            text: text.into(),
            ..Item::default()
        }
    }
}

/// How the author laid the list out.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Layout {
    /// The first item starts on a line after the opening bracket.
    pub open_break: bool,
    /// Every item starts on its own line.
    pub separate_lines: bool,
    /// Leading whitespace of an item that starts its line.
    pub item_indent: String,
    /// The closing bracket sits on its own line.
    pub close_break: bool,
    pub close_indent: String,
    /// A comma after the last item.
    pub trailing_comma: bool,
}

/// A parameter list a user wrote (without its parentheses) that does not parse as one: the
/// 1-based column in the written text (after the opening parenthesis) and what is wrong there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokenList {
    pub column: usize,
    pub what: String,
}

/// A parameter a language could not read: its node kind, text, line and column (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreadable {
    pub kind: String,
    pub text: String,
    pub line: usize,
    pub column: usize,
}

impl Unreadable {
    pub fn of(node: Node<'_>, text: &str) -> Unreadable {
        Unreadable {
            kind: node.kind().to_string(),
            text: super::node_text(node, text).to_string(),
            line: node.start_position().row + 1,
            column: node.start_position().column + 1,
        }
    }
}

/// The items of a parsed list node, with the decorations attached to them.
#[derive(Debug, Clone)]
pub struct ParsedList<'t> {
    /// (item node, item with decorations) in order.
    pub items: Vec<(Node<'t>, Item)>,
    /// Comment lines after the last item, before the closing bracket.
    pub footer: Vec<Decoration>,
    pub layout: Layout,
}

/// What a non-item child of a list is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecorationKind {
    /// May trail the item before it on its line.
    Comment,
    /// Always belongs to the item after it (`#[cfg(x)] a: i32`).
    Attribute,
}

/// Splits the named children of `list` (a parenthesized list node) into items and the
/// decorations (`decoration_kind`) attached to them, and detects the layout.
pub fn parse_list<'t>(
    list: Node<'t>,
    text: &str,
    decoration_kind: impl Fn(Node<'_>) -> Option<DecorationKind>,
    is_line_comment: impl Fn(&str) -> bool,
) -> ParsedList<'t> {
    let mut parsed = ParsedList {
        items: Vec::new(),
        footer: Vec::new(),
        layout: Layout::default(),
    };
    // Decorations waiting for the next item: (end row, range).
    let mut pending: Vec<(usize, Range<usize>)> = Vec::new();
    // The last item's end row and the range of the decorations trailing it on that row.
    let mut last_item_end_row: Option<usize> = None;
    let mut trailing_range: Option<Range<usize>> = None;
    let decoration = |range: &Range<usize>| {
        // tree-sitter-rust keeps the `\r` of a CRLF line in a line comment.
        let body = text.get(range.clone()).unwrap_or("").trim_end().to_string();
        Decoration {
            line_comment: is_line_comment(&body),
            text: body,
        }
    };
    let mut cursor = list.walk();
    let children: Vec<Node<'t>> = list.named_children(&mut cursor).collect();
    for (index, &child) in children.iter().enumerate() {
        let range = child.byte_range();
        let row = child.start_position().row;
        if let Some(kind) = decoration_kind(child) {
            // A comment after an item on its line trails it, unless another item follows on
            // that line (`a, /* c */ b`): then it leads that item.
            let next_item_same_row = children[index + 1..]
                .iter()
                .find(|c| decoration_kind(**c).is_none())
                .is_some_and(|c| c.start_position().row == child.end_position().row);
            let trails = kind == DecorationKind::Comment
                && (is_line_comment(text.get(range.clone()).unwrap_or("")) || !next_item_same_row);
            let previous = parsed
                .items
                .last_mut()
                .filter(|_| trails && pending.is_empty() && last_item_end_row == Some(row));
            if let Some((_, item)) = previous {
                let whole = match trailing_range.take() {
                    Some(earlier) => earlier.start..range.end,
                    None => range.clone(),
                };
                let mut trailing = decoration(&whole);
                trailing.line_comment |= decoration(&range).line_comment;
                item.trailing = Some(trailing);
                let before = text.get(..whole.start).unwrap_or("");
                let blanks = before.len() - before.trim_end_matches([' ', '\t']).len();
                item.trailing_gap = before[before.len() - blanks..].to_string();
                trailing_range = Some(whole);
                continue;
            }
            pending.push((child.end_position().row, range));
            continue;
        }
        let mut item = Item {
            text: text.get(range.clone()).unwrap_or("").to_string(),
            ..Item::default()
        };
        // Decorations ending on the item's own line become its prefix; earlier ones its leading
        // lines, one line per source row.
        let (same_line, above): (Vec<_>, Vec<_>) =
            pending.drain(..).partition(|(end_row, _)| *end_row == row);
        let mut rows: Vec<(usize, Range<usize>)> = Vec::new();
        for (end_row, r) in above {
            match rows.last_mut() {
                Some((last_row, last)) if *last_row == end_row => last.end = r.end,
                _ => rows.push((end_row, r)),
            }
        }
        item.leading = rows.iter().map(|(_, r)| decoration(r)).collect();
        if let Some((_, first)) = same_line.first() {
            item.prefix = text.get(first.start..range.start).unwrap_or("").to_string();
        }
        last_item_end_row = Some(child.end_position().row);
        trailing_range = None;
        parsed.items.push((child, item));
    }
    parsed.footer = pending.iter().map(|(_, r)| decoration(r)).collect();
    let ranges: Vec<Range<usize>> = parsed.items.iter().map(|(n, _)| n.byte_range()).collect();
    parsed.layout = detect_layout(list, text, &ranges);
    parsed
}

fn detect_layout(list: Node<'_>, text: &str, items: &[Range<usize>]) -> Layout {
    // Whether `later` is on a later line than `earlier` (without counting lines from the top).
    let later_line = |later: usize, earlier: usize| {
        later > earlier && text.get(earlier..later).is_some_and(|s| s.contains('\n'))
    };
    let mut layout = Layout::default();
    let (Some(first), Some(last)) = (items.first(), items.last()) else {
        return layout;
    };
    let close = list.end_byte().saturating_sub(1);
    layout.open_break = later_line(first.start, list.start_byte());
    layout.separate_lines = if items.len() == 1 {
        layout.open_break
    } else {
        items
            .windows(2)
            .all(|pair| later_line(pair[1].start, pair[0].end))
    };
    layout.item_indent = if layout.open_break {
        indentation_at(text, first.start).to_string()
    } else if layout.separate_lines {
        items
            .get(1)
            .map_or(String::new(), |r| indentation_at(text, r.start).to_string())
    } else {
        String::new()
    };
    layout.close_break = later_line(close, last.end) && only_whitespace_before(text, close);
    layout.close_indent = indentation_at(text, close).to_string();
    let mut cursor = list.walk();
    layout.trailing_comma = list
        .children(&mut cursor)
        .any(|c| !c.is_named() && c.kind() == "," && c.start_byte() >= last.end);
    layout
}

fn only_whitespace_before(text: &str, at: usize) -> bool {
    let line_start = text
        .get(..at)
        .and_then(|s| s.rfind('\n'))
        .map_or(0, |i| i + 1);
    text.get(line_start..at)
        .is_some_and(|s| s.chars().all(|c| c == ' ' || c == '\t'))
}

/// Whether `program` (one function whose list holds one parameter) parses cleanly and that
/// parameter (of node kind `kind`, when given) has `fragment`, whole, as its field `field`: the
/// test that a default or a type the user wrote is one expression or one type.
pub fn fills_one_parameter(
    lang: super::Language,
    program: &str,
    kind: Option<&str>,
    field: &str,
    fragment: &str,
) -> bool {
    let tree = lang.parse(program);
    let root = tree.root_node();
    super::syntax_errors(&tree, program).is_empty()
        && root.named_child_count() == 1
        && root
            .named_child(0)
            .and_then(|f| f.child_by_field_name("parameters"))
            .filter(|p| p.named_child_count() == 1)
            .and_then(|p| p.named_child(0))
            .filter(|p| kind.is_none_or(|kind| p.kind() == kind))
            .and_then(|p| p.child_by_field_name(field))
            .is_some_and(|v| super::node_text(v, program) == fragment)
}

/// The first parameter list of `text` as `lang` reads it (for tests).
#[cfg(test)]
pub fn first_list(lang: super::Language, text: &str, receiver: bool) -> ParamList {
    let tree = lang.parse(text);
    let mut params = None;
    super::walk_tree(&tree, |n| {
        if n.kind() == "parameters" && params.is_none() {
            params = Some(n);
        }
        params.is_none()
    });
    let list = params.expect("a parameter list");
    lang.syntax()
        .parameter_list(list, text, receiver)
        .expect("a readable list")
}

/// Reads a parameter list a user wrote: `wrapped` is a one-function program holding it at
/// column `at` (after `(`), `read` reads its list, `explain` says why an item is no parameter.
pub fn read_written(
    lang: super::Language,
    wrapped: &str,
    inner: &str,
    at: usize,
    read: impl Fn(Node<'_>, &str) -> Result<ParamList, Unreadable>,
    explain: impl Fn(&Unreadable) -> String,
) -> Result<ParamList, BrokenList> {
    let tree = lang.parse(wrapped);
    if let Some(error) = super::syntax_errors(&tree, wrapped).first() {
        let column = if error.line == 1 {
            error.column.saturating_sub(at)
        } else {
            error.column
        };
        return Err(BrokenList {
            column: column.max(1),
            what: error.description.clone(),
        });
    }
    let whole = format!("({inner})");
    let root = tree.root_node();
    let list = root
        .named_child(0)
        .filter(|_| root.named_child_count() == 1)
        .and_then(|function| function.child_by_field_name("parameters"));
    let Some(list) = list.filter(|l| super::node_text(*l, wrapped) == whole) else {
        return Err(BrokenList {
            column: 1,
            what: "it is not one parameter list".to_string(),
        });
    };
    read(list, wrapped).map_err(|unreadable| BrokenList {
        column: unreadable.column.saturating_sub(at).max(1),
        what: explain(&unreadable),
    })
}
