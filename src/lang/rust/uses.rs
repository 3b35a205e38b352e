//! The type of a Rust local whose initializer leaves it open, read from how its function uses
//! it: an unsuffixed number (`let mut n = 0;`) takes the type of what it is compared with,
//! added to, assigned, passed as (a parameter of this file, a `Vec` index or `get`) or indexes
//! (`usize`), and Rust's own default (`i32`, `f64`) only when no use could decide it; an empty
//! collection (`Vec::new()`, `HashMap::new()`, `Vec::with_capacity(..)`, `let v: Vec<_>`) the
//! types of what is pushed or inserted into it, or the parameter it is lent to. One use read
//! wrong would be a wrong type without a finding, so every use the reading does not know leaves
//! a number unknown (an `as` cast and a formatting macro say nothing). A local the function
//! returns has its declared return type.

use tree_sitter::Node;

use crate::lang::node_text;

use super::types::{
    FLOATS, INTEGERS, TypeScope, element_of, expression_type_at, function_item, generic_parts,
    return_type, strip_reference, strip_references, type_text, wrapper,
};

/// Uses are read only this deep in a chain of locals (each use may read another local's type).
const USE_DEPTH: usize = 5;

/// `let m = n; let k = m;`: how many such locals are followed to read `n`'s type.
const LET_CHAIN_DEPTH: usize = 8;

/// What one use says of the local's type.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Constraint {
    /// The local has this type.
    Type(String),
    /// The use accepts any number (`n += 1`, `n as u8`, `println!("{}", n)`).
    Neutral,
    /// The use may decide the type, and the reading cannot tell how.
    Unknown,
}

use Constraint::{Neutral, Type, Unknown};

/// What the local's initializer leaves open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Open {
    Integer,
    Float,
    /// `Vec`, `VecDeque`, `HashSet`, `BTreeSet`, `BinaryHeap`: the element.
    Sequence,
    /// `HashMap`, `BTreeMap`: the key and the value.
    Map,
}

const SEQUENCES: &[&str] = &["Vec", "VecDeque", "HashSet", "BTreeSet", "BinaryHeap"];
const MAPS: &[&str] = &["HashMap", "BTreeMap"];
const FORMATTING: &[&str] = &[
    "println", "print", "eprintln", "eprint", "format", "write", "writeln", "panic",
];

/// The type of the local bound by `declaration` (a `let`) at byte `at`, from its uses, when its
/// initializer is an unsuffixed number or an empty collection (or its annotation has a `_`).
pub(super) fn from_uses(
    scope: &TypeScope<'_, '_>,
    declaration: Node<'_>,
    at: usize,
    depth: usize,
) -> Option<String> {
    if depth > USE_DEPTH {
        return None;
    }
    let text = scope.text;
    let annotation = declaration
        .child_by_field_name("type")
        .map(|t| type_text(t, text));
    let value = declaration.child_by_field_name("value");
    let (open, head) = match value.map(|v| open_value(v, text)) {
        Some(Some(found)) => found,
        _ => {
            let head = annotation.as_deref().and_then(|a| collection_head(a))?;
            (open_kind(&head)?, head)
        }
    };
    let said = uses_say(scope, declaration, at, |use_| match open {
        Open::Integer | Open::Float => expected(scope, use_, depth),
        Open::Sequence | Open::Map => collection_use(scope, use_, &head, open, depth),
    })?;
    let (found, undecided) = match said {
        Type(ty) => (Some(ty), false),
        Neutral => (None, false),
        Unknown => (None, true),
    };
    let fits = |ty: &str| match open {
        Open::Integer => INTEGERS.contains(&ty),
        Open::Float => FLOATS.contains(&ty),
        // A collection of borrows is left unknown: lent as `&mut Vec<&str>`, the new signature
        // gives the borrows it holds and the ones put into it unrelated lifetimes.
        Open::Sequence | Open::Map => {
            let bare = ty.split('<').next().unwrap_or(ty).trim();
            bare.rsplit("::").next() == Some(head.as_str())
                && !has_placeholder(ty)
                && !super::types::has_elided_lifetime(ty)
        }
    };
    match found {
        Some(ty) => fits(&ty).then_some(ty),
        None if undecided => None,
        None => match open {
            Open::Integer => Some("i32".to_string()),
            Open::Float => Some("f64".to_string()),
            Open::Sequence | Open::Map => None,
        },
    }
}

