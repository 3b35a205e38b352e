//! The type of a Rust local as the source writes it: a parameter's or a typed `let`'s
//! annotation, or what its initializer says plainly (a literal with a suffix, a `String`
//! constructor, a cast, a struct literal, a field of a struct of this file, a function or method
//! of this file with a declared return type, a few methods of the standard library whose result
//! type is fixed). No inference: an unsuffixed number, a closure or a generic call is unknown,
//! and `None` says so. Also the few readings of a type's text a new signature needs.

use tree_sitter::Node;

use crate::lang::node_text;

use super::{iterators, matched, uses};

/// Where a type is read: the file, the type `Self` stands for, and how a name used at a byte
/// resolves to the byte of its binding (`None`: not a local).
pub struct TypeScope<'a, 't> {
    pub root: Node<'t>,
    pub text: &'a str,
    pub self_type: Option<&'a str>,
    pub resolve: &'a dyn Fn(&str, usize) -> Option<usize>,
    /// What the project's other files declare, when this file does not say.
    pub elsewhere: Option<&'a dyn Fn(Elsewhere<'_>) -> Option<String>>,
}

/// A question about a declaration in the project's other files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Elsewhere<'n> {
    /// The declared return type of the method `name` of the type `owner` ("" for a free
    /// function).
    Return { owner: &'n str, name: &'n str },
    /// The declared type of the field `field` of the struct `owner`.
    Field { owner: &'n str, field: &'n str },
}

impl TypeScope<'_, '_> {
    /// The return type of method `name` of `owner`: this file first, then the project's.
    fn method_return(&self, owner: &str, name: &str) -> Option<String> {
        function_return(self.root, self.text, Some(owner), name).or_else(|| {
            self.elsewhere
                .and_then(|find| find(Elsewhere::Return { owner, name }))
        })
    }
}

/// How deep a chain of locals (`let b = a; let c = b;`) is followed.
const DEPTH: usize = 8;

pub(super) const INTEGERS: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize",
];
pub(super) const FLOATS: &[&str] = &["f32", "f64"];

/// Methods of the number types whose result has the receiver's type.
const NUMBER_SAME_TYPE: &[&str] = &[
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "saturating_add",
    "saturating_sub",
    "saturating_mul",
    "rotate_left",
    "rotate_right",
    "pow",
    "abs",
    "min",
    "max",
    "swap_bytes",
    "to_be",
    "to_le",
    "div_euclid",
    "rem_euclid",
];

