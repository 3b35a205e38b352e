//! A Python function body read as code to paste elsewhere: its parameters, what it refuses to
//! be pasted (a generator, `global`, `await`), its final `return`s and the paths that fall off
//! its end, and the places a call can stand in (a statement of its own, an assignment, deep in
//! an expression) — with the functions and classes around a node.

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::Node;

use super::names::COMPREHENSIONS;
use super::statements::next_statement;
use crate::lang::finder::Parents;
use crate::lang::{node_text, walk_node};
use crate::text::surgery::line_content_end;

/// Scopes of their own: what happens inside does not concern the enclosing function's body.
pub const NESTED_SCOPES: &[&str] = &["function_definition", "class_definition", "lambda"];

pub fn last_statement(block: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = block.walk();
    block
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .last()
}

pub fn has_else(if_statement: Node<'_>) -> bool {
    let mut cursor = if_statement.walk();

    if_statement
        .children_by_field_name("alternative", &mut cursor)
        .any(|a| a.kind() == "else_clause")
}

/// Zero-argument `super()`, `__class__` and `__private` names depend on the class the code is
/// written in.
pub fn is_class_bound(n: Node<'_>, text: &str) -> bool {
    match n.kind() {
        "call" => {
            n.child_by_field_name("function")
                .is_some_and(|f| node_text(f, text) == "super")
                && n.child_by_field_name("arguments")
                    .is_some_and(|a| a.named_child_count() == 0)
        }
        "identifier" => {
            let t = node_text(n, text);
            t == "__class__" || (t.starts_with("__") && !t.ends_with("__"))
        }
        _ => false,
    }
}

/// The statement (child of a block or of the module) that contains `node`.
pub fn statement_of(node: Node<'_>) -> Option<Node<'_>> {
    statement_with(node, Parents::none())
}

/// [`statement_of`], climbing with `parents`.
pub fn statement_with<'t>(node: Node<'t>, parents: Parents<'_, 't>) -> Option<Node<'t>> {
    let mut current = node;
    loop {
        let parent = parents.of(current)?;
        if matches!(parent.kind(), "block" | "module") {
            return Some(current);
        }
        current = parent;
    }
}

/// The innermost function whose body contains `node`, if any.
pub fn enclosing_function(node: Node<'_>) -> Option<Node<'_>> {
    crate::lang::ancestor_of_kind(node, "function_definition")
}

/// [`enclosing_function`], climbing with `parents`.
pub fn enclosing_function_with<'t>(node: Node<'t>, parents: Parents<'_, 't>) -> Option<Node<'t>> {
    let mut current = parents.of(node);
    while let Some(n) = current {
        if n.kind() == "function_definition" {
            return Some(n);
        }
        current = parents.of(n);
    }
    None
}

/// The class a function is defined directly in.
pub fn class_of_function<'t>(func: Node<'t>, text: &str) -> Option<(String, Node<'t>)> {
    let mut parent = func.parent()?;
    if parent.kind() == "decorated_definition" {
        parent = parent.parent()?;
    }
    if parent.kind() != "block" {
        return None;
    }
    let class = parent.parent().filter(|c| c.kind() == "class_definition")?;
    Some((
        node_text(class.child_by_field_name("name")?, text).to_string(),
        class,
    ))
}

pub fn parameter_names(func: Node<'_>, text: &str) -> BTreeSet<String> {
    let Some(params) = func.child_by_field_name("parameters") else {
        return BTreeSet::new();
    };
    let mut cursor = params.walk();
    params
        .named_children(&mut cursor)
        .filter_map(|p| match p.kind() {
            "identifier" => Some(node_text(p, text).to_string()),
            "typed_parameter" | "list_splat_pattern" | "dictionary_splat_pattern" => {
                let mut c = p.walk();
                let inner = p
                    .named_children(&mut c)
                    .find(|c| c.kind() == "identifier" || c.kind().ends_with("splat_pattern"));
                inner.map(|i| node_text(i, text).trim_start_matches('*').to_string())
            }
            "default_parameter" | "typed_default_parameter" => p
                .child_by_field_name("name")
                .map(|n| node_text(n, text).to_string()),
            _ => None,
        })
        .collect()
}

/// An expression whose evaluation has no effect (dropping it changes nothing).
pub fn is_inert(node: Node<'_>) -> bool {
    match node.kind() {
        "identifier" | "integer" | "float" | "true" | "false" | "none" | "ellipsis" => true,
        "string" => {
            let mut cursor = node.walk();
            let has_interpolation = node
                .named_children(&mut cursor)
                .any(|c| c.kind() == "interpolation");
            !has_interpolation
        }
        "tuple" | "parenthesized_expression" => {
            let mut cursor = node.walk();

            node.named_children(&mut cursor).all(is_inert)
        }
        _ => false,
    }
}

