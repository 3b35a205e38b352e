//! Rust: the result types of a few standard-library functions and methods whose signatures fix
//! them (`ptr::read`, `slice::from_raw_parts`, `env::var_os`, `NonZeroUsize::get`,
//! `Formatter::width`, pointer arithmetic), and the std types that are `Copy` (`NonZeroUsize`, `NonNull<T>`). Each is
//! read only when the path resolves to `std`/`core`/`alloc` through the file's own `use`s (or is
//! written in full), so a crate's own item of the same name is never taken for std's.

use tree_sitter::Node;

use super::imports::use_leaves;
use super::types::{TypeScope, expression_type_at, generic_parts, strip_references};

const STD_CRATES: &[&str] = &["std", "core", "alloc"];

/// The integer behind each `NonZero*` type.
const NON_ZERO: &[(&str, &str)] = &[
    ("NonZeroU8", "u8"),
    ("NonZeroU16", "u16"),
    ("NonZeroU32", "u32"),
    ("NonZeroU64", "u64"),
    ("NonZeroU128", "u128"),
    ("NonZeroUsize", "usize"),
    ("NonZeroI8", "i8"),
    ("NonZeroI16", "i16"),
    ("NonZeroI32", "i32"),
    ("NonZeroI64", "i64"),
    ("NonZeroI128", "i128"),
    ("NonZeroIsize", "isize"),
];

/// `written` (`ptr::read`, `core::ptr::read`, `NonZeroUsize`) as the std path it names
/// (`std::ptr::read`, `std::num::NonZeroUsize`), through the top-level `use`s of the file
/// (`use core::ptr::{self, NonNull};`); `None` when it does not name an item of std.
pub fn std_path(root: Node<'_>, text: &str, written: &str) -> Option<String> {
    let segments: Vec<String> = written
        .split("::")
        .map(|s| s.split_whitespace().collect::<String>())
        .collect();
    let (head, rest) = segments.split_first()?;
    let mut full: Vec<String> = if STD_CRATES.contains(&head.as_str()) && !rest.is_empty() {
        vec![head.clone()]
    } else {
        imported_std_path(root, text, head)?
    };
    full.extend(rest.iter().cloned());
    full[0] = "std".to_string();
    Some(full.join("::"))
}

/// The std path a top-level `use` binds `name` to (`use core::ptr::{self, NonNull};` binds
/// `ptr` and `NonNull`).
fn imported_std_path(root: Node<'_>, text: &str, name: &str) -> Option<Vec<String>> {
    let mut cursor = root.walk();
    let declarations = root
        .named_children(&mut cursor)
        .filter(|n| n.kind() == "use_declaration");
    for declaration in declarations {
        for (mut path, alias) in use_leaves(declaration, text) {
            if path.last().is_some_and(|s| s == "self") {
                path.pop();
            }
            let bound = alias.as_deref().or(path.last().map(String::as_str));
            let from_std = path.len() > 1 && STD_CRATES.contains(&path[0].as_str());
            if from_std && bound == Some(name) {
                return Some(path);
            }
        }
    }
    None
}

/// The type of a call of a std function by path (`ptr::read(p as *const [u8; 2])` →
/// `[u8; 2]`), when its signature fixes it.
pub fn call_type(
    scope: &TypeScope<'_, '_>,
    function_path: &str,
    arguments: Node<'_>,
    depth: usize,
) -> Option<String> {
    let path = std_path(scope.root, scope.text, function_path)?;
    let first = || {
        let argument = arguments.named_child(0)?;
        expression_type_at(scope, argument, depth + 1)
    };
    let pointee = |mutable_only: bool| {
        let ty = first()?;
        let ty = ty.trim();
        ty.strip_prefix("*mut ")
            .or_else(|| ty.strip_prefix("*const ").filter(|_| !mutable_only))
            .map(|t| t.trim().to_string())
    };
    match path.as_str() {
        "std::ptr::read" | "std::ptr::read_unaligned" | "std::ptr::read_volatile" => pointee(false),
        "std::slice::from_raw_parts" => pointee(false).map(|t| format!("&[{t}]")),
        "std::slice::from_raw_parts_mut" => pointee(true).map(|t| format!("&mut [{t}]")),
        "std::str::from_utf8_unchecked" => Some("&str".to_string()),
        "std::str::from_utf8_unchecked_mut" => Some("&mut str".to_string()),
        "std::env::var_os" => Some("Option<std::ffi::OsString>".to_string()),
        "std::env::var" => Some("Result<String, std::env::VarError>".to_string()),
        "std::env::current_dir" => Some("std::io::Result<std::path::PathBuf>".to_string()),
        "std::mem::size_of_val" | "std::mem::align_of_val" => Some("usize".to_string()),
        _ => None,
    }
}

