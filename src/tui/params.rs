//! The change-signature form's parser: the parameter list as the user edits it, `(a: i32,
//! b: &str = x)` or `(self, a, b=1)`, into `new_parameters`. A leading receiver is set aside
//! (the engine keeps the function's own). Errors say which parameter is wrong and how. Pure.

use crate::lang::Language;
use crate::refactor::NewParameter;

/// The parsed list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedParameters {
    /// The receiver written first (`&mut self`, `self`, `cls`), left out of `parameters`.
    pub receiver: Option<String>,
    pub parameters: Vec<NewParameter>,
}

/// Parses the edited list of a function in `lang`; `is_method` says whether a Python `self` /
/// `cls` first parameter is the receiver.
pub fn parse_parameters(
    lang: Language,
    text: &str,
    is_method: bool,
) -> Result<ParsedParameters, String> {
    let trimmed = text.trim();
    let inner = match (trimmed.strip_prefix('('), trimmed.ends_with(')')) {
        (Some(rest), true) => &rest[..rest.len() - 1],
        (Some(_), false) => return Err("the list must end with `)`".to_string()),
        (None, _) if trimmed.ends_with(')') => {
            return Err("the list must start with `(`".to_string());
        }
        (None, _) => trimmed,
    };
    let items = split_top_level(lang, inner)?;
    let count = items.len();
    let mut receiver = None;
    let mut parameters: Vec<NewParameter> = Vec::new();
    for (index, item) in items.into_iter().enumerate() {
        let item = item.trim();
        if item.is_empty() {
            if index + 1 == count && index > 0 {
                continue; // a trailing comma
            }
            if count == 1 {
                break; // `()`
            }
            return Err(format!(
                "parameter {} is empty: remove the extra comma",
                index + 1
            ));
        }
        if index == 0 && is_receiver(lang, item, is_method) {
            receiver = Some(item.to_string());
            continue;
        }
        let parameter = parse_one(lang, item)
            .map_err(|m| format!("parameter {} (`{item}`): {m}", index + 1))?;
        if let Some(first) = parameters
            .iter()
            .find(|p| p.name == parameter.name && is_named(&p.name))
        {
            return Err(format!(
                "`{}` appears twice; give each parameter its own name",
                first.name
            ));
        }
        parameters.push(parameter);
    }
    Ok(ParsedParameters {
        receiver,
        parameters,
    })
}

/// `*` and `/` are Python markers, not names.
fn is_named(name: &str) -> bool {
    name != "*" && name != "/"
}

fn is_receiver(lang: Language, item: &str, is_method: bool) -> bool {
    match lang {
        Language::Rust => {
            let pattern = item.split(':').next().unwrap_or(item).trim();
            let words: Vec<&str> = pattern
                .trim_start_matches('&')
                .split_whitespace()
                .filter(|w| !w.starts_with('\''))
                .collect();
            matches!(words.as_slice(), ["self"] | ["mut", "self"])
        }
        Language::Python => {
            let name = item.split([':', '=']).next().unwrap_or(item).trim();
            is_method && (name == "self" || name == "cls") && !item.contains('=')
        }
    }
}

/// One parameter: `name`, `name: type`, `name = default`, `name: type = default`.
fn parse_one(lang: Language, item: &str) -> Result<NewParameter, String> {
    let (head, default) = match find_top_level(lang, item, is_assignment) {
        Some(at) => (item[..at].trim(), Some(item[at + 1..].trim())),
        None => (item, None),
    };
    if default == Some("") {
        return Err("nothing after `=`: give a default value or remove the `=`".to_string());
    }
    let (name, ty) = match find_top_level(lang, head, is_type_colon) {
        Some(at) => (head[..at].trim(), Some(head[at + 1..].trim())),
        None => (head.trim(), None),
    };
    if ty == Some("") {
        return Err("nothing after `:`: give a type or remove the `:`".to_string());
    }
    match lang {
        Language::Rust => {
            let plain = name.strip_prefix("mut ").map(str::trim).unwrap_or(name);
            lang.validate_identifier(plain)?;
            if ty.is_none() {
                return Err(format!("Rust parameters need a type: write `{name}: Type`"));
            }
        }
        Language::Python => {
            let plain = name.trim_start_matches('*');
            let stars = name.len() - plain.len();
            if name == "*" || name == "/" {
                if ty.is_some() || default.is_some() {
                    return Err(format!("the `{name}` marker takes no type or default"));
                }
            } else if stars > 2 {
                return Err("at most two `*` before a name".to_string());
            } else {
                lang.validate_identifier(plain)?;
                if stars > 0 && default.is_some() {
                    return Err(format!("`{name}` cannot have a default"));
                }
            }
        }
    }
    Ok(NewParameter {
        name: name.to_string(),
        ty: ty.map(str::to_string),
        default: default.map(str::to_string),
    })
}

