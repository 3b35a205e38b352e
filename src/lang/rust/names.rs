//! Rust's part of [`crate::lang::names`]: the names a function binds and uses (`let`, parameters,
//! closures, patterns, local items, format-string captures), and the role of each occurrence;
//! and the sets of names inline function compares: what a body binds, uses, and a file defines.

use std::collections::{BTreeSet, HashMap};
use std::ops::Range;

use tree_sitter::{Node, Tree};

use crate::lang::locals::is_rust_binding;
use crate::lang::names::NameRole;
use crate::lang::names::{
    Occurrence, Role, Up, field_of, identifier_lines, starts_uppercase, walk_with_up,
};
use crate::lang::{node_text, up_from, walk_node, walk_node_with_ancestors};

// Rust

const RUST_PATTERNS: &[&str] = &[
    "tuple_pattern",
    "slice_pattern",
    "tuple_struct_pattern",
    "struct_pattern",
    "field_pattern",
    "ref_pattern",
    "mut_pattern",
    "captured_pattern",
    "or_pattern",
    "reference_pattern",
    "remaining_field_pattern",
];

/// Items inside a function body do not capture its locals: only their name matters.
fn is_rust_item(kind: &str) -> bool {
    matches!(
        kind,
        "struct_item"
            | "enum_item"
            | "union_item"
            | "trait_item"
            | "impl_item"
            | "mod_item"
            | "const_item"
            | "static_item"
            | "type_item"
            | "macro_definition"
            | "use_declaration"
            | "extern_crate_declaration"
            | "foreign_mod_item"
            | "attribute_item"
            | "inner_attribute_item"
            | "lifetime"
            | "label"
    )
}

pub(crate) fn collect_rust(region: Node<'_>, text: &str, out: &mut Vec<Occurrence>) {
    walk_with_up(region, |node, up| {
        let kind = node.kind();
        if node.id() != region.id() && kind == "function_item" {
            if let (Some(name), Some(parent)) = (node.child_by_field_name("name"), up.parent()) {
                // A nested `fn` is visible in its whole block.
                out.push(Occurrence::binding(name, text, parent.start_byte(), parent));
            }
            return false;
        }
        if is_rust_item(kind) {
            // A local item is visible in its whole block, like a nested `fn`.
            if let Some(parent) = up.parent().filter(|_| node.id() != region.id()) {
                for name in rust_item_names(node) {
                    out.push(Occurrence::binding(name, text, parent.start_byte(), parent));
                }
            }
            return false;
        }
        match kind {
            "identifier" | "shorthand_field_identifier" => {
                if let Some(occurrence) = classify_rust(node, up, text) {
                    out.push(occurrence);
                }
                false
            }
            "self" => {
                let parent_kind = up.parent().map(|p| p.kind());
                if parent_kind == Some("self_parameter") {
                    // self_parameter < parameters < function_item
                    if let Some(function) = up.nth(2) {
                        let mut binding =
                            Occurrence::binding(node, text, node.start_byte(), function);
                        binding.parameter = true;
                        out.push(binding);
                    }
                } else if parent_kind != Some("scoped_identifier") {
                    out.push(Occurrence::new(node, text, Role::Read));
                }
                false
            }
            "type_identifier" => {
                out.push(Occurrence::new(node, text, Role::Type));
                false
            }
            "string_literal" | "raw_string_literal" => {
                if up.parent().is_some_and(|p| p.kind() == "token_tree") {
                    format_captures(node, text, out);
                }
                false
            }
            _ => true,
        }
    });
}

/// `{name}` and `{name:?}` in a format string inside a macro read `name`.
fn format_captures(node: Node<'_>, text: &str, out: &mut Vec<Occurrence>) {
    let body = node_text(node, text);
    let bytes = body.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'{' {
            if bytes.get(i + 1) == Some(&b'{') {
                i += 2;
                continue;
            }
            let rest = &body[i + 1..];
            let end = rest
                .find(|c: char| !(c == '_' || c.is_alphanumeric()))
                .unwrap_or(rest.len());
            let name = &rest[..end];
            let closes = rest[end..].starts_with('}') || rest[end..].starts_with(':');
            if !name.is_empty() && closes && !name.starts_with(|c: char| c.is_ascii_digit()) {
                let pos = node.start_byte() + i + 1;
                let line = node.start_position().row + 1 + body[..i].matches('\n').count();
                out.push(Occurrence {
                    name: name.to_string(),
                    role: Role::Read,
                    pos,
                    line,
                    at: pos,
                    scope: 0..0,
                    parameter: false,
                });
            }
        }
        i += 1;
    }
}