/// The type of `receiver.method()` for a receiver of a std type whose method fixes it
/// (`NonZeroUsize::get` → `usize`, `Formatter::width` → `Option<usize>`).
pub fn method_type(
    root: Node<'_>,
    text: &str,
    receiver_type: &str,
    method: &str,
) -> Option<String> {
    let bare = strip_references(receiver_type).trim();
    // Pointer arithmetic keeps the pointer's type (`ptr.add(header)`).
    let pointer_arithmetic = [
        "add",
        "sub",
        "offset",
        "wrapping_add",
        "wrapping_sub",
        "wrapping_offset",
    ];
    if (bare.starts_with("*const ") || bare.starts_with("*mut "))
        && pointer_arithmetic.contains(&method)
    {
        return Some(bare.to_string());
    }
    let (head, arguments) = generic_parts(bare).unwrap_or_else(|| (bare.to_string(), Vec::new()));
    let path = std_path(root, text, &head)?;
    let name = path.rsplit("::").next().unwrap_or(&path);
    let fixed = |s: &str| Some(s.to_string());
    match (path.as_str(), method) {
        (_, "get") if path.starts_with("std::num::NonZero") => match arguments.as_slice() {
            [integer] if name == "NonZero" => Some(integer.clone()),
            _ => NON_ZERO
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, i)| i.to_string()),
        },
        ("std::fmt::Formatter", "width" | "precision") => fixed("Option<usize>"),
        ("std::fmt::Formatter", "fill") => fixed("char"),
        ("std::fmt::Formatter", "alternate" | "sign_plus" | "sign_minus") => fixed("bool"),
        ("std::process::Command", "output") => fixed("std::io::Result<std::process::Output>"),
        ("std::process::Command", "status") => fixed("std::io::Result<std::process::ExitStatus>"),
        ("std::ptr::NonNull", "as_ptr") => match arguments.as_slice() {
            [pointee] => Some(format!("*mut {pointee}")),
            _ => None,
        },
        _ => None,
    }
}

/// Whether a std type the file names is `Copy`: the `NonZero*` integers and `NonNull<T>`.
pub fn is_copy(root: Node<'_>, text: &str, ty: &str) -> bool {
    let ty = ty.trim();
    let head = ty.split('<').next().unwrap_or(ty).trim();
    let Some(path) = std_path(root, text, head) else {
        return false;
    };
    let name = path.rsplit("::").next().unwrap_or(&path);
    path.starts_with("std::num::NonZero")
        && (name == "NonZero" || NON_ZERO.iter().any(|(n, _)| *n == name))
        || path == "std::ptr::NonNull"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> tree_sitter::Tree {
        crate::lang::Language::Rust.parse_incremental(text, None)
    }

    #[test]
    fn paths_resolve_to_std_through_the_files_uses_only() {
        let text = "use core::ptr::{self, NonNull};\nuse core::num::NonZeroUsize;\nuse std::fmt;\nuse crate::thing::Formatter;\nmod slice {}\n";
        let tree = tree(text);
        let root = tree.root_node();
        let path = |p: &str| std_path(root, text, p);
        assert_eq!(path("ptr::read").as_deref(), Some("std::ptr::read"));
        assert_eq!(path("NonNull").as_deref(), Some("std::ptr::NonNull"));
        assert_eq!(
            path("core::slice::from_raw_parts").as_deref(),
            Some("std::slice::from_raw_parts")
        );
        assert_eq!(
            path("fmt::Formatter").as_deref(),
            Some("std::fmt::Formatter")
        );
        // The crate's own `Formatter`, a module of the crate, a name nothing imports.
        assert_eq!(path("Formatter"), None);
        assert_eq!(path("slice::from_raw_parts"), None);
        assert_eq!(path("env::var_os"), None);
        assert!(is_copy(root, text, "NonZeroUsize"));
        assert!(is_copy(root, text, "NonNull<u8>"));
        assert!(!is_copy(root, text, "Formatter"));
        let method = |ty: &str, m: &str| method_type(root, text, ty, m);
        assert_eq!(method("NonZeroUsize", "get").as_deref(), Some("usize"));
        assert_eq!(
            method("&mut fmt::Formatter", "width").as_deref(),
            Some("Option<usize>")
        );
        assert_eq!(method("&mut Formatter", "width"), None);
        assert_eq!(method("NonNull<u8>", "as_ptr").as_deref(), Some("*mut u8"));
        assert_eq!(method("*const u8", "add").as_deref(), Some("*const u8"));
        assert_eq!(method("*const u8", "read"), None);
    }
}
