//! The arguments of one call laid out on the new signature by name: each argument follows the
//! old parameter it was passed for to that parameter's new place; an argument whose parameter is
//! gone is dropped; a new parameter gets nothing when it has a default (Python), the value given
//! for its callers (Rust), or a placeholder. Python keyword arguments keep their names, and an
//! argument that can no longer be passed in its position is passed by keyword. What cannot be
//! mapped (an argument for `*args` or `**kwargs` that the new list no longer takes, a keyword
//! the old list did not have) is a reason to leave the call alone, never a guess. Pure.

use std::collections::HashMap;

use super::call_sites::{Callee, quote};
use super::params::Slot;
use super::wording as w;
use crate::lang::Language;
use crate::lang::calls::CallSite;

/// One argument of the new call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NewArgument {
    /// What to write: a range of the file (an argument kept as it is written, never copied:
    /// `f(f(f(..)))` nested deep would copy the rest of the nest for each call) or new text.
    pub piece: Piece,
    /// The index in the call's arguments of the argument it is (its text may gain a keyword).
    pub origin: Option<usize>,
    pub keyword: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Piece {
    Original(std::ops::Range<usize>),
    Written(String),
}

impl NewArgument {
    /// Its text, read from the file's `text` when it is the argument as written.
    pub fn text<'a>(&'a self, text: &'a str) -> &'a str {
        match &self.piece {
            Piece::Original(range) => text.get(range.clone()).unwrap_or(""),
            Piece::Written(written) => written,
        }
    }

    /// Whether it is `arg` exactly as written (compared by position, not by text).
    pub fn is_as_written(&self, arg: &crate::lang::calls::Argument, text: &str) -> bool {
        match &self.piece {
            Piece::Original(range) => *range == arg.range,
            Piece::Written(written) => text.get(arg.range.clone()) == Some(written.as_str()),
        }
    }
}

/// A call's arguments on the new signature, and what was done to get there.
#[derive(Debug, Clone, Default)]
pub(super) struct Arranged {
    /// Positional arguments first, then keyword ones; the receiver argument left out.
    pub arguments: Vec<NewArgument>,
    /// Each dropped argument: its index and the old parameter it was for.
    pub dropped: Vec<(usize, String)>,
    /// New Rust parameters given the value for their callers.
    pub defaults: Vec<String>,
    /// New Python parameters left to their default.
    pub left_to_default: Vec<String>,
    /// New parameters given a placeholder: (name, placeholder).
    pub placeholders: Vec<(String, String)>,
    /// An argument now goes to another position than before.
    pub moved: bool,
}

/// Lays the arguments of `call` (after `offset` explicit receiver arguments) on the new
/// signature; `Err` is why the call cannot be mapped (the call is then left as it is).
pub(super) fn arrange(
    callee: &Callee<'_>,
    call: &CallSite,
    text: &str,
    at: &str,
    offset: usize,
) -> Result<Arranged, String> {
    let passed = passed_by_old_name(callee, call, text, at, offset)?;
    let (old, new) = (&callee.old, &callee.new);
    let args = &call.args;
    let mut arranged = Arranged::default();
    let mut positional: Vec<NewArgument> = Vec::new();
    let mut keywords: Vec<NewArgument> = Vec::new();
    // Keyword arguments candor adds go last: the call's own keep their order and place.
    let mut added_keywords: Vec<NewArgument> = Vec::new();
    // Once a parameter is skipped or a keyword written, the rest must be passed by keyword.
    let mut by_keyword = false;
    for slot in &new.positional {
        let source = slot
            .continues
            .as_deref()
            .and_then(|name| passed.by_name.get(name))
            .copied();
        match source {
            Some(i) => {
                let keyword = by_keyword || args[i].keyword.is_some();
                if keyword && slot.positional_only {
                    return Err(w::cannot_pass_by_keyword(at, &slot.name));
                }
                let argument = written(callee.lang, text, &args[i], i, slot, keyword);
                if keyword {
                    by_keyword = true;
                    keywords.push(argument);
                } else {
                    positional.push(argument);
                }
            }
            None => match (&slot.passed_default, slot.has_default) {
                (Some(value), _) if !by_keyword => {
                    arranged.defaults.push(slot.name.clone());
                    positional.push(added(value.clone(), None));
                }
                (_, true) => {
                    if slot.continues.is_none() {
                        arranged.left_to_default.push(slot.name.clone());
                    }
                    by_keyword = true;
                }
                _ => {
                    let value = super::call_sites::placeholder(callee.lang, &slot.name);
                    arranged
                        .placeholders
                        .push((slot.name.clone(), value.clone()));
                    if by_keyword {
                        added_keywords.push(added(format!("{}={value}", slot.name), Some(())));
                    } else {
                        positional.push(added(value, None));
                    }
                }
            },
        }
    }
    if !passed.extra_positional.is_empty() {
        if new.var_positional.is_none() || by_keyword {
            let first = passed.extra_positional[0];
            return Err(w::extra_positional_unmapped(
                at,
                &quote(arg_text(text, call, first)),
                old.var_positional.as_deref().unwrap_or("*args"),
            ));
        }
        positional.extend(passed.extra_positional.iter().map(|&i| NewArgument {
            piece: Piece::Original(args[i].range.clone()),
            origin: Some(i),
            keyword: false,
        }));
    }
    for slot in &new.keyword_only {
        let source = slot
            .continues
            .as_deref()
            .and_then(|name| passed.by_name.get(name))
            .copied();
        match source {
            Some(i) => keywords.push(written(callee.lang, text, &args[i], i, slot, true)),
            None if slot.has_default => {
                if slot.continues.is_none() {
                    arranged.left_to_default.push(slot.name.clone());
                }
            }
            None => {
                let value = super::call_sites::placeholder(callee.lang, &slot.name);
                arranged
                    .placeholders
                    .push((slot.name.clone(), value.clone()));
                added_keywords.push(added(format!("{}={value}", slot.name), Some(())));
            }
        }
    }
    if !passed.extra_keyword.is_empty() {
        if !new.var_keyword {
            let first = passed.extra_keyword[0];
            return Err(w::extra_keyword_unmapped(
                at,
                &quote(arg_text(text, call, first)),
            ));
        }
        keywords.extend(passed.extra_keyword.iter().map(|&i| NewArgument {
            piece: Piece::Original(args[i].range.clone()),
            origin: Some(i),
            keyword: true,
        }));
    }
    // The call's keyword arguments keep their order (and so the order they are evaluated in).
    keywords.sort_by_key(|a| a.origin);
    arranged.arguments = positional;
    arranged.arguments.extend(keywords);
    arranged.arguments.extend(added_keywords);
    let used: Vec<usize> = arranged.arguments.iter().filter_map(|a| a.origin).collect();
    for (name, &i) in &passed.by_name {
        if !used.contains(&i) {
            arranged.dropped.push((i, name.to_string()));
        }
    }
    arranged.dropped.sort();
    arranged.moved = used.windows(2).any(|pair| pair[0] > pair[1]);
    Ok(arranged)
}

