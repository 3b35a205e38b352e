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
    let words = learn_reexports("pkg/__init__.py", &top_imports(&tree, init), &mut reach);
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

/// `first_bound` (the file's scopes found once) answers what asking `bound_at` of each
/// occurrence in turn answers, whichever occurrence comes first.
#[test]
fn first_bound_is_bound_at_of_the_first_occurrence_that_has_one() {
    let text = "import taken_import\n\ndef f():\n    pass\n\ndef taken_def():\n    pass\n\nf()\n\ndef main():\n    local = 1\n    f()\n\n    def inner():\n        nested = 2\n        return f()\n    return f()\n\nclass C:\n    attr = f()\n";
    let tree = Language::Python.parse(text);
    let offsets: Vec<usize> = crate::lang::calls::word_matches(text, "f");
    assert!(offsets.len() >= 5, "{offsets:?}");
    for name in [
        "local",
        "nested",
        "taken_def",
        "taken_import",
        "attr",
        "nothing",
    ] {
        for start in 0..offsets.len() {
            let some = &offsets[start..];
            let one_by_one = some
                .iter()
                .find_map(|&at| PythonRefs.bound_at(&tree, text, at, name));
            assert_eq!(
                PythonRefs.first_bound(&tree, text, some, name),
                one_by_one,
                "{name} from occurrence {start}"
            );
        }
    }
    assert!(
        PythonRefs
            .first_bound(&tree, text, &offsets, "local")
            .is_some()
    );
    assert!(
        PythonRefs
            .first_bound(&tree, text, &offsets, "nothing")
            .is_none()
    );
}
