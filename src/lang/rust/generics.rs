//! The generics a new function takes over from the one it is extracted from: the enclosing
//! function's parameter list and `where` clause as written, the entries of them a new
//! signature names, and whether a type's text mentions a name. Text-level, like `types`.

use tree_sitter::Node;

use super::types::{split_top_level, type_text};
use crate::lang::node_text;

/// A function's generic parameter list (`<T: Clone, 'a>`) and `where` clause, as written.
pub fn generics(function: Node<'_>, text: &str) -> (Option<String>, Option<String>) {
    let parameters = function
        .child_by_field_name("type_parameters")
        .map(|t| type_text(t, text));
    let where_clause = function
        .children(&mut function.walk())
        .find(|c| c.kind() == "where_clause")
        .map(|w| type_text(w, text));
    (parameters, where_clause)
}

/// The part of `function`'s generics a new function needs: the entries of its parameter list
/// that declare one of `used` (type parameters, lifetimes, const parameters), and the `where`
/// predicates about them, as written. A bound names more generics (`&'b I: IntoIterator<Item =
/// E>`): they are taken too, with the predicates about them in turn, until none is missing
/// (strsim's `generic_levenshtein` lost its `where` clause, and the new function did not
/// build). `(None, None)` when none is used.
pub fn generics_for(
    function: Node<'_>,
    text: &str,
    used: &[String],
) -> (Option<String>, Option<String>) {
    let (list, where_clause) = generics(function, text);
    let entries: Vec<(String, String)> = list
        .as_deref()
        .and_then(|l| l.strip_prefix('<')?.strip_suffix('>'))
        .map(|inner| {
            split_top_level(inner, ',')
                .into_iter()
                .map(|e| e.trim().to_string())
                .filter(|e| !e.is_empty())
                .map(|e| (declared_name(&e).to_string(), e))
                .collect()
        })
        .unwrap_or_default();
    let predicates: Vec<String> = where_clause
        .as_deref()
        .and_then(|w| w.strip_prefix("where"))
        .map(|inner| {
            split_top_level(inner, ',')
                .into_iter()
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let names: Vec<&str> = entries.iter().map(|(name, _)| name.as_str()).collect();
    let mut carried: Vec<bool> = names.iter().map(|n| used.iter().any(|u| u == n)).collect();
    let mut taken = vec![false; predicates.len()];
    // Each round takes the predicates about a carried name and the names their bounds mention
    // (and the names an entry's own bounds mention): at most one round per name.
    loop {
        let mut more = false;
        for (at, predicate) in predicates.iter().enumerate() {
            let (bounded, _) = split_bound(predicate);
            let about_carried = names
                .iter()
                .zip(&carried)
                .any(|(name, carried)| *carried && mentions(bounded, name));
            if !taken[at] && about_carried {
                taken[at] = true;
                more = true;
            }
        }
        let needed = |name: &str| {
            predicates
                .iter()
                .zip(&taken)
                .filter(|(_, taken)| **taken)
                .any(|(p, _)| mentions(p, name))
                || entries
                    .iter()
                    .zip(&carried)
                    .filter(|(_, carried)| **carried)
                    .any(|((_, entry), _)| mentions(split_bound(entry).1, name))
        };
        let newly: Vec<usize> = (0..names.len())
            .filter(|&at| !carried[at] && needed(names[at]))
            .collect();
        for at in newly {
            carried[at] = true;
            more = true;
        }
        if !more {
            break;
        }
    }
    let kept: Vec<&str> = entries
        .iter()
        .zip(&carried)
        .filter(|(_, carried)| **carried)
        .map(|((_, entry), _)| entry.as_str())
        .collect();
    if kept.is_empty() {
        return (None, None);
    }
    let predicates: Vec<&str> = predicates
        .iter()
        .zip(&taken)
        .filter(|(_, taken)| **taken)
        .map(|(p, _)| p.as_str())
        .collect();
    let where_clause = (!predicates.is_empty()).then(|| format!("where {}", predicates.join(", ")));
    (Some(format!("<{}>", kept.join(", "))), where_clause)
}

/// The name an entry of a generic parameter list declares (`T` of `T: Clone`, `N` of
/// `const N: usize`, `'a` of `'a: 'b`).
pub fn declared_name(entry: &str) -> &str {
    let entry = entry.trim();
    let entry = entry.strip_prefix("const ").unwrap_or(entry);
    entry
        .split(|c: char| c == ':' || c == '=' || c.is_whitespace())
        .next()
        .unwrap_or("")
}

/// A predicate or parameter entry split at its top-level `:` (not a path's `::`): what is
/// bounded, and its bounds (empty when it has none).
fn split_bound(predicate: &str) -> (&str, &str) {
    let bytes = predicate.as_bytes();
    let mut depth = 0i32;
    for (at, &b) in bytes.iter().enumerate() {
        match b {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' if at > 0 && bytes[at - 1] == b'-' => {}
            b'>' | b')' | b']' => depth -= 1,
            b':' if depth == 0
                && bytes.get(at + 1) != Some(&b':')
                && (at == 0 || bytes[at - 1] != b':') =>
            {
                return (&predicate[..at], &predicate[at + 1..]);
            }
            _ => {}
        }
    }
    (predicate, "")
}

/// Whether `word` occurs in `ty` as a whole word (a type parameter `T`, a lifetime `'a`).
pub fn mentions(ty: &str, word: &str) -> bool {
    let is_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
    ty.match_indices(word).any(|(i, _)| {
        !is_word(ty[..i].chars().last()) && !is_word(ty[i + word.len()..].chars().next())
    })
}

/// The lifetimes a function declares (`'a`), and the names of its const parameters.
pub fn generic_names(function: Node<'_>, text: &str) -> (Vec<String>, Vec<String>) {
    let mut lifetimes = Vec::new();
    let mut consts = Vec::new();
    if let Some(list) = function.child_by_field_name("type_parameters") {
        for parameter in list.named_children(&mut list.walk()) {
            match parameter.kind() {
                "lifetime" | "lifetime_parameter" => {
                    let lifetime = parameter
                        .named_children(&mut parameter.walk())
                        .find(|c| c.kind() == "lifetime")
                        .unwrap_or(parameter);
                    lifetimes.push(node_text(lifetime, text).to_string());
                }
                "const_parameter" => consts.extend(
                    parameter
                        .child_by_field_name("name")
                        .map(|n| node_text(n, text).to_string()),
                ),
                _ => {}
            }
        }
    }
    (lifetimes, consts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    #[test]
    fn the_generics_a_new_function_needs() {
        let text =
            "fn t<'a, F, G: Clone>(s: &'a str, f: F, g: G) where F: FnMut(&str) -> u8, G: Copy {}";
        let tree = Language::Rust.parse(text);
        let function = tree.root_node().child(0).unwrap();
        let (list, where_clause) = generics_for(function, text, &["G".to_string()]);
        assert_eq!(list.as_deref(), Some("<G: Clone>"));
        assert_eq!(where_clause.as_deref(), Some("where G: Copy"));
        let (list, where_clause) =
            generics_for(function, text, &["'a".to_string(), "F".to_string()]);
        assert_eq!(list.as_deref(), Some("<'a, F>"));
        assert_eq!(where_clause.as_deref(), Some("where F: FnMut(&str) -> u8"));
        assert_eq!(generics_for(function, text, &[]), (None, None));
        assert!(mentions("&mut G", "G") && !mentions("Gx", "G") && mentions("&'a str", "'a"));
    }

    #[test]
    fn a_bound_that_names_more_generics_takes_them_and_their_predicates() {
        // strsim's `generic_levenshtein`, from which `b.into_iter().count()` was extracted.
        let text = "fn g<'a, 'b, Iter1, Iter2, Elem1, Elem2>(a: &'a Iter1, b: &'b Iter2) -> usize\nwhere\n    &'a Iter1: IntoIterator<Item = Elem1>,\n    &'b Iter2: IntoIterator<Item = Elem2>,\n    Elem1: PartialEq<Elem2>,\n{ 0 }";
        let tree = Language::Rust.parse(text);
        let function = tree.root_node().child(0).unwrap();
        let used = ["'b".to_string(), "Iter2".to_string()];
        let (list, where_clause) = generics_for(function, text, &used);
        assert_eq!(list.as_deref(), Some("<'b, Iter2, Elem2>"));
        assert_eq!(
            where_clause.as_deref(),
            Some("where &'b Iter2: IntoIterator<Item = Elem2>")
        );
        // Both sides: every predicate about a taken name, and what they name.
        let used = ["Elem1".to_string()];
        let (list, where_clause) = generics_for(function, text, &used);
        assert_eq!(list.as_deref(), Some("<Elem1, Elem2>"));
        assert_eq!(
            where_clause.as_deref(),
            Some("where Elem1: PartialEq<Elem2>")
        );

        // An entry's own bound names another parameter; a path's `::` is no bound.
        let text = "fn h<T: Iterator<Item = U>, U, V>(t: T) where V: std::fmt::Debug {}";
        let tree = Language::Rust.parse(text);
        let function = tree.root_node().child(0).unwrap();
        let (list, where_clause) = generics_for(function, text, &["T".to_string()]);
        assert_eq!(list.as_deref(), Some("<T: Iterator<Item = U>, U>"));
        assert_eq!(where_clause, None);
        assert_eq!(split_bound("V: std::fmt::Debug"), ("V", " std::fmt::Debug"));
        assert_eq!(
            split_bound("<T as a::B>::C: Copy"),
            ("<T as a::B>::C", " Copy")
        );
    }
}
