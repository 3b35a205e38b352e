//! A Rust function body read as code to paste elsewhere: its statements, how it exits (`return`,
//! `?`, macros that may return), the value it ends with, and the places that depend on where it
//! stands (`self`, `Self`, multi-line strings, field accesses).

use std::ops::Range;

use tree_sitter::Node;

use crate::lang::{node_text, walk_node};

/// Nodes with their own `return`/`?` target: what happens inside does not leave the body.
const OWN_EXIT: &[&str] = &[
    "closure_expression",
    "function_item",
    "async_block",
    "impl_item",
    "trait_item",
    "mod_item",
];

/// A `return` that ends the body: `return v;` (or `return v` as its last expression).
#[derive(Debug, Clone, Copy)]
pub struct FinalReturn<'t> {
    pub ret: Node<'t>,
    /// The statement holding it (the `return` itself when it has no `;`).
    pub statement: Node<'t>,
    pub value: Option<Node<'t>>,
}

/// The statements of a body and its `return`s.
#[derive(Debug, Clone)]
pub struct Body<'t> {
    pub block: Node<'t>,
    /// Every statement, comments included.
    pub statements: Vec<Node<'t>>,
    /// The statements without comments.
    pub code: Vec<Node<'t>>,
    /// Every `return` that leaves this function (not a closure's or a nested item's).
    pub returns: Vec<Node<'t>>,
    pub final_return: Option<FinalReturn<'t>>,
}

impl<'t> Body<'t> {
    pub fn read(block: Node<'t>) -> Body<'t> {
        let statements: Vec<Node<'t>> = block.named_children(&mut block.walk()).collect();
        let code: Vec<Node<'t>> = statements
            .iter()
            .copied()
            .filter(|s| !s.kind().ends_with("comment"))
            .collect();
        let mut returns: Vec<Node<'t>> = Vec::new();
        walk_node(block, |n| {
            if n.kind() == "return_expression" {
                returns.push(n);
            }
            n.id() == block.id() || !OWN_EXIT.contains(&n.kind())
        });
        let final_return = code.last().and_then(|last| match last.kind() {
            "return_expression" => Some((*last, *last)),
            "expression_statement" => last
                .named_child(0)
                .filter(|c| c.kind() == "return_expression")
                .map(|r| (r, *last)),
            _ => None,
        });
        Body {
            block,
            final_return: final_return.map(|(ret, statement)| FinalReturn {
                ret,
                statement,
                value: ret.named_child(0),
            }),
            statements,
            code,
            returns,
        }
    }

    /// The first `return` that is not the final one.
    pub fn early_return(&self) -> Option<Node<'t>> {
        self.returns
            .iter()
            .copied()
            .find(|r| self.final_return.is_none_or(|f| f.ret.id() != r.id()))
    }

    /// The value of a body that is one expression (or one `return expr;`).
    pub fn single_value(&self) -> Option<Node<'t>> {
        let [only] = self.statements.as_slice() else {
            return None;
        };
        match only.kind() {
            "expression_statement" | "return_expression" => self
                .final_return
                .filter(|f| f.statement.id() == only.id())
                .and_then(|f| f.value),
            "let_declaration" | "empty_statement" => None,
            k if k.ends_with("_item") || k.ends_with("comment") => None,
            _ => Some(*only),
        }
    }

    /// The value the body ends with: what the final `return` returns, or its tail expression.
    pub fn tail_value(&self, text: &str) -> Option<Node<'t>> {
        match self.final_return {
            Some(f) => f.value,
            None => self.code.last().copied().and_then(|last| {
                let open = !node_text(last, text).trim_end().ends_with(';');
                match last.kind() {
                    "let_declaration" | "empty_statement" | "macro_invocation" => None,
                    k if k.ends_with("_item") => None,
                    "expression_statement" => last.named_child(0).filter(|_| open),
                    _ => Some(last),
                }
            }),
        }
    }
}

/// How a body may leave the function other than by its end.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// `?` (line).
    Try { line: usize },
    /// A macro call (line); `returns_inside` when its tokens hold `return` or `?`.
    Macro {
        name: String,
        line: usize,
        returns_inside: bool,
    },
}

/// The `?` and macro calls of a body, in document order (closures and nested items left out).
pub fn exits(block: Node<'_>, text: &str) -> Vec<Exit> {
    let mut found = Vec::new();
    walk_node(block, |n| {
        if n.id() != block.id() && OWN_EXIT.contains(&n.kind()) {
            return false;
        }
        let line = n.start_position().row + 1;
        match n.kind() {
            "try_expression" => found.push(Exit::Try { line }),
            "macro_invocation" => {
                let name = n
                    .child_by_field_name("macro")
                    .map(|m| node_text(m, text))
                    .unwrap_or("");
                let returns_inside = n.child_by_field_name("macro").is_some() && {
                    let mut found = false;
                    walk_node(n, |t| {
                        if matches!(t.kind(), "return" | "?") {
                            found = true;
                        }
                        !found
                    });
                    found
                };
                found.push(Exit::Macro {
                    name: name.to_string(),
                    line,
                    returns_inside,
                });
            }
            _ => {}
        }
        true
    });
    found
}

/// The places of a body that depend on where it stands.
#[derive(Debug, Clone, Default)]
pub struct Marks {
    /// `self`, the receiver.
    pub self_ranges: Vec<Range<usize>>,
    /// `Self`, the impl's type.
    pub self_type_ranges: Vec<Range<usize>>,
    /// Multi-line string literals (their inner lines are content).
    pub multiline_strings: Vec<Range<usize>>,
    /// It reads fields or builds structs (privacy matters in another module).
    pub touches_fields: bool,
}

pub fn marks(block: Node<'_>, text: &str) -> Marks {
    let mut marks = Marks::default();
    walk_node(block, |n| {
        match n.kind() {
            "self" if super::names::is_receiver_self(n) => marks.self_ranges.push(n.byte_range()),
            "type_identifier" | "identifier" if node_text(n, text) == "Self" => {
                marks.self_type_ranges.push(n.byte_range())
            }
            "string_literal" | "raw_string_literal"
                if n.start_position().row != n.end_position().row =>
            {
                marks.multiline_strings.push(n.byte_range());
            }
            "field_expression" | "struct_expression" => marks.touches_fields = true,
            _ => {}
        }
        true
    });
    marks
}

/// Whether a type cannot be written at a call site: it names one of `generics` (the function's
/// own), holds `impl Trait`, or (with `lifetimes`) a lifetime.
pub fn type_unwritable(ty: Node<'_>, text: &str, generics: &[String], lifetimes: bool) -> bool {
    let mut unwritable = super::names::mentions_any(ty, text, generics).is_some();
    walk_node(ty, |n| {
        unwritable |= n.kind() == "abstract_type" || (lifetimes && n.kind() == "lifetime");
        true
    });
    unwritable
}
