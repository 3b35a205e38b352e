//! Writing one inlined Rust call: the `let` bindings of the arguments (typed, `self` renamed
//! when the receiver is passed explicitly), the body re-indented into a block expression (or the
//! bare expression when nothing needs binding), and the findings about names the body now
//! reads at the call site.

use std::ops::Range;

use tree_sitter::Node;

use super::super::memo::ScopeNames;
use super::super::wording as w;
use super::super::{Facts, Inlined, Parsed, fresh_name, mentions_word};
use super::{RustCallee, Site};
use crate::edit::TextEdit;
use crate::lang::calls::CallSite;
use crate::lang::finder::{NodeFinder, Parents};
use crate::lang::rust::expr::{self, Shape, expression_fits, needs_parentheses};
use crate::lang::rust::macros;
use crate::lang::rust::names::{bound_in_function, module_names};
use crate::refactor::Finding;
use crate::text::surgery::{
    Reindent, Splice, base_indent, cut_lines, remove_statement, with_line_endings,
};

/// Primitive types that are `Copy`: a binding `let a: T = a;` of them changes nothing.
const COPY_PRIMITIVES: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "f32",
    "f64", "bool", "char",
];

/// A `let` to write: pattern, type annotation, value.
type Binding = (String, Option<String>, String);

pub(super) fn inline<'t>(
    target: &RustCallee<'_>,
    file: &'t Parsed<'_>,
    facts: &Facts,
    call: &CallSite,
    finder: &mut NodeFinder<'t>,
) -> Result<Inlined, String> {
    let text = file.text();
    // A call the tree shows as one is not a macro's token; only the others are looked up.
    let (node, in_macro) = match file.lang.syntax().call_at(finder, &call.range) {
        Some(node) => (node, false),
        None => match macros::macro_token_at(&file.tree, &call.name_range) {
            Some(name) => (name, true),
            None => return Err(w::NOT_WHERE_PARSED.into()),
        },
    };
    let site = if in_macro {
        Site::Function
    } else {
        target
            .site(file, facts, node, call)?
            .ok_or(w::NOT_THIS_FUNCTION)?
    };
    let line = call.line;
    if target.generic && text[call.callee_range.clone()].contains("::<") {
        return Err(w::rust_explicit_generics(
            text[call.callee_range.clone()].trim(),
        ));
    }
    let own_impl = target.in_own_impl(node, text);
    if let (Some(info), false) = (target.method(), own_impl) {
        if let Some(gline) = target.impl_generic_use {
            return Err(w::rust_impl_generics(
                &info.type_text,
                gline,
                target.def.path(),
            ));
        }
        if info.generic && !target.self_type_ranges.is_empty() {
            return Err(w::rust_generic_self(&info.type_text));
        }
    }
    let Bound {
        bindings,
        mut body_splices,
        receiver_name,
    } = bindings(target, facts, text, call, site, own_impl)?;

    let mut findings = vec![
        Finding::info(file.path(), line, w::inlined(&target.name, line))
            .with_kind("inline.call_inlined"),
    ];
    findings.extend(scope_findings(
        target,
        file,
        facts,
        (node, finder.parents()),
        call,
        receiver_name.as_deref(),
    ));

    // A value typed by the return type keeps that type: `let value: T = ...; value`.
    let mut typed_result = None;
    if let Some(tail) = &target.typed_tail {
        match target.annotation(&tail.ty, tail.unwritable, own_impl) {
            Some(ty) => {
                let fresh = facts.memo.fresh_name("value", || {
                    fresh_name("value", &[target.body_text.as_str(), text])
                });
                body_splices.push((
                    tail.value.start..tail.value.start,
                    format!("let {fresh}: {ty} = "),
                ));
                body_splices.push((tail.value.end..tail.value.end, ";".to_string()));
                typed_result = Some(fresh);
            }
            None => findings.push(Finding::warning(
                file.path(),
                line,
                w::rust_untyped_tail(&target.name, &tail.ty),
            )),
        }
    }
    let indent = crate::text::indentation_at(text, call.range.start).to_string();
    // Nothing to bind and a body that is one expression: the expression itself.
    if let (true, None, Some((value, shape))) =
        (bindings.is_empty(), &typed_result, &target.single_value)
        && !shape.is_block_like()
    {
        let bare = as_expression(
            target,
            file,
            node,
            (value, shape),
            &body_splices,
            &indent,
            in_macro,
        );
        return Ok(Inlined {
            edits: vec![TextEdit::new(call.range.clone(), bare)],
            claim: call.range.clone(),
            findings,
            ..Inlined::default()
        });
    }
    let lines = block_lines(
        target,
        file,
        &indent,
        &bindings,
        &body_splices,
        typed_result,
    );
    let statement = expr::statement_of(node, finder.parents()).filter(|_| !in_macro);
    if lines.is_empty()
        && let Some(statement) = statement.filter(|_| target.unit_return)
    {
        // Nothing to run: the statement goes.
        let edit = remove_statement(text, statement.byte_range(), "//");
        return Ok(Inlined {
            edits: vec![edit],
            claim: statement.byte_range(),
            findings,
            bound_arguments: !bindings.is_empty(),
            ..Inlined::default()
        });
    }
    let eol = file.style.line_ending;
    let block = if lines.is_empty() {
        "{}".to_string()
    } else {
        format!("{{{eol}{}{eol}{indent}}}", lines.join(eol))
    };
    let (range, replacement) = match statement {
        Some(statement) if target.unit_return => (call.range.start..statement.end_byte(), block),
        _ if !in_macro && needs_parentheses(node, finder.parents()) => {
            (call.range.clone(), format!("({block})"))
        }
        _ => (call.range.clone(), block),
    };
    Ok(Inlined {
        edits: vec![TextEdit::new(range, replacement)],
        claim: call.range.clone(),
        findings,
        bound_arguments: !bindings.is_empty(),
        ..Inlined::default()
    })
}

