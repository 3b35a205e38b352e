//! Call sites of the changed function in one file: which calls are its calls (by the form of the
//! call, never by types), how their arguments map positionally onto the new signature, the
//! smallest edits that drop surplus arguments and add placeholders, and a finding for every call
//! and every mention that is not a call. Arguments are never re-ordered.

use super::wording as w;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::function::MethodOwner;
use super::params::Signature;
use crate::edit::{SourceFile, TextEdit};
use crate::lang::Language;
use crate::lang::calls::{
    CallForm, CallSite, Reference, ReferenceKind, TextMention, find_mentions, text_mention,
    word_matches,
};
use crate::lang::locals::{Locals, is_rust_binding};
use crate::lang::python::names::{class_around, in_dunder_all, is_plain_class_use};
use crate::lang::rust::items::{SelfOwner, self_owner};
use crate::lang::rust::macros::in_macro;
use crate::lang::rust::names::is_path_prefix;
use crate::lang::rust::paths::last_path_segment;
use crate::lang::symbols::{Symbol, SymbolKind, outline};
use crate::refactor::Finding;
use crate::text::{indentation_at, line_ending};

/// What the calls are matched against.
pub(super) struct Callee<'a> {
    pub lang: Language,
    pub name: &'a str,
    pub owner: Option<&'a MethodOwner>,
    /// Rust `self`, a Python method's `self`/`cls`.
    pub has_receiver: bool,
    pub old: Signature,
    pub new: Signature,
    /// The new list on one line, for messages.
    pub new_list: String,
    /// The definition itself: (file, name range, parameter list range).
    pub definition: (&'a str, Range<usize>, Range<usize>),
    /// The outline of the definition's file (computed once, not again for its call sites).
    pub definition_outline: &'a [Symbol],
    /// The references engine's verdict on the calls, when it could resolve the function: only
    /// its certain calls are rewritten.
    pub engine: Option<&'a crate::refactor::references::Verdicts>,
}

impl Callee<'_> {
    /// Python `__init__`: its calls are constructions of the class.
    fn constructor_of(&self) -> Option<&str> {
        match (self.lang, self.owner) {
            (Language::Python, Some(owner)) if self.name == "__init__" => {
                Some(owner.type_name.as_str())
            }
            _ => None,
        }
    }

    /// Whether the receiver is written as the first argument when the call names the type.
    fn unbound_takes_receiver(&self) -> bool {
        self.has_receiver && !self.owner.is_some_and(|o| o.class_method)
    }
}

/// The words `files_mentioning` must look for.
pub(super) fn search_words(callee: &Callee<'_>) -> Vec<String> {
    let mut words = vec![callee.name.to_string()];
    words.extend(callee.constructor_of().map(str::to_string));
    words
}

#[derive(Debug, Default)]
pub(super) struct FileOutcome {
    pub edits: Vec<TextEdit>,
    pub findings: Vec<Finding>,
    /// Calls whose arguments changed.
    pub updated: usize,
}

enum Decision {
    /// The call is taken for a call of the function; `explicit_receiver` when its first argument
    /// is the receiver (`Type::m(obj, a)`, `Class.m(obj, a)`).
    Rewrite { explicit_receiver: bool },
    /// Not a call of this function (a different one of the same name, as far as the form says).
    Skip(String),
}

struct CallPlan {
    range: Range<usize>,
    edits: Vec<TextEdit>,
    deletions: Vec<Range<usize>>,
    findings: Vec<Finding>,
}