/// A type's text on one line, spaces collapsed.
pub fn type_text(node: Node<'_>, text: &str) -> String {
    node_text(node, text)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// The type of the binding whose name starts at byte `at`.
pub fn binding_type(scope: &TypeScope<'_, '_>, at: usize) -> Option<String> {
    binding_type_at(scope, at, 0)
}

fn binding_type_at(scope: &TypeScope<'_, '_>, at: usize, depth: usize) -> Option<String> {
    if depth > DEPTH {
        return None;
    }
    let name = scope.root.descendant_for_byte_range(at, at + 1)?;
    let mut holder = name.parent()?;
    if holder.kind() == "mut_pattern" {
        holder = holder.parent()?;
    }
    let is_pattern = |n: Node<'_>| {
        n.child_by_field_name("pattern")
            .is_some_and(|p| p.start_byte() <= at && at < p.end_byte())
    };
    let simple = |n: Node<'_>| {
        n.child_by_field_name("pattern")
            .is_some_and(|p| p.kind() == "identifier" || p.kind() == "mut_pattern")
    };
    match holder.kind() {
        "parameter" if is_pattern(holder) && simple(holder) => holder
            .child_by_field_name("type")
            .map(|t| type_text(t, scope.text)),
        "let_declaration" if is_pattern(holder) && simple(holder) => {
            if let Some(ty) = holder.child_by_field_name("type") {
                let ty = type_text(ty, scope.text);
                // `let v: Vec<_> = ..`: the placeholder is read from the uses, or unknown.
                if uses::has_placeholder(&ty) {
                    return uses::from_uses(scope, holder, at, depth + 1);
                }
                return Some(ty);
            }
            let value = holder.child_by_field_name("value");
            // A closure bound by `let mut` may mutate what it captures: not a plain `impl Fn`.
            let mutable = holder
                .child_by_field_name("pattern")
                .is_some_and(|p| p.kind() == "mut_pattern")
                || holder
                    .children(&mut holder.walk())
                    .any(|c| c.kind() == "mutable_specifier");
            if mutable && value.is_some_and(|v| v.kind() == "closure_expression") {
                return None;
            }
            value
                .and_then(|v| expression_type_at(scope, v, depth + 1))
                .or_else(|| uses::returned_type(scope, holder, at))
                .or_else(|| uses::from_uses(scope, holder, at, depth + 1))
        }
        // `let (a, b) = f()?;`, `for (i, x) in v.iter().enumerate()`, `|(k, v)|`: the element
        // of the tuple type at the name's position.
        "tuple_pattern" => {
            let position = holder
                .named_children(&mut holder.walk())
                .position(|c| c.start_byte() <= at && at < c.end_byte())?;
            let declaration = holder.parent()?;
            let tuple = match declaration.kind() {
                "let_declaration" | "for_expression" => {
                    if declaration.child_by_field_name("pattern")?.id() != holder.id() {
                        return None;
                    }
                    let value = declaration.child_by_field_name("value")?;
                    match declaration.child_by_field_name("type") {
                        Some(ty) => type_text(ty, scope.text),
                        None if declaration.kind() == "for_expression" => {
                            iterators::item_type(scope, value, depth + 1)?
                        }
                        None => expression_type_at(scope, value, depth + 1)?,
                    }
                }
                "closure_parameters" => {
                    super::closures::adaptor_parameter(scope, declaration, depth)?
                }
                _ => return matched::binding_type(scope, name, depth),
            };
            iterators::tuple_element(&tuple, position)
        }
        "for_expression" if is_pattern(holder) && simple(holder) => {
            let value = holder.child_by_field_name("value")?;
            iterators::item_type(scope, value, depth + 1)
        }
        // `let ref r = value;`: a reference to the value.
        "ref_pattern" => {
            let declaration = holder.parent().filter(|d| d.kind() == "let_declaration")?;
            if declaration.child_by_field_name("pattern")?.id() != holder.id() {
                return None;
            }
            let inner = match declaration.child_by_field_name("type") {
                Some(ty) => type_text(ty, scope.text),
                None => {
                    expression_type_at(scope, declaration.child_by_field_name("value")?, depth + 1)?
                }
            };
            Some(format!("&{inner}"))
        }
        // `let [a, b] = value;` of an array: each name is an element.
        "slice_pattern" => {
            let declaration = holder.parent().filter(|d| d.kind() == "let_declaration")?;
            let plain = holder
                .named_children(&mut holder.walk())
                .all(|c| c.kind() == "identifier");
            if declaration.child_by_field_name("pattern")?.id() != holder.id() || !plain {
                return None;
            }
            let ty = match declaration.child_by_field_name("type") {
                Some(ty) => type_text(ty, scope.text),
                None => {
                    expression_type_at(scope, declaration.child_by_field_name("value")?, depth + 1)?
                }
            };
            element_of(&ty).filter(|_| ty.starts_with('[') && ty.contains(';'))
        }
        // `if let Some(x) = ..`, `match r { Ok(v) => .. }`; a name of a `let` pattern the
        // function returns has its declared return type.
        "tuple_struct_pattern" => matched::binding_type(scope, name, depth).or_else(|| {
            let declaration = holder.parent().filter(|d| d.kind() == "let_declaration")?;
            uses::returned_type(scope, declaration, at)
        }),
        // `|x|` handed to an adaptor (`v.iter().map(|x| ..)`).
        "closure_parameters" => super::closures::adaptor_parameter(scope, holder, depth),
        _ => None,
    }
}

/// Whether the binding whose name starts at byte `at` is a `ref` binding (`let ref r = v;`):
/// it borrows a value of its own scope, so it cannot leave that scope.
pub fn binds_by_ref(root: Node<'_>, at: usize) -> bool {
    root.descendant_for_byte_range(at, at + 1)
        .and_then(|n| n.parent())
        .is_some_and(|p| p.kind() == "ref_pattern")
}

/// The type of an expression, when the source says it.
pub fn expression_type(scope: &TypeScope<'_, '_>, expr: Node<'_>) -> Option<String> {
    expression_type_at(scope, expr, 0)
}