/// The body that is one expression, pasted in place of the call (re-indented; in parentheses
/// where the call's place needs them).
fn as_expression(
    target: &RustCallee<'_>,
    file: &Parsed<'_>,
    node: Node<'_>,
    (value, shape): (&Range<usize>, &Shape),
    body_splices: &[Splice],
    indent: &str,
    in_macro: bool,
) -> String {
    let (value_lines, first) = cut_lines(
        target.def.text(),
        value.clone(),
        body_splices,
        &target.protected,
    );
    let base = base_indent(&value_lines, first.as_deref());
    let rendered = Reindent {
        base: &base,
        to: indent,
        from_unit: target.def.style.indent,
        to_unit: file.style.indent,
    }
    .lines(&value_lines);
    let joined = rendered.join(file.style.line_ending);
    let expression = joined.strip_prefix(indent).unwrap_or(&joined).to_string();
    let before_else = expr::in_let_else(node) && expression.trim_end().ends_with('}');
    let fits = if in_macro {
        shape.is_plain_atom()
    } else {
        expression_fits(node, shape)
    };
    if fits && !before_else {
        expression
    } else {
        format!("({expression})")
    }
}

/// What the arguments of a call become: see [`bindings`].
struct Bound {
    bindings: Vec<Binding>,
    body_splices: Vec<Splice>,
    receiver_name: Option<String>,
}