/// Finds and rewrites the calls in `file`, and reports every other mention. `tree` is a tree of
/// the file that holds at least the statements around the search words and their enclosing
/// blocks (`Sources::parse_around_words`).
pub(super) fn rewrite_file(callee: &Callee<'_>, file: &SourceFile, tree: &Tree) -> FileOutcome {
    let lang = callee.lang;
    let text = file.text.as_str();
    let path = file.path.as_str();
    let locals = Locals::new(lang, tree, text, callee.name);
    let eol = line_ending(text);
    let is_definition_file = path == callee.definition.0;
    let mut outcome = FileOutcome::default();

    let mentions = find_mentions(lang, tree, text, callee.name);
    // (call, whether it constructs the class of an `__init__`)
    let mut calls: Vec<(CallSite, bool)> = mentions.calls.into_iter().map(|c| (c, false)).collect();
    let mut references: Vec<(Reference, &str)> = mentions
        .references
        .into_iter()
        .map(|r| (r, callee.name))
        .collect();
    if let Some(class) = callee.constructor_of() {
        let constructions = find_mentions(lang, tree, text, class);
        calls.extend(constructions.calls.into_iter().map(|c| (c, true)));
        references.extend(
            constructions
                .references
                .into_iter()
                .filter(|r| matches!(r.kind, ReferenceKind::Use | ReferenceKind::Decorator))
                .filter(|r| node_at(tree, &r.range).is_some_and(is_plain_class_use))
                .map(|r| (r, class)),
        );
    }
    calls.sort_by_key(|(c, _)| c.range.start);

    let mut plans = Vec::new();
    let locations = call_locations(&calls, text, path);
    for ((call, construction), at) in calls.iter().zip(locations) {
        let doubt = callee
            .engine
            .and_then(|e| e.doubt(path, call.name_range.start));
        let decision = if *construction {
            Decision::Rewrite {
                explicit_receiver: false,
            }
        } else if let Some(doubt) = doubt {
            match doubt {
                Ok(why) => {
                    outcome.findings.push(Finding::warning(
                        path,
                        call.line,
                        w::possible_call(&at, why),
                    ));
                }
                // Another symbol of the same name: not a call site. Where the call's form
                // already says why, that is said; otherwise nothing.
                Err(()) => {
                    if let Decision::Skip(why) = decide(callee, call, text, tree, &locals, &at) {
                        outcome.findings.push(Finding::info(path, call.line, why));
                    }
                }
            }
            continue;
        } else {
            decide(callee, call, text, tree, &locals, &at)
        };
        match decision {
            Decision::Skip(why) => outcome.findings.push(Finding::info(path, call.line, why)),
            Decision::Rewrite { explicit_receiver } => {
                plans.push(plan_call(
                    callee,
                    call,
                    text,
                    path,
                    &at,
                    eol,
                    explicit_receiver,
                ));
            }
        }
    }
    // A call inside an argument another call drops, or inside the definition's own parameter
    // list (which is rewritten whole), is not edited on its own.
    let deletions: Vec<(&Range<usize>, &Range<usize>)> = plans
        .iter()
        .flat_map(|other| other.deletions.iter().map(move |d| (d, &other.range)))
        .collect();
    let swallowed = |plan: &CallPlan| {
        let inside = |r: &Range<usize>| r.start <= plan.range.start && plan.range.end <= r.end;
        (is_definition_file && inside(&callee.definition.2))
            || deletions
                .iter()
                .any(|(deleted, owner)| **owner != plan.range && inside(deleted))
    };
    let keep: Vec<bool> = plans.iter().map(|p| !swallowed(p)).collect();
    for (plan, keep) in plans.into_iter().zip(keep) {
        if !keep {
            continue;
        }
        if !plan.edits.is_empty() {
            outcome.updated += 1;
        }
        outcome.edits.extend(plan.edits);
        outcome.findings.extend(plan.findings);
    }

    for (reference, name) in references {
        if is_definition_file
            && callee.definition.2.start <= reference.range.start
            && reference.range.end <= callee.definition.2.end
        {
            continue;
        }
        if lang == Language::Rust && !names_the_function(callee, tree, &reference) {
            continue;
        }
        // A local of that name (`let helper = ..`, a parameter) is not the function.
        if reference.kind == ReferenceKind::Use
            && callee.owner.is_none()
            && node_at(tree, &reference.range).is_some_and(|n| {
                locals.shadows(n.start_byte())
                    || (lang == Language::Rust && is_rust_binding(n, &[]))
            })
        {
            continue;
        }
        outcome.findings.push(reference_finding(
            callee, tree, text, path, &reference, name,
        ));
    }
    outcome
        .findings
        .extend(other_definitions(callee, tree, text, path));
    outcome
}

