//! Inline function for Rust. Every call becomes a block expression
//! `{ let a: T = x; ...body... }`: blocks are expressions, so this is sound for a value
//! (`let y = f(x);`, `g(f(x))`, a tail) and for a statement alike, and the bindings cannot leak
//! into the caller. A final `return v;` becomes the tail `v`; any other `return`, a `?`, or a
//! macro that may return makes the body unsafe to paste and is refused. Methods: `self.m()`
//! inside the same type's impl keeps `self`; `Type::m(recv, ..)` binds `recv` to a fresh name
//! that replaces `self` in the body; `recv.m()` with another receiver is left (no type
//! analysis: the heuristic cannot know `recv` is of this type).

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::Node;

use super::layout::{
    ends_its_line, line_end_with_newline, line_start, remove_list_item, remove_whole_lines,
    starts_its_line,
};
use super::snippet::{self, Layout, Splice};
use super::{Facts, Inlined, Owner, Parsed, RefVerdict, Target, fresh_name, mentions_word};
use crate::edit::TextEdit;
use crate::lang::calls::{CallForm, CallSite, Reference, ReferenceKind, TextMention, text_mention};
use crate::lang::locals::Locals;
use crate::lang::locals::is_rust_binding;
use crate::lang::symbols::{Symbol, SymbolKind};
use crate::lang::{Language, node_text, walk_node};
use crate::lang::{holding, up_from, walk_node_with_ancestors};
use crate::refactor::{Finding, RefactorError};

/// Attributes that do not change what a call does (anything else is refused).
const HARMLESS_ATTRIBUTES: &[&str] = &[
    "inline",
    "must_use",
    "allow",
    "warn",
    "deny",
    "expect",
    "forbid",
    "doc",
    "deprecated",
    "track_caller",
    "cold",
];

/// Macros known to return from the function they are written in.
const RETURNING_MACROS: &[&str] = &["bail", "ensure", "try", "ready"];

/// Standard macros whose arguments are ordinary expressions: a call written in them can be
/// inlined like any other (as a block expression).
const EXPRESSION_MACROS: &[&str] = &[
    "println",
    "print",
    "eprintln",
    "eprint",
    "format",
    "format_args",
    "write",
    "writeln",
    "panic",
    "assert",
    "assert_eq",
    "assert_ne",
    "debug_assert",
    "debug_assert_eq",
    "debug_assert_ne",
    "vec",
    "dbg",
    "todo",
    "unimplemented",
    "unreachable",
];

/// Primitive types that are `Copy`: a binding `let a: T = a;` of them changes nothing.
const COPY_PRIMITIVES: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64", "bool", "char",
];

/// Nodes with their own `return`/`?` target: what happens inside does not leave the body.
const OWN_EXIT: &[&str] = &[
    "closure_expression",
    "function_item",
    "async_block",
    "impl_item",
    "trait_item",
    "mod_item",
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// A function of a module; `module` is its path from the crate root (`["net", "http"]`).
    Free { module: Vec<String> },
    /// A function declared inside another function's body: callable only within `scope`.
    Local { scope: Range<usize> },
    /// A method or associated function of an inherent `impl`.
    Method(MethodInfo),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct MethodInfo {
    /// `Point` for `impl<T> Point<T>`.
    type_name: String,
    /// The impl's self type as written (`Point<T>`).
    type_text: String,
    /// The impl declares generic parameters (then `Self` cannot be spelled outside it).
    generic: bool,
    /// Names of the impl's generic parameters.
    generic_names: Vec<String>,
    self_param: Option<SelfParam>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct SelfParam {
    /// The type `self` has: `&Self`, `&mut Self`, `Self`, or the explicit type.
    ty: String,
    mutable: bool,
}

#[derive(Debug, Clone)]
struct Param {
    /// The pattern as written, `mut` included (`mut a`, `(x, y)`).
    pattern: String,
    /// The name when the pattern is a plain identifier without `mut`.
    simple: Option<String>,
    ty: String,
    /// The type cannot be written at a call site (`impl Trait`, the function's generics).
    type_unwritable: bool,
}

pub(super) struct RustTarget<'a> {
    def: &'a Parsed<'a>,
    symbol: &'a Symbol,
    name: String,
    kind: Kind,
    params: Vec<Param>,
    unit_return: bool,
    /// The body's statements (from the first to the last, comments included).
    body: Option<Range<usize>>,
    /// Edits turning the final `return v;` into the tail `v`.
    tail_splices: Vec<Splice>,
    /// `self` (the receiver) in the body.
    self_ranges: Vec<Range<usize>>,
    /// `Self` in the body.
    self_type_ranges: Vec<Range<usize>>,
    /// Line of a use of the impl's generic parameters in the body.
    impl_generic_use: Option<usize>,
    protected: Vec<Range<usize>>,
    /// Identifiers and type names the body uses without binding them.
    free: BTreeSet<String>,
    /// The body reads fields or builds structs (privacy matters in another module).
    touches_fields: bool,
    /// Names defined or imported at the top of the definition's file.
    module_names: BTreeSet<String>,
    is_pub: bool,
    /// The function or its impl declares generic parameters.
    generic: bool,
    /// Another free function of the definition's file has the same name.
    defined_twice: bool,
    last_in_container: bool,
    /// Identifier-like words of the body, to pick fresh names.
    body_text: String,
    /// The body is one expression (or `return expr;`): its range and node kind.
    single_value: Option<(Range<usize>, String)>,
    /// The value the body ends with, when its type may come from the declared return type
    /// (`s.parse().ok()`, `None`, a `*mut` returned as `*const`): its range, and the return
    /// type with whether it can be written at a call site. Inlined, the value is bound with
    /// that type so it keeps it.
    typed_tail: Option<TypedTail>,
}

struct TypedTail {
    value: Range<usize>,
    ty: String,
    unwritable: bool,
}

fn error(message: impl Into<String>) -> RefactorError {
    RefactorError::Unsupported(message.into())
}

/// The module path of a file from its crate root: `src/net/http.rs` → `["net", "http"]`,
/// `src/net/mod.rs` → `["net"]`, `src/lib.rs` → `[]`.
fn file_module(path: &str) -> Vec<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let start = parts.iter().rposition(|p| *p == "src").map_or(0, |i| i + 1);
    let mut segments: Vec<String> = parts[start.min(parts.len())..]
        .iter()
        .map(|p| p.strip_suffix(".rs").unwrap_or(p).to_string())
        .collect();
    if segments.last().is_some_and(|l| l == "mod")
        || (segments.len() == 1 && (segments[0] == "lib" || segments[0] == "main"))
    {
        segments.pop();
    }
    segments
}

/// The module path of the code at `node`: its file's, plus the inline `mod`s around it.
fn module_at(file_path: &str, node: Node<'_>, text: &str) -> Vec<String> {
    let mut inner = Vec::new();
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "mod_item"
            && let Some(name) = n.child_by_field_name("name")
        {
            inner.push(node_text(name, text).to_string());
        }
        current = n.parent();
    }
    inner.reverse();
    let mut path = file_module(file_path);
    path.extend(inner);
    path
}

/// The module paths a `use`/call path prefix (`crate::a`, `super`, `utils`) may mean, written
/// in module `here`.
fn resolve_prefix(prefix: &str, here: &[String]) -> Vec<Vec<String>> {
    let segments: Vec<&str> = prefix
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let Some(first) = segments.first() else {
        return vec![here.to_vec()];
    };
    let owned = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match *first {
        "crate" => vec![owned(&segments[1..])],
        "self" => {
            let mut p = here.to_vec();
            p.extend(owned(&segments[1..]));
            vec![p]
        }
        "super" => {
            let mut p = here.to_vec();
            let mut rest = &segments[..];
            while rest.first() == Some(&"super") {
                if p.pop().is_none() {
                    return Vec::new();
                }
                rest = &rest[1..];
            }
            p.extend(owned(rest));
            vec![p]
        }
        _ => {
            // A child module of `here`, or a crate name (the crate's own, from a binary or a
            // test), or a 2015-style path from the root.
            let mut relative = here.to_vec();
            relative.extend(owned(&segments));
            vec![relative, owned(&segments[1..]), owned(&segments)]
        }
    }
}