/// The `let`s of the call's arguments in order (the receiver first when it is passed
/// explicitly), the edits of the body that go with them (`self` renamed, `Self` spelled out),
/// and the name the receiver gets.
fn bindings(
    target: &RustCallee<'_>,
    facts: &Facts,
    text: &str,
    call: &CallSite,
    site: Site,
    own_impl: bool,
) -> Result<Bound, String> {
    let mut args: Vec<String> = call
        .args
        .iter()
        .map(|a| text[a.value_range.clone()].to_string())
        .collect();
    let mut bindings: Vec<Binding> = Vec::new();
    let mut body_splices: Vec<Splice> = target.tail_splices.clone();
    let mut receiver_name = None;
    if let (Some(info), Site::Qualified) = (target.method(), site)
        && let Some(self_param) = &info.self_param
    {
        if args.is_empty() {
            return Err(w::rust_no_receiver(&target.name));
        }
        let receiver = args.remove(0);
        let fresh = facts.memo.fresh_name("this", || {
            fresh_name("this", &[target.body_text.as_str(), text])
        });
        for r in &target.self_ranges {
            body_splices.push((r.clone(), fresh.clone()));
        }
        let pattern = if self_param.mutable {
            format!("mut {fresh}")
        } else {
            fresh.clone()
        };
        let ty = target.annotation(&self_param.ty, false, own_impl);
        bindings.push((pattern, ty, receiver));
        receiver_name = Some(fresh);
    }
    if args.len() != target.params.len() {
        return Err(w::rust_argument_count(
            args.len(),
            &target.name,
            target.params.len(),
        ));
    }
    for (param, value) in target.params.iter().zip(args) {
        let copy_or_ref =
            param.ty.trim_start().starts_with('&') || COPY_PRIMITIVES.contains(&param.ty.trim());
        if param.simple.as_deref() == Some(value.trim()) && copy_or_ref {
            continue;
        }
        let ty = target.annotation(&param.ty, param.type_unwritable, own_impl);
        bindings.push((param.pattern.clone(), ty, value));
    }
    if !own_impl
        && let Some(info) = target.method()
        && !info.generic
    {
        for r in &target.self_type_ranges {
            body_splices.push((r.clone(), info.type_text.clone()));
        }
    }
    Ok(Bound {
        bindings,
        body_splices,
        receiver_name,
    })
}

/// The lines inside the block that replaces the call: the bindings, the body, the typed
/// result.
fn block_lines(
    target: &RustCallee<'_>,
    file: &Parsed<'_>,
    indent: &str,
    bindings: &[Binding],
    body_splices: &[Splice],
    typed_result: Option<String>,
) -> Vec<String> {
    let eol = file.style.line_ending;
    let inner_indent = format!("{indent}{}", file.style.indent.as_str());
    let mut lines: Vec<String> = binding_statements(bindings)
        .into_iter()
        .map(|b| format!("{inner_indent}{}", with_line_endings(&b, eol)))
        .collect();
    if let Some(body) = &target.body {
        let (body_lines, first) = cut_lines(
            target.def.text(),
            body.clone(),
            body_splices,
            &target.protected,
        );
        let base = base_indent(&body_lines, first.as_deref());
        let mut rendered = Reindent {
            base: &base,
            to: &inner_indent,
            from_unit: target.def.style.indent,
            to_unit: file.style.indent,
        }
        .lines(&body_lines);
        while rendered.last().is_some_and(|l| l.trim().is_empty()) {
            rendered.pop();
        }
        while rendered.first().is_some_and(|l| l.trim().is_empty()) {
            rendered.remove(0);
        }
        lines.extend(rendered);
    }
    if let Some(fresh) = &typed_result {
        lines.push(format!("{inner_indent}{fresh}"));
    }
    lines
}

impl RustCallee<'_> {
    /// The type annotation to write for `ty` at a call site, or `None` to leave it out.
    fn annotation(&self, ty: &str, unwritable: bool, in_own_impl: bool) -> Option<String> {
        if unwritable {
            return None;
        }
        match self.method() {
            Some(info) if !in_own_impl && mentions_word(ty, "Self") => {
                if info.generic {
                    None
                } else {
                    Some(replace_word(ty, "Self", &info.type_text))
                }
            }
            _ => Some(ty.to_string()),
        }
    }
}

fn replace_word(text: &str, word: &str, with: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut last = 0;
    for at in crate::lang::calls::word_matches(text, word) {
        out.push_str(&text[last..at]);
        out.push_str(with);
        last = at + word.len();
    }
    out.push_str(&text[last..]);
    out
}

/// Names the inlined body reads that the caller binds itself, names it needs from the
/// definition's module, traits it needs in scope, fields it may not see.
fn scope_findings<'t>(
    target: &RustCallee<'_>,
    file: &Parsed<'_>,
    facts: &Facts,
    (node, parents): (Node<'t>, Parents<'_, 't>),
    call: &CallSite,
    receiver: Option<&str>,
) -> Vec<Finding> {
    let text = file.text();
    let line = call.line;
    let mut findings = Vec::new();
    // The caller's own bindings that a free name of the body now resolves to.
    if let Some(caller) = expr::caller_of(node, parents) {
        let names = facts.memo.scope(caller.id(), || ScopeNames {
            bound: bound_in_function(caller, text),
            ..ScopeNames::default()
        });
        let bound = &names.bound;
        for name in &target.free {
            if bound.contains(name) {
                findings.push(Finding::warning(
                    file.path(),
                    line,
                    w::reads_caller_binding(name),
                ));
            }
        }
        if let Some(r) = receiver
            && bound.contains(r)
        {
            findings.push(Finding::warning(
                file.path(),
                line,
                w::rust_receiver_shadows(r),
            ));
        }
    }
    if file.path() != target.def.path() {
        let missing = facts.memo.file_warnings(|| file_warnings(target, file));
        for message in missing {
            findings.push(Finding::warning(file.path(), line, message.clone()));
        }
    }
    findings
}