/// For each call (in order of position): `path:line`, or `path:line:column` when the line holds
/// another call of the same name. One pass: a line of thousands of calls stays linear.
fn call_locations(calls: &[(CallSite, bool)], text: &str, path: &str) -> Vec<String> {
    let mut per_line: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for (call, _) in calls {
        *per_line.entry(call.line).or_default() += 1;
    }
    // Columns counted on from the previous call of the same line.
    let mut cursor: Option<(usize, usize, usize)> = None; // (line, byte offset, column there)
    calls
        .iter()
        .map(|(call, _)| {
            if per_line.get(&call.line).copied().unwrap_or(0) <= 1 {
                return format!("{path}:{}", call.line);
            }
            let start = call.name_range.start;
            let (from, column_there) = match cursor {
                Some((line, offset, column)) if line == call.line && offset <= start => {
                    (offset, column)
                }
                _ => {
                    let line_start = text
                        .get(..start)
                        .and_then(|s| s.rfind('\n'))
                        .map_or(0, |i| i + 1);
                    (line_start, 1)
                }
            };
            let column = column_there + text.get(from..start).map_or(0, |s| s.chars().count());
            cursor = Some((call.line, start, column));
            format!("{path}:{}:{column}", call.line)
        })
        .collect()
}

fn decide(
    callee: &Callee<'_>,
    call: &CallSite,
    text: &str,
    tree: &Tree,
    locals: &Locals,
    at: &str,
) -> Decision {
    let name = callee.name;
    let shown = quote(text.get(call.callee_range.clone()).unwrap_or(name));
    let rewrite = Decision::Rewrite {
        explicit_receiver: false,
    };
    match (callee.lang, callee.owner, &call.form) {
        // Free functions, unless a local binding of that name is what is called.
        (_, None, CallForm::Plain) if locals.shadows(call.name_range.start) => {
            Decision::Skip(w::calls_a_local(&shown, at, name))
        }
        (_, None, CallForm::Plain) | (Language::Python, None, CallForm::Path { .. }) => rewrite,
        (Language::Rust, None, CallForm::Path { qualifier }) => {
            let last = last_path_segment(qualifier);
            if last.starts_with(|c: char| c.is_uppercase()) {
                Decision::Skip(w::calls_another_types_function(&shown, at, &last, name))
            } else {
                rewrite
            }
        }
        (Language::Rust, None, CallForm::Method { .. }) => {
            Decision::Skip(w::method_call_of_a_free_function(&shown, at, name))
        }
        (Language::Python, None, CallForm::Method { receiver }) => {
            let object = text.get(receiver.clone()).unwrap_or("");
            if matches!(object, "self" | "cls") || object.starts_with("super(") {
                Decision::Skip(w::calls_another_method(&shown, at, name))
            } else {
                rewrite
            }
        }
        // Methods and associated functions.
        (_, Some(owner), CallForm::Plain) => {
            Decision::Skip(w::calls_a_free_function(&shown, at, name, &owner.type_name))
        }
        (Language::Rust, Some(owner), CallForm::Path { qualifier }) => {
            if rust_qualifier_names_owner(owner, qualifier, call, tree, text) {
                Decision::Rewrite {
                    explicit_receiver: callee.has_receiver,
                }
            } else {
                Decision::Skip(w::names_another_type(&shown, at, &owner.type_name))
            }
        }
        (Language::Rust, Some(owner), CallForm::Method { .. }) => {
            if callee.has_receiver {
                rewrite
            } else {
                Decision::Skip(w::method_call_without_self(
                    &shown,
                    at,
                    &owner.type_name,
                    name,
                ))
            }
        }
        (Language::Python, Some(owner), CallForm::Method { receiver }) => {
            let object = text.get(receiver.clone()).unwrap_or("");
            python_method_call(callee, owner, object, call, tree, text, at, &shown)
        }
        (Language::Python, Some(_), CallForm::Path { .. }) => rewrite,
    }
}

