//! The sentences of the behaviour guards: an extract's dropped result, a name that leaves a
//! package's public surface.

/// `line 7`, `lines 148–150`, `lines 3, 9–10`: sorted, deduplicated, runs joined by an en dash.
pub fn lines_label(lines: &[usize]) -> String {
    let mut lines = lines.to_vec();
    lines.sort_unstable();
    lines.dedup();
    let mut runs: Vec<(usize, usize)> = Vec::new();
    for line in lines.iter().copied() {
        match runs.last_mut() {
            Some((_, end)) if *end + 1 == line => *end = line,
            _ => runs.push((line, line)),
        }
    }
    let parts: Vec<String> = runs
        .iter()
        .map(|&(a, b)| {
            if a == b {
                a.to_string()
            } else {
                format!("{a}–{b}")
            }
        })
        .collect();
    let word = if lines.len() == 1 { "line" } else { "lines" };
    format!("{word} {}", parts.join(", "))
}

/// `lines 148–150 read `total``, `line 9 reads `a` and `b``, one clause per set of lines.
fn reads_clause(reads: &[(String, Vec<usize>)]) -> String {
    reads
        .iter()
        .map(|(name, lines)| {
            let label = lines_label(lines);
            let verb = if lines.len() == 1 { "reads" } else { "read" };
            format!("{label} {verb} `{name}`")
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The call of the new function is a statement of its own, and later code reads what the
/// extracted lines assigned.
pub fn result_dropped(function: &str, reads: &[(String, Vec<usize>)]) -> String {
    let names: Vec<String> = reads.iter().map(|(n, _)| format!("`{n}`")).collect();
    format!(
        "the result of `{function}` is dropped; {}, which the extracted lines assigned: return {} from `{function}` and bind {} at the call",
        reads_clause(reads),
        names.join(", "),
        if names.len() == 1 { "it" } else { "them" },
    )
}

/// The call binds something, but not every name later code reads from the extracted lines.
pub fn result_not_bound(function: &str, reads: &[(String, Vec<usize>)]) -> String {
    let names: Vec<String> = reads.iter().map(|(n, _)| format!("`{n}`")).collect();
    format!(
        "the call of `{function}` does not bind {}; {}, which the extracted lines assigned: return {} from `{function}` and bind {} at the call",
        names.join(", "),
        reads_clause(reads),
        if names.len() == 1 { "it" } else { "them" },
        if names.len() == 1 { "it" } else { "them" },
    )
}

/// The extracted lines yielded, and the call of the (now generator) function drops it.
pub fn yields_dropped(function: &str, caller: &str, yield_lines: &[usize]) -> String {
    format!(
        "the result of `{function}` is dropped; the extracted lines yielded ({}), so `{function}` is a generator that `{caller}` no longer yields from: write `yield from {function}(…)`",
        lines_label(yield_lines)
    )
}

/// The extracted lines returned a value, and the call drops it.
pub fn return_dropped(function: &str, caller: &str, return_lines: &[usize]) -> String {
    format!(
        "the result of `{function}` is dropped; the extracted lines returned a value ({}) that `{caller}` no longer returns: return what `{function}` gives back",
        lines_label(return_lines)
    )
}

/// A name that other code reached at `old_path` is now only at `new_path`; `who` reaches it
/// (`other crates`, `importers`), `re_export` says how to keep the old path. One sentence for
/// every language and backend (the Rust move's own note says it too).
pub fn public_api_moved(
    name: &str,
    old_path: &str,
    new_path: &str,
    who: &str,
    re_export: &str,
) -> String {
    format!(
        "`{name}` was public API at `{old_path}`; {who} now reach it at `{new_path}` (re-export it with {re_export} to keep the old path)"
    )
}

/// The Python re-export that keeps a moved name at its old module: `from .sets import
/// powerset` in `pkg/recipes.py`, with the name kept in its `__all__` when it was listed there.
pub fn python_move_re_export(import: &str, file: &str, name: &str, listed: bool) -> String {
    let all = if listed {
        format!(" (and `'{name}'` kept in its `__all__`)")
    } else {
        String::new()
    };
    format!("`{import}` in {file}{all}")
}

/// The Python alias that keeps a renamed name: `old = new` after its definition.
pub fn python_rename_re_export(old: &str, new: &str, file: &str, listed: bool) -> String {
    python_move_re_export(&format!("{old} = {new}"), file, old, listed)
}
