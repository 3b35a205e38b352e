//! Python's part of [`crate::lang::names`]: the names a function or module binds and uses
//! (assignments, parameters, loops, `with`/`except` targets, imports, comprehensions, `global` and
//! `nonlocal`, match captures), and the role of each occurrence; and the sets of names inline
//! function compares: what a body binds and reads, what a module defines or imports.

use std::collections::BTreeSet;

use tree_sitter::Node;

use crate::lang::names::NameRole;
use crate::lang::names::{Occurrence, Role, Up, field_of, identifier_lines, walk_with_up};
use crate::lang::{node_text, up_from, walk_node, walk_node_with_ancestors};

const PYTHON_PATTERNS: &[&str] = &[
    "pattern_list",
    "tuple_pattern",
    "list_pattern",
    "list_splat_pattern",
    "parenthesized_expression",
    "tuple",
    "list",
];

/// The comprehensions: each a scope of its own for the names it binds.
pub const COMPREHENSIONS: &[&str] = &[
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
];

/// Whether the identifier `id` (parent `parent`, grandparent `grandparent`) is a capture of a
/// `match` pattern: a bare name (`case x:`, `case [x, *rest]`, `case (x | x)`, `case P(k=x)`,
/// `case {"k": x, **rest}`) or the name after `as` (`case [a, b] as whole`); `_` captures
/// nothing, and a dotted name (`case Color.RED`) or a class (`case Point(..)`) is read.
/// (The caller leaves out `_`.)
pub fn is_match_capture(id: Node<'_>, parent: Node<'_>, grandparent: Option<Node<'_>>) -> bool {
    match parent.kind() {
        "dotted_name" => {
            parent.named_child_count() == 1
                && grandparent.is_some_and(|g| {
                    matches!(
                        g.kind(),
                        "case_pattern" | "keyword_pattern" | "splat_pattern" | "union_pattern"
                    ) && !(g.kind() == "keyword_pattern" && g.named_child(0) == Some(parent))
                })
        }
        "splat_pattern" => true,
        // `case [a, b] as whole`: the identifier after `as` (a `with`'s is an
        // `as_pattern_target`).
        "as_pattern" => {
            parent.named_child(0) != Some(id) && parent.child_by_field_name("alias").is_none()
        }
        _ => false,
    }
}

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

