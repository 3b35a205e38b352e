use super::*;

#[test]
fn use_leaves_know_their_module_and_visibility() {
    let text = "use crate::a::f as g;\npub use super::b::*;\nmod inner {\n    use super::*;\n    fn x() {\n        use crate::c::h;\n    }\n}\n";
    let tree = Language::Rust.parse(text);
    let leaves = uses(&tree, text, "src/m.rs");
    let shown: Vec<String> = leaves
        .iter()
        .map(|u| {
            format!(
                "{} {:?} {} {} {}",
                u.path.join("::"),
                u.binds(),
                u.public,
                u.module.join("::"),
                u.module_level
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            "crate::a::f Some(\"g\") false m true",
            "super::b::* None true m true",
            "super::* None false m::inner true",
            "crate::c::h Some(\"h\") false m::inner false",
        ]
    );
}

#[test]
fn use_declarations_deep_in_expressions_are_found_among_words_that_hold_use() {
    // The walk goes down only where the keyword is: a `use` in a block in a closure in a match
    // arm, `pub(crate) use`, `use{...}` with no space, and words that merely hold `use` (`user`,
    // `used`, `r#use` is no keyword) around them.
    let text = "fn user(used: u8) -> u8 {\n    let f = |x: u8| match x {\n        0 => { use crate::deep::a; a(used) }\n        _ => used,\n    };\n    f(used)\n}\nmod reuse {\n    pub(crate) use{super::b, super::c as d};\n    fn misuse() { let _ = \"use crate::not::this;\"; }\n}\n";
    let tree = Language::Rust.parse(text);
    let leaves: Vec<String> = uses(&tree, text, "src/lib.rs")
        .iter()
        .map(|u| {
            format!(
                "{} {} {}",
                u.path.join("::"),
                u.module.join("::"),
                u.module_level
            )
        })
        .collect();
    assert_eq!(
        leaves,
        [
            "crate::deep::a  false",
            "super::c reuse true",
            "super::b reuse true",
        ]
    );
}

#[test]
fn reexports_and_globs_extend_the_reach() {
    let text = "pub use crate::util::helper as assist;\npub use crate::more::*;\nuse crate::other::helper;\n";
    let tree = Language::Rust.parse(text);
    let mut reach = Reach::default();
    reach
        .exports
        .insert(vec!["util".into()], ["helper".to_string()].into());
    reach
        .exports
        .insert(vec!["more".into()], ["tool".to_string()].into());
    let words = learn_reexports("src/lib.rs", &tree, text, &mut reach);
    assert_eq!(words, ["assist", "tool"]);
    assert_eq!(
        reach.names_in(&[]).unwrap().iter().collect::<Vec<_>>(),
        ["assist", "tool"]
    );
}

/// `first_bound` (the functions' names and the modules' items worked out once) answers what
/// asking `bound_at` of each occurrence in turn answers, whichever occurrence comes first.
#[test]
fn first_bound_is_bound_at_of_the_first_occurrence_that_has_one() {
    let text = "use crate::x::taken_import;\nfn f() {}\nfn taken_item() {}\nmod m {\n    fn g() {\n        super::f();\n    }\n    fn free() {}\n}\nfn main() {\n    f();\n    let local = 1;\n    f();\n    {\n        let inner = 2;\n        f();\n    }\n    f();\n}\n";
    let tree = Language::Rust.parse(text);
    let offsets: Vec<usize> = crate::lang::calls::word_matches(text, "f");
    assert!(offsets.len() >= 5, "{offsets:?}");
    for name in [
        "local",
        "inner",
        "taken_item",
        "taken_import",
        "free",
        "g",
        "nothing",
    ] {
        for start in 0..offsets.len() {
            let some = &offsets[start..];
            let one_by_one = some
                .iter()
                .find_map(|&at| RustRefs.bound_at(&tree, text, at, name));
            assert_eq!(
                RustRefs.first_bound(&tree, text, some, name),
                one_by_one,
                "{name} from occurrence {start}"
            );
        }
    }
    assert!(
        RustRefs
            .first_bound(&tree, text, &offsets, "local")
            .is_some()
    );
    assert!(
        RustRefs
            .first_bound(&tree, text, &offsets, "nothing")
            .is_none()
    );
}
