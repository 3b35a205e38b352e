//! The data flow of a selection: what the new function receives (the locals it reads that are
//! bound before it, in first-use order; Rust: with the type their declaration gives and passed
//! by value, `&` or `&mut` as the uses require) and what it gives back (the names it assigns
//! that later code reads, Python module globals it assigns). Syntactic, from `lang` facts: no
//! type inference, no borrow checking; what it cannot read is left for the findings. Pure.

use std::collections::{HashMap, HashSet};

use tree_sitter::Node;

use crate::lang::Language;
use crate::lang::names::{Occurrence, Role};
use crate::lang::rust::types::{self, TypeScope};
use crate::lang::rust::{borrow_root, closures, std_types};
use crate::lang::syntax::{Owner, UseKind};

use super::diagnose::Context;

/// How a Rust parameter is passed (Python passes every value the same way: `Value`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pass {
    Value,
    Ref,
    RefMut,
}

#[derive(Debug, Clone)]
pub struct Parameter {
    pub name: String,
    pub pass: Pass,
    /// Rust: `mut name: T` (the selection reassigns or mutates the value it owns).
    pub mutable: bool,
    /// Rust: the type of the local as its declaration says, when it can be read.
    pub ty: Option<String>,
    /// 1-based line of the binding the selection reads.
    pub line: usize,
}

impl Parameter {
    /// The parameter as the new signature writes it (`total`, `mut total: u64`, `names: &[String]`).
    pub fn declaration(&self, lang: Language) -> String {
        match lang {
            Language::Python => self.name.clone(),
            Language::Rust => {
                let ty = self.ty.as_deref().unwrap_or("_");
                let mut_ = if self.mutable { "mut " } else { "" };
                let reference = match self.pass {
                    Pass::Value => "",
                    Pass::Ref => "&",
                    Pass::RefMut => "&mut ",
                };
                format!("{mut_}{}: {reference}{ty}", self.name)
            }
        }
    }