/// `Foo` for `Foo`, `Foo<T>`, `crate::m::Foo<T>`, `&'a mut Foo` (the last path segment).
fn type_name_of(text: &str) -> String {
    let t = text.trim().trim_start_matches('&').trim();
    let t = t.strip_prefix("mut ").unwrap_or(t);
    let t = if t.starts_with('\'') {
        t.split_once(' ').map_or(t, |(_, r)| r)
    } else {
        t
    };
    let t = t
        .split('<')
        .next()
        .unwrap_or(t)
        .trim()
        .trim_end_matches("::");
    t.rsplit("::").next().unwrap_or(t).trim().to_string()
}

fn attribute_name(attribute: &str) -> String {
    let inner = attribute
        .trim()
        .trim_start_matches("#")
        .trim_start_matches('!')
        .trim();
    let inner = inner.trim_start_matches('[').trim_end_matches(']').trim();
    let end = inner.find(['(', '=', ' ']).unwrap_or(inner.len());
    inner[..end].trim().to_string()
}

fn is_harmless_attribute(name: &str) -> bool {
    HARMLESS_ATTRIBUTES.contains(&name)
        || name.starts_with("clippy::")
        || name.starts_with("rustfmt::")
}

/// The impl (or trait) a function item is directly in.
fn enclosing_impl(node: Node<'_>) -> Option<Node<'_>> {
    let parent = node.parent()?;
    if parent.kind() != "declaration_list" {
        return None;
    }
    parent
        .parent()
        .filter(|p| matches!(p.kind(), "impl_item" | "trait_item"))
}

/// The innermost impl containing `node`, skipping nothing (a closure or a nested fn in a
/// method still sees the impl's `Self`, but a nested fn item does not see `self`).
fn impl_around(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "impl_item" {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

fn impl_type_name(impl_node: Node<'_>, text: &str) -> Option<String> {
    impl_node
        .child_by_field_name("type")
        .map(|t| type_name_of(node_text(t, text)))
}

/// Names declared by a `<...>` generic parameter list (types, lifetimes with their `'`, consts).
fn generic_names(list: Option<Node<'_>>, text: &str) -> Vec<String> {
    let Some(list) = list else { return Vec::new() };
    let mut names = Vec::new();
    let mut cursor = list.walk();
    for p in list.named_children(&mut cursor) {
        let name = p.child_by_field_name("name").or_else(|| p.named_child(0));
        if let Some(n) = name {
            names.push(node_text(n, text).to_string());
        }
    }
    names
}

/// Whether a subtree mentions one of `names` (type names, const names or `'lifetimes`).
fn mentions_any<'n>(node: Node<'_>, text: &str, names: &'n [String]) -> Option<(&'n str, usize)> {
    let mut found = None;
    walk_node(node, |n| {
        if found.is_some() {
            return false;
        }
        if matches!(n.kind(), "type_identifier" | "identifier" | "lifetime") {
            let t = node_text(n, text);
            if let Some(name) = names.iter().find(|x| x.as_str() == t) {
                found = Some((name.as_str(), n.start_position().row + 1));
            }
            return false;
        }
        true
    });
    found
}

/// Names a subtree binds in patterns (`let`, parameters, closures, `for`, `match`, `if let`).
fn bound_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    walk_node_with_ancestors(root, |n, ancestors| {
        if n.kind() == "identifier" && is_rust_binding(n, ancestors) {
            names.insert(node_text(n, text).to_string());
        }
        true
    });
    names
}

/// Identifiers and type names a subtree uses (path roots only, no fields, no lifetimes).
fn used_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    walk_node_with_ancestors(root, |n, ancestors| match n.kind() {
        "identifier" | "type_identifier" => {
            let parent = up_from(n, ancestors).next();
            let skip = parent.is_some_and(|p| {
                p.kind() == "lifetime"
                    || (matches!(p.kind(), "scoped_identifier" | "scoped_type_identifier")
                        && p.child_by_field_name("name")
                            .is_some_and(|x| x.id() == n.id()))
                    || (p.kind() == "macro_invocation"
                        && p.child_by_field_name("macro")
                            .is_some_and(|x| x.id() == n.id()))
            });
            if !skip && !is_rust_binding(n, ancestors) {
                names.insert(node_text(n, text).to_string());
            }
            false
        }
        _ => true,
    });
    names
}

/// Names a file defines or imports at its top level.
fn module_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut cursor = root.walk();
    for item in root.named_children(&mut cursor) {
        if item.kind() == "use_declaration" {
            walk_node(item, |n| {
                match n.kind() {
                    "use_as_clause" => {
                        names.extend(
                            n.child_by_field_name("alias")
                                .map(|a| node_text(a, text).to_string()),
                        );
                        return false;
                    }
                    "scoped_identifier" => {
                        names.extend(
                            n.child_by_field_name("name")
                                .map(|a| node_text(a, text).to_string()),
                        );
                        return false;
                    }
                    "identifier" => {
                        names.insert(node_text(n, text).to_string());
                    }
                    _ => {}
                }
                true
            });
        } else if let Some(name) = item.child_by_field_name("name") {
            names.insert(node_text(name, text).to_string());
        }
    }
    names
}

/// Whether a node is the receiver `self` (not the `self` of a path like `self::m`).
fn is_receiver_self(n: Node<'_>) -> bool {
    if n.kind() != "self" {
        return false;
    }
    let in_path = n.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "scoped_identifier"
                | "scoped_type_identifier"
                | "scoped_use_list"
                | "use_declaration"
                | "visibility_modifier"
        )
    });
    let before_path = n.next_sibling().is_some_and(|s| s.kind() == "::");
    !in_path && !before_path
}

/// `{` and `}` of a block node are its first and last children.
fn block_statements(block: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = block.walk();
    block.named_children(&mut cursor).collect()
}

impl<'a> RustTarget<'a> {
    pub fn analyze(
        def: &'a Parsed<'a>,
        symbols: &'a [Symbol],
        symbol: &'a Symbol,
    ) -> Result<Box<dyn Target + 'a>, RefactorError> {
        let text = def.text();
        let name = symbol.name.clone();
        let line = symbol.line;
        let item = def
            .tree
            .root_node()
            .descendant_for_byte_range(symbol.name_range.start, symbol.name_range.end)
            .and_then(|n| n.parent())
            .filter(|n| matches!(n.kind(), "function_item" | "function_signature_item"))
            .ok_or_else(|| {
                error(format!(
                    "could not find the definition of `{name}` in the syntax tree"
                ))
            })?;
        if item.kind() == "function_signature_item" {
            return Err(error(format!(
                "`{name}` (line {line}) is a declaration without a body; there is nothing to inline"
            )));
        }
        // Attributes directly above the function.
        let mut previous = item.prev_named_sibling();
        while let Some(p) = previous {
            if p.start_byte() < symbol.full_range.start {
                break;
            }
            if p.kind() == "attribute_item" {
                let attribute = attribute_name(node_text(p, text));
                if !is_harmless_attribute(&attribute) {
                    return Err(error(format!(
                        "`{name}` has the attribute `#[{attribute}]` (line {}); inlining would drop what it does, so candor does not inline it",
                        p.start_position().row + 1
                    )));
                }
            }
            previous = p.prev_named_sibling();
        }
        let mut cursor = item.walk();
        let mut is_pub = false;
        for child in item.children(&mut cursor) {
            match child.kind() {
                "function_modifiers"
                    if node_text(child, text)
                        .split_whitespace()
                        .any(|w| w == "async") =>
                {
                    return Err(error(format!(
                        "`{name}` (line {line}) is `async`: a call makes a future, so the body cannot replace it; inline it by hand"
                    )));
                }
                "visibility_modifier" => is_pub = node_text(child, text).trim() == "pub",
                _ => {}
            }
        }