#[allow(clippy::too_many_arguments)]
fn python_method_call(
    callee: &Callee<'_>,
    owner: &MethodOwner,
    object: &str,
    call: &CallSite,
    tree: &Tree,
    text: &str,
    at: &str,
    shown: &str,
) -> Decision {
    let class = owner.type_name.as_str();
    let name = callee.name;
    if object.starts_with("super(") {
        let enclosing_class = node_at(tree, &call.range).and_then(|n| class_around(n, text));
        let Some((enclosing_name, bases)) = enclosing_class else {
            return Decision::Skip(w::outside_any_class(shown, at));
        };
        return if enclosing_name == class {
            Decision::Skip(w::calls_the_base_class(shown, at, class, name))
        } else if !word_matches(bases, class).is_empty() {
            Decision::Rewrite {
                explicit_receiver: false,
            }
        } else {
            Decision::Skip(w::calls_a_base_of_another_class(
                shown,
                at,
                name,
                enclosing_name,
                class,
            ))
        };
    }
    let last = object.rsplit('.').next().unwrap_or(object).trim();
    if last == class {
        Decision::Rewrite {
            explicit_receiver: callee.unbound_takes_receiver(),
        }
    } else if last.starts_with(|c: char| c.is_uppercase())
        && !last.chars().all(|c| !c.is_lowercase())
    {
        Decision::Skip(w::calls_through_another_class(shown, at, last, name, class))
    } else {
        Decision::Rewrite {
            explicit_receiver: false,
        }
    }
}

/// `Self::m` (inside the owner's impl or trait), `Type::m`, `Trait::m`, `<Type as Trait>::m`.
fn rust_qualifier_names_owner(
    owner: &MethodOwner,
    qualifier: &str,
    call: &CallSite,
    tree: &Tree,
    text: &str,
) -> bool {
    let named = |word: &str| word == owner.type_name || owner.trait_name.as_deref() == Some(word);
    if let Some((ty, tr)) = qualifier
        .trim_start_matches('<')
        .trim_end_matches('>')
        .split_once(" as ")
    {
        return named(&last_path_segment(ty)) || named(&last_path_segment(tr));
    }
    let last = last_path_segment(qualifier);
    if last == "Self" {
        let Some(node) = node_at(tree, &call.range) else {
            return false;
        };
        return match self_owner(node, text) {
            Some(SelfOwner::Impl {
                type_text,
                trait_text,
            }) => {
                named(&type_name_of(&type_text))
                    || (!trait_text.is_empty()
                        && named(&last_path_segment(&trait_text))
                        && owner.in_trait)
            }
            Some(SelfOwner::Trait { name }) => named(&name),
            None => false,
        };
    }
    named(&last)
}

/// `Foo` for `&'a mut crate::m::Foo<T>`.
fn type_name_of(ty: &str) -> String {
    let trimmed = ty.trim_start_matches(['&', ' ']);
    let trimmed = match trimmed.strip_prefix('\'') {
        Some(rest) => rest.split_once(' ').map_or("", |(_, r)| r),
        None => trimmed,
    };
    let trimmed = trimmed
        .trim_start()
        .strip_prefix("mut ")
        .unwrap_or(trimmed)
        .trim();
    last_path_segment(trimmed)
}

fn node_at<'t>(tree: &'t Tree, range: &Range<usize>) -> Option<Node<'t>> {
    tree.root_node()
        .descendant_for_byte_range(range.start, range.end)
}