    /// The argument of the call (`total`, `&names`, `&mut out`).
    pub fn argument(&self) -> String {
        match self.pass {
            Pass::Value => self.name.clone(),
            Pass::Ref => format!("&{}", self.name),
            Pass::RefMut => format!("&mut {}", self.name),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Returned {
    pub name: String,
    /// Rust: bound by a `let` of the selection, so the call declares it (`let x = ..`);
    /// otherwise it exists before the selection and the call assigns it.
    pub declared_inside: bool,
    /// Rust: the `let` was `let mut`.
    pub mutable: bool,
    pub ty: Option<String>,
    /// 1-based line where the selection binds or assigns it.
    pub line: usize,
    /// Rust: bound by `let ref name = value;` and not read again in the selection: the new
    /// function binds the value itself and returns it, and the call binds it `ref`.
    pub by_ref: bool,
    /// Rust: the name the `let`'s value borrows from, when the source says so
    /// (`let parts = rhs.as_str().split('.');` → `rhs`).
    pub root: Option<String>,
    /// Rust: the `let`'s value is a borrow made from a raw pointer
    /// (`slice::from_raw_parts(p, n)`), which no input lends.
    pub raw: bool,
}

/// A change to the moved text so a parameter passed by reference means the same: `*` before
/// the name (`*x == y`, `&mut *x`), or `x: *x` for a shorthand field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deref {
    pub at: usize,
    pub len: usize,
    pub shorthand: bool,
}

#[derive(Debug, Clone, Default)]
pub struct DataFlow {
    pub parameters: Vec<Parameter>,
    pub returns: Vec<Returned>,
    pub derefs: Vec<Deref>,
    /// Rust: the `ref name` patterns the new function writes `name` (see [`Returned::by_ref`]).
    pub unref: Vec<(std::ops::Range<usize>, String)>,
    /// Names whose reads and writes across the selection's edge the flow handles: the findings
    /// need not report them.
    pub handled: HashSet<String>,
    /// Python: returned names the selection assigns only on some paths (a branch, a loop) and
    /// that have no value before it: (name, line of the assignment).
    pub maybe_unassigned: Vec<(String, usize)>,
    /// Rust: returned names the selection binds by `ref` (a borrow of the new function's own
    /// value, which cannot leave it): (name, line).
    pub ref_returns: Vec<(String, usize)>,
    /// Rust: `impl FnOnce` parameters the selection calls that stay passed by `&` (the code
    /// after it uses them too), which cannot be called through it (E0507): (name, line).
    pub once_borrowed: Vec<(String, usize)>,
}

impl DataFlow {
    /// Parameters and returns whose Rust type could not be read.
    pub fn untyped(&self) -> Vec<(&str, usize)> {
        let params = self
            .parameters
            .iter()
            .filter(|p| p.ty.is_none())
            .map(|p| (p.name.as_str(), p.line));
        let returns = self
            .returns
            .iter()
            .filter(|r| r.ty.is_none() && !self.parameters.iter().any(|p| p.name == r.name))
            .map(|r| (r.name.as_str(), r.line));
        params.chain(returns).collect()
    }
}

/// One name the selection reads from outside, as it is gathered.
struct Needed<'a> {
    binding: &'a Occurrence,
    uses: Vec<&'a Occurrence>,
}

pub fn analyse(cx: &Context<'_, '_>) -> DataFlow {
    let declared: HashSet<&str> = cx.declared().iter().map(|(n, _, _)| *n).collect();
    // Rust `self` is a keyword (the receiver, or an error the findings report); a Python
    // `self` that is not the receiver is a local like any other.
    let rust_self = |name: &str| cx.lang == Language::Rust && name == "self";
    let skip = |name: &str| declared.contains(name) || cx.is_receiver(name) || rust_self(name);
    let mut order: Vec<&str> = Vec::new();
    let mut needed: HashMap<&str, Needed<'_>> = HashMap::new();
    let module_level = cx.target.function.is_none();
    for use_ in cx
        .names
        .all
        .iter()
        .filter(|o| matches!(o.role, Role::Read | Role::Write) && cx.inside(o.pos))
    {
        let name = use_.name.as_str();
        if skip(name) {
            continue;
        }
        if let Some(entry) = needed.get_mut(name) {
            entry.uses.push(use_);
            continue;
        }
        let Some(binding) = outside_binding(cx, use_, module_level) else {
            continue;
        };
        order.push(name);
        needed.insert(
            name,
            Needed {
                binding,
                uses: vec![use_],
            },
        );
    }
    let returns = returned(cx, &skip, module_level);
    let mut maybe_unassigned = Vec::new();
    // Python: a returned name the selection may not assign (a branch) keeps the value it had.
    if cx.lang == Language::Python {
        for (name, _) in &returns {
            if needed.contains_key(name.as_str()) || surely_assigned(cx, name) {
                continue;
            }
            let Some(binding) = reaching_before(cx, name) else {
                let line = first_binding_inside(cx, name).map_or(0, |b| b.line);
                maybe_unassigned.push((name.clone(), line));
                continue;
            };
            let name = binding.name.as_str();
            order.push(name);
            needed.insert(
                name,
                Needed {
                    binding,
                    uses: Vec::new(),
                },
            );
        }
    }
    let mut flow = DataFlow {
        maybe_unassigned,
        ..DataFlow::default()
    };
    let scope_resolve = |name: &str, at: usize| cx.names.resolve(name, at).map(|b| b.pos);
    let self_type = match &cx.target.owner {
        Owner::Impl { type_name } | Owner::TraitImpl { type_name, .. } => Some(type_name.as_str()),
        _ => None,
    };
    let scope = TypeScope {
        root: root_of(cx.target.region),
        text: cx.text,
        self_type,
        resolve: &scope_resolve,
        elsewhere: cx.elsewhere,
    };
    let reassigned: HashSet<&str> = returns
        .iter()
        .filter(|(_, inside)| !inside)
        .map(|(n, _)| n.as_str())
        .collect();
    for name in order {
        let Some(need) = needed.get(name) else {
            continue;
        };
        flow.handled.insert(name.to_string());
        let parameter = match cx.lang {
            Language::Python => Parameter {
                name: name.to_string(),
                pass: Pass::Value,
                mutable: false,
                ty: None,
                line: need.binding.line,
            },
            Language::Rust => {
                rust_parameter(cx, &scope, need, reassigned.contains(name), &mut flow)
            }
        };
        flow.parameters.push(parameter);
    }
    for (name, declared_inside) in returns {
        flow.handled.insert(name.clone());
        let returned = handed_back(cx, &scope, &mut flow, name, declared_inside);
        flow.returns.push(returned);
    }
    flow
}

/// What the call hands back for `name`: its type, `mut`, and how it is bound (a `ref` binding
/// of the selection is returned by value, or recorded in `ref_returns` when it cannot be).
fn handed_back(
    cx: &Context<'_, '_>,
    scope: &TypeScope<'_, '_>,
    flow: &mut DataFlow,
    name: String,
    declared_inside: bool,
) -> Returned {
    // The binding whose value leaves the selection: the last one (shadowing may change
    // its type).
    let binding = if declared_inside {
        last_binding_inside(cx, &name)
    } else {
        first_binding_inside(cx, &name)
    };
    let line = binding.map_or(cx.selection.first_line + 1, |b| b.line);
    let (ty, mutable, root, raw) = match cx.lang {
        Language::Python => (None, false, None, false),
        Language::Rust => {
            let at = if declared_inside {
                binding.map(|b| b.pos)
            } else {
                flow.parameters
                    .iter()
                    .find(|p| p.name == name)
                    .and_then(|_| needed_binding_pos(cx, &name))
            };
            // A `ref` binding of the selection borrows a value of the new function: it
            // cannot be returned, whatever its type.
            let borrows_inside =
                declared_inside && at.is_some_and(|at| types::binds_by_ref(scope.root, at));
            let unref = at
                .filter(|_| borrows_inside)
                .and_then(|at| value_of_ref_let(cx, scope, &name, at));
            if let Some((pattern, ty)) = unref {
                flow.unref.push((pattern, name.clone()));
                return Returned {
                    name,
                    declared_inside,
                    mutable: false,
                    ty: Some(ty),
                    line,
                    by_ref: true,
                    root: None,
                    raw: false,
                };
            }
            let ty = at
                .filter(|_| !borrows_inside)
                .and_then(|at| types::binding_type(scope, at));
            if borrows_inside {
                flow.ref_returns.push((name.clone(), line));
            }
            // A `let` of the selection that shadows a parameter (`let rhs = rhs.iter();`) has
            // its own type, not the parameter's.
            let ty = ty.filter(|_| !borrows_inside).or_else(|| {
                if declared_inside && at.is_some() {
                    return None;
                }
                flow.parameters
                    .iter()
                    .find(|p| p.name == name)
                    .and_then(|p| p.ty.clone())
            });
            let mutable = declared_inside
                && binding
                    .is_some_and(|b| cx.lang.syntax().binding_is_mutable(cx.target.region, b.pos));
            let root = at
                .filter(|_| declared_inside)
                .and_then(|at| borrow_root::let_value_root(scope.root, scope.text, at))
                .map(str::to_string);
            let raw = at
                .filter(|_| declared_inside)
                .and_then(|at| borrow_root::let_value(scope.root, at))
                .is_some_and(|v| {
                    borrow_root::is_raw_borrow(scope.root, scope.text, v, scope.resolve)
                });
            (ty, mutable, root, raw)
        }
    };
    Returned {
        name,
        declared_inside,
        mutable,
        ty,
        line,
        by_ref: false,
        root,
        raw,
    }
}

/// `let ref name = value;` of the selection, `name` not read again in it: the pattern's bytes
/// and the type of the value, which the new function can return instead of the borrow.
fn value_of_ref_let(
    cx: &Context<'_, '_>,
    scope: &TypeScope<'_, '_>,
    name: &str,
    at: usize,
) -> Option<(std::ops::Range<usize>, String)> {
    let (pattern, value) = crate::lang::rust::statements::plain_ref_let(scope.root, at)?;
    let read_again = cx.names.all.iter().any(|o| {
        o.name == name
            && o.pos > at
            && cx.inside(o.pos)
            && cx.names.resolve(name, o.pos).is_some_and(|b| b.pos == at)
    });
    if read_again {
        return None;
    }
    let ty = types::expression_type(scope, value)?;
    Some((pattern, ty))
}

fn root_of(node: Node<'_>) -> Node<'_> {
    let mut root = node;
    while let Some(parent) = root.parent() {
        root = parent;
    }
    root
}

/// The binding outside the selection that a use inside it reads, when it is a local of the
/// enclosing function (or, at Python module level, a global the selection also assigns).
fn outside_binding<'a>(
    cx: &'a Context<'_, '_>,
    use_: &Occurrence,
    module_level: bool,
) -> Option<&'a Occurrence> {
    let name = use_.name.as_str();
    let region = cx.target.region.byte_range();
    let syntax = cx.lang.syntax();
    let resolved = cx.names.resolve(name, use_.pos);
    let binding = match resolved {
        Some(b) if !cx.inside(b.pos) => Some(b),
        // Python: a binding of the selection that may not run before this use (a branch).
        Some(b) if cx.lang == Language::Python && !runs_before(cx, b, use_) => {
            reaching_before(cx, name)
        }
        Some(_) => None,
        // Python: a local bound later in the function (a loop) is still a local.
        None if cx.lang == Language::Python => cx
            .names
            .bindings_of(name)
            .find(|o| o.scope == region && !cx.inside(o.pos)),
        None => None,
    }?;
    if cx.lang == Language::Rust && syntax.binds_item(cx.target.region, binding.pos) {
        return None;
    }
    if module_level {
        // Module names are globals the new function sees, unless it assigns them too.
        let assigned = cx
            .names
            .bindings_of(name)
            .any(|o| o.scope == region && cx.inside(o.pos));
        return assigned.then_some(binding);
    }
    if cx.lang == Language::Python && binding.scope != region {
        return None;
    }
    Some(binding)
}