pub(crate) fn collect_python(region: Node<'_>, text: &str, out: &mut Vec<Occurrence>) {
    walk_with_up(region, |node, up| {
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
        "as_pattern" if is_match_capture(id, parent, grandparent) => {
            bind_in(id.start_byte(), python_scope(up))
        }
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
        "case_pattern" | "keyword_pattern" | "splat_pattern" | "union_pattern" if single => {
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

/// Identifiers a statement subtree binds in its scope (assignment and loop targets, `as`
/// names, imports, nested definitions), not looking into nested scopes.
pub fn bound_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    walk_node(root, |n| {
        match n.kind() {
            "assignment" | "augmented_assignment" | "for_statement" => {
                if let Some(left) = n.child_by_field_name("left") {
                    target_names(left, text, &mut names);
                }
            }
            "named_expression" => {
                if let Some(left) = n.child_by_field_name("name") {
                    target_names(left, text, &mut names);
                }
            }
            "as_pattern_target" => target_names(n, text, &mut names),
            "as_pattern" => {
                if let Some(alias) = n.child_by_field_name("alias") {
                    target_names(alias, text, &mut names);
                }
            }
            "import_statement" | "import_from_statement" => {
                let mut cursor = n.walk();
                for name in n.children_by_field_name("name", &mut cursor) {
                    let bound = match name.kind() {
                        "aliased_import" => name
                            .child_by_field_name("alias")
                            .map(|a| node_text(a, text)),
                        _ => node_text(name, text).split('.').next(),
                    };
                    names.extend(bound.map(str::to_string));
                }
            }
            "function_definition" | "class_definition" if n.id() != root.id() => {
                names.extend(
                    n.child_by_field_name("name")
                        .map(|a| node_text(a, text).to_string()),
                );
                return false;
            }
            k if k == "lambda" || COMPREHENSIONS.contains(&k) => return false,
            _ => {}
        }
        if n.kind() == "except_clause" {
            // `except E as name:`: the name after `as`.
            let mut cursor = n.walk();
            let children: Vec<Node<'_>> = n.children(&mut cursor).collect();
            for pair in children.windows(2) {
                if pair[0].kind() == "as" && pair[1].kind() == "identifier" {
                    names.insert(node_text(pair[1], text).to_string());
                }
            }
        }
        true
    });
    names
}

pub fn target_names(target: Node<'_>, text: &str, names: &mut BTreeSet<String>) {
    walk_node(target, |n| match n.kind() {
        "identifier" => {
            names.insert(node_text(n, text).to_string());
            false
        }
        "attribute" | "subscript" => false,
        _ => true,
    });
}

/// Where each of `names` occurs as a variable in `root` (never as an attribute or a keyword
/// argument's name), and those among them that a nested scope of `root` binds again (a nested
/// function's or lambda's parameter or name, a comprehension variable, `global`/`nonlocal`):
/// renaming one of those everywhere would change what the nested scope means.
pub fn variable_ranges(
    root: Node<'_>,
    text: &str,
    names: &BTreeSet<String>,
) -> (
    std::collections::BTreeMap<String, Vec<std::ops::Range<usize>>>,
    BTreeSet<String>,
) {
    let mut ranges: std::collections::BTreeMap<String, Vec<std::ops::Range<usize>>> =
        std::collections::BTreeMap::new();
    let mut rebound = BTreeSet::new();
    walk_node_with_ancestors(root, |n, ancestors| {
        if n.kind() != "identifier" {
            return true;
        }
        let name = node_text(n, text);
        if !names.contains(name) {
            return false;
        }
        let parent = up_from(n, ancestors).next();
        if is_attribute_or_keyword_name(n, parent) {
            return false;
        }
        let rebinds = ancestors.iter().any(|a| {
            matches!(
                a.kind(),
                "parameters" | "lambda_parameters" | "global_statement" | "nonlocal_statement"
            ) || (a.kind() == "for_in_clause"
                && a.child_by_field_name("left")
                    .is_some_and(|left| left.byte_range().contains(&n.start_byte())))
        }) || parent.is_some_and(|p| {
            matches!(p.kind(), "function_definition" | "class_definition")
                && p.child_by_field_name("name") == Some(n)
        });
        if rebinds {
            rebound.insert(name.to_string());
        }
        ranges
            .entry(name.to_string())
            .or_default()
            .push(n.byte_range());
        false
    });
    (ranges, rebound)
}

/// Identifiers read or written in a subtree, except attribute names, keyword names and the
/// variables of comprehensions (they have a scope of their own).
pub fn read_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut comprehension_variables = BTreeSet::new();
    walk_node_with_ancestors(root, |n, ancestors| {
        if n.kind() == "for_in_clause"
            && let Some(left) = n.child_by_field_name("left")
        {
            target_names(left, text, &mut comprehension_variables);
        }
        if n.kind() == "identifier"
            && !is_attribute_or_keyword_name(n, up_from(n, ancestors).next())
        {
            names.insert(node_text(n, text).to_string());
        }
        true
    });
    names.retain(|n| !comprehension_variables.contains(n));
    names
}

/// `parent`: the node's parent, when known.
pub fn is_attribute_or_keyword_name<'t>(n: Node<'t>, parent: Option<Node<'t>>) -> bool {
    let Some(parent) = parent else {
        return false;
    };
    match parent.kind() {
        "attribute" => parent.child_by_field_name("attribute") == Some(n),
        "keyword_argument" => parent.child_by_field_name("name") == Some(n),
        _ => false,
    }
}

/// Names a module defines or imports at its top level, conditional blocks included
/// (`if ...: from x import y`, `try: ... except ImportError: ...`).
pub fn module_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut statements: Vec<Node<'_>> = root.named_children(&mut root.walk()).collect();
    while let Some(statement) = statements.pop() {
        if matches!(
            statement.kind(),
            "if_statement"
                | "try_statement"
                | "with_statement"
                | "for_statement"
                | "while_statement"
                | "elif_clause"
                | "else_clause"
                | "except_clause"
                | "except_group_clause"
                | "finally_clause"
                | "block"
        ) {
            statements.extend(statement.named_children(&mut statement.walk()));
            continue;
        }
        let statement = if statement.kind() == "decorated_definition" {
            statement
                .child_by_field_name("definition")
                .unwrap_or(statement)
        } else {
            statement
        };
        match statement.kind() {
            "function_definition" | "class_definition" => {
                names.extend(
                    statement
                        .child_by_field_name("name")
                        .map(|n| node_text(n, text).to_string()),
                );
            }
            "import_statement" | "import_from_statement" | "expression_statement" => {
                names.extend(bound_names(statement, text));
            }
            _ => {}
        }
    }
    names
}