fn placeholder(lang: Language, name: &str) -> String {
    match lang {
        Language::Rust => format!(
            "todo!(\"argument `{}`\")",
            name.replace('\\', "\\\\").replace('"', "\\\"")
        ),
        Language::Python => format!("TODO_argument_{name}"),
    }
}

fn plan_call(
    callee: &Callee<'_>,
    call: &CallSite,
    text: &str,
    path: &str,
    at: &str,
    eol: &str,
    explicit_receiver: bool,
) -> CallPlan {
    let args = &call.args;
    let new = &callee.new;
    let mut plan = CallPlan {
        range: call.range.clone(),
        edits: Vec::new(),
        deletions: Vec::new(),
        findings: Vec::new(),
    };
    let arg_text = |i: usize| {
        args.get(i)
            .and_then(|a| text.get(a.range.clone()))
            .unwrap_or("")
    };
    if let Some(splat) = args.iter().position(|a| a.splat) {
        plan.findings.push(Finding::warning(
            path,
            call.line,
            w::unpacked_arguments(at, &quote(arg_text(splat)), &callee.new_list),
        ));
        return plan;
    }
    let offset = usize::from(explicit_receiver);
    if explicit_receiver && args.first().is_none_or(|a| a.keyword.is_some()) {
        plan.findings.push(Finding::warning(
            path,
            call.line,
            w::receiver_not_passed(at, args.len(), &new.takes()),
        ));
        return plan;
    }

    let mapping = map_arguments(callee, call, text, path, at, offset);
    let (mut positional_placeholders, mut keyword_placeholders, missing) =
        placeholders(callee, mapping.filled, &mapping.by_keyword);
    let (keep, notes) = (mapping.keep, mapping.notes);
    let dropped = keep.iter().filter(|k| !**k).count();
    let added = positional_placeholders.len() + keyword_placeholders.len();
    let generator = args.len() == 1
        && args
            .first()
            .is_some_and(|a| a.range == call.arguments_range);
    if generator && (dropped > 0 || added > 0) {
        plan.findings.push(Finding::warning(
            path,
            call.line,
            w::bare_generator_argument(at, &new.takes()),
        ));
        return plan;
    }
    plan.findings.extend(notes);
    for (name, value) in &missing {
        plan.findings.push(Finding::warning(
            path,
            call.line,
            w::placeholder_argument(at, name, value),
        ));
    }

    argument_edits(
        &mut plan,
        text,
        call,
        &keep,
        (&mut positional_placeholders, &mut keyword_placeholders),
        eol,
    );
    let before = args.len();
    let after = before - dropped + added;
    plan.findings.push(if plan.edits.is_empty() {
        Finding::info(path, call.line, w::call_unchanged(at, before))
    } else {
        Finding::info(path, call.line, w::call_updated(at, before, after))
    });
    plan
}

/// How a call's arguments land on the new signature: which stay, the notes about those that
/// change meaning or go, how many positional parameters they fill, and the names passed by
/// keyword.
struct Mapping<'c> {
    keep: Vec<bool>,
    notes: Vec<Finding>,
    filled: usize,
    by_keyword: Vec<&'c str>,
}