pub(super) fn expression_type_at(
    scope: &TypeScope<'_, '_>,
    expr: Node<'_>,
    depth: usize,
) -> Option<String> {
    if depth > DEPTH {
        return None;
    }
    let text = scope.text;
    let deeper = |n: Node<'_>| expression_type_at(scope, n, depth + 1);
    match expr.kind() {
        "string_literal" | "raw_string_literal" => Some("&str".to_string()),
        "char_literal" => Some("char".to_string()),
        "boolean_literal" => Some("bool".to_string()),
        "unit_expression" => Some("()".to_string()),
        "integer_literal" | "float_literal" => literal_suffix(node_text(expr, text)),
        "parenthesized_expression" => deeper(expr.named_child(0)?),
        "type_cast_expression" => expr.child_by_field_name("type").map(|t| type_text(t, text)),
        "reference_expression" => {
            let inner = deeper(expr.child_by_field_name("value")?)?;
            let mutable = expr
                .children(&mut expr.walk())
                .any(|c| c.kind() == "mutable_specifier");
            Some(if mutable {
                format!("&mut {inner}")
            } else {
                format!("&{inner}")
            })
        }
        "unary_expression" => {
            let operand = deeper(expr.named_child(0)?)?;
            if node_text(expr, text).starts_with('*') {
                strip_reference(&operand).map(str::to_string)
            } else {
                Some(operand)
            }
        }
        "binary_expression" => binary_type(scope, expr, depth),
        "identifier" => {
            let binding = (scope.resolve)(node_text(expr, text), expr.start_byte())?;
            binding_type_at(scope, binding, depth + 1)
        }
        "field_expression" => field_type(scope, expr, depth),
        // `Kind::Variant`: a unit variant of the enum `Kind` (a CamelCase last segment; an
        // associated constant is SCREAMING_CASE).
        "scoped_identifier" => {
            let path = expr.child_by_field_name("path")?;
            let name = node_text(expr.child_by_field_name("name")?, text);
            let path_text = type_text(path, text);
            let last = path_text.rsplit("::").next().unwrap_or(&path_text);
            let camel = |s: &str| {
                s.chars().next().is_some_and(char::is_uppercase)
                    && s.chars().any(char::is_lowercase)
            };
            (camel(last) && camel(name) && path_text != "Self" && !path_text.contains('<'))
                .then_some(path_text)
        }
        "struct_expression" => {
            let name = expr.child_by_field_name("name")?;
            Some(type_text(name, text))
        }
        "tuple_expression" => {
            let parts: Option<Vec<String>> =
                expr.named_children(&mut expr.walk()).map(deeper).collect();
            parts.map(|p| format!("({})", p.join(", ")))
        }
        "call_expression" => call_type(scope, expr, depth),
        "array_expression" => array_type(scope, expr, depth),
        "closure_expression" => super::closures::closure_type(scope, expr, depth),
        "unsafe_block" => expr
            .named_children(&mut expr.walk())
            .find(|c| c.kind() == "block")
            .and_then(deeper),
        "if_expression" | "match_expression" => super::matched::branches_type(scope, expr, depth),
        "block" => {
            let tail = expr.named_children(&mut expr.walk()).last()?;
            (!tail.kind().ends_with("_statement") && !tail.kind().ends_with("_declaration"))
                .then_some(tail)
                .and_then(deeper)
        }
        "macro_invocation" => {
            let name = node_text(expr.child_by_field_name("macro")?, text);
            match name.rsplit("::").next().unwrap_or(name) {
                "format" => Some("String".to_string()),
                "matches" | "cfg" => Some("bool".to_string()),
                "concat" | "stringify" | "env" | "file" | "module_path" => Some("&str".to_string()),
                "line" | "column" => Some("u32".to_string()),
                _ => None,
            }
        }
        "try_expression" => {
            let inner = deeper(expr.named_child(0)?)?;
            match wrapper(&inner)? {
                (Wrapper::Result | Wrapper::Option, Some(value)) => Some(value),
                _ => None,
            }
        }
        "index_expression" => {
            let index = expr.named_child(1)?;
            if index.kind() == "range_expression" {
                return None;
            }
            element_of(&deeper(expr.named_child(0)?)?)
        }
        _ => None,
    }
}

