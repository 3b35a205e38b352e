use super::*;
use crate::edit::{SourceFile, TextEdit};
use crate::refactor::Severity;

fn file(path: &str, text: &str) -> SourceFile {
    SourceFile::from_bytes(path, text.as_bytes()).unwrap()
}

/// `def f` renamed to `g` in a.py with two references, one possible reference in b.py left out.
fn rename_plan() -> (Vec<FileChange>, Vec<SourceFile>, Vec<Site>) {
    let a = file("a.py", "def f():\n    pass\nf()\nf()\n");
    let b = file("b.py", "x.f()\n");
    let def = TextEdit::new(4..5, "g");
    let r1 = TextEdit::new(18..19, "g");
    let r2 = TextEdit::new(22..23, "g");
    let possible = TextEdit::new(2..3, "g");
    let mut tags = SiteTags::new();
    tags.tag("a.py", vec![r1.clone()], SiteKind::Reference);
    tags.tag("a.py", vec![r2.clone()], SiteKind::Reference);
    tags.tag_with("b.py", vec![possible], SiteKind::Reference, false, false);
    let changes = vec![FileChange::modify(&a, vec![def, r1, r2]).unwrap()];
    let bases = vec![b.clone()];
    let texts = [("a.py", a.text.clone()), ("b.py", b.text.clone())];
    let sites = tags.finish(Tool::RenameSymbol, |p| {
        texts.iter().find(|(q, _)| *q == p).map(|(_, t)| &**t)
    });
    (changes, bases, sites)
}

fn plan_of(changes: Vec<FileChange>, bases: Vec<SourceFile>, sites: Vec<Site>) -> Plan {
    Plan {
        changes,
        site_bases: bases,
        sites,
        ..Plan::default()
    }
}

fn set(ids: &[&str]) -> BTreeSet<String> {
    ids.iter().map(|s| s.to_string()).collect()
}

#[test]
fn sites_have_places_and_stable_ids() {
    let (_, _, sites) = rename_plan();
    let places: Vec<(&str, usize, usize, bool)> = sites
        .iter()
        .map(|s| (s.file.as_str(), s.line, s.column, s.chosen))
        .collect();
    assert_eq!(
        places,
        vec![
            ("a.py", 3, 1, true),
            ("a.py", 4, 1, true),
            ("b.py", 1, 3, false)
        ]
    );
    assert!(sites.iter().all(|s| s.id.len() == 12));
    assert_ne!(sites[0].id, sites[1].id);
    let (_, _, again) = rename_plan();
    assert_eq!(sites, again);
}

#[test]
fn leaving_one_reference_out_writes_exactly_the_others() {
    let (changes, bases, sites) = rename_plan();
    let chosen = choose(
        Tool::RenameSymbol,
        &plan_of(changes.clone(), bases.clone(), sites.clone()),
        &set(&[&sites[1].id]),
        &BTreeSet::new(),
    )
    .unwrap();
    assert_eq!(chosen.changes.len(), 1);
    assert_eq!(chosen.changes[0].after, "def g():\n    pass\ng()\nf()\n");
    assert_eq!(chosen.changes[0].sha256_before, changes[0].sha256_before);
    assert!(!chosen.sites[1].chosen);
    assert_eq!(chosen.findings.len(), 1);
    let finding = &chosen.findings[0];
    assert_eq!((finding.file.as_str(), finding.line), ("a.py", 4));
    assert_eq!(finding.severity, Severity::Error);
    assert_eq!(finding.kind, Some("sites.left_out_reference"));
    assert!(
        finding.message.contains("old name `f`"),
        "{}",
        finding.message
    );
}

#[test]
fn including_a_possible_site_writes_its_file_from_the_base() {
    let (changes, bases, sites) = rename_plan();
    let chosen = choose(
        Tool::RenameSymbol,
        &plan_of(changes.clone(), bases.clone(), sites.clone()),
        &BTreeSet::new(),
        &set(&[&sites[2].id]),
    )
    .unwrap();
    let paths: Vec<&str> = chosen.changes.iter().map(|c| c.path.as_str()).collect();
    assert_eq!(paths, vec!["a.py", "b.py"]);
    assert_eq!(chosen.changes[1].after, "x.g()\n");
    assert!(chosen.findings.is_empty());
}

#[test]
fn every_site_out_leaves_the_always_written_edits() {
    let (changes, bases, sites) = rename_plan();
    let all = set(&[&sites[0].id, &sites[1].id]);
    let chosen = choose(
        Tool::RenameSymbol,
        &plan_of(changes.clone(), bases.clone(), sites.clone()),
        &all,
        &BTreeSet::new(),
    )
    .unwrap();
    assert_eq!(chosen.changes[0].after, "def g():\n    pass\nf()\nf()\n");
    assert_eq!(counts(&chosen.sites), (0, 3));
}

#[test]
fn unknown_and_doubled_ids_are_refused() {
    let (changes, bases, sites) = rename_plan();
    let unknown = choose(
        Tool::RenameSymbol,
        &plan_of(changes.clone(), bases.clone(), sites.clone()),
        &set(&["0123456789ab"]),
        &BTreeSet::new(),
    );
    assert!(
        matches!(&unknown, Err(ChoiceError::Unknown(id)) if id == "0123456789ab"),
        "{unknown:?}"
    );
    let id = set(&[&sites[0].id]);
    assert!(matches!(
        choose(
            Tool::RenameSymbol,
            &plan_of(changes.clone(), bases.clone(), sites.clone()),
            &id,
            &id
        ),
        Err(ChoiceError::Both(_))
    ));
}

#[test]
fn each_kind_is_worded_by_what_leaving_it_out_breaks() {
    let error = [
        (Tool::ChangeSignature, SiteKind::Call, "old arguments"),
        (Tool::InlineFunction, SiteKind::Call, "no longer exists"),
        (Tool::MoveToFile, SiteKind::Import, "old path"),
    ];
    for (tool, kind, says) in error {
        let (severity, message, _) = w::left_out(tool, kind, true, true, "f");
        assert_eq!(severity, Severity::Error, "{message}");
        assert!(message.contains(says), "{message}");
    }
    let (severity, _, kind) = w::left_out(
        Tool::ExtractVariable,
        SiteKind::Occurrence,
        true,
        true,
        "a + b",
    );
    assert_eq!(
        (severity, kind),
        (Severity::Info, "sites.left_out_occurrence")
    );
    let (severity, _, _) = w::left_out(Tool::RenameSymbol, SiteKind::Reference, false, true, "f");
    assert_eq!(severity, Severity::Warning);
}
