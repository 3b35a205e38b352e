//! Extract: a `break`/`continue` whose loop stayed outside the new function, a `?` the new
//! function's return type cannot take, an `await` in a function that is not async, a Python
//! `yield` that turned the new function into a generator.

use tree_sitter::Tree;

use crate::lang::Language;
use crate::lang::jumps::{JumpKind, jumps_leaving};
use crate::lang::symbols::Symbol;
use crate::refactor::Finding;

use super::wording as w;

/// The jumps of the new function `symbol` (in `text`, the file `path` after the extract, parsed
/// as `tree`) that land outside it.
pub(super) fn check(
    lang: Language,
    path: &str,
    text: &str,
    tree: &Tree,
    symbol: &Symbol,
) -> Vec<Finding> {
    let Some(node) = lang.syntax().function_named(tree, &symbol.name_range) else {
        return Vec::new();
    };
    // `yield from new(…)` at the call hands the generator's values on.
    let delegated = text.contains(&format!("yield from {}(", symbol.name));
    jumps_leaving(lang, node, text)
        .into_iter()
        .filter(|jump| !(jump.kind == JumpKind::Yield && delegated))
        .map(|jump| {
            Finding::error(
                path,
                jump.line,
                w::jump_leaves(jump.kind, &symbol.name, lang == Language::Rust),
            )
            .with_kind(w::JUMP_LEAVES)
        })
        .collect()
}
