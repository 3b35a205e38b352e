//! A parameter list typed as source text (`(a: i32, b: &str)`, `(self, a, b=1)`), for a front
//! end that lets the user edit the list as it is written (the TUI's form): read by
//! [`parse_parameters`] (the one reader of a written list, the language's own), then checked by
//! the very rules [`super::plan`] applies, without looking at call sites. One parser and one set
//! of rules for the JSON and the form. Rust has no default values, so in a typed Rust list
//! `max: u64 = u64::MAX` means what `"default"` means in JSON: the value callers pass for the new
//! parameter. Pure.

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
    let (text, passed) = match lang {
        Language::Rust => split_rust_values(text),
        Language::Python => (text.to_string(), Vec::new()),
    };
    let parsed = parse_parameters(lang, &text, is_method).map_err(invalid)?;
    let mut parameters = Vec::new();
    let mut passed = passed.into_iter();
    if let Some(receiver) = &parsed.receiver {
        if let Some(Some(value)) = passed.next() {
            return Err(invalid(w::typed_receiver_value(receiver.trim(), &value)));
        }
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
    for mut parameter in parsed.parameters {
        if let Some(Some(value)) = passed.next() {
            parameter.default = Some(value);
        }
        parameters.push(parameter);
    }
    Ok(TypedList {
        receiver: parsed.receiver.map(|r| r.trim().to_string()),
        parameters,
    })
}

/// A Rust list with values (`(a: u8, max: u64 = u64::MAX)`): the list without them, and the
/// value of each entry in order (`None` where there is none). A value runs from its `=` to the
/// next comma or the closing parenthesis outside brackets, strings and a turbofish.
fn split_rust_values(text: &str) -> (String, Vec<Option<String>>) {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let outer = i32::from(text.trim_start().starts_with('('));
    let mut cleaned = String::new();
    let mut values: Vec<Option<String>> = Vec::new();
    // Where the current entry's value starts, after its `=`.
    let mut value: Option<usize> = None;
    let mut depth = 0i32;
    let mut kept_from = 0;
    let mut end_entry =
        |at: usize, value: &mut Option<usize>, kept_from: &mut usize| match value.take() {
            Some(start) => {
                values.push(Some(text[start..at].trim().to_string()));
                *kept_from = at;
            }
            None => values.push(None),
        };
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let prev = i.checked_sub(1).map(|j| chars[j].1);
        let next = chars.get(i + 1).map(|&(_, c)| c);
        match c {
            '"' | '\'' if value.is_some() => {
                // A string or char literal of the value: its commas are not separators.
                i += 1;
                while i < chars.len() && chars[i].1 != c {
                    if chars[i].1 == '\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => {
                if c == ')' && outer == 1 && depth == 1 {
                    end_entry(at, &mut value, &mut kept_from);
                }
                depth -= 1;
            }
            // Generics in a type; in a value only a turbofish (`::<`), not a comparison.
            '<' if value.is_none() || prev == Some(':') => depth += 1,
            '>' if !matches!(prev, Some('-' | '=')) && (value.is_none() || depth > outer) => {
                depth -= 1
            }
            ',' if depth == outer => end_entry(at, &mut value, &mut kept_from),
            '=' if depth == outer
                && value.is_none()
                && !matches!(prev, Some('=' | '!' | '<' | '>'))
                && !matches!(next, Some('=' | '>')) =>
            {
                cleaned.push_str(text[kept_from..at].trim_end());
                value = Some(at + 1);
            }
            _ => {}
        }
        i += 1;
    }
    if outer == 0 {
        end_entry(text.len(), &mut value, &mut kept_from);
    }
    cleaned.push_str(&text[kept_from..]);
    (cleaned, values)
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
    fn a_rust_value_is_what_callers_pass_for_the_parameter() {
        let read = |text| {
            read_typed_list(Language::Rust, text, false)
                .unwrap()
                .parameters
        };
        assert_eq!(
            read("(weight_grams: u64, max: u64 = u64::MAX)"),
            vec![
                p("weight_grams", Some("u64"), None),
                p("max", Some("u64"), Some("u64::MAX"))
            ]
        );
        assert_eq!(
            read(
                "(f: impl Fn(u8) -> bool, x: i32 = 1, m: HashMap<u8, u8> = HashMap::<u8, u8>::new(), s: &str = \"a, b\", v: Vec<u8> = vec![1, 2])"
            ),
            vec![
                p("f", Some("impl Fn(u8) -> bool"), None),
                p("x", Some("i32"), Some("1")),
                p(
                    "m",
                    Some("HashMap<u8, u8>"),
                    Some("HashMap::<u8, u8>::new()")
                ),
                p("s", Some("&str"), Some("\"a, b\"")),
                p("v", Some("Vec<u8>"), Some("vec![1, 2]")),
            ]
        );
        assert_eq!(
            read("a: u8, b: bool = x >= 2"),
            vec![
                p("a", Some("u8"), None),
                p("b", Some("bool"), Some("x >= 2"))
            ]
        );
        let on_receiver = read_typed_list(Language::Rust, "(&self = x, a: u8)", true)
            .unwrap_err()
            .to_string();
        assert!(on_receiver.contains("`&self`"), "{on_receiver}");
        // On a parameter the function has already, the engine's rules refuse it (its calls pass
        // it already).
        let text = "fn f(a: u8) {}\nfn g() { f(1); }\n";
        let sources = MemorySources::new().with("m.rs", text);
        let request = ChangeSignatureRequest {
            file: "m.rs".to_string(),
            function: function_query("f", 1),
            new_parameters: read("(a: u8 = 2, max: u64 = u64::MAX)"),
        };
        let err = check_new_parameters(&sources, &request)
            .unwrap_err()
            .to_string();
        assert!(err.contains("no default parameter values"), "{err}");
        let request = ChangeSignatureRequest {
            new_parameters: read("(a: u8, max: u64 = u64::MAX)"),
            ..request
        };
        assert!(check_new_parameters(&sources, &request).is_ok());
    }

    #[test]
    fn a_list_that_does_not_parse_says_where_in_the_forms_words() {
        let err = |lang, text| read_typed_list(lang, text, false).unwrap_err().to_string();
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