/// Python: the last binding of `name` in the region's own scope before the selection.
fn reaching_before<'a>(cx: &'a Context<'_, '_>, name: &str) -> Option<&'a Occurrence> {
    let region = cx.target.region.byte_range();
    cx.names
        .bindings_of(name)
        .filter(|o| o.scope == region && o.pos < cx.selection.moved.start)
        .last()
}

/// Whether `binding` (inside the selection, before `use_`) surely runs before it: it always runs
/// when its selected statement completes, and that statement ends before the use.
fn runs_before(cx: &Context<'_, '_>, binding: &Occurrence, use_: &Occurrence) -> bool {
    let syntax = cx.lang.syntax();
    let Some(statement) = statement_of(cx, binding.pos) else {
        return true;
    };
    if statement.end_byte() > use_.pos {
        // The same statement (`x = x + 1` reads first; a loop may read it before it is bound).
        return binding.at < use_.pos
            && syntax
                .loop_around(node_at(cx, use_.pos), statement)
                .is_none();
    }
    syntax.always_runs(node_at(cx, binding.pos), statement)
}

/// Whether the selection surely assigns `name`: one of its bindings always runs.
fn surely_assigned(cx: &Context<'_, '_>, name: &str) -> bool {
    let syntax = cx.lang.syntax();
    cx.names
        .bindings_of(name)
        .filter(|o| cx.inside(o.pos))
        .any(|o| statement_of(cx, o.pos).is_some_and(|s| syntax.always_runs(node_at(cx, o.pos), s)))
}

