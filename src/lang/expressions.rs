//! Facts about one expression, for turning it into a parameter: the expression a selection
//! spans, the identical expressions elsewhere in a region, the type its text shows (Rust: a
//! literal, a cast, a constant or static of the file, a parameter's written type), whether
//! it calls anything, and whether an argument needs parentheses where it is pasted. Pure:
//! trees and text in, nodes and words out.

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::{Language, node_text, walk_node};

/// Python node kinds that are expressions (values).
const PYTHON_EXPRESSIONS: &[&str] = &[
    "identifier",
    "integer",
    "float",
    "string",
    "concatenated_string",
    "true",
    "false",
    "none",
    "binary_operator",
    "boolean_operator",
    "comparison_operator",
    "unary_operator",
    "not_operator",
    "call",
    "attribute",
    "subscript",
    "list",
    "tuple",
    "dictionary",
    "set",
    "parenthesized_expression",
    "conditional_expression",
    "list_comprehension",
    "dictionary_comprehension",
    "set_comprehension",
    "generator_expression",
];

/// Rust node kinds that are expressions (values).
const RUST_EXPRESSIONS: &[&str] = &[
    "identifier",
    "integer_literal",
    "float_literal",
    "string_literal",
    "raw_string_literal",
    "char_literal",
    "boolean_literal",
    "binary_expression",
    "unary_expression",
    "call_expression",
    "field_expression",
    "index_expression",
    "parenthesized_expression",
    "reference_expression",
    "scoped_identifier",
    "array_expression",
    "tuple_expression",
    "macro_invocation",
    "struct_expression",
    "type_cast_expression",
];

fn is_expression(lang: Language, node: Node<'_>) -> bool {
    let kinds = match lang {
        Language::Python => PYTHON_EXPRESSIONS,
        Language::Rust => RUST_EXPRESSIONS,
    };
    node.is_named() && kinds.contains(&node.kind())
}

/// Why a selection is not an expression that can become a parameter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotAnExpression {
    /// The selection does not cover exactly one node (it cuts one, or spans several).
    NotOneNode,
    /// It is a whole statement, a definition, a pattern or some other non-value.
    NotAValue { kind: String },
    /// It is a name being bound or assigned (`x` in `x = 1`), a keyword argument's name, an
    /// attribute's or a field's name, or a callee.
    NotARead,
}

/// The expression `range` spans exactly (after trimming blanks): the outermost expression
/// node of that range.
pub fn expression_at<'t>(
    lang: Language,
    tree: &'t Tree,
    text: &str,
    range: Range<usize>,
) -> Result<Node<'t>, NotAnExpression> {
    let selected = &text[range.clone()];
    let start = range.start + (selected.len() - selected.trim_start().len());
    let end = range.end - (selected.len() - selected.trim_end().len());
    if start >= end {
        return Err(NotAnExpression::NotOneNode);
    }
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(start, end)
        .ok_or(NotAnExpression::NotOneNode)?;
    if node.start_byte() != start || node.end_byte() != end {
        return Err(NotAnExpression::NotOneNode);
    }
    while let Some(parent) = node.parent()
        && parent.byte_range() == node.byte_range()
        && is_expression(lang, parent)
    {
        node = parent;
    }
    if !is_expression(lang, node) {
        return Err(NotAnExpression::NotAValue {
            kind: node.kind().replace('_', " "),
        });
    }
    if !is_read(lang, node) {
        return Err(NotAnExpression::NotARead);
    }
    Ok(node)
}

/// The innermost expression read at byte `at` (the cursor): a literal, a name, `self.size`
/// when the cursor is on `size`, a call when it is on the callee's name.
pub fn expression_at_cursor(lang: Language, tree: &Tree, at: usize) -> Option<Range<usize>> {
    let mut node = tree.root_node().descendant_for_byte_range(at, at)?;
    loop {
        if is_expression(lang, node) && is_read(lang, node) {
            return Some(node.byte_range());
        }
        node = node.parent()?;
    }
}

/// Whether the expression is read where it stands (not a binding target, a keyword or field
/// name, a callee's name).
fn is_read(lang: Language, node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else {
        return true;
    };
    let field = super::names::field_of(parent, node);
    match (lang, parent.kind(), field) {
        (_, _, Some("left"))
            if matches!(
                parent.kind(),
                "assignment"
                    | "augmented_assignment"
                    | "assignment_expression"
                    | "compound_assignment_expr"
            ) =>
        {
            false
        }
        (Language::Python, "keyword_argument", Some("name")) => false,
        (Language::Python, "attribute", Some("attribute")) => false,
        (Language::Python, "call", Some("function")) => false,
        (Language::Python, "for_statement" | "for_in_clause", Some("left")) => false,
        (
            Language::Python,
            "parameters" | "default_parameter" | "typed_parameter" | "typed_default_parameter",
            _,
        ) => false,
        (Language::Rust, "field_expression", Some("field")) => false,
        (Language::Rust, "call_expression", Some("function")) => false,
        (Language::Rust, "let_declaration", Some("pattern")) => false,
        (Language::Rust, "parameter", _) => false,
        _ => true,
    }
}