        let container = symbol.container.and_then(|c| symbols.get(c));
        let kind = match container.map(|c| c.kind) {
            Some(SymbolKind::Trait) => {
                return Err(error(format!(
                    "`{name}` (line {line}) is a trait method; implementations and callers go through the trait, so it cannot be inlined"
                )));
            }
            Some(SymbolKind::Impl) => {
                let impl_node = enclosing_impl(item)
                    .ok_or_else(|| error(format!("could not find the impl of `{name}`")))?;
                if let Some(tr) = impl_node.child_by_field_name("trait") {
                    return Err(error(format!(
                        "`{name}` (line {line}) implements the trait `{}`; the impl needs it, so it cannot be removed or inlined",
                        node_text(tr, text)
                    )));
                }
                let type_text = impl_node
                    .child_by_field_name("type")
                    .map(|t| node_text(t, text).to_string())
                    .unwrap_or_default();
                let generic_names =
                    generic_names(impl_node.child_by_field_name("type_parameters"), text);
                Kind::Method(MethodInfo {
                    type_name: type_name_of(&type_text),
                    generic: !generic_names.is_empty(),
                    generic_names,
                    type_text,
                    self_param: None,
                })
            }
            Some(k) if k.is_function() => Kind::Local {
                scope: container.map(|c| c.range.clone()).unwrap_or_default(),
            },
            _ => Kind::Free {
                module: module_at(def.path(), item, text),
            },
        };
        let mut kind = kind;

        let fn_generics = generic_names(item.child_by_field_name("type_parameters"), text);
        let parameters = item.child_by_field_name("parameters");
        let mut params = Vec::new();
        if let Some(list) = parameters {
            let mut cursor = list.walk();
            for p in list.named_children(&mut cursor) {
                let pline = p.start_position().row + 1;
                match p.kind() {
                    "self_parameter" => {
                        let written = node_text(p, text);
                        let reference = written.trim_start().starts_with('&');
                        let mutable = written.contains("mut");
                        let ty = match (reference, mutable) {
                            (true, true) => "&mut Self",
                            (true, false) => "&Self",
                            (false, _) => "Self",
                        };
                        if let Kind::Method(info) = &mut kind {
                            info.self_param = Some(SelfParam {
                                ty: ty.to_string(),
                                mutable: mutable && !reference,
                            });
                        }
                    }
                    "parameter" => {
                        let pattern = p.child_by_field_name("pattern");
                        let ty = p.child_by_field_name("type");
                        let (Some(pattern), Some(ty)) = (pattern, ty) else {
                            return Err(error(format!(
                                "could not read a parameter of `{name}` at line {pline}"
                            )));
                        };
                        if pattern.kind() == "self" {
                            if let Kind::Method(info) = &mut kind {
                                info.self_param = Some(SelfParam {
                                    ty: node_text(ty, text).to_string(),
                                    mutable: node_text(p, text).trim_start().starts_with("mut"),
                                });
                            }
                            continue;
                        }
                        let mutable = {
                            let mut c = p.walk();
                            p.children(&mut c).any(|x| x.kind() == "mutable_specifier")
                        };
                        let pattern_text = text[p.start_byte()..pattern.end_byte()].to_string();
                        let mut unwritable = mentions_any(ty, text, &fn_generics).is_some();
                        walk_node(ty, |n| {
                            unwritable |= n.kind() == "abstract_type";
                            true
                        });
                        params.push(Param {
                            simple: (pattern.kind() == "identifier" && !mutable)
                                .then(|| node_text(pattern, text).to_string()),
                            pattern: pattern_text,
                            ty: node_text(ty, text).to_string(),
                            type_unwritable: unwritable,
                        });
                    }
                    "variadic_parameter" => {
                        return Err(error(format!(
                            "`{name}` is variadic (line {pline}); it cannot be inlined"
                        )));
                    }
                    _ => {}
                }
            }
        }
        let unit_return = item
            .child_by_field_name("return_type")
            .is_none_or(|r| node_text(r, text).split_whitespace().collect::<String>() == "()");

        let block = item
            .child_by_field_name("body")
            .ok_or_else(|| error(format!("`{name}` has no body")))?;
        if let Some((generic, gline)) = mentions_any(block, text, &fn_generics) {
            return Err(error(format!(
                "the body of `{name}` uses its generic parameter `{generic}` (line {gline}), which means nothing at the call sites; inline it by hand"
            )));
        }
        check_exits(block, text, &name)?;
        let statements = block_statements(block);
        let code: Vec<Node<'_>> = statements
            .iter()
            .copied()
            .filter(|s| !s.kind().ends_with("comment"))
            .collect();
        let mut tail_splices: Vec<Splice> = Vec::new();
        let mut returns: Vec<Node<'_>> = Vec::new();
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
        if let Some(early) = returns
            .iter()
            .find(|r| final_return.is_none_or(|(f, _)| f.id() != r.id()))
        {
            return Err(error(format!(
                "`{name}` returns before its end (`return` at line {}, not in a final position); inlined, that `return` would leave the caller instead, so candor does not inline it",
                early.start_position().row + 1
            )));
        }
        if let Some((ret, statement)) = final_return {
            match ret.named_child(0) {
                Some(value) => {
                    tail_splices.push((ret.start_byte()..value.start_byte(), String::new()));
                    if statement.id() != ret.id() {
                        tail_splices.push((ret.end_byte()..statement.end_byte(), String::new()));
                    }
                }
                None => tail_splices.push((statement.byte_range(), String::new())),
            }
        }
        let body = match (statements.first(), statements.last()) {
            (Some(first), Some(last)) => Some(first.start_byte()..last.end_byte()),
            _ => None,
        };
        let single_value = match statements.as_slice() {
            [only] => {
                let value = match only.kind() {
                    "expression_statement" | "return_expression" => final_return
                        .filter(|(_, statement)| statement.id() == only.id())
                        .and_then(|(ret, _)| ret.named_child(0)),
                    "let_declaration" | "empty_statement" => None,
                    k if k.ends_with("_item") || k.ends_with("comment") => None,
                    _ => Some(*only),
                };
                value.map(|v| (v.byte_range(), v.kind().to_string()))
            }
            _ => None,
        };

        let tail_value = match final_return {
            Some((ret, _)) => ret.named_child(0),
            None => code.last().copied().and_then(|last| {
                let open = !node_text(last, text).trim_end().ends_with(';');
                match last.kind() {
                    "let_declaration" | "empty_statement" | "macro_invocation" => None,
                    k if k.ends_with("_item") => None,
                    "expression_statement" => last.named_child(0).filter(|_| open),
                    _ => Some(last),
                }
            }),
        };
        let typed_tail = item
            .child_by_field_name("return_type")
            .filter(|_| !unit_return)
            .zip(tail_value)
            .filter(|(ty, value)| type_comes_from_return(*ty, *value, text))
            .map(|(ty, value)| {
                let mut unwritable = mentions_any(ty, text, &fn_generics).is_some();
                walk_node(ty, |n| {
                    unwritable |= matches!(n.kind(), "abstract_type" | "lifetime");
                    true
                });
                TypedTail {
                    value: value.byte_range(),
                    ty: node_text(ty, text).to_string(),
                    unwritable,
                }
            });