/// `[a, b]` whose elements have one type `T` → `[T; 2]`; `[x; N]` → `[T; N]`.
fn array_type(scope: &TypeScope<'_, '_>, expr: Node<'_>, depth: usize) -> Option<String> {
    let elements: Vec<Node<'_>> = expr
        .named_children(&mut expr.walk())
        .filter(|c| c.kind() != "attribute_item")
        .collect();
    if let Some(length) = expr.child_by_field_name("length") {
        let element = elements.iter().find(|e| e.id() != length.id())?;
        let ty = expression_type_at(scope, *element, depth + 1)?;
        return Some(format!("[{ty}; {}]", node_text(length, scope.text)));
    }
    let mut types = elements
        .iter()
        .map(|e| expression_type_at(scope, *e, depth + 1));
    let first = types.next()??;
    types
        .all(|t| t.as_deref() == Some(first.as_str()))
        .then(|| format!("[{first}; {}]", elements.len()))
}

/// `1u8` → `u8`, `2.0_f32` → `f32`; no suffix: unknown (the type comes from inference).
fn literal_suffix(literal: &str) -> Option<String> {
    let literal = literal.replace('_', "");
    INTEGERS
        .iter()
        .chain(FLOATS)
        .find(|suffix| {
            literal.ends_with(*suffix) && !literal.starts_with("0x") && literal.len() > suffix.len()
        })
        .map(|s| s.to_string())
}

fn binary_type(scope: &TypeScope<'_, '_>, expr: Node<'_>, depth: usize) -> Option<String> {
    let operator = node_text(expr.child_by_field_name("operator")?, scope.text);
    if matches!(
        operator,
        "==" | "!=" | "<" | ">" | "<=" | ">=" | "&&" | "||"
    ) {
        return Some("bool".to_string());
    }
    let left = expression_type_at(scope, expr.child_by_field_name("left")?, depth + 1)?;
    // `&u32 * 2` is a `u32`.
    let left = match strip_reference(&left) {
        Some(inner) if INTEGERS.contains(&inner) || FLOATS.contains(&inner) => inner.to_string(),
        _ => left,
    };
    let numeric = INTEGERS.contains(&left.as_str()) || FLOATS.contains(&left.as_str());
    (numeric || left == "String" && operator == "+").then_some(left)
}

/// `self.f`, `local.f`, `x.0`: the field's declared type in a struct of this file, else of the
/// project's other files.
fn field_type(scope: &TypeScope<'_, '_>, expr: Node<'_>, depth: usize) -> Option<String> {
    let value = expr.child_by_field_name("value")?;
    let field = node_text(expr.child_by_field_name("field")?, scope.text);
    let owner = if value.kind() == "self" {
        scope.self_type?.to_string()
    } else {
        let ty = expression_type_at(scope, value, depth + 1)?;
        let bare = strip_references(&ty);
        bare.split('<').next().unwrap_or(bare).trim().to_string()
    };
    struct_field_type(scope.root, scope.text, &owner, field).or_else(|| {
        let asked = Elsewhere::Field {
            owner: &owner,
            field,
        };
        scope.elsewhere.and_then(|find| find(asked))
    })
}

/// The declared type of field `field` (a name or a position) of the struct `name` of this file.
pub fn struct_field_type(root: Node<'_>, text: &str, name: &str, field: &str) -> Option<String> {
    let mut found = None;
    crate::lang::walk_node(root, |n| {
        if found.is_some() {
            return false;
        }
        if n.kind() == "struct_item" {
            let named = n
                .child_by_field_name("name")
                .is_some_and(|x| node_text(x, text) == name);
            if named && let Some(body) = n.child_by_field_name("body") {
                found = field_in(body, text, field);
            }
            return false;
        }
        !matches!(n.kind(), "function_item" | "impl_item" | "trait_item")
    });
    found
}

fn field_in(body: Node<'_>, text: &str, field: &str) -> Option<String> {
    if body.kind() == "ordered_field_declaration_list" {
        let position = field.parse::<usize>().ok()?;
        let mut cursor = body.walk();
        let mut types = Vec::new();
        if cursor.goto_first_child() {
            loop {
                if cursor.field_name() == Some("type") {
                    types.push(type_text(cursor.node(), text));
                }
                if !cursor.goto_next_sibling() {
                    break;
                }
            }
        }
        return types.into_iter().nth(position);
    }
    let declarations = body
        .named_children(&mut body.walk())
        .filter(|c| matches!(c.kind(), "field_declaration" | "ordered_field_declaration"))
        .collect::<Vec<_>>();
    if let Ok(position) = field.parse::<usize>() {
        let declaration = declarations.get(position)?;
        return declaration
            .child_by_field_name("type")
            .map(|t| type_text(t, text));
    }
    declarations
        .iter()
        .find(|d| {
            d.child_by_field_name("name")
                .is_some_and(|n| node_text(n, text) == field)
        })
        .and_then(|d| d.child_by_field_name("type"))
        .map(|t| type_text(t, text))
}

