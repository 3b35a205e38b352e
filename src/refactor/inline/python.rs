//! Inline function for Python. A call that is a whole statement (`f(x)`, `y = f(x)`,
//! `y += f(x)`, `return f(x)`) becomes one assignment per parameter followed by the body at the
//! statement's indentation, its final `return v` turned into `y = v` / `return v` / `v`. A call
//! inside a larger expression is inlined only when the body is a single `return expr`: the
//! parameters are bound in statements before the enclosing statement and the call becomes
//! `(expr)`. Refused (with the reason): `*args`/`**kwargs`, generators, `global`/`nonlocal`,
//! early returns, decorators that change the function, calls in lambdas and comprehensions.

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::Node;

use super::layout::{
    ends_its_line, line_start, remove_list_item, remove_whole_lines, starts_its_line,
};
use super::snippet::{self, Layout, Line, Splice};
use super::{Facts, Inlined, Owner, Parsed, RefVerdict, Target, mentions_word};
use crate::edit::TextEdit;
use crate::lang::calls::{CallForm, CallSite, Reference, ReferenceKind, TextMention, text_mention};
use crate::lang::locals::Locals;
use crate::lang::symbols::{Symbol, SymbolKind};
use crate::lang::{Language, node_text, walk_node};
use crate::lang::{up_from, walk_node_with_ancestors};
use crate::refactor::{Finding, RefactorError};

/// Decorators that do not change what calling the function does.
const HARMLESS_DECORATORS: &[&str] = &[
    "staticmethod",
    "classmethod",
    "override",
    "typing.override",
    "typing_extensions.override",
    "final",
    "typing.final",
    "typing_extensions.final",
];

/// Scopes of their own: what happens inside does not concern the enclosing function's body.
const NESTED_SCOPES: &[&str] = &["function_definition", "class_definition", "lambda"];

const COMPREHENSIONS: &[&str] = &[
    "list_comprehension",
    "set_comprehension",
    "dictionary_comprehension",
    "generator_expression",
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Free,
    /// A function defined inside another function: callable only within `scope`.
    Nested {
        scope: Range<usize>,
    },
    Method {
        class: String,
        first: First,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum First {
    /// An instance method; the name of its `self` parameter.
    Instance(String),
    /// A `@classmethod`; the name of its `cls` parameter.
    Class(String),
    Static,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ParamKind {
    PositionalOnly,
    Either,
    KeywordOnly,
}

#[derive(Debug, Clone)]
struct Param {
    name: String,
    default: Option<String>,
    kind: ParamKind,
}

#[derive(Debug, Clone)]
struct TailReturn {
    statement: Range<usize>,
    /// `return` and the spaces after it.
    keyword: Range<usize>,
    value: Option<Range<usize>>,
    /// The only statement of its block (removing it would leave the block empty).
    alone: bool,
}

pub(super) struct PyTarget<'a> {
    def: &'a Parsed<'a>,
    symbol: &'a Symbol,
    name: String,
    kind: Kind,
    params: Vec<Param>,
    /// The body's statements after the docstring; `None` when there are none.
    body: Option<Range<usize>>,
    tail_returns: Vec<TailReturn>,
    /// Statements at the end of a path through the body that are not returns: after them the
    /// function returns `None`. Byte offset where a line may be added after each.
    fallthrough: Vec<(usize, String)>,
    /// The value of the body when it is a single `return value` statement.
    single_return: Option<Range<usize>>,
    /// Multi-line string literals of the body (their inner lines are content).
    protected: Vec<Range<usize>>,
    /// Names the body itself assigns (parameters not included unless reassigned).
    body_bound: BTreeSet<String>,
    /// Names the body reads without binding them.
    free: BTreeSet<String>,
    /// Line of a zero-argument `super()` or a `__private` name: only sound inside the class.
    class_bound: Option<usize>,
    /// Names defined or imported at the top of the definition's module.
    module_names: BTreeSet<String>,
    /// The definition's module name (`utils` for `pkg/utils.py`, `pkg` for `pkg/__init__.py`).
    module: Vec<String>,
    /// Nothing but the end of its block follows the definition.
    last_in_container: bool,
    /// The enclosing block is left with nothing but this definition.
    container_emptied: bool,
}

fn error(message: impl Into<String>) -> RefactorError {
    RefactorError::Unsupported(message.into())
}

impl<'a> PyTarget<'a> {
    pub fn analyze(
        def: &'a Parsed<'a>,
        symbols: &'a [Symbol],
        symbol: &'a Symbol,
    ) -> Result<PyTarget<'a>, RefactorError> {
        let text = def.text();
        let name = symbol.name.clone();
        let func = def
            .tree
            .root_node()
            .descendant_for_byte_range(symbol.name_range.start, symbol.name_range.end)
            .and_then(|n| n.parent())
            .filter(|n| n.kind() == "function_definition")
            .ok_or_else(|| {
                error(format!(
                    "could not find the definition of `{name}` in the syntax tree"
                ))
            })?;
        let line = symbol.line;
        if func.child(0).is_some_and(|c| c.kind() == "async") {
            return Err(error(format!(
                "`{name}` (line {line}) is `async`: calling it creates a coroutine, so its body cannot replace the call; inline it by hand"
            )));
        }
        let outer = func
            .parent()
            .filter(|p| p.kind() == "decorated_definition")
            .unwrap_or(func);
        // `if ...: def f` / `try: ... except: def f`: another branch gives the name another
        // meaning, which the inlined body would silently drop.
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
                | "case_clause" => {
                    let at = node.start_position().row + 1;
                    return Err(error(format!(
                        "`{name}` (line {line}) is defined conditionally, inside the statement at line {at}: the body of this definition would replace calls that other branches may define differently; inline it by hand"
                    )));
                }
                "function_definition" | "class_definition" | "module" => break,
                _ => {}
            }
            current = node.parent();
        }
        let mut decorators = Vec::new();
        let mut cursor = outer.walk();
        for child in outer.named_children(&mut cursor) {
            if child.kind() == "decorator" {
                let text = node_text(child, text)
                    .trim_start_matches('@')
                    .trim()
                    .to_string();
                if !HARMLESS_DECORATORS.contains(&text.as_str()) {
                    return Err(error(format!(
                        "`{name}` is decorated with `@{text}` (line {}); the inlined body would bypass the decorator, so candor does not inline it",
                        child.start_position().row + 1
                    )));
                }
                decorators.push(text);
            }
        }
        let container = symbol.container.and_then(|c| symbols.get(c));
        let is_method = container.is_some_and(|c| c.kind == SymbolKind::Class);
        if is_method && name.starts_with("__") && name.ends_with("__") {
            return Err(error(format!(
                "`{name}` (line {line}) is a special method that Python calls implicitly; it cannot be inlined"
            )));
        }

        let mut params = parameters(func, text, &name)?;
        let kind = match container {
            Some(c) if c.kind == SymbolKind::Class => {
                let first = if decorators.iter().any(|d| d == "staticmethod") {
                    First::Static
                } else {
                    if params.is_empty() {
                        return Err(error(format!(
                            "the method `{name}` (line {line}) takes no `self` parameter; fix the definition first"
                        )));
                    }
                    let first = params.remove(0).name;
                    if decorators.iter().any(|d| d == "classmethod") {
                        First::Class(first)
                    } else {
                        First::Instance(first)
                    }
                };
                Kind::Method {
                    class: c.name.clone(),
                    first,
                }
            }
            Some(c) if c.kind.is_function() => Kind::Nested {
                scope: c.range.clone(),
            },
            _ => Kind::Free,
        };

        let block = func
            .child_by_field_name("body")
            .ok_or_else(|| error(format!("`{name}` has no body")))?;
        check_body(block, text, &name)?;
        let (tail_returns, fallthrough) = tails(block, text, &name)?;
        let statements: Vec<Node<'_>> = {
            let mut cursor = block.walk();
            block.named_children(&mut cursor).collect()
        };
        let docstring = statements
            .iter()
            .position(|s| s.kind() != "comment")
            .filter(|&i| is_docstring(statements[i]));
        let rest: Vec<Node<'_>> = match docstring {
            Some(i) => statements[i + 1..].to_vec(),
            None => statements.clone(),
        };
        let body = match (rest.first(), rest.last()) {
            (Some(first), Some(last)) => {
                let end_line = line_content_end(text, last.end_byte());
                Some(first.start_byte()..end_line.max(last.end_byte()))
            }
            _ => None,
        };
        let code: Vec<&Node<'_>> = rest.iter().filter(|s| s.kind() != "comment").collect();
        let single_return = match code.as_slice() {
            [only] if only.kind() == "return_statement" => {
                only.named_child(0).map(|v| v.byte_range())
            }
            _ => None,
        };

        let mut protected = Vec::new();
        let mut class_bound = None;
        walk_node(block, |n| {
            if n.kind() == "string" && n.start_position().row != n.end_position().row {
                protected.push(n.byte_range());
            }
            if class_bound.is_none() && is_class_bound(n, text) {
                class_bound = Some(n.start_position().row + 1);
            }
            true
        });

        let mut bound: BTreeSet<String> = params.iter().map(|p| p.name.clone()).collect();
        if let Kind::Method {
            first: First::Instance(s) | First::Class(s),
            ..
        } = &kind
        {
            bound.insert(s.clone());
        }
        let body_bound = bound_names(block, text);
        bound.extend(body_bound.iter().cloned());
        let free: BTreeSet<String> = read_names(block, text)
            .into_iter()
            .filter(|n| !bound.contains(n))
            .collect();

        let next = next_statement(outer);
        let container_emptied =
            outer
                .parent()
                .filter(|p| p.kind() == "block")
                .is_some_and(|parent| {
                    let mut cursor = parent.walk();
                    parent
                        .named_children(&mut cursor)
                        .all(|c| c.id() == outer.id() || c.kind() == "comment")
                });

        Ok(PyTarget {
            def,
            symbol,
            kind,
            params,
            body,
            tail_returns,
            fallthrough,
            single_return,
            protected,
            body_bound,
            free,
            class_bound,
            module_names: module_names(def.tree.root_node(), text),
            module: module_parts(def.path()),
            last_in_container: next.is_none(),
            container_emptied,
            name,
        })
    }

    fn class_name(&self) -> Option<&str> {
        match &self.kind {
            Kind::Method { class, .. } => Some(class),
            _ => None,
        }
    }
}