/// What every inlined call of another file than the definition's lacks: names and traits of
/// the definition's module, private fields.
fn file_warnings(target: &RustCallee<'_>, file: &Parsed<'_>) -> Vec<String> {
    let text = file.text();
    let mut warnings = Vec::new();
    let here = module_names(file.tree.root_node(), text);
    for name in &target.free {
        if target.module_names.contains(name) && !here.contains(name) && name != &target.name {
            warnings.push(w::rust_missing_in_scope(
                name,
                target.def.path(),
                file.path(),
            ));
        }
    }
    if let Some(body) = &target.body {
        let traits = crate::lang::rust::traits::needed_traits(
            &target.def.tree,
            target.def.text(),
            body,
            Some(&file.tree),
            text,
        );
        for needed in traits {
            warnings.push(w::rust_missing_trait(
                &needed.method,
                &needed.trait_name,
                target.def.path(),
                file.path(),
            ));
        }
    }
    if let (Some(info), true) = (target.method(), target.touches_fields) {
        warnings.push(w::rust_private_fields(&info.type_name, file.path()));
    }
    warnings
}

/// `let pattern: T = value;` per binding, or one tuple `let (a, b): (T, U) = (x, y);` when a
/// value reads a name bound before it (sequential `let`s would hand it the new binding).
fn binding_statements(bindings: &[Binding]) -> Vec<String> {
    let names = |pattern: &str| -> Vec<String> {
        pattern
            .split(|c: char| !(c == '_' || c.is_alphanumeric()))
            .filter(|w| !w.is_empty() && *w != "mut" && *w != "ref")
            .map(str::to_string)
            .collect()
    };
    let conflict = bindings.iter().enumerate().any(|(i, (pattern, _, _))| {
        names(pattern).iter().any(|n| {
            bindings[i + 1..]
                .iter()
                .any(|(_, _, later)| mentions_word(later, n))
        })
    });
    if conflict && bindings.len() > 1 {
        let patterns: Vec<&str> = bindings.iter().map(|(p, _, _)| p.as_str()).collect();
        let values: Vec<&str> = bindings.iter().map(|(_, _, v)| v.trim()).collect();
        let annotation = if bindings.iter().all(|(_, t, _)| t.is_none()) {
            String::new()
        } else {
            let types: Vec<&str> = bindings
                .iter()
                .map(|(_, t, _)| t.as_deref().unwrap_or("_"))
                .collect();
            format!(": ({})", types.join(", "))
        };
        vec![format!(
            "let ({}){annotation} = ({});",
            patterns.join(", "),
            values.join(", ")
        )]
    } else {
        bindings
            .iter()
            .map(|(pattern, ty, value)| match ty {
                Some(ty) => format!("let {pattern}: {ty} = {};", value.trim()),
                None => format!("let {pattern} = {};", value.trim()),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_are_replaced_whole() {
        assert_eq!(
            replace_word("Vec<Self>, SelfX", "Self", "P"),
            "Vec<P>, SelfX"
        );
    }

    #[test]
    fn sequential_or_tuple_bindings() {
        let simple = vec![("a".to_string(), Some("i32".to_string()), "x".to_string())];
        assert_eq!(binding_statements(&simple), vec!["let a: i32 = x;"]);
        let swapped = vec![
            ("a".to_string(), Some("i32".to_string()), "b".to_string()),
            ("mut b".to_string(), None, "a".to_string()),
        ];
        assert_eq!(
            binding_statements(&swapped),
            vec!["let (a, mut b): (i32, _) = (b, a);"]
        );
    }
}
