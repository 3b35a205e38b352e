//! The shape of the new function and of its call, from the data flow: the parameter list and
//! the arguments, the return type and the value the body ends with, and the statement that
//! replaces the selection (`let (a, b) = f(..);`, `a, b = f(..)`, `return f(..)`, `f(..)?`).
//! Decides, does not write text into the file. Pure.

use tree_sitter::Node;

use crate::lang::Language;
use crate::lang::rust::generics;
use crate::lang::rust::types::{self, Wrapper};
use crate::lang::syntax::{BlockOwner, FlowKind, Owner};

use super::diagnose::Context;
use super::early_return::{self, EarlyReturn};
use super::flow::{DataFlow, Returned};
use super::jumps::{self, Jumps};
use super::lifetimes;

/// What the selection hands back through the call, beside its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Exit {
    /// Nothing: the call is a statement.
    Nothing,
    /// Names assigned at the call (Python `a, b = f()`, Rust `let (a, b) = f();`).
    Names,
    /// The selection ends with a `return`: the call is returned (`return f(..)`).
    Return,
    /// Rust: the selection ends with the block's tail expression, whose value the new function
    /// returns; the call takes its place as the block's value.
    Tail,
    /// Rust: the selection's `break`/`continue` of a loop outside it come back as the new
    /// function's value, and the call site jumps on it.
    Jumps(Jumps),
}

#[derive(Debug, Clone)]
pub struct Shape {
    /// The parameters after the receiver, as the signature writes them.
    pub parameters: Vec<String>,
    pub arguments: Vec<String>,
    pub exit: Exit,
    /// Rust: the declared return type (`u64`, `(usize, String)`, `Result<u8, Error>`).
    pub return_type: Option<String>,
    /// The last line of the body: Rust `(a, b)` / `Ok(total)`, Python `return a, b`.
    pub body_end: Option<String>,
    /// Rust: the selection's `?` leave the new function, which returns the enclosing
    /// function's `Result`/`Option` around its value; the call ends with `?`.
    pub fallible: bool,
    /// Rust: the new function returns what the enclosing one does, so a `?` of the selection
    /// still compiles.
    pub question_marks_work: bool,
    /// Rust: the selection ends with the block's tail expression (the call keeps its place,
    /// without `;`).
    pub ends_with_tail: bool,
    /// Rust: the enclosing function's generics the new one needs (`<G: Clone>`), its `where`
    /// clause about them, and the names declared.
    pub generics: Option<String>,
    pub where_clause: Option<String>,
    pub declared_generics: Vec<String>,
    /// Python: the selection yields for the enclosing generator: the new function is a
    /// generator too and the call is `yield from f(..)` (its `return` value is the result).
    pub yield_from: bool,
    /// Rust: `::<T>` after the called name, when a type parameter appears in no parameter (the
    /// call could not infer it).
    pub turbofish: String,
    /// Rust: each jump of the selection the new function returns instead (its byte range now,
    /// the `return ..` that replaces it).
    pub jump_edits: Vec<(std::ops::Range<usize>, String)>,
    /// Rust: the selection's `return`s come back through the new function's value, and the
    /// call site returns (`jump_edits` holds their rewrites).
    pub early_return: Option<EarlyReturn>,
    /// Rust: the receiver as the new signature writes it when it differs from the enclosing
    /// function's (`&'a self`, see `lifetimes`).
    pub receiver: Option<String>,
    /// Rust: the returned borrow is made from a raw pointer and its lifetime `'a` is unbounded
    /// (see `lifetimes::name_raw_lifetime`).
    pub raw_lifetime: bool,
}

impl Shape {
    /// The selection's `return`s still leave the enclosing function: the call is returned (or
    /// is the body's value and the new function returns what the enclosing one does), or they
    /// come back through the new function's value.
    pub fn returns_reach_the_caller(&self) -> bool {
        self.exit == Exit::Return
            || (self.exit == Exit::Tail && self.question_marks_work)
            || self.early_return.is_some()
    }

    /// The statement that replaces the selection, around the call expression (`self.f(a)`, with
    /// `await` already applied).
    pub fn call_statement(&self, lang: Language, call: &str, flow: &DataFlow) -> String {
        let call = match &self.early_return {
            Some(early) if lang == Language::Rust => early.around_call(call),
            _ => call.to_string(),
        };
        let call = call.as_str();
        let call = if self.fallible {
            format!("{call}?")
        } else if self.yield_from {
            format!("yield from {call}")
        } else {
            call.to_string()
        };
        match (lang, &self.exit) {
            (Language::Python, Exit::Nothing) => call,
            (Language::Python, Exit::Return) if self.yield_from => format!("return ({call})"),
            (Language::Python, Exit::Return) => format!("return {call}"),
            (Language::Python, _) => format!("{} = {call}", names(&flow.returns)),
            (Language::Rust, Exit::Nothing)
                if self.ends_with_tail || self.early_return.is_some() =>
            {
                call
            }
            (Language::Rust, Exit::Nothing) => format!("{call};"),
            (Language::Rust, Exit::Tail) => call,
            (Language::Rust, Exit::Return) => format!("return {call};"),
            (Language::Rust, Exit::Names) => rust_assignment(&flow.returns, &call),
            (Language::Rust, Exit::Jumps(jumps)) => jumps.call_statement(&call),
        }
    }
}

