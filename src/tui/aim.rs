//! What `i`, `c` and `m` act on (`r` takes the word under the cursor, [`word_at`]): the function or item *named* under the code view's cursor (its
//! definition, or a call of it) when the cursor is on such a name, else the innermost one around
//! the cursor. Syntactic, through the `lang` outline and call search, like the refactors
//! themselves; a call is matched to a definition in the same file by its form (`f(…)` a
//! top-level function, `self.f(…)` a method of the enclosing class or impl, `Type::f(…)` a
//! method of `Type`). Pure.

use crate::lang::calls::{CallForm, find_mentions};
use crate::lang::node_text;
use crate::lang::symbols::{Symbol, SymbolKind};

use super::document::Document;

/// What the cursor is on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Aim {
    /// The name of a definition (index into the outline).
    Definition(usize),
    /// A call of a definition of this file.
    Call(usize),
    /// A call of a function not defined in this file (or not found in it).
    Elsewhere { name: String },
    /// Not on a call or definition name: the innermost symbol around the cursor, if any.
    Around(Option<usize>),
}

impl Aim {
    /// The symbol the aim names or sits in.
    pub fn symbol(&self) -> Option<usize> {
        match self {
            Aim::Definition(i) | Aim::Call(i) => Some(*i),
            Aim::Around(i) => *i,
            Aim::Elsewhere { .. } => None,
        }
    }

    /// Whether the cursor is on a name (a call or a definition).
    pub fn on_name(&self) -> bool {
        !matches!(self, Aim::Around(_))
    }
}

/// What the cursor at 0-based `line` and character `col` is on; `accept` says which symbols
/// count around the cursor (functions for inline, top-level items for move).
pub fn aim(doc: &Document, line: usize, col: usize, accept: impl Fn(&Symbol) -> bool) -> Aim {
    let around = || Aim::Around(doc.symbol_at(line, &accept));
    let Some(word) = word_at(doc, line, col) else {
        return around();
    };
    if let Some(i) = doc
        .symbols
        .iter()
        .position(|s| s.name_range.contains(&word.start) && s.kind != SymbolKind::Impl)
    {
        return Aim::Definition(i);
    }
    let name = &doc.text[word.clone()];
    let mentions = find_mentions(doc.language, &doc.tree, &doc.text, name);
    let Some(call) = mentions
        .calls
        .iter()
        .find(|c| c.name_range.contains(&word.start))
    else {
        return around();
    };
    let candidates: Vec<usize> = doc
        .symbols
        .iter()
        .enumerate()
        .filter(|(_, s)| s.name == name && s.kind.is_function())
        .map(|(i, _)| i)
        .collect();
    let container_named = |i: usize, owner: &str| {
        doc.symbols[i]
            .container
            .and_then(|c| doc.symbols.get(c))
            .is_some_and(|c| last_segment(&c.name) == owner)
    };
    let chosen = match &call.form {
        CallForm::Plain => candidates
            .iter()
            .copied()
            .find(|&i| doc.symbols[i].kind == SymbolKind::Function),
        CallForm::Method { receiver } => {
            let receiver = &doc.text[receiver.clone()];
            if matches!(receiver, "self" | "Self" | "cls") {
                // A method of the class or impl around the call.
                let at = word.start;
                candidates.iter().copied().find(|&i| {
                    doc.symbols[i]
                        .container
                        .and_then(|c| doc.symbols.get(c))
                        .is_some_and(|c| c.range.contains(&at))
                        || enclosing_container_named(doc, at, i)
                })
            } else {
                // `obj.f()`: which class `obj` is, is not known without types.
                None
            }
        }
        CallForm::Path { qualifier } => {
            let owner = last_segment(qualifier);
            candidates
                .iter()
                .copied()
                .find(|&i| container_named(i, owner))
                .or_else(|| {
                    // `module::f()` of a function of this file's module tree.
                    candidates
                        .iter()
                        .copied()
                        .find(|&i| doc.symbols[i].kind == SymbolKind::Function)
                })
        }
    };
    match chosen {
        Some(i) => Aim::Call(i),
        None => Aim::Elsewhere {
            name: node_text_of(doc, &call.name_range),
        },
    }
}

/// Whether symbol `i` is a method of an impl block (Rust) for the type whose impl holds `at`.
fn enclosing_container_named(doc: &Document, at: usize, i: usize) -> bool {
    let Some(owner) = doc.symbols[i].container.and_then(|c| doc.symbols.get(c)) else {
        return false;
    };
    doc.symbols
        .iter()
        .filter(|s| s.range.contains(&at) && s.kind == SymbolKind::Impl)
        .any(|s| last_segment(&s.name) == last_segment(&owner.name))
}

/// `Type` of `a::Type`, `impl Display for Type`.
fn last_segment(path: &str) -> &str {
    let path = path.rsplit(' ').next().unwrap_or(path);
    let path = path.split('<').next().unwrap_or(path);
    path.rsplit("::").next().unwrap_or(path)
}

fn node_text_of(doc: &Document, range: &std::ops::Range<usize>) -> String {
    doc.text.get(range.clone()).unwrap_or("").to_string()
}