fn node_at<'t>(cx: &Context<'_, 't>, at: usize) -> Node<'t> {
    cx.target
        .region
        .descendant_for_byte_range(at, at + 1)
        .unwrap_or(cx.target.region)
}

/// The selected statement holding byte `at`.
fn statement_of<'t>(cx: &Context<'_, 't>, at: usize) -> Option<Node<'t>> {
    cx.selection
        .statements
        .iter()
        .copied()
        .find(|s| s.start_byte() <= at && at < s.end_byte())
}

fn first_binding_inside<'a>(cx: &'a Context<'_, '_>, name: &str) -> Option<&'a Occurrence> {
    cx.names
        .all
        .iter()
        .find(|o| o.name == name && cx.inside(o.pos) && matches!(o.role, Role::Bind | Role::Write))
}

fn last_binding_inside<'a>(cx: &'a Context<'_, '_>, name: &str) -> Option<&'a Occurrence> {
    cx.names
        .bindings_of(name)
        .filter(|o| cx.inside(o.pos) && (cx.lang == Language::Python || !nested_scope(cx, o)))
        .last()
}

fn needed_binding_pos(cx: &Context<'_, '_>, name: &str) -> Option<usize> {
    let use_ = cx.names.all.iter().find(|o| {
        o.name == name && cx.inside(o.pos) && matches!(o.role, Role::Read | Role::Write)
    })?;
    cx.names.resolve(name, use_.pos).map(|b| b.pos)
}

