//! Rust: the signature of a trait's method is the trait's. Changing it where the trait declares
//! it, or in one of its impls, changes it everywhere this project has it — the declaration and
//! every `impl Trait for T` — or nothing: one of them left with the old list does not compile
//! (E0050, E0053). A trait the project does not define (`Display`) is refused; so is an impl
//! whose parameters are named otherwise than the changed method's (the new list names them).

use std::collections::BTreeMap;

use crate::edit::{SourceFile, TextEdit};
use crate::lang::Language;
use crate::lang::params::ParamList;
use crate::lang::symbols::Symbol;
use crate::refactor::{ChangeSignatureRequest, Finding, RefactorError, Sources};

use super::function::{self, ChangedFunction};
use super::wording as w;

/// The other methods of the trait's family that change with the target.
#[derive(Debug, Default)]
pub(super) struct Siblings {
    /// (file as read, the new parameter list over the old one).
    pub edits: Vec<(SourceFile, TextEdit)>,
    pub findings: Vec<Finding>,
    /// `Trait/method (path:line)` of each, for the info finding.
    pub changed: Vec<String>,
    /// (path, line) of each: the call-site search's "another definition" warnings there are moot.
    pub at: Vec<(String, usize)>,
}

/// The declaration and impls of the target's trait method other than the target itself.
/// `read` holds the files the call-site search read (their edits must apply to the same text).
pub(super) fn siblings(
    sources: &dyn Sources,
    target: &ChangedFunction<'_>,
    target_at: (&str, usize),
    old: &ParamList,
    request: &ChangeSignatureRequest,
    read: &BTreeMap<String, SourceFile>,
) -> Result<Option<Siblings>, RefactorError> {
    let lang = Language::Rust;
    let Some(owner) = &target.owner else {
        return Ok(None);
    };
    let Some(trait_name) = owner.trait_name.as_deref() else {
        return Ok(None);
    };
    let store = sources.parsed();
    let mentioning = sources.word_sites(lang, trait_name)?.files;
    let mut declared = owner.in_trait;
    let mut found = Siblings::default();
    let names =
        |list: &ParamList| -> Vec<String> { list.params.iter().map(|p| p.name.clone()).collect() };
    for (searched, _) in &mentioning {
        let file = read.get(&searched.path).unwrap_or(searched);
        let tree = store.tree(lang, file);
        let outline: Vec<Symbol> = store.outline(lang, file, &tree);
        for symbol in outline
            .iter()
            .filter(|s| s.name == target.name && s.kind.is_function())
        {
            if (file.path.as_str(), symbol.line) == target_at {
                continue;
            }
            let Ok(other) = function::locate(lang, &tree, &file.text, symbol, &outline) else {
                continue;
            };
            let Some(other_owner) = other.owner.as_ref() else {
                continue;
            };
            if other_owner.trait_name.as_deref() != Some(trait_name) {
                continue;
            }
            declared |= other_owner.in_trait;
            let Ok(list) = lang
                .syntax()
                .parameter_list(other.parameters, &file.text, false)
            else {
                return Err(RefactorError::Unsupported(w::sibling_unreadable(
                    &other.name_path,
                    &file.path,
                    other.line,
                )));
            };
            if names(&list) != names(old) {
                return Err(RefactorError::Unsupported(w::sibling_named_otherwise(
                    &target.name_path,
                    &names(old),
                    &other.name_path,
                    &file.path,
                    other.line,
                    &names(&list),
                )));
            }
            let resolved = super::rust::new_list(&list, &request.new_parameters, &other.name_path)?;
            let (text, _) = super::new_list_text(&file.text, &list, &resolved.params);
            found.findings.extend(super::body_uses(
                lang,
                &other,
                &file.text,
                &file.path,
                &list,
                &resolved.params,
            ));
            found
                .edits
                .push((file.clone(), TextEdit::new(list.range.clone(), text)));
            found.changed.push(format!(
                "{} ({}:{})",
                other.name_path, file.path, other.line
            ));
            found.at.push((file.path.clone(), other.line));
        }
    }
    if !declared {
        return Err(RefactorError::Unsupported(w::library_trait(
            &target.name_path,
            trait_name,
        )));
    }
    Ok(Some(found))
}

