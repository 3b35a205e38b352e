//! Facts for extract variable and inline variable, in both languages: the one expression a
//! range selects, where moving its evaluation would change what runs (a short-circuit, a branch,
//! a loop condition, a comprehension, a closure, a default), the statement and block that hold
//! it, the names it reads and whether it has effects, what writes a name, the occurrences of a
//! local (bound, read, written), and where a pasted expression needs parentheses. Data only:
//! the refactors word the sentences.

mod python;
mod rust;

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::Node;

use super::{Language, node_text, walk_node};

/// Why an expression cannot be bound before the statement that holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hazard {
    /// The right operand of `and`/`or`/`&&`/`||`: evaluated only when the left one says so.
    ShortCircuit,
    /// A branch of a conditional expression, an `elif`/`else if` condition, a match arm or
    /// guard: evaluated only when that branch is taken.
    Branch,
    /// A `while` condition: evaluated before every iteration.
    LoopCondition,
    /// A comprehension's element, condition or inner iterable: evaluated per item, in its scope.
    Comprehension,
    /// A lambda's or closure's body: evaluated when it is called.
    Closure,
    /// A default argument: evaluated once, when the function is defined.
    DefaultArgument,
    /// It is written to (an assignment's target), not a value.
    AssignmentTarget,
    /// A place borrowed with `&`/`&mut`: bound first, the borrow would be of a copy or a move.
    BorrowedPlace,
}

/// What a range selects when it is not exactly one expression.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotExpression {
    /// Only blanks.
    Empty,
    /// A lone name (nothing to extract) or a name being defined.
    Name,
    /// Parts of more than one expression, or part of one.
    Partial,
    /// A statement or more, not an expression.
    Statement,
    /// Inside a macro call's arguments, which are not parsed as expressions.
    MacroArguments,
}

/// How a local's name occurs in its function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Occurrence {
    /// Bound by a simple `let name = ...;` / `name = ...` statement.
    Binding,
    Read,
    /// Assigned, augmented or deleted.
    Write,
    /// Borrowed `&mut`, or the receiver of a method call (which may mutate it).
    Mutation,
    Parameter,
    /// Bound by a pattern: a tuple target, `for`, `with ... as`, `match`, `if let`.
    Pattern,
    /// Declared `global` / `nonlocal`.
    Global,
    /// The name of a function or class defined in the scope.
    Definition,
}

/// The scope a statement belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'t> {
    Function(Node<'t>),
    Module(Node<'t>),
    Class(Node<'t>),
}

impl<'t> Scope<'t> {
    pub fn node(self) -> Node<'t> {
        match self {
            Scope::Function(n) | Scope::Module(n) | Scope::Class(n) => n,
        }
    }
}

/// The binding statement of a local and what it binds.
#[derive(Debug, Clone, Copy)]
pub struct Binding<'t> {
    pub statement: Node<'t>,
    pub value: Node<'t>,
    /// Rust: the type written on the `let`.
    pub written_type: Option<Node<'t>>,
    /// Rust: `let mut`.
    pub mutable: bool,
}

/// The one expression `range` selects exactly (blanks around it ignored).
pub fn expression_at<'t>(
    lang: Language,
    root: Node<'t>,
    text: &str,
    range: Range<usize>,
) -> Result<Node<'t>, NotExpression> {
    let selected = text.get(range.clone()).unwrap_or("");
    let start = range.start + (selected.len() - selected.trim_start().len());
    let end = range.end - (selected.len() - selected.trim_end().len());
    if start >= end {
        return Err(NotExpression::Empty);
    }
    let Some(mut node) = root.descendant_for_byte_range(start, end) else {
        return Err(NotExpression::Partial);
    };
    // The widest node of exactly that range that is an expression.
    let mut found = None;
    loop {
        if node.start_byte() == start && node.end_byte() == end && is_expression(lang, node) {
            found = Some(node);
        }
        match node.parent() {
            Some(p) if p.start_byte() == start && p.end_byte() == end => node = p,
            _ => break,
        }
    }
    let in_tokens = std::iter::once(node)
        .chain(ancestors(node))
        .any(|a| a.kind() == "token_tree");
    if lang == Language::Rust && in_tokens {
        return Err(NotExpression::MacroArguments);
    }
    match found {
        Some(expr) if is_name(lang, expr) => Err(NotExpression::Name),
        Some(expr) => Ok(expr),
        None if node.start_byte() == start && node.end_byte() == end => {
            if is_name(lang, node) {
                Err(NotExpression::Name)
            } else if is_statement_list(lang, node)
                || node.parent().is_some_and(|p| is_statement_list(lang, p))
            {
                Err(NotExpression::Statement)
            } else {
                Err(NotExpression::Partial)
            }
        }
        None => Err(NotExpression::Partial),
    }
}