/// Whether the call sits where any expression fits without parentheses (an argument, an
/// element, the right side of `=`).
pub fn delimits<'t>(call: Node<'t>, parents: Parents<'_, 't>) -> bool {
    let Some(parent) = parents.of(call) else {
        return false;
    };
    match parent.kind() {
        "argument_list"
        | "list"
        | "set"
        | "tuple"
        | "parenthesized_expression"
        | "expression_statement"
        | "return_statement" => true,
        "keyword_argument" | "pair" => parent
            .child_by_field_name("value")
            .is_some_and(|v| v.id() == call.id()),
        "assignment" | "augmented_assignment" => parent
            .child_by_field_name("right")
            .is_some_and(|v| v.id() == call.id()),
        _ => false,
    }
}

/// Atoms need no parentheses when they replace a call.
fn is_atom(kind: &str) -> bool {
    matches!(
        kind,
        "identifier"
            | "call"
            | "attribute"
            | "subscript"
            | "string"
            | "concatenated_string"
            | "integer"
            | "float"
            | "true"
            | "false"
            | "none"
            | "parenthesized_expression"
            | "list"
            | "dictionary"
            | "set"
            | "tuple"
    )
}

/// For a call that is a whole statement: the text before the call (`""`, `y = `, `return `)
/// and, for `return f(x)`, whether a path of the body that falls off its end must return
/// explicitly (the statement is not the last of its function).
pub fn statement_level(call: Node<'_>, statement: Node<'_>, text: &str) -> Option<(String, bool)> {
    let prefix = || text[statement.start_byte()..call.start_byte()].to_string();
    match statement.kind() {
        "expression_statement" => {
            let child = statement.named_child(0)?;
            if statement.named_child_count() != 1 {
                return None;
            }
            if child.id() == call.id() {
                return Some((String::new(), false));
            }
            let mut node = child;
            loop {
                match node.kind() {
                    "assignment" | "augmented_assignment" => {
                        let right = node.child_by_field_name("right")?;
                        if right.id() == call.id() {
                            return Some((prefix(), false));
                        }
                        if right.kind() == "assignment" {
                            node = right;
                            continue;
                        }
                        return None;
                    }
                    _ => return None,
                }
            }
        }
        "return_statement" => {
            let value = statement.named_child(0)?;
            if value.id() != call.id() {
                return None;
            }
            let last_of_function = statement.parent().is_some_and(|block| {
                block
                    .parent()
                    .is_some_and(|f| f.kind() == "function_definition")
                    && next_statement(statement).is_none()
            });
            Some((prefix(), !last_of_function))
        }
        _ => None,
    }
}

/// How a parameter can be passed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    PositionalOnly,
    Either,
    KeywordOnly,
}

/// One parameter of a `def`, as inlining binds it.
#[derive(Debug, Clone)]
pub struct Param {
    pub name: String,
    pub default: Option<String>,
    pub kind: ParamKind,
}

/// Why a parameter list cannot be bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ParamProblem {
    /// `*args` or `**kwargs` (line).
    Splat(usize),
    /// A form nobody expected: the node kind and its line.
    Unknown(String, usize),
    /// A parameter without a readable name (line).
    Unnamed(usize),
}

/// The parameters of `func` in order, markers (`*`, `/`) applied to their kinds.
pub fn parameters(func: Node<'_>, text: &str) -> Result<Vec<Param>, ParamProblem> {
    let Some(list) = func.child_by_field_name("parameters") else {
        return Ok(Vec::new());
    };
    let mut params: Vec<Param> = Vec::new();
    let mut keyword_only = false;
    let mut cursor = list.walk();
    for p in list.named_children(&mut cursor) {
        let line = p.start_position().row + 1;
        let kind = if keyword_only {
            ParamKind::KeywordOnly
        } else {
            ParamKind::Either
        };
        let (param_name, default) = match p.kind() {
            "identifier" => (node_text(p, text).to_string(), None),
            "typed_parameter" => {
                let mut c = p.walk();
                let inner = p.named_children(&mut c).next();
                match inner {
                    Some(i) if i.kind() == "identifier" => (node_text(i, text).to_string(), None),
                    _ => return Err(ParamProblem::Splat(line)),
                }
            }
            "default_parameter" | "typed_default_parameter" => (
                p.child_by_field_name("name")
                    .map(|n| node_text(n, text).to_string())
                    .unwrap_or_default(),
                p.child_by_field_name("value")
                    .map(|v| node_text(v, text).to_string()),
            ),
            "list_splat_pattern" | "dictionary_splat_pattern" => {
                return Err(ParamProblem::Splat(line));
            }
            "keyword_separator" => {
                keyword_only = true;
                continue;
            }
            "positional_separator" => {
                for earlier in &mut params {
                    earlier.kind = ParamKind::PositionalOnly;
                }
                continue;
            }
            "comment" => continue,
            other => return Err(ParamProblem::Unknown(other.to_string(), line)),
        };
        if param_name.is_empty() {
            return Err(ParamProblem::Unnamed(line));
        }
        params.push(Param {
            name: param_name,
            default,
            kind,
        });
    }
    Ok(params)
}