fn names(returns: &[Returned]) -> String {
    returns
        .iter()
        .map(|r| r.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `let x = call;`, `let (a, mut b) = call;`, `x = call;`, `(a, x) = call;`, and for a mix
/// of new and existing names `let a = { let value = call; x = value.1; value.0 };` (the call is
/// evaluated before `value` is bound, so its arguments see the caller's names).
fn rust_assignment(returns: &[Returned], call: &str) -> String {
    let tuple = |parts: Vec<String>| {
        if parts.len() == 1 {
            parts.concat()
        } else {
            format!("({})", parts.join(", "))
        }
    };
    let declared = |r: &Returned| {
        if r.by_ref {
            format!("ref {}", r.name)
        } else if r.mutable {
            format!("mut {}", r.name)
        } else {
            r.name.clone()
        }
    };
    if returns.iter().all(|r| r.declared_inside) {
        return format!(
            "let {} = {call};",
            tuple(returns.iter().map(declared).collect())
        );
    }
    if returns.iter().all(|r| !r.declared_inside) {
        let names = returns.iter().map(|r| r.name.clone()).collect();
        return format!("{} = {call};", tuple(names));
    }
    let mut temp = "value".to_string();
    while returns.iter().any(|r| r.name == temp) {
        temp.push('_');
    }
    let assigned: String = returns
        .iter()
        .enumerate()
        .filter(|(_, r)| !r.declared_inside)
        .map(|(i, r)| format!(" {} = {temp}.{i};", r.name))
        .collect();
    let fresh: Vec<(usize, &Returned)> = returns
        .iter()
        .enumerate()
        .filter(|(_, r)| r.declared_inside)
        .collect();
    let pattern = tuple(fresh.iter().map(|(_, r)| declared(r)).collect());
    let value = tuple(fresh.iter().map(|(i, _)| format!("{temp}.{i}")).collect());
    format!("let {pattern} = {{ let {temp} = {call};{assigned} {value} }};")
}

/// The value expression of several names (`x`, `(a, b)`).
fn value_of(returns: &[Returned]) -> String {
    match returns {
        [one] => one.name.clone(),
        _ => format!("({})", names(returns)),
    }
}

fn type_of(returns: &[Returned]) -> String {
    let ty = |r: &Returned| r.ty.clone().unwrap_or_else(|| "_".to_string());
    match returns {
        [one] => ty(one),
        _ => format!(
            "({})",
            returns.iter().map(ty).collect::<Vec<_>>().join(", ")
        ),
    }
}

pub fn shape(cx: &Context<'_, '_>, flow: &DataFlow) -> Shape {
    let mut shape = shape_of(cx, flow);
    let hands_back_nothing = shape.exit == Exit::Nothing
        && !shape.fallible
        && shape.return_type.is_none()
        && shape.body_end.is_none()
        && flow.returns.is_empty();
    if hands_back_nothing && let Some((jumps, edits)) = jumps::plan(cx) {
        shape.return_type = Some(jumps.return_type());
        shape.body_end = Some(jumps.fall_through());
        shape.jump_edits = edits;
        shape.exit = Exit::Jumps(jumps);
    }
    early_returns(cx, flow, &mut shape);
    // A trait impl's `Self::Err` means nothing in the inherent impl the new function goes to.
    let impl_item = match (&cx.target.owner, cx.target.function) {
        (Owner::TraitImpl { .. }, Some(function)) => cx.lang.syntax().owner_node(function),
        _ => None,
    };
    if let Some(impl_item) = impl_item {
        let resolve = |ty: &String| {
            types::without_associated_types(ty, impl_item, cx.text).unwrap_or_else(|| ty.clone())
        };
        shape.parameters = shape.parameters.iter().map(resolve).collect();
        shape.return_type = shape.return_type.as_ref().map(resolve);
    }
    if cx.lang == Language::Rust
        && let Some(function) = cx.target.function
    {
        needed_generics(cx, function, &mut shape);
        let mut receiver = cx.target.receiver.clone();
        let receiver_name = cx.target.receiver_name.as_deref();
        if lifetimes::name_returned_lifetime(&mut shape, &mut receiver, receiver_name, flow) {
            shape.receiver = receiver;
        } else {
            shape.raw_lifetime = lifetimes::name_raw_lifetime(cx, &mut shape, flow);
        }
    }
    shape
}

/// Rust: the selection's `return`s that leave the enclosing function come back through the new
/// function's value, beside what the call assigns (not beside a `?`, a jump or a tail value).
fn early_returns(cx: &Context<'_, '_>, flow: &DataFlow, shape: &mut Shape) {
    if cx.lang != Language::Rust
        || shape.fallible
        || shape.ends_with_tail
        || !matches!(shape.exit, Exit::Nothing | Exit::Names)
    {
        return;
    }
    let enclosing = cx
        .target
        .function
        .and_then(|f| types::return_type(f, cx.text));
    let values = (shape.exit == Exit::Names).then(|| type_of(&flow.returns));
    if let Some((early, edits)) = early_return::plan(cx, enclosing.as_deref(), values.as_deref()) {
        shape.return_type = Some(early.return_type());
        shape.body_end = Some(early.fall_through(shape.body_end.as_deref()));
        shape.jump_edits = edits;
        shape.early_return = Some(early);
    }
}

/// The type parameters, lifetimes and const parameters of the enclosing function that the new
/// signature or the selection's types name: the new function declares them too.
fn needed_generics(cx: &Context<'_, '_>, function: Node<'_>, shape: &mut Shape) {
    let (lifetimes, consts) = generics::generic_names(function, cx.text);
    let written: Vec<&str> = shape
        .parameters
        .iter()
        .map(String::as_str)
        .chain(shape.return_type.as_deref())
        .collect();
    let in_body = |name: &str| {
        cx.names
            .all
            .iter()
            .any(|o| o.name == name && o.role == crate::lang::names::Role::Type && cx.inside(o.pos))
    };
    let used: Vec<String> = cx
        .target
        .type_parameters
        .iter()
        .chain(&lifetimes)
        .chain(&consts)
        .filter(|g| written.iter().any(|w| generics::mentions(w, g)) || in_body(g))
        .cloned()
        .collect();
    let (list, where_clause) = generics::generics_for(function, cx.text, &used);
    if let Some(list) = &list {
        // What the list declares: `used`, and the generics their bounds name.
        let declared: Vec<String> = list
            .strip_prefix('<')
            .and_then(|l| l.strip_suffix('>'))
            .map(|inner| types::split_top_level(inner, ','))
            .unwrap_or_default()
            .iter()
            .map(|e| generics::declared_name(e).to_string())
            .filter(|n| !n.is_empty())
            .collect();
        let names: Vec<&String> = declared.iter().filter(|n| !n.starts_with('\'')).collect();
        let inferred = |n: &&String| shape.parameters.iter().any(|p| generics::mentions(p, n));
        if !names.iter().all(inferred) {
            let names: Vec<&str> = names.iter().map(|n| n.as_str()).collect();
            shape.turbofish = format!("::<{}>", names.join(", "));
        }
        shape.generics = Some(list.clone());
        shape.where_clause = where_clause;
        shape.declared_generics = declared;
    }
}

fn shape_of(cx: &Context<'_, '_>, flow: &DataFlow) -> Shape {
    let mut shape = Shape {
        parameters: flow
            .parameters
            .iter()
            .map(|p| p.declaration(cx.lang))
            .collect(),
        arguments: flow.parameters.iter().map(|p| p.argument()).collect(),
        exit: Exit::Nothing,
        return_type: None,
        body_end: None,
        fallible: false,
        question_marks_work: false,
        ends_with_tail: cx.selection.tail.is_some(),
        generics: None,
        where_clause: None,
        declared_generics: Vec::new(),
        turbofish: String::new(),
        yield_from: false,
        jump_edits: Vec::new(),
        early_return: None,
        receiver: None,
        raw_lifetime: false,
    };
    let syntax = cx.lang.syntax();
    let enclosing_return = cx
        .target
        .function
        .filter(|_| cx.lang == Language::Rust)
        .and_then(|f| types::return_type(f, cx.text));
    let ends_with_return = cx
        .selection
        .statements
        .last()
        .is_some_and(|s| syntax.is_return(*s));
    if ends_with_return && cx.target.function.is_some() {
        shape.yield_from = cx.lang == Language::Python && yields_for_a_generator(cx);
        shape.exit = Exit::Return;
        shape.return_type = enclosing_return;
        shape.question_marks_work = true;
        return shape;
    }
    if cx.lang == Language::Python {
        shape.yield_from = yields_for_a_generator(cx);
        if !flow.returns.is_empty() {
            shape.exit = Exit::Names;
            shape.body_end = Some(format!("return {}", names(&flow.returns)));
        }
        return shape;
    }
    // Rust: the value the new function gives back, and its type.
    let (value, value_type) = if let Some(tail) = cx.selection.tail {
        if !flow.returns.is_empty() {
            return shape;
        }
        match tail_type(cx, tail, enclosing_return.as_deref()) {
            Some(ty) => {
                shape.exit = Exit::Tail;
                shape.question_marks_work =
                    cx.lang.syntax().block_owner(cx.selection.block) == BlockOwner::FunctionBody;
                (None, Some(ty))
            }
            None => return shape,
        }
    } else if flow.returns.is_empty() {
        (None, None)
    } else {
        shape.exit = Exit::Names;
        (Some(value_of(&flow.returns)), Some(type_of(&flow.returns)))
    };
    let wrapper = enclosing_return.as_deref().and_then(types::wrapper);
    if leaves_by_question_mark(cx)
        && shape.exit != Exit::Tail
        && let (Some(outer), Some((kind, fixed))) = (enclosing_return.as_deref(), wrapper)
    {
        let inner = value_type.clone().unwrap_or_else(|| "()".to_string());
        let return_type = match fixed {
            Some(_) => types::with_value(outer, &inner),
            None if inner == "()" => Some(outer.to_string()),
            // `fmt::Result` is `Result<(), fmt::Error>`.
            None => outer
                .strip_suffix("fmt::Result")
                .map(|prefix| format!("Result<{inner}, {prefix}fmt::Error>")),
        };
        if let Some(return_type) = return_type {
            let constructor = match kind {
                Wrapper::Result => "Ok",
                Wrapper::Option => "Some",
            };
            shape.fallible = true;
            shape.question_marks_work = true;
            shape.return_type = Some(return_type);
            shape.body_end = Some(format!(
                "{constructor}({})",
                value.unwrap_or_else(|| "()".to_string())
            ));
            return shape;
        }
    }
    shape.return_type = value_type.filter(|t| t != "()");
    shape.body_end = value;
    shape
}

/// The type of a Rust tail expression the new function returns: the enclosing function's
/// return type for its body's tail, what the source says of the expression otherwise.
fn tail_type(cx: &Context<'_, '_>, tail: Node<'_>, enclosing: Option<&str>) -> Option<String> {
    let owner = cx.lang.syntax().block_owner(cx.selection.block);
    match owner {
        BlockOwner::FunctionBody => enclosing.map(str::to_string),
        BlockOwner::Loop | BlockOwner::IfWithoutElse => None,
        BlockOwner::Other => {
            let resolve = |name: &str, at: usize| cx.names.resolve(name, at).map(|b| b.pos);
            let scope = types::TypeScope {
                root: root_of(tail),
                text: cx.text,
                self_type: None,
                resolve: &resolve,
                elsewhere: cx.elsewhere,
            };
            types::expression_type(&scope, tail)
                .or_else(|| {
                    // A branch of an `if`/`match` that is the function body's own tail.
                    let function = cx.target.function?;
                    crate::lang::rust::statements::block_value_is_function_value(
                        cx.selection.block,
                        function,
                    )
                    .then(|| enclosing.map(str::to_string))
                    .flatten()
                })
                .filter(|t| t != "()")
        }
    }
}

fn root_of(node: Node<'_>) -> Node<'_> {
    let mut root = node;
    while let Some(parent) = root.parent() {
        root = parent;
    }
    root
}

/// Whether a `?` of the selection (not in a closure or an async block of it) leaves the
/// function.
pub fn leaves_by_question_mark(cx: &Context<'_, '_>) -> bool {
    let syntax = cx.lang.syntax();
    cx.selection.statements.iter().any(|s| {
        syntax
            .control_flow(*s, cx.text)
            .iter()
            .any(|f| f.kind == FlowKind::Try && !f.boundary.is_some_and(|b| cx.inside(b)))
    })
}

/// Python: the selection yields (not in a nested function of its own) in a generator that is
/// not `async` (an async generator has no `yield from`), and awaits nothing.
fn yields_for_a_generator(cx: &Context<'_, '_>) -> bool {
    let syntax = cx.lang.syntax();
    let Some(function) = cx.target.function else {
        return false;
    };
    if syntax.function(function, cx.text).is_async {
        return false;
    }
    let flows: Vec<FlowKind> = cx
        .selection
        .statements
        .iter()
        .flat_map(|s| syntax.control_flow(*s, cx.text))
        .filter(|f| !f.boundary.is_some_and(|b| cx.inside(b)))
        .map(|f| f.kind)
        .collect();
    flows.contains(&FlowKind::Yield) && !flows.contains(&FlowKind::Await)
}
