//! Writing one inlined Python call: the assignments binding the arguments in the order Python
//! evaluates them, the body re-indented at the statement's indentation with its final
//! `return`s turned into the statement's own ending, or, deep in an expression, the returned
//! expression with the assignments hoisted before the statement; and the findings about names
//! the inlined code shares with the caller.

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::Node;

use super::super::memo::ScopeNames;
use super::super::wording as w;
use super::super::{Facts, Inlined, Parsed, mentions_word};
use super::{First, Kind, PythonCallee, SiteKind};
use crate::edit::TextEdit;
use crate::lang::calls::CallSite;
use crate::lang::finder::{NodeFinder, Parents};
use crate::lang::python::body::{self as py_body, Context, Param, ParamKind, Scope};
use crate::lang::python::names as py_names;
use crate::refactor::Finding;
use crate::text::surgery::{
    Line, Reindent, Splice, base_indent, cut_lines, ends_its_line, line_content_end, line_start,
    starts_its_line, with_line_endings,
};

pub(super) fn inline<'t>(
    target: &PythonCallee<'_>,
    file: &'t Parsed<'_>,
    facts: &Facts,
    call: &CallSite,
    finder: &mut NodeFinder<'t>,
) -> Result<Inlined, String> {
    target.inline_call(file, facts, call, finder)
}

/// Refuses expression contexts where evaluating the arguments before the statement is wrong:
/// lambdas and comprehensions (their names do not exist outside), `while` conditions
/// (evaluated again each turn), and conditionally evaluated parts unless every argument is a
/// plain name or literal.
fn expression_context<'t>(
    call: Node<'t>,
    statement: Node<'t>,
    parents: Parents<'_, 't>,
    bindings: &[Binding],
) -> Result<(), String> {
    match py_body::expression_context(call, statement, parents) {
        Err(place) => Err(w::python_no_statements(place)),
        Ok(Context::Conditional(place)) => {
            match bindings.iter().find(|b| !is_simple_text(&b.value)) {
                Some(b) => Err(w::python_conditional(place, b.value.trim())),
                None => Ok(()),
            }
        }
        Ok(Context::Plain) => Ok(()),
    }
}