/// Every expression other than a lone name that covers `range`, innermost first, each wider
/// than the one before (a node of the same range as its child is skipped): the choices a
/// user widens through.
pub fn expressions_around(
    lang: Language,
    root: Node<'_>,
    range: Range<usize>,
) -> Vec<Range<usize>> {
    let mut found: Vec<Range<usize>> = Vec::new();
    let mut next = root.descendant_for_byte_range(range.start, range.end);
    while let Some(node) = next {
        if is_expression(lang, node)
            && !is_name(lang, node)
            && node.start_byte() <= range.start
            && node.end_byte() >= range.end
            && found.last() != Some(&node.byte_range())
        {
            found.push(node.byte_range());
        }
        next = node.parent();
    }
    found
}

/// What would change if `expr` were evaluated before `statement` (which holds it), if anything.
pub fn hazard(lang: Language, expr: Node<'_>, statement: Node<'_>) -> Option<Hazard> {
    if let Some(h) = own_hazard(lang, expr) {
        return Some(h);
    }
    let mut child = expr;
    while child.id() != statement.id() {
        let parent = child.parent()?;
        let found = match lang {
            Language::Rust => rust::hazard(child, parent),
            Language::Python => python::hazard(child, parent),
        };
        if found.is_some() {
            return found;
        }
        child = parent;
    }
    None
}

fn own_hazard(lang: Language, expr: Node<'_>) -> Option<Hazard> {
    match lang {
        Language::Rust => rust::own_hazard(expr),
        Language::Python => None,
    }
}

/// The statement of a statement list that holds `node`, and that list.
pub fn statement_of<'t>(lang: Language, node: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    let mut child = node;
    while let Some(parent) = child.parent() {
        if is_statement_list(lang, parent) && child.is_named() {
            return Some((child, parent));
        }
        child = parent;
    }
    None
}

/// Rust: the statement carries attributes (`#[cfg(...)] let x = ...;`), which a statement
/// inserted before it would take instead.
pub fn has_attributes(lang: Language, statement: Node<'_>) -> bool {
    if lang != Language::Rust {
        return false;
    }
    let mut previous = statement.prev_named_sibling();
    while let Some(p) = previous.filter(|p| p.kind().ends_with("_comment")) {
        previous = p.prev_named_sibling();
    }
    previous.is_some_and(|p| p.kind() == "attribute_item")
}

/// The function, class body or module whose code `node` is.
pub fn scope_of<'t>(lang: Language, node: Node<'t>) -> Scope<'t> {
    let mut current = node.parent();
    while let Some(n) = current {
        match (lang, n.kind()) {
            (Language::Rust, "function_item" | "closure_expression")
            | (Language::Python, "function_definition" | "lambda") => return Scope::Function(n),
            (Language::Python, "class_definition") => return Scope::Class(n),
            (Language::Rust, "impl_item" | "trait_item" | "mod_item") => return Scope::Class(n),
            _ => {}
        }
        current = n.parent();
    }
    let mut root = node;
    while let Some(p) = root.parent() {
        root = p;
    }
    Scope::Module(root)
}

