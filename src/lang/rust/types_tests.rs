//! Tests of `types`: the types read from declarations, initializers, iterators and closures.

use super::*;
use crate::lang::Language;
use crate::lang::names::Names;

fn types_of(text: &str, names: &[&str]) -> Vec<Option<String>> {
    let tree = Language::Rust.parse(text);
    let root = tree.root_node();
    let function = {
        let mut found = None;
        crate::lang::walk_node(root, |n| {
            if n.kind() == "function_item"
                && n.child_by_field_name("name")
                    .is_some_and(|x| node_text(x, text) == "probe")
            {
                found = Some(n);
            }
            found.is_none()
        });
        found.unwrap()
    };
    let locals = Names::collect(Language::Rust, function, text);
    let resolve = |name: &str, at: usize| locals.resolve(name, at).map(|b| b.pos);
    let scope = TypeScope {
        root,
        text,
        self_type: Some("Counter"),
        resolve: &resolve,
        elsewhere: None,
    };
    names
        .iter()
        .map(|name| {
            let binding = locals.bindings_of(name).last().unwrap();
            binding_type(&scope, binding.pos)
        })
        .collect()
}

#[test]
fn types_from_declarations_and_plain_initializers() {
    let text = "\
struct Counter { total: u64, names: Vec<String>, pair: (u8, char) }
struct Point(i32, i32);
fn make() -> Point { Point(0, 0) }
impl Counter {
    fn new() -> Self { todo!() }
    fn ratio(&self) -> f64 { 0.0 }
    fn split(&self) -> Result<(u8, String), E> { todo!() }
    fn probe(&self, a: usize, mut b: &str, items: &[u32]) {
        let c: Vec<u8> = Vec::new();
        let d = 3u16;
        let e = 3;
        let f = \"text\";
        let g = String::new();
        let h = format!(\"{f}\");
        let i = a as i64;
        let j = self.total;
        let k = &self.names;
        let l = make();
        let m = Counter::new();
        let n = self.ratio();
        let o = b.len();
        let p = d;
        let q = a > 2;
        let r = f.to_string();
        let s = l.0;
        let t = items.iter().count();
        for u in 0..a {}
        for v in items.iter() {}
        for w in k.iter() {}
        for x in f.chars() {}
        let y = |z| z;
        let aa = Self::new();
        let bb = self.pair;
        let (cc, mut dd) = self.split()?;
        let ee = Kind::First;
        let ff = Kind::MAX;
        let gg = Vec::new();
    }
}
";
    let names = [
        "a", "b", "items", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p",
        "q", "r", "s", "t", "u", "v", "w", "x", "y", "aa", "bb", "cc", "dd", "ee", "ff", "gg",
    ];
    let got = types_of(text, &names);
    let want = [
        Some("usize"),
        Some("&str"),
        Some("&[u32]"),
        Some("Vec<u8>"),
        Some("u16"),
        // `let e = 3;` that nothing uses: Rust's default.
        Some("i32"),
        Some("&str"),
        Some("String"),
        Some("String"),
        Some("i64"),
        Some("u64"),
        Some("&Vec<String>"),
        Some("Point"),
        Some("Counter"),
        Some("f64"),
        Some("usize"),
        Some("u16"),
        Some("bool"),
        Some("String"),
        Some("i32"),
        Some("usize"),
        Some("usize"),
        Some("&u32"),
        Some("&String"),
        Some("char"),
        None,
        Some("Self"),
        Some("(u8, char)"),
        Some("u8"),
        Some("String"),
        Some("Kind"),
        None,
        None,
    ];
    for ((name, got), want) in names.iter().zip(&got).zip(want) {
        assert_eq!(got.as_deref(), want, "{name}");
    }
}

#[test]
fn a_returned_local_has_the_declared_return_type() {
    let text = "fn probe(n: u8) -> Result<Vec<u8>, E> {\n    let mut out = Vec::new();\n    let total = 0;\n    if n > 1 { return Ok(out); }\n    let c = |x| { let y = 1; y };\n    Ok(out)\n}\n";
    assert_eq!(
        types_of(text, &["out", "total"]),
        // `total` nothing uses: Rust's default for an unsuffixed integer.
        [Some("Vec<u8>".to_string()), Some("i32".to_string())]
    );
    let tail = "fn probe() -> u32 {\n    let mut count = 0;\n    count += 1;\n    count\n}\n";
    assert_eq!(types_of(tail, &["count"]), [Some("u32".to_string())]);
}

#[test]
fn item_types_of_iterators_and_closures() {
    let text = "\
use std::collections::HashMap;
fn probe(items: &[u32], names: Vec<String>, map: HashMap<String, u8>, s: &str) {
    for (a, b) in items.iter().enumerate() {}
    for c in map.keys() {}
    for d in map.values() {}
    for (e, f) in &map {}
    for g in items.iter().map(|x| x * 2) {}
    for h in items.iter().copied().rev() {}
    for (i, j) in s.char_indices() {}
    for k in names.into_iter() {}
    for (l, m) in items.iter().zip(names.iter()) {}
    let n = |x: u32, y: u32| x > y;
    let o = items.iter().filter(|p| **p > 2).count();
    let mut q = |x: u32| x;
    for r in s.split(',') {}
    let t = { let u = 3u8; u };
}
";
    let names = [
        "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "p", "q", "r", "t",
    ];
    let want = [
        Some("usize"),
        Some("&u32"),
        Some("&String"),
        Some("&u8"),
        Some("&String"),
        Some("&u8"),
        Some("u32"),
        Some("u32"),
        Some("usize"),
        Some("char"),
        Some("String"),
        Some("&u32"),
        Some("&String"),
        Some("impl Fn(u32, u32) -> bool"),
        Some("&&u32"),
        None,
        Some("&str"),
        Some("u8"),
    ];
    let got = types_of(text, &names);
    for ((name, got), want) in names.iter().zip(&got).zip(want) {
        assert_eq!(got.as_deref(), want, "{name}");
    }
}

#[test]
fn types_through_unsafe_blocks_results_and_number_methods() {
    let text = "\
fn parsed(s: &str) -> Result<u32, E> { todo!() }
fn probe(a: u64) {
    let b = unsafe { a };
    let c = parsed(\"1\").ok();
    let d = (a as usize | 1).rotate_right(1);
    let e = d.wrapping_sub(2);
    let ref f = a;
}
";
    let got = types_of(text, &["b", "c", "d", "e", "f"]);
    let want = [
        Some("u64"),
        Some("Option<u32>"),
        Some("usize"),
        Some("usize"),
        Some("&u64"),
    ];
    for (got, want) in got.iter().zip(want) {
        assert_eq!(got.as_deref(), want);
    }
}

#[test]
fn readings_of_type_texts() {
    assert!(is_copy("u8") && is_copy("&str") && is_copy("(u8, &Vec<u8>)"));
    assert!(is_copy("[u8; 4]") && !is_copy("[String; 2]"));
    assert!(!is_copy("String") && !is_copy("&mut u8") && !is_copy("Vec<u8>"));
    assert!(is_mutable_reference("&'a mut Vec<u8>") && !is_mutable_reference("&u8"));
    assert_eq!(strip_reference("&'a mut T"), Some("T"));
    assert_eq!(
        wrapper("io::Result<()>"),
        Some((Wrapper::Result, Some("()".to_string())))
    );
    assert_eq!(wrapper("fmt::Result"), Some((Wrapper::Result, None)));
    assert_eq!(
        with_value("Result<Version, Error>", "(u8, String)").as_deref(),
        Some("Result<(u8, String), Error>")
    );
    assert!(has_elided_lifetime("&str") && has_elided_lifetime("Formatter<'_>"));
    assert!(!has_elided_lifetime("&'a str") && !has_elided_lifetime("Vec<u8>"));
    assert_eq!(element_of("&Vec<String>").as_deref(), Some("String"));
    assert_eq!(element_of("[u8; 4]").as_deref(), Some("u8"));
    assert_eq!(split_top_level("F: FnMut(&str) -> u8, G", ',').len(), 2);
}

#[test]
fn names_a_type_text_needs() {
    assert_eq!(
        type_names("Result<(Comparator, Position, &'a str), io::Error>"),
        ["Result", "Comparator", "Position", "io"]
    );
    assert_eq!(type_names("&mut [u8; 4]"), Vec::<&str>::new());
}

#[test]
fn unsuffixed_numbers_take_the_type_their_uses_require() {
    let text = "\
fn take(n: u64) {}
fn probe(v: Vec<u8>, limit: u16, unknown: Thing) {
    let a = 0;
    if a < v.len() {}
    let mut b = 0;
    b += limit;
    let c = 1;
    let _x = v[c];
    let d = 2;
    take(d);
    let f = 0;
    let g = 1;
    let _y = v.get(f + g);
    let mut h = 0;
    h += 1;
    let _z = h as u8;
    println!(\"{}\", h);
    let i = 1.5;
    let j = 0;
    unknown.call(j);
    let k = 0;
    let _l = k;
    let m = -1;
    let _n: i64 = m * 2;
    let o = 0;
    let _p = o << 2;
    let q = 0;
    let mut r = 0u8;
    r = q;
}
";
    let names = [
        "a", "b", "c", "d", "f", "g", "h", "i", "j", "k", "m", "o", "q",
    ];
    let got = types_of(text, &names);
    let want = [
        Some("usize"),
        Some("u16"),
        Some("usize"),
        Some("u64"),
        Some("usize"),
        Some("usize"),
        // Only neutral uses (`+= 1`, a cast, a formatting macro): Rust's default.
        Some("i32"),
        Some("f64"),
        // Handed to a method the reading does not know: the use may decide the type, so it
        // stays unknown.
        None,
        // Bound to an untyped local whose own uses decide nothing: Rust's default.
        Some("i32"),
        Some("i64"),
        // Shifted: the shift amount's type says nothing of it.
        None,
        Some("u8"),
    ];
    for ((name, got), want) in names.iter().zip(&got).zip(want) {
        assert_eq!(got.as_deref(), want, "{name}");
    }
}

#[test]
fn empty_collections_take_the_types_put_into_them() {
    let text = "\
use std::collections::HashMap;
fn fill(out: &mut Vec<String>) {}
fn probe(words: &[String], flag: bool) {
    let mut a = Vec::new();
    a.push(words.len());
    let mut b = HashMap::new();
    b.insert(words.len(), 1u8);
    let mut borrows = Vec::new();
    borrows.push(\"key\");
    let mut c = Vec::with_capacity(4);
    fill(&mut c);
    let mut d: Vec<_> = Vec::new();
    d.push(flag);
    let e: Vec<_> = words.iter().collect();
    let f = Vec::new();
    unknown(f);
    let mut g = Vec::new();
    g.push(1u8);
    g.push(flag);
    for op in &[\"=\", \">\"] {}
    let h = [0u16; 4];
    let i = \"1.2\".split('.');
    let j = str::from_utf8(&bytes).ok()?;
}
";
    let names = [
        "a", "b", "borrows", "c", "d", "e", "f", "g", "op", "h", "i", "j",
    ];
    let got = types_of(text, &names);
    let want = [
        Some("Vec<usize>"),
        Some("HashMap<usize, u8>"),
        // A collection of borrows: lent `&mut`, its elided lifetimes would not match.
        None,
        Some("Vec<String>"),
        Some("Vec<bool>"),
        // A placeholder nothing fills stays unknown (a `_` in a signature does not compile).
        None,
        None,
        // Two uses that disagree: unknown.
        None,
        Some("&&str"),
        Some("[u16; 4]"),
        Some("std::str::Split<'_, char>"),
        Some("&str"),
    ];
    for ((name, got), want) in names.iter().zip(&got).zip(want) {
        assert_eq!(got.as_deref(), want, "{name}");
    }
}

#[test]
fn names_bound_by_if_let_while_let_and_match_patterns() {
    let text = "\
fn probe(s: &str, opt: Option<u8>, pairs: &Option<(u16, String)>, r: Result<char, E>) {
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {}
    let mut indices = s.char_indices();
    if let Some((i, _)) = indices.next() {}
    if let Some(a) = opt {}
    if let Some((b, name)) = pairs {}
    match r {
        Ok(d) => {}
        Err(_) => {}
    }
    if let Some(p) = chars.peek() {}
    if let Some(mut m) = &opt {}
    if let Some(q) | None = opt {}
    let v = vec![1u8];
    if let Some(w) = v.iter().next() {}
}
";
    let names = ["c", "i", "a", "b", "name", "d", "p", "m", "q", "w"];
    let got = types_of(text, &names);
    let want = [
        Some("char"),
        Some("usize"),
        Some("u8"),
        // A constructor pattern matched against a reference binds references.
        Some("&u16"),
        Some("&String"),
        Some("char"),
        Some("&char"),
        // `mut` under a reference, an or-pattern, a `vec!` the reading does not type: unknown.
        None,
        None,
        None,
    ];
    for ((name, got), want) in names.iter().zip(&got).zip(want) {
        assert_eq!(got.as_deref(), want, "{name}");
    }
}

#[test]
fn if_and_match_values_and_generic_functions_with_a_stated_result() {
    let text = "\
fn parse<S: AsRef<str>>(s: S) -> u64 { 0 }
fn echo<T>(t: T) -> T { t }
fn first<'a>(s: &'a str) -> &'a str { s }
fn probe(width: Option<usize>, flag: bool) -> bool {
    let a = match width {
        Some(w) => w,
        None => return false,
    };
    let b = if flag { parse(\"1\") } else { 2 };
    let c = if flag { 'x' } else if width.is_none() { 'y' } else { 'z' };
    let d = parse(\"7\");
    let e = echo(3u8);
    let f = first(\"s\");
    let g = if flag { 1 };
    true
}
";
    let names = ["a", "b", "c", "d", "e", "f", "g"];
    let got = types_of(text, &names);
    let want = [
        Some("usize"),
        Some("u64"),
        Some("char"),
        Some("u64"),
        // The result names the generics: the caller's types decide it.
        None,
        None,
        None,
    ];
    for ((name, got), want) in names.iter().zip(&got).zip(want) {
        assert_eq!(got.as_deref(), want, "{name}");
    }
}

#[test]
fn std_constructors_of_a_type_the_file_names() {
    let text = "\
use std::collections::hash_map::DefaultHasher;
use std::time::Instant;
fn probe() {
    let h = DefaultHasher::new();
    let t = Instant::now();
    let u = Unknown::new();
}
";
    assert_eq!(
        types_of(text, &["h", "t", "u"]),
        vec![
            Some("DefaultHasher".to_string()),
            Some("Instant".to_string()),
            None
        ]
    );
}

#[test]
fn numbers_typed_through_the_locals_they_initialize_and_the_function_value() {
    let text = "\
fn probe() -> u64 {
    let n = 1;
    let k = n * n;
    let m = k + 1;
    let a = 2;
    let b = a;
    let c = 3;
    if c > 0 {
        return b;
    }
    let d = 4;
    d + 1
}
";
    assert_eq!(
        types_of(text, &["n", "k", "a", "b", "c", "d"]),
        vec![
            Some("i32".to_string()),
            Some("i32".to_string()),
            Some("u64".to_string()),
            Some("u64".to_string()),
            Some("i32".to_string()),
            Some("u64".to_string()),
        ]
    );
}

#[test]
fn a_plain_tuple_struct_constructor_types_the_local() {
    let text = "\
struct Counter(i32);
struct Wrapper<T>(T);
struct Named { n: i32 }
fn probe() {
    let c = Counter(0);
    let w = Wrapper(1);
    let named = Named { n: 0 };
}
";
    assert_eq!(
        types_of(text, &["c", "w", "named"]),
        vec![Some("Counter".to_string()), None, Some("Named".to_string())]
    );
}

#[test]
fn std_functions_and_methods_the_files_uses_resolve_and_array_patterns() {
    let text = "\
use core::num::NonZeroUsize;
use core::ptr;
use core::slice;
use std::env;
use std::fmt;
fn inline_len() -> NonZeroUsize { todo!() }
fn probe(p: *const u8, f: &mut fmt::Formatter) {
    let [first, second] = unsafe { ptr::read(p as *const [u8; 2]) };
    let len = unsafe { inline_len() }.get();
    let bytes = unsafe { slice::from_raw_parts(p, len) };
    let rustc = env::var_os(\"RUSTC\");
    let width = f.width();
    let [x, y] = [1u16, 2u16];
    let unknown = other::read(p);
}
";
    assert_eq!(
        types_of(
            text,
            &[
                "first", "second", "len", "bytes", "rustc", "width", "x", "y", "unknown"
            ]
        ),
        vec![
            Some("u8".to_string()),
            Some("u8".to_string()),
            Some("usize".to_string()),
            Some("&[u8]".to_string()),
            Some("Option<std::ffi::OsString>".to_string()),
            Some("Option<usize>".to_string()),
            Some("u16".to_string()),
            Some("u16".to_string()),
            None
        ]
    );
}

#[test]
fn let_patterns_of_tuple_structs_and_let_else() {
    let text = "\
struct Counter(i32);
struct Pair(u8, String);
struct Wrapped<T>(T);
fn probe(c: &Counter, o: Option<u64>, w: Wrapped<u8>) {
    let Counter(n) = Counter(0);
    let Pair(a, b) = make_pair();
    let Counter(r) = c;
    let Some(x) = o else { return };
    let Wrapped(t) = w;
}
fn make_pair() -> Pair { todo!() }
";
    assert_eq!(
        types_of(text, &["n", "a", "b", "r", "x", "t"]),
        vec![
            Some("i32".to_string()),
            Some("u8".to_string()),
            Some("String".to_string()),
            Some("&i32".to_string()),
            Some("u64".to_string()),
            None
        ]
    );
}

#[test]
fn a_let_else_binding_the_function_returns_takes_its_return_type() {
    // rust-analyzer's `no_parameter_for_variable_used_only_let_else`.
    let text = "fn probe() -> u32 {\n    let Some(y) = Some(1) else {\n        return 0;\n    };\n    y\n}\n";
    assert_eq!(types_of(text, &["y"]), vec![Some("u32".to_string())]);
}