/// What a mention of a name (`node`, an identifier) is, for a refactor deciding whether it is
/// the function of that name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MentionShape {
    /// A keyword argument's name or a parameter: not the function.
    NotAName,
    /// `object.name`: the object's text.
    Attribute(String),
    /// A plain name.
    Plain,
}

pub fn mention_shape(node: Node<'_>, text: &str) -> MentionShape {
    let Some(parent) = node.parent() else {
        return MentionShape::NotAName;
    };
    match parent.kind() {
        "keyword_argument" if parent.child_by_field_name("name") == Some(node) => {
            MentionShape::NotAName
        }
        "parameters" | "default_parameter" | "typed_default_parameter" | "typed_parameter" => {
            MentionShape::NotAName
        }
        "attribute" if parent.child_by_field_name("attribute") == Some(node) => {
            MentionShape::Attribute(
                parent
                    .child_by_field_name("object")
                    .map(|o| node_text(o, text))
                    .unwrap_or("")
                    .to_string(),
            )
        }
        _ => MentionShape::Plain,
    }
}

/// Where a mention inside a string literal stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InString {
    /// In the expressions of an f-string.
    FString,
    /// An item of a `__all__ = [...]` list.
    DunderAll,
    Other,
}

pub fn in_string(tree: &tree_sitter::Tree, text: &str, range: &std::ops::Range<usize>) -> InString {
    let mut current = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end);
    while let Some(n) = current {
        if n.kind() == "interpolation" {
            return InString::FString;
        }
        if n.kind() == "expression_statement" {
            let is_all = n
                .named_child(0)
                .filter(|a| a.kind() == "assignment")
                .and_then(|a| a.child_by_field_name("left"))
                .is_some_and(|l| node_text(l, text) == "__all__");
            return if is_all {
                InString::DunderAll
            } else {
                InString::Other
            };
        }
        current = n.parent();
    }
    InString::Other
}

/// A use of a class name that could construct it: not its own definition's name, not an
/// annotation, not `Class.attribute`.
pub fn is_plain_class_use(node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else {
        return true;
    };
    let own_name =
        parent.kind() == "class_definition" && parent.child_by_field_name("name") == Some(node);
    let attribute_object =
        parent.kind() == "attribute" && parent.child_by_field_name("object") == Some(node);
    let mut in_annotation = false;
    let mut current = node.parent();
    while let Some(p) = current {
        if p.kind() == "type" {
            in_annotation = true;
            break;
        }
        current = p.parent();
    }
    !own_name && !attribute_object && !in_annotation
}