        let mut self_ranges = Vec::new();
        let mut self_type_ranges = Vec::new();
        let mut protected = Vec::new();
        let mut touches_fields = false;
        walk_node(block, |n| {
            match n.kind() {
                "self" if is_receiver_self(n) => self_ranges.push(n.byte_range()),
                "type_identifier" | "identifier" if node_text(n, text) == "Self" => {
                    self_type_ranges.push(n.byte_range())
                }
                "string_literal" | "raw_string_literal"
                    if n.start_position().row != n.end_position().row =>
                {
                    protected.push(n.byte_range());
                }
                "field_expression" | "struct_expression" => touches_fields = true,
                _ => {}
            }
            true
        });
        let impl_generic_use = match &kind {
            Kind::Method(info) => mentions_any(block, text, &info.generic_names).map(|(_, l)| l),
            _ => None,
        };
        let mut bound = bound_names(block, text);
        bound.extend(params.iter().filter_map(|p| p.simple.clone()));
        if let Some(list) = parameters {
            bound.extend(bound_names(list, text));
        }
        let free: BTreeSet<String> = used_names(block, text)
            .into_iter()
            .filter(|n| !bound.contains(n))
            .collect();
        let last_in_container = item.next_named_sibling().is_none();
        let generic =
            !fn_generics.is_empty() || matches!(&kind, Kind::Method(info) if info.generic);
        let mut free_functions = 0;
        // A function named `name` holds the name: nodes whose text does not are not entered.
        let holds_name = holding(text, &name);
        walk_node(def.tree.root_node(), |n| {
            if n.kind() == "function_item"
                && enclosing_impl(n).is_none()
                && n.child_by_field_name("name")
                    .is_some_and(|x| node_text(x, text) == name)
            {
                free_functions += 1;
            }
            holds_name(n)
        });

        Ok(Box::new(RustTarget {
            def,
            symbol,
            kind,
            params,
            unit_return,
            body,
            tail_splices,
            self_ranges,
            self_type_ranges,
            impl_generic_use,
            protected,
            free,
            touches_fields,
            module_names: module_names(def.tree.root_node(), text),
            is_pub,
            generic,
            defined_twice: free_functions > 1,
            last_in_container,
            body_text: node_text(block, text).to_string(),
            single_value,
            typed_tail,
            name,
        }))
    }

    fn method(&self) -> Option<&MethodInfo> {
        match &self.kind {
            Kind::Method(info) => Some(info),
            _ => None,
        }
    }

    /// Whether `node` sits in an impl of the method's type (where `Self` means that type).
    fn in_own_impl(&self, node: Node<'_>, text: &str) -> bool {
        let Some(info) = self.method() else {
            return false;
        };
        let mut current = impl_around(node);
        while let Some(i) = current {
            if impl_type_name(i, text).as_deref() == Some(info.type_name.as_str()) {
                return true;
            }
            current = impl_around(i);
        }
        false
    }

    /// For `self.m()`: the call is in a method of the same type's impl that has `self`.
    fn is_own_self_call(&self, node: Node<'_>, text: &str) -> bool {
        let Some(info) = self.method() else {
            return false;
        };
        let mut current = node.parent();
        while let Some(n) = current {
            if n.kind() == "function_item" {
                let has_self = n.child_by_field_name("parameters").is_some_and(|p| {
                    let mut c = p.walk();

                    p.named_children(&mut c).any(|x| {
                        x.kind() == "self_parameter"
                            || (x.kind() == "parameter"
                                && x.child_by_field_name("pattern")
                                    .is_some_and(|pat| pat.kind() == "self"))
                    })
                });
                return has_self
                    && enclosing_impl(n).is_some_and(|i| {
                        i.kind() == "impl_item"
                            && impl_type_name(i, text).as_deref() == Some(info.type_name.as_str())
                    });
            }
            current = n.parent();
        }
        false
    }

    /// How `call` designates the function: `Ok(None)` when it does not, `Err` when it may.
    fn site(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        node: Node<'_>,
        call: &CallSite,
    ) -> Result<Option<Site>, String> {
        let text = file.text();
        let name = &self.name;
        match (&self.kind, &call.form) {
            (Kind::Free { .. }, CallForm::Plain) => {
                if !facts.plain_is_ours || facts.locals.shadows(node.start_byte()) {
                    return Ok(None);
                }
                if file.path() == self.def.path() && self.defined_twice {
                    return Err(format!(
                        "`{name}` is defined more than once in {}; the heuristic cannot tell which one the call at line {} runs",
                        file.path(),
                        call.line
                    ));
                }
                Ok(Some(Site::Function))
            }
            (Kind::Free { module }, CallForm::Path { qualifier }) => {
                let here = module_at(file.path(), node, text);
                let candidates = resolve_prefix(qualifier, &here);
                Ok(candidates
                    .iter()
                    .any(|c| c == module)
                    .then_some(Site::Function))
            }
            (Kind::Local { scope }, CallForm::Plain) => Ok((file.path() == self.def.path()
                && scope.contains(&call.range.start)
                && !facts.locals.shadows(node.start_byte()))
            .then_some(Site::Function)),
            (Kind::Method(info), CallForm::Path { qualifier }) => {
                let last = type_name_of(qualifier);
                let ours =
                    last == info.type_name || (last == "Self" && self.in_own_impl(node, text));
                Ok(ours.then_some(Site::Qualified))
            }
            (Kind::Method(info), CallForm::Method { receiver }) => {
                if info.self_param.is_none() {
                    return Ok(None);
                }
                let receiver_text = text[receiver.clone()].trim();
                if receiver_text == "self" && self.is_own_self_call(node, text) {
                    return Ok(Some(Site::OwnSelf));
                }
                // How the receiver is passed explicitly: as `self` takes it.
                let borrow = match info.self_param.as_ref().map(|p| p.ty.replace(' ', "")) {
                    Some(ty) if ty.starts_with("&mut") => "&mut ",
                    Some(ty) if ty.starts_with('&') => "&",
                    _ => "",
                };
                Err(format!(
                    "`{receiver_text}.{name}(...)` at line {} may call `{}::{name}`, but the heuristic cannot tell the type of `{receiver_text}` (no type analysis); it is left as it is, so the definition is kept. Write it as `{}::{name}({borrow}{receiver_text}, ...)` to have it inlined",
                    call.line, info.type_name, info.type_name
                ))
            }
            _ => Ok(None),
        }
    }

    /// The type annotation to write for `ty` at a call site, or `None` to leave it out.
    fn annotation(&self, ty: &str, unwritable: bool, in_own_impl: bool) -> Option<String> {
        if unwritable {
            return None;
        }
        match self.method() {
            Some(info) if !in_own_impl && mentions_word(ty, "Self") => {
                if info.generic {
                    None
                } else {
                    Some(replace_word(ty, "Self", &info.type_text))
                }
            }
            _ => Some(ty.to_string()),
        }
    }
}

/// How a call designates the function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Site {
    /// `f(..)`, `module::f(..)`.
    Function,
    /// `self.m(..)` inside the type's own impl: `self` stays `self`.
    OwnSelf,
    /// `Type::m(..)` / `Self::m(..)`: a method's receiver is the first argument.
    Qualified,
}

fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for at in crate::lang::calls::word_matches(text, word) {
        out.push_str(&text[last..at]);
        out.push_str(with);
        last = at + word.len();
    }
    out.push_str(&text[last..]);
    out
}