/// What the uses of the binding at byte `at` say together: the one type they decide, `Neutral`
/// when none decides, `Unknown` when one may decide and the reading cannot tell; `None` when two
/// decide different types.
fn uses_say<'t>(
    scope: &TypeScope<'_, 't>,
    declaration: Node<'t>,
    at: usize,
    said_by: impl Fn(Node<'t>) -> Constraint,
) -> Option<Constraint> {
    let mut found: Option<String> = None;
    let mut undecided = false;
    for use_ in uses_of(scope, declaration, at) {
        match said_by(use_) {
            Type(ty) if found.as_ref().is_some_and(|f| *f != ty) => return None,
            Type(ty) => found = Some(ty),
            Neutral => {}
            Unknown => undecided = true,
        }
    }
    Some(match found {
        Some(ty) => Type(ty),
        None if undecided => Unknown,
        None => Neutral,
    })
}

/// `let m = n;` (or `n + 1`) with no annotation: `m`'s own uses say what `n` is.
fn let_of_number<'t>(scope: &TypeScope<'_, 't>, declaration: Node<'t>, depth: usize) -> Constraint {
    // Each step reads a later `let` of the function, so the chain ends; the bound is for cost.
    if depth > LET_CHAIN_DEPTH {
        return Unknown;
    }
    let Some(pattern) = declaration.child_by_field_name("pattern") else {
        return Unknown;
    };
    let name = match pattern.kind() {
        "identifier" => pattern,
        "mut_pattern" => match pattern.named_children(&mut pattern.walk()).last() {
            Some(n) if n.kind() == "identifier" => n,
            _ => return Unknown,
        },
        _ => return Unknown,
    };
    uses_say(scope, declaration, name.start_byte(), |use_| {
        expected(scope, use_, depth + 1)
    })
    .unwrap_or(Unknown)
}

/// The value `node` is the enclosing function's own (its body's tail, through `if`/`match`
/// branches, or a `return`): the function's declared return type, if it says one.
fn function_value(scope: &TypeScope<'_, '_>, node: Node<'_>, parent: Node<'_>) -> Constraint {
    let mut function = parent;
    while function.kind() != "function_item" {
        if matches!(function.kind(), "closure_expression" | "async_block") {
            return Unknown;
        }
        match function.parent() {
            Some(p) => function = p,
            None => return Unknown,
        }
    }
    let value = parent.kind() == "return_expression"
        || super::statements::block_value_is_function_value(node, function);
    let declared = function
        .child_by_field_name("return_type")
        .map(|t| type_text(t, scope.text));
    if value {
        number_type(declared)
    } else {
        Unknown
    }
}

/// Whether a type's text holds the placeholder `_` (`Vec<_>`).
pub(super) fn has_placeholder(ty: &str) -> bool {
    ty.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == "_")
}

/// An unsuffixed number, or an empty collection's constructor (with its type's last name).
fn open_value(value: Node<'_>, text: &str) -> Option<(Open, String)> {
    match value.kind() {
        "integer_literal" if unsuffixed(node_text(value, text)) => {
            Some((Open::Integer, String::new()))
        }
        "float_literal" if unsuffixed(node_text(value, text)) => Some((Open::Float, String::new())),
        "unary_expression" if node_text(value, text).starts_with('-') => {
            open_value(value.named_child(0)?, text).filter(|(o, _)| *o != Open::Sequence)
        }
        "call_expression" => {
            let function = value.child_by_field_name("function")?;
            if function.kind() != "scoped_identifier" {
                return None;
            }
            let name = node_text(function.child_by_field_name("name")?, text);
            let path = type_text(function.child_by_field_name("path")?, text);
            let head = path.rsplit("::").next().unwrap_or(&path).to_string();
            let open = open_kind(&head)?;
            matches!(name, "new" | "with_capacity").then_some((open, head))
        }
        _ => None,
    }
}

fn unsuffixed(literal: &str) -> bool {
    let literal = literal.replace('_', "");
    !literal.starts_with("0x")
        && !literal.starts_with("0b")
        && !literal.starts_with("0o")
        && !INTEGERS
            .iter()
            .chain(FLOATS)
            .any(|suffix| literal.ends_with(suffix))
}

