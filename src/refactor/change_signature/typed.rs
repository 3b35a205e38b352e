//! A parameter list typed as source text (`(a: i32, b: &str)`, `(self, a, b=1)`), for a front
//! end that lets the user edit the list as it is written (the TUI's form): read by
//! [`parse_parameters`] (the one reader of a written list, the language's own), then checked by
//! the very rules [`super::plan`] applies, without looking at call sites. One parser and one set
//! of rules for the JSON and the form. Pure.

use super::params::parse_parameters;
use super::wording as w;
use super::{function, python, rust};
use crate::lang::Language;
use crate::lang::symbols::{SymbolQuery, resolve};
use crate::refactor::{ChangeSignatureRequest, NewParameter, RefactorError, SourceError, Sources};

/// The list as typed: the entries as `new_parameters` (a receiver written first included, as
/// the engine expects it), and that receiver's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypedList {
    pub receiver: Option<String>,
    pub parameters: Vec<NewParameter>,
}

fn invalid(message: String) -> RefactorError {
    RefactorError::InvalidArgument {
        param: "new_parameters",
        message,
    }
}

/// Reads `text`, a parameter list of a `lang` function (`is_method`: it sits in a class, impl or
/// trait, so `self` may lead), with or without its parentheses.
pub fn read_typed_list(
    lang: Language,
    text: &str,
    is_method: bool,
) -> Result<TypedList, RefactorError> {
    let parsed = parse_parameters(lang, text, is_method)
        .map_err(|message| invalid(rust_default(lang, text).unwrap_or(message)))?;
    let mut parameters = Vec::new();
    if let Some(receiver) = &parsed.receiver {
        parameters.push(match (lang, receiver.split_once(':')) {
            (Language::Rust, Some((name, ty))) => NewParameter {
                name: name.trim().to_string(),
                ty: Some(ty.trim().to_string()),
                default: None,
            },
            _ => NewParameter {
                name: receiver.trim().to_string(),
                ty: None,
                default: None,
            },
        });
    }
    parameters.extend(parsed.parameters);
    Ok(TypedList {
        receiver: parsed.receiver.map(|r| r.trim().to_string()),
        parameters,
    })
}

/// A Rust list with a default value (`strict: bool = false`) does not parse; say so in the
/// words of someone editing the list rather than where the parser stopped.
fn rust_default(lang: Language, text: &str) -> Option<String> {
    if lang != Language::Rust {
        return None;
    }
    let mut depth = 0i32;
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    for (i, &(at, c)) in chars.iter().enumerate() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            '>' if i > 0 && chars[i - 1].1 != '-' => depth -= 1,
            '=' if depth <= 1 => {
                let before = i.checked_sub(1).map(|j| chars[j].1);
                let after = chars.get(i + 1).map(|&(_, c)| c);
                if matches!(before, Some('=' | '!' | '<' | '>')) || matches!(after, Some('=' | '>'))
                {
                    continue;
                }
                let rest = &text[at + 1..];
                let default = rest.split([',', ')']).next().unwrap_or("").trim();
                return Some(w::typed_rust_default(default));
            }
            _ => {}
        }
    }
    None
}

/// Checks `request.new_parameters` for the function of `request` with [`super::plan`]'s rules
/// (the definition's own list read from `sources`), without searching for call sites.
pub fn check_new_parameters(
    sources: &dyn Sources,
    request: &ChangeSignatureRequest,
) -> Result<(), RefactorError> {
    let path = request.file.as_str();
    let lang = Language::from_path(path)
        .ok_or_else(|| RefactorError::UnsupportedLanguage(path.to_string()))?;
    let file = sources.file(path)?.ok_or_else(|| SourceError::Missing {
        path: path.to_string(),
    })?;
    let store = sources.parsed();
    let tree = store.tree(lang, &file);
    let symbols = store.outline(lang, &file, &tree);
    let symbol = resolve(&symbols, &request.function, "function", |s| {
        s.kind.is_function()
    })?;
    let located = function::locate(lang, &tree, &file.text, symbol, &symbols)?;
    let name = &located.name_path;
    let old = lang
        .syntax()
        .parameter_list(located.parameters, &file.text, located.python_receiver())
        .map_err(|unreadable| {
            RefactorError::Unsupported(w::unreadable_parameter(
                name,
                &unreadable.kind,
                unreadable.line,
            ))
        })?;
    match lang {
        Language::Rust => rust::new_list(&old, &request.new_parameters, name).map(|_| ()),
        Language::Python => python::new_list(&old, &request.new_parameters, name).map(|_| ()),
    }
}