/// Refuses bodies whose exits would leave the caller: `?`, and macros that return.
fn check_exits(block: Node<'_>, text: &str, name: &str) -> Result<(), RefactorError> {
    let mut problem = None;
    walk_node(block, |n| {
        if problem.is_some() {
            return false;
        }
        if n.id() != block.id() && OWN_EXIT.contains(&n.kind()) {
            return false;
        }
        let line = n.start_position().row + 1;
        match n.kind() {
            "try_expression" => {
                problem = Some(format!(
                    "the body of `{name}` uses `?` (line {line}); inlined, it would return from the caller instead, so candor does not inline it"
                ));
            }
            "macro_invocation" => {
                let macro_name = n
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
                if RETURNING_MACROS.contains(&macro_name) || returns_inside {
                    problem = Some(format!(
                        "the body of `{name}` calls `{macro_name}!` (line {line}), which may return from the function; inlined, it would return from the caller instead"
                    ));
                }
            }
            _ => {}
        }
        true
    });
    match problem {
        Some(p) => Err(error(p)),
        None => Ok(()),
    }
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
fn expression_fits(call: Node<'_>, kind: &str) -> bool {
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
/// statement; before a `let ... else`, `} else` is refused.
fn needs_parentheses(call: Node<'_>) -> bool {
    let mut child = call;
    let mut current = call.parent();
    while let Some(node) = current {
        let leftmost_part =
            |whole: Node<'_>| whole.id() != call.id() && whole.start_byte() == call.start_byte();
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
        current = node.parent();
    }
    false
}

impl Target for RustTarget<'_> {
    fn name(&self) -> &str {
        &self.name
    }

    fn definition_range(&self) -> Range<usize> {
        self.symbol.full_range.clone()
    }

    fn facts(&self, file: &Parsed<'_>) -> Facts {
        let mut facts = Facts::default();
        let text = file.text();
        facts.locals = Locals::new(Language::Rust, &file.tree, text, &self.name);
        if file.path() == self.def.path() {
            facts.plain_is_ours = true;
            return facts;
        }
        let Kind::Free { module } = &self.kind else {
            return facts;
        };
        let root = file.tree.root_node();
        walk_node(root, |n| {
            if n.kind() != "use_declaration" {
                return !matches!(n.kind(), "function_item");
            }
            let here = module_at(file.path(), n, text);
            walk_node(n, |u| match u.kind() {
                "scoped_identifier" => {
                    let named = u
                        .child_by_field_name("name")
                        .is_some_and(|x| node_text(x, text) == self.name);
                    let in_list = u.parent().is_some_and(|p| p.kind() == "use_list");
                    let prefix = u
                        .child_by_field_name("path")
                        .map(|p| node_text(p, text))
                        .unwrap_or("");
                    let prefix = match (in_list, list_prefix(u, text)) {
                        (true, Some(outer)) => format!("{outer}::{prefix}"),
                        _ => prefix.to_string(),
                    };
                    if named && resolve_prefix(&prefix, &here).iter().any(|c| c == module) {
                        facts.plain_is_ours = true;
                    }
                    false
                }
                "identifier"
                    if node_text(u, text) == self.name
                        && u.parent().is_some_and(|p| p.kind() == "use_list") =>
                {
                    if let Some(prefix) = list_prefix(u, text)
                        && resolve_prefix(&prefix, &here).iter().any(|c| c == module)
                    {
                        facts.plain_is_ours = true;
                    }
                    false
                }
                "use_wildcard" => {
                    let prefix = node_text(u, text)
                        .trim_end_matches('*')
                        .trim_end_matches("::")
                        .to_string();
                    let prefix = match list_prefix(u, text) {
                        Some(outer) if u.parent().is_some_and(|p| p.kind() == "use_list") => {
                            format!("{outer}::{prefix}")
                        }
                        _ => prefix,
                    };
                    if resolve_prefix(&prefix, &here).iter().any(|c| c == module) {
                        facts.plain_is_ours = true;
                    }
                    false
                }
                _ => true,
            });
            false
        });
        let mut cursor = root.walk();
        let defines_own = root.named_children(&mut cursor).any(|item| {
            item.kind() == "function_item"
                && item
                    .child_by_field_name("name")
                    .is_some_and(|n| node_text(n, text) == self.name)
        });
        if defines_own {
            facts.plain_is_ours = false;
        }
        facts
    }

    fn hidden_calls(&self, file: &Parsed<'_>, facts: &Facts) -> Vec<CallSite> {
        let in_scope = |at: usize| match &self.kind {
            Kind::Free { .. } => facts.plain_is_ours,
            Kind::Local { scope } => file.path() == self.def.path() && scope.contains(&at),
            Kind::Method(_) => false,
        };
        let text = file.text();
        let mut calls = Vec::new();
        // A call of the name holds the name: nodes whose text does not are not entered.
        let may_hold = holding(text, &self.name);
        walk_node(file.tree.root_node(), |n| {
            if n.kind() != "macro_invocation" {
                return may_hold(n);
            }
            let macro_name = n
                .child_by_field_name("macro")
                .map(|m| node_text(m, text))
                .unwrap_or("");
            let last = macro_name.rsplit("::").next().unwrap_or(macro_name);
            if !EXPRESSION_MACROS.contains(&last) {
                return may_hold(n);
            }
            walk_node(n, |t| {
                if let Some(call) = macro_argument_call(t, text, &self.name)
                    && in_scope(call.range.start)
                {
                    calls.push(call);
                }
                may_hold(t)
            });
            false
        });
        calls
    }

    fn owner_of_call(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        call: &CallSite,
        node: Option<Node<'_>>,
    ) -> Owner {
        let Some(node) = node else {
            // A call found in macro arguments: `hidden_calls` only returns this function's.
            return if macro_call_name(file, call).is_some() {
                Owner::Ours
            } else {
                Owner::NotOurs
            };
        };
        match self.site(file, facts, node, call) {
            Ok(Some(_)) => Owner::Ours,
            Ok(None) => Owner::NotOurs,
            Err(why) => Owner::Unsure(why),
        }
    }

    fn reference(&self, file: &Parsed<'_>, facts: &Facts, reference: &Reference) -> RefVerdict {
        let text = file.text();
        let line = reference.line;
        let name = &self.name;
        match reference.kind {
            ReferenceKind::InComment | ReferenceKind::InString => {
                match text_mention(Language::Rust, text, reference) {
                    TextMention::DocExample => {
                        return RefVerdict::Blocking(format!(
                            "`{name}` is used in a doc test at line {line}; doc tests run it and it is not inlined there, so the definition is kept"
                        ));
                    }
                    TextMention::NameString if in_attribute(file, reference) => {
                        return RefVerdict::Blocking(format!(
                            "an attribute at line {line} names `{name}` in a string (a serde `default = \"…\"`, `with`?); code generated from it calls the function, so the definition is kept"
                        ));
                    }
                    _ => {}
                }
                let what = if reference.kind == ReferenceKind::InComment {
                    "a comment"
                } else {
                    "a string"
                };
                return RefVerdict::Info(format!(
                    "`{name}` is mentioned in {what} at line {line}; it is not changed"
                ));
            }
            _ => {}
        }
        let Some(node) = file
            .tree
            .root_node()
            .descendant_for_byte_range(reference.range.start, reference.range.end)
            .filter(|n| n.byte_range() == reference.range)
        else {
            return RefVerdict::Ignore;
        };
        if node.kind() == "field_identifier" || is_rust_binding(node, &[]) {
            return RefVerdict::Ignore;
        }
        if reference.kind == ReferenceKind::Import {
            return self.import_verdict(file, node);
        }
        let parent = node.parent();
        if parent.is_some_and(|p| p.kind() == "token_tree") {
            let ours = match &self.kind {
                Kind::Free { .. } => facts.plain_is_ours,
                Kind::Local { scope } => {
                    file.path() == self.def.path() && scope.contains(&reference.range.start)
                }
                Kind::Method(_) => true,
            };
            let macro_name = ancestor(node, "macro_invocation")
                .and_then(|m| m.child_by_field_name("macro"))
                .map(|m| node_text(m, text))
                .unwrap_or("?");
            return if ours {
                RefVerdict::Blocking(format!(
                    "`{name}` appears inside the macro call `{macro_name}!` at line {line}; the heuristic does not rewrite calls inside macros, so the definition is kept"
                ))
            } else {
                RefVerdict::Ignore
            };
        }
        if let Some(p) = parent.filter(|p| {
            p.kind() == "scoped_identifier"
                && p.child_by_field_name("name")
                    .is_some_and(|x| x.id() == node.id())
        }) {
            let qualifier = p
                .child_by_field_name("path")
                .map(|q| node_text(q, text))
                .unwrap_or("");
            let ours = match &self.kind {
                Kind::Free { module } => {
                    resolve_prefix(qualifier, &module_at(file.path(), node, text))
                        .iter()
                        .any(|c| c == module)
                }
                Kind::Method(info) => {
                    let last = type_name_of(qualifier);
                    last == info.type_name || (last == "Self" && self.in_own_impl(node, text))
                }
                Kind::Local { .. } => false,
            };
            return if ours {
                RefVerdict::Blocking(format!(
                    "`{}` is used at line {line} as a value, not called, so it is not inlined; the definition is kept",
                    node_text(p, text)
                ))
            } else {
                RefVerdict::Ignore
            };
        }
        let ours = match &self.kind {
            Kind::Free { .. } => facts.plain_is_ours,
            Kind::Local { scope } => {
                file.path() == self.def.path() && scope.contains(&reference.range.start)
            }
            Kind::Method(_) => false,
        } && !facts.locals.shadows(node.start_byte());
        if ours {
            RefVerdict::Blocking(format!(
                "`{name}` is used at line {line} as a value, not called, so it is not inlined; the definition is kept"
            ))
        } else {
            RefVerdict::Ignore
        }
    }

    fn inline(&self, file: &Parsed<'_>, facts: &Facts, call: &CallSite) -> Result<Inlined, String> {
        let text = file.text();
        let def_text = self.def.text();
        let in_macro = macro_call_name(file, call);
        let node = match (file.node_at(&call.range, "call_expression"), in_macro) {
            (Some(node), _) => node,
            (None, Some(name)) => name,
            (None, None) => return Err("the call is not where the parser put it".into()),
        };
        let in_macro = in_macro.is_some();
        let site = if in_macro {
            Site::Function
        } else {
            self.site(file, facts, node, call)?
                .ok_or("it does not call this function")?
        };
        let line = call.line;
        if self.generic && text[call.callee_range.clone()].contains("::<") {
            return Err(format!(
                "it gives explicit generic arguments (`{}`), which the bindings cannot carry; remove them or inline it by hand",
                text[call.callee_range.clone()].trim()
            ));
        }
        let own_impl = self.in_own_impl(node, text);
        if let (Some(info), false) = (self.method(), own_impl) {
            if let Some(gline) = self.impl_generic_use {
                return Err(format!(
                    "the body uses the generic parameters of `impl {}` (line {gline} of {}), which mean nothing here",
                    info.type_text,
                    self.def.path()
                ));
            }
            if info.generic && !self.self_type_ranges.is_empty() {
                return Err(format!(
                    "the body uses `Self`, and `{}` is generic, so `Self` cannot be spelled out here",
                    info.type_text
                ));
            }
        }

        // Bindings, in argument order.
        let mut args: Vec<String> = call
            .args
            .iter()
            .map(|a| text[a.value_range.clone()].to_string())
            .collect();
        let mut bindings: Vec<(String, Option<String>, String)> = Vec::new();
        let mut body_splices: Vec<Splice> = self.tail_splices.clone();
        let mut receiver_name = None;
        if let (Some(info), Site::Qualified) = (self.method(), site)
            && let Some(self_param) = &info.self_param
        {
            if args.is_empty() {
                return Err(format!(
                    "it passes no receiver for `{}`'s `self`",
                    self.name
                ));
            }
            let receiver = args.remove(0);
            let body_and_here = [self.body_text.as_str(), text];
            let fresh = fresh_name("this", &body_and_here);
            for r in &self.self_ranges {
                body_splices.push((r.clone(), fresh.clone()));
            }
            let pattern = if self_param.mutable {
                format!("mut {fresh}")
            } else {
                fresh.clone()
            };
            let ty = self.annotation(&self_param.ty, false, own_impl);
            bindings.push((pattern, ty, receiver));
            receiver_name = Some(fresh);
        }
        if args.len() != self.params.len() {
            return Err(format!(
                "it passes {} argument(s), and `{}` takes {}",
                args.len(),
                self.name,
                self.params.len()
            ));
        }
        for (param, value) in self.params.iter().zip(args) {
            let copy_or_ref = param.ty.trim_start().starts_with('&')
                || COPY_PRIMITIVES.contains(&param.ty.trim());
            if param.simple.as_deref() == Some(value.trim()) && copy_or_ref {
                continue;
            }
            let ty = self.annotation(&param.ty, param.type_unwritable, own_impl);
            bindings.push((param.pattern.clone(), ty, value));
        }
        if !own_impl
            && let Some(info) = self.method()
            && !info.generic
        {
            for r in &self.self_type_ranges {
                body_splices.push((r.clone(), info.type_text.clone()));
            }
        }

        let eol = file.style.line_ending;
        let indent = crate::text::indentation_at(text, call.range.start).to_string();
        let mut findings = vec![Finding::info(
            file.path(),
            line,
            format!("inlined the call of `{}` at line {line}", self.name),
        )];
        findings.extend(self.scope_findings(file, node, call, receiver_name.as_deref()));

        // A value typed by the return type keeps that type: `let value: T = ...; value`.
        let mut typed_result = None;
        if let Some(tail) = &self.typed_tail {
            match self.annotation(&tail.ty, tail.unwritable, own_impl) {
                Some(ty) => {
                    let fresh = fresh_name("value", &[self.body_text.as_str(), text]);
                    body_splices.push((
                        tail.value.start..tail.value.start,
                        format!("let {fresh}: {ty} = "),
                    ));
                    body_splices.push((tail.value.end..tail.value.end, ";".to_string()));
                    typed_result = Some(fresh);
                }
                None => findings.push(Finding::warning(
                    file.path(),
                    line,
                    format!(
                        "the value `{}` returned took its type from the return type `{}`, which cannot be written here; if the inlined code no longer compiles, annotate its type",
                        self.name, tail.ty
                    ),
                )),
            }
        }

        // Nothing to bind and a body that is one expression: the expression itself.
        if let (true, None, Some((value, kind))) =
            (bindings.is_empty(), &typed_result, &self.single_value)
            && !BLOCK_LIKE.contains(&kind.as_str())
        {
            let (value_lines, first) =
                snippet::extract(def_text, value.clone(), &body_splices, &self.protected);
            let base = snippet::base_indent(&value_lines, first.as_deref());
            let rendered = snippet::layout(
                &value_lines,
                &base,
                Layout {
                    from_unit: self.def.style.indent,
                    to_indent: &indent,
                    to_unit: file.style.indent,
                },
            );
            let joined = rendered.join(eol);
            let expression = joined
                .strip_prefix(indent.as_str())
                .unwrap_or(&joined)
                .to_string();
            let before_else = node.parent().is_some_and(|p| {
                p.kind() == "let_declaration" && p.child_by_field_name("alternative").is_some()
            }) && expression.trim_end().ends_with('}');
            let fits = if in_macro {
                ATOMIC.contains(&kind.as_str()) && kind != "struct_expression"
            } else {
                expression_fits(node, kind)
            };
            let bare = if fits && !before_else {
                expression
            } else {
                format!("({expression})")
            };
            return Ok(Inlined {
                edits: vec![TextEdit::new(call.range.clone(), bare)],
                claim: call.range.clone(),
                findings,
            });
        }

        let inner_indent = format!("{indent}{}", file.style.indent.as_str());
        let mut lines: Vec<String> = binding_statements(&bindings)
            .into_iter()
            .map(|b| format!("{inner_indent}{}", snippet::normalize_eol(&b, eol)))
            .collect();
        if let Some(body) = &self.body {
            let (body_lines, first) =
                snippet::extract(def_text, body.clone(), &body_splices, &self.protected);
            let base = snippet::base_indent(&body_lines, first.as_deref());
            let mut rendered = snippet::layout(
                &body_lines,
                &base,
                Layout {
                    from_unit: self.def.style.indent,
                    to_indent: &inner_indent,
                    to_unit: file.style.indent,
                },
            );
            while rendered.last().is_some_and(|l| l.trim().is_empty()) {
                rendered.pop();
            }
            while rendered.first().is_some_and(|l| l.trim().is_empty()) {
                rendered.remove(0);
            }
            lines.extend(rendered);
        }
        if let Some(fresh) = &typed_result {
            lines.push(format!("{inner_indent}{fresh}"));
        }

        let statement = node.parent().filter(|p| {
            !in_macro
                && p.kind() == "expression_statement"
                && p.named_child(0).is_some_and(|c| c.id() == node.id())
        });

        if lines.is_empty()
            && let Some(statement) = statement.filter(|_| self.unit_return)
        {
            // Nothing to run: the statement goes.
            let range = statement.byte_range();
            let edit = if starts_its_line(text, range.start) && ends_its_line(text, range.end, "//")
            {
                TextEdit::delete(
                    line_start(text, range.start)..line_end_with_newline(text, range.end),
                )
            } else {
                TextEdit::delete(range)
            };
            return Ok(Inlined {
                edits: vec![edit],
                claim: statement.byte_range(),
                findings,
            });
        }
        let block = if lines.is_empty() {
            "{}".to_string()
        } else {
            format!("{{{eol}{}{eol}{indent}}}", lines.join(eol))
        };
        let (range, replacement) = match statement {
            Some(statement) if self.unit_return => (call.range.start..statement.end_byte(), block),
            _ if !in_macro && needs_parentheses(node) => (call.range.clone(), format!("({block})")),
            _ => (call.range.clone(), block),
        };
        Ok(Inlined {
            edits: vec![TextEdit::new(range, replacement)],
            claim: call.range.clone(),
            findings,
        })
    }

    fn removal(&self) -> Vec<TextEdit> {
        vec![remove_whole_lines(
            self.def.text(),
            self.symbol.full_range.clone(),
            self.last_in_container,
            "//",
        )]
    }

    fn removal_findings(&self) -> Vec<Finding> {
        if self.is_pub {
            vec![Finding::warning(
                self.def.path(),
                self.symbol.line,
                format!(
                    "`{}` was `pub`: code outside this project that calls it (another crate) no longer compiles",
                    self.name
                ),
            )]
        } else {
            Vec::new()
        }
    }
}

impl RustTarget<'_> {
    fn scope_findings(
        &self,
        file: &Parsed<'_>,
        node: Node<'_>,
        call: &CallSite,
        receiver: Option<&str>,
    ) -> Vec<Finding> {
        let text = file.text();
        let line = call.line;
        let mut findings = Vec::new();
        // The caller's own bindings that a free name of the body now resolves to.
        let mut caller = node.parent();
        while let Some(n) = caller {
            if matches!(n.kind(), "function_item" | "closure_expression") {
                break;
            }
            caller = n.parent();
        }
        if let Some(caller) = caller {
            let mut bound = bound_names(caller, text);
            if let Some(params) = caller.child_by_field_name("parameters") {
                bound.extend(bound_names(params, text));
            }
            for name in &self.free {
                if bound.contains(name) {
                    findings.push(Finding::warning(
                        file.path(),
                        line,
                        format!(
                            "the inlined body reads `{name}`, which the caller binds itself; it now reads the caller's `{name}`"
                        ),
                    ));
                }
            }
            if let Some(r) = receiver
                && bound.contains(r)
            {
                findings.push(Finding::warning(
                        file.path(),
                        line,
                        format!("the inlined code binds `{r}` for `self`, which shadows the caller's `{r}` inside the block"),
                    ));
            }
        }
        if file.path() != self.def.path() {
            let here = module_names(file.tree.root_node(), text);
            for name in &self.free {
                if self.module_names.contains(name) && !here.contains(name) && name != &self.name {
                    findings.push(Finding::warning(
                        file.path(),
                        line,
                        format!(
                            "the inlined body uses `{name}`, which {} defines or imports but {} does not; bring it into scope there",
                            self.def.path(),
                            file.path()
                        ),
                    ));
                }
            }
            if let Some(body) = &self.body {
                let traits = crate::lang::traits::needed_traits(
                    &self.def.tree,
                    self.def.text(),
                    body,
                    Some(&file.tree),
                    text,
                );
                for needed in traits {
                    findings.push(Finding::warning(
                        file.path(),
                        line,
                        format!(
                            "the inlined body calls `{}`, a method of the trait `{}`, which {} has in scope and {} does not; import the trait there",
                            needed.method,
                            needed.trait_name,
                            self.def.path(),
                            file.path()
                        ),
                    ));
                }
            }
            if let (Some(info), true) = (self.method(), self.touches_fields) {
                findings.push(Finding::warning(
                    file.path(),
                    line,
                    format!(
                        "the inlined body reads fields or builds values of `{}`; private fields are not visible from {}, check that it compiles",
                        info.type_name,
                        file.path()
                    ),
                ));
            }
        }
        findings
    }

    fn import_verdict(&self, file: &Parsed<'_>, node: Node<'_>) -> RefVerdict {
        let text = file.text();
        let name = &self.name;
        let Kind::Free { module } = &self.kind else {
            return RefVerdict::Ignore;
        };
        if file.path() == self.def.path() {
            return RefVerdict::Ignore;
        }
        let Some(declaration) = ancestor(node, "use_declaration") else {
            return RefVerdict::Ignore;
        };
        let line = node.start_position().row + 1;
        let here = module_at(file.path(), declaration, text);
        let Some(parent) = node.parent() else {
            return RefVerdict::Ignore;
        };
        // The path the name is imported from.
        let (prefix, shape) = match parent.kind() {
            "scoped_identifier"
                if parent
                    .child_by_field_name("name")
                    .is_some_and(|n| n.id() == node.id()) =>
            {
                let own = parent
                    .child_by_field_name("path")
                    .map(|p| node_text(p, text).to_string())
                    .unwrap_or_default();
                match parent.parent().map(|g| g.kind()) {
                    Some("use_declaration") => (own, Shape::Whole),
                    Some("use_list") => (
                        list_prefix(parent, text)
                            .map_or(own.clone(), |outer| format!("{outer}::{own}")),
                        Shape::ListItem(parent),
                    ),
                    Some("use_as_clause") => (own, Shape::Aliased),
                    _ => (own, Shape::Other),
                }
            }
            "use_list" => (
                list_prefix(node, text).unwrap_or_default(),
                Shape::ListItem(node),
            ),
            "use_as_clause" => (
                list_prefix(parent, text).unwrap_or_default(),
                Shape::Aliased,
            ),
            _ => return RefVerdict::Ignore,
        };
        if !resolve_prefix(&prefix, &here).iter().any(|c| c == module) {
            return RefVerdict::Ignore;
        }
        let public = {
            let mut c = declaration.walk();

            declaration
                .children(&mut c)
                .any(|x| x.kind() == "visibility_modifier")
        };
        if public {
            return RefVerdict::Import(Err(format!(
                "{} re-exports `{name}` at line {line} (`pub use`); code using the re-export needs the definition, so it is kept",
                file.path()
            )));
        }
        let whole = || {
            let last = declaration.next_named_sibling().is_none();
            remove_whole_lines(text, declaration.byte_range(), last, "//")
        };
        match shape {
            Shape::Whole => RefVerdict::Import(Ok(whole())),
            Shape::ListItem(item) => {
                let Some(list) = item.parent() else {
                    return RefVerdict::Ignore;
                };
                let mut c = list.walk();
                let items: Vec<Node<'_>> = list
                    .named_children(&mut c)
                    .filter(|i| !i.kind().ends_with("comment"))
                    .collect();
                let ranges: Vec<Range<usize>> = items.iter().map(|i| i.byte_range()).collect();
                let index = items.iter().position(|i| i.id() == item.id()).unwrap_or(0);
                match remove_list_item(&ranges, index) {
                    Some(edit) => RefVerdict::Import(Ok(edit)),
                    None if list
                        .parent()
                        .and_then(|l| l.parent())
                        .is_some_and(|d| d.id() == declaration.id()) =>
                    {
                        RefVerdict::Import(Ok(whole()))
                    }
                    None => RefVerdict::Import(Err(format!(
                        "`{name}` is imported at line {line} in a nested `use` list the heuristic does not edit; remove it by hand, the definition is kept"
                    ))),
                }
            }
            Shape::Aliased => RefVerdict::Import(Err(format!(
                "`{name}` is imported under another name at line {line}; calls through that name are not followed, so the definition is kept"
            ))),
            Shape::Other => RefVerdict::Import(Err(format!(
                "`{name}` is imported at line {line} in a form the heuristic does not edit; the definition is kept"
            ))),
        }
    }
}