fn open_kind(head: &str) -> Option<Open> {
    if SEQUENCES.contains(&head) {
        Some(Open::Sequence)
    } else if MAPS.contains(&head) {
        Some(Open::Map)
    } else {
        None
    }
}

/// `Vec<_>` → `Vec` (only a collection whose arguments hold a placeholder).
fn collection_head(annotation: &str) -> Option<String> {
    if !has_placeholder(annotation) {
        return None;
    }
    let (head, _) = generic_parts(annotation)?;
    Some(head.rsplit("::").next().unwrap_or(&head).to_string())
}

/// The identifiers of the enclosing function that read the binding at byte `at`.
fn uses_of<'t>(scope: &TypeScope<'_, 't>, declaration: Node<'t>, at: usize) -> Vec<Node<'t>> {
    let mut function = declaration;
    while function.kind() != "function_item" {
        match function.parent() {
            Some(parent) => function = parent,
            None => return Vec::new(),
        }
    }
    let mut found = Vec::new();
    crate::lang::walk_node(function, |n| {
        if n.kind() == "identifier"
            && n.start_byte() != at
            && (scope.resolve)(node_text(n, scope.text), n.start_byte()) == Some(at)
        {
            found.push(n);
        }
        true
    });
    found
}

/// Whether `node` is an unsuffixed number literal (its type is the other operand's).
fn is_open_number(node: Node<'_>, text: &str) -> bool {
    matches!(node.kind(), "integer_literal" | "float_literal") && unsuffixed(node_text(node, text))
}

/// A number's type as an operand: `&u32` counts as `u32`; anything else but a number says
/// nothing the reading trusts.
fn number_type(ty: Option<String>) -> Constraint {
    let Some(ty) = ty else {
        return Unknown;
    };
    let bare = strip_references(&ty);
    if INTEGERS.contains(&bare) || FLOATS.contains(&bare) {
        Type(bare.to_string())
    } else {
        Unknown
    }
}

/// The type the context of the number expression `node` requires of it.
fn expected<'t>(scope: &TypeScope<'_, 't>, node: Node<'t>, depth: usize) -> Constraint {
    let Some(parent) = node.parent() else {
        return Unknown;
    };
    let text = scope.text;
    let other_of = |parent: Node<'t>| -> Option<Node<'t>> {
        let left = parent.child_by_field_name("left")?;
        let right = parent.child_by_field_name("right")?;
        Some(if left.id() == node.id() { right } else { left })
    };
    // `n * n`: the other operand is the same local.
    let same_local = |other: Node<'_>| {
        let name = node_text(node, text);
        other.kind() == "identifier"
            && node_text(other, text) == name
            && (scope.resolve)(name, other.start_byte()) == (scope.resolve)(name, node.start_byte())
    };
    let operand = |other: Node<'_>| {
        if is_open_number(other, text) || same_local(other) {
            Neutral
        } else {
            number_type(expression_type_at(scope, other, depth + 1))
        }
    };
    match parent.kind() {
        "parenthesized_expression" => expected(scope, parent, depth),
        "unary_expression" if node_text(parent, text).starts_with('-') => {
            expected(scope, parent, depth)
        }
        "type_cast_expression" => Neutral,
        "binary_expression" => {
            let Some(operator) = parent.child_by_field_name("operator") else {
                return Unknown;
            };
            let Some(other) = other_of(parent) else {
                return Unknown;
            };
            match node_text(operator, text) {
                "==" | "!=" | "<" | ">" | "<=" | ">=" => operand(other),
                "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^" => match operand(other) {
                    Neutral => expected(scope, parent, depth),
                    Unknown if !is_open_number(other, text) => {
                        match expected(scope, parent, depth) {
                            Type(ty) => Type(ty),
                            _ => Unknown,
                        }
                    }
                    said => said,
                },
                _ => Unknown,
            }
        }
        "compound_assignment_expr" => {
            let shift = parent
                .child_by_field_name("operator")
                .is_some_and(|o| matches!(node_text(o, text), "<<=" | ">>="));
            match other_of(parent) {
                Some(other) if !shift => operand(other),
                _ => Unknown,
            }
        }
        "assignment_expression" => match other_of(parent) {
            Some(other) => operand(other),
            None => Unknown,
        },
        "let_declaration" => match parent.child_by_field_name("type") {
            Some(ty) => number_type(Some(type_text(ty, text))),
            None => let_of_number(scope, parent, depth),
        },
        "block" | "return_expression" => function_value(scope, node, parent),
        "index_expression" => {
            let indexed = parent.named_child(0);
            let is_index = parent.named_child(1).is_some_and(|i| i.id() == node.id());
            match indexed.and_then(|i| expression_type_at(scope, i, depth + 1)) {
                Some(ty) if is_index && element_of(&ty).is_some() => Type("usize".to_string()),
                _ => Unknown,
            }
        }
        "arguments" => argument(scope, node, parent, depth),
        "token_tree" => {
            let mut up = parent;
            while up.kind() == "token_tree" {
                match up.parent() {
                    Some(p) => up = p,
                    None => return Unknown,
                }
            }
            let name = up
                .child_by_field_name("macro")
                .map(|m| node_text(m, text))
                .unwrap_or("");
            if up.kind() == "macro_invocation" && FORMATTING.contains(&name) {
                Neutral
            } else {
                Unknown
            }
        }
        _ => Unknown,
    }
}