/// The names a local item binds: `const K`, `struct P`, `macro_rules! m`, the leaves of a `use`.
fn rust_item_names<'t>(item: Node<'t>) -> Vec<Node<'t>> {
    match item.kind() {
        "const_item" | "static_item" | "struct_item" | "enum_item" | "union_item"
        | "trait_item" | "type_item" | "mod_item" | "macro_definition" => {
            item.child_by_field_name("name").into_iter().collect()
        }
        "use_declaration" => {
            let mut names = Vec::new();
            let mut stack: Vec<Node<'t>> =
                item.child_by_field_name("argument").into_iter().collect();
            while let Some(node) = stack.pop() {
                match node.kind() {
                    "identifier" => names.push(node),
                    "scoped_identifier" => names.extend(node.child_by_field_name("name")),
                    "use_as_clause" => names.extend(node.child_by_field_name("alias")),
                    "use_list" => stack.extend(node.named_children(&mut node.walk())),
                    "scoped_use_list" => stack.extend(node.child_by_field_name("list")),
                    _ => {}
                }
            }
            names
        }
        _ => Vec::new(),
    }
}

fn classify_rust(id: Node<'_>, up: Up<'_, '_>, text: &str) -> Option<Occurrence> {
    let parent = up.parent()?;
    let field = field_of(parent, id);
    // The first segment of a path (`HashMap` in `HashMap::new()`, `T` in `T::default()`) and a
    // macro's name name items, like a type does.
    let names_item = match parent.kind() {
        "scoped_identifier" | "scoped_type_identifier" => {
            field == Some("path") && up.find(|n| n.kind() == "use_declaration").is_none()
        }
        "macro_invocation" => field == Some("macro"),
        _ => false,
    };
    if names_item {
        return Some(Occurrence::new(id, text, Role::Type));
    }
    match parent.kind() {
        "scoped_identifier"
        | "scoped_type_identifier"
        | "scoped_use_list"
        | "use_list"
        | "use_as_clause"
        | "meta_item"
        | "attribute"
        | "field_declaration"
        | "function_signature_item"
        | "function_item" => return None,
        "macro_invocation" if field == Some("macro") => return None,
        "token_tree" => return token_tree_read(id, text),
        _ => {}
    }
    let name = node_text(id, text);
    let bind = |at: usize, scope: Node<'_>| {
        (!starts_uppercase(name)).then(|| Occurrence::binding(id, text, at, scope))
    };
    let read = || Some(Occurrence::new(id, text, Role::Read));
    let mut child = id;
    let mut up = up;
    loop {
        let node = up.parent()?;
        let field = field_of(node, child);
        let is_pattern = field == Some("pattern");
        match node.kind() {
            "let_declaration" if is_pattern => return bind(node.end_byte(), up.nth(1)?),
            "for_expression" if is_pattern => {
                let body = node.child_by_field_name("body")?;
                return bind(body.start_byte(), node);
            }
            "let_condition" if is_pattern => {
                let owner = up
                    .rise()
                    .find(|n| matches!(n.kind(), "if_expression" | "while_expression"))?;
                return bind(node.end_byte(), owner);
            }
            "let_declaration" | "for_expression" | "let_condition" => return read(),
            "match_pattern" if field == Some("condition") => return read(),
            "match_pattern" => return bind(node.start_byte(), up.nth(1)?),
            "parameter" if is_pattern => {
                // parameter < parameters | closure_parameters < function_item | closure
                let function = up.nth(2)?;
                let mut binding = bind(node.start_byte(), function)?;
                binding.parameter = function.kind() == "function_item";
                return Some(binding);
            }
            "parameter" => return None,
            "closure_parameters" => return bind(node.start_byte(), up.nth(1)?),
            "tuple_struct_pattern" | "struct_pattern" if field == Some("type") => return None,
            "assignment_expression" | "compound_assignment_expr" => {
                let role = if field == Some("left") && child.id() == id.id() {
                    Role::Write
                } else {
                    Role::Read
                };
                return Some(Occurrence::new(id, text, role));
            }
            kind if RUST_PATTERNS.contains(&kind) => {}
            _ => return read(),
        }
        child = node;
        up = up.rise();
    }
}