/// A call's type: a function or method of this file with a declared return type, a `String`
/// constructor, or a method of the standard library whose result type is fixed.
fn call_type(scope: &TypeScope<'_, '_>, expr: Node<'_>, depth: usize) -> Option<String> {
    let text = scope.text;
    let function = expr.child_by_field_name("function")?;
    match function.kind() {
        "identifier" => {
            let name = node_text(function, text);
            // A local closure typed `impl FnOnce(u8) -> R` (a parameter): its `R`.
            if let Some(binding) = (scope.resolve)(name, function.start_byte()) {
                return binding_type_at(scope, binding, depth + 1)
                    .and_then(|ty| super::closures::closure_return(&ty));
            }
            if super::items::plain_tuple_struct(scope.root, text, name) {
                return Some(name.to_string());
            }
            function_return(scope.root, text, None, name).or_else(|| {
                let asked = Elsewhere::Return { owner: "", name };
                scope.elsewhere.and_then(|find| find(asked))
            })
        }
        "scoped_identifier" => {
            let path = type_text(function.child_by_field_name("path")?, text);
            let name = node_text(function.child_by_field_name("name")?, text);
            if path == "String" && matches!(name, "new" | "from" | "with_capacity") {
                return Some("String".to_string());
            }
            // std's, named by full paths (no import needed).
            match (path.as_str(), name) {
                ("str" | "std::str" | "core::str", "from_utf8") => {
                    return Some("Result<&str, std::str::Utf8Error>".to_string());
                }
                ("String" | "std::string::String", "from_utf8") => {
                    return Some("Result<String, std::string::FromUtf8Error>".to_string());
                }
                // std constructors of a type the file names (it is written right there).
                ("DefaultHasher" | "RandomState", "new") | ("Instant" | "SystemTime", "now") => {
                    return Some(path);
                }
                _ => {}
            }
            let arguments = expr.child_by_field_name("arguments")?;
            if let Some(ty) =
                super::std_types::call_type(scope, &format!("{path}::{name}"), arguments, depth)
            {
                return Some(ty);
            }
            let owner = if path == "Self" {
                scope.self_type?.to_string()
            } else {
                path.clone()
            };
            let returned = scope.method_return(&owner, name)?;
            Some(self_replaced(&returned, Some(&path)))
        }
        "field_expression" => {
            let receiver = function.child_by_field_name("value")?;
            let method = node_text(function.child_by_field_name("field")?, text);
            let arguments = expr.child_by_field_name("arguments")?;
            if method == "split"
                && let Some(pattern) = arguments.named_child(0)
                && arguments.named_child_count() == 1
            {
                // `s.split('.')`: std's `Split`, named by its full path (no import needed).
                let pattern = match pattern.kind() {
                    "char_literal" => "char",
                    "string_literal" => "&str",
                    _ => return None,
                };
                return expression_type_at(scope, receiver, depth + 1)
                    .filter(|t| is_str(t))
                    .map(|_| format!("std::str::Split<'_, {pattern}>"));
            }
            method_type(scope, receiver, method, depth)
        }
        _ => None,
    }
}