fn map_arguments<'c>(
    callee: &Callee<'_>,
    call: &'c CallSite,
    text: &str,
    path: &str,
    at: &str,
    offset: usize,
) -> Mapping<'c> {
    let args = &call.args;
    let (old, new) = (&callee.old, &callee.new);
    let arg_text = |i: usize| {
        args.get(i)
            .and_then(|a| text.get(a.range.clone()))
            .unwrap_or("")
    };
    let mut keep = vec![true; args.len()];
    let mut notes: Vec<Finding> = Vec::new();
    let mut positional = 0usize;
    for (i, arg) in args.iter().enumerate().skip(offset) {
        if arg.keyword.is_some() {
            continue;
        }
        let j = positional;
        positional += 1;
        if let Some(slot) = new.positional.get(j) {
            // The argument now means something else when it meant a parameter that still exists
            // elsewhere, lands on one that existed elsewhere, or was absorbed by `*args`. A plain
            // rename (old name gone, new name new) is taken as intended.
            let was = match old.positional.get(j) {
                Some(old_slot)
                    if old_slot.name != slot.name
                        && (new.has_name(&old_slot.name) || old.has_name(&slot.name)) =>
                {
                    Some(format!("`{}`", old_slot.name))
                }
                None => old.var_positional.as_ref().map(|v| format!("`{v}`")),
                _ => None,
            };
            if let Some(was) = was {
                notes.push(Finding::warning(
                    path,
                    call.line,
                    w::argument_changes_parameter(at, j + 1, &quote(arg_text(i)), &was, &slot.name),
                ));
            }
        } else if new.var_positional.is_none() {
            keep[i] = false;
            notes.push(Finding::warning(
                path,
                call.line,
                w::dropped_argument(at, j + 1, &quote(arg_text(i))),
            ));
        }
    }
    let filled = positional.min(new.positional.len());
    let mut by_keyword: Vec<&str> = Vec::new();
    for (i, arg) in args.iter().enumerate() {
        let Some(keyword) = arg.keyword.as_deref() else {
            continue;
        };
        if let Some(position) = new.positional.iter().position(|s| s.name == keyword) {
            let slot = &new.positional[position];
            if slot.positional_only {
                notes.push(Finding::warning(
                    path,
                    call.line,
                    w::positional_only_by_keyword(at, keyword),
                ));
            } else if position < filled {
                notes.push(Finding::warning(
                    path,
                    call.line,
                    w::passed_twice(at, keyword, position + 1),
                ));
            }
            by_keyword.push(keyword);
        } else if new.keyword_only.iter().any(|s| s.name == keyword) || new.var_keyword {
            by_keyword.push(keyword);
        } else {
            keep[i] = false;
            notes.push(Finding::warning(
                path,
                call.line,
                w::dropped_keyword_argument(at, &quote(arg_text(i)), keyword),
            ));
        }
    }
    Mapping {
        keep,
        notes,
        filled,
        by_keyword,
    }
}