/// An identifier in a macro's tokens: read it, unless it is clearly a field, method, path
/// segment or nested macro name.
fn token_tree_read(id: Node<'_>, text: &str) -> Option<Occurrence> {
    let previous = id.prev_sibling().map(|n| n.kind());
    let next = id.next_sibling().map(|n| n.kind());
    if matches!(previous, Some("." | "::" | "'")) {
        return None;
    }
    if matches!(next, Some("::" | "!")) {
        // The first segment of a path, or a nested macro's name: an item, like a type.
        return Some(Occurrence::new(id, text, Role::Type));
    }
    Some(Occurrence::new(id, text, Role::Read))
}

/// Whether a subtree mentions one of `names` (type names, const names or `'lifetimes`).
pub fn mentions_any<'n>(
    node: Node<'_>,
    text: &str,
    names: &'n [String],
) -> Option<(&'n str, usize)> {
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
pub fn bound_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
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
pub fn used_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
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
pub fn module_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
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
pub fn is_receiver_self(n: Node<'_>) -> bool {
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

/// The names a function or closure binds, its parameters included.
pub fn bound_in_function(function: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut bound = bound_names(function, text);
    if let Some(params) = function.child_by_field_name("parameters") {
        bound.extend(bound_names(params, text));
    }
    bound
}

/// What a mention of a name (`node`, an identifier) is, for a refactor deciding whether it is
/// the function of that name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MentionShape {
    /// A field name, or a binding of a pattern: not the function.
    NotAName,
    /// A token of a macro's arguments.
    InMacro,
    /// The last segment of a path: the path before it, and the whole path.
    Qualified { qualifier: String, whole: String },
    /// A plain name.
    Plain,
}

pub fn mention_shape(node: Node<'_>, text: &str) -> MentionShape {
    if node.kind() == "field_identifier" || is_rust_binding(node, &[]) {
        return MentionShape::NotAName;
    }
    let parent = node.parent();
    if parent.is_some_and(|p| p.kind() == "token_tree") {
        return MentionShape::InMacro;
    }
    if let Some(p) = parent.filter(|p| {
        p.kind() == "scoped_identifier"
            && p.child_by_field_name("name")
                .is_some_and(|x| x.id() == node.id())
    }) {
        return MentionShape::Qualified {
            qualifier: p
                .child_by_field_name("path")
                .map(|q| node_text(q, text))
                .unwrap_or("")
                .to_string(),
            whole: node_text(p, text).to_string(),
        };
    }
    MentionShape::Plain
}

/// Whether an identifier is the prefix of a path (`fmt` in `fmt::Result`), which names a module
/// or a type, never a function.
pub fn is_path_prefix(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| {
        matches!(
            p.kind(),
            "scoped_identifier" | "scoped_type_identifier" | "scoped_use_list"
        ) && p.child_by_field_name("path") == Some(node)
    })
}

/// Identifiers spelled `name` under `node`: their lines.
pub fn variable_lines(node: Node<'_>, text: &str, name: &str) -> Vec<usize> {
    identifier_lines(node, text, name, |_| true)
}