/// The query of a function by name path and line, as the TUI knows it.
pub fn function_query(name_path: &str, line: usize) -> SymbolQuery {
    SymbolQuery {
        name: name_path.to_string(),
        line: Some(line),
        column: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refactor::MemorySources;

    fn p(name: &str, ty: Option<&str>, default: Option<&str>) -> NewParameter {
        NewParameter {
            name: name.to_string(),
            ty: ty.map(str::to_string),
            default: default.map(str::to_string),
        }
    }

    #[test]
    fn lists_are_read_like_definitions() {
        let read = read_typed_list(
            Language::Rust,
            "(&'a mut self, mut total: u64, map: HashMap<K, V>, f: impl Fn(u8) -> bool,)",
            true,
        )
        .unwrap();
        assert_eq!(read.receiver.as_deref(), Some("&'a mut self"));
        assert_eq!(
            read.parameters,
            vec![
                p("&'a mut self", None, None),
                p("mut total", Some("u64"), None),
                p("map", Some("HashMap<K, V>"), None),
                p("f", Some("impl Fn(u8) -> bool"), None),
            ]
        );
        let read = read_typed_list(
            Language::Python,
            "self, x: int = 3, *args, key: dict[str, int] = {'a': 1}, **kw",
            true,
        )
        .unwrap();
        assert_eq!(read.receiver.as_deref(), Some("self"));
        assert_eq!(
            read.parameters,
            vec![
                p("self", None, None),
                p("x", Some("int"), Some("3")),
                p("*args", None, None),
                p("key", Some("dict[str, int]"), Some("{'a': 1}")),
                p("**kw", None, None),
            ]
        );
        assert_eq!(
            read_typed_list(Language::Rust, "()", false)
                .unwrap()
                .parameters,
            vec![]
        );
    }

    #[test]
    fn a_list_that_does_not_parse_says_where_in_the_forms_words() {
        let err = |lang, text| read_typed_list(lang, text, false).unwrap_err().to_string();
        let rust_default = err(Language::Rust, "(weight_grams: u64, strict: bool = false)");
        assert!(rust_default.contains("remove `= false`"), "{rust_default}");
        assert!(!rust_default.contains("\"default\""), "{rust_default}");
        assert!(err(Language::Rust, "(a: i32").contains("end with `)`"));
        assert!(
            !err(Language::Rust, "(f: impl Fn(u8) -> bool, x: i32 = 1)").contains("Fn(u8)"),
            "the default is found after a type with an arrow"
        );
        assert!(err(Language::Python, "(a,, b)").contains("does not parse"));
        assert!(err(Language::Python, "(class)").contains("does not parse"));
    }

    #[test]
    fn the_engines_rules_check_the_list() {
        let text = "def f(a, b=1):\n    pass\n";
        let sources = MemorySources::new().with("m.py", text);
        let request = |list: &str| ChangeSignatureRequest {
            file: "m.py".to_string(),
            function: function_query("f", 1),
            new_parameters: read_typed_list(Language::Python, list, false)
                .unwrap()
                .parameters,
        };
        assert!(check_new_parameters(&sources, &request("(a, b=1, c=2)")).is_ok());
        let err = check_new_parameters(&sources, &request("(a=1, c)")).unwrap_err();
        assert!(err.to_string().contains("default"), "{err}");
    }
}