/// The type of the argument `node` of the call whose `arguments` is `arguments`: a parameter of a
/// function of this file (without generics), an index of a vector or slice method, the element
/// pushed into a typed vector, a `pow` exponent.
fn argument(
    scope: &TypeScope<'_, '_>,
    node: Node<'_>,
    arguments: Node<'_>,
    depth: usize,
) -> Constraint {
    let text = scope.text;
    let Some(position) = arguments
        .named_children(&mut arguments.walk())
        .position(|a| a.id() == node.id())
    else {
        return Unknown;
    };
    let Some(call) = arguments.parent() else {
        return Unknown;
    };
    let Some(function) = call.child_by_field_name("function") else {
        return Unknown;
    };
    let declared = |owner: Option<&str>, name: &str| -> Constraint {
        let Some(item) = function_item(scope.root, text, owner, name) else {
            return Unknown;
        };
        match parameter_type(item, text, position) {
            Some(ty) if item.child_by_field_name("type_parameters").is_none() => Type(ty),
            _ => Unknown,
        }
    };
    match function.kind() {
        "identifier" => declared(None, node_text(function, text)),
        "field_expression" => {
            let (Some(receiver), Some(method)) = (
                function.child_by_field_name("value"),
                function.child_by_field_name("field"),
            ) else {
                return Unknown;
            };
            let method = node_text(method, text);
            let receiver_type = if receiver.kind() == "self" {
                scope.self_type.map(str::to_string)
            } else {
                expression_type_at(scope, receiver, depth + 1)
            };
            let Some(receiver_type) = receiver_type else {
                return Unknown;
            };
            let bare = strip_references(&receiver_type);
            let indexed = element_of(bare).is_some() || super::types::is_str(bare);
            match method {
                "get" | "get_mut" | "split_at" | "truncate" | "swap" | "remove" | "swap_remove"
                    if indexed =>
                {
                    Type("usize".to_string())
                }
                "insert" if position == 0 && element_of(bare).is_some() => {
                    Type("usize".to_string())
                }
                "push" | "push_back" | "push_front" => match element_of(bare) {
                    Some(element) => Type(element),
                    None => Unknown,
                },
                "pow" if INTEGERS.contains(&bare) || FLOATS.contains(&bare) => {
                    Type("u32".to_string())
                }
                _ => {
                    let owner = bare.split('<').next().unwrap_or(bare).trim();
                    let Some(item) = function_item(scope.root, text, Some(owner), method) else {
                        return Unknown;
                    };
                    let has_self = item
                        .child_by_field_name("parameters")
                        .and_then(|p| p.named_child(0))
                        .is_some_and(|p| p.kind() == "self_parameter");
                    match parameter_type(item, text, position + usize::from(has_self)) {
                        Some(ty)
                            if has_self
                                && item.child_by_field_name("type_parameters").is_none() =>
                        {
                            Type(ty)
                        }
                        _ => Unknown,
                    }
                }
            }
        }
        _ => Unknown,
    }
}