fn method_type(
    scope: &TypeScope<'_, '_>,
    receiver: Node<'_>,
    method: &str,
    depth: usize,
) -> Option<String> {
    match method {
        "len" | "count" | "capacity" => return Some("usize".to_string()),
        "is_empty" | "is_some" | "is_none" | "is_ok" | "is_err" | "contains" | "starts_with"
        | "ends_with" | "contains_key" | "is_ascii" => return Some("bool".to_string()),
        "to_string" | "to_uppercase" | "to_lowercase" | "to_ascii_uppercase"
        | "to_ascii_lowercase"
            if method.starts_with("to_string")
                || expression_type_at(scope, receiver, depth + 1).is_some_and(|t| is_str(&t)) =>
        {
            return Some("String".to_string());
        }
        _ => {}
    }
    if receiver.kind() == "self" {
        let owner = scope.self_type?;
        return scope.method_return(owner, method);
    }
    // `it.next()` of an iterator chain the source spells: its item.
    if matches!(method, "next" | "peek")
        && let Some(item) = iterators::local_iterator_item(scope, receiver, depth + 1)
    {
        return Some(if method == "next" {
            format!("Option<{item}>")
        } else {
            format!("Option<&{item}>")
        });
    }
    let receiver_type = expression_type_at(scope, receiver, depth + 1)?;
    match method {
        "to_owned" if is_str(&receiver_type) => Some("String".to_string()),
        "as_bytes" if is_str(&receiver_type) => Some("&[u8]".to_string()),
        "unwrap" | "expect" | "unwrap_or_default" | "unwrap_or" | "unwrap_or_else" => {
            match wrapper(&receiver_type)? {
                (_, Some(value)) => Some(value),
                _ => None,
            }
        }
        // `Result<T, E>::ok()` is an `Option<T>`.
        "ok" => match wrapper(&receiver_type)? {
            (Wrapper::Result, Some(value)) => Some(format!("Option<{value}>")),
            _ => None,
        },
        _ if NUMBER_SAME_TYPE.contains(&method)
            && (INTEGERS.contains(&receiver_type.as_str())
                || FLOATS.contains(&receiver_type.as_str())) =>
        {
            Some(receiver_type)
        }
        "clone" | "to_owned" => match strip_reference(&receiver_type) {
            Some(inner) if !is_unsized(inner) => Some(inner.to_string()),
            Some(_) => Some(receiver_type),
            None => Some(receiver_type),
        },
        _ => {
            let bare = strip_references(&receiver_type);
            let owner = bare.split('<').next().unwrap_or(bare).trim();
            // `rhs: &Self` in an impl: the methods of the impl's type.
            let owner = match owner {
                "Self" => scope.self_type?,
                _ => owner,
            };
            scope
                .method_return(owner, method)
                .map(|ty| self_replaced(&ty, Some(owner)))
                .or_else(|| {
                    super::std_types::method_type(scope.root, scope.text, &receiver_type, method)
                })
        }
    }
}

/// `Self` in a type read from an associated function, spelled with the path of the call
/// (`Type::new()` → `Type`); kept as `Self` for `Self::new()`.
pub fn self_replaced(ty: &str, path: Option<&str>) -> String {
    match path {
        Some(path) if path != "Self" => replace_word(ty, "Self", path),
        _ => ty.to_string(),
    }
}

fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(i) = rest.find(word) {
        let before = rest[..i].chars().last();
        let after = rest[i + word.len()..].chars().next();
        let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        out.push_str(&rest[..i]);
        if is_word(before) || is_word(after) {
            out.push_str(word);
        } else {
            out.push_str(with);
        }
        rest = &rest[i + word.len()..];
    }
    out.push_str(rest);
    out
}

/// The declared return type of the function `name` of this file: a free function (`owner`
/// `None`) or an associated function of an impl of `owner`. `()` when it declares none; unknown
/// when it declares its own generic parameters (the caller's types decide them).
pub fn function_return(
    root: Node<'_>,
    text: &str,
    owner: Option<&str>,
    name: &str,
) -> Option<String> {
    let function = function_item(root, text, owner, name)?;
    let returned = return_type(function, text).unwrap_or_else(|| "()".to_string());
    // A generic function's result is the caller's business unless the signature states it
    // without the generics (`fn parse<S: AsRef<str>>(s: S) -> Version`).
    let generic = function
        .child_by_field_name("type_parameters")
        .is_some_and(|list| {
            list.named_children(&mut list.walk()).any(|parameter| {
                let name = match parameter.kind() {
                    "lifetime" => Some(parameter),
                    _ => parameter
                        .child_by_field_name("name")
                        .or_else(|| parameter.named_child(0)),
                };
                name.is_none_or(|n| super::generics::mentions(&returned, node_text(n, text)))
            })
        });
    (!generic && !returned.contains("impl ")).then_some(returned)
}

/// The function `name` of this file: a free function (`owner` `None`) or an associated
/// function of an impl of `owner` (the first one found).
pub(super) fn function_item<'t>(
    root: Node<'t>,
    text: &str,
    owner: Option<&str>,
    name: &str,
) -> Option<Node<'t>> {
    let mut found: Option<Node<'t>> = None;
    crate::lang::walk_node(root, |n| {
        if found.is_some() {
            return false;
        }
        match n.kind() {
            "impl_item" => owner.is_some_and(|o| super::items::impl_type_name(n, text) == o),
            "function_item" => {
                let named = n
                    .child_by_field_name("name")
                    .is_some_and(|x| node_text(x, text) == name);
                let in_impl = n
                    .parent()
                    .and_then(|p| p.parent())
                    .is_some_and(|p| p.kind() == "impl_item");
                if named && in_impl == owner.is_some() {
                    found = Some(n);
                }
                false
            }
            "source_file" | "mod_item" | "declaration_list" => true,
            _ => false,
        }
    });
    found
}

