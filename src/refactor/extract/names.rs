//! A syntactic scan of the names a function binds and uses, for the findings of extract
//! function: which names the selection reads that are bound outside it, and which names it binds
//! that are read after it. Best effort: parameters, `let`/assignment targets, loop and pattern
//! variables, closures, comprehensions and nested definitions, with lexical scopes approximated by
//! node ranges. It is not scope analysis (no macros expanded, no types, no imports followed), and
//! never claims to be. Pure.

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use crate::lang::{Language, node_text};

/// What an occurrence of a name does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The value is used.
    Read,
    /// Rust: an existing binding is assigned (`x = 1`, `x += 1`); it must be in scope.
    Write,
    /// A new binding: `let x`, `x = 1` in Python, a parameter, a loop variable.
    Bind,
    /// Python `global x`; `scope` is the function it is declared in.
    Global,
    /// Python `nonlocal x`; `scope` is the function it is declared in.
    Nonlocal,
    /// Rust: a type name (for generic parameters).
    Type,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    pub name: String,
    pub role: Role,
    /// Byte of the name token.
    pub pos: usize,
    /// 1-based line of the name token.
    pub line: usize,
    /// For a binding: from where it holds (`let x = x + 1` binds after the value is read).
    pub at: usize,
    /// For a binding: the bytes where it is visible; for a declaration: its function.
    pub scope: Range<usize>,
    /// For a binding: whether it is a parameter of the function it is scoped to.
    pub parameter: bool,
}

impl Occurrence {
    fn new(node: Node<'_>, text: &str, role: Role) -> Occurrence {
        Occurrence {
            name: node_text(node, text).to_string(),
            role,
            pos: node.start_byte(),
            line: node.start_position().row + 1,
            at: node.start_byte(),
            scope: 0..0,
            parameter: false,
        }
    }

    fn binding(node: Node<'_>, text: &str, at: usize, scope: Node<'_>) -> Occurrence {
        Occurrence {
            at,
            scope: scope.byte_range(),
            ..Occurrence::new(node, text, Role::Bind)
        }
    }
}

/// Every occurrence of a name in `region` (a function, or a Python module), in document order.
pub fn collect(lang: Language, region: Node<'_>, text: &str) -> Vec<Occurrence> {
    let mut out = Vec::new();
    match lang {
        Language::Rust => collect_rust(region, text, &mut out),
        Language::Python => collect_python(region, text, &mut out),
    }
    out.sort_by_key(|o| o.pos);
    out
}

/// The occurrences of a region with its bindings indexed by name.
#[derive(Debug, Clone, Default)]
pub struct Names {
    pub all: Vec<Occurrence>,
    bindings: HashMap<String, Vec<usize>>,
}

impl Names {
    pub fn collect(lang: Language, region: Node<'_>, text: &str) -> Names {
        Names::new(collect(lang, region, text))
    }

    pub fn new(all: Vec<Occurrence>) -> Names {
        let mut bindings: HashMap<String, Vec<usize>> = HashMap::new();
        for (i, o) in all.iter().enumerate() {
            if o.role == Role::Bind {
                bindings.entry(o.name.clone()).or_default().push(i);
            }
        }
        Names { all, bindings }
    }

    /// Every binding of `name`, in document order.
    pub fn bindings_of<'a>(
        &'a self,
        name: &str,
    ) -> impl Iterator<Item = &'a Occurrence> + Clone + 'a {
        self.bindings
            .get(name)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|&i| self.all.get(i))
    }

    /// The binding a use of `name` at byte `at` refers to: among the bindings visible there,
    /// the one of the innermost scope, and in it the last one before `at`.
    pub fn resolve(&self, name: &str, at: usize) -> Option<&Occurrence> {
        let visible = self
            .bindings_of(name)
            .filter(|o| o.scope.contains(&at) && o.at < at);
        let innermost = visible.clone().map(|o| o.scope.len()).min()?;
        visible
            .filter(|o| o.scope.len() == innermost)
            .max_by_key(|o| o.at)
    }
}