/// The declared type of the parameter at `position` of a function item (`self` counts).
fn parameter_type(function: Node<'_>, text: &str, position: usize) -> Option<String> {
    let parameters = function.child_by_field_name("parameters")?;
    let parameter = parameters
        .named_children(&mut parameters.walk())
        .filter(|p| matches!(p.kind(), "parameter" | "self_parameter"))
        .nth(position)?;
    let ty = type_text(parameter.child_by_field_name("type")?, text);
    (!ty.contains("impl ") && !has_placeholder(&ty)).then_some(ty)
}

/// What a use of an empty collection says of its type: what a method puts into it, or the
/// parameter it is handed to (`&mut v` to `&mut Vec<T>`).
fn collection_use(
    scope: &TypeScope<'_, '_>,
    node: Node<'_>,
    head: &str,
    open: Open,
    depth: usize,
) -> Constraint {
    let Some(parent) = node.parent() else {
        return Unknown;
    };
    let text = scope.text;
    let typed = |n: Node<'_>| expression_type_at(scope, n, depth + 1);
    match parent.kind() {
        "field_expression" => {
            let call = parent.parent().filter(|c| c.kind() == "call_expression");
            let (Some(call), Some(method)) = (call, parent.child_by_field_name("field")) else {
                return Neutral;
            };
            let Some(arguments) = call.child_by_field_name("arguments") else {
                return Neutral;
            };
            let args: Vec<Node<'_>> = arguments.named_children(&mut arguments.walk()).collect();
            let method = node_text(method, text);
            let inserted = match (open, method, args.as_slice()) {
                (Open::Sequence, "push" | "push_back" | "push_front", [element])
                | (Open::Sequence, "insert", [element] | [_, element]) => {
                    typed(*element).map(|e| format!("{head}<{e}>"))
                }
                (Open::Map, "insert", [key, value]) => match (typed(*key), typed(*value)) {
                    (Some(k), Some(v)) => Some(format!("{head}<{k}, {v}>")),
                    _ => None,
                },
                _ => return Neutral,
            };
            inserted.map_or(Unknown, Type)
        }
        "reference_expression" => match parent.parent() {
            Some(arguments) if arguments.kind() == "arguments" => {
                match argument(scope, parent, arguments, depth) {
                    Type(ty) => strip_reference(&ty).map_or(Unknown, |t| Type(t.to_string())),
                    said => said,
                }
            }
            _ => Neutral,
        },
        "arguments" => argument(scope, node, parent, depth),
        _ => Neutral,
    }
}

/// A local the enclosing function returns (its tail, `return x`, `Ok(x)`, `Some(x)`) has the
/// function's declared return type (or the value type inside it).
pub(super) fn returned_type(
    scope: &TypeScope<'_, '_>,
    declaration: Node<'_>,
    at: usize,
) -> Option<String> {
    let text = scope.text;
    let mut current = declaration.parent();
    let function = loop {
        let node = current?;
        match node.kind() {
            "function_item" => break node,
            "closure_expression" | "async_block" => return None,
            _ => current = node.parent(),
        }
    };
    let declared = return_type(function, text)?;
    if declared.contains("impl ") {
        return None;
    }
    let body = function.child_by_field_name("body")?;
    let mut exits: Vec<Node<'_>> = Vec::new();
    if let Some(tail) = body.named_children(&mut body.walk()).last()
        && tail.kind() != "expression_statement"
        && !tail.kind().ends_with("_declaration")
        && !tail.kind().ends_with("_item")
    {
        exits.push(tail);
    }
    crate::lang::walk_node(body, |n| {
        if n.kind() == "return_expression"
            && let Some(value) = n.named_child(0)
        {
            exits.push(value);
        }
        !matches!(
            n.kind(),
            "closure_expression" | "function_item" | "async_block"
        )
    });
    let is_it = |e: Node<'_>| {
        e.kind() == "identifier" && (scope.resolve)(node_text(e, text), e.start_byte()) == Some(at)
    };
    for exit in exits {
        if is_it(exit) {
            return Some(declared);
        }
        if exit.kind() == "call_expression"
            && let (Some(function), Some(arguments)) = (
                exit.child_by_field_name("function"),
                exit.child_by_field_name("arguments"),
            )
            && matches!(node_text(function, text), "Ok" | "Some")
            && arguments.named_child_count() == 1
            && arguments.named_child(0).is_some_and(is_it)
        {
            return wrapper(&declared).and_then(|(_, value)| value);
        }
    }
    None
}