/// What keeps a body from being pasted into another function.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocker {
    /// `yield` (line): a generator.
    Yield(usize),
    /// `global` or `nonlocal` (the keyword, line).
    Declares(String, usize),
    /// `await` (line).
    Await(usize),
}

/// The first blocker of a body, nested functions, classes and lambdas left out.
pub fn blocker(block: Node<'_>, text: &str) -> Option<Blocker> {
    let mut problem = None;
    walk_node(block, |n| {
        if problem.is_some() {
            return false;
        }
        let line = n.start_position().row + 1;
        match n.kind() {
            "yield" => problem = Some(Blocker::Yield(line)),
            "global_statement" | "nonlocal_statement" => {
                let keyword = node_text(n, text)
                    .split_whitespace()
                    .next()
                    .unwrap_or("global");
                problem = Some(Blocker::Declares(keyword.to_string(), line));
            }
            "await" => problem = Some(Blocker::Await(line)),
            k if NESTED_SCOPES.contains(&k) => return false,
            _ => {}
        }
        true
    });
    problem
}

/// A `return` that ends a path through the body.
#[derive(Debug, Clone)]
pub struct TailReturn {
    pub statement: Range<usize>,
    /// `return` and the spaces after it.
    pub keyword: Range<usize>,
    pub value: Option<Range<usize>>,
    /// The only statement of its block (removing it would leave the block empty).
    pub alone: bool,
}

/// The final `return`s of a body, and where a path falls off its end (offset after the last
/// statement of the path, its indentation).
pub type Tails = (Vec<TailReturn>, Vec<(usize, String)>);

/// The statements that end a path through the body; `Err` with the line of a `return` that does
/// not (an early return).
pub fn tails(block: Node<'_>, text: &str) -> Result<Tails, usize> {
    let mut tail_nodes: Vec<Node<'_>> = Vec::new();
    let mut stack = vec![block];
    while let Some(b) = stack.pop() {
        let Some(last) = last_statement(b) else {
            continue;
        };
        match last.kind() {
            "with_statement" => stack.extend(last.child_by_field_name("body")),
            "if_statement" if has_else(last) => {
                stack.extend(last.child_by_field_name("consequence"));
                let mut cursor = last.walk();
                for alt in last.children_by_field_name("alternative", &mut cursor) {
                    stack.extend(
                        alt.child_by_field_name("consequence")
                            .or_else(|| alt.child_by_field_name("body")),
                    );
                }
            }
            _ => tail_nodes.push(last),
        }
    }
    let mut returns: Vec<Node<'_>> = Vec::new();
    walk_node(block, |n| {
        if n.kind() == "return_statement" {
            returns.push(n);
        }
        !NESTED_SCOPES.contains(&n.kind())
    });
    if let Some(early) = returns
        .iter()
        .find(|r| !tail_nodes.iter().any(|t| t.id() == r.id()))
    {
        return Err(early.start_position().row + 1);
    }
    let mut tail_returns = Vec::new();
    let mut fallthrough = Vec::new();
    for t in tail_nodes {
        if t.kind() == "return_statement" {
            let value = t
                .named_child(0)
                .filter(|v| v.kind() != "comment")
                .map(|v| v.byte_range());
            let keyword_end = value
                .as_ref()
                .map_or(t.start_byte() + "return".len(), |v| v.start);
            let alone = t.parent().is_some_and(|p| {
                let mut cursor = p.walk();
                p.named_children(&mut cursor)
                    .filter(|c| c.kind() != "comment")
                    .count()
                    == 1
            });
            tail_returns.push(TailReturn {
                statement: t.byte_range(),
                keyword: t.start_byte()..keyword_end,
                value,
                alone,
            });
        } else if t.kind() != "raise_statement" {
            let indent = crate::text::indentation_at(text, t.start_byte()).to_string();
            fallthrough.push((line_content_end(text, t.end_byte()), indent));
        }
    }
    tail_returns.sort_by_key(|r| r.statement.start);
    fallthrough.sort();
    Ok((tail_returns, fallthrough))
}