enum Shape<'t> {
    Whole,
    ListItem(Node<'t>),
    Aliased,
    Other,
}

/// A call `name(args)` written in macro arguments: the identifier token followed by a
/// parenthesised token tree, not after `.`, `::` or `fn`, not followed by `!`.
fn macro_argument_call(token: Node<'_>, text: &str, name: &str) -> Option<CallSite> {
    if token.kind() != "identifier" || node_text(token, text) != name {
        return None;
    }
    if token.parent().is_none_or(|p| p.kind() != "token_tree") {
        return None;
    }
    if token
        .prev_sibling()
        .is_some_and(|p| matches!(p.kind(), "." | "::" | "fn" | "'"))
    {
        return None;
    }
    let arguments = token.next_sibling().filter(|n| n.kind() == "token_tree")?;
    if !node_text(arguments, text).starts_with('(') || arguments.start_byte() != token.end_byte() {
        return None;
    }
    // Split the arguments at the commas of their own level.
    let mut args = Vec::new();
    let mut start: Option<usize> = None;
    let mut end = 0;
    let mut cursor = arguments.walk();
    for child in arguments.children(&mut cursor) {
        match child.kind() {
            "(" if child.start_byte() == arguments.start_byte() => {}
            ")" if child.end_byte() == arguments.end_byte() => {}
            "," => {
                if let Some(s) = start.take() {
                    args.push(s..end);
                }
            }
            _ => {
                start.get_or_insert(child.start_byte());
                end = child.end_byte();
            }
        }
    }
    if let Some(s) = start {
        args.push(s..end);
    }
    Some(CallSite {
        range: token.start_byte()..arguments.end_byte(),
        callee_range: token.byte_range(),
        name_range: token.byte_range(),
        arguments_range: arguments.byte_range(),
        args: args
            .into_iter()
            .map(|r| crate::lang::calls::Argument {
                range: r.clone(),
                value_range: r,
                keyword: None,
                splat: false,
            })
            .collect(),
        form: CallForm::Plain,
        line: token.start_position().row + 1,
    })
}

