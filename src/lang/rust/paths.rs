//! Rust module paths: the module a file is (`src/net/http.rs` is `net::http`), the module code
//! sits in (with its inline `mod`s), what a path prefix (`crate::a`, `super`, `self`) may name,
//! and the last segment of a type or path.

use tree_sitter::Node;

use crate::lang::node_text;

/// The module path of a file from its crate root: `src/net/http.rs` → `["net", "http"]`,
/// `src/net/mod.rs` → `["net"]`, `src/lib.rs` → `[]`. Cargo's other crate roots —
/// integration tests, benches, examples (`tests/a.rs`, `tests/util/mod.rs`) — start with a
/// root segment of their own ([`TARGET_ROOTS`]: `"tests/"`), so `crate::util` written in a test
/// reaches `tests/util/mod.rs` and never the library's `src/util.rs`.
pub fn module_of_file(path: &str) -> Vec<String> {
    let parts: Vec<&str> = path.split('/').collect();
    let src = parts.iter().rposition(|p| *p == "src");
    let target = parts
        .iter()
        .rposition(|p| TARGET_ROOTS.iter().any(|r| r.strip_suffix('/') == Some(*p)));
    if let Some(t) = target
        && src.is_none_or(|s| s < t)
    {
        let marker = format!("{}/", parts[t]);
        let rest: Vec<String> = parts[t + 1..]
            .iter()
            .map(|p| p.strip_suffix(".rs").unwrap_or(p).to_string())
            .collect();
        // `tests/a.rs` and `examples/x/main.rs` are crate roots, each its own (`tests/a`): what
        // one imports, another does not see. `tests/util/mod.rs` is `util` under the shared
        // root `tests/` that every test crate reaches as `crate::util`.
        let root = rest.len() == 1 || (rest.len() == 2 && rest[1] == "main");
        if root {
            return vec![format!("{marker}{}", rest[0])];
        }
        let mut segments = vec![marker];
        segments.extend(rest);
        if segments.last().is_some_and(|l| l == "mod") {
            segments.pop();
        }
        return segments;
    }
    let start = src.map_or(0, |i| i + 1);
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

/// The root segments of Cargo's crates beside the library: a module path starting with one is
/// inside an integration test, bench or example.
pub const TARGET_ROOTS: [&str; 3] = ["tests/", "benches/", "examples/"];

/// The shared root segment of `here`'s crate (`tests/`), when it is not the library's.
fn crate_root(here: &[String]) -> Option<String> {
    let first = here.first()?;
    TARGET_ROOTS
        .iter()
        .find(|r| first.starts_with(*r))
        .map(|r| r.to_string())
}

/// The module a path relative to `here` starts from: a test, bench or example crate's root
/// file (`tests/a`) declares its modules under the shared root (`tests/`).
fn relative_base(here: &[String]) -> Vec<String> {
    match crate_root(here) {
        Some(root) if here.len() == 1 && here[0] != root => vec![root],
        _ => here.to_vec(),
    }
}

/// The module path of the code at `node`: its file's, plus the inline `mod`s around it.
pub fn module_at(file_path: &str, node: Node<'_>, text: &str) -> Vec<String> {
    module_above(file_path, node, &[], text)
}

/// [`module_at`], with the ancestors of `node` a walk already knows (root first, as
/// [`up_from`](crate::lang::up_from) takes them): each [`Node::parent`] is a walk down from the
/// root, and a name deep in a function of 100,000 statements climbed through every level.
pub fn module_above<'t>(
    file_path: &str,
    node: Node<'t>,
    ancestors: &[Node<'t>],
    text: &str,
) -> Vec<String> {
    let mut inner = Vec::new();
    for n in crate::lang::up_from(node, ancestors) {
        if n.kind() == "mod_item"
            && let Some(name) = n.child_by_field_name("name")
        {
            inner.push(node_text(name, text).to_string());
        }
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
        "crate" => {
            let mut p: Vec<String> = crate_root(here).into_iter().collect();
            p.extend(owned(&segments[1..]));
            vec![p]
        }
        "self" => {
            let mut p = relative_base(here);
            p.extend(owned(&segments[1..]));
            vec![p]
        }
        "super" => {
            let mut p = here.to_vec();
            let mut rest = &segments[..];
            let floor = usize::from(crate_root(here).is_some());
            while rest.first() == Some(&"super") {
                if p.len() <= floor {
                    return Vec::new();
                }
                p.pop();
                rest = &rest[1..];
            }
            p.extend(owned(rest));
            vec![p]
        }
        _ => {
            // A child module of `here`, or a crate name (the crate's own, from a binary or a
            // test), or a 2015-style path from the root.
            let mut relative = relative_base(here);
            relative.extend(owned(&segments));
            let mut from_root: Vec<String> = crate_root(here).into_iter().collect();
            from_root.extend(owned(&segments));
            vec![relative, owned(&segments[1..]), from_root]
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

/// Whether a path's first segment points inside this crate (`crate`, `self`, `super`) rather
/// than naming another crate or an item in scope.
pub fn starts_in_this_crate(head: &str) -> bool {
    matches!(head, "crate" | "self" | "super")
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