/// Whether the string at `node` (or inside it) is an item of `__all__ = [...]` (or `+=`).
pub fn in_dunder_all(node: Option<Node<'_>>, text: &str) -> bool {
    let mut current = node;
    while let Some(node) = current {
        match node.kind() {
            "assignment" | "augmented_assignment" => {
                return node
                    .child_by_field_name("left")
                    .is_some_and(|l| node_text(l, text) == "__all__");
            }
            "string" | "string_content" | "list" | "tuple" | "parenthesized_expression" => {}
            _ => return false,
        }
        current = node.parent();
    }
    false
}

/// The class around `node`: its name and its bases as written (`(Base, Mixin)`).
pub fn class_around<'a>(node: Node<'_>, text: &'a str) -> Option<(&'a str, &'a str)> {
    let mut current = node.parent();
    while let Some(class) = current {
        if class.kind() == "class_definition" {
            return Some((
                class
                    .child_by_field_name("name")
                    .map_or("", |n| node_text(n, text)),
                class
                    .child_by_field_name("superclasses")
                    .map_or("", |n| node_text(n, text)),
            ));
        }
        current = class.parent();
    }
    None
}

/// Identifiers spelled `name` under `node` that are variables (not `x.name`, not `f(name=..)`):
/// their lines.
pub fn variable_lines(node: Node<'_>, text: &str, name: &str) -> Vec<usize> {
    identifier_lines(node, text, name, |n| {
        !is_attribute_or_keyword_name(n, n.parent())
    })
}

fn is_field<'t>(parent: Node<'t>, field: &str, node: Node<'t>) -> bool {
    parent.child_by_field_name(field) == Some(node)
}

