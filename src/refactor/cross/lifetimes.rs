//! Rust extract: the new function returns a borrow whose lifetime elision cannot fill — no
//! parameter lends one, or several do and there is no `&self` (E0106). rust-analyzer's extract
//! of semver's `inline_as_str` wrote `fn part(ptr: *const u8, len: usize) -> &[u8]`.

use tree_sitter::Tree;

use crate::lang::Language;
use crate::lang::rust::elision::{
    Gap, STD_WITH_LIFETIME, declares_lifetime_parameter, missing_lifetime,
};
use crate::lang::symbols::Symbol;
use crate::refactor::Finding;

use super::Project;
use super::wording as w;

/// The finding for the new function `symbol` of `path` (its text after the extract, `tree`).
pub(super) fn check(
    project: &Project<'_>,
    path: &str,
    text: &str,
    tree: &Tree,
    symbol: &Symbol,
) -> Option<Finding> {
    if project.lang != Language::Rust {
        return None;
    }
    let node = project
        .lang
        .syntax()
        .function_named(tree, &symbol.name_range)?;
    // A type of the crate declared with a lifetime parameter may be written without it.
    let hides = |name: &str| {
        STD_WITH_LIFETIME.contains(&name)
            || project
                .files_mentioning_after(name)
                .iter()
                .any(|(_, text)| declares_lifetime_parameter(text, name))
    };
    let (returned, gap) = missing_lifetime(node, text, &hides)?;
    let inputs = match gap {
        Gap::NoInput => 0,
        Gap::Several(n) => n,
    };
    let returned = returned.trim_start_matches("->").trim();
    Some(
        Finding::error(
            path,
            symbol.line,
            w::missing_lifetime(&symbol.name, returned, inputs),
        )
        .with_kind(w::MISSING_LIFETIME),
    )
}

#[cfg(test)]
mod tests {
    use crate::edit::{FileChange, SourceFile};
    use crate::lang::Language;
    use crate::refactor::{ExtractRequest, Finding, MemorySources, Request};

    use super::w;

    /// The cross-checks of an extract of lines 4–4 of `before` into `part`, giving `after`.
    fn run(before: &str, after: &str, others: &[(&str, &str)]) -> Vec<Finding> {
        let source = SourceFile::from_text("src/lib.rs", before);
        let changes = vec![
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap(),
        ];
        let mut sources = MemorySources::new().with("src/lib.rs", before);
        for (path, text) in others {
            sources = sources.with(path, text);
        }
        let request = Request::Extract(ExtractRequest {
            file: "src/lib.rs".to_string(),
            start_line: 4,
            end_line: 4,
            new_name: "part".to_string(),
        });
        crate::refactor::cross::check(&request, Language::Rust, &changes, &sources, &[])
    }

    const BEFORE: &str = "pub fn view(v: &Vec<u8>) -> &str {\n    let ptr = v.as_ptr();\n    let len = v.len();\n    let slice = unsafe { std::slice::from_raw_parts(ptr, len) };\n    std::str::from_utf8(slice).unwrap()\n}\n";

    #[test]
    fn rust_analyzers_borrow_from_a_raw_pointer_is_an_error() {
        // What rust-analyzer wrote for semver's `inline_as_str` (E0106).
        let after = "pub fn view(v: &Vec<u8>) -> &str {\n    let ptr = v.as_ptr();\n    let len = v.len();\n    let slice = part(ptr, len);\n    std::str::from_utf8(slice).unwrap()\n}\n\nfn part(ptr: *const u8, len: usize) -> &[u8] {\n    let slice = unsafe { std::slice::from_raw_parts(ptr, len) };\n    slice\n}\n";
        let found = run(BEFORE, after, &[]);
        let found: Vec<_> = found
            .iter()
            .filter(|f| f.kind == Some(w::MISSING_LIFETIME))
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 8);
        assert!(
            found[0].message.contains("`part` returns `&[u8]`")
                && found[0].message.contains("E0106"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn two_borrowed_inputs_and_no_self_is_an_error_one_is_fine() {
        let two = "pub fn view(v: &Vec<u8>) -> &str {\n    let ptr = v.as_ptr();\n    let len = v.len();\n    let slice = part(v, &len);\n    std::str::from_utf8(slice).unwrap()\n}\n\nfn part<'a>(v: &'a Vec<u8>, len: &usize) -> &[u8] {\n    &v[..*len]\n}\n";
        let found = run(BEFORE, two, &[]);
        assert!(
            found
                .iter()
                .any(|f| f.kind == Some(w::MISSING_LIFETIME)
                    && f.message.contains("takes 2 references")),
            "{found:?}"
        );
        let one = "pub fn view(v: &Vec<u8>) -> &str {\n    let ptr = v.as_ptr();\n    let len = v.len();\n    let slice = part(v, len);\n    std::str::from_utf8(slice).unwrap()\n}\n\nfn part(v: &Vec<u8>, len: usize) -> &[u8] {\n    &v[..len]\n}\n";
        assert!(
            !run(BEFORE, one, &[])
                .iter()
                .any(|f| f.kind == Some(w::MISSING_LIFETIME))
        );
    }

    #[test]
    fn a_crate_type_with_a_lifetime_parameter_may_lend_it() {
        // `Cursor` is declared `Cursor<'a>` in another file: `c: Cursor` hides a lifetime.
        let after = "pub fn view(v: &Vec<u8>) -> &str {\n    let ptr = v.as_ptr();\n    let len = v.len();\n    let slice = part(c);\n    std::str::from_utf8(slice).unwrap()\n}\n\nfn part(c: Cursor) -> &[u8] {\n    c.rest\n}\n";
        let cursor = "pub struct Cursor<'a> {\n    pub rest: &'a [u8],\n}\n";
        assert!(
            !run(BEFORE, after, &[("src/cursor.rs", cursor)])
                .iter()
                .any(|f| f.kind == Some(w::MISSING_LIFETIME))
        );
        let plain = "pub struct Cursor {\n    pub at: usize,\n}\n";
        assert!(
            run(BEFORE, after, &[("src/cursor.rs", plain)])
                .iter()
                .any(|f| f.kind == Some(w::MISSING_LIFETIME))
        );
    }
}