/// The dotted module path of a file from the project root: `pkg/util.py` → `pkg.util`,
/// `pkg/__init__.py` → `pkg`, as parts.
fn module_parts(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.split('/').map(str::to_string).collect();
    if let Some(last) = parts.last_mut()
        && let Some((stem, _)) = last.rsplit_once('.')
    {
        *last = stem.to_string();
    }
    if parts.last().is_some_and(|l| l == "__init__") {
        parts.pop();
    }
    parts
}

/// Whether `module` as written in an import of `importer` (`pkg.util`, `.util`, `.`) names
/// the module whose parts are `target`. Absolute imports match on their trailing parts (the
/// import root depends on `sys.path`); relative ones resolve from the importer's package.
fn import_names_module(module: &str, importer: &str, target: &[String]) -> bool {
    let module = module.trim();
    let dots = module.len() - module.trim_start_matches('.').len();
    let rest: Vec<&str> = module[dots..]
        .split('.')
        .filter(|s| !s.is_empty())
        .collect();
    if dots == 0 {
        return !rest.is_empty()
            && target.len() >= rest.len()
            && target[target.len() - rest.len()..]
                .iter()
                .zip(&rest)
                .all(|(a, b)| a == b);
    }
    let mut base: Vec<String> = importer.split('/').map(str::to_string).collect();
    base.pop(); // the importer's own file: its package is its directory
    for _ in 1..dots {
        if base.pop().is_none() {
            return false;
        }
    }
    base.extend(rest.iter().map(|s| s.to_string()));
    base == target
}

fn is_docstring(node: Node<'_>) -> bool {
    node.kind() == "expression_statement"
        && node.named_child_count() == 1
        && node.named_child(0).is_some_and(|c| c.kind() == "string")
}

fn line_content_end(text: &str, offset: usize) -> usize {
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    if end > offset && text.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// The statement after `node` in its block, skipping comments.
fn next_statement(node: Node<'_>) -> Option<Node<'_>> {
    let mut next = node.next_named_sibling();
    while let Some(n) = next {
        if n.kind() != "comment" {
            return Some(n);
        }
        next = n.next_named_sibling();
    }
    None
}

fn parameters(func: Node<'_>, text: &str, name: &str) -> Result<Vec<Param>, RefactorError> {
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
                    _ => {
                        return Err(error(format!(
                            "`{name}` takes `*args` or `**kwargs` (line {line}); the heuristic cannot bind them, inline it by hand"
                        )));
                    }
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
                return Err(error(format!(
                    "`{name}` takes `*args` or `**kwargs` (line {line}); the heuristic cannot bind them, inline it by hand"
                )));
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
            other => {
                return Err(error(format!(
                    "`{name}` has a parameter form the heuristic does not know (`{other}` at line {line})"
                )));
            }
        };
        if param_name.is_empty() {
            return Err(error(format!(
                "could not read a parameter of `{name}` at line {line}"
            )));
        }
        params.push(Param {
            name: param_name,
            default,
            kind,
        });
    }
    Ok(params)
}

