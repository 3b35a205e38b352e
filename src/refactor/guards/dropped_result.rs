//! Extract function, on every backend: what the extracted lines handed to the rest of their
//! function (a name they assigned that later code reads, a value they yielded or returned) must
//! still reach it through the call. A call that is a statement of its own drops it (pylsp's
//! extract of `tail` left `tail_helper(iterable, n)` and the generator it makes unread); a call
//! that binds some names but not one later code reads loses that one.

use std::ops::Range;

use crate::edit::FileChange;
use crate::lang::calls::find_mentions;
use crate::lang::handed_back::{CallValue, call_value, value_return_lines, yield_lines};
use crate::lang::names::{Names, Role};
use crate::lang::symbols::{self, Symbol};
use crate::lang::{Language, syntax_errors};
use crate::refactor::{ExtractRequest, Finding, Severity};

use super::line_bytes;
use super::wording as w;

/// The findings for the result `changes` of `request` in `lang`. A dropped `return` that the
/// refactor already reported (a warning or error of `existing` on the `return`'s line, as the
/// heuristic's "`return` inside the selection" says) is not said twice.
pub fn check(
    lang: Language,
    changes: &[FileChange],
    request: &ExtractRequest,
    existing: &[Finding],
) -> Vec<Finding> {
    let Some(change) = changes.iter().find(|c| c.path == request.file) else {
        return Vec::new();
    };
    let before_tree = lang.parse(&change.before);
    let after_tree = lang.parse(&change.after);
    // A result that does not parse has its own finding.
    if !syntax_errors(&after_tree, &change.after).is_empty() {
        return Vec::new();
    }
    let selection = line_bytes(&change.before, request.start_line, request.end_line);
    let before_outline = symbols::outline(lang, &before_tree, &change.before);
    let Some(caller) = innermost_function(&before_outline, &selection) else {
        return Vec::new();
    };
    let Some(function) = lang
        .syntax()
        .function_named(&before_tree, &caller.name_range)
    else {
        return Vec::new();
    };
    let handed = Handed {
        yields: yield_lines(lang, function, &selection),
        returns: value_return_lines(lang, function, &selection),
        names: produced_names(lang, function, &change.before, &selection),
    };
    if handed.yields.is_empty() && handed.returns.is_empty() && handed.names.is_empty() {
        return Vec::new();
    }
    // The same function after the refactor, and the call of the new one in it.
    let after_outline = symbols::outline(lang, &after_tree, &change.after);
    let calls = find_mentions(lang, &after_tree, &change.after, &request.new_name).calls;
    let found = after_outline
        .iter()
        .filter(|s| s.kind.is_function() && s.name_path == caller.name_path)
        .filter_map(|s| {
            let node = lang.syntax().function_named(&after_tree, &s.name_range)?;
            let range = node.byte_range();
            let call = calls
                .iter()
                .find(|c| range.start <= c.range.start && c.range.end <= range.end)?;
            Some((node, call))
        })
        .next();
    let Some((after_fn, call)) = found else {
        // No call where the selection was: the cross-checks of extract say so.
        return Vec::new();
    };
    let names = Names::collect(lang, after_fn, &change.after);
    let lost = lost_names(&names, &handed.names, &change.after, &call.range);
    let value = call_value(lang, after_tree.root_node(), &call.range);
    let dropped = value != CallValue::Used;
    let new_name = &request.new_name;
    let message = if dropped && !handed.yields.is_empty() {
        w::yields_dropped(new_name, &caller.name, &handed.yields)
    } else if dropped && !lost.is_empty() {
        w::result_dropped(new_name, &lost)
    } else if value == CallValue::Dropped
        && !handed.returns.is_empty()
        && !handed.returns.iter().any(|line| {
            existing.iter().any(|f| {
                f.file == request.file && f.line == *line && f.severity >= Severity::Warning
            })
        })
    {
        // (`helper(x)?;` is how a Rust extract hands an early return back.)
        w::return_dropped(new_name, &caller.name, &handed.returns)
    } else if !lost.is_empty() {
        w::result_not_bound(new_name, &lost)
    } else {
        return Vec::new();
    };
    vec![Finding::error(&request.file, call.line, message)]
}

