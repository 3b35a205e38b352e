//! Rust module paths: the module a file is (`src/net/http.rs` is `net::http`), the module code
//! sits in (with its inline `mod`s), what a path prefix (`crate::a`, `super`, `self`) may name,
//! and the last segment of a type or path.

use tree_sitter::Node;

use crate::lang::node_text;

/// The module path of a file from its crate root: `src/net/http.rs` → `["net", "http"]`,
/// `src/net/mod.rs` → `["net"]`, `src/lib.rs` → `[]`.
pub fn module_of_file(path: &str) -> Vec<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let start = parts.iter().rposition(|p| *p == "src").map_or(0, |i| i + 1);
    let mut segments: Vec<String> = parts[start.min(parts.len())..]
        .iter()
        .map(|p| p.strip_suffix(".rs").unwrap_or(p).to_string())
        .collect();
    if segments.last().is_some_and(|l| l == "mod")
        || (segments.len() == 1 && (segments[0] == "lib" || segments[0] == "main"))
    {
        segments.pop();
    }
    segments
}

/// The module path of the code at `node`: its file's, plus the inline `mod`s around it.
pub fn module_at(file_path: &str, node: Node<'_>, text: &str) -> Vec<String> {
    let mut inner = Vec::new();
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "mod_item"
            && let Some(name) = n.child_by_field_name("name")
        {
            inner.push(node_text(name, text).to_string());
        }
        current = n.parent();
    }
    inner.reverse();
    let mut path = module_of_file(file_path);
    path.extend(inner);
    path
}

/// The module paths a `use`/call path prefix (`crate::a`, `super`, `utils`) may mean, written
/// in module `here`.
pub fn resolve_prefix(prefix: &str, here: &[String]) -> Vec<Vec<String>> {
    let segments: Vec<&str> = prefix
        .split("::")
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    let Some(first) = segments.first() else {
        return vec![here.to_vec()];
    };
    let owned = |s: &[&str]| s.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    match *first {
        "crate" => vec![owned(&segments[1..])],
        "self" => {
            let mut p = here.to_vec();
            p.extend(owned(&segments[1..]));
            vec![p]
        }
        "super" => {
            let mut p = here.to_vec();
            let mut rest = &segments[..];
            while rest.first() == Some(&"super") {
                if p.pop().is_none() {
                    return Vec::new();
                }
                rest = &rest[1..];
            }
            p.extend(owned(rest));
            vec![p]
        }
        _ => {
            // A child module of `here`, or a crate name (the crate's own, from a binary or a
            // test), or a 2015-style path from the root.
            let mut relative = here.to_vec();
            relative.extend(owned(&segments));
            vec![relative, owned(&segments[1..]), owned(&segments)]
        }
    }
}

/// `Foo` for `Foo`, `Foo<T>`, `crate::m::Foo<T>`, `&'a mut Foo` (the last path segment).
pub fn last_type_segment(text: &str) -> String {
    let t = text.trim().trim_start_matches('&').trim();
    let t = t.strip_prefix("mut ").unwrap_or(t);
    let t = if t.starts_with('\'') {
        t.split_once(' ').map_or(t, |(_, r)| r)
    } else {
        t
    };
    let t = t
        .split('<')
        .next()
        .unwrap_or(t)
        .trim()
        .trim_end_matches("::");
    t.rsplit("::").next().unwrap_or(t).trim().to_string()
}

/// For a node inside `path::{...}`: the text of `path` (with the outer lists' paths).
pub fn list_prefix(node: Node<'_>, text: &str) -> Option<String> {
    let mut parts = Vec::new();
    let mut current = node.parent();
    while let Some(n) = current {
        if n.kind() == "scoped_use_list"
            && let Some(path) = n.child_by_field_name("path")
        {
            parts.push(node_text(path, text).to_string());
        }
        if n.kind() == "use_declaration" {
            break;
        }
        current = n.parent();
    }
    if parts.is_empty() {
        return None;
    }
    parts.reverse();
    Some(parts.join("::"))
}

/// `Display` for `std::fmt::Display<T>` and `Foo` for `crate::m::Foo::<T>` (generic arguments
/// at any depth left out).
pub fn last_path_segment(path: &str) -> String {
    let mut depth = 0usize;
    let mut without_generics = String::new();
    for c in path.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => without_generics.push(c),
            _ => {}
        }
    }
    without_generics
        .trim_end_matches(':')
        .rsplit("::")
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_paths_and_prefixes() {
        assert_eq!(module_of_file("src/lib.rs"), Vec::<String>::new());
        assert_eq!(module_of_file("src/net/mod.rs"), vec!["net"]);
        assert_eq!(
            module_of_file("crates/x/src/net/http.rs"),
            vec!["net", "http"]
        );
        let here = vec!["net".to_string()];
        assert!(resolve_prefix("crate::net", &[]).contains(&here));
        assert!(resolve_prefix("super", &["net".to_string(), "http".to_string()]).contains(&here));
        assert!(resolve_prefix("net", &[]).contains(&here));
        assert!(resolve_prefix("mycrate::net", &[]).contains(&here));
        assert!(resolve_prefix("super", &[]).is_empty());
    }

    #[test]
    fn segments() {
        assert_eq!(last_type_segment("&'a mut crate::m::Foo<T>"), "Foo");
        assert_eq!(last_type_segment("Foo::<u8>"), "Foo");
        assert_eq!(last_path_segment("std::fmt::Display"), "Display");
        assert_eq!(last_path_segment("crate::m::Foo::<T>"), "Foo");
        assert_eq!(last_path_segment("Iterator<Item = u8>"), "Iterator");
        assert_eq!(last_path_segment("Self"), "Self");
    }
}