/// `up`: the ancestors of `node`, nearest first ([`up_from`]); only the first few are asked.
pub fn role<'t>(node: Node<'t>, up: impl Iterator<Item = Node<'t>>) -> NameRole {
    let mut up = up;
    let Some(parent) = up.next() else {
        return NameRole::Use;
    };
    match parent.kind() {
        "attribute" if is_field(parent, "attribute", node) => return NameRole::Other,
        "keyword_argument" if is_field(parent, "name", node) => return NameRole::Other,
        "function_definition" | "class_definition" if is_field(parent, "name", node) => {
            // A method's name is an attribute of its class, not a name its code can read.
            let in_class_body =
                crate::lang::symbols::outer_node(crate::lang::Language::Python, parent)
                    .parent()
                    .filter(|b| b.kind() == "block")
                    .and_then(|b| b.parent())
                    .is_some_and(|c| c.kind() == "class_definition");
            return if in_class_body {
                NameRole::Other
            } else {
                NameRole::Bind
            };
        }
        "parameters"
        | "lambda_parameters"
        | "typed_parameter"
        | "list_splat_pattern"
        | "dictionary_splat_pattern"
        | "as_pattern_target" => return NameRole::Bind,
        "default_parameter" | "typed_default_parameter" | "named_expression"
            if is_field(parent, "name", node) =>
        {
            return NameRole::Bind;
        }
        "global_statement" | "nonlocal_statement" => return NameRole::Use,
        "as_pattern" | "splat_pattern" if is_match_capture(node, parent, None) => {
            return NameRole::Bind;
        }
        // Dotted names are written in imports, and are a `match` pattern's captures.
        "dotted_name" => {
            let holder = up.next();
            if is_match_capture(node, parent, holder) {
                return NameRole::Bind;
            }
            return dotted_name_role(node, parent, holder);
        }
        _ => {}
    }
    // Inside an import, or on the left of an assignment or `for`, through patterns.
    let mut child = node;
    for ancestor in std::iter::once(parent).chain(up) {
        match ancestor.kind() {
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                return NameRole::Bind;
            }
            "aliased_import"
            | "pattern_list"
            | "tuple_pattern"
            | "list_pattern"
            | "parenthesized_expression"
            | "tuple"
            | "list" => {}
            "assignment" | "augmented_assignment" | "for_statement" | "for_in_clause" => {
                return if is_field(ancestor, "left", child) {
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

/// A segment of an import's dotted name (`holder`: what holds the dotted name): `import a.b`
/// binds `a`; `from m import n` binds `n`; the module of a `from` import, the rest of a dotted
/// name and the name an `as` renames bind nothing.
fn dotted_name_role(node: Node<'_>, dotted: Node<'_>, holder: Option<Node<'_>>) -> NameRole {
    let Some(holder) = holder else {
        return NameRole::Other;
    };
    let first = dotted.named_child(0) == Some(node);
    match holder.kind() {
        "import_statement" if first => NameRole::Bind,
        "import_from_statement" | "future_import_statement"
            if holder.child_by_field_name("module_name") != Some(dotted) =>
        {
            NameRole::Bind
        }
        _ => NameRole::Other,
    }
}

/// Offsets of the uses of `name` outside `moves` (and of an `__all__` entry naming it, which
/// `from module import *` needs bound).
pub fn uses_outside(
    tree: &tree_sitter::Tree,
    text: &str,
    name: &str,
    moves: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let mut uses = Vec::new();
    // A use is the name: nodes whose text does not hold it are not entered.
    let holds_name = crate::lang::holding(text, name);
    crate::lang::walk_tree_with_ancestors(tree, |node, ancestors| {
        if node.kind() == "identifier"
            && node_text(node, text) == name
            && !moves(node.start_byte())
            && role(node, up_from(node, ancestors)) == NameRole::Use
        {
            uses.push(node.start_byte());
        }
        holds_name(node)
    });
    for range in super::imports::dunder_all_strings(tree, text) {
        if !moves(range.start) && super::imports::string_value(&text[range.clone()]) == Some(name) {
            uses.push(range.start);
        }
    }
    uses.sort_unstable();
    uses
}

/// The identifiers starting inside `ranges`, each with its role, in walk order.
pub fn identifier_roles<'t>(
    tree: &'t tree_sitter::Tree,
    text: &'t str,
    ranges: &[std::ops::Range<usize>],
) -> Vec<(&'t str, NameRole, usize)> {
    let inside = |at: usize| ranges.iter().any(|r| r.contains(&at));
    let mut found = Vec::new();
    crate::lang::walk_overlapping(tree, ranges, |node| {
        if node.kind() == "identifier" && inside(node.start_byte()) {
            found.push((
                node_text(node, text),
                role(node, up_from(node, &[])),
                node.start_byte(),
            ));
        }
    });
    found
}

/// The names of the `global` statements starting inside `ranges` (with their offsets), or, with
/// `outside`, of those starting outside them (with the statement's offset); in walk order.
pub fn global_names(
    tree: &tree_sitter::Tree,
    text: &str,
    ranges: &[std::ops::Range<usize>],
    outside: bool,
) -> Vec<(String, usize)> {
    let inside = |at: usize| ranges.iter().any(|r| r.contains(&at));
    let mut out = Vec::new();
    let mut visit = |node: Node<'_>| {
        if node.kind() == "global_statement" && inside(node.start_byte()) != outside {
            for name in node.named_children(&mut node.walk()) {
                let at = if outside {
                    node.start_byte()
                } else {
                    name.start_byte()
                };
                out.push((node_text(name, text).to_string(), at));
            }
        }
    };
    if outside {
        // Only nodes whose text holds `global` can hold such a statement.
        let holds_keyword = crate::lang::holding(text, "global");
        crate::lang::walk_tree(tree, |node| {
            if !holds_keyword(node) {
                return false;
            }
            visit(node);
            true
        });
    } else {
        crate::lang::walk_overlapping(tree, ranges, visit);
    }
    out
}

/// In the function `function`: the locals only ever updated in place (`x += …`) and never bound
/// (parameter, assignment, loop or `with` target, import, `global`, …), with the line of their
/// first update, in document order.
pub fn unbound_updates<'t>(function: Node<'_>, text: &'t str) -> Vec<(&'t str, usize)> {
    let mut bound: Vec<&str> = Vec::new();
    let mut updated: Vec<(&str, usize)> = Vec::new();
    if let Some(parameters) = function.child_by_field_name("parameters") {
        identifiers(parameters, text, &mut bound);
    }
    let Some(body) = function.child_by_field_name("body") else {
        return Vec::new();
    };
    walk_node(body, |n| {
        match n.kind() {
            // Nested scopes bind their own name here; their bodies are not this scope.
            "function_definition" | "class_definition" => {
                if let Some(inner) = n.child_by_field_name("name") {
                    bound.push(node_text(inner, text));
                }
                return false;
            }
            "lambda" => return false,
            "assignment" | "for_statement" | "for_in_clause" => {
                if let Some(left) = n.child_by_field_name("left") {
                    identifiers(left, text, &mut bound);
                }
            }
            "named_expression" => {
                if let Some(target) = n.child_by_field_name("name") {
                    identifiers(target, text, &mut bound);
                }
            }
            "as_pattern_target"
            | "global_statement"
            | "nonlocal_statement"
            | "import_statement"
            | "import_from_statement"
            | "case_pattern" => identifiers(n, text, &mut bound),
            "augmented_assignment" => {
                if let Some(left) = n
                    .child_by_field_name("left")
                    .filter(|l| l.kind() == "identifier")
                {
                    updated.push((node_text(left, text), left.start_position().row + 1));
                }
            }
            _ => {}
        }
        true
    });
    let mut reported: Vec<(&str, usize)> = Vec::new();
    for (variable, line) in updated {
        if !bound.contains(&variable) && !reported.iter().any(|(v, _)| *v == variable) {
            reported.push((variable, line));
        }
    }
    reported
}