/// The statements of a body after its docstring, and its code statements (no comments).
pub fn statements_after_docstring(block: Node<'_>) -> Vec<Node<'_>> {
    let statements: Vec<Node<'_>> = block.named_children(&mut block.walk()).collect();
    let docstring = statements
        .iter()
        .position(|s| s.kind() != "comment")
        .filter(|&i| super::statements::is_string_statement(statements[i]));
    match docstring {
        Some(i) => statements[i + 1..].to_vec(),
        None => statements,
    }
}

/// The value of a body whose only code statement is `return value`.
pub fn single_return(statements: &[Node<'_>]) -> Option<Range<usize>> {
    let code: Vec<&Node<'_>> = statements
        .iter()
        .filter(|s| s.kind() != "comment")
        .collect();
    match code.as_slice() {
        [only] if only.kind() == "return_statement" => only.named_child(0).map(|v| v.byte_range()),
        _ => None,
    }
}

/// Multi-line string literals under `node`, and the line of the first construct that only works
/// inside its own class (zero-argument `super()`, `__class__`, a `__private` name).
pub fn strings_and_class_bound(node: Node<'_>, text: &str) -> (Vec<Range<usize>>, Option<usize>) {
    let mut protected = Vec::new();
    let mut class_bound = None;
    walk_node(node, |n| {
        if n.kind() == "string" && n.start_position().row != n.end_position().row {
            protected.push(n.byte_range());
        }
        if class_bound.is_none() && is_class_bound(n, text) {
            class_bound = Some(n.start_position().row + 1);
        }
        true
    });
    (protected, class_bound)
}

/// The statement around a definition (`if`, `try`, `match`...) that makes it conditional, if
/// any: its line.
pub fn conditional_definition(outer: Node<'_>) -> Option<usize> {
    let mut current = outer.parent();
    while let Some(node) = current {
        match node.kind() {
            "if_statement"
            | "try_statement"
            | "elif_clause"
            | "else_clause"
            | "except_clause"
            | "except_group_clause"
            | "match_statement"
            | "case_clause" => return Some(node.start_position().row + 1),
            "function_definition" | "class_definition" | "module" => break,
            _ => {}
        }
        current = node.parent();
    }
    None
}

/// Whether the definition `outer` is the only statement (comments aside) of its block.
pub fn alone_in_block(outer: Node<'_>) -> bool {
    outer
        .parent()
        .filter(|p| p.kind() == "block")
        .is_some_and(|parent| {
            let mut cursor = parent.walk();
            parent
                .named_children(&mut cursor)
                .all(|c| c.id() == outer.id() || c.kind() == "comment")
        })
}

/// Where a call's arguments would be evaluated before its statement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// Unconditionally, once.
    Plain,
    /// Only sometimes: in a conditional expression, on the right of `and`/`or`, in an `elif`
    /// condition, a `case` guard or an `except` clause.
    Conditional(Conditional),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Conditional {
    Ternary,
    BooleanRight,
    Elif,
    CaseOrExcept,
}

/// Where statements cannot go before a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoStatements {
    /// A `while` condition, evaluated again at each turn.
    While,
    Lambda,
    Comprehension,
}

/// The context of `call`, deep in an expression of `statement`.
pub fn expression_context<'t>(
    call: Node<'t>,
    statement: Node<'t>,
    parents: Parents<'_, 't>,
) -> Result<Context, NoStatements> {
    let mut conditional: Option<Conditional> = None;
    let mut child = call;
    let mut current = parents.of(call);
    while let Some(node) = current {
        if node.id() == statement.id() && node.kind() == "while_statement" {
            return Err(NoStatements::While);
        }
        match node.kind() {
            "lambda" => return Err(NoStatements::Lambda),
            k if COMPREHENSIONS.contains(&k) => return Err(NoStatements::Comprehension),
            "conditional_expression" => {
                let condition = node.named_child(1);
                if condition.is_none_or(|c| c.id() != child.id()) {
                    conditional = Some(Conditional::Ternary);
                }
            }
            "boolean_operator"
                if node
                    .child_by_field_name("right")
                    .is_some_and(|r| r.id() == child.id()) =>
            {
                conditional = Some(Conditional::BooleanRight);
            }
            "elif_clause" => conditional = Some(Conditional::Elif),
            "case_clause" | "except_clause" => conditional = Some(Conditional::CaseOrExcept),
            _ => {}
        }
        if node.id() == statement.id() {
            break;
        }
        child = node;
        current = parents.of(node);
    }
    Ok(conditional.map_or(Context::Plain, Context::Conditional))
}

