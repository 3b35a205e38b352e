//! Rust extract function returning borrows that two or more reference inputs could lend: a
//! named lifetime when the source says which input each value borrows from, the elided-lifetime
//! warning otherwise.

use super::test_run::{after, run};
use crate::refactor::{Plan, Severity};

fn warns_of_lifetime(plan: &Plan) -> bool {
    plan.findings
        .iter()
        .any(|f| f.severity != Severity::Info && f.message.contains("lifetime"))
}

const META: &str = "struct Meta {\n    text: String,\n}\n\nimpl Meta {\n    fn as_str(&self) -> &str {\n        &self.text\n    }\n}\n\n";

#[test]
fn borrows_rooted_at_self_and_at_a_parameter_share_a_named_lifetime() {
    // semver's `impl Ord for BuildMetadata`: `rhs` is shadowed by a `let` of the selection,
    // whose type is its own (not the parameter's `&Self`).
    let text = format!(
        "{META}impl PartialEq for Meta {{\n    fn eq(&self, rhs: &Self) -> bool {{\n        let lhs = self.as_str().split('.');\n        let mut rhs = rhs.as_str().split('.');\n        lhs.eq(&mut rhs)\n    }}\n}}\n"
    );
    let plan = run(&text, 13, 14);
    assert!(
        after(&plan).contains("fn part<'a>(&'a self, rhs: &'a Self) -> (std::str::Split<'a, char>, std::str::Split<'a, char>) {"),
        "{}",
        after(&plan)
    );
    assert!(after(&plan).contains("let (lhs, mut rhs) = self.part(rhs);"));
    assert!(!warns_of_lifetime(&plan), "{:?}", plan.findings);
}

#[test]
fn a_borrow_rooted_at_one_of_two_reference_parameters_names_only_that_one() {
    let text = format!(
        "{META}fn f(a: &Meta, b: &Meta) -> usize {{\n    let t = a.as_str();\n    let n = b.as_str().len();\n    t.len() + n\n}}\n"
    );
    let plan = run(&text, 12, 13);
    assert!(
        after(&plan).contains("fn part<'a>(a: &'a Meta, b: &Meta) -> (&'a str, usize) {"),
        "{}",
        after(&plan)
    );
    assert!(!warns_of_lifetime(&plan), "{:?}", plan.findings);
}

#[test]
fn a_borrow_with_no_single_root_keeps_the_warning() {
    // `pick(a, b)` may return either: the source does not say.
    let text = "fn pick<'x>(a: &'x str, _b: &'x str) -> &'x str {\n    a\n}\n\nfn f(a: &String, b: &String) -> usize {\n    let t: &str = pick(a, b);\n    let n = b.len();\n    t.len() + n\n}\n";
    let plan = run(text, 6, 7);
    assert!(!after(&plan).contains("<'a>"), "{}", after(&plan));
    assert!(warns_of_lifetime(&plan), "{:?}", plan.findings);
}

const RAW: &str = "use core::num::NonZeroUsize;\nuse core::{slice, str};\n\nunsafe fn decode_len(ptr: *const u8) -> NonZeroUsize {\n    unsafe { NonZeroUsize::new_unchecked(*ptr as usize) }\n}\n\nunsafe fn as_str(repr: &u64) -> &str {\n    let ptr = repr as *const u64 as *const u8;\n    let len = unsafe { decode_len(ptr) };\n    let slice = unsafe { slice::from_raw_parts(ptr.add(1), len.get()) };\n    // SAFETY: ASCII.\n    unsafe { str::from_utf8_unchecked(slice) }\n}\n";

#[test]
fn a_borrow_made_from_a_raw_pointer_gets_an_unbounded_lifetime_in_an_unsafe_fn() {
    // semver's `ptr_as_str`: the slice comes from `slice::from_raw_parts`, no input lends it.
    let plan = run(RAW, 10, 11);
    assert!(
        after(&plan).contains("unsafe fn part<'a>(ptr: *const u8) -> &'a [u8] {"),
        "{}",
        after(&plan)
    );
    assert!(!warns_of_lifetime(&plan), "{:?}", plan.findings);
    assert!(
        plan.findings
            .iter()
            .any(|f| f.severity == Severity::Info && f.message.contains("made from a raw pointer"))
    );
    // The tail: `len` is `Copy` (std's `NonZeroUsize`), passed by value; the `&str` is the
    // raw borrow's.
    let plan = run(RAW, 11, 13);
    assert!(
        after(&plan).contains("unsafe fn part<'a>(ptr: *const u8, len: NonZeroUsize) -> &'a str {"),
        "{}",
        after(&plan)
    );
    assert!(!warns_of_lifetime(&plan), "{:?}", plan.findings);
}

#[test]
fn a_borrow_of_a_reference_parameter_keeps_the_warning_in_an_unsafe_fn() {
    // Guard: `from_utf8_unchecked(s)` borrows `s`, which an input lends.
    let text = "use core::str;\n\nunsafe fn view<'s>(s: &'s [u8], t: &'s [u8]) -> (&'s str, usize) {\n    let a = unsafe { str::from_utf8_unchecked(s) };\n    let n = t.len();\n    (a, n)\n}\n";
    let plan = run(text, 4, 5);
    assert!(!after(&plan).contains("part<'a>"), "{}", after(&plan));
    assert!(warns_of_lifetime(&plan), "{:?}", plan.findings);
}
