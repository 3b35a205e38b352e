//! Writing a call's arranged arguments ([`by_name`](super::by_name)) as edits: the smallest
//! edits (runs of dropped arguments deleted with their separators, additions inserted in the
//! call's own layout) when the kept arguments keep their order, else the arguments written anew.
//! Pure text.

use super::by_name::Arranged;
use super::call_sites::CallPlan;
use super::wording as w;
use crate::edit::TextEdit;
use crate::lang::Language;
use crate::lang::calls::CallSite;
use crate::text::indentation_at;

/// Writes the arranged arguments: the smallest edits when the kept arguments stay in order and
/// what is added comes where [`argument_edits`] adds it; else the arguments anew, in the
/// call's layout (refused when comments sit between them: they would be lost).
pub(super) fn rewrite(
    plan: &mut CallPlan,
    text: &str,
    call: &CallSite,
    offset: usize,
    arranged: &Arranged,
    eol: &str,
    lang: Language,
) -> Result<(), String> {
    let args = &call.args;
    if let Some((keep, mut positional, mut keyword)) = in_place(text, call, offset, arranged) {
        argument_edits(
            plan,
            text,
            call,
            &keep,
            (&mut positional, &mut keyword),
            eol,
        );
        return Ok(());
    }
    let comment = |gap: &str| match lang {
        Language::Python => gap.contains('#'),
        Language::Rust => gap.contains("//") || gap.contains("/*"),
    };
    let gaps = args
        .windows(2)
        .skip(offset)
        .filter_map(|pair| text.get(pair[0].range.end..pair[1].range.start));
    if gaps.into_iter().any(comment) {
        return Err(w::comments_between_arguments(&plan.at));
    }
    let open = call.arguments_range.start;
    let close = call.arguments_range.end.saturating_sub(1);
    let vertical = args.get(offset).is_some_and(|a| {
        text.get(open..a.range.start)
            .is_some_and(|s| s.contains('\n'))
    });
    let separator = match args.get(offset) {
        Some(first) if vertical => format!(",{eol}{}", indentation_at(text, first.range.start)),
        _ => ", ".to_string(),
    };
    let joined = arranged
        .arguments
        .iter()
        .map(|a| a.text(text))
        .collect::<Vec<_>>()
        .join(&separator);
    let region = match (args.get(offset), args.last()) {
        (Some(first), Some(last)) if !joined.is_empty() => first.range.start..last.range.end,
        (Some(_), Some(last)) if offset > 0 => args[offset - 1].range.end..last.range.end,
        (Some(_), Some(_)) => open + 1..close,
        _ if offset > 0 => {
            let end = args[offset - 1].range.end;
            plan.edits
                .push(TextEdit::insert(end, format!(", {joined}")));
            return Ok(());
        }
        _ => {
            plan.edits.push(TextEdit::insert(open + 1, joined));
            return Ok(());
        }
    };
    for (i, _) in &arranged.dropped {
        if let Some(arg) = args.get(*i) {
            plan.deletions.push(arg.range.clone());
        }
    }
    plan.rebuilt = Some(region.clone());
    plan.edits.push(TextEdit::new(region, joined));
    Ok(())
}

/// When the arranged arguments are the call's own, in order, with additions only after the
/// positional ones (positional additions) and at the end (keyword additions): which arguments
/// stay, and the additions — the edits [`argument_edits`] makes.
fn in_place(
    text: &str,
    call: &CallSite,
    offset: usize,
    arranged: &Arranged,
) -> Option<(Vec<bool>, Vec<String>, Vec<String>)> {
    let args = &call.args;
    let mut keep = vec![false; args.len()];
    keep.iter_mut().take(offset).for_each(|k| *k = true);
    let (mut positional, mut keyword) = (Vec::new(), Vec::new());
    let mut phase = 0;
    let mut last_origin = None;
    for argument in &arranged.arguments {
        let this_phase = match (argument.origin, argument.keyword) {
            (Some(_), false) => 0,
            (None, false) => 1,
            (Some(_), true) => 2,
            (None, true) => 3,
        };
        if this_phase < phase {
            return None;
        }
        phase = this_phase;
        match argument.origin {
            Some(i) => {
                let unchanged = args.get(i).is_some_and(|a| argument.is_as_written(a, text));
                if !unchanged || last_origin.is_some_and(|l| l > i) {
                    return None;
                }
                last_origin = Some(i);
                keep[i] = true;
            }
            None if argument.keyword => keyword.push(argument.text(text).to_string()),
            None => positional.push(argument.text(text).to_string()),
        }
    }
    Some((keep, positional, keyword))
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
    // Only a vertical call needs it (the scan back to the line's start would cost a long line
    // of nested calls its length per call).
    let indent = match args.first() {
        Some(a) if vertical => indentation_at(text, a.range.start),
        _ => "",
    };
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