/// Whether an identifier reads a name, binds one (definition, pattern, generic parameter,
/// `use`), or is no free name (a qualified path's tail, a lifetime, a label).
/// `up`: the ancestors of `node`, nearest first ([`up_from`]); only the first few are asked.
pub fn role<'t>(node: Node<'t>, up: impl Iterator<Item = Node<'t>>) -> NameRole {
    let mut up = up;
    let Some(parent) = up.next() else {
        return NameRole::Use;
    };
    let is_field = |field: &str| parent.child_by_field_name(field) == Some(node);
    match parent.kind() {
        "lifetime" | "label" => return NameRole::Other,
        // Associated items and variants are reached through their type, never as bare names.
        kind if super::items::is_definition_kind(kind) && is_field("name") => {
            let associated = up
                .next()
                .is_some_and(|p| matches!(p.kind(), "declaration_list" | "enum_variant_list"));
            return if associated {
                NameRole::Other
            } else {
                NameRole::Bind
            };
        }
        "type_parameter" | "const_parameter" if is_field("name") => return NameRole::Bind,
        "type_parameters" | "constrained_type_parameter" | "optional_type_parameter" => {
            return NameRole::Bind;
        }
        "scoped_identifier" | "scoped_type_identifier" if is_field("name") => {
            return match parent.child_by_field_name("path").map(|p| p.kind()) {
                None | Some("self") => NameRole::Use,
                _ => NameRole::Other,
            };
        }
        "tuple_struct_pattern" | "struct_pattern" if is_field("type") => return NameRole::Use,
        _ => {}
    }
    let mut child = node;
    for ancestor in std::iter::once(parent).chain(up) {
        match ancestor.kind() {
            "use_declaration" => return NameRole::Bind,
            "tuple_pattern"
            | "tuple_struct_pattern"
            | "struct_pattern"
            | "field_pattern"
            | "ref_pattern"
            | "mut_pattern"
            | "reference_pattern"
            | "slice_pattern"
            | "or_pattern"
            | "captured_pattern"
            | "match_pattern" => {}
            "closure_parameters" => return NameRole::Bind,
            "let_declaration" | "parameter" | "for_expression" | "match_arm" | "let_condition" => {
                let pattern = ancestor.child_by_field_name("pattern");
                return if pattern == Some(child) {
                    NameRole::Bind
                } else {
                    NameRole::Use
                };
            }
            _ => return NameRole::Use,
        }
        child = ancestor;
    }
    NameRole::Use
}

/// The first offset, outside `moves`, of each of `wanted` used as a name (a path or a method) and
/// as a field (`x.f`, `S { f }`, `.f` in a macro's tokens).
pub fn first_uses<'t>(
    tree: &Tree,
    text: &'t str,
    wanted: &[&str],
    moves: impl Fn(usize) -> bool,
) -> (HashMap<&'t str, usize>, HashMap<&'t str, usize>) {
    // Only the wanted names are looked up: a node whose text holds none of them holds no
    // occurrence of them and is not entered.
    let finders: Vec<memchr::memmem::Finder<'_>> = wanted
        .iter()
        .map(|w| memchr::memmem::Finder::new(w.as_bytes()))
        .collect();
    let mut names: HashMap<&str, usize> = HashMap::new();
    let mut fields: HashMap<&str, usize> = HashMap::new();
    crate::lang::walk_tree(tree, |node| {
        let kind = node.kind();
        let relevant = matches!(
            kind,
            "identifier" | "field_identifier" | "shorthand_field_identifier"
        );
        if relevant && !moves(node.start_byte()) {
            let name = node_text(node, text);
            if kind != "shorthand_field_identifier" {
                names.entry(name).or_insert(node.start_byte());
            }
            let shorthand = node
                .parent()
                .is_some_and(|p| p.kind() == "shorthand_field_initializer");
            // In a macro's tokens (`println!("{}", p.tags)`) a field is an identifier after `.`.
            let macro_field = kind == "identifier"
                && node.parent().is_some_and(|p| p.kind() == "token_tree")
                && node.prev_sibling().is_some_and(|p| p.kind() == ".");
            if kind != "identifier" || shorthand || macro_field {
                fields.entry(name).or_insert(node.start_byte());
            }
        }
        let body = node_text(node, text).as_bytes();
        finders.iter().any(|f| f.find(body).is_some())
    });
    (names, fields)
}

/// The first place outside `moves` that builds the tuple struct `name` (`Wrap(1)`) or reads a
/// field by position (`w.0`).
pub fn tuple_struct_use(
    tree: &Tree,
    text: &str,
    name: &str,
    moves: impl Fn(usize) -> bool,
) -> Option<usize> {
    let mut used_at = None;
    crate::lang::walk_tree(tree, |node| {
        if used_at.is_some() || moves(node.start_byte()) {
            return used_at.is_none();
        }
        let constructor = node.kind() == "identifier"
            && node_text(node, text) == name
            && (node.parent().is_some_and(|p| {
                p.kind() == "call_expression" && p.child_by_field_name("function") == Some(node)
            }) || node
                .next_sibling()
                .is_some_and(|n| n.kind() == "token_tree" && node_text(n, text).starts_with('(')));
        let positional = node.kind() == "integer_literal"
            && (node.parent().is_some_and(|p| {
                p.kind() == "field_expression" && p.child_by_field_name("field") == Some(node)
            }) || node.prev_sibling().is_some_and(|p| p.kind() == "."));
        if constructor || positional {
            used_at = Some(node.start_byte());
        }
        true
    });
    used_at
}