/// The names the selection binds or assigns that code after it reads (or code before it in a
/// loop around it, on the next turn), and at Python module level every global it assigns:
/// (name, bound by the selection itself), in the order the selection binds them.
fn returned(
    cx: &Context<'_, '_>,
    skip: &dyn Fn(&str) -> bool,
    module_level: bool,
) -> Vec<(String, bool)> {
    let syntax = cx.lang.syntax();
    let region = cx.target.region;
    let first = cx.selection.statements.first().copied();
    let around = first.and_then(|s| syntax.loop_around(s, region));
    let later = |o: &Occurrence| {
        o.pos >= cx.selection.moved.end
            || around.is_some_and(|l| l.start_byte() <= o.pos && o.pos < cx.selection.moved.start)
    };
    // What the selection binds or assigns, by name: (first position, bound inside).
    let mut written: Vec<(&str, usize, bool)> = Vec::new();
    for o in cx.names.all.iter().filter(|o| cx.inside(o.pos)) {
        let name = o.name.as_str();
        if skip(name) || written.iter().any(|(n, _, _)| *n == name) {
            continue;
        }
        match (o.role, cx.lang) {
            (Role::Bind, Language::Python) if o.scope == region.byte_range() => {
                written.push((name, o.pos, true))
            }
            (Role::Bind, Language::Rust)
                if !syntax.binds_item(region, o.pos) && !nested_scope(cx, o) =>
            {
                written.push((name, o.pos, true))
            }
            (Role::Write, Language::Rust) => {
                let outside = cx
                    .names
                    .resolve(name, o.pos)
                    .is_some_and(|b| !cx.inside(b.pos));
                if outside {
                    written.push((name, o.pos, false));
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    for (name, _, bound_inside) in written {
        let read_later = cx.names.all.iter().any(|o| {
            o.name == name
                && matches!(o.role, Role::Read | Role::Write)
                && later(o)
                && reaches(cx, o, bound_inside)
        });
        if read_later || module_level {
            // Python: a name the selection binds but that existed before is reassigned.
            let inside = match cx.lang {
                Language::Rust => bound_inside,
                Language::Python => true,
            };
            out.push((name.to_string(), inside));
        }
    }
    out
}

/// Rust: a `let` of a block nested in the selection (or a closure, a loop variable) is not
/// visible after it.
fn nested_scope(cx: &Context<'_, '_>, binding: &Occurrence) -> bool {
    binding.scope.start > cx.selection.block.start_byte()
        || binding.scope.end < cx.selection.block.end_byte()
}

/// Whether the read `o` after the selection can see what the selection bound or assigned.
fn reaches(cx: &Context<'_, '_>, o: &Occurrence, bound_inside: bool) -> bool {
    let Some(binding) = cx.names.resolve(&o.name, o.pos) else {
        // Python: a read before any binding in a loop around the selection.
        return cx.lang == Language::Python;
    };
    if cx.inside(binding.pos) {
        return true;
    }
    match cx.lang {
        // An assignment of the selection writes the binding the read sees.
        Language::Rust => !bound_inside,
        // A later binding that may not run (a branch), or a binding before the selection in
        // a loop around it.
        Language::Python => {
            binding.pos < cx.selection.moved.start
                || !super::diagnose::runs_after_selection(cx, binding)
        }
    }
}

/// Methods of the standard library that take `self` by value (`opt.unwrap()`,
/// `v.into_iter()`): a local they are called on is moved, so it is passed by value.
const CONSUMING_METHODS: &[&str] = &[
    "unwrap",
    "expect",
    "unwrap_or",
    "unwrap_or_default",
    "unwrap_or_else",
    "unwrap_err",
    "expect_err",
    "ok",
    "err",
    "ok_or",
    "ok_or_else",
    "map",
    "map_err",
    "map_or",
    "map_or_else",
    "and_then",
    "or_else",
    "unzip",
    "flatten",
];

/// Whether the method called right after byte `end` (`.name(`) consumes its receiver.
fn consumes(text: &str, end: usize) -> bool {
    let Some(rest) = text
        .get(end..)
        .and_then(|r| r.trim_start().strip_prefix('.'))
    else {
        return false;
    };
    let name: String = rest
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    name.starts_with("into_") || name == "into" || CONSUMING_METHODS.contains(&name.as_str())
}

/// Whether the name ending at `end` is the base of a field or index place (`x.f`, `x[i]`; not
/// the range `x..y`).
fn is_place_base(text: &str, end: usize) -> bool {
    let rest = text.get(end..).unwrap_or("").trim_start();
    rest.starts_with('[') || rest.starts_with('.') && !rest.starts_with("..")
}

/// Whether code after the selection (or any code, when a loop runs it again) uses `binding`.
fn used_after(cx: &Context<'_, '_>, binding: &Occurrence) -> bool {
    let first = cx.selection.statements.first().copied();
    let in_loop =
        first.is_some_and(|s| cx.lang.syntax().loop_around(s, cx.target.region).is_some());
    in_loop
        || cx.names.all.iter().any(|o| {
            o.name == binding.name
                && o.pos >= cx.selection.moved.end
                && matches!(o.role, Role::Read | Role::Write)
                && cx
                    .names
                    .resolve(&o.name, o.pos)
                    .is_some_and(|b| b.pos == binding.pos)
        })
}

/// How a Rust local is passed, from its type and its uses in the selection; records the `*`
/// the body needs when it is passed by reference.
fn rust_parameter(
    cx: &Context<'_, '_>,
    scope: &TypeScope<'_, '_>,
    need: &Needed<'_>,
    reassigned: bool,
    flow: &mut DataFlow,
) -> Parameter {
    let syntax = cx.lang.syntax();
    let ty = types::binding_type(scope, need.binding.pos);
    let uses: Vec<_> = need
        .uses
        .iter()
        .map(|u| {
            let mut use_ = syntax.local_use(cx.target.region, u.pos, cx.text);
            if use_.kind == UseKind::MethodCall && consumes(cx.text, u.pos + u.name.len()) {
                use_.kind = UseKind::Value;
            }
            (u, use_)
        })
        .collect();
    let has = |kinds: &[UseKind]| uses.iter().any(|(_, u)| kinds.contains(&u.kind));
    let binding_mut = syntax.binding_is_mutable(cx.target.region, need.binding.pos);
    let mutated_through = has(&[UseKind::AssignThrough, UseKind::BorrowMut])
        || binding_mut && has(&[UseKind::MethodCall]);
    // A plain closure (`impl Fn(..)`, neither `move` nor mutating) is `Copy`.
    let copy = ty.as_deref().is_some_and(|t| {
        types::is_copy(t)
            || closures::is_plain_closure_type(t)
            || std_types::is_copy(scope.root, scope.text, t)
    });
    let is_reference = ty
        .as_deref()
        .is_some_and(|t| t.trim_start().starts_with('&'));
    // An `impl FnOnce` the selection calls moves into the new function, when nothing after
    // the selection needs it.
    let moved_closure =
        ty.as_deref().is_some_and(closures::is_once_closure_type) && !used_after(cx, need.binding);
    let (pass, mutable) = if reassigned || has(&[UseKind::Assign]) {
        (Pass::Value, true)
    } else if is_reference || moved_closure {
        (Pass::Value, false)
    } else if has(&[UseKind::Value]) && !copy {
        (Pass::Value, mutated_through)
    } else if mutated_through && (!copy || has(&[UseKind::AssignThrough, UseKind::BorrowMut])) {
        (Pass::RefMut, false)
    } else if copy {
        (Pass::Value, false)
    } else {
        (Pass::Ref, false)
    };
    if pass != Pass::Value
        && ty.as_deref().is_some_and(closures::is_once_closure_type)
        && has(&[UseKind::MethodCall])
    {
        let binding = &need.binding;
        flow.once_borrowed
            .push((binding.name.clone(), binding.line));
    }
    if pass != Pass::Value {
        for (use_, kind) in &uses {
            let deref = match kind.kind {
                // `&mut x.f` / `&mut x[i]` borrow through `x`, and auto-deref reaches the place:
                // a `*` there would dereference the field (`&mut *x.f`).
                UseKind::BorrowMut => !is_place_base(cx.text, use_.pos + use_.name.len()),
                UseKind::Read | UseKind::Borrow | UseKind::Value => true,
                _ => kind.shorthand,
            };
            if deref {
                flow.derefs.push(Deref {
                    at: use_.pos,
                    len: use_.name.len(),
                    shorthand: kind.shorthand,
                });
            }
        }
    }
    Parameter {
        name: need.binding.name.clone(),
        pass,
        mutable,
        ty,
        line: need.binding.line,
    }
}
