//! Call sites of the changed function in one file: which calls are its calls (by the form of the
//! call, never by types), their arguments laid on the new signature by name ([`by_name`]), the
//! smallest edits that write that (or the arguments anew when they are re-ordered), and a
//! finding for every call and every mention that is not a call.

use super::arguments;
use super::by_name;
use super::wording as w;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::function::MethodOwner;
use super::params::Signature;
use crate::cancel::Cancel;
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
use crate::text::line_ending;

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

#[derive(Debug, Clone, Default)]
pub(super) struct FileOutcome {
    pub edits: Vec<TextEdit>,
    /// The edits of each call rewritten, call by call (the sites of the plan).
    pub calls: Vec<Vec<TextEdit>>,
    pub findings: Vec<Finding>,
    /// Calls whose arguments changed.
    pub updated: usize,
    pub done: Done,
}

enum Decision {
    /// The call is taken for a call of the function; `explicit_receiver` when its first argument
    /// is the receiver (`Type::m(obj, a)`, `Class.m(obj, a)`).
    Rewrite { explicit_receiver: bool },
    /// Not a call of this function (a different one of the same name, as far as the form says).
    Skip(String),
}

pub(super) struct CallPlan {
    pub range: Range<usize>,
    /// Where the call is, for messages.
    pub at: String,
    pub line: usize,
    pub edits: Vec<TextEdit>,
    pub deletions: Vec<Range<usize>>,
    /// The arguments' text written anew (re-ordered): a call inside it is not edited on its own.
    pub rebuilt: Option<Range<usize>>,
    pub findings: Vec<Finding>,
    /// What was done, for the caveat note.
    pub done: Done,
}

/// What change signature did to the calls, for the note under its caveat.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(super) struct Done {
    /// Calls whose arguments were re-ordered by name.
    pub reordered: usize,
    /// Old parameter name → calls that dropped its argument.
    pub dropped: std::collections::BTreeMap<String, usize>,
    /// New Rust parameter name → calls given the value for its callers.
    pub defaults: std::collections::BTreeMap<String, usize>,
    /// New Python parameter name → calls that leave it to its default.
    pub left_to_default: std::collections::BTreeMap<String, usize>,
}

impl Done {
    pub fn add(&mut self, other: &Done) {
        self.reordered += other.reordered;
        for (name, n) in &other.dropped {
            *self.dropped.entry(name.clone()).or_default() += n;
        }
        for (name, n) in &other.defaults {
            *self.defaults.entry(name.clone()).or_default() += n;
        }
        for (name, n) in &other.left_to_default {
            *self.left_to_default.entry(name.clone()).or_default() += n;
        }
    }
}