/// A lone `=` (not `==`, `!=`, `<=`, `>=`, `=>`).
fn is_assignment(s: &[u8], i: usize) -> bool {
    s[i] == b'='
        && s.get(i + 1).is_none_or(|c| *c != b'=' && *c != b'>')
        && (i == 0 || !matches!(s[i - 1], b'=' | b'!' | b'<' | b'>'))
}

/// A lone `:` (not part of `::`).
fn is_type_colon(s: &[u8], i: usize) -> bool {
    s[i] == b':' && s.get(i + 1) != Some(&b':') && (i == 0 || s[i - 1] != b':')
}

/// Splits at commas outside brackets and strings.
fn split_top_level(lang: Language, text: &str) -> Result<Vec<&str>, String> {
    let mut items = Vec::new();
    let mut start = 0;
    scan(lang, text, |i, depth| {
        if depth == 0 && text.as_bytes()[i] == b',' {
            items.push(&text[start..i]);
            start = i + 1;
        }
        false
    })?;
    items.push(&text[start..]);
    Ok(items)
}

/// The first byte outside brackets and strings for which `hit` holds.
fn find_top_level(lang: Language, text: &str, hit: impl Fn(&[u8], usize) -> bool) -> Option<usize> {
    let mut found = None;
    let _ = scan(lang, text, |i, depth| {
        if depth == 0 && hit(text.as_bytes(), i) {
            found = Some(i);
            return true;
        }
        false
    });
    found
}

