use super::*;
use crate::edit::{FileChange, SourceFile};

fn run(lang: Language, before: &str, after: &str, start: usize, end: usize) -> Vec<Finding> {
    run_with(lang, before, after, start, end, &[])
}

fn run_with(
    lang: Language,
    before: &str,
    after: &str,
    start: usize,
    end: usize,
    existing: &[Finding],
) -> Vec<Finding> {
    let path = match lang {
        Language::Python => "a.py",
        Language::Rust => "a.rs",
    };
    let source = SourceFile::from_text(path, before);
    let changes = vec![
        FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap(),
    ];
    check(
        lang,
        &changes,
        &ExtractRequest {
            file: path.to_string(),
            start_line: start,
            end_line: end,
            new_name: "part".to_string(),
        },
        existing,
    )
}

const PY_BEFORE: &str = "def f(a):\n    b = a + 1\n    c = b * 2\n    print(c)\n    return c + b\n";

#[test]
fn python_a_bound_result_passes() {
    let after = "def f(a):\n    b, c = part(a)\n    print(c)\n    return c + b\n\n\ndef part(a):\n    b = a + 1\n    c = b * 2\n    return b, c\n";
    assert_eq!(run(Language::Python, PY_BEFORE, after, 2, 3), vec![]);
}

#[test]
fn python_a_dropped_result_names_the_reads() {
    let after = "def f(a):\n    part(a)\n    print(c)\n    return c + b\n\n\ndef part(a):\n    b = a + 1\n    c = b * 2\n";
    let findings = run(Language::Python, PY_BEFORE, after, 2, 3);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].line, 2);
    assert_eq!(findings[0].severity, crate::refactor::Severity::Error);
    assert_eq!(
        findings[0].message,
        "the result of `part` is dropped; line 4 reads `b`; lines 3–4 read `c`, which the extracted lines assigned: return `b`, `c` from `part` and bind them at the call"
    );
}

#[test]
fn python_a_name_the_call_does_not_bind() {
    let after = "def f(a):\n    c = part(a)\n    print(c)\n    return c + b\n\n\ndef part(a):\n    b = a + 1\n    c = b * 2\n    return c\n";
    let findings = run(Language::Python, PY_BEFORE, after, 2, 3);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(
        findings[0]
            .message
            .starts_with("the call of `part` does not bind `b`; line 4 reads `b`"),
        "{}",
        findings[0].message
    );
}

#[test]
fn python_a_generator_call_that_is_not_yielded_from() {
    // pylsp's extract of `tail` in more-itertools 10.5.0.
    let before = "def tail(n, iterable):\n    if isinstance(iterable, Sized):\n        yield from islice(iterable, n)\n    else:\n        yield from iter(deque(iterable, maxlen=n))\n";
    let dropped = "def tail(n, iterable):\n    part(iterable, n)\n\ndef part(iterable, n):\n    if isinstance(iterable, Sized):\n        yield from islice(iterable, n)\n    else:\n        yield from iter(deque(iterable, maxlen=n))\n";
    let findings = run(Language::Python, before, dropped, 2, 5);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].line, 2);
    assert_eq!(
        findings[0].message,
        "the result of `part` is dropped; the extracted lines yielded (lines 3, 5), so `part` is a generator that `tail` no longer yields from: write `yield from part(…)`"
    );
    let kept = dropped.replace("    part(iterable, n)", "    yield from part(iterable, n)");
    assert_eq!(run(Language::Python, before, &kept, 2, 5), vec![]);
}

#[test]
fn python_a_dropped_return_value() {
    let before = "def f(a):\n    if a:\n        return 1\n    return 2\n";
    let after =
        "def f(a):\n    part(a)\n\n\ndef part(a):\n    if a:\n        return 1\n    return 2\n";
    let findings = run(Language::Python, before, after, 2, 4);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(findings[0].message.contains("returned a value (lines 3–4)"));
    let kept = after.replace("    part(a)", "    return part(a)");
    assert_eq!(run(Language::Python, before, &kept, 2, 4), vec![]);
    // The refactor said it itself (the heuristic's warning on the `return`'s line).
    let said = [Finding::warning("a.py", 3, "`return` inside the selection")];
    assert_eq!(
        run_with(Language::Python, before, after, 2, 4, &said),
        vec![]
    );
}

#[test]
fn python_names_not_read_later_need_nothing() {
    let before = "def f(a):\n    b = a + 1\n    print(b)\n    return a\n";
    let after =
        "def f(a):\n    part(a)\n    return a\n\n\ndef part(a):\n    b = a + 1\n    print(b)\n";
    assert_eq!(run(Language::Python, before, after, 2, 3), vec![]);
}

const RS_BEFORE: &str = "fn f(a: u32) -> u32 {\n    let mut total = 0;\n    let b = a + 1;\n    total += b;\n    total * b\n}\n";

#[test]
fn rust_a_dropped_let_and_an_assignment_passed_by_mut_ref() {
    let dropped = "fn f(a: u32) -> u32 {\n    let mut total = 0;\n    part(a, &mut total);\n    total * b\n}\n\nfn part(a: u32, total: &mut u32) {\n    let b = a + 1;\n    *total += b;\n}\n";
    let findings = run(Language::Rust, RS_BEFORE, dropped, 3, 4);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert_eq!(findings[0].line, 3);
    assert_eq!(
        findings[0].message,
        "the result of `part` is dropped; line 4 reads `b`, which the extracted lines assigned: return `b` from `part` and bind it at the call"
    );
    let bound = "fn f(a: u32) -> u32 {\n    let mut total = 0;\n    let b = part(a, &mut total);\n    total * b\n}\n\nfn part(a: u32, total: &mut u32) -> u32 {\n    let b = a + 1;\n    *total += b;\n    b\n}\n";
    assert_eq!(run(Language::Rust, RS_BEFORE, bound, 3, 4), vec![]);
}

#[test]
fn rust_an_assignment_the_call_neither_binds_nor_passes() {
    let after = "fn f(a: u32) -> u32 {\n    let mut total = 0;\n    let b = part(a);\n    total * b\n}\n\nfn part(a: u32) -> u32 {\n    let b = a + 1;\n    b\n}\n";
    let findings = run(Language::Rust, RS_BEFORE, after, 3, 4);
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(
        findings[0]
            .message
            .starts_with("the call of `part` does not bind `total`; line 4 reads `total`"),
        "{}",
        findings[0].message
    );
}
