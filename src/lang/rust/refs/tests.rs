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