/// The first place under `region` where `name` is used as a name (bound or read).
pub fn name_used(lang: Language, region: Node<'_>, text: &str, name: &str) -> Option<usize> {
    let mut found = None;
    walk_node(region, |n| {
        if found.is_some() {
            return false;
        }
        if is_identifier(lang, n) && node_text(n, text) == name && !is_member_name(lang, n) {
            found = Some(n.start_byte());
        }
        if lang == Language::Rust && n.kind() == "token_tree" && mentions(node_text(n, text), name)
        {
            found = Some(n.start_byte());
        }
        true
    });
    found
}

/// The names `expr` reads (identifiers in value positions, `self` included).
pub fn reads(lang: Language, expr: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk_node(expr, |n| {
        if (is_identifier(lang, n) || n.kind() == "self") && !is_member_name(lang, n) {
            out.insert(node_text(n, text).to_string());
        }
        true
    });
    out
}

/// Whether evaluating `node` may do something besides computing a value: a call, a macro call
/// other than known-pure ones, `await`, `yield`, `?`, an assignment inside it.
pub fn has_effects(lang: Language, node: Node<'_>, text: &str) -> bool {
    let mut effects = false;
    walk_node(node, |n| {
        if effects {
            return false;
        }
        effects = match lang {
            Language::Rust => rust::is_effect(n, text),
            Language::Python => python::is_effect(n),
        };
        !effects
    });
    effects
}

/// Python: whether evaluating `node` builds a new mutable object (a list, dict or set display, a
/// comprehension): two evaluations give two objects.
pub fn builds_object(lang: Language, node: Node<'_>) -> bool {
    lang == Language::Python && python::builds_object(node)
}

/// The first place under `region`, from byte `from` to byte `to`, that writes one of `names`:
/// an assignment or augmented assignment to it (or to a part of it), a new binding of it, a
/// `&mut` borrow of it, a method called on it (which may mutate it). The name and its offset.
pub fn first_write(
    lang: Language,
    region: Node<'_>,
    text: &str,
    names: &BTreeSet<String>,
    span: Range<usize>,
) -> Option<(String, usize)> {
    let mut found: Option<(String, usize)> = None;
    walk_node(region, |n| {
        if found.is_some() || n.end_byte() <= span.start || n.start_byte() >= span.end {
            return false;
        }
        if (is_identifier(lang, n) || n.kind() == "self")
            && names.contains(node_text(n, text))
            && !is_member_name(lang, n)
        {
            let role = occurrence(lang, n);
            if !matches!(role, Occurrence::Read) {
                found = Some((node_text(n, text).to_string(), n.start_byte()));
            }
        }
        if lang == Language::Rust && n.kind() == "token_tree" {
            // `write!(out, ..)`, `v.push(..)` inside a macro: tokens, not expressions.
            let tokens = node_text(n, text);
            if let Some(name) = names.iter().find(|name| rust::token_write(tokens, name)) {
                found = Some((name.clone(), n.start_byte()));
            }
        }
        true
    });
    found
}

/// Whether `statement` is a loop, a branch or another compound statement (a boundary past
/// which an expression's value is not known to be the same).
pub fn is_compound(lang: Language, statement: Node<'_>) -> bool {
    match lang {
        Language::Rust => rust::is_compound(statement),
        Language::Python => python::is_compound(statement),
    }
}

/// The expressions under `region` that read as `model` does (same kind, same text but for
/// blanks), outermost only, in order.
pub fn same_expressions<'t>(
    region: Node<'t>,
    text: &str,
    model: Node<'_>,
    within: Range<usize>,
) -> Vec<Node<'t>> {
    let wanted = crate::text::collapse_whitespace(node_text(model, text));
    let mut out = Vec::new();
    walk_node(region, |n| {
        if n.end_byte() <= within.start || n.start_byte() >= within.end {
            return false;
        }
        if n.kind() == model.kind()
            && n.start_byte() >= within.start
            && crate::text::collapse_whitespace(node_text(n, text)) == wanted
        {
            out.push(n);
            return false;
        }
        true
    });
    out
}

