//! Rust expressions as places and shapes: whether an expression can replace another without
//! parentheses, whether a block pasted somewhere needs them, the statement a call is, and
//! whether a returned value takes its type from the declared return type.

use crate::lang::finder::Parents;
use tree_sitter::Node;

use crate::lang::{node_text, walk_node};

/// The shape of an expression, as far as pasting it somewhere is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape(String);

impl Shape {
    pub fn of(expression: Node<'_>) -> Shape {
        Shape(expression.kind().to_string())
    }

    /// It ends in a block (`if`, `match`, a block, a closure): pasted at the start of a
    /// statement it would parse as one.
    pub fn is_block_like(&self) -> bool {
        BLOCK_LIKE.contains(&self.0.as_str())
    }

    /// It binds tighter than any operator around it, and is not a struct literal (refused in
    /// conditions).
    pub fn is_plain_atom(&self) -> bool {
        ATOMIC.contains(&self.0.as_str()) && self.0 != "struct_expression"
    }
}

/// The expression statement `call` makes up alone, if any.
pub fn statement_of<'t>(call: Node<'t>, parents: Parents<'_, 't>) -> Option<Node<'t>> {
    parents.of(call).filter(|p| {
        p.kind() == "expression_statement" && p.named_child(0).is_some_and(|c| c.id() == call.id())
    })
}

/// Whether `node` is the value of a `let ... else`.
pub fn in_let_else(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| {
        p.kind() == "let_declaration" && p.child_by_field_name("alternative").is_some()
    })
}

/// The function or closure whose body holds `node`.
pub fn caller_of<'t>(node: Node<'t>, parents: Parents<'_, 't>) -> Option<Node<'t>> {
    let mut caller = parents.of(node);
    while let Some(n) = caller {
        if matches!(n.kind(), "function_item" | "closure_expression") {
            return Some(n);
        }
        caller = parents.of(n);
    }
    None
}

/// Expressions that end in a block: pasted bare at the start of a statement they would parse
/// as one, so they keep the `{ .. }` form.
const BLOCK_LIKE: &[&str] = &[
    "block",
    "if_expression",
    "match_expression",
    "loop_expression",
    "while_expression",
    "for_expression",
    "unsafe_block",
    "async_block",
    "const_block",
    "closure_expression",
];

/// Expressions that bind tighter than any operator around them (no parentheses needed).
const ATOMIC: &[&str] = &[
    "call_expression",
    "field_expression",
    "identifier",
    "scoped_identifier",
    "self",
    "integer_literal",
    "float_literal",
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "boolean_literal",
    "macro_invocation",
    "index_expression",
    "tuple_expression",
    "array_expression",
    "parenthesized_expression",
    "unit_expression",
    "generic_function",
    "struct_expression",
];

/// Whether an expression of `kind` can replace `call` without parentheses: an atom (but a
/// struct literal not in a condition, where `S { .. }` is refused), or anything in a slot
/// that delimits it (an argument, an element, a `let` value, a returned value).
pub fn expression_fits(call: Node<'_>, shape: &Shape) -> bool {
    let kind = shape.0.as_str();
    if kind == "struct_expression" {
        let mut current = call.parent();
        while let Some(n) = current {
            match n.kind() {
                "if_expression" | "while_expression" | "match_expression" | "for_expression"
                | "let_condition" => {
                    return false;
                }
                "block" | "function_item" => break,
                _ => {}
            }
            current = n.parent();
        }
        return true;
    }
    if ATOMIC.contains(&kind) {
        return true;
    }
    let Some(parent) = call.parent() else {
        return false;
    };
    match parent.kind() {
        "arguments" | "array_expression" | "tuple_expression" | "return_expression"
        | "field_initializer" => true,
        "let_declaration" => parent.child_by_field_name("alternative").is_none(),
        "expression_statement" => true,
        _ => false,
    }
}