/// The placeholders for the new parameters a call does not fill: positional ones (while no
/// parameter was skipped), keyword ones, and (name, placeholder) of each.
fn placeholders<'a>(
    callee: &'a Callee<'_>,
    filled: usize,
    by_keyword: &[&str],
) -> (Vec<String>, Vec<String>, Vec<(&'a str, String)>) {
    let new = &callee.new;
    let mut positional_placeholders: Vec<String> = Vec::new();
    let mut keyword_placeholders: Vec<String> = Vec::new();
    let mut gap = false;
    let mut missing: Vec<(&str, String)> = Vec::new();
    for slot in new.positional.iter().skip(filled) {
        if by_keyword.contains(&slot.name.as_str()) || slot.has_default {
            gap = true;
            continue;
        }
        let value = placeholder(callee.lang, &slot.name);
        if gap {
            keyword_placeholders.push(format!("{}={value}", slot.name));
        } else {
            positional_placeholders.push(value.clone());
        }
        missing.push((&slot.name, value));
    }
    for slot in &new.keyword_only {
        if !slot.has_default && !by_keyword.contains(&slot.name.as_str()) {
            let value = placeholder(callee.lang, &slot.name);
            keyword_placeholders.push(format!("{}={value}", slot.name));
            missing.push((&slot.name, value));
        }
    }
    (positional_placeholders, keyword_placeholders, missing)
}

/// The edits of a call: runs of dropped arguments deleted with their separators, placeholders
/// inserted in the call's own layout.
fn argument_edits(
    plan: &mut CallPlan,
    text: &str,
    call: &CallSite,
    keep: &[bool],
    (positional_placeholders, keyword_placeholders): (&mut Vec<String>, &mut Vec<String>),
    eol: &str,
) {
    let args = &call.args;
    // Edits: delete runs of dropped arguments with their separators; insert placeholders.
    let open = call.arguments_range.start;
    let close = call.arguments_range.end.saturating_sub(1);
    // The first argument on a later line than `(` (no counting from the top of the file: a
    // file with many calls would pay for each).
    let vertical = args.first().is_some_and(|a| {
        text.get(open..a.range.start)
            .is_some_and(|s| s.contains('\n'))
    });
    let indent = args
        .first()
        .map_or("", |a| indentation_at(text, a.range.start));
    let separator = if vertical {
        format!(",{eol}{indent}")
    } else {
        ", ".to_string()
    };
    let mut i = 0;
    while i < args.len() {
        if keep[i] {
            i += 1;
            continue;
        }
        let first = i;
        while i < args.len() && !keep[i] {
            i += 1;
        }
        let last = i - 1;
        let range = match (first.checked_sub(1).and_then(|p| args.get(p)), args.get(i)) {
            (Some(previous), _) => previous.range.end..args[last].range.end,
            (None, Some(next)) => args[first].range.start..next.range.start,
            (None, None) => open + 1..close,
        };
        plan.deletions.push(range.clone());
        plan.edits.push(TextEdit::delete(range));
    }
    let kept: Vec<usize> = (0..args.len()).filter(|&i| keep[i]).collect();
    let mut appended: Vec<String> = Vec::new();
    if !positional_placeholders.is_empty() {
        match kept.iter().find(|&&i| args[i].keyword.is_some()) {
            Some(&keyword) => {
                let mut inserted = positional_placeholders.join(&separator);
                inserted.push_str(&separator);
                plan.edits
                    .push(TextEdit::insert(args[keyword].range.start, inserted));
            }
            None => appended.append(positional_placeholders),
        }
    }
    appended.append(keyword_placeholders);
    if !appended.is_empty() {
        match kept.last() {
            None => plan
                .edits
                .push(TextEdit::insert(open + 1, appended.join(", "))),
            Some(&last) => {
                let end = args[last].range.end;
                let after_comma = if vertical && last + 1 == args.len() {
                    line_end_after_comma(text, end, close)
                } else {
                    None
                };
                let inserted: String = match after_comma {
                    Some(_) => appended
                        .iter()
                        .map(|a| format!("{eol}{indent}{a},"))
                        .collect(),
                    None => appended.iter().map(|a| format!("{separator}{a}")).collect(),
                };
                plan.edits
                    .push(TextEdit::insert(after_comma.unwrap_or(end), inserted));
            }
        }
    }
}

/// In a one-argument-per-line call whose last argument is followed by a comma: the end of that
/// line (after any comment), where a new argument line goes.
fn line_end_after_comma(text: &str, after_argument: usize, close: usize) -> Option<usize> {
    let rest = text.get(after_argument..close)?;
    let comma = rest
        .find(|c: char| c != ' ' && c != '\t')
        .filter(|&i| rest[i..].starts_with(','))?;
    let line = &rest[comma..];
    let newline = line.find('\n')?;
    if line[..newline].contains(')') {
        return None;
    }
    let end = if line[..newline].ends_with('\r') {
        newline - 1
    } else {
        newline
    };
    Some(after_argument + comma + end)
}

fn reference_finding(
    callee: &Callee<'_>,
    tree: &Tree,
    text: &str,
    path: &str,
    reference: &Reference,
    name: &str,
) -> Finding {
    let at = format!("{path}:{}", reference.line);
    let line = reference.line;
    let in_macro = || node_at(tree, &reference.range).is_some_and(in_macro);
    match reference.kind {
        ReferenceKind::Use if name != callee.name => {
            Finding::info(path, line, w::used_without_a_call(name, &at))
        }
        ReferenceKind::Use if callee.lang == Language::Rust && in_macro() => {
            Finding::warning(path, line, w::inside_a_macro(name, &at))
        }
        ReferenceKind::Use => Finding::warning(path, line, w::used_without_being_called(name, &at)),
        ReferenceKind::Decorator => Finding::warning(path, line, w::used_as_a_decorator(name, &at)),
        ReferenceKind::Import => match node_at(tree, &reference.range)
            .and_then(|n| callee.lang.syntax().import_alias(n, text))
        {
            // `from m import f as g` / `use m::f as g;`: calls of `g` are calls of `f`.
            Some(alias) => {
                Finding::warning(path, line, w::imported_under_an_alias(name, &alias, &at))
            }
            None => Finding::info(path, line, w::imported(name, &at)),
        },
        ReferenceKind::InString | ReferenceKind::InComment => {
            match text_mention(callee.lang, text, reference) {
                // Doc tests run: a call there breaks like any other call.
                TextMention::DocExample if !callee.new.accepts_every_call_of(&callee.old) => {
                    let how = if TextMention::is_call(text, &reference.range) {
                        "calls"
                    } else {
                        "uses"
                    };
                    Finding::warning(path, line, w::doc_example(&at, how, name))
                }
                TextMention::NameString if in_dunder_all(node_at(tree, &reference.range), text) => {
                    Finding::info(path, line, w::listed_in_dunder_all(name, &at))
                }
                TextMention::NameString => {
                    Finding::warning(path, line, w::names_in_a_string(&at, name))
                }
                _ if reference.kind == ReferenceKind::InString => {
                    Finding::info(path, line, w::in_a_string(name, &at))
                }
                _ => Finding::info(path, line, w::in_a_comment(name, &at)),
            }
        }
    }
}

/// Whether a Rust mention can be the function at all: a path prefix (`fmt` in `fmt::Result`)
/// names a module or type, and a method cannot be imported with `use`.
fn names_the_function(callee: &Callee<'_>, tree: &Tree, reference: &Reference) -> bool {
    if callee.owner.is_some() && reference.kind == ReferenceKind::Import {
        return false;
    }
    let Some(node) = node_at(tree, &reference.range) else {
        return true;
    };
    !is_path_prefix(node)
}

/// A Python stub (`mod.pyi`) next to the module (`mod.py`) declares the same functions.
fn is_stub_of(stub: &str, module: &str) -> bool {
    stub.strip_suffix(".pyi")
        .zip(module.strip_suffix(".py"))
        .is_some_and(|(a, b)| a == b)
}

/// Other definitions of the same name whose calls look like ours.
fn other_definitions(callee: &Callee<'_>, tree: &Tree, text: &str, path: &str) -> Vec<Finding> {
    let wanted_kind = match callee.owner {
        None => SymbolKind::Function,
        Some(_) if callee.constructor_of().is_some() => return Vec::new(),
        Some(_) if callee.has_receiver || callee.lang == Language::Python => SymbolKind::Method,
        Some(_) => return Vec::new(),
    };
    let computed;
    let symbols = if path == callee.definition.0 {
        callee.definition_outline
    } else {
        computed = outline(callee.lang, tree, text);
        &computed[..]
    };
    symbols
        .iter()
        .filter(|s| s.kind == wanted_kind && s.name == callee.name)
        .filter(|s| !(path == callee.definition.0 && s.name_range == callee.definition.1))
        .map(|s| {
            let message = if is_stub_of(path, callee.definition.0) {
                w::stub_keeps_the_old_signature(path, &s.name_path, s.line)
            } else {
                w::another_definition(&s.name_path, path, s.line)
            };
            Finding::warning(path, s.line, message)
        })
        .collect()
}

/// Source text for a message: on one line, at most 40 characters.
pub(super) fn quote(text: &str) -> String {
    let one_line = crate::text::collapse_whitespace(text);
    if one_line.chars().count() <= 40 {
        one_line
    } else {
        let cut: String = one_line.chars().take(39).collect();
        format!("{cut}…")
    }
}