#[cfg(test)]
mod tests {
    use crate::lang::Language;
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::{
        ChangeSignatureRequest, MemorySources, NewParameter, Plan, RefactorError,
    };

    fn change(
        sources: &MemorySources,
        name: &str,
        params: &[(&str, &str)],
    ) -> Result<Plan, RefactorError> {
        let request = ChangeSignatureRequest {
            file: "src/lib.rs".into(),
            function: SymbolQuery {
                name: name.into(),
                line: None,
                column: None,
            },
            new_parameters: params
                .iter()
                .map(|(n, t)| NewParameter {
                    name: n.to_string(),
                    ty: Some(t.to_string()),
                    default: None,
                })
                .collect(),
        };
        super::super::plan(sources, &request, Language::Rust)
    }

    const LIB: &str = "pub trait Speak {\n    fn speak(&self, times: u32) -> String;\n}\n\npub struct Dog;\n\nimpl Speak for Dog {\n    fn speak(&self, times: u32) -> String {\n        \"woof\".repeat(times as usize)\n    }\n}\n";
    const CAT: &str = "use crate::Speak;\n\npub struct Cat;\n\nimpl Speak for Cat {\n    fn speak(&self, times: u32) -> String {\n        \"meow\".repeat(times as usize)\n    }\n}\n";

    #[test]
    fn changing_an_impl_of_the_projects_trait_changes_the_declaration_and_every_impl() {
        let sources = MemorySources::new()
            .with("src/lib.rs", LIB)
            .with("src/cat.rs", CAT);
        let plan = change(&sources, "Dog/speak", &[("times", "u32"), ("loud", "bool")]).unwrap();
        let after = |path: &str| {
            plan.changes
                .iter()
                .find(|c| c.path == path)
                .map(|c| c.after.clone())
                .unwrap_or_else(|| panic!("{path} unchanged"))
        };
        let lib = after("src/lib.rs");
        assert!(
            lib.contains("fn speak(&self, times: u32, loud: bool) -> String;"),
            "{lib}"
        );
        assert!(
            lib.contains("fn speak(&self, times: u32, loud: bool) -> String {"),
            "{lib}"
        );
        let cat = after("src/cat.rs");
        assert!(
            cat.contains("fn speak(&self, times: u32, loud: bool) -> String {"),
            "{cat}"
        );
        assert!(
            !plan
                .findings
                .iter()
                .any(|f| f.message.contains("keep the old signature")),
            "{:?}",
            plan.findings
        );
    }

    #[test]
    fn an_impl_of_a_trait_the_project_does_not_define_is_refused() {
        let sources = MemorySources::new().with(
            "src/lib.rs",
            "use std::fmt;\n\npub struct N;\n\nimpl fmt::Display for N {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"n\")\n    }\n}\n",
        );
        let err = change(
            &sources,
            "N/fmt",
            &[("f", "&mut fmt::Formatter"), ("x", "u8")],
        )
        .unwrap_err();
        assert!(matches!(err, RefactorError::Unsupported(_)), "{err:?}");
        assert!(err.to_string().contains("`Display`"), "{err}");
    }

    #[test]
    fn an_impl_that_names_its_parameters_otherwise_is_refused_naming_it() {
        let sources = MemorySources::new().with("src/lib.rs", LIB).with(
            "src/cat.rs",
            &CAT.replace("times: u32", "n: u32")
                .replace("(times as", "(n as"),
        );
        let err = change(
            &sources,
            "Speak/speak",
            &[("times", "u32"), ("loud", "bool")],
        )
        .unwrap_err();
        assert!(err.to_string().contains("src/cat.rs:6"), "{err}");
    }
}