/// A reach of code into a type's members.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MemberUse<'a> {
    /// `Type::member` (path, member).
    Path(&'a str, &'a str),
    /// `.member(..)`, a method call.
    Method(&'a str),
}

/// The member uses in the code overlapping `ranges` (starting inside them), in walk order.
pub fn member_uses<'a>(
    tree: &Tree,
    text: &'a str,
    ranges: &[Range<usize>],
) -> Vec<(MemberUse<'a>, usize)> {
    let inside = |at: usize| ranges.iter().any(|r| r.contains(&at));
    let mut uses = Vec::new();
    crate::lang::walk_overlapping(tree, ranges, |node| {
        if !inside(node.start_byte()) {
            return;
        }
        match node.kind() {
            "scoped_identifier" => {
                let path = node.child_by_field_name("path").map(|p| node_text(p, text));
                let name = node.child_by_field_name("name").map(|n| node_text(n, text));
                if let (Some(path), Some(name)) = (path, name) {
                    uses.push((MemberUse::Path(path, name), node.start_byte()));
                }
            }
            "field_expression" => {
                let is_callee = node.parent().is_some_and(|p| {
                    p.kind() == "call_expression" && p.child_by_field_name("function") == Some(node)
                });
                if let Some(name) = node
                    .child_by_field_name("field")
                    .map(|n| node_text(n, text))
                    .filter(|_| is_callee)
                {
                    uses.push((MemberUse::Method(name), node.start_byte()));
                }
            }
            _ => {}
        }
    });
    uses
}

/// Offsets of the uses of `name` outside `moves`: names (not bindings, not `use` leaves), a
/// string naming it in an attribute (`#[serde(default = "name")]`, code derived from it calls
/// it), and `use super::name` in a nested module.
pub fn uses_outside(
    tree: &Tree,
    text: &str,
    name: &str,
    moves: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let mut uses = Vec::new();
    // Every use counted below is (or declares) the name: other nodes are not entered.
    let holds_name = crate::lang::holding(text, name);
    crate::lang::walk_tree_with_ancestors(tree, |node, ancestors| {
        let is_name = matches!(node.kind(), "identifier" | "type_identifier");
        if is_name
            && node_text(node, text) == name
            && !moves(node.start_byte())
            && role(node, up_from(node, ancestors)) == NameRole::Use
            // Under a top-level `use` (nested ones are not entered below): not a use.
            && ancestors.get(1).is_none_or(|p| p.kind() != "use_declaration")
        {
            uses.push(node.start_byte());
        }
        if node.kind() == "string_literal"
            && !moves(node.start_byte())
            && node_text(node, text).trim_matches('"') == name
            && ancestors.iter().any(|a| a.kind() == "attribute_item")
        {
            uses.push(node.start_byte());
        }
        if node.kind() == "use_declaration"
            && ancestors.last().is_some_and(|p| p.kind() != "source_file")
        {
            for (path, _) in super::imports::use_leaves(node, text) {
                if matches!(path.as_slice(), [first, last] if (first == "super" || first == "self") && last == name)
                {
                    uses.push(node.start_byte());
                }
            }
            return false;
        }
        holds_name(node)
    });
    uses.sort_unstable();
    uses
}