/// The kind of scope a statement runs in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Module,
    Class(String),
    Function,
}

pub fn scope_of_statement<'t>(statement: Node<'t>, text: &str, parents: Parents<'_, 't>) -> Scope {
    let mut current = parents.of(statement);
    while let Some(n) = current {
        match n.kind() {
            "function_definition" | "lambda" => return Scope::Function,
            "class_definition" => {
                let name = n
                    .child_by_field_name("name")
                    .map(|x| node_text(x, text))
                    .unwrap_or("?");
                return Scope::Class(name.to_string());
            }
            _ => {}
        }
        current = parents.of(n);
    }
    Scope::Module
}

/// Whether the definition is `async def`.
pub fn is_async(func: Node<'_>) -> bool {
    func.child(0).is_some_and(|c| c.kind() == "async")
}

/// The function definition whose name is at `name_range`.
pub fn function_named<'t>(
    tree: &'t tree_sitter::Tree,
    name_range: &Range<usize>,
) -> Option<Node<'t>> {
    tree.root_node()
        .descendant_for_byte_range(name_range.start, name_range.end)
        .and_then(|n| n.parent())
        .filter(|n| n.kind() == "function_definition")
}

/// How many top-level functions called `name` the module defines.
pub fn top_level_functions_named(tree: &tree_sitter::Tree, text: &str, name: &str) -> usize {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|s| {
            let s = if s.kind() == "decorated_definition" {
                s.child_by_field_name("definition").unwrap_or(*s)
            } else {
                *s
            };
            s.kind() == "function_definition"
                && s.child_by_field_name("name")
                    .is_some_and(|n| node_text(n, text) == name)
        })
        .count()
}

/// Whether the module defines a function or class `name` at its top level.
pub fn defines_top_level(tree: &tree_sitter::Tree, text: &str, name: &str) -> bool {
    let root = tree.root_node();
    let mut cursor = root.walk();
    root.named_children(&mut cursor).any(|s| {
        let s = if s.kind() == "decorated_definition" {
            s.child_by_field_name("definition").unwrap_or(s)
        } else {
            s
        };
        matches!(s.kind(), "function_definition" | "class_definition")
            && s.child_by_field_name("name")
                .is_some_and(|n| node_text(n, text) == name)
    })
}

/// The bytes of a definition with its decorators.
pub fn outer_range(func: Node<'_>) -> Range<usize> {
    crate::lang::python::definitions::outer(func).byte_range()
}

/// Every identifier read in `scope` (not attributes or keyword names) outside nested scopes:
/// name, byte offset and line, in order of position (one walk for all the calls of a scope).
pub fn identifier_occurrences(scope: Node<'_>, text: &str) -> Vec<(String, usize, usize)> {
    let mut occurrences = Vec::new();
    crate::lang::walk_node_with_ancestors(scope, |n, ancestors| {
        if n.id() != scope.id() && NESTED_SCOPES.contains(&n.kind()) {
            return false;
        }
        if n.kind() == "identifier"
            && !crate::lang::python::names::is_attribute_or_keyword_name(
                n,
                crate::lang::up_from(n, ancestors).next(),
            )
        {
            occurrences.push((
                node_text(n, text).to_string(),
                n.start_byte(),
                n.start_position().row + 1,
            ));
        }
        true
    });
    occurrences
}

/// The node that stands for a string or value at `range` in `tree`, when one spans it exactly:
/// whether evaluating it has no effect.
pub fn is_inert_at(tree: &tree_sitter::Tree, range: &Range<usize>) -> bool {
    tree.root_node()
        .descendant_for_byte_range(range.start, range.end)
        .is_some_and(|n| n.byte_range() == *range && is_inert(n))
}

/// The shape of the expression at `range` as far as pasting it goes: whether it is an atom,
/// and whether it can stand in a delimited slot bare.
pub fn value_shape(tree: &tree_sitter::Tree, range: &Range<usize>) -> ValueShape {
    let kind = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end)
        .filter(|v| v.byte_range() == *range)
        .map_or("", |v| v.kind());
    ValueShape {
        atom: is_atom(kind),
        bare_in_slot: !matches!(kind, "expression_list" | "yield" | ""),
    }
}

/// See [`value_shape`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ValueShape {
    pub atom: bool,
    /// Not a bare tuple (`a, b`), not a `yield`.
    pub bare_in_slot: bool,
}

/// The body block of a function definition.
pub fn body_of(function: Node<'_>) -> Option<Node<'_>> {
    function.child_by_field_name("body")
}