impl PythonCallee<'_> {
    fn inline_call<'t>(
        &self,
        file: &'t Parsed<'_>,
        facts: &Facts,
        call: &CallSite,
        finder: &mut NodeFinder<'t>,
    ) -> Result<Inlined, String> {
        let text = file.text();
        let node = file
            .lang
            .syntax()
            .call_at(finder, &call.range)
            .ok_or(w::NOT_WHERE_PARSED)?;
        // The call's ancestors, read off the finder's path (no walk from the root per step).
        let parents = finder.parents();
        let site = self
            .site_kind(file, facts, node, call)?
            .ok_or(w::NOT_THIS_FUNCTION)?;
        let statement = py_body::statement_with(node, parents).ok_or(w::PYTHON_NOT_IN_STATEMENT)?;
        let line = call.line;
        if !starts_its_line(text, statement.start_byte()) {
            return Err(w::PYTHON_NOT_OWN_LINE.into());
        }
        if !ends_its_line(text, statement.end_byte(), "#") {
            return Err(w::PYTHON_SHARED_LINE.into());
        }
        let same_class = self.class_name().is_some_and(|class| {
            py_body::enclosing_function_with(node, parents)
                .and_then(|f| py_body::class_of_function(f, text))
                .is_some_and(|(c, _)| c == class)
        });
        if let (Some(class_line), false) = (self.class_bound, same_class) {
            return Err(w::python_class_bound(
                class_line,
                self.def.path(),
                self.class_name().unwrap_or("?"),
            ));
        }

        let caller = py_body::enclosing_function_with(node, parents);
        let caller_scope = caller
            .and_then(py_body::body_of)
            .unwrap_or(file.tree.root_node());
        let scope = facts.memo.scope(caller_scope.id(), || {
            caller_names(caller, caller_scope, text)
        });
        let mut bindings = self.bindings(text, call, &site, caller, &scope.read)?;
        // Temporaries that would overwrite or shadow the caller's names get fresh names.
        let renames = self.fresh_temporaries(&bindings, &scope, caller.is_none());
        let renamed = |name: &str| -> String {
            renames
                .iter()
                .find(|(old, _)| old == name)
                .map_or_else(|| name.to_string(), |(_, new)| new.clone())
        };
        for b in &mut bindings {
            b.name = renamed(&b.name);
        }
        bindings.retain(|b| b.value.trim() != b.name);

        let indent = crate::text::indentation_at(text, statement.start_byte()).to_string();
        let eol = file.style.line_ending;
        let mut findings = vec![
            Finding::info(file.path(), line, w::inlined(&self.name, line))
                .with_kind("inline.call_inlined"),
        ];
        for b in bindings
            .iter()
            .filter(|b| b.default && !is_literal_text(&b.value))
        {
            findings.push(Finding::warning(
                file.path(),
                line,
                w::python_default_moved(b.value.trim(), &b.name, line, &self.name),
            ));
        }
        let assigned: BTreeSet<String> = bindings
            .iter()
            .map(|b| b.name.clone())
            .chain(self.body_bound.iter().map(|n| renamed(n)))
            .collect();
        let names = || {
            assigned
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        };
        match py_body::scope_of_statement(statement, text, parents) {
            Scope::Class(class) if !assigned.is_empty() => {
                return Err(w::python_class_attributes(&class, &names()));
            }
            Scope::Module if !assigned.is_empty() => findings.push(Finding::info(
                file.path(),
                line,
                w::python_module_globals(&names()),
            )),
            _ => {}
        }
        findings.extend(self.scope_findings(file, facts, &assigned, caller, &scope, call));
        let binding_lines = binding_statements(&bindings);

        if let Some((prefix, return_needed)) = py_body::statement_level(node, statement, text) {
            let lines = self.statement_body(&prefix, return_needed, &renames);
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
                    with_line_endings(&replacement, eol),
                )],
                claim: statement.byte_range(),
                findings,
                bound_arguments: !bindings.is_empty(),
                renamed: renames,
            });
        }

        // Inside a larger expression: only a single `return expr` body can become an expression.
        let Some(value) = self.single_return.clone() else {
            return Err(w::python_not_single_return(&self.name));
        };
        expression_context(node, statement, parents, &bindings)?;
        let value_text = with_line_endings(&self.renamed_text(value.clone(), &renames), eol);
        let shape = py_body::value_shape(&self.def.tree, &value);
        let fits = py_body::delimits(node, parents) && shape.bare_in_slot;
        let expression = if shape.atom || fits {
            value_text
        } else {
            format!("({value_text})")
        };
        let mut edits = vec![TextEdit::new(call.range.clone(), expression)];
        if !binding_lines.is_empty() {
            let hoisted: String = binding_lines
                .iter()
                .map(|b| format!("{indent}{}{eol}", with_line_endings(b, eol)))
                .collect();
            edits.push(TextEdit::insert(
                line_start(text, statement.start_byte()),
                hoisted,
            ));
            findings.push(Finding::info(file.path(), line, w::python_hoisted(line)));
        }
        Ok(Inlined {
            edits,
            claim: statement.byte_range(),
            findings,
            bound_arguments: !bindings.is_empty(),
            renamed: renames,
        })
    }

    /// The temporaries of this call (parameters bound to an argument, names the body assigns)
    /// that the caller's scope also has, each with a fresh name: one none of the caller, the
    /// body or the definition's module uses. A name a nested scope of the body binds again keeps
    /// its name (the overwrite is then a finding). At a module's top level, the caller's names
    /// are those of the top level itself (the definition's own are not the caller's).
    fn fresh_temporaries(
        &self,
        bindings: &[Binding],
        scope: &ScopeNames,
        at_module: bool,
    ) -> Vec<(String, String)> {
        let temporaries: BTreeSet<&str> = bindings
            .iter()
            .filter(|b| b.value.trim() != b.name || self.body_bound.contains(&b.name))
            .map(|b| b.name.as_str())
            .chain(self.body_bound.iter().map(String::as_str))
            .collect();
        let in_caller = |name: &str| {
            scope.occurrences.contains_key(name)
                || scope.parameters.contains_key(name)
                || (!at_module && scope.bound.contains(name))
        };
        let mut renames: Vec<(String, String)> = Vec::new();
        for name in temporaries {
            if self.rebound.contains(name) || !in_caller(name) {
                continue;
            }
            let taken = |candidate: &str| {
                in_caller(candidate)
                    || scope.read.contains(candidate)
                    || scope.bound.contains(candidate)
                    || self.body_names.contains(candidate)
                    || self.module_names.contains(candidate)
                    || renames.iter().any(|(_, new)| new == candidate)
            };
            if let Some(fresh) = (1..1000)
                .map(|k| format!("{name}_{k}"))
                .find(|candidate| !taken(candidate))
            {
                renames.push((name.to_string(), fresh));
            }
        }
        renames
    }

    /// The body's text in `range` with the renamed temporaries.
    fn renamed_text(&self, range: Range<usize>, renames: &[(String, String)]) -> String {
        let text = self.def.text();
        let mut splices = self.rename_splices(renames);
        splices.retain(|(r, _)| range.start <= r.start && r.end <= range.end);
        splices.sort_by_key(|(r, _)| r.start);
        let mut out = String::new();
        let mut cursor = range.start;
        for (r, new) in splices {
            out.push_str(&text[cursor..r.start]);
            out.push_str(&new);
            cursor = r.end;
        }
        out.push_str(&text[cursor..range.end]);
        out
    }

    /// A splice per occurrence of each renamed temporary in the body.
    fn rename_splices(&self, renames: &[(String, String)]) -> Vec<Splice> {
        renames
            .iter()
            .flat_map(|(old, new)| {
                self.own_ranges
                    .get(old)
                    .into_iter()
                    .flatten()
                    .map(move |r| (r.clone(), new.clone()))
            })
            .collect()
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
                    return Err(w::python_overwrites_self(s));
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
                return Err(w::python_unpacked(text[arg.range.clone()].trim()));
            }
            let value = grouped(&text[arg.value_range.clone()]);
            let index = match &arg.keyword {
                Some(keyword) => params
                    .iter()
                    .position(|p| p.name == *keyword && p.kind != ParamKind::PositionalOnly)
                    .ok_or_else(|| w::python_unknown_keyword(keyword, &self.name))?,
                None => {
                    while next_positional < params.len() && filled[next_positional].is_some() {
                        next_positional += 1;
                    }
                    let index = next_positional;
                    if params
                        .get(index)
                        .is_none_or(|p| p.kind == ParamKind::KeywordOnly)
                    {
                        return Err(w::python_too_many(&self.name));
                    }
                    next_positional += 1;
                    index
                }
            };
            if filled[index].is_some() {
                return Err(w::python_twice(&params[index].name));
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
                let default = param
                    .default
                    .clone()
                    .ok_or_else(|| w::python_missing(&param.name))?;
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
    fn statement_body(
        &self,
        prefix: &str,
        return_needed: bool,
        renames: &[(String, String)],
    ) -> Vec<Line> {
        let Some(body) = self.body.clone() else {
            return Vec::new();
        };
        let text = self.def.text();
        let mut splices: Vec<Splice> = Vec::new();
        let is_return = prefix.trim_end() == "return";
        for r in &self.tail_returns {
            match (prefix.is_empty(), &r.value) {
                (true, value) => {
                    let inert = value
                        .as_ref()
                        .is_none_or(|v| py_body::is_inert_at(&self.def.tree, v));
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
        // The renames, except inside a part the splices above replace whole.
        let replaced: Vec<Range<usize>> = splices.iter().map(|(r, _)| r.clone()).collect();
        splices.extend(
            self.rename_splices(renames)
                .into_iter()
                .filter(|(r, _)| !replaced.iter().any(|p| p.start < r.end && r.start < p.end)),
        );
        let (lines, first) = cut_lines(text, body.clone(), &splices, &self.protected);
        let base = base_indent(&lines, first.as_deref());
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
        Reindent {
            base: "",
            to: indent,
            from_unit: self.def.style.indent,
            to_unit: file.style.indent,
        }
        .lines(lines)
    }

    /// Names the inlined code may clash with at the call site, and names it uses that the
    /// call site's file may not have.
    fn scope_findings(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        assigned: &BTreeSet<String>,
        caller: Option<Node<'_>>,
        scope: &ScopeNames,
        call: &CallSite,
    ) -> Vec<Finding> {
        let text = file.text();
        let mut findings = Vec::new();
        let line = call.line;
        // Where the caller's names occur, outside the call itself and outside nested scopes.
        for name in assigned {
            if let Some(at) = scope.first_outside(name, &call.range) {
                findings.push(Finding::warning(
                    file.path(),
                    line,
                    w::python_caller_overwritten(name, at),
                ));
            }
        }
        let caller_bound = &scope.bound;
        // At the top of the definition's own module, the body's free names are these globals.
        let same_globals = caller.is_none() && file.path() == self.def.path();
        // A nested function called in its own parent reads the parent's names on purpose.
        let own_parent = match (&self.kind, caller) {
            (Kind::Nested { scope }, Some(f)) => py_body::outer_range(f) == *scope,
            _ => false,
        };
        for name in self.free.iter().filter(|_| !same_globals && !own_parent) {
            if caller_bound.contains(name) {
                findings.push(Finding::warning(
                    file.path(),
                    line,
                    w::reads_caller_binding(name),
                ));
            }
        }
        if file.path() != self.def.path() {
            let missing = facts.memo.file_warnings(|| {
                let here = py_names::module_names(file.tree.root_node(), text);
                self.free
                    .iter()
                    .filter(|name| {
                        self.module_names.contains(*name)
                            && !here.contains(*name)
                            && *name != &self.name
                    })
                    .map(|name| w::python_missing_import(name, self.def.path(), file.path()))
                    .collect()
            });
            for message in missing {
                findings.push(Finding::warning(file.path(), line, message.clone()));
            }
        }
        findings
    }
}

/// The names a caller scope binds, reads and where they occur, its parameters included
/// (`caller`: the enclosing function, `None` at module level).
fn caller_names(caller: Option<Node<'_>>, scope: Node<'_>, text: &str) -> ScopeNames {
    let mut names = ScopeNames {
        bound: py_names::bound_names(scope, text),
        read: py_names::read_names(scope, text),
        ..ScopeNames::default()
    };
    for (name, at, line) in py_body::identifier_occurrences(scope, text) {
        names.occurrences.entry(name).or_default().push((at, line));
    }
    if let Some(f) = caller {
        let line = f.start_position().row + 1;
        for p in py_body::parameter_names(f, text) {
            names.bound.insert(p.clone());
            names.read.insert(p.clone());
            names.parameters.insert(p, line);
        }
    }
    names
}

/// An argument as the value of an assignment: in parentheses when it spans lines (the call's
/// own parentheses held its lines together; a bare `a = 1 +` newline `2` does not parse).
fn grouped(value: &str) -> String {
    if value.contains('\n') && !is_bracketed(value) {
        format!("({value})")
    } else {
        value.to_string()
    }
}

/// Whether `value` is one bracketed whole: `(…)`, `[…]`, `{…}` whose opening bracket closes at
/// its end.
fn is_bracketed(value: &str) -> bool {
    let value = value.trim();
    let Some(open) = value
        .chars()
        .next()
        .filter(|c| matches!(c, '(' | '[' | '{'))
    else {
        return false;
    };
    let close = match open {
        '(' => ')',
        '[' => ']',
        _ => '}',
    };
    let mut depth = 0usize;
    for (i, c) in value.char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth = depth.saturating_sub(1);
            if depth == 0 {
                return i + c.len_utf8() == value.len();
            }
        }
    }
    false
}

/// An argument bound to a parameter: `name = value`.
struct Binding {
    name: String,
    value: String,
    /// A default of the definition (evaluated at the call site now).
    default: bool,
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