fn identifiers<'t>(node: Node<'_>, text: &'t str, out: &mut Vec<&'t str>) {
    walk_node(node, |n| {
        if n.kind() == "identifier" {
            out.push(node_text(n, text));
        }
        true
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::{Language, walk_tree};

    #[test]
    fn roles_of_identifiers() {
        let text = "def f(a, b=1, *c, d: int = 2):\n    x, y = a, g\n    for i in h: pass\n    with k() as w: pass\n    return o.p(q=r)\nclass C:\n    @staticmethod\n    def os():\n        return os.sep\n";
        let tree = Language::Python.parse(text);
        let mut uses = Vec::new();
        walk_tree(&tree, |n| {
            if n.kind() == "identifier" && role(n, up_from(n, &[])) == NameRole::Use {
                uses.push(node_text(n, text).to_string());
            }
            true
        });
        assert_eq!(
            uses,
            ["int", "a", "g", "h", "k", "o", "r", "staticmethod", "os"]
        );
        let os_def = text.find("def os").unwrap() + 4;
        let mut os_role = None;
        walk_tree(&tree, |n| {
            if n.start_byte() == os_def && n.kind() == "identifier" {
                os_role = Some(role(n, up_from(n, &[])));
            }
            true
        });
        assert_eq!(os_role, Some(NameRole::Other));
    }

    #[test]
    fn imports_bind_only_the_names_they_bind() {
        let text = "import os\nimport a.b\nimport c.d as e\nfrom f.g import h, i as j\nfrom . import k\nfrom __future__ import annotations\n";
        let tree = Language::Python.parse(text);
        let mut roles = Vec::new();
        walk_tree(&tree, |n| {
            if n.kind() == "identifier" {
                roles.push((node_text(n, text).to_string(), role(n, up_from(n, &[]))));
            }
            true
        });
        let of = |role: NameRole| -> Vec<&str> {
            roles
                .iter()
                .filter(|(_, r)| *r == role)
                .map(|(n, _)| n.as_str())
                .collect()
        };
        assert_eq!(of(NameRole::Use), Vec::<&str>::new());
        assert_eq!(
            of(NameRole::Bind),
            ["os", "a", "e", "h", "j", "k", "annotations"]
        );
        assert_eq!(of(NameRole::Other), ["b", "c", "d", "f", "g", "i"]);
    }
}