/// The identifier of a call found in macro arguments (its name token in a token tree).
fn macro_call_name<'t>(file: &'t Parsed<'_>, call: &CallSite) -> Option<Node<'t>> {
    let node = file.node_at(&call.name_range, "identifier")?;
    node.parent()
        .is_some_and(|p| p.kind() == "token_tree")
        .then_some(node)
}

/// For a node inside `path::{...}`: the text of `path` (with the outer lists' paths).
fn list_prefix(node: Node<'_>, text: &str) -> Option<String> {
    let mut parts = Vec::new();
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "scoped_use_list"
            && let Some(path) = n.child_by_field_name("path")
        {
            parts.push(node_text(path, text).to_string());
        }
        if n.kind() == "use_declaration" {
            break;
        }
        current = n.parent();
    }
    if parts.is_empty() {
        return None;
    }
    parts.reverse();
    Some(parts.join("::"))
}

fn ancestor<'t>(node: Node<'t>, kind: &str) -> Option<Node<'t>> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == kind {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

/// `let pattern: T = value;` per binding, or one tuple `let (a, b): (T, U) = (x, y);` when a
/// value reads a name bound before it (sequential `let`s would hand it the new binding).
fn binding_statements(bindings: &[(String, Option<String>, String)]) -> Vec<String> {
    let names = |pattern: &str| -> Vec<String> {
        pattern
            .split(|c: char| !(c == '_' || c.is_alphanumeric()))
            .filter(|w| !w.is_empty() && *w != "mut" && *w != "ref")
            .map(str::to_string)
            .collect()
    };
    let conflict = bindings.iter().enumerate().any(|(i, (pattern, _, _))| {
        names(pattern).iter().any(|n| {
            bindings[i + 1..]
                .iter()
                .any(|(_, _, later)| mentions_word(later, n))
        })
    });
    if conflict && bindings.len() > 1 {
        let patterns: Vec<&str> = bindings.iter().map(|(p, _, _)| p.as_str()).collect();
        let values: Vec<&str> = bindings.iter().map(|(_, _, v)| v.trim()).collect();
        let annotation = if bindings.iter().all(|(_, t, _)| t.is_none()) {
            String::new()
        } else {
            let types: Vec<&str> = bindings
                .iter()
                .map(|(_, t, _)| t.as_deref().unwrap_or("_"))
                .collect();
            format!(": ({})", types.join(", "))
        };
        vec![format!(
            "let ({}){annotation} = ({});",
            patterns.join(", "),
            values.join(", ")
        )]
    } else {
        bindings
            .iter()
            .map(|(pattern, ty, value)| match ty {
                Some(ty) => format!("let {pattern}: {ty} = {};", value.trim()),
                None => format!("let {pattern} = {};", value.trim()),
            })
            .collect()
    }
}

