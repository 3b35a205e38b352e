use super::*;
use crate::lang::Language;

fn parse(lang: Language, text: &str) -> tree_sitter::Tree {
    lang.parse(text)
}

fn select<'t>(
    lang: Language,
    tree: &'t tree_sitter::Tree,
    text: &str,
    what: &str,
) -> Result<Node<'t>, NotExpression> {
    let start = text.find(what).unwrap();
    expression_at(lang, tree.root_node(), text, start..start + what.len())
}

#[test]
fn a_range_is_one_expression_or_says_what_it_is() {
    let text = "def f(a, b):\n    return a * b + 1\n";
    let tree = parse(Language::Python, text);
    assert_eq!(
        select(Language::Python, &tree, text, "a * b")
            .unwrap()
            .kind(),
        "binary_operator"
    );
    assert_eq!(
        select(Language::Python, &tree, text, "* b + 1").unwrap_err(),
        NotExpression::Partial
    );
    assert_eq!(
        select(Language::Python, &tree, text, "return a * b + 1").unwrap_err(),
        NotExpression::Statement
    );
    assert_eq!(
        select(Language::Python, &tree, text, "a").unwrap_err(),
        NotExpression::Name
    );
}

#[test]
fn evaluation_order_hazards_are_named() {
    let text = "def f(a, xs):\n    y = a and g(a)\n    z = [h(x) for x in xs if x]\n";
    let tree = parse(Language::Python, text);
    let root = tree.root_node();
    let hazard_of = |what: &str| {
        let expr = select(Language::Python, &tree, text, what).unwrap();
        let (statement, _) = statement_of(Language::Python, expr).unwrap();
        hazard(Language::Python, expr, statement)
    };
    let _ = root;
    assert_eq!(hazard_of("g(a)"), Some(Hazard::ShortCircuit));
    assert_eq!(hazard_of("h(x)"), Some(Hazard::Comprehension));
    assert_eq!(hazard_of("a and g(a)"), None);
}

#[test]
fn rust_precedence_decides_parentheses() {
    let text = "fn g(x: i32) -> i32 { x }\nfn f(a: i32, b: i32) -> i32 {\n    let s = a + b;\n    s * 2 + g(s)\n}\n";
    let tree = parse(Language::Rust, text);
    let root = tree.root_node();
    let reads: Vec<_> = occurrences(Language::Rust, root, text, "s")
        .into_iter()
        .filter(|(_, o)| *o == Occurrence::Read)
        .map(|(n, _)| n)
        .collect();
    let binding = occurrences(Language::Rust, root, text, "s")
        .into_iter()
        .find(|(_, o)| *o == Occurrence::Binding)
        .unwrap()
        .0;
    let value = binding_of(Language::Rust, binding).unwrap().value;
    assert!(needs_parens(Language::Rust, value, reads[0], text));
    assert!(!needs_parens(Language::Rust, value, reads[1], text));
}

#[test]
fn a_comprehension_iterable_and_a_with_value_are_reads_their_targets_are_not() {
    let text = "def f(items, ctx):\n    g = (x for x in items)\n    with ctx as c:\n        pass\n";
    let tree = parse(Language::Python, text);
    let kind_of = |name: &str| {
        occurrences(Language::Python, tree.root_node(), text, name)
            .into_iter()
            .map(|(_, o)| o)
            .filter(|o| *o != Occurrence::Parameter)
            .collect::<Vec<_>>()
    };
    assert_eq!(kind_of("items"), vec![Occurrence::Read]);
    assert_eq!(kind_of("ctx"), vec![Occurrence::Read]);
    assert!(
        kind_of("x").contains(&Occurrence::Pattern),
        "{:?}",
        kind_of("x")
    );
    assert_eq!(kind_of("c"), vec![Occurrence::Pattern]);
}

#[test]
fn the_expressions_around_the_cursor_go_from_the_innermost_out_skipping_names() {
    let text = "fn f(a: i32, b: i32) -> i32 {\n    let x = a * (b + 1);\n    x\n}\n";
    let tree = parse(Language::Rust, text);
    let at = text.find("b + 1").unwrap();
    let found: Vec<&str> = expressions_around(Language::Rust, tree.root_node(), at..at)
        .into_iter()
        .map(|r| &text[r])
        .collect();
    assert_eq!(found, ["b + 1", "(b + 1)", "a * (b + 1)"]);
}