/// The byte range of the identifier under character `col` of `line`, if the cursor is on one.
/// The byte range of the identifier at 0-based `line` and character `col`, when the tree agrees
/// it is one token.
pub fn word_at(doc: &Document, line: usize, col: usize) -> Option<std::ops::Range<usize>> {
    let range = doc.lines.get(line)?.clone();
    let text = &doc.text[range.clone()];
    let (at, c) = text.char_indices().nth(col)?;
    if !is_word_char(c) {
        return None;
    }
    let start = text[..at]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word_char(*c))
        .last()
        .map_or(at, |(i, _)| i);
    let end = text[at..]
        .char_indices()
        .find(|(_, c)| !is_word_char(*c))
        .map_or(text.len(), |(i, _)| at + i);
    let word = &text[start..end];
    if word.starts_with(|c: char| c.is_ascii_digit()) {
        return None;
    }
    // The tree agrees that this is one token (not part of a string it cannot see as words).
    let root = doc.tree.root_node();
    let node = root.descendant_for_byte_range(range.start + start, range.start + end)?;
    (node_text(node, &doc.text) == word).then_some(range.start + start..range.start + end)
}

fn is_word_char(c: char) -> bool {
    c == '_' || unicode_ident::is_xid_continue(c)
}

/// `def line_total`, `a call of fn line_total`, for the status line and titles.
pub fn describe(doc: &Document, aim: &Aim) -> Option<String> {
    let label = |i: usize| {
        doc.symbols
            .get(i)
            .map(|s| super::document::symbol_label(doc, s))
    };
    match aim {
        Aim::Definition(i) => label(*i),
        Aim::Call(i) => label(*i).map(|l| format!("a call of {l}")),
        Aim::Elsewhere { name } => Some(format!("a call of `{name}` (defined in another file)")),
        Aim::Around(Some(i)) => label(*i).map(|l| format!("in {l}")),
        Aim::Around(None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::SourceFile;

    const PY: &str = "from shop.money import format_cents\n\n\ndef line_total(item):\n    return item.price\n\n\ndef order_total(items):\n    return sum(line_total(i) for i in items) + format_cents(1)\n\n\nclass Cart:\n    def add(self, item):\n        self.check(item)\n\n    def check(self, item):\n        pass\n";

    const RS: &str = "struct Cart;\n\nimpl Cart {\n    fn check(&self) {}\n    fn add(&self) {\n        self.check();\n        Cart::check(self);\n    }\n}\n\nfn line_total() -> u64 {\n    1\n}\n\nfn order_total() -> u64 {\n    line_total() + other::far()\n}\n";

    fn doc(path: &str, text: &str) -> Document {
        Document::new(SourceFile::from_text(path, text)).unwrap()
    }

    fn label(doc: &Document, aim: &Aim) -> String {
        describe(doc, aim).unwrap_or_default()
    }

    fn col_of(doc: &Document, line: usize, needle: &str) -> usize {
        let text = doc.line(line);
        text[..text.find(needle).unwrap()].chars().count()
    }

    #[test]
    fn on_a_call_the_called_function_in_python() {
        let d = doc("shop/receipt.py", PY);
        let functions = |s: &Symbol| s.kind.is_function();
        // On `line_total(` inside order_total: the function called, not the one around it.
        let col = col_of(&d, 8, "line_total(") + 3;
        assert_eq!(
            label(&d, &aim(&d, 8, col, functions)),
            "a call of def line_total"
        );
        // On `sum`: a builtin, defined nowhere here.
        let col = col_of(&d, 8, "sum(");
        assert_eq!(
            aim(&d, 8, col, functions),
            Aim::Elsewhere {
                name: "sum".to_string()
            }
        );
        // On the definition's own name.
        let col = col_of(&d, 3, "line_total");
        assert_eq!(label(&d, &aim(&d, 3, col, functions)), "def line_total");
        // On `self.check(`: the method of this class.
        let col = col_of(&d, 13, "check");
        assert_eq!(
            label(&d, &aim(&d, 13, col, functions)),
            "a call of def check"
        );
        // Elsewhere on a line: the function around the cursor.
        let col = col_of(&d, 8, "return");
        let around = aim(&d, 8, col, functions);
        assert!(!around.on_name());
        assert_eq!(label(&d, &around), "in def order_total");
        // An imported function: not in this file.
        let col = col_of(&d, 8, "format_cents");
        assert!(matches!(aim(&d, 8, col, functions), Aim::Elsewhere { .. }));
    }

    #[test]
    fn on_a_call_the_called_function_in_rust() {
        let d = doc("src/lib.rs", RS);
        let functions = |s: &Symbol| s.kind.is_function();
        let col = col_of(&d, 15, "line_total");
        assert_eq!(
            label(&d, &aim(&d, 15, col, functions)),
            "a call of fn line_total"
        );
        let col = col_of(&d, 5, "check");
        let on_method = aim(&d, 5, col, functions);
        assert_eq!(
            d.symbols[on_method.symbol().unwrap()].name_path,
            "Cart/check"
        );
        let col = col_of(&d, 6, "check");
        assert_eq!(
            d.symbols[aim(&d, 6, col, functions).symbol().unwrap()].name_path,
            "Cart/check",
            "Cart::check(…) is the method of Cart"
        );
        let col = col_of(&d, 15, "far");
        assert!(matches!(aim(&d, 15, col, functions), Aim::Elsewhere { .. }));
        // Past the end of the line: around.
        assert_eq!(label(&d, &aim(&d, 15, 200, functions)), "in fn order_total");
    }
}
