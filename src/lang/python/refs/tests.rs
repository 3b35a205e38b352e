use super::*;

#[test]
fn reexports_through_init_and_star() {
    let init = "from .a import dedent\nfrom .b import *\nfrom .c import other as dedent2\n";
    let tree = Language::Python.parse(init);
    let mut reach = Reach::default();
    reach.exports.insert(
        vec!["pkg".into(), "a".into()],
        ["dedent".to_string()].into(),
    );
    reach
        .exports
        .insert(vec!["pkg".into(), "b".into()], ["fill".to_string()].into());
    let words = learn_reexports("pkg/__init__.py", &tree, init, &mut reach);
    assert_eq!(words, ["dedent", "fill"]);
    assert_eq!(
        reach
            .names_in(&["pkg".to_string()])
            .unwrap()
            .iter()
            .collect::<Vec<_>>(),
        ["dedent", "fill"]
    );
}

#[test]
fn subclasses_are_owners() {
    let text = "from fmt import Formatter\nimport fmt as f\n\nclass A(Formatter):\n    pass\n\nclass B(f.Formatter):\n    pass\n\nclass C(object):\n    pass\n";
    let tree = Language::Python.parse(text);
    let mut reach = Reach::default();
    reach
        .owners
        .insert((vec!["fmt".into()], "Formatter".into()));
    let words = learn_subclasses("app.py", &tree, text, &mut reach);
    assert_eq!(words, ["A", "B"]);
}