/// The call's arguments by the old parameter they were passed for, and those that went to
/// `*args` / `**kwargs`.
struct Passed<'c> {
    by_name: HashMap<&'c str, usize>,
    extra_positional: Vec<usize>,
    extra_keyword: Vec<usize>,
}

fn passed_by_old_name<'c>(
    callee: &'c Callee<'_>,
    call: &'c CallSite,
    text: &str,
    at: &str,
    offset: usize,
) -> Result<Passed<'c>, String> {
    let old = &callee.old;
    let mut passed = Passed {
        by_name: HashMap::new(),
        extra_positional: Vec::new(),
        extra_keyword: Vec::new(),
    };
    let mut next = 0usize;
    for (i, arg) in call.args.iter().enumerate().skip(offset) {
        let name = match &arg.keyword {
            None => {
                let slot = old.positional.get(next);
                next += 1;
                match slot {
                    Some(slot) => slot.name.as_str(),
                    None if old.var_positional.is_some() => {
                        passed.extra_positional.push(i);
                        continue;
                    }
                    None => {
                        return Err(w::more_arguments_than_parameters(
                            at,
                            &quote(arg_text(text, call, i)),
                        ));
                    }
                }
            }
            Some(keyword) => match old
                .positional
                .iter()
                .chain(&old.keyword_only)
                .find(|s| s.name == *keyword)
            {
                Some(slot) => slot.name.as_str(),
                None if old.var_keyword => {
                    passed.extra_keyword.push(i);
                    continue;
                }
                None => return Err(w::unknown_keyword_argument(at, keyword)),
            },
        };
        if passed.by_name.insert(name, i).is_some() {
            return Err(w::passed_twice_in_the_call(at, name));
        }
    }
    Ok(passed)
}

fn arg_text<'t>(text: &'t str, call: &CallSite, i: usize) -> &'t str {
    call.args
        .get(i)
        .and_then(|a| text.get(a.range.clone()))
        .unwrap_or("")
}

/// The argument `i` written for `slot`: as it was when it keeps its form, else `name=value`.
fn written(
    lang: Language,
    text: &str,
    arg: &crate::lang::calls::Argument,
    i: usize,
    slot: &Slot,
    keyword: bool,
) -> NewArgument {
    let piece = match (keyword, arg.keyword.as_deref()) {
        (true, Some(k)) if k == slot.name => Piece::Original(arg.range.clone()),
        (true, _) if lang == Language::Python => {
            let value = text.get(arg.value_range.clone()).unwrap_or("");
            Piece::Written(format!("{}={value}", slot.name))
        }
        _ => Piece::Original(arg.value_range.clone()),
    };
    NewArgument {
        piece,
        origin: Some(i),
        keyword,
    }
}

/// An argument candor adds (a default value, a placeholder); `keyword` when written `name=`.
fn added(text: String, keyword: Option<()>) -> NewArgument {
    NewArgument {
        piece: Piece::Written(text),
        origin: None,
        keyword: keyword.is_some(),
    }
}