/// Whether the local bound from `expr` must be `mut` (Rust: `&mut expr`), or may have to be
/// (the receiver of a method call, which may take `&mut self`): `(must, may)`.
pub fn needs_mut(lang: Language, expr: Node<'_>, text: &str) -> (bool, bool) {
    match lang {
        Language::Rust => rust::needs_mut(expr, text),
        Language::Python => (false, false),
    }
}

/// Rust: `expr` is a place (a field or an element): `let` moves or copies it out.
pub fn is_place(lang: Language, expr: Node<'_>) -> bool {
    lang == Language::Rust && rust::is_place(expr)
}

/// The value a binding statement gives the name at `name` (`let name = value;`, `name = value`),
/// when `name` is the whole pattern of such a statement.
pub fn bound_value(lang: Language, name: Node<'_>) -> Option<Node<'_>> {
    let parent = name.parent()?;
    let (kind, target, value) = match lang {
        Language::Rust => ("let_declaration", "pattern", "value"),
        Language::Python => ("assignment", "left", "right"),
    };
    if parent.kind() != kind || parent.child_by_field_name(target) != Some(name) {
        return None;
    }
    parent.child_by_field_name(value)
}

/// Rust: `expr` borrows from a temporary that a `let` would drop at the end of its statement
/// (`String::new().as_str()`, `format!(..).trim()`).
pub fn borrows_temporary(lang: Language, expr: Node<'_>, text: &str) -> bool {
    lang == Language::Rust && rust::borrows_temporary(expr, text)
}

/// The binding statement `let name = expr;` / `name = expr`.
pub fn binding_text(lang: Language, name: &str, value: &str, mutable: bool) -> String {
    match lang {
        Language::Rust if mutable => format!("let mut {name} = {value};"),
        Language::Rust => format!("let {name} = {value};"),
        // A value that ran over lines inside the brackets it came from (`("1"\n "2")` selected
        // inside the parentheses) needs brackets of its own to stay one logical line.
        Language::Python if crate::lang::lex::lex(lang, value).logical_lines.len() > 1 => {
            format!("{name} = ({value})")
        }
        Language::Python => format!("{name} = {value}"),
    }
}

/// Every name (identifier) in the tree, as text.
pub fn identifier_names(lang: Language, root: Node<'_>, text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk_node(root, |n| {
        if is_identifier(lang, n) {
            out.insert(node_text(n, text).to_string());
        }
        true
    });
    out
}

/// The name (an identifier) at byte `offset`, if the cursor is on one.
pub fn name_at<'t>(lang: Language, root: Node<'t>, offset: usize) -> Option<Node<'t>> {
    let at = |o: usize| {
        root.descendant_for_byte_range(o, o)
            .filter(|n| is_identifier(lang, *n))
    };
    at(offset).or_else(|| offset.checked_sub(1).and_then(at))
}

/// Every occurrence of the name `name` in `scope`, and how it occurs.
pub fn occurrences<'t>(
    lang: Language,
    scope: Node<'t>,
    text: &str,
    name: &str,
) -> Vec<(Node<'t>, Occurrence)> {
    let mut out = Vec::new();
    walk_node(scope, |n| {
        if is_identifier(lang, n) && node_text(n, text) == name && !is_member_name(lang, n) {
            out.push((n, occurrence(lang, n)));
        }
        true
    });
    out
}

/// How the identifier `name` occurs where it is.
pub fn occurrence(lang: Language, name: Node<'_>) -> Occurrence {
    match lang {
        Language::Rust => rust::occurrence(name),
        Language::Python => python::occurrence(name),
    }
}

/// The binding statement of an identifier that occurs as [`Occurrence::Binding`].
pub fn binding_of<'t>(lang: Language, name: Node<'t>) -> Option<Binding<'t>> {
    match lang {
        Language::Rust => rust::binding_of(name),
        Language::Python => python::binding_of(name),
    }
}

