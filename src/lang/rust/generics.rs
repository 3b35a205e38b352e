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
/// predicates about them, as written. `(None, None)` when none is used.
pub fn generics_for(
    function: Node<'_>,
    text: &str,
    used: &[String],
) -> (Option<String>, Option<String>) {
    let (list, where_clause) = generics(function, text);
    let declares = |entry: &str| {
        let entry = entry.trim();
        let entry = entry.strip_prefix("const ").unwrap_or(entry);
        let name = entry
            .split(|c: char| c == ':' || c == '=' || c.is_whitespace())
            .next()
            .unwrap_or("");
        used.iter().any(|u| u == name)
    };
    let kept: Vec<String> = list
        .as_deref()
        .and_then(|l| l.strip_prefix('<')?.strip_suffix('>'))
        .map(|inner| {
            split_top_level(inner, ',')
                .into_iter()
                .filter(|e| declares(e))
                .map(|e| e.trim().to_string())
                .collect()
        })
        .unwrap_or_default();
    if kept.is_empty() {
        return (None, None);
    }
    let predicates: Vec<String> = where_clause
        .as_deref()
        .and_then(|w| w.strip_prefix("where"))
        .map(|inner| {
            split_top_level(inner, ',')
                .into_iter()
                .filter(|p| declares(p))
                .map(|p| p.trim().to_string())
                .collect()
        })
        .unwrap_or_default();
    let where_clause = (!predicates.is_empty()).then(|| format!("where {}", predicates.join(", ")));
    (Some(format!("<{}>", kept.join(", "))), where_clause)
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
}
