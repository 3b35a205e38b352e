//! Rust extract function handing back what a plain return value cannot: `return`s of the
//! enclosing function in the selection, a `let ref` binding, a field of a struct declared in
//! another file. What the new function returns instead, what the call site does, and what stays
//! a finding.

use super::test_run::{after, run, run_in};
use crate::refactor::{MemorySources, Plan, Severity};

fn warns_of_return(plan: &Plan) -> bool {
    plan.findings
        .iter()
        .any(|f| f.severity != Severity::Info && f.message.contains("`return` inside"))
}

#[test]
fn an_early_return_alone_comes_back_as_an_option_of_the_return_type() {
    let text = "fn f(v: &[u32]) -> String {\n    let mut n = 0;\n    for x in v {\n        if *x > 9 {\n            return format!(\"big {x}\");\n        }\n        n += x;\n    }\n    n.to_string()\n}\n";
    let plan = run(text, 4, 6);
    let result = after(&plan);
    assert!(
        result.contains("        if let Some(value) = part(x) { return value; }\n"),
        "{result}"
    );
    assert!(
        result.contains("fn part(x: &u32) -> Option<String> {\n    if *x > 9 {\n        return Some(format!(\"big {x}\"));\n    }\n    None\n}"),
        "{result}"
    );
    assert!(!warns_of_return(&plan), "{:?}", plan.findings);
    assert!(
        plan.caveat_notes
            .iter()
            .any(|n| n.note.contains("returns `Option<String>`")),
        "{:?}",
        plan.caveat_notes
    );
}

#[test]
fn a_bare_return_of_a_unit_function_comes_back_as_a_bool() {
    let text = "fn f(v: &[u32]) {\n    if v.is_empty() {\n        println!(\"none\");\n        return;\n    }\n    println!(\"{}\", v.len());\n}\n";
    let plan = run(text, 2, 5);
    let result = after(&plan);
    assert!(result.contains("    if part(v) { return; }\n"), "{result}");
    assert!(
        result.contains("fn part(v: &[u32]) -> bool {\n    if v.is_empty() {\n        println!(\"none\");\n        return true;\n    }\n    false\n}"),
        "{result}"
    );
    assert!(!warns_of_return(&plan), "{:?}", plan.findings);
}

#[test]
fn an_early_return_beside_a_value_comes_back_as_a_control_flow() {
    let text = "fn f(v: Option<u32>, floor: u32) -> bool {\n    let n = match v {\n        None => return true,\n        Some(n) => n,\n    };\n    n >= floor\n}\n";
    let plan = run(text, 2, 5);
    let result = after(&plan);
    assert!(
        result.contains("    let n = match part(v) { std::ops::ControlFlow::Break(value) => return value, std::ops::ControlFlow::Continue(value) => value };\n"),
        "{result}"
    );
    assert!(
        result.contains("-> std::ops::ControlFlow<bool, u32> {\n")
            && result.contains("None => return std::ops::ControlFlow::Break(true),")
            && result.contains("    std::ops::ControlFlow::Continue(n)\n}"),
        "{result}"
    );
    assert!(!warns_of_return(&plan), "{:?}", plan.findings);
}

#[test]
fn an_option_of_a_copy_type_is_passed_by_value() {
    // By reference, `Some(n) => n` would bind `n: &u32` in the new function (E0308).
    let text = "fn f(v: Option<u32>, floor: u32) -> bool {\n    let n = match v {\n        None => 0,\n        Some(n) => n,\n    };\n    n >= floor\n}\n";
    let plan = run(text, 2, 5);
    let result = after(&plan);
    assert!(result.contains("    let n = part(v);\n"), "{result}");
    assert!(
        result.contains("fn part(v: Option<u32>) -> u32 {\n"),
        "{result}"
    );
}