/// Walks the ASCII structure of `text`, calling `visit(byte index, bracket depth)` for every
/// byte outside a string; stops when `visit` returns true. Errors on unbalanced brackets or an
/// open string.
fn scan(
    lang: Language,
    text: &str,
    mut visit: impl FnMut(usize, usize) -> bool,
) -> Result<(), String> {
    let bytes = text.as_bytes();
    let mut stack: Vec<u8> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let c = bytes[i];
        let quote = c == b'"' || (c == b'\'' && lang == Language::Python);
        if quote {
            let mut j = i + 1;
            while j < bytes.len() && bytes[j] != c {
                j += if bytes[j] == b'\\' { 2 } else { 1 };
            }
            if j >= bytes.len() {
                return Err("a string is not closed".to_string());
            }
            i = j + 1;
            continue;
        }
        let arrow = c == b'>' && i > 0 && bytes[i - 1] == b'-';
        match c {
            b'(' | b'[' | b'{' => stack.push(c),
            b'<' if lang == Language::Rust => stack.push(c),
            b')' | b']' | b'}' => {
                let open = match c {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if stack.pop() != Some(open) {
                    return Err(format!("`{}` does not close anything", c as char));
                }
            }
            b'>' if lang == Language::Rust && !arrow && stack.pop() != Some(b'<') => {
                return Err("`>` does not close a `<`".to_string());
            }
            _ => {}
        }
        if visit(i, stack.len()) {
            return Ok(());
        }
        i += 1;
    }
    match stack.last() {
        Some(open) => Err(format!("`{}` is not closed", *open as char)),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(name: &str, ty: Option<&str>, default: Option<&str>) -> NewParameter {
        NewParameter {
            name: name.to_string(),
            ty: ty.map(str::to_string),
            default: default.map(str::to_string),
        }
    }

    #[test]
    fn rust_lists_with_types_defaults_generics_and_receivers() {
        let parsed = parse_parameters(Language::Rust, "(a: i32, b: &str = x)", false).unwrap();
        assert_eq!(
            parsed.parameters,
            vec![p("a", Some("i32"), None), p("b", Some("&str"), Some("x"))]
        );
        let parsed = parse_parameters(
            Language::Rust,
            "(&'a mut self, map: HashMap<K, V>, f: impl Fn(u8) -> bool,)",
            true,
        )
        .unwrap();
        assert_eq!(parsed.receiver.as_deref(), Some("&'a mut self"));
        assert_eq!(
            parsed.parameters,
            vec![
                p("map", Some("HashMap<K, V>"), None),
                p("f", Some("impl Fn(u8) -> bool"), None)
            ]
        );
        let parsed = parse_parameters(
            Language::Rust,
            "(mut total: u64, path: std::path::PathBuf)",
            false,
        )
        .unwrap();
        assert_eq!(parsed.parameters[0], p("mut total", Some("u64"), None));
        assert_eq!(
            parsed.parameters[1].ty.as_deref(),
            Some("std::path::PathBuf")
        );
        assert_eq!(
            parse_parameters(Language::Rust, "()", false)
                .unwrap()
                .parameters,
            vec![]
        );
        assert_eq!(
            parse_parameters(Language::Rust, "  ", false)
                .unwrap()
                .parameters,
            vec![]
        );
    }

    #[test]
    fn python_lists_with_defaults_stars_and_self() {
        let parsed = parse_parameters(Language::Python, "(self, a, b=1)", true).unwrap();
        assert_eq!(parsed.receiver.as_deref(), Some("self"));
        assert_eq!(
            parsed.parameters,
            vec![p("a", None, None), p("b", None, Some("1"))]
        );
        let parsed = parse_parameters(Language::Python, "(self, a)", false).unwrap();
        assert_eq!(
            parsed.receiver, None,
            "a plain function's `self` is a parameter"
        );
        let parsed = parse_parameters(
            Language::Python,
            "x: int = 3, sep=\", \", *args, key: dict[str, int] = {'a': 1}, f=lambda v: v == 2, **kw",
            false,
        )
        .unwrap();
        assert_eq!(
            parsed.parameters,
            vec![
                p("x", Some("int"), Some("3")),
                p("sep", None, Some("\", \"")),
                p("*args", None, None),
                p("key", Some("dict[str, int]"), Some("{'a': 1}")),
                p("f", None, Some("lambda v: v == 2")),
                p("**kw", None, None),
            ]
        );
        let parsed = parse_parameters(Language::Python, "(a, /, b, *, c)", false).unwrap();
        assert_eq!(
            parsed
                .parameters
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>(),
            ["a", "/", "b", "*", "c"]
        );
    }

    #[test]
    fn errors_name_the_parameter_and_the_fix() {
        let err = |lang, text| parse_parameters(lang, text, false).unwrap_err();
        assert!(err(Language::Rust, "(a)").contains("need a type"));
        assert!(err(Language::Rust, "(a: i32, 1b: u8)").starts_with("parameter 2 (`1b: u8`)"));
        assert!(err(Language::Rust, "(a: i32").contains("end with `)`"));
        assert!(err(Language::Rust, "(a: Vec<i32, b: u8)").contains("not closed"));
        assert!(err(Language::Python, "(a,, b)").contains("parameter 2 is empty"));
        assert!(err(Language::Python, "(a, a=1)").contains("appears twice"));
        assert!(err(Language::Python, "(class)").contains("keyword"));
        assert!(err(Language::Python, "(a=)").contains("after `=`"));
        assert!(err(Language::Python, "(s='x)").contains("string"));
        assert!(err(Language::Python, "(*a=1)").contains("cannot have a default"));
    }
}