/// Refuses bodies that cannot be pasted into another function: generators, `global`,
/// `nonlocal`, `await`.
fn check_body(block: Node<'_>, text: &str, name: &str) -> Result<(), RefactorError> {
    let mut problem: Option<String> = None;
    walk_node(block, |n| {
        if problem.is_some() {
            return false;
        }
        let line = n.start_position().row + 1;
        match n.kind() {
            "yield" => {
                problem = Some(format!(
                    "`{name}` is a generator (`yield` at line {line}); its body cannot replace a call"
                ))
            }
            "global_statement" | "nonlocal_statement" => {
                problem = Some(format!(
                    "the body of `{name}` declares `{}` (line {line}); pasted into the caller it would change the caller's scope",
                    node_text(n, text)
                        .split_whitespace()
                        .next()
                        .unwrap_or("global")
                ))
            }
            "await" => problem = Some(format!("the body of `{name}` awaits (line {line})")),
            k if NESTED_SCOPES.contains(&k) => return false,
            _ => {}
        }
        true
    });
    match problem {
        Some(p) => Err(error(p)),
        None => Ok(()),
    }
}

fn last_statement(block: Node<'_>) -> Option<Node<'_>> {
    let mut cursor = block.walk();
    block
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .last()
}

/// The statements that end a path through the body, and the refusal of any other `return`.
/// The final `return`s, and where a path falls off the end (offset, indentation).
type Tails = (Vec<TailReturn>, Vec<(usize, String)>);

fn tails(block: Node<'_>, text: &str, name: &str) -> Result<Tails, RefactorError> {
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
        return Err(error(format!(
            "`{name}` returns before its end (`return` at line {}, not in a final position); inlined, that `return` would leave the caller instead, so candor does not inline it",
            early.start_position().row + 1
        )));
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

fn has_else(if_statement: Node<'_>) -> bool {
    let mut cursor = if_statement.walk();

    if_statement
        .children_by_field_name("alternative", &mut cursor)
        .any(|a| a.kind() == "else_clause")
}

/// Zero-argument `super()`, `__class__` and `__private` names depend on the class the code is
/// written in.
fn is_class_bound(n: Node<'_>, text: &str) -> bool {
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

/// Identifiers a statement subtree binds in its scope (assignment and loop targets, `as`
/// names, imports, nested definitions), not looking into nested scopes.
fn bound_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
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

fn target_names(target: Node<'_>, text: &str, names: &mut BTreeSet<String>) {
    walk_node(target, |n| match n.kind() {
        "identifier" => {
            names.insert(node_text(n, text).to_string());
            false
        }
        "attribute" | "subscript" => false,
        _ => true,
    });
}

/// Identifiers read or written in a subtree, except attribute names, keyword names and the
/// variables of comprehensions (they have a scope of their own).
fn read_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
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
fn is_attribute_or_keyword_name<'t>(n: Node<'t>, parent: Option<Node<'t>>) -> bool {
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
fn module_names(root: Node<'_>, text: &str) -> BTreeSet<String> {
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

/// The statement (child of a block or of the module) that contains `node`.
fn statement_of(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node;
    loop {
        let parent = current.parent()?;
        if matches!(parent.kind(), "block" | "module") {
            return Some(current);
        }
        current = parent;
    }
}

/// The kind of scope a statement runs in.
enum Scope {
    Module,
    Class(String),
    Function,
}

fn scope_kind(statement: Node<'_>, text: &str) -> Scope {
    let mut current = statement.parent();
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
        current = n.parent();
    }
    Scope::Module
}

/// The innermost function whose body contains `node`, if any.
fn enclosing_function(node: Node<'_>) -> Option<Node<'_>> {
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "function_definition" {
            return Some(n);
        }
        current = n.parent();
    }
    None
}

/// The class a function is defined directly in.
fn class_of_function<'t>(func: Node<'t>, text: &str) -> Option<(String, Node<'t>)> {
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

fn decorator_names(func: Node<'_>, text: &str) -> Vec<String> {
    let Some(outer) = func.parent().filter(|p| p.kind() == "decorated_definition") else {
        return Vec::new();
    };
    let mut cursor = outer.walk();
    outer
        .named_children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .map(|d| {
            node_text(d, text)
                .trim_start_matches('@')
                .trim()
                .to_string()
        })
        .collect()
}

fn first_parameter_name(func: Node<'_>, text: &str) -> Option<String> {
    let params = func.child_by_field_name("parameters")?;
    let first = params.named_child(0)?;
    let name = match first.kind() {
        "identifier" => first,
        "typed_parameter" => first.named_child(0).filter(|n| n.kind() == "identifier")?,
        "default_parameter" | "typed_default_parameter" => first.child_by_field_name("name")?,
        _ => return None,
    };
    Some(node_text(name, text).to_string())
}

fn parameter_names(func: Node<'_>, text: &str) -> BTreeSet<String> {
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

/// How the call designates the function.
enum SiteKind {
    /// `f(...)` or `module.f(...)`.
    Function,
    /// `self.m(...)` in a method of the same class; the caller's receiver name and whether the
    /// caller is a classmethod.
    OwnReceiver {
        receiver: String,
        caller_is_class: bool,
    },
    /// `Class.m(...)`.
    ClassQualified,
}

/// An argument bound to a parameter: `name = value`.
struct Binding {
    name: String,
    value: String,
    /// A default of the definition (evaluated at the call site now).
    default: bool,
}

/// An expression whose evaluation has no effect (dropping it changes nothing).
fn is_inert(node: Node<'_>) -> bool {
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

/// A value whose evaluation may be moved (a name or a literal).
fn is_simple_text(value: &str) -> bool {
    let v = value.trim();
    !v.is_empty()
        && (v
            .chars()
            .all(|c| c == '_' || c == '.' || c.is_alphanumeric())
            || (v.starts_with(['"', '\'']) && !v.contains('\n')))
}

/// Whether a default value is a literal (so evaluating it at the call site changes nothing).
fn is_literal_text(value: &str) -> bool {
    let v = value.trim().trim_start_matches('-');
    matches!(v, "None" | "True" | "False" | "...")
        || v.parse::<f64>().is_ok()
        || ((v.starts_with('"') || v.starts_with('\'')) && !v.contains('\n'))
        || v == "()"
}

/// Whether the call sits where any expression fits without parentheses (an argument, an
/// element, the right side of `=`).
fn delimits(call: Node<'_>) -> bool {
    let Some(parent) = call.parent() else {
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

impl Target for PyTarget<'_> {
    fn name(&self) -> &str {
        &self.name
    }

    fn definition_range(&self) -> Range<usize> {
        self.symbol.full_range.clone()
    }

    fn facts(&self, file: &Parsed<'_>) -> Facts {
        let mut facts = Facts::default();
        let text = file.text();
        facts.locals = Locals::new(Language::Python, &file.tree, text, &self.name);
        let is_def_file = file.path() == self.def.path();
        facts.plain_is_ours = is_def_file;
        if !is_def_file {
            walk_node(file.tree.root_node(), |n| match n.kind() {
                "import_from_statement" => {
                    let module = n
                        .child_by_field_name("module_name")
                        .map(|m| node_text(m, text))
                        .unwrap_or("");
                    let names_target = import_names_module(module, file.path(), &self.module);
                    let mut cursor = n.walk();
                    let wildcard = n
                        .named_children(&mut cursor)
                        .any(|c| c.kind() == "wildcard_import");
                    if names_target && wildcard {
                        facts.plain_is_ours = true;
                        facts.imported.push("*".to_string());
                    }
                    let mut cursor = n.walk();
                    for item in n.children_by_field_name("name", &mut cursor) {
                        let (imported, alias) = match item.kind() {
                            "aliased_import" => (
                                item.child_by_field_name("name")
                                    .map(|x| node_text(x, text))
                                    .unwrap_or(""),
                                item.child_by_field_name("alias")
                                    .map(|x| node_text(x, text)),
                            ),
                            _ => (node_text(item, text), None),
                        };
                        if names_target && imported == self.name && alias.is_none() {
                            facts.plain_is_ours = true;
                        }
                        if names_target && alias.is_none() {
                            facts.imported.push(imported.to_string());
                        }
                        let submodule = if module.ends_with('.') {
                            format!("{module}{imported}")
                        } else {
                            format!("{module}.{imported}")
                        };
                        if import_names_module(&submodule, file.path(), &self.module) {
                            facts
                                .module_aliases
                                .push(alias.unwrap_or(imported).to_string());
                        }
                    }
                    false
                }
                "import_statement" => {
                    let mut cursor = n.walk();
                    for item in n.children_by_field_name("name", &mut cursor) {
                        match item.kind() {
                            "aliased_import" => {
                                let module = item
                                    .child_by_field_name("name")
                                    .map(|x| node_text(x, text))
                                    .unwrap_or("");
                                if import_names_module(module, file.path(), &self.module) {
                                    facts.module_aliases.extend(
                                        item.child_by_field_name("alias")
                                            .map(|a| node_text(a, text).to_string()),
                                    );
                                }
                            }
                            _ => {
                                let module = node_text(item, text);
                                if import_names_module(module, file.path(), &self.module) {
                                    facts.module_aliases.push(module.to_string());
                                }
                            }
                        }
                    }
                    false
                }
                _ => true,
            });
            let defines_own = {
                let mut cursor = file.tree.root_node().walk();
                let root = file.tree.root_node();

                root.named_children(&mut cursor).any(|s| {
                    let s = if s.kind() == "decorated_definition" {
                        s.child_by_field_name("definition").unwrap_or(s)
                    } else {
                        s
                    };
                    matches!(s.kind(), "function_definition" | "class_definition")
                        && s.child_by_field_name("name")
                            .is_some_and(|n| node_text(n, text) == self.name)
                })
            };
            if defines_own {
                facts.plain_is_ours = false;
            }
        }
        if let Some(class) = self.class_name() {
            // Another class defining a method of this name may override it.
            let symbols = crate::lang::symbols::outline(file.lang, &file.tree, text);
            for other in &symbols {
                let is_other_method = other.kind == SymbolKind::Method
                    && other.name == self.name
                    && !(is_def_file && other.range == self.symbol.range);
                if is_other_method {
                    facts.findings.push(Finding::warning(
                        file.path(),
                        other.line,
                        format!(
                            "`{}` also defines `{}`; if its class derives from `{class}`, `self.{}(...)` calls that dispatched to it now run `{class}`'s inlined body instead",
                            other.name_path, self.name, self.name
                        ),
                    ));
                }
            }
        }
        facts
    }

    fn owner_of_call(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        call: &CallSite,
        node: Option<Node<'_>>,
    ) -> Owner {
        let Some(node) = node else {
            return Owner::NotOurs;
        };
        match self.site_kind(file, facts, node, call) {
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
            ReferenceKind::InComment | ReferenceKind::InString
                if text_mention(Language::Python, text, reference) == TextMention::DocExample =>
            {
                return RefVerdict::Blocking(format!(
                    "`{name}` is used in a doctest example at line {line} (`>>>`); doctests run it and it is not inlined there, so the definition is kept"
                ));
            }
            ReferenceKind::InComment => {
                return RefVerdict::Info(format!(
                    "`{name}` is mentioned in a comment at line {line}; it is not changed"
                ));
            }
            ReferenceKind::InString => {
                let inner = file
                    .tree
                    .root_node()
                    .descendant_for_byte_range(reference.range.start, reference.range.end);
                let mut current = inner;
                while let Some(n) = current {
                    if n.kind() == "interpolation" {
                        return RefVerdict::Blocking(format!(
                            "`{name}` is used inside an f-string at line {line}; the heuristic does not rewrite calls there, so the definition is kept"
                        ));
                    }
                    if n.kind() == "expression_statement" {
                        let is_all = n
                            .named_child(0)
                            .filter(|a| a.kind() == "assignment")
                            .and_then(|a| a.child_by_field_name("left"))
                            .is_some_and(|l| node_text(l, text) == "__all__");
                        if is_all && (file.path() == self.def.path()) {
                            return RefVerdict::Blocking(format!(
                                "`{name}` is listed in `__all__` at line {line} (public interface); the definition is kept"
                            ));
                        }
                        break;
                    }
                    current = n.parent();
                }
                if text_mention(Language::Python, text, reference) == TextMention::NameString
                    && self.string_may_name_target(file, facts, text, &reference.range)
                {
                    return RefVerdict::Blocking(format!(
                        "a string at line {line} names `{name}` (`getattr`, a patch target, an entry point?); that use is not inlined, so the definition is kept"
                    ));
                }
                return RefVerdict::Info(format!(
                    "`{name}` is mentioned in a string at line {line}; it is not changed"
                ));
            }
            _ => {}
        }
        let Some(node) = file.node_at(&reference.range, "identifier") else {
            return RefVerdict::Ignore;
        };
        let Some(parent) = node.parent() else {
            return RefVerdict::Ignore;
        };
        if reference.kind == ReferenceKind::Import {
            return self.import_verdict(file, node);
        }
        match parent.kind() {
            "keyword_argument" if parent.child_by_field_name("name") == Some(node) => {
                return RefVerdict::Ignore;
            }
            "parameters" | "default_parameter" | "typed_default_parameter" | "typed_parameter" => {
                return RefVerdict::Ignore;
            }
            "attribute" if parent.child_by_field_name("attribute") == Some(node) => {
                let object = parent
                    .child_by_field_name("object")
                    .map(|o| node_text(o, text))
                    .unwrap_or("");
                let ours = match &self.kind {
                    Kind::Method { .. } => true,
                    _ => facts.module_aliases.iter().any(|a| a == object),
                };
                return if ours {
                    RefVerdict::Blocking(format!(
                        "`{object}.{name}` at line {line} is used as a value, not called, so it is not inlined; the definition is kept"
                    ))
                } else {
                    RefVerdict::Ignore
                };
            }
            _ => {}
        }
        let plain_ours = match &self.kind {
            Kind::Free => facts.plain_is_ours && !facts.locals.shadows(node.start_byte()),
            Kind::Nested { scope } => {
                file.path() == self.def.path() && scope.contains(&reference.range.start)
            }
            Kind::Method { .. } => false,
        };
        if !plain_ours {
            return RefVerdict::Ignore;
        }
        let what = if reference.kind == ReferenceKind::Decorator {
            "used as a decorator"
        } else {
            "used as a value (not called)"
        };
        RefVerdict::Blocking(format!(
            "`{name}` is {what} at line {line}; it is not inlined there, so the definition is kept"
        ))
    }

    fn inline(&self, file: &Parsed<'_>, facts: &Facts, call: &CallSite) -> Result<Inlined, String> {
        let text = file.text();
        let node = file
            .node_at(&call.range, "call")
            .ok_or("the call is not where the parser put it")?;
        let site = self
            .site_kind(file, facts, node, call)?
            .ok_or("it does not call this function")?;
        let statement = statement_of(node).ok_or("the call is not inside a statement")?;
        let line = call.line;
        if !starts_its_line(text, statement.start_byte()) {
            return Err("its statement shares a line with the code before it (`if x: ...` or `a; b`); put the statement on its own line first".into());
        }
        if !ends_its_line(text, statement.end_byte(), "#") {
            return Err("its statement shares a line with another statement (`a; b`); put the statement on its own line first".into());
        }
        let same_class = self.class_name().is_some_and(|class| {
            enclosing_function(node)
                .and_then(|f| class_of_function(f, text))
                .is_some_and(|(c, _)| c == class)
        });
        if let (Some(class_line), false) = (self.class_bound, same_class) {
            return Err(format!(
                "the body uses `super()` or a private `__name` (line {class_line} of {}), which only work inside class `{}`",
                self.def.path(),
                self.class_name().unwrap_or("?")
            ));
        }

        let caller = enclosing_function(node);
        let caller_scope = caller
            .and_then(|f| f.child_by_field_name("body"))
            .unwrap_or(file.tree.root_node());
        let mut caller_names = read_names(caller_scope, text);
        if let Some(f) = caller {
            caller_names.extend(parameter_names(f, text));
        }
        let mut bindings = self.bindings(text, call, &site, caller, &caller_names)?;
        bindings.retain(|b| b.value.trim() != b.name);

        let indent = crate::text::indentation_at(text, statement.start_byte()).to_string();
        let eol = file.style.line_ending;
        let mut findings = vec![Finding::info(
            file.path(),
            line,
            format!("inlined the call of `{}` at line {line}", self.name),
        )];
        for b in bindings
            .iter()
            .filter(|b| b.default && !is_literal_text(&b.value))
        {
            findings.push(Finding::warning(
                file.path(),
                line,
                format!(
                    "the default value `{}` of `{}` is now evaluated at the call (line {line}), not once where `{}` was defined; check that it means the same here",
                    b.value.trim(),
                    b.name,
                    self.name
                ),
            ));
        }
        let assigned: BTreeSet<String> = bindings
            .iter()
            .map(|b| b.name.clone())
            .chain(self.body_bound.iter().cloned())
            .collect();
        let names = || {
            assigned
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match scope_kind(statement, text) {
            Scope::Class(class) if !assigned.is_empty() => {
                return Err(format!(
                    "it is in the body of class `{class}`, where the assignments of the inlined code ({}) would become class attributes",
                    names()
                ));
            }
            Scope::Module if !assigned.is_empty() => findings.push(Finding::info(
                file.path(),
                line,
                format!("the inlined code assigns {} at the top level of the module, where they become module globals", names()),
            )),
            _ => {}
        }
        findings.extend(self.scope_findings(file, &assigned, caller, caller_scope, call));
        let binding_lines = binding_statements(&bindings);

        if let Some((prefix, return_needed)) = statement_level(node, statement, text) {
            let lines = self.statement_body(&prefix, return_needed);
            let mut out: Vec<String> = binding_lines
                .iter()
                .map(|b| format!("{indent}{b}"))
                .collect();
            out.extend(self.render_body(&lines, &indent, file));
            if out.iter().all(|l| l.trim().is_empty()) {
                out = vec![format!("{indent}pass")];
            }
            let joined = out.join(eol);
            let replacement = joined
                .strip_prefix(indent.as_str())
                .unwrap_or(&joined)
                .to_string();
            return Ok(Inlined {
                edits: vec![TextEdit::new(
                    statement.byte_range(),
                    snippet::normalize_eol(&replacement, eol),
                )],
                claim: statement.byte_range(),
                findings,
            });
        }

        // Inside a larger expression: only a single `return expr` body can become an expression.
        let Some(value) = self.single_return.clone() else {
            return Err(format!(
                "the call is inside an expression and the body of `{}` is not a single `return` statement; make the call a statement of its own (`x = {}(...)`) first",
                self.name, self.name
            ));
        };
        expression_context(node, statement, &bindings)?;
        let value_node = self
            .def
            .tree
            .root_node()
            .descendant_for_byte_range(value.start, value.end);
        let value_text = snippet::normalize_eol(&self.def.text()[value.clone()], eol);
        let value_kind = value_node
            .filter(|v| v.byte_range() == value)
            .map_or("", |v| v.kind());
        let fits = delimits(node) && !matches!(value_kind, "expression_list" | "yield" | "");
        let expression = if is_atom(value_kind) || fits {
            value_text
        } else {
            format!("({value_text})")
        };
        let mut edits = vec![TextEdit::new(call.range.clone(), expression)];
        if !binding_lines.is_empty() {
            let hoisted: String = binding_lines
                .iter()
                .map(|b| format!("{indent}{}{eol}", snippet::normalize_eol(b, eol)))
                .collect();
            edits.push(TextEdit::insert(
                line_start(text, statement.start_byte()),
                hoisted,
            ));
            findings.push(Finding::info(
                file.path(),
                line,
                format!(
                    "the arguments of the call at line {line} are now evaluated in assignments before its statement, not inside the expression"
                ),
            ));
        }
        Ok(Inlined {
            edits,
            claim: statement.byte_range(),
            findings,
        })
    }

    fn removal(&self) -> Vec<TextEdit> {
        let text = self.def.text();
        let range = self.symbol.full_range.clone();
        if self.container_emptied
            && starts_its_line(text, range.start)
            && ends_its_line(text, range.end, "#")
        {
            let start = line_start(text, range.start);
            let end = line_content_end(text, range.end);
            let indent = crate::text::indentation_at(text, range.start);
            return vec![TextEdit::new(start..end, format!("{indent}pass"))];
        }
        vec![remove_whole_lines(text, range, self.last_in_container, "#")]
    }

    fn removal_findings(&self) -> Vec<Finding> {
        if self.container_emptied {
            vec![Finding::info(
                self.def.path(),
                self.symbol.first_line,
                format!(
                    "`{}` was the only statement of its block; `pass` takes its place",
                    self.name
                ),
            )]
        } else {
            Vec::new()
        }
    }
}

impl PyTarget<'_> {
    /// Whether a string whose value is the name (or a dotted path ending in it) can designate
    /// this function: in its own file, in a file that imports it or its module, or as a dotted
    /// path through its module (`"pkg.util.helper"`).
    fn string_may_name_target(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        text: &str,
        range: &Range<usize>,
    ) -> bool {
        let before = &text[..range.start];
        let path_start = before
            .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | ':')))
            .map_or(0, |i| i + 1);
        let prefix = before[path_start..].trim_end_matches(['.', ':']);
        if !prefix.is_empty() {
            let parts: Vec<&str> = prefix.split(['.', ':']).collect();
            return self.module.len() >= parts.len()
                && self.module[self.module.len() - parts.len()..]
                    .iter()
                    .zip(&parts)
                    .all(|(a, b)| a == b);
        }
        file.path() == self.def.path() || facts.plain_is_ours || !facts.module_aliases.is_empty()
    }

    /// Whether the call designates this function, and how; `Err` when it may but the
    /// heuristic cannot tell.
    fn site_kind(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        node: Node<'_>,
        call: &CallSite,
    ) -> Result<Option<SiteKind>, String> {
        let text = file.text();
        let name = &self.name;
        match (&self.kind, &call.form) {
            (Kind::Free, CallForm::Plain) => {
                if !facts.plain_is_ours || facts.locals.shadows(node.start_byte()) {
                    return Ok(None);
                }
                if file.path() == self.def.path() && self.defined_twice() {
                    return Err(format!(
                        "`{name}` is defined more than once in {}; the heuristic cannot tell which one the call at line {} runs",
                        file.path(),
                        call.line
                    ));
                }
                Ok(Some(SiteKind::Function))
            }
            (Kind::Free, CallForm::Method { receiver }) => {
                let receiver = &text[receiver.clone()];
                Ok(facts
                    .module_aliases
                    .iter()
                    .any(|a| a == receiver)
                    .then_some(SiteKind::Function))
            }
            (Kind::Nested { scope }, CallForm::Plain) => Ok((file.path() == self.def.path()
                && scope.contains(&call.range.start))
            .then_some(SiteKind::Function)),
            (Kind::Method { class, .. }, CallForm::Method { receiver }) => {
                let receiver_text = text[receiver.clone()].trim().to_string();
                let in_def_file = file.path() == self.def.path();
                let through_module = receiver_text
                    .strip_suffix(class.as_str())
                    .and_then(|r| r.strip_suffix('.'))
                    .is_some_and(|module| facts.module_aliases.iter().any(|a| a == module));
                if receiver_text == *class || through_module {
                    let visible = in_def_file
                        || through_module
                        || facts.imported.iter().any(|i| i == class || i == "*");
                    if visible {
                        return Ok(Some(SiteKind::ClassQualified));
                    }
                    return Err(format!(
                        "{} does not import `{class}` from {}, so the heuristic cannot tell that `{receiver_text}.{name}(...)` at line {} is this method; it is left as it is",
                        file.path(),
                        self.def.path(),
                        call.line
                    ));
                }
                let own = in_def_file
                    .then(|| self.own_receiver(node, text, &receiver_text))
                    .flatten();
                if let Some(caller_is_class) = own {
                    return Ok(Some(SiteKind::OwnReceiver {
                        receiver: receiver_text,
                        caller_is_class,
                    }));
                }
                Err(format!(
                    "`{receiver_text}.{name}(...)` at line {} may call `{class}.{name}`, but the heuristic cannot tell the type of `{receiver_text}` (no type analysis); it is left as it is, so the definition is kept",
                    call.line
                ))
            }
            _ => Ok(None),
        }
    }

    fn defined_twice(&self) -> bool {
        let text = self.def.text();
        let root = self.def.tree.root_node();
        let mut cursor = root.walk();
        let count = root
            .named_children(&mut cursor)
            .filter(|s| {
                let s = if s.kind() == "decorated_definition" {
                    s.child_by_field_name("definition").unwrap_or(*s)
                } else {
                    *s
                };
                s.kind() == "function_definition"
                    && s.child_by_field_name("name")
                        .is_some_and(|n| node_text(n, text) == self.name)
            })
            .count();
        count > 1
    }

    /// For `receiver.m(...)`: whether `receiver` is the first parameter of the method of the
    /// same class the call is in (and whether that method is a classmethod).
    fn own_receiver(&self, node: Node<'_>, text: &str, receiver: &str) -> Option<bool> {
        let class = self.class_name()?;
        let mut current = enclosing_function(node);
        while let Some(func) = current {
            if parameter_names(func, text).contains(receiver) {
                let (caller_class, _) = class_of_function(func, text)?;
                if caller_class != class
                    || first_parameter_name(func, text).as_deref() != Some(receiver)
                {
                    return None;
                }
                let decorators = decorator_names(func, text);
                if decorators.iter().any(|d| d == "staticmethod") {
                    return None;
                }
                return Some(decorators.iter().any(|d| d == "classmethod"));
            }
            current = enclosing_function(func);
        }
        None
    }

    /// The assignments binding the call's arguments (and the receiver) to the parameters, in
    /// the order Python evaluates them.
    fn bindings(
        &self,
        text: &str,
        call: &CallSite,
        site: &SiteKind,
        caller: Option<Node<'_>>,
        caller_names: &BTreeSet<String>,
    ) -> Result<Vec<Binding>, String> {
        let mut bindings = Vec::new();
        let mut params: Vec<Param> = self.params.clone();
        match (&self.kind, site) {
            (
                Kind::Method {
                    first: First::Instance(s),
                    ..
                },
                SiteKind::OwnReceiver { receiver, .. },
            ) => {
                bindings.push(Binding {
                    name: s.clone(),
                    value: receiver.clone(),
                    default: false,
                });
            }
            (
                Kind::Method {
                    first: First::Class(c),
                    ..
                },
                SiteKind::OwnReceiver {
                    receiver,
                    caller_is_class,
                },
            ) => {
                bindings.push(Binding {
                    name: c.clone(),
                    value: if *caller_is_class {
                        receiver.clone()
                    } else {
                        format!("type({receiver})")
                    },
                    default: false,
                });
            }
            (
                Kind::Method {
                    first: First::Class(c),
                    class,
                },
                SiteKind::ClassQualified,
            ) => {
                bindings.push(Binding {
                    name: c.clone(),
                    value: class.clone(),
                    default: false,
                });
            }
            (
                Kind::Method {
                    first: First::Instance(s),
                    ..
                },
                SiteKind::ClassQualified,
            ) => {
                // `Class.m(obj, ...)`: `obj` becomes `self`, unless that would overwrite the
                // caller's own `self`.
                let first_value = call
                    .args
                    .first()
                    .map(|a| text[a.value_range.clone()].trim().to_string());
                let caller_has_it = caller.is_some() && caller_names.contains(s);
                if caller_has_it && first_value.as_deref() != Some(s.as_str()) {
                    return Err(format!(
                        "binding `{s}` to the first argument would overwrite the caller's own `{s}`"
                    ));
                }
                params.insert(
                    0,
                    Param {
                        name: s.clone(),
                        default: None,
                        kind: ParamKind::PositionalOnly,
                    },
                );
            }
            _ => {}
        }
        let mut filled: Vec<Option<Binding>> = params.iter().map(|_| None).collect();
        let mut order: Vec<usize> = Vec::new();
        let mut next_positional = 0usize;
        for arg in &call.args {
            if arg.splat {
                return Err(format!(
                    "it passes `{}`; the heuristic cannot match unpacked arguments to parameters",
                    text[arg.range.clone()].trim()
                ));
            }
            let value = text[arg.value_range.clone()].to_string();
            let index = match &arg.keyword {
                Some(keyword) => params
                    .iter()
                    .position(|p| p.name == *keyword && p.kind != ParamKind::PositionalOnly)
                    .ok_or_else(|| {
                        format!(
                            "it passes `{keyword}=`, which `{}` does not take",
                            self.name
                        )
                    })?,
                None => {
                    while next_positional < params.len() && filled[next_positional].is_some() {
                        next_positional += 1;
                    }
                    let index = next_positional;
                    if params
                        .get(index)
                        .is_none_or(|p| p.kind == ParamKind::KeywordOnly)
                    {
                        return Err(format!(
                            "it passes more positional arguments than `{}` takes",
                            self.name
                        ));
                    }
                    next_positional += 1;
                    index
                }
            };
            if filled[index].is_some() {
                return Err(format!("it passes `{}` twice", params[index].name));
            }
            filled[index] = Some(Binding {
                name: params[index].name.clone(),
                value,
                default: false,
            });
            order.push(index);
        }
        for (index, param) in params.iter().enumerate() {
            if filled[index].is_none() {
                let default = param.default.clone().ok_or_else(|| {
                    format!("it does not pass `{}`, which has no default", param.name)
                })?;
                filled[index] = Some(Binding {
                    name: param.name.clone(),
                    value: default,
                    default: true,
                });
                order.push(index);
            }
        }
        for index in order {
            if let Some(b) = filled[index].take() {
                bindings.push(b);
            }
        }
        Ok(bindings)
    }

    /// The body's lines for a statement-level call whose statement began with `prefix`
    /// (`""`, `"y = "`, `"return "`); `return_needed` says a path falling off the end must
    /// return explicitly.
    fn statement_body(&self, prefix: &str, return_needed: bool) -> Vec<Line> {
        let Some(body) = self.body.clone() else {
            return Vec::new();
        };
        let text = self.def.text();
        let mut splices: Vec<Splice> = Vec::new();
        let is_return = prefix.trim_end() == "return";
        for r in &self.tail_returns {
            match (prefix.is_empty(), &r.value) {
                (true, value) => {
                    let inert = value.as_ref().is_none_or(|v| {
                        self.def
                            .tree
                            .root_node()
                            .descendant_for_byte_range(v.start, v.end)
                            .is_some_and(|n| n.byte_range() == *v && is_inert(n))
                    });
                    if inert {
                        if r.alone {
                            splices.push((r.statement.clone(), "pass".to_string()));
                        } else {
                            splices.push((
                                self.statement_line(r.statement.clone(), &body),
                                String::new(),
                            ));
                        }
                    } else {
                        splices.push((r.keyword.clone(), String::new()));
                    }
                }
                (false, Some(_)) if !is_return => {
                    splices.push((r.keyword.clone(), prefix.to_string()))
                }
                (false, None) if !is_return => {
                    splices.push((r.keyword.start..r.statement.end, format!("{prefix}None")))
                }
                (false, _) => {}
            }
        }
        if !prefix.is_empty() && (!is_return || return_needed) {
            for (at, indent) in &self.fallthrough {
                splices.push((*at..*at, format!("\n{indent}{prefix}None")));
            }
        }
        let (lines, first) = snippet::extract(text, body.clone(), &splices, &self.protected);
        let base = snippet::base_indent(&lines, first.as_deref());
        lines
            .into_iter()
            .map(|mut l| {
                if !l.verbatim {
                    l.indent = l
                        .indent
                        .strip_prefix(base.as_str())
                        .map(str::to_string)
                        .unwrap_or_default();
                }
                l
            })
            .collect()
    }

    /// The range that removes a whole statement line from the body (with one line break).
    fn statement_line(&self, statement: Range<usize>, body: &Range<usize>) -> Range<usize> {
        let text = self.def.text();
        let start = line_start(text, statement.start).max(body.start);
        let end = line_content_end(text, statement.end);
        if start > body.start {
            // Take the line break before the line.
            let mut cut = start - 1;
            if cut > 0 && text.as_bytes()[cut - 1] == b'\r' {
                cut -= 1;
            }
            cut..end.min(body.end)
        } else {
            let next = text[end..]
                .find('\n')
                .map_or(end, |i| end + i + 1)
                .min(body.end);
            let next_code =
                next + text[next..body.end].len() - text[next..body.end].trim_start().len();
            start..next_code
        }
    }

    fn render_body(&self, lines: &[Line], indent: &str, file: &Parsed<'_>) -> Vec<String> {
        snippet::layout(
            lines,
            "",
            Layout {
                from_unit: self.def.style.indent,
                to_indent: indent,
                to_unit: file.style.indent,
            },
        )
    }

    /// Names the inlined code may clash with at the call site, and names it uses that the
    /// call site's file may not have.
    fn scope_findings(
        &self,
        file: &Parsed<'_>,
        assigned: &BTreeSet<String>,
        caller: Option<Node<'_>>,
        caller_scope: Node<'_>,
        call: &CallSite,
    ) -> Vec<Finding> {
        let text = file.text();
        let mut findings = Vec::new();
        let line = call.line;
        // Where the caller's names occur, outside the call itself and outside nested scopes.
        let mut occurrences: Vec<(String, usize)> = Vec::new();
        walk_node(caller_scope, |n| {
            if n.start_byte() >= call.range.start && n.end_byte() <= call.range.end {
                return false;
            }
            if n.id() != caller_scope.id() && NESTED_SCOPES.contains(&n.kind()) {
                return false;
            }
            if n.kind() == "identifier" && !is_attribute_or_keyword_name(n, n.parent()) {
                occurrences.push((node_text(n, text).to_string(), n.start_position().row + 1));
            }
            true
        });
        let mut caller_bound = bound_names(caller_scope, text);
        if let Some(f) = caller {
            let params = parameter_names(f, text);
            caller_bound.extend(params.iter().cloned());
            for p in params {
                occurrences.push((p, f.start_position().row + 1));
            }
        }
        occurrences.sort_by_key(|(_, at)| *at);
        for name in assigned {
            if let Some((_, at)) = occurrences.iter().find(|(n, _)| n == name) {
                findings.push(Finding::warning(
                    file.path(),
                    line,
                    format!(
                        "the inlined code assigns `{name}`, which the caller also uses (line {at}); the caller's `{name}` may be overwritten"
                    ),
                ));
            }
        }
        // At the top of the definition's own module, the body's free names are these globals.
        let same_globals = caller.is_none() && file.path() == self.def.path();
        // A nested function called in its own parent reads the parent's names on purpose.
        let own_parent = match (&self.kind, caller) {
            (Kind::Nested { scope }, Some(f)) => {
                let outer = f
                    .parent()
                    .filter(|p| p.kind() == "decorated_definition")
                    .unwrap_or(f);
                outer.byte_range() == *scope
            }
            _ => false,
        };
        for name in self.free.iter().filter(|_| !same_globals && !own_parent) {
            if caller_bound.contains(name) {
                findings.push(Finding::warning(
                    file.path(),
                    line,
                    format!(
                        "the inlined body reads `{name}`, which the caller binds itself; it now reads the caller's `{name}`"
                    ),
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
                            "the inlined body uses `{name}`, which {} defines or imports but {} does not; import it there",
                            self.def.path(),
                            file.path()
                        ),
                    ));
                }
            }
        }
        findings
    }

    fn import_verdict(&self, file: &Parsed<'_>, node: Node<'_>) -> RefVerdict {
        let text = file.text();
        let name = &self.name;
        let Some(statement) = ancestor(node, "import_from_statement") else {
            return RefVerdict::Ignore; // `import helper`: a module of that name
        };
        let module = statement.child_by_field_name("module_name");
        if module
            .is_some_and(|m| m.start_byte() <= node.start_byte() && node.end_byte() <= m.end_byte())
        {
            return RefVerdict::Ignore;
        }
        let module_text = module.map(|m| node_text(m, text)).unwrap_or("");
        if !import_names_module(module_text, file.path(), &self.module)
            || file.path() == self.def.path()
        {
            return RefVerdict::Ignore;
        }
        if !matches!(self.kind, Kind::Free) {
            return RefVerdict::Ignore;
        }
        let line = node.start_position().row + 1;
        let Some(item) = node.parent() else {
            return RefVerdict::Ignore;
        };
        if item.parent().is_some_and(|p| p.kind() == "aliased_import")
            || item.kind() == "aliased_import"
        {
            return RefVerdict::Import(Err(format!(
                "`{name}` is imported under another name at line {line}; calls through that name are not followed, so the definition is kept"
            )));
        }
        if file.path().ends_with("__init__.py") {
            return RefVerdict::Import(Err(format!(
                "{} imports `{name}` at line {line}, which re-exports it from the package; the definition is kept",
                file.path()
            )));
        }
        let mut cursor = statement.walk();
        let items: Vec<Node<'_>> = statement
            .children_by_field_name("name", &mut cursor)
            .collect();
        let Some(index) = items.iter().position(|i| i.id() == item.id()) else {
            return RefVerdict::Ignore;
        };
        let ranges: Vec<Range<usize>> = items.iter().map(|i| i.byte_range()).collect();
        let edit = remove_list_item(&ranges, index).unwrap_or_else(|| {
            let last = next_statement(statement).is_none();
            remove_whole_lines(text, statement.byte_range(), last, "#")
        });
        RefVerdict::Import(Ok(edit))
    }
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

/// `a = x` per binding, or one `a, b = x, y` when a value reads a parameter bound before it
/// (sequential assignments would hand it the new value instead of the caller's).
fn binding_statements(bindings: &[Binding]) -> Vec<String> {
    let conflict = bindings.iter().enumerate().any(|(i, b)| {
        bindings[i + 1..]
            .iter()
            .any(|later| mentions_word(&later.value, &b.name))
    });
    if conflict && bindings.len() > 1 {
        let names: Vec<&str> = bindings.iter().map(|b| b.name.as_str()).collect();
        let values: Vec<&str> = bindings.iter().map(|b| b.value.trim()).collect();
        vec![format!("{} = {}", names.join(", "), values.join(", "))]
    } else {
        bindings
            .iter()
            .map(|b| format!("{} = {}", b.name, b.value.trim()))
            .collect()
    }
}

/// For a call that is a whole statement: the text before the call (`""`, `y = `, `return `)
/// and, for `return f(x)`, whether a path of the body that falls off its end must return
/// explicitly (the statement is not the last of its function).
fn statement_level(call: Node<'_>, statement: Node<'_>, text: &str) -> Option<(String, bool)> {
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

/// Refuses expression contexts where evaluating the arguments before the statement is wrong:
/// lambdas and comprehensions (their names do not exist outside), `while` conditions
/// (evaluated again each turn), and conditionally evaluated parts unless every argument is a
/// plain name or literal.
fn expression_context(
    call: Node<'_>,
    statement: Node<'_>,
    bindings: &[Binding],
) -> Result<(), String> {
    let mut conditional: Option<&str> = None;
    let mut child = call;
    let mut current = call.parent();
    while let Some(node) = current {
        if node.id() == statement.id() && node.kind() == "while_statement" {
            return Err("it is in a `while` condition, evaluated again at each turn; the bindings would run once".into());
        }
        match node.kind() {
            "lambda" => return Err("it is inside a `lambda`; statements cannot go there".into()),
            k if COMPREHENSIONS.contains(&k) => {
                return Err("it is inside a comprehension; its bindings cannot go there".into());
            }
            "conditional_expression" => {
                let condition = node.named_child(1);
                if condition.is_none_or(|c| c.id() != child.id()) {
                    conditional = Some("a conditional expression");
                }
            }
            "boolean_operator"
                if node
                    .child_by_field_name("right")
                    .is_some_and(|r| r.id() == child.id()) =>
            {
                conditional = Some("the right side of `and`/`or`");
            }
            "elif_clause" => conditional = Some("an `elif` condition"),
            "case_clause" | "except_clause" => {
                conditional = Some("a `case` guard or `except` clause")
            }
            _ => {}
        }
        if node.id() == statement.id() {
            break;
        }
        child = node;
        current = node.parent();
    }
    if let Some(place) = conditional
        && let Some(b) = bindings.iter().find(|b| !is_simple_text(&b.value))
    {
        return Err(format!(
            "it is in {place}, evaluated only sometimes; moving the argument `{}` before the statement would evaluate it always",
            b.value.trim()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn imports_name_modules_by_path() {
        let util = module_parts("src/pkg/util.py");
        assert_eq!(util, vec!["src", "pkg", "util"]);
        assert!(import_names_module("pkg.util", "main.py", &util));
        assert!(import_names_module("util", "main.py", &util));
        assert!(!import_names_module("other.util2", "main.py", &util));
        assert!(import_names_module(".util", "src/pkg/main.py", &util));
        assert!(import_names_module("..util", "src/pkg/sub/a.py", &util));
        assert!(!import_names_module(".util", "src/other/main.py", &util));
        let package = module_parts("pkg/__init__.py");
        assert!(import_names_module(".", "pkg/main.py", &package));
        assert!(!import_names_module(".", "other/main.py", &package));
    }
}