/// The expressions under `region` with the same kind and text as `model` (itself included),
/// in order.
/// Write targets among them are included: [`is_read_at`] tells them apart.
pub fn identical_expressions(region: Node<'_>, text: &str, model: Node<'_>) -> Vec<Range<usize>> {
    let wanted = node_text(model, text);
    let kind = model.kind_id();
    let mut out = Vec::new();
    walk_node(region, |n| {
        if n.kind_id() == kind && node_text(n, text) == wanted {
            out.push(n.byte_range());
            return false;
        }
        true
    });
    out
}

/// Whether an identical expression at `range` under `region` is read there (a write target such
/// as `self.n` in `self.n += 1` is not).
pub fn is_read_at(lang: Language, region: Node<'_>, range: &Range<usize>) -> bool {
    region
        .descendant_for_byte_range(range.start, range.end)
        .map(|mut node| {
            while let Some(parent) = node.parent()
                && parent.byte_range() == *range
            {
                node = parent;
            }
            is_read(lang, node)
        })
        .unwrap_or(true)
}

/// The uses of a method's receiver inside `node`: Rust `self`, or the Python receiver's name
/// (`self`, `cls`) read as a name.
pub fn receiver_uses(
    lang: Language,
    node: Node<'_>,
    text: &str,
    receiver: &str,
) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    walk_node(node, |n| {
        let hit = match lang {
            Language::Rust => n.kind() == "self",
            Language::Python => n.kind() == "identifier" && node_text(n, text) == receiver,
        };
        if hit && is_read(lang, n) {
            out.push(n.byte_range());
        }
        true
    });
    out
}

/// Whether the expression calls a function, a method or a macro (its value may differ each
/// time, or its evaluation may have effects).
pub fn calls_something(lang: Language, node: Node<'_>) -> bool {
    let mut found = false;
    walk_node(node, |n| {
        found |= match lang {
            Language::Python => n.kind() == "call",
            Language::Rust => matches!(n.kind(), "call_expression" | "macro_invocation"),
        };
        !found
    });
    found
}

/// What written text gives a Rust expression its type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypeSource {
    /// A literal (`10` → `i32`, `1.5f32` → `f32`, `"x"` → `&str`), or an operation whose
    /// operands are literals of one type.
    Literal,
    /// `expr as T`.
    Cast,
    /// A `const` or `static` of the file.
    Item(String),
    /// A parameter of the function, with its written type.
    Parameter(String),
}

/// The Rust type `node` shows in writing, with where it comes from; `parameter_type` answers
/// for a name that is a parameter of the function.
pub fn rust_written_type(
    tree: &Tree,
    node: Node<'_>,
    text: &str,
    parameter_type: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, TypeSource)> {
    written_type(tree, node, text, parameter_type, true)
}

