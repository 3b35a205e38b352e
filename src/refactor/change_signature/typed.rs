//! A parameter list typed as source text (`(a: i32, b: &str)`, `(self, a, b=1)`), for a front
//! end that lets the user edit the list as it is written (the TUI's form): read by this
//! module's own reader of a definition's list (the text is parsed as a definition), then
//! checked by the very rules [`super::plan`] applies, without looking at call sites. One parser
//! and one set of rules for the JSON and the form. Pure.

use super::params::ParamKind;
use super::{python, rust, target};
use crate::lang::symbols::{SymbolQuery, resolve};
use crate::lang::{Language, syntax_errors};
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
    let trimmed = text.trim();
    let inner = match (trimmed.strip_prefix('('), trimmed.strip_suffix(')')) {
        (Some(_), Some(_)) => &trimmed[1..trimmed.len() - 1],
        (Some(_), None) => return Err(invalid("the list must end with `)`".to_string())),
        (None, Some(_)) => return Err(invalid("the list must start with `(`".to_string())),
        (None, None) => trimmed,
    };
    // The list as the parameters of a definition; every byte of `inner` keeps its offset.
    let (before, after) = match (lang, is_method) {
        (Language::Rust, false) => ("fn __candor__(", ") {}\n"),
        (Language::Rust, true) => ("impl __Candor__ { fn __candor__(", ") {} }\n"),
        (Language::Python, false) => ("def __candor__(", "):\n    pass\n"),
        (Language::Python, true) => (
            "class __Candor__:\n    def __candor__(",
            "):\n        pass\n",
        ),
    };
    let source = format!("{before}{inner}{after}");
    let tree = lang.parse(&source);
    let inside = before.len()..before.len() + inner.len();
    if let Some(error) = syntax_errors(&tree, &source).into_iter().next() {
        return Err(invalid(describe_error(
            lang,
            &source,
            &inside,
            error.column,
            &error.description,
        )));
    }
    let symbols = crate::lang::symbols::outline(lang, &tree, &source);
    let symbol = symbols
        .iter()
        .find(|s| s.name == "__candor__")
        .ok_or_else(|| invalid("the list cannot be read".to_string()))?;
    let located = target::locate(lang, &tree, &source, symbol, &symbols)?;
    let list = match lang {
        Language::Rust => rust::old_list(located.parameters, &source, "the list")?,
        Language::Python => python::old_list(located.parameters, &source, "the list", false)?,
    };
    let mut parameters = Vec::new();
    let mut receiver = None;
    if let Some(r) = &list.receiver {
        let written = r.item.text.trim().to_string();
        parameters.push(match written.split_once(':') {
            Some((name, ty)) => NewParameter {
                name: name.trim().to_string(),
                ty: Some(ty.trim().to_string()),
                default: None,
            },
            None => NewParameter {
                name: written.clone(),
                ty: None,
                default: None,
            },
        });
        receiver = Some(written);
    }
    for (index, param) in list.params.iter().enumerate() {
        let python_receiver = lang == Language::Python
            && is_method
            && index == 0
            && param.kind == ParamKind::Regular
            && matches!(param.name.as_str(), "self" | "cls")
            && param.default.is_none();
        if python_receiver {
            receiver = Some(param.spelled.clone());
        }
        parameters.push(NewParameter {
            name: if param.mutable {
                format!("mut {}", param.spelled)
            } else {
                param.spelled.clone()
            },
            ty: param.ty.clone(),
            default: param.default.clone(),
        });
    }
    Ok(TypedList {
        receiver,
        parameters,
    })
}

/// What is wrong at the first syntax error, in the words of someone editing the list.
fn describe_error(
    lang: Language,
    source: &str,
    inside: &std::ops::Range<usize>,
    column: usize,
    description: &str,
) -> String {
    let line_start = source[..inside.start].rfind('\n').map_or(0, |i| i + 1);
    let at = source[line_start..]
        .char_indices()
        .nth(column.saturating_sub(1))
        .map_or(source.len(), |(i, _)| line_start + i)
        .clamp(inside.start, inside.end);
    let rest = source[at..inside.end].trim();
    if lang == Language::Rust && rest.starts_with('=') {
        let default = rest[1..].split(',').next().unwrap_or("").trim();
        return format!(
            "Rust has no default parameter values: remove `= {default}` (callers that do not pass the parameter get a `todo!()` placeholder)"
        );
    }
    let column = source[inside.start..at].chars().count() + 1;
    if rest.is_empty() {
        format!("the list is not finished: {description}")
    } else {
        let shown: String = rest.chars().take(24).collect();
        format!("the list does not parse at column {column} (`{shown}`): {description}")
    }
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
    let tree = sources.parse(lang, &file);
    let symbols = sources.outline(lang, &file, &tree);
    let symbol = resolve(&symbols, &request.function, "function", |s| {
        s.kind.is_function()
    })?;
    let located = target::locate(lang, &tree, &file.text, symbol, &symbols)?;
    let name = &located.name_path;
    match lang {
        Language::Rust => {
            let old = rust::old_list(located.parameters, &file.text, name)?;
            rust::new_list(&old, &request.new_parameters, name).map(|_| ())
        }
        Language::Python => {
            let old = python::old_list(
                located.parameters,
                &file.text,
                name,
                located.python_receiver(),
            )?;
            python::new_list(&old, &request.new_parameters, name).map(|_| ())
        }
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