/// Whether the block replacing `call` needs parentheses: at the very start of a statement, a
/// tail, a match arm or a closure body, `{ .. }.m()` or `{ .. } + 1` would parse as a block
/// statement; before a `let ... else`, `} else` is refused; right after `..`, in a `for`,
/// `if`, `while` or `match` header `0..{ .. } {` would end the range and take the block for the
/// body (parenthesized everywhere: the header is not always the direct parent).
pub fn needs_parentheses<'t>(call: Node<'t>, parents: Parents<'_, 't>) -> bool {
    let mut child = call;
    let mut current = parents.of(call);
    while let Some(node) = current {
        let leftmost_part =
            |whole: Node<'_>| whole.id() != call.id() && whole.start_byte() == call.start_byte();
        if node.kind() == "range_expression"
            && child.start_byte() > node.start_byte()
            && child.start_byte() == call.start_byte()
        {
            return true;
        }
        match node.kind() {
            "let_declaration" => {
                return node.child_by_field_name("alternative").is_some()
                    && node
                        .child_by_field_name("value")
                        .is_some_and(|v| v.end_byte() == call.end_byte());
            }
            "expression_statement" => return node.named_child(0).is_some_and(leftmost_part),
            "block" => return leftmost_part(child),
            "match_arm" => {
                return node
                    .child_by_field_name("value")
                    .is_some_and(|v| v.id() == child.id() && leftmost_part(v));
            }
            "closure_expression" => {
                return node
                    .child_by_field_name("body")
                    .is_some_and(|b| b.id() == child.id() && leftmost_part(b));
            }
            "function_item" | "source_file" | "declaration_list" => return false,
            _ => {}
        }
        child = node;
        current = parents.of(node);
    }
    false
}

/// Whether the type of `value`, the value a function returns, may come from its declared return
/// type `ty` rather than from the value itself: a coercion (`*mut` to `*const`, `&mut` or
/// `&String` to `&str`, a `Box<dyn ...>`), a call whose result type is inferred (`parse`,
/// `collect`, `into`, `Default::default`, `Vec::new`), `None`/`Ok`/`Err`, or a number literal
/// of a type other than the default one.
pub fn type_comes_from_return(ty: Node<'_>, value: Node<'_>, text: &str) -> bool {
    let ty_text: String = node_text(ty, text).split_whitespace().collect();
    if ty_text.starts_with('&') || ty_text.starts_with("*const") || ty_text.contains("dyn") {
        return true;
    }
    const INFERRED_METHODS: &[&str] = &[
        "parse",
        "collect",
        "into",
        "try_into",
        "sum",
        "product",
        "unwrap_or_default",
        "cast",
        "as_ref",
        "as_mut",
        "borrow",
        "borrow_mut",
    ];
    const INFERRED_PATHS: &[&str] = &[
        "default",
        "new",
        "from",
        "try_from",
        "from_iter",
        "with_capacity",
    ];
    const GENERIC_CONTAINERS: &[&str] = &[
        "Default",
        "From",
        "TryFrom",
        "FromIterator",
        "Vec",
        "VecDeque",
        "HashMap",
        "HashSet",
        "BTreeMap",
        "BTreeSet",
        "BinaryHeap",
        "LinkedList",
    ];
    // A number literal takes the return type only when nothing else in the value gives one.
    let mut only_literals = true;
    walk_node(value, |n| {
        only_literals &= !matches!(
            n.kind(),
            "identifier" | "field_expression" | "call_expression" | "macro_invocation"
        );
        only_literals
    });
    let literal_typed = only_literals
        && matches!(
            ty_text.as_str(),
            "u8" | "u16"
                | "u32"
                | "u64"
                | "u128"
                | "usize"
                | "i8"
                | "i16"
                | "i64"
                | "i128"
                | "isize"
                | "f32"
        );
    let mut sensitive = false;
    walk_node(value, |n| {
        if sensitive {
            return false;
        }
        match n.kind() {
            "call_expression" => {
                let function = n.child_by_field_name("function");
                match function.map(|f| (f.kind(), f)) {
                    Some(("field_expression", f)) => {
                        sensitive |= f
                            .child_by_field_name("field")
                            .is_some_and(|m| INFERRED_METHODS.contains(&node_text(m, text)));
                    }
                    Some(("scoped_identifier", f)) => {
                        let name = f.child_by_field_name("name").map(|m| node_text(m, text));
                        let path = f.child_by_field_name("path").map(|p| {
                            let p = node_text(p, text);
                            p.rsplit("::").next().unwrap_or(p).to_string()
                        });
                        sensitive |= name.is_some_and(|m| INFERRED_PATHS.contains(&m))
                            && path.is_some_and(|p| GENERIC_CONTAINERS.contains(&p.as_str()));
                    }
                    Some(("identifier", f)) => {
                        sensitive |= matches!(node_text(f, text), "Ok" | "Err");
                    }
                    _ => {}
                }
            }
            "identifier" => sensitive |= node_text(n, text) == "None",
            "integer_literal" | "float_literal" => {
                let literal = node_text(n, text);
                sensitive |= literal_typed
                    && !literal.contains(['i', 'u'])
                    && !(literal.ends_with("f32") || literal.ends_with("f64"));
            }
            // Arguments are typed by the callee, statements are not the value.
            "closure_expression" | "arguments" | "let_declaration" | "expression_statement" => {
                return false;
            }
            _ => {}
        }
        true
    });
    sensitive
}
