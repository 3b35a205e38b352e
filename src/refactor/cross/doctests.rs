//! Rust rename of a function or method: a documentation example (a fenced block of `///` or
//! `//!` lines, which `cargo test` compiles) that still calls the old name through its type or
//! module. rust-analyzer renamed semver's `Prerelease::new` everywhere but the crate's `//!`
//! example, and the doctest failed (E0599) with no finding.

use crate::lang::Language;
use crate::lang::callee::Function;
use crate::refactor::{Finding, RenameRequest};

use super::Project;
use super::wording as w;

pub(super) fn check(project: &Project<'_>, request: &RenameRequest) -> Vec<Finding> {
    if project.lang != Language::Rust {
        return Vec::new();
    }
    let Some(change) = project.change(&request.file) else {
        return Vec::new();
    };
    // The tree before is the store's (the rename read the definition's file whole).
    let tree = project.tree(change, false);
    let Some(function) = Function::find_in(
        project.lang,
        &request.file,
        &change.before,
        &tree,
        &request.symbol,
    ) else {
        return Vec::new();
    };
    let old = function.name.as_str();
    if old == request.new_name {
        return Vec::new();
    }
    // `Type::old(` for a method or an associated function; `module::old(` for a free one.
    let qualifier = match &function.owner {
        Some(owner) => owner.rsplit("::").next().unwrap_or(owner).to_string(),
        None => std::path::Path::new(&function.file)
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or("")
            .to_string(),
    };
    if qualifier.is_empty() {
        return Vec::new();
    }
    let written = format!("{qualifier}::{old}(");
    let mut findings = Vec::new();
    for (path, text) in project.files_mentioning_after(old) {
        // Only a line holding `Type::old(` is reported: a file without it has none (most files
        // that name a common method do not).
        if !text.contains(&written) {
            continue;
        }
        let mut in_code = false;
        for (index, line) in text.lines().enumerate() {
            let trimmed = line.trim_start();
            let Some(doc) = trimmed
                .strip_prefix("///")
                .or_else(|| trimmed.strip_prefix("//!"))
            else {
                in_code = false;
                continue;
            };
            if doc.trim_start().starts_with("```") {
                in_code = !in_code;
                continue;
            }
            let found = line
                .match_indices(&written)
                .any(|(at, _)| !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_'));
            if in_code && found {
                findings.push(
                    Finding::warning(
                        &path,
                        index + 1,
                        w::doc_example_left(&written[..written.len() - 1], &request.new_name),
                    )
                    .with_kind(w::DOC_EXAMPLE_LEFT),
                );
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::MemorySources;

    fn run(before: &str, after: &str) -> Vec<Finding> {
        let source = SourceFile::from_text("src/lib.rs", before);
        let changes = vec![
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap(),
        ];
        let sources = MemorySources::new().with("src/lib.rs", before);
        let project = Project::new(Language::Rust, &changes, &sources);
        let request = RenameRequest {
            file: "src/lib.rs".to_string(),
            symbol: SymbolQuery {
                name: "Pre/new".to_string(),
                line: None,
                column: None,
            },
            new_name: "create".to_string(),
            include_possible: Vec::new(),
        };
        check(&project, &request)
    }

    #[test]
    fn a_doc_example_calling_the_old_name_is_a_warning() {
        // rust-analyzer's rename of semver's `Prerelease::new` left the `//!` example.
        let before = "//! ```\n//! let p = Pre::new(1);\n//! let v = Vec::<u8>::new();\n//! ```\n//! Pre::new(2) outside the example is prose.\n\npub struct Pre(u8);\n\nimpl Pre {\n    pub fn new(v: u8) -> Pre {\n        Pre(v)\n    }\n}\n";
        let after = before.replace("pub fn new(", "pub fn create(");
        let found = run(before, &after);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 2);
        assert_eq!(found[0].kind, Some(w::DOC_EXAMPLE_LEFT));
        assert!(
            found[0].message.contains("`Pre::new`"),
            "{}",
            found[0].message
        );
        // Renamed in the example too: nothing to say.
        let both = after.replace("Pre::new(1)", "Pre::create(1)");
        assert_eq!(run(before, &both), vec![]);
    }
}
