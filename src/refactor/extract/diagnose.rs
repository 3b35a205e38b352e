//! The findings of extract function: where this very extraction changes or breaks the code —
//! names the selection needs from outside, names it binds for later code, control flow that
//! would leave the wrong function, `self` without a receiver, a Rust tail expression. Each
//! finding is located on a line of the file as it is now. Best effort, syntactic. Pure.

use std::collections::HashSet;

use tree_sitter::Node;

use super::wording as w;
use crate::lang::Language;
use crate::lang::names::{Names, Occurrence, Role};
use crate::lang::syntax::{BlockOwner, FlowKind, Owner};
use crate::refactor::Finding;

use super::destination::Destination;
use super::selection::Selection;

/// What the analysis found, and whether the new function must be `async`.
#[derive(Debug, Clone, Default)]
pub struct Diagnosis {
    pub findings: Vec<Finding>,
    /// 1-based line of the first `await` that makes the new function `async`.
    pub awaits_at: Option<usize>,
    /// Python: code that Python itself would refuse to compile after the refactor (`break`
    /// outside a loop): (byte of it now, what is wrong). The caller reports them as syntax
    /// errors of the result, so they are not written unless the user insists.
    pub python_syntax: Vec<(usize, String)>,
}

/// What the data flow already took care of, so the findings do not report it.
#[derive(Debug, Clone, Default)]
pub struct Handled {
    /// Names passed in or returned.
    pub names: HashSet<String>,
    /// The new function returns what the enclosing one does: `?` still works.
    pub question_marks: bool,
    /// The selection ends with a `return`, and the call is returned.
    pub final_return: bool,
    /// The new function returns the selection's tail value.
    pub tail: bool,
    /// Rust generics of the enclosing function the new one declares too.
    pub generics: Vec<String>,
    /// Python: the call is `yield from`, so the selection's `yield`s still reach the caller.
    pub yields: bool,
    /// Rust: the selection's jumps to loops outside it come back through the new function's
    /// value, and the call site jumps.
    pub jumps: bool,
}

#[derive(Clone, Copy)]
pub struct Context<'a, 't> {
    pub lang: Language,
    pub text: &'a str,
    pub file: &'a str,
    pub selection: &'a Selection<'t>,
    pub target: &'a Destination<'t>,
    pub names: &'a Names,
    pub new_name: &'a str,
    pub handled: &'a Handled,
    /// Rust: the return type of a method or the type of a field declared in another file of
    /// the project (see [`crate::lang::rust::types::TypeScope`]).
    pub elsewhere: Option<&'a dyn Fn(crate::lang::rust::types::Elsewhere<'_>) -> Option<String>>,
}

pub fn diagnose(cx: &Context<'_, '_>) -> Diagnosis {
    let mut diagnosis = Diagnosis::default();
    names_from_outside(cx, &mut diagnosis.findings);
    names_read_after(cx, &mut diagnosis.findings);
    receiver_findings(cx, &mut diagnosis.findings);
    type_parameters(cx, &mut diagnosis.findings);
    control_flow(cx, &mut diagnosis);
    if let Some(line) = diagnosis.awaits_at {
        diagnosis.findings.push(Finding::info(
            cx.file,
            line,
            w::selection_awaits(line, cx.new_name),
        ));
    }
    nonlocal_bindings(cx, &mut diagnosis);
    tail_expression(cx, &mut diagnosis.findings);
    notes(cx, &mut diagnosis.findings);
    diagnosis
}