#[test]
fn returns_the_new_function_cannot_carry_stay_findings() {
    // Beside a `?`.
    let text = "fn f(s: &str) -> Result<u32, std::num::ParseIntError> {\n    let n: u32 = s.parse()?;\n    if n > 9 {\n        return Ok(9);\n    }\n    Ok(n)\n}\n";
    let plan = run(text, 2, 5);
    assert!(
        warns_of_return(&plan),
        "{}\n{:?}",
        after(&plan),
        plan.findings
    );
    assert!(!after(&plan).contains("Option<"), "{}", after(&plan));
    // An `impl Trait` return type the new function cannot name.
    let text = "fn f(v: Vec<u32>) -> impl Iterator<Item = u32> {\n    if v.is_empty() {\n        return Vec::new().into_iter();\n    }\n    v.into_iter()\n}\n";
    let plan = run(text, 2, 4);
    assert!(
        warns_of_return(&plan),
        "{}\n{:?}",
        after(&plan),
        plan.findings
    );
    // The selection is inside a closure: its `return` leaves the closure.
    let text = "fn f(v: &[u32]) -> usize {\n    let g = |x: u32| {\n        if x > 9 {\n            return 0;\n        }\n        x\n    };\n    v.iter().map(|x| g(*x) as usize).sum()\n}\n";
    let plan = run(text, 3, 5);
    assert!(
        warns_of_return(&plan),
        "{}\n{:?}",
        after(&plan),
        plan.findings
    );
    assert!(!after(&plan).contains("Option<usize>"), "{}", after(&plan));
}

#[test]
fn a_return_inside_a_closure_of_the_selection_is_not_an_early_return() {
    let text = "fn f(v: &[u32]) -> u32 {\n    let g = |x: u32| {\n        if x > 9 {\n            return 0;\n        }\n        x\n    };\n    v.iter().map(|x| g(*x)).sum()\n}\n";
    let plan = run(text, 2, 7);
    let result = after(&plan);
    assert!(!result.contains("Option<u32>"), "{result}");
    assert!(result.contains("            return 0;\n"), "{result}");
    assert!(!warns_of_return(&plan), "{:?}", plan.findings);
}

#[test]
fn a_selection_ending_on_the_body_tail_keeps_its_returns() {
    let text = "fn f(v: &[u32]) -> u32 {\n    let n = v.len();\n    if n == 0 {\n        return 1;\n    }\n    v[0] * 2\n}\n";
    let plan = run(text, 3, 6);
    let result = after(&plan);
    assert!(result.contains("    part(n, v)\n}"), "{result}");
    assert!(
        result.contains("fn part(n: usize, v: &[u32]) -> u32 {\n"),
        "{result}"
    );
    assert!(result.contains("        return 1;\n"), "{result}");
    assert!(!warns_of_return(&plan), "{:?}", plan.findings);
}

#[test]
fn a_field_of_a_struct_declared_in_another_file_is_typed() {
    let main = "mod version;\nuse version::Comparator;\n\nfn f(cmp: &Comparator, minor: u64) -> bool {\n    let wanted = cmp.minor;\n    println!(\"{wanted:?}\");\n    wanted.is_some_and(|w| w <= minor)\n}\n";
    let version = "pub struct Comparator {\n    pub major: u64,\n    pub minor: Option<u64>,\n    pub pre: Vec<Private>,\n}\npub struct Private;\n";
    let sources = MemorySources::new()
        .with("src/main.rs", main)
        .with("src/version.rs", version);
    let plan = run_in(&sources, "src/main.rs", 5, 6);
    let result = after(&plan);
    assert!(result.contains("-> Option<u64> {\n"), "{result}");
    assert!(
        !plan.findings.iter().any(|f| f.severity == Severity::Error),
        "{:?}",
        plan.findings
    );
    // A field whose type this file cannot name stays unknown, with its finding.
    let main = main.replace("cmp.minor", "&cmp.pre").replace(
        "wanted.is_some_and(|w| w <= minor)",
        "wanted.len() as u64 <= minor",
    );
    let sources = MemorySources::new()
        .with("src/main.rs", &main)
        .with("src/version.rs", version);
    let plan = run_in(&sources, "src/main.rs", 5, 6);
    assert!(
        plan.findings
            .iter()
            .any(|f| f.severity == Severity::Error && f.message.contains("the type of `wanted`")),
        "{}\n{:?}",
        after(&plan),
        plan.findings
    );
}

#[test]
fn a_ref_binding_handed_back_is_returned_as_its_value_and_bound_ref_at_the_call() {
    let text = "struct Req(u32);\nfn make(n: u32) -> Req {\n    Req(n)\n}\nfn f(n: u32) -> u32 {\n    let ref r = make(n);\n    let Req(v) = r;\n    *v\n}\n";
    let plan = run(text, 6, 6);
    let result = after(&plan);
    assert!(result.contains("    let ref r = part(n);\n"), "{result}");
    assert!(
        result.contains("fn part(n: u32) -> Req {\n    let r = make(n);\n    r\n}"),
        "{result}"
    );
    assert!(
        !plan.findings.iter().any(|f| f.severity == Severity::Error),
        "{:?}",
        plan.findings
    );
}