/// Whether `value` pasted in place of the identifier `read` needs parentheses.
pub fn needs_parens(lang: Language, value: Node<'_>, read: Node<'_>, text: &str) -> bool {
    match lang {
        Language::Rust => rust::needs_parens(value, read, text),
        Language::Python => python::needs_parens(value, read, text),
    }
}

/// Rust: `read` is a struct field shorthand (`S { name }`): pasted, it becomes `name: value`.
pub fn is_shorthand_field(lang: Language, read: Node<'_>) -> bool {
    lang == Language::Rust
        && read
            .parent()
            .is_some_and(|p| p.kind() == "shorthand_field_initializer")
}

/// Rust: the macro (not a std one that takes expressions) whose tokens hold `read` directly
/// (`m!(x)`): it may match the name as an identifier or a token, which a pasted expression is not.
pub fn foreign_macro_of<'t>(lang: Language, read: Node<'_>, text: &'t str) -> Option<&'t str> {
    if lang != Language::Rust {
        return None;
    }
    crate::lang::rust::macros::macro_of_token(read, text)
        .filter(|m| !crate::lang::rust::macros::takes_expressions(m))
}

/// Whether `value` is a lone name (`other`), which fits wherever the name it replaces did.
pub fn is_lone_name(value: Node<'_>) -> bool {
    value.kind() == "identifier"
}

/// Rust: a string literal in `region` that names `name` as an inline format argument
/// (`"{name}"`, `"{name:?}"`), which a macro reads: its offset.
pub fn format_argument(lang: Language, region: Node<'_>, text: &str, name: &str) -> Option<usize> {
    if lang != Language::Rust {
        return None;
    }
    let mut found = None;
    walk_node(region, |n| {
        if found.is_none()
            && n.kind() == "string_literal"
            && n.parent().is_some_and(|p| p.kind() == "token_tree")
        {
            let s = node_text(n, text);
            if s.contains(&format!("{{{name}}}")) || s.contains(&format!("{{{name}:")) {
                found = Some(n.start_byte());
            }
        }
        found.is_none()
    });
    found
}

/// The outermost loop, closure, lambda, nested function or comprehension around `inner` inside
/// `stop` (the block of the binding), if any: a read there may run more than once, or later.
pub fn repeats_between<'t>(lang: Language, inner: Node<'t>, stop: Node<'t>) -> Option<Node<'t>> {
    let mut current = inner.parent();
    let mut found = None;
    while let Some(n) = current {
        if n.id() == stop.id() {
            break;
        }
        let repeats = match lang {
            Language::Rust => rust::repeats(n),
            Language::Python => python::repeats(n),
        };
        if repeats {
            found = Some(n);
        }
        current = n.parent();
    }
    found
}

fn ancestors(node: Node<'_>) -> impl Iterator<Item = Node<'_>> {
    std::iter::successors(node.parent(), |n| n.parent())
}

fn is_statement_list(lang: Language, node: Node<'_>) -> bool {
    match lang {
        Language::Rust => matches!(node.kind(), "block" | "source_file"),
        Language::Python => matches!(node.kind(), "block" | "module"),
    }
}

fn is_identifier(_lang: Language, node: Node<'_>) -> bool {
    node.kind() == "identifier"
}

fn is_name(lang: Language, node: Node<'_>) -> bool {
    is_identifier(lang, node) || node.kind() == "self"
}

fn is_expression(lang: Language, node: Node<'_>) -> bool {
    match lang {
        Language::Rust => rust::is_expression(node),
        Language::Python => python::is_expression(node),
    }
}

/// A member's name (`x.name`, `f(name=1)`): not a use of a local.
fn is_member_name(lang: Language, node: Node<'_>) -> bool {
    match lang {
        Language::Rust => rust::is_member_name(node),
        Language::Python => python::is_member_name(node),
    }
}

/// Whether the token text mentions `name` as a whole word.
fn mentions(tokens: &str, name: &str) -> bool {
    tokens
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|w| w == name)
}

#[cfg(test)]
mod tests;