/// What the extracted lines handed to the rest of their function.
struct Handed {
    /// Lines (before the refactor) of the `yield`s.
    yields: Vec<usize>,
    /// Lines (before the refactor) of the `return`s with a value.
    returns: Vec<usize>,
    names: Vec<Produced>,
}

/// A name the extracted lines bind or assign and later code of the function reads.
struct Produced {
    name: String,
    /// Rust: an assignment to a binding from before the selection, which the new function may
    /// also update through a `&mut` argument.
    assigned: bool,
}

/// The innermost function whose body holds the whole selection.
fn innermost_function<'a>(outline: &'a [Symbol], selection: &Range<usize>) -> Option<&'a Symbol> {
    outline
        .iter()
        .filter(|s| {
            s.kind.is_function()
                && s.full_range.start <= selection.start
                && selection.end <= s.full_range.end
        })
        .min_by_key(|s| s.full_range.len())
}

/// The names the selection binds (visible after it) or, Rust, assigns, that a read after the
/// selection sees, in the order the selection first writes them.
fn produced_names(
    lang: Language,
    function: tree_sitter::Node<'_>,
    text: &str,
    selection: &Range<usize>,
) -> Vec<Produced> {
    let names = Names::collect(lang, function, text);
    let inside = |at: usize| selection.contains(&at);
    let mut out: Vec<Produced> = Vec::new();
    for o in names.all.iter().filter(|o| inside(o.pos)) {
        if out.iter().any(|p| p.name == o.name) {
            continue;
        }
        // The binding whose value leaves the selection, and whether it is an assignment.
        let (binding, assigned) = match o.role {
            Role::Bind if o.scope.end > selection.end => (o.pos, false),
            Role::Write => match names.resolve(&o.name, o.pos) {
                Some(b) if !inside(b.pos) => (b.pos, true),
                _ => continue,
            },
            _ => continue,
        };
        let read_later = names.all.iter().any(|r| {
            r.name == o.name
                && r.role == Role::Read
                && r.pos >= selection.end
                && names.resolve(&r.name, r.pos).is_some_and(|b| {
                    if assigned {
                        b.pos == binding
                    } else {
                        inside(b.pos)
                    }
                })
        });
        if read_later {
            out.push(Produced {
                name: o.name.clone(),
                assigned,
            });
        }
    }
    out
}

/// The produced names the call does not bind, with the lines (after the refactor) that read
/// them after the call and still see no newer binding.
fn lost_names(
    names: &Names,
    produced: &[Produced],
    text: &str,
    call: &Range<usize>,
) -> Vec<(String, Vec<usize>)> {
    let call_lines = line_of(text, call.start)..=line_of(text, call.end);
    let mut lost = Vec::new();
    for p in produced {
        let bound = names.all.iter().any(|o| {
            o.name == p.name
                && matches!(o.role, Role::Bind | Role::Write)
                && call_lines.contains(&o.line)
        });
        // An assigned Rust local handed over as an argument (`&mut total`) is updated in place.
        let passed = p.assigned
            && names
                .all
                .iter()
                .any(|o| o.name == p.name && call.contains(&o.pos));
        if bound || passed {
            continue;
        }
        let reads: Vec<usize> = names
            .all
            .iter()
            .filter(|o| o.name == p.name && o.role == Role::Read && o.pos >= call.end)
            .filter(|o| {
                names
                    .resolve(&o.name, o.pos)
                    .is_none_or(|b| b.pos < call.start)
            })
            .map(|o| o.line)
            .collect();
        if !reads.is_empty() {
            lost.push((p.name.clone(), reads));
        }
    }
    lost
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
#[path = "dropped_result_tests.rs"]
mod tests;