/// Finds and rewrites the calls in `file`, and reports every other mention. `tree` is a tree of
/// the file that holds at least the statements around the search words and their enclosing
/// blocks (`Sources::parse_around_words`).
/// Stops early (the outcome then incomplete) once `cancel` is set: the caller checks it after.
/// The locals of the name come from `store` (the references engine's judge asked the same).
pub(super) fn rewrite_file(
    callee: &Callee<'_>,
    store: &dyn crate::refactor::ParsedFiles,
    file: &SourceFile,
    tree: &Tree,
    cancel: &Cancel,
) -> FileOutcome {
    let (lang, text, path) = (callee.lang, &*file.text, file.path.as_str());
    let locals = crate::refactor::sources::locals_of(store, lang, file, tree, callee.name);
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
        if cancel.is_cancelled() {
            return outcome;
        }
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
    // list (which is rewritten whole), is not edited on its own. (A call's own deletions lie
    // inside its argument list: they never span the call itself.)
    let deletions = Spans::new(plans.iter().flat_map(|p| p.deletions.iter().cloned()));
    let rebuilt = Spans::new(plans.iter().filter_map(|p| p.rebuilt.clone()));
    let swallowed = |plan: &CallPlan| {
        let inside = |r: &Range<usize>| r.start <= plan.range.start && plan.range.end <= r.end;
        (is_definition_file && inside(&callee.definition.2)) || deletions.contain(&plan.range)
    };
    let keep: Vec<bool> = plans.iter().map(|p| !swallowed(p)).collect();
    for (plan, keep) in plans.into_iter().zip(keep) {
        if !keep {
            continue;
        }
        // Inside the re-written arguments of another call: its own edits cannot be made.
        if rebuilt.contain(&plan.range) {
            if !plan.edits.is_empty() {
                outcome.findings.push(Finding::warning(
                    path,
                    plan.line,
                    w::inside_reordered_arguments(&plan.at),
                ));
            }
            continue;
        }
        if !plan.edits.is_empty() {
            outcome.updated += 1;
        }
        outcome.done.add(&plan.done);
        if !plan.edits.is_empty() {
            outcome.calls.push(plan.edits.clone());
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

/// Ranges, asked whether one of them spans a range: sorted by start with the furthest end so
/// far, so that thousands of calls each dropping an argument stay `n log n`.
struct Spans {
    starts: Vec<usize>,
    furthest_end: Vec<usize>,
}

impl Spans {
    fn new(ranges: impl Iterator<Item = Range<usize>>) -> Spans {
        let mut ranges: Vec<Range<usize>> = ranges.collect();
        ranges.sort_by_key(|r| r.start);
        let mut furthest = 0;
        let furthest_end = ranges
            .iter()
            .map(|r| {
                furthest = furthest.max(r.end);
                furthest
            })
            .collect();
        Spans {
            starts: ranges.iter().map(|r| r.start).collect(),
            furthest_end,
        }
    }

    /// Whether one of the ranges starts at or before `range` and ends at or after it.
    fn contain(&self, range: &Range<usize>) -> bool {
        let starting_before = self.starts.partition_point(|&s| s <= range.start);
        starting_before > 0 && self.furthest_end[starting_before - 1] >= range.end
    }
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

pub(super) fn placeholder(lang: Language, name: &str) -> String {
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
        at: at.to_string(),
        line: call.line,
        edits: Vec::new(),
        deletions: Vec::new(),
        rebuilt: None,
        findings: Vec::new(),
        done: Done::default(),
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
    let arranged = match by_name::arrange(callee, call, text, at, offset) {
        Ok(arranged) => arranged,
        Err(why) => {
            plan.findings.push(Finding::warning(path, call.line, why));
            return plan;
        }
    };
    // Compared by position: texts of a deep nest would cost the rest of the nest per call.
    let unchanged = arranged.arguments.len() == args.len().saturating_sub(offset)
        && arranged
            .arguments
            .iter()
            .zip(args.iter().skip(offset))
            .all(|(new, old)| new.is_as_written(old, text));
    if unchanged {
        plan.findings.push(Finding::info(
            path,
            call.line,
            w::call_unchanged(at, args.len()),
        ));
        return plan;
    }
    let generator = args.len() == 1
        && args
            .first()
            .is_some_and(|a| a.range == call.arguments_range);
    if generator {
        plan.findings.push(Finding::warning(
            path,
            call.line,
            w::bare_generator_argument(at, &new.takes()),
        ));
        return plan;
    }
    if let Err(why) = arguments::rewrite(&mut plan, text, call, offset, &arranged, eol, callee.lang)
    {
        plan.findings.push(Finding::warning(path, call.line, why));
        return plan;
    }
    call_notes(&mut plan, callee, call, text, path, at, &arranged);
    plan.findings.push(Finding::info(
        path,
        call.line,
        w::call_updated(at, args.len(), offset + arranged.arguments.len()),
    ));
    plan
}

/// The findings about one rewritten call: arguments dropped, values and placeholders added,
/// arguments now evaluated in another order; and what was done, for the caveat note.
fn call_notes(
    plan: &mut CallPlan,
    callee: &Callee<'_>,
    call: &CallSite,
    text: &str,
    path: &str,
    at: &str,
    arranged: &by_name::Arranged,
) {
    let value_of = |i: usize| {
        call.args
            .get(i)
            .and_then(|a| text.get(a.value_range.clone()))
            .unwrap_or("")
    };
    for (i, name) in &arranged.dropped {
        let value = value_of(*i);
        let message = w::dropped_argument_of(at, &quote(value), name);
        plan.findings.push(if is_plain_value(value) {
            Finding::info(path, call.line, message)
        } else {
            Finding::warning(path, call.line, w::dropped_effects(&message))
        });
        *plan.done.dropped.entry(name.clone()).or_default() += 1;
    }
    for (name, value) in &arranged.placeholders {
        plan.findings.push(Finding::warning(
            path,
            call.line,
            w::placeholder_argument(at, name, value),
        ));
    }
    for name in &arranged.defaults {
        let value = callee
            .new
            .positional
            .iter()
            .find(|s| s.name == *name)
            .and_then(|s| s.passed_default.as_deref())
            .unwrap_or("");
        plan.findings.push(Finding::info(
            path,
            call.line,
            w::default_passed(at, name, value),
        ));
        *plan.done.defaults.entry(name.clone()).or_default() += 1;
    }
    for name in &arranged.left_to_default {
        *plan.done.left_to_default.entry(name.clone()).or_default() += 1;
    }
    if arranged.moved {
        plan.done.reordered += 1;
        let effects: Vec<&str> = arranged
            .arguments
            .iter()
            .filter_map(|a| a.origin)
            .map(value_of)
            .filter(|v| !is_plain_value(v))
            .collect();
        if effects.len() > 1 {
            plan.findings.push(Finding::warning(
                path,
                call.line,
                w::evaluation_order_changed(
                    at,
                    &effects.iter().map(|e| quote(e)).collect::<Vec<_>>(),
                ),
            ));
        }
    }
}

/// Whether evaluating the argument `value` can have no effect and cannot fail in a way that
/// matters when it is dropped or moved: a name, a path, a literal.
fn is_plain_value(value: &str) -> bool {
    let value = value.trim().trim_start_matches('&');
    let quoted = |q: char| value.len() >= 2 && value.starts_with(q) && value.ends_with(q);
    !value.is_empty()
        && (value
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '-'))
            || ((quoted('"') || quoted('\'')) && !value.contains('{')))
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
    } else if !crate::lang::symbols::defines_function_named(tree, text, callee.name) {
        // Most files only call it: no outline to build.
        return Vec::new();
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
            Finding::warning(path, s.line, message).with_kind(w::ANOTHER_DEFINITION)
        })
        .collect()
}

/// Source text for a message: on one line, at most 40 characters.
pub(super) fn quote(text: &str) -> String {
    // Only the start is shown, and only the start is read (an argument may hold a deep nest).
    let head = match text.char_indices().nth(200) {
        Some((end, _)) => &text[..end],
        None => text,
    };
    let one_line = crate::text::collapse_whitespace(head);
    if head.len() == text.len() && one_line.chars().count() <= 40 {
        one_line
    } else {
        let cut: String = one_line.chars().take(39).collect();
        format!("{cut}…")
    }
}