/// [`rust_written_type`]; `context`: an unsuffixed number may look at what it is combined
/// with (not when the question comes from that operation itself).
fn written_type(
    tree: &Tree,
    node: Node<'_>,
    text: &str,
    parameter_type: &dyn Fn(&str) -> Option<String>,
    context: bool,
) -> Option<(String, TypeSource)> {
    let own = node_text(node, text);
    // An unsuffixed number takes the type of what it is combined with (`450 + grams` where
    // `grams: u64`), when that has a written type.
    let unsuffixed = match node.kind() {
        "integer_literal" => literal_suffix(own, INTEGER_SUFFIXES).is_none(),
        "float_literal" => literal_suffix(own, &["f32", "f64"]).is_none(),
        _ => false,
    };
    if context
        && unsuffixed
        && let Some(found) = operand_type(tree, node, text, parameter_type)
    {
        return Some(found);
    }
    match node.kind() {
        "integer_literal" => Some((
            literal_suffix(own, INTEGER_SUFFIXES)
                .unwrap_or("i32")
                .to_string(),
            TypeSource::Literal,
        )),
        "float_literal" => Some((
            literal_suffix(own, &["f32", "f64"])
                .unwrap_or("f64")
                .to_string(),
            TypeSource::Literal,
        )),
        "string_literal" | "raw_string_literal" if !own.starts_with('b') => {
            Some(("&str".to_string(), TypeSource::Literal))
        }
        "char_literal" if !own.starts_with('b') => Some(("char".to_string(), TypeSource::Literal)),
        "boolean_literal" => Some(("bool".to_string(), TypeSource::Literal)),
        "type_cast_expression" => node
            .child_by_field_name("type")
            .map(|t| (node_text(t, text).to_string(), TypeSource::Cast)),
        "parenthesized_expression" => node
            .named_child(0)
            .and_then(|inner| written_type(tree, inner, text, parameter_type, false)),
        "unary_expression" if own.starts_with('-') => node
            .named_child(0)
            .and_then(|inner| written_type(tree, inner, text, parameter_type, false))
            .filter(|(_, source)| *source == TypeSource::Literal),
        "binary_expression" => {
            let operator = node
                .child_by_field_name("operator")
                .map(|o| node_text(o, text));
            let typed = |field: &str| {
                written_type(
                    tree,
                    node.child_by_field_name(field)?,
                    text,
                    parameter_type,
                    false,
                )
            };
            let (left, right) = (typed("left")?, typed("right")?);
            // An unsuffixed literal takes the other operand's written type.
            let literal = |t: &(String, TypeSource)| t.1 == TypeSource::Literal;
            if left.0 != right.0 && literal(&left) == literal(&right) {
                return None;
            }
            match operator {
                Some("==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||") => {
                    Some(("bool".to_string(), TypeSource::Literal))
                }
                Some("<<" | ">>") => Some(left),
                _ if literal(&left) => Some(right),
                _ => Some(left),
            }
        }
        "identifier" => parameter_type(own)
            .map(|ty| (ty, TypeSource::Parameter(own.to_string())))
            .or_else(|| {
                item_type(tree, text, own).map(|ty| (ty, TypeSource::Item(own.to_string())))
            }),
        _ => None,
    }
}

/// The written type of the other operand of the arithmetic `binary_expression` that `literal`
/// is a direct operand of (climbing through the operations it is nested in).
fn operand_type(
    tree: &Tree,
    literal: Node<'_>,
    text: &str,
    parameter_type: &dyn Fn(&str) -> Option<String>,
) -> Option<(String, TypeSource)> {
    let mut child = literal;
    let mut parent = literal.parent()?;
    while parent.kind() == "binary_expression" {
        let operator = parent
            .child_by_field_name("operator")
            .map(|o| node_text(o, text))?;
        if !matches!(operator, "+" | "-" | "*" | "/" | "%" | "&" | "|" | "^") {
            return None;
        }
        let field = if parent.child_by_field_name("left") == Some(child) {
            "right"
        } else {
            "left"
        };
        let other = parent.child_by_field_name(field)?;
        if let Some(found) = written_type(tree, other, text, parameter_type, false)
            .filter(|(_, source)| *source != TypeSource::Literal)
        {
            return Some(found);
        }
        child = parent;
        parent = parent.parent()?;
    }
    None
}

/// Rust: whether `node`'s written type is only the default of an unsuffixed number (`0` is
/// `i32`, `1.5` is `f64`, when nothing else decides): parentheses, a minus and operations of
/// such numbers included. Rust infers an unsuffixed number's type from how it is used, so that
/// default is a guess.
pub fn rust_number_without_suffix(node: Node<'_>, text: &str) -> bool {
    let own = node_text(node, text);
    match node.kind() {
        "integer_literal" => literal_suffix(own, INTEGER_SUFFIXES).is_none(),
        "float_literal" => literal_suffix(own, &["f32", "f64"]).is_none(),
        "parenthesized_expression" | "unary_expression" => node
            .named_child(0)
            .is_some_and(|inner| rust_number_without_suffix(inner, text)),
        "binary_expression" => ["left", "right"].iter().all(|field| {
            node.child_by_field_name(field)
                .is_some_and(|side| rust_number_without_suffix(side, text))
        }),
        _ => false,
    }
}

const INTEGER_SUFFIXES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize",
];

fn literal_suffix<'a>(literal: &str, suffixes: &[&'a str]) -> Option<&'a str> {
    if literal.starts_with("0x") || literal.starts_with("0b") || literal.starts_with("0o") {
        // `0xff` has no float suffix; an integer suffix still ends it.
        return suffixes
            .iter()
            .copied()
            .find(|s| s.starts_with(['u', 'i']) && literal.ends_with(s));
    }
    suffixes.iter().copied().find(|s| literal.ends_with(s))
}