fn line(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

impl Context<'_, '_> {
    pub(super) fn inside(&self, at: usize) -> bool {
        self.selection.contains(at)
    }

    fn after(&self, at: usize) -> bool {
        at >= self.selection.moved.end
    }

    fn warning(&self, line: usize, message: String) -> Finding {
        Finding::warning(self.file, line, message)
    }

    /// Python names the enclosing function itself declares `global`/`nonlocal`:
    /// (name, line, inside the selection).
    pub(super) fn declared(&self) -> Vec<(&str, usize, bool)> {
        let region = self.target.region.byte_range();
        self.names
            .all
            .iter()
            .filter(|o| matches!(o.role, Role::Global | Role::Nonlocal) && o.scope == region)
            .map(|o| (o.name.as_str(), o.line, self.inside(o.pos)))
            .collect()
    }

    pub(super) fn is_receiver(&self, name: &str) -> bool {
        self.target.receiver.is_some() && self.target.receiver_name.as_deref() == Some(name)
    }
}

/// Names the selection reads (or assigns, in Rust) whose binding is outside it.
fn names_from_outside(cx: &Context<'_, '_>, findings: &mut Vec<Finding>) {
    let declared = cx.declared();
    let module_level = cx.target.function.is_none();
    let mut reported = HashSet::new();
    for use_ in cx
        .names
        .all
        .iter()
        .filter(|o| matches!(o.role, Role::Read | Role::Write | Role::Type) && cx.inside(o.pos))
    {
        let name = use_.name.as_str();
        if reported.contains(name)
            || cx.is_receiver(name)
            || cx.handled.names.contains(name)
            || declared.iter().any(|(n, _, _)| *n == name)
        {
            continue;
        }
        if use_.role == Role::Type {
            // Rust: a type, path or macro named by an item declared in the function's body,
            // outside the selection.
            if let Some(item) = cx
                .names
                .resolve(name, use_.pos)
                .filter(|b| !cx.inside(b.pos))
            {
                reported.insert(name);
                findings.push(cx.warning(
                    use_.line,
                    w::uses_an_inner_item(name, item.line, &cx.target.function_name, cx.new_name),
                ));
            }
            continue;
        }
        if name == "self" && cx.target.receiver.is_none() && cx.lang == Language::Rust {
            // Reported by `receiver_findings`.
            continue;
        }
        let binding = cx.names.resolve(name, use_.pos).or_else(|| {
            // Python: a local bound later in the function (a loop) is still a local.
            (cx.lang == Language::Python)
                .then(|| {
                    cx.names
                        .bindings_of(name)
                        .find(|o| o.scope == cx.target.region.byte_range() && !cx.inside(o.pos))
                })
                .flatten()
        });
        let Some(binding) = binding.filter(|b| !cx.inside(b.pos)) else {
            continue;
        };
        if module_level {
            // Module names are globals: the new function sees them, unless it assigns the name
            // too, which makes it a local of the new function.
            let module = cx.target.region.byte_range();
            let assigned = cx
                .names
                .bindings_of(name)
                .find(|o| o.scope == module && cx.inside(o.pos));
            if let Some(assigned) = assigned {
                reported.insert(name);
                findings.push(cx.warning(
                    use_.line,
                    w::read_before_assignment(name, assigned.line, cx.new_name),
                ));
            }
            continue;
        }
        reported.insert(name);
        let verb = if use_.role == Role::Write {
            "assigns"
        } else {
            "reads"
        };
        let message = if name == "self" && cx.target.receiver.is_none() {
            w::selection_uses_self(use_.line, cx.new_name)
        } else if binding.parameter {
            w::parameter_of_the_function(verb, name, &cx.target.function_name, binding.line)
        } else {
            w::bound_outside(verb, name, binding.line)
        };
        findings.push(cx.warning(use_.line, message));
    }
}

/// Names bound in the selection and read after it: the new function keeps them to itself.
fn names_read_after(cx: &Context<'_, '_>, findings: &mut Vec<Finding>) {
    let declared = cx.declared();
    let mut reported = HashSet::new();
    // Rust items (a nested `fn`, a `const`) are visible in their whole block: a use before the
    // selection loses them too.
    let item_before = |o: &Occurrence| {
        cx.lang == Language::Rust
            && o.pos < cx.selection.moved.start
            && cx
                .names
                .resolve(&o.name, o.pos)
                .is_some_and(|b| cx.inside(b.pos) && b.at < cx.selection.moved.start)
    };
    for read in cx.names.all.iter().filter(|o| {
        matches!(o.role, Role::Read | Role::Write | Role::Type)
            && (cx.after(o.pos) || item_before(o))
    }) {
        let name = read.name.as_str();
        if reported.contains(name)
            || cx.handled.names.contains(name)
            || declared.iter().any(|(n, _, _)| *n == name)
        {
            continue;
        }
        let Some(mut binding) = cx.names.resolve(name, read.pos) else {
            continue;
        };
        if !cx.inside(binding.pos) {
            // Python: the last binding before the read may sit in another branch (`else:`)
            // and not run; the selection's binding then reaches the read.
            let reaching = (cx.lang == Language::Python && !runs_after_selection(cx, binding))
                .then(|| {
                    cx.names
                        .bindings_of(name)
                        .filter(|o| o.scope == binding.scope && cx.inside(o.pos))
                        .last()
                })
                .flatten();
            match reaching {
                Some(inside) => binding = inside,
                None => continue,
            }
        }
        reported.insert(name);
        let verb = match cx.lang {
            Language::Rust => "declared",
            Language::Python => "assigned",
        };
        let use_ = if read.role == Role::Write {
            "assigned"
        } else {
            "read"
        };
        let when = if cx.after(read.pos) {
            "after"
        } else {
            "before"
        };
        findings.push(cx.warning(
            binding.line,
            w::used_after_the_selection(name, verb, use_, when, read.line),
        ));
    }
    // Python: assigning a name the enclosing function declares `global` outside the selection.
    for (name, declared_line, inside) in declared {
        if inside {
            continue;
        }
        if let Some(assigned) = cx.names.bindings_of(name).find(|o| cx.inside(o.pos)) {
            findings.push(cx.warning(
                assigned.line,
                w::declaration_outside(name, declared_line, cx.new_name),
            ));
        }
    }
}

/// Whether a binding after the selection surely runs once the selection has: it is a statement
/// of a block that also holds the selection (not in a branch, a loop body or a handler of its own).
pub(super) fn runs_after_selection(cx: &Context<'_, '_>, binding: &Occurrence) -> bool {
    if binding.pos < cx.selection.moved.end {
        return true;
    }
    let Some(node) = cx
        .target
        .region
        .descendant_for_byte_range(binding.pos, binding.pos)
    else {
        return true;
    };
    let selected = cx.selection.block.start_byte();
    match cx.lang.syntax().enclosing_block(node) {
        Some(parent) => {
            parent.start_byte() <= selected && cx.selection.block.end_byte() <= parent.end_byte()
        }
        None => true,
    }
}

fn receiver_findings(cx: &Context<'_, '_>, findings: &mut Vec<Finding>) {
    let self_used = cx
        .names
        .all
        .iter()
        .find(|o| o.name == "self" && o.role == Role::Read && cx.inside(o.pos));
    if let Some(use_) =
        self_used.filter(|_| cx.lang == Language::Rust && cx.target.receiver.is_none())
    {
        findings.push(cx.warning(use_.line, w::selection_uses_self(use_.line, cx.new_name)));
    }
    if cx.target.receiver_by_value {
        let used_after = cx
            .names
            .all
            .iter()
            .find(|o| o.name == "self" && o.role == Role::Read && cx.after(o.pos));
        if let Some(used) = used_after {
            findings.push(cx.warning(
                cx.selection.first_line + 1,
                w::self_moved(
                    cx.new_name,
                    cx.target.receiver.as_deref().unwrap_or("self"),
                    &cx.target.function_name,
                    used.line,
                ),
            ));
        }
    }
}

fn type_parameters(cx: &Context<'_, '_>, findings: &mut Vec<Finding>) {
    let mut reported = HashSet::new();
    for use_ in cx
        .names
        .all
        .iter()
        .filter(|o| o.role == Role::Type && cx.inside(o.pos))
    {
        if cx.target.type_parameters.contains(&use_.name)
            && !cx.handled.generics.contains(&use_.name)
            && reported.insert(use_.name.as_str())
        {
            findings.push(cx.warning(
                use_.line,
                w::uses_a_type_parameter(&use_.name, &cx.target.function_name, cx.new_name),
            ));
        }
    }
}

/// Where control flow or effects would change meaning in the new function.
fn control_flow(cx: &Context<'_, '_>, diagnosis: &mut Diagnosis) {
    let syntax = cx.lang.syntax();
    for statement in &cx.selection.statements {
        for flow in syntax.control_flow(*statement, cx.text) {
            // Flow inside a function, closure or class of the selection stays inside it (a
            // `break` finds its loop, or not, on its own).
            let contained = flow.boundary.is_some_and(|b| cx.inside(b));
            if contained && !matches!(flow.kind, FlowKind::Break | FlowKind::Continue) {
                continue;
            }
            let at = line(flow.node);
            match flow.kind {
                FlowKind::Return if cx.handled.final_return => {}
                FlowKind::Return => diagnosis
                    .findings
                    .push(cx.warning(at, w::return_inside(at))),
                FlowKind::Break | FlowKind::Continue => {
                    let keyword = if flow.kind == FlowKind::Break {
                        "break"
                    } else {
                        "continue"
                    };
                    if flow.target.is_some_and(|t| cx.inside(t.start_byte())) || cx.handled.jumps {
                        continue;
                    }
                    match cx.lang {
                        Language::Rust => {
                            let what = flow
                                .label
                                .map_or_else(|| "a loop".to_string(), |l| format!("`{l}`"));
                            diagnosis.findings.push(
                                Finding::error(cx.file, at, w::jump_outside(keyword, at, &what))
                                    .with_kind(w::JUMP_OUTSIDE),
                            );
                        }
                        Language::Python => {
                            let where_ = flow
                                .target
                                .map_or_else(String::new, |t| w::loop_stays_behind(line(t)));
                            diagnosis.python_syntax.push((
                                flow.node.start_byte(),
                                format!("`{keyword}` outside a loop{where_}"),
                            ));
                        }
                    }
                }
                FlowKind::Try if cx.handled.question_marks => {}
                FlowKind::Try => diagnosis.findings.push(
                    Finding::error(cx.file, at, w::question_mark_inside(at, cx.new_name))
                        .with_kind(w::JUMP_OUTSIDE),
                ),
                FlowKind::Await => {
                    diagnosis.awaits_at.get_or_insert(at);
                }
                FlowKind::Yield if cx.handled.yields => {}
                FlowKind::Yield => diagnosis.findings.push(
                    cx.warning(at, w::yield_inside(at, cx.new_name))
                        .with_kind(w::JUMP_OUTSIDE),
                ),
                FlowKind::Nonlocal if cx.target.owner != Owner::Function => {
                    diagnosis.python_syntax.push((
                        flow.node.start_byte(),
                        w::nonlocal_without_an_outer_function(cx.new_name),
                    ));
                }
                FlowKind::Nonlocal => {}
            }
        }
    }
}

/// Python `nonlocal x` in a nested function needs a binding of `x` in an enclosing function:
/// moving the only binding into the new function, or moving the nested function away from it,
/// leaves the declaration without one.
fn nonlocal_bindings(cx: &Context<'_, '_>, diagnosis: &mut Diagnosis) {
    let region = cx.target.region.byte_range();
    let mut reported = HashSet::new();
    for declaration in cx
        .names
        .all
        .iter()
        .filter(|o| o.role == Role::Nonlocal && o.scope != region)
    {
        let name = declaration.name.as_str();
        let mut bindings = cx
            .names
            .bindings_of(name)
            .filter(|b| b.scope == region)
            .peekable();
        if bindings.peek().is_none() || !reported.insert(name) {
            continue;
        }
        let (inside, outside): (Vec<_>, Vec<_>) = bindings.partition(|b| cx.inside(b.pos));
        if cx.inside(declaration.pos) && inside.is_empty() {
            let message = w::nonlocal_moves(name, cx.new_name, &cx.target.function_name);
            if cx.target.owner == Owner::Function {
                diagnosis
                    .findings
                    .push(cx.warning(declaration.line, w::refers_elsewhere(&message, name)));
            } else {
                diagnosis
                    .python_syntax
                    .push((declaration.pos, w::has_no_binding(&message)));
            }
        } else if !cx.inside(declaration.pos) && outside.is_empty() {
            diagnosis.python_syntax.push((
                declaration.pos,
                w::nonlocal_loses_its_binding(name, &cx.target.function_name, cx.new_name),
            ));
        }
    }
}

/// A Rust selection ending with the block's value expression: the call takes its place as the
/// value, and the new function returns nothing.
fn tail_expression(cx: &Context<'_, '_>, findings: &mut Vec<Finding>) {
    let Some(tail) = cx.selection.tail.filter(|_| !cx.handled.tail) else {
        return;
    };
    let owner = cx.lang.syntax().block_owner(cx.selection.block);
    let is_body = owner == BlockOwner::FunctionBody;
    let unit = match owner {
        BlockOwner::FunctionBody => !cx.target.returns_value,
        BlockOwner::Loop | BlockOwner::IfWithoutElse => true,
        BlockOwner::Other => false,
    };
    let l = line(tail);
    if unit {
        findings.push(Finding::info(
            cx.file,
            l,
            w::ends_with_a_tail_statement(l, cx.new_name),
        ));
    } else if is_body {
        findings.push(cx.warning(
            l,
            w::ends_with_the_return_value(&cx.target.function_name, l, cx.new_name),
        ));
    } else {
        findings.push(cx.warning(l, w::ends_with_a_block_value(l, cx.new_name)));
    }
}

/// Notes on choices the refactor made for this selection.
fn notes(cx: &Context<'_, '_>, findings: &mut Vec<Finding>) {
    let first = cx.selection.first_line + 1;
    if let Owner::TraitImpl {
        type_name,
        trait_name,
    } = &cx.target.owner
    {
        findings.push(Finding::info(
            cx.file,
            first,
            w::new_inherent_impl(trait_name, cx.new_name, type_name),
        ));
        if !cx.target.type_defined_here {
            findings.push(cx.warning(first, w::type_defined_elsewhere(type_name)));
        }
    }
    if cx.target.is_unsafe {
        findings.push(Finding::info(
            cx.file,
            first,
            w::inside_an_unsafe_fn(&cx.target.function_name, cx.new_name),
        ));
    } else if let Some(block_line) = cx.target.unsafe_block {
        findings.push(Finding::info(
            cx.file,
            first,
            w::inside_an_unsafe_block(block_line, cx.new_name),
        ));
    }
    let docstring = cx.selection.statements.first().filter(|s| {
        cx.target.function.is_some() && cx.lang.syntax().is_docstring(cx.selection.block, **s)
    });
    if let Some(docstring) = docstring {
        findings.push(Finding::info(
            cx.file,
            line(*docstring),
            w::docstring_moves(&cx.target.function_name, cx.new_name),
        ));
    }
}