/// `Vec<T>`, `VecDeque<T>`, `[T; N]`, `[T]`, `&[T]` → `T`.
pub(super) fn element_of(ty: &str) -> Option<String> {
    let ty = strip_references(ty);
    if let Some(inner) = ty.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let element = split_top_level(inner, ';')
            .into_iter()
            .next()
            .unwrap_or_default();
        return Some(element.trim().to_string()).filter(|e| !e.is_empty());
    }
    let (head, arguments) = generic_parts(ty)?;
    let last = head.rsplit("::").next().unwrap_or(&head);
    match (last, arguments.as_slice()) {
        ("Vec" | "VecDeque" | "HashSet" | "BTreeSet" | "BinaryHeap" | "LinkedList", [element]) => {
            Some(element.clone())
        }
        _ => None,
    }
}

/// `Path<A, B>` → (`Path`, [`A`, `B`]).
pub(super) fn generic_parts(ty: &str) -> Option<(String, Vec<String>)> {
    let open = ty.find('<')?;
    let inner = ty.strip_suffix('>')?.get(open + 1..)?;
    let arguments = split_top_level(inner, ',')
        .into_iter()
        .map(|a| a.trim().to_string())
        .filter(|a| !a.is_empty())
        .collect();
    Some((ty[..open].trim().to_string(), arguments))
}

/// The names a type's text holds that an import could bring (the first segment of each path,
/// primitives and lifetimes left out): `Result<(Comparator, &str), io::Error>` →
/// [`Result`, `Comparator`, `io`].
pub fn type_names(ty: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut previous = ' ';
    let mut rest = ty;
    while let Some(start) = rest.find(|c: char| c.is_alphanumeric() || c == '_') {
        let before = rest[..start].chars().last().unwrap_or(previous);
        let word_len = rest[start..]
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len() - start);
        let word = &rest[start..start + word_len];
        let after_path = rest[..start].ends_with("::");
        let primitive = INTEGERS.contains(&word)
            || FLOATS.contains(&word)
            || matches!(
                word,
                "bool" | "char" | "str" | "mut" | "const" | "dyn" | "impl" | "fn"
            );
        if before != '\'' && !after_path && !primitive && !word.starts_with(char::is_numeric) {
            out.push(word);
        }
        previous = word.chars().last().unwrap_or(' ');
        rest = &rest[start + word_len..];
    }
    out
}

/// `text` split at `separator` outside brackets (`<..>`, `(..)`, `[..]`).
pub fn split_top_level(text: &str, separator: char) -> Vec<String> {
    let mut parts = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    let mut previous = ' ';
    for c in text.chars() {
        match c {
            '<' | '(' | '[' => depth += 1,
            // `->` of a function type closes nothing.
            '>' if previous == '-' => {}
            '>' | ')' | ']' => depth -= 1,
            _ => {}
        }
        previous = c;
        if c == separator && depth == 0 {
            parts.push(std::mem::take(&mut current));
        } else {
            current.push(c);
        }
    }
    parts.push(current);
    parts
}

pub(super) fn is_str(ty: &str) -> bool {
    matches!(
        ty,
        "&str" | "&'static str" | "String" | "&String" | "&mut String"
    )
}

fn is_unsized(ty: &str) -> bool {
    ty == "str" || ty.starts_with('[') && !ty.contains(';') || ty.starts_with("dyn ")
}

/// `&T`/`&'a T`/`&mut T` → `T`; `None` for a type that is not a reference.
pub fn strip_reference(ty: &str) -> Option<&str> {
    let rest = ty.strip_prefix('&')?.trim_start();
    let rest = match rest.strip_prefix('\'') {
        Some(lifetime) => lifetime
            .find(char::is_whitespace)
            .map_or("", |i| lifetime[i..].trim_start()),
        None => rest,
    };
    Some(rest.strip_prefix("mut ").unwrap_or(rest).trim_start())
}

pub(super) fn strip_references(ty: &str) -> &str {
    let mut ty = ty;
    while let Some(inner) = strip_reference(ty) {
        ty = inner;
    }
    ty
}