/// Names the code overlapping `ranges` reads, without those it binds itself before, with their
/// first offset (macro names and the leading segment of paths included). A local binds a value:
/// it does not hide the module or type a path starts with (`ptr::read(ptr)` beside a parameter
/// `ptr` reads the module `ptr`), only a generic parameter does.
pub fn names_used_in(tree: &Tree, text: &str, ranges: &[Range<usize>]) -> Vec<(String, usize)> {
    let inside = |at: usize| ranges.iter().any(|r| r.contains(&at));
    // (name, first offset, as the head of a path or a macro's name?)
    let mut used: Vec<(String, usize, bool)> = Vec::new();
    // First binding of each name: a use before it (`identifier(..)` then `let identifier`)
    // reads the outer name, as a Rust binding holds only after itself. (name, from, a value?)
    let mut bound: Vec<(String, usize, bool)> = Vec::new();
    crate::lang::walk_overlapping(tree, ranges, |node| {
        if !matches!(node.kind(), "identifier" | "type_identifier") || !inside(node.start_byte()) {
            return;
        }
        let name = node_text(node, text).to_string();
        match role(node, up_from(node, &[])) {
            NameRole::Use => {
                let head = is_path_head(node);
                if !used.iter().any(|(n, _, h)| *n == name && *h == head) {
                    used.push((name, node.start_byte(), head))
                }
            }
            NameRole::Bind => {
                let value = node.kind() == "identifier";
                if bound.iter().any(|(n, _, v)| *n == name && *v == value) {
                    return;
                }
                // `let x = x(..);` binds after its value is read.
                let mut from = node.start_byte();
                let mut current = node.parent();
                while let Some(ancestor) = current {
                    if ancestor.kind() == "let_declaration" {
                        from = ancestor.end_byte();
                        break;
                    }
                    if matches!(
                        ancestor.kind(),
                        "block" | "function_item" | "closure_expression"
                    ) {
                        break;
                    }
                    current = ancestor.parent();
                }
                bound.push((name, from, value))
            }
            _ => {}
        }
    });
    used.retain(|(name, first_use, head)| {
        !bound
            .iter()
            .any(|(b, first_bind, value)| b == name && first_bind < first_use && !(*head && *value))
    });
    used.sort_by_key(|(_, at, _)| *at);
    let mut out: Vec<(String, usize)> = Vec::new();
    for (name, at, _) in used {
        if !out.iter().any(|(n, _)| *n == name) {
            out.push((name, at));
        }
    }
    out
}

/// Whether `node` starts a path (`ptr` of `ptr::read`, of `ptr::NonNull<u8>`) or names a macro:
/// a name of the module, type or macro namespace, which no local hides.
fn is_path_head(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| {
        (matches!(p.kind(), "scoped_identifier" | "scoped_type_identifier")
            && p.child_by_field_name("path") == Some(node))
            || (p.kind() == "macro_invocation" && p.child_by_field_name("macro") == Some(node))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{Language, walk_tree};

    #[test]
    fn roles_of_identifiers() {
        let text = "fn f<T: Tr>(a: &T, (b, c): P) -> R { let Some(v) = o else { return m!(a) }; for i in it {} let s = S { x: y }; w::z(v); |q| q; }\nimpl fmt::Display for X { fn fmt(&self) {} }\n";
        let tree = Language::Rust.parse(text);
        let mut uses = Vec::new();
        walk_tree(&tree, |n| {
            if matches!(n.kind(), "identifier" | "type_identifier")
                && role(n, up_from(n, &[])) == NameRole::Use
            {
                uses.push(node_text(n, text).to_string());
            }
            true
        });
        assert_eq!(
            uses,
            [
                "Tr", "T", "P", "R", "Some", "o", "m", "a", "it", "S", "y", "w", "v", "q", "fmt",
                "X"
            ]
        );
    }

    #[test]
    fn a_local_does_not_hide_the_module_a_path_starts_with() {
        // semver's `decode_len(ptr: *const u8)` reads `ptr::read(ptr …)`: the module is used.
        let text = "fn decode(ptr: *const u8, T: u8) -> u8 {\n    let mem = 1;\n    let x = unsafe { ptr::read(ptr) } + mem + T;\n    mem::drop(x);\n    x\n}\n\nfn generic<T: Default>() -> T {\n    T::default()\n}\n";
        let tree = Language::Rust.parse(text);
        let names = |range: Range<usize>| -> Vec<String> {
            names_used_in(&tree, text, &[range])
                .into_iter()
                .map(|(n, _)| n)
                .collect()
        };
        let decode = 0..text.find("fn generic").unwrap();
        // `ptr` and `mem` as path heads are the modules; `ptr`, `mem`, `T` as values are locals.
        assert_eq!(names(decode), ["ptr", "mem"]);
        // A generic parameter does hide the path it starts.
        assert_eq!(
            names(text.find("fn generic").unwrap()..text.len()),
            ["Default"]
        );
    }
}