fn field_of<'t>(parent: Node<'t>, child: Node<'t>) -> Option<&'t str> {
    let mut cursor = parent.walk();
    if !cursor.goto_first_child() {
        return None;
    }
    loop {
        if cursor.node().id() == child.id() {
            return cursor.field_name();
        }
        if !cursor.goto_next_sibling() {
            return None;
        }
    }
}

fn starts_uppercase(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

// ---------------------------------------------------------------------------------------------
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

/// The ancestors of the node being visited, root first: a tree-sitter `parent()` walks down
/// from the root, so climbing with it is quadratic on deeply nested code; this is not.
#[derive(Clone, Copy)]
struct Up<'p, 't> {
    path: &'p [Node<'t>],
}

impl<'p, 't> Up<'p, 't> {
    /// The `k`-th ancestor: 0 is the parent.
    fn nth(self, k: usize) -> Option<Node<'t>> {
        self.path
            .len()
            .checked_sub(k + 1)
            .and_then(|i| self.path.get(i))
            .copied()
    }

    fn parent(self) -> Option<Node<'t>> {
        self.nth(0)
    }

    /// The ancestors of the parent.
    fn rise(self) -> Up<'p, 't> {
        Up {
            path: &self.path[..self.path.len().saturating_sub(1)],
        }
    }

    /// The nearest ancestor `accept`s.
    fn find(self, accept: impl Fn(Node<'t>) -> bool) -> Option<Node<'t>> {
        self.path.iter().rev().copied().find(|n| accept(*n))
    }
}

/// Like `lang::walk_node`, also passing the ancestors of each node.
fn walk_with_ancestors<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>, Up<'_, 't>) -> bool) {
    let mut cursor = root.walk();
    let mut path: Vec<Node<'t>> = Vec::new();
    loop {
        let node = cursor.node();
        let descend = visit(node, Up { path: &path });
        if descend && cursor.goto_first_child() {
            path.push(node);
            continue;
        }
        loop {
            if cursor.node() == root {
                return;
            }
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return;
            }
            path.pop();
        }
    }
}