/// The written type of the `const` or `static` called `name` at the top of the file (or in a
/// block the tree holds), if there is exactly one.
fn item_type(tree: &Tree, text: &str, name: &str) -> Option<String> {
    let mut types = Vec::new();
    walk_node(tree.root_node(), |n| {
        if matches!(n.kind(), "const_item" | "static_item")
            && n.child_by_field_name("name")
                .is_some_and(|x| node_text(x, text) == name)
        {
            if let Some(ty) = n.child_by_field_name("type") {
                types.push(node_text(ty, text).to_string());
            }
            return false;
        }
        true
    });
    (types.len() == 1).then(|| types.remove(0))
}

/// Whether `argument` (an argument's text) must be parenthesised to replace a name inside a
/// larger expression: anything but a name, a literal, an attribute or path chain, or a call
/// or index of one.
pub fn needs_parentheses(argument: &str) -> bool {
    let trimmed = argument.trim();
    let mut depth = 0i32;
    let mut in_string: Option<char> = None;
    for c in trimmed.chars() {
        if let Some(quote) = in_string {
            if c == quote {
                in_string = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => in_string = Some(c),
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            c if depth == 0 && (c.is_whitespace() || "+-*/%<>=!&|^~?@,".contains(c)) => {
                return true;
            }
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selection_must_be_one_read_expression() {
        let text = "def f(a):\n    x = a * 2 + 1\n    return x\n";
        let tree = Language::Python.parse(text);
        let at = text.find("a * 2").unwrap();
        let node = expression_at(Language::Python, &tree, text, at..at + 5).unwrap();
        assert_eq!(node.kind(), "binary_operator");
        assert_eq!(
            expression_at(Language::Python, &tree, text, at..at + 3),
            Err(NotAnExpression::NotOneNode)
        );
        let x = text.find("x =").unwrap();
        assert_eq!(
            expression_at(Language::Python, &tree, text, x..x + 1),
            Err(NotAnExpression::NotARead)
        );
    }

    #[test]
    fn rust_types_come_from_literals_casts_and_items() {
        let text = "const LIMIT: usize = 3;\nfn f(a: u8) -> u64 { let _ = (10u64, 1.5, LIMIT, a as i64, 60 * 60, a); 0 }\n";
        let tree = Language::Rust.parse(text);
        let ty = |needle: &str| {
            let at = text.rfind(needle).unwrap();
            let node = expression_at(Language::Rust, &tree, text, at..at + needle.len()).unwrap();
            let params = |name: &str| (name == "a").then(|| "u8".to_string());
            rust_written_type(&tree, node, text, &params).map(|t| t.0)
        };
        assert_eq!(ty("10u64").as_deref(), Some("u64"));
        assert_eq!(ty("1.5").as_deref(), Some("f64"));
        assert_eq!(ty("LIMIT").as_deref(), Some("usize"));
        assert_eq!(ty("a as i64").as_deref(), Some("i64"));
        assert_eq!(ty("60 * 60").as_deref(), Some("i32"));
        // An unsuffixed number combined with a typed parameter takes its type.
        let text = "fn f(grams: u64) -> u64 { 450 + grams / 100 * 25 }\n";
        let tree = Language::Rust.parse(text);
        let params = |name: &str| (name == "grams").then(|| "u64".to_string());
        let at = text.find("450").unwrap();
        let node = expression_at(Language::Rust, &tree, text, at..at + 3).unwrap();
        let found = rust_written_type(&tree, node, text, &params).unwrap();
        assert_eq!(
            found,
            (
                "u64".to_string(),
                TypeSource::Parameter("grams".to_string())
            )
        );
    }

    #[test]
    fn the_cursor_picks_the_innermost_read_expression() {
        let text = "def f(self):\n    return self.size * 2\n";
        let tree = Language::Python.parse(text);
        let on_size = text.find("size").unwrap() + 1;
        let range = expression_at_cursor(Language::Python, &tree, on_size).unwrap();
        assert_eq!(&text[range], "self.size");
        let on_two = text.find('2').unwrap();
        let range = expression_at_cursor(Language::Python, &tree, on_two).unwrap();
        assert_eq!(&text[range], "2");
    }

    #[test]
    fn compound_arguments_are_parenthesised() {
        assert!(!needs_parentheses("x"));
        assert!(!needs_parentheses("obj.size(1, 2)"));
        assert!(!needs_parentheses("\"a b\""));
        assert!(needs_parentheses("a + b"));
        assert!(needs_parentheses("-x"));
    }
}