/// Whether a value of this type is copied, not moved: the primitive scalars, shared references,
/// raw pointers, function pointers, and tuples and arrays of those.
pub fn is_copy(ty: &str) -> bool {
    let ty = ty.trim();
    if INTEGERS.contains(&ty) || FLOATS.contains(&ty) || matches!(ty, "bool" | "char" | "()") {
        return true;
    }
    if ty.starts_with('&') {
        return !is_mutable_reference(ty);
    }
    if ty.starts_with("*const ") || ty.starts_with("*mut ") || ty.starts_with("fn(") {
        return true;
    }
    if let Some(inner) = ty.strip_prefix("Option<").and_then(|t| t.strip_suffix('>')) {
        return is_copy(inner);
    }
    if let Some(inner) = ty.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        return split_top_level(inner, ',')
            .iter()
            .filter(|p| !p.trim().is_empty())
            .all(|p| is_copy(p));
    }
    if let Some(inner) = ty.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        let parts = split_top_level(inner, ';');
        return parts.len() == 2 && is_copy(&parts[0]);
    }
    false
}

/// `&mut T`, `&'a mut T`.
pub fn is_mutable_reference(ty: &str) -> bool {
    let Some(rest) = ty.trim().strip_prefix('&') else {
        return false;
    };
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix('\'') {
        Some(lifetime) => lifetime
            .find(char::is_whitespace)
            .map_or("", |i| lifetime[i..].trim_start()),
        None => rest,
    };
    rest.starts_with("mut ")
}

/// Whether a type holds a reference whose lifetime is elided (`&str`, `Formatter<'_>`).
pub fn has_elided_lifetime(ty: &str) -> bool {
    ty.contains("'_")
        || ty.match_indices('&').any(|(i, _)| {
            let after = ty[i + 1..].trim_start();
            !after.starts_with('\'') && !after.starts_with('&')
        })
}

/// What wraps a fallible function's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wrapper {
    Result,
    Option,
}

/// `Result<T, E>` / `io::Result<T>` / `fmt::Result` / `Option<T>`: the wrapper and its value
/// type (`None` when the alias fixes it, as `fmt::Result`).
pub fn wrapper(ty: &str) -> Option<(Wrapper, Option<String>)> {
    let ty = ty.trim();
    let head = ty.split('<').next().unwrap_or(ty).trim();
    let last = head.rsplit("::").next().unwrap_or(head);
    let kind = match last {
        "Result" => Wrapper::Result,
        "Option" => Wrapper::Option,
        _ => return None,
    };
    if !ty.contains('<') {
        return Some((kind, None));
    }
    let (_, arguments) = generic_parts(ty)?;
    Some((kind, arguments.into_iter().next()))
}

/// `Result<T, E>` with `T` replaced by `value` (`io::Result<T>` → `io::Result<value>`); `None`
/// when the type fixes its value (`fmt::Result`).
pub fn with_value(ty: &str, value: &str) -> Option<String> {
    let (head, mut arguments) = generic_parts(ty.trim())?;
    let first = arguments.first_mut()?;
    *first = value.to_string();
    Some(format!("{head}<{}>", arguments.join(", ")))
}

/// `Self::Name` in a type read from a trait impl, replaced by the impl's `type Name = T;`
/// (a new function outside that impl cannot name the trait's associated type through `Self`).
/// `None` when a `Self::` path is left that the impl does not define.
pub fn without_associated_types(ty: &str, impl_item: Node<'_>, text: &str) -> Option<String> {
    if !ty.contains("Self::") {
        return Some(ty.to_string());
    }
    let body = impl_item.child_by_field_name("body")?;
    let mut out = ty.to_string();
    for item in body.named_children(&mut body.walk()) {
        if item.kind() != "type_item" {
            continue;
        }
        let (Some(name), Some(value)) = (
            item.child_by_field_name("name"),
            item.child_by_field_name("type"),
        ) else {
            continue;
        };
        let path = format!("Self::{}", node_text(name, text));
        out = replace_word(&out, &path, &type_text(value, text));
    }
    (!out.contains("Self::")).then_some(out)
}

/// The declared return type of a function (`-> T`), when it has one.
pub fn return_type(function: Node<'_>, text: &str) -> Option<String> {
    function
        .child_by_field_name("return_type")
        .map(|t| type_text(t, text))
}

#[cfg(test)]
#[path = "types_tests.rs"]
mod tests;