fn collect_rust(region: Node<'_>, text: &str, out: &mut Vec<Occurrence>) {
    walk_with_ancestors(region, |node, up| {
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

// ---------------------------------------------------------------------------------------------
// Python

const PYTHON_PATTERNS: &[&str] = &[
    "pattern_list",
    "tuple_pattern",
    "list_pattern",
    "list_splat_pattern",
    "parenthesized_expression",
    "tuple",
    "list",
];

/// The function, lambda, class or module a Python binding belongs to: the nearest of these
/// among the ancestors `up`.
fn python_scope<'t>(up: Up<'_, 't>) -> Option<Node<'t>> {
    up.find(|n| {
        matches!(
            n.kind(),
            "function_definition" | "lambda" | "class_definition" | "module"
        )
    })
}

fn collect_python(region: Node<'_>, text: &str, out: &mut Vec<Occurrence>) {
    walk_with_ancestors(region, |node, up| {
        if node.kind() == "identifier" {
            out.extend(classify_python(node, up, text));
            return false;
        }
        true
    });
}

fn classify_python(id: Node<'_>, up: Up<'_, '_>, text: &str) -> Vec<Occurrence> {
    let Some(parent) = up.parent() else {
        return Vec::new();
    };
    let field = field_of(parent, id);
    let read = || vec![Occurrence::new(id, text, Role::Read)];
    let bind_in = |at: usize, scope: Option<Node<'_>>| match scope {
        Some(scope) => vec![Occurrence::binding(id, text, at, scope)],
        None => Vec::new(),
    };
    let parameter = |function: Option<Node<'_>>| match function {
        Some(function) => {
            let mut binding = Occurrence::binding(id, text, id.start_byte(), function);
            binding.parameter = function.kind() == "function_definition";
            vec![binding]
        }
        None => Vec::new(),
    };
    let grandparent = up.nth(1);
    match parent.kind() {
        "attribute" if field == Some("attribute") => Vec::new(),
        "keyword_argument" if field == Some("name") => Vec::new(),
        "function_definition" | "class_definition" if field == Some("name") => {
            // The name binds where the definition (with its decorators) stands.
            let decorated = grandparent.is_some_and(|p| p.kind() == "decorated_definition");
            let outer = if decorated {
                up.rise().rise()
            } else {
                up.rise()
            };
            let start = if decorated {
                grandparent.unwrap_or(parent)
            } else {
                parent
            };
            bind_in(start.start_byte(), python_scope(outer))
        }
        "parameters" | "lambda_parameters" => parameter(grandparent),
        "default_parameter" | "typed_default_parameter" if field == Some("name") => {
            parameter(up.nth(2))
        }
        "typed_parameter" if field.is_none() => parameter(up.nth(2)),
        "list_splat_pattern" | "dictionary_splat_pattern"
            if grandparent.is_some_and(|p| {
                matches!(
                    p.kind(),
                    "parameters" | "lambda_parameters" | "typed_parameter"
                )
            }) =>
        {
            let typed = grandparent.is_some_and(|p| p.kind() == "typed_parameter");
            parameter(up.nth(if typed { 3 } else { 2 }))
        }
        "global_statement" | "nonlocal_statement" => {
            let role = if parent.kind() == "global_statement" {
                Role::Global
            } else {
                Role::Nonlocal
            };
            let mut declaration = Occurrence::new(id, text, role);
            declaration.scope = python_scope(up).map_or(0..0, |s| s.byte_range());
            vec![declaration]
        }
        "aliased_import" if field == Some("alias") => bind_in(id.start_byte(), python_scope(up)),
        "aliased_import" => Vec::new(),
        "dotted_name" => classify_dotted(id, up, text),
        // The walrus binds in the enclosing function, even inside a comprehension.
        "named_expression" if field == Some("name") => bind_in(parent.end_byte(), python_scope(up)),
        "keyword_pattern" if parent.named_child(0).is_some_and(|c| c.id() == id.id()) => Vec::new(),
        "splat_pattern" => bind_in(id.start_byte(), python_scope(up)),
        "augmented_assignment" if field == Some("left") => {
            let mut both = read();
            both.extend(bind_in(parent.end_byte(), python_scope(up)));
            both
        }
        _ => climb_python_pattern(id, up, text),
    }
}

/// `up` holds the ancestors of `id`; its parent is the `dotted_name`.
fn classify_dotted(id: Node<'_>, up: Up<'_, '_>, text: &str) -> Vec<Occurrence> {
    let (Some(dotted), Some(owner)) = (up.parent(), up.nth(1)) else {
        return Vec::new();
    };
    let is_first = dotted.named_child(0).is_some_and(|c| c.id() == id.id());
    let single = dotted.named_child_count() == 1;
    let bind = || {
        let scope = python_scope(up).unwrap_or(dotted);
        vec![Occurrence::binding(id, text, id.start_byte(), scope)]
    };
    match owner.kind() {
        // `import a.b` binds `a`.
        "import_statement" if is_first => bind(),
        // `from m import x` binds `x`; the module path binds nothing.
        "import_from_statement" => {
            if field_of(owner, dotted) == Some("name") && single {
                bind()
            } else {
                Vec::new()
            }
        }
        "aliased_import" | "import_statement" | "relative_import" | "future_import_statement" => {
            Vec::new()
        }
        // `case x:` captures; `case Color.RED:` and `case Point(...)` read.
        "case_pattern" | "keyword_pattern" | "splat_pattern" if single => {
            if node_text(id, text) == "_" {
                Vec::new()
            } else {
                bind()
            }
        }
        _ if is_first => vec![Occurrence::new(id, text, Role::Read)],
        _ => Vec::new(),
    }
}

fn climb_python_pattern(id: Node<'_>, up: Up<'_, '_>, text: &str) -> Vec<Occurrence> {
    let read = || vec![Occurrence::new(id, text, Role::Read)];
    let mut child = id;
    let mut up = up;
    loop {
        let Some(node) = up.parent() else {
            return read();
        };
        let field = field_of(node, child);
        let scope = || python_scope(up);
        match node.kind() {
            "assignment" if field == Some("left") => {
                // `a = b = 1`: the outermost assignment ends last.
                let outermost = up
                    .path
                    .iter()
                    .rev()
                    .take_while(|n| n.kind() == "assignment")
                    .last()
                    .copied()
                    .unwrap_or(node);
                let Some(scope) = scope() else {
                    return Vec::new();
                };
                return vec![Occurrence::binding(id, text, outermost.end_byte(), scope)];
            }
            "for_statement" if field == Some("left") => {
                let Some(scope) = scope() else {
                    return Vec::new();
                };
                let at = node
                    .child_by_field_name("body")
                    .map_or(node.end_byte(), |b| b.start_byte());
                return vec![Occurrence::binding(id, text, at, scope)];
            }
            "for_in_clause" if field == Some("left") => {
                let Some(comprehension) = up.nth(1) else {
                    return Vec::new();
                };
                return vec![Occurrence::binding(
                    id,
                    text,
                    comprehension.start_byte(),
                    comprehension,
                )];
            }
            "as_pattern_target" => {
                let Some(scope) = scope() else {
                    return Vec::new();
                };
                return vec![Occurrence::binding(id, text, id.start_byte(), scope)];
            }
            kind if PYTHON_PATTERNS.contains(&kind) => {}
            _ => return read(),
        }
        child = node;
        up = up.rise();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occurrences(lang: Language, text: &str) -> Vec<(String, Role, usize)> {
        let tree = lang.parse(text);
        let root = tree.root_node();
        let region = if lang == Language::Rust {
            root.child(0).unwrap()
        } else {
            root
        };
        collect(lang, region, text)
            .into_iter()
            .map(|o| (o.name, o.role, o.line))
            .collect()
    }

    fn has(list: &[(String, Role, usize)], name: &str, role: Role, line: usize) -> bool {
        list.iter()
            .any(|(n, r, l)| n == name && *r == role && *l == line)
    }

    #[test]
    fn rust_bindings_and_reads() {
        let text = "\
fn f(a: i32, (b, c): (i32, i32), Foo { d, e: g }: Foo) -> i32 {
    let x = a + b;
    for i in 0..c { x += i; }
    if let Some(y) = opt { y } else { None };
    match v { Some(w) if w > d => w, Color::Red => g, _ => 0 };
    println!(\"{x} {} {z:?}\", obj.len());
    let cl = |p, q: i32| p + q + outer;
    Self::h(s.field);
    x
}
";
        let list = occurrences(Language::Rust, text);
        for (name, line) in [
            ("a", 1),
            ("b", 1),
            ("c", 1),
            ("d", 1),
            ("g", 1),
            ("x", 2),
            ("i", 3),
            ("y", 4),
            ("w", 5),
            ("cl", 7),
            ("p", 7),
            ("q", 7),
        ] {
            assert!(
                has(&list, name, Role::Bind, line),
                "{name} bound at {line}: {list:?}"
            );
        }
        for (name, line) in [
            ("a", 2),
            ("b", 2),
            ("c", 3),
            ("i", 3),
            ("opt", 4),
            ("y", 4),
            ("v", 5),
            ("w", 5),
            ("d", 5),
            ("g", 5),
            ("x", 6),
            ("z", 6),
            ("obj", 6),
            ("outer", 7),
            ("s", 8),
            ("x", 9),
        ] {
            assert!(
                has(&list, name, Role::Read, line),
                "{name} read at {line}: {list:?}"
            );
        }
        assert!(has(&list, "x", Role::Write, 3));
        for name in [
            "Some", "None", "Color", "Red", "len", "h", "field", "Foo", "println",
        ] {
            assert!(
                !list
                    .iter()
                    .any(|(n, r, _)| n == name && *r == Role::Read && name != "None"),
                "{name} is no read: {list:?}"
            );
            assert!(
                !list.iter().any(|(n, r, _)| n == name && *r == Role::Bind),
                "{name} is not a local: {list:?}"
            );
        }
    }

    #[test]
    fn rust_let_shadowing_resolves_to_the_earlier_binding() {
        let text =
            "fn f() {\n    let x = 1;\n    let x = x + 1;\n    { let x = 5; }\n    use_it(x);\n}\n";
        let tree = Language::Rust.parse(text);
        let names = Names::collect(Language::Rust, tree.root_node().child(0).unwrap(), text);
        let read_at = |line: usize| {
            names
                .all
                .iter()
                .find(|o| o.name == "x" && o.role == Role::Read && o.line == line)
                .unwrap()
                .at
        };
        assert_eq!(names.resolve("x", read_at(3)).unwrap().line, 2);
        assert_eq!(names.resolve("x", read_at(5)).unwrap().line, 3);
    }

    #[test]
    fn python_bindings_and_reads() {
        let text = "\
def f(self, a, b=1, *args, c: int = 2, **kw):
    x = y = a
    p.q, r[i] = 1, 2
    total += 1
    for k, (m, n) in z: pass
    with open(path) as fh: pass
    try:
        pass
    except E as e:
        pass
    [u for u in us if u]
    import os.path, sys as system
    from . import mod as alias, other
    global gg
    if (w := 10) > 5: pass
    match cmd:
        case Point(x=px, y=0): pass
        case [first, *rest]: pass
        case Color.RED: pass
    print(f\"{x}\")
";
        let list = occurrences(Language::Python, text);
        for (name, line) in [
            ("self", 1),
            ("a", 1),
            ("b", 1),
            ("args", 1),
            ("c", 1),
            ("kw", 1),
            ("x", 2),
            ("y", 2),
            ("total", 4),
            ("k", 5),
            ("m", 5),
            ("n", 5),
            ("fh", 6),
            ("e", 9),
            ("u", 11),
            ("os", 12),
            ("system", 12),
            ("alias", 13),
            ("other", 13),
            ("w", 15),
            ("px", 17),
            ("first", 18),
            ("rest", 18),
        ] {
            assert!(
                has(&list, name, Role::Bind, line),
                "{name} bound at {line}: {list:?}"
            );
        }
        for (name, line) in [
            ("a", 2),
            ("p", 3),
            ("r", 3),
            ("i", 3),
            ("total", 4),
            ("z", 5),
            ("path", 6),
            ("E", 9),
            ("us", 11),
            ("u", 11),
            ("cmd", 16),
            ("Point", 17),
            ("Color", 19),
            ("x", 20),
        ] {
            assert!(
                has(&list, name, Role::Read, line),
                "{name} read at {line}: {list:?}"
            );
        }
        assert!(has(&list, "gg", Role::Global, 14));
        for name in ["q", "RED", "mod", "print", "open"] {
            assert!(
                !list.iter().any(|(n, r, _)| n == name && *r == Role::Bind),
                "{name}: {list:?}"
            );
        }
    }

    #[test]
    fn python_comprehension_variables_are_scoped_to_it() {
        let text = "def f(xs):\n    k = 1\n    ys = [k for k in xs]\n    return k\n";
        let tree = Language::Python.parse(text);
        let names = Names::collect(Language::Python, tree.root_node(), text);
        let read_at = |line: usize| {
            names
                .all
                .iter()
                .find(|o| o.name == "k" && o.role == Role::Read && o.line == line)
                .unwrap()
                .at
        };
        assert_eq!(names.resolve("k", read_at(3)).unwrap().line, 3);
        assert_eq!(names.resolve("k", read_at(4)).unwrap().line, 2);
    }
}