#[test]
fn a_ref_binding_of_a_place_or_read_again_stays_a_finding() {
    let refused = |text: &str, start: usize, end: usize| {
        let plan = run(text, start, end);
        assert!(
            plan.findings
                .iter()
                .any(|f| f.severity == Severity::Error && f.message.contains("bound by `ref`")),
            "{}\n{:?}",
            after(&plan),
            plan.findings
        );
    };
    // `let ref r = v;` borrows `v` in place: `let r = v;` would move it.
    refused(
        "fn f(v: Vec<u32>) -> usize {\n    let ref r = v;\n    r.len() + v.len()\n}\n",
        2,
        2,
    );
    // Read again in the selection, where it is a reference.
    refused(
        "fn make() -> Vec<u32> {\n    vec![1]\n}\nfn f() -> usize {\n    let ref r = make();\n    let n: &Vec<u32> = r;\n    n.len() + r.len()\n}\n",
        5,
        6,
    );
}

#[test]
fn a_branch_of_the_body_tail_returns_the_function_type() {
    let text = "fn pick(input: &str) -> Option<(char, &str)> {\n    if input.starts_with('x') {\n        Some(('x', &input[1..]))\n    } else if input.is_empty() {\n        None\n    } else {\n        Some(('y', input))\n    }\n}\n";
    let plan = run(text, 3, 3);
    let result = after(&plan);
    assert!(result.contains("        part(input)\n"), "{result}");
    assert!(
        result.contains("fn part(input: &str) -> Option<(char, &str)> {\n"),
        "{result}"
    );
    // The last `else` of the chain too.
    let plan = run(text, 7, 7);
    assert!(
        after(&plan).contains("fn part(input: &str) -> Option<(char, &str)> {\n"),
        "{}",
        after(&plan)
    );
    // A branch of an `if` that is a statement, not the body's value, has no such type.
    let text = "fn pick(input: &str) -> usize {\n    if input.is_empty() {\n        println!(\"empty\")\n    } else {\n        println!(\"{input}\")\n    }\n    input.len()\n}\n";
    let plan = run(text, 3, 3);
    assert!(
        !after(&plan).contains("-> usize {\n    println"),
        "{}",
        after(&plan)
    );
}

#[test]
fn a_type_another_file_imports_from_a_crate_is_written_by_its_full_path() {
    let main = "mod util;\nuse util::{parse_err, thing};\n\nfn f() -> String {\n    let err = parse_err(\"x\");\n    let t = thing();\n    format!(\"{err} {}\", t.0)\n}\n";
    let util = "use std::num::ParseIntError;\nmod parse {\n    pub struct Thing(pub u8);\n}\nuse parse::Thing;\n\npub fn parse_err(s: &str) -> ParseIntError {\n    s.parse::<u8>().unwrap_err()\n}\n\npub fn thing() -> Thing {\n    Thing(1)\n}\n";
    let sources = MemorySources::new()
        .with("src/main.rs", main)
        .with("src/util.rs", util);
    let plan = run_in(&sources, "src/main.rs", 5, 5);
    assert!(
        after(&plan).contains("fn part() -> std::num::ParseIntError {\n"),
        "{}",
        after(&plan)
    );
    // `parse` is a module of the other file, not a crate: the type stays unknown.
    let plan = run_in(&sources, "src/main.rs", 6, 6);
    assert!(
        plan.findings
            .iter()
            .any(|f| f.severity == Severity::Error && f.message.contains("the type of `t`")),
        "{}\n{:?}",
        after(&plan),
        plan.findings
    );
}

#[test]
fn a_module_this_file_declares_is_asked_first() {
    let main = "mod util;\nuse util::*;\n\nfn f() -> u8 {\n    let x = make();\n    println!(\"{x}\");\n    x\n}\n";
    // `src/another.rs` comes first by path, and its `make` is not the one `main.rs` calls.
    let another = "pub struct Another;\npub fn make() -> Another {\n    Another\n}\n";
    let util = "pub fn make() -> u8 {\n    1\n}\n";
    let sources = MemorySources::new()
        .with("src/main.rs", main)
        .with("src/another.rs", another)
        .with("src/util.rs", util);
    let plan = run_in(&sources, "src/main.rs", 5, 6);
    assert!(
        after(&plan).contains("fn part() -> u8 {\n"),
        "{}",
        after(&plan)
    );
}