/// Whether the type of `value`, the value a function returns, may come from its declared return
/// type `ty` rather than from the value itself: a coercion (`*mut` to `*const`, `&mut` or
/// `&String` to `&str`, a `Box<dyn ...>`), a call whose result type is inferred (`parse`,
/// `collect`, `into`, `Default::default`, `Vec::new`), `None`/`Ok`/`Err`, or a number literal
/// of a type other than the default one.
fn type_comes_from_return(ty: Node<'_>, value: Node<'_>, text: &str) -> bool {
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

/// Whether a mention sits inside an attribute (`#[serde(default = "name")]`).
fn in_attribute(file: &Parsed<'_>, reference: &Reference) -> bool {
    let mut current = file
        .tree
        .root_node()
        .descendant_for_byte_range(reference.range.start, reference.range.end);
    while let Some(node) = current {
        if matches!(node.kind(), "attribute_item" | "inner_attribute_item") {
            return true;
        }
        current = node.parent();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_and_prefixes() {
        assert_eq!(file_module("src/lib.rs"), Vec::<String>::new());
        assert_eq!(file_module("src/net/mod.rs"), vec!["net"]);
        assert_eq!(file_module("crates/x/src/net/http.rs"), vec!["net", "http"]);
        let here = vec!["net".to_string()];
        assert!(resolve_prefix("crate::net", &[]).contains(&here));
        assert!(resolve_prefix("super", &["net".to_string(), "http".to_string()]).contains(&here));
        assert!(resolve_prefix("net", &[]).contains(&here));
        assert!(resolve_prefix("mycrate::net", &[]).contains(&here));
        assert!(resolve_prefix("super", &[]).is_empty());
    }

    #[test]
    fn names_and_attributes() {
        assert_eq!(type_name_of("&'a mut crate::m::Foo<T>"), "Foo");
        assert_eq!(type_name_of("Foo::<u8>"), "Foo");
        assert_eq!(attribute_name("#[inline(always)]"), "inline");
        assert_eq!(attribute_name("#[cfg(test)]"), "cfg");
        assert_eq!(
            replace_word("Vec<Self>, SelfX", "Self", "P"),
            "Vec<P>, SelfX"
        );
    }

    #[test]
    fn sequential_or_tuple_bindings() {
        let simple = vec![("a".to_string(), Some("i32".to_string()), "x".to_string())];
        assert_eq!(binding_statements(&simple), vec!["let a: i32 = x;"]);
        let swapped = vec![
            ("a".to_string(), Some("i32".to_string()), "b".to_string()),
            ("mut b".to_string(), None, "a".to_string()),
        ];
        assert_eq!(
            binding_statements(&swapped),
            vec!["let (a, mut b): (i32, _) = (b, a);"]
        );
    }
}
