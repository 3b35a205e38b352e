use super::*;
use crate::edit::apply;

fn remove(text: &str, item: &str, last: bool) -> String {
    let start = text.find(item).unwrap();
    let edit = remove_item_lines(text, start..start + item.len(), last, "//");
    apply(text, &[edit])
}

#[test]
fn item_removal_keeps_the_spacing_between_the_remaining_items() {
    let text = "fn a() {}\n\nfn helper() {}\n\nfn main() {}\n";
    assert_eq!(
        remove(text, "fn helper() {}", false),
        "fn a() {}\n\nfn main() {}\n"
    );
    let first = "fn helper() {}\n\n\nfn main() {}\n";
    assert_eq!(remove(first, "fn helper() {}", false), "fn main() {}\n");
    let last = "fn main() {}\n\n\nfn helper() {}\n";
    assert_eq!(remove(last, "fn helper() {}", false), "fn main() {}\n");
    let no_final_newline = "fn main() {}\r\n\r\nfn helper() {}";
    assert_eq!(
        remove(no_final_newline, "fn helper() {}", false),
        "fn main() {}"
    );
    let method = "impl A {\n    fn a() {}\n\n    fn helper() {}\n}\n";
    assert_eq!(
        remove(method, "fn helper() {}", true),
        "impl A {\n    fn a() {}\n}\n"
    );
    let first_method = "impl A {\n    fn helper() {}\n\n    fn a() {}\n}\n";
    assert_eq!(
        remove(first_method, "fn helper() {}", false),
        "impl A {\n    fn a() {}\n}\n"
    );
    let alone = "fn helper() {}\n";
    assert_eq!(remove(alone, "fn helper() {}", false), "");
    let grouped = "mod a;\nuse a::helper;\n\nfn main() {}\n";
    assert_eq!(
        remove(grouped, "use a::helper;", false),
        "mod a;\n\nfn main() {}\n"
    );
    let shared_line = "fn a() {} fn helper() {}\n";
    assert_eq!(remove(shared_line, "fn helper() {}", false), "fn a() {} \n");
}

#[test]
fn list_items_go_with_their_comma() {
    let text = "a, helper, b";
    let items = [0..1, 3..9, 11..12];
    assert_eq!(apply(text, &[remove_list_item(&items, 1).unwrap()]), "a, b");
    assert_eq!(
        apply(text, &[remove_list_item(&items, 2).unwrap()]),
        "a, helper"
    );
    assert_eq!(
        apply(text, &[remove_list_item(&items, 0).unwrap()]),
        "helper, b"
    );
    assert!(remove_list_item(std::slice::from_ref(&(0..6)), 0).is_none());
}

fn remove_span(text: &str, first: usize, last: usize) -> String {
    let index = LineIndex::new(text);
    let range = removal_range(text, &index, first, last);
    format!("{}{}", &text[..range.start], &text[range.end..])
}

#[test]
fn span_removal_keeps_the_larger_gap_between_neighbours() {
    let text = "import os\n\n\ndef a():\n    pass\n\n\ndef b():\n    pass\n";
    assert_eq!(
        remove_span(text, 3, 4),
        "import os\n\n\ndef b():\n    pass\n"
    );
    let tight = "x = 1\ndef a():\n    pass\n\n\ny = 2\n";
    assert_eq!(remove_span(tight, 1, 2), "x = 1\n\n\ny = 2\n");
}

#[test]
fn span_removal_at_the_edges_takes_the_blank_lines_along() {
    let text = "fn a() {}\n\nfn b() {}\n";
    assert_eq!(remove_span(text, 0, 0), "fn b() {}\n");
    assert_eq!(remove_span(text, 2, 2), "fn a() {}\n");
    assert_eq!(remove_span("fn a() {}\n\nfn b() {}", 2, 2), "fn a() {}");
    assert_eq!(remove_span("\nfn a() {}\n\n", 1, 1), "");
    assert_eq!(
        remove_span("a\r\n\r\nb\r\n\r\nc\r\n", 2, 2),
        "a\r\n\r\nc\r\n"
    );
}

#[test]
fn owned_lines_refuse_shared_lines() {
    let text = "struct A; struct B;\nfn f() {} // trailing\n";
    let index = LineIndex::new(text);
    assert_eq!(owned_lines(text, &index, &(0..9), &["//"]), Err(1));
    assert_eq!(owned_lines(text, &index, &(10..19), &["//"]), Err(1));
    assert_eq!(owned_lines(text, &index, &(20..29), &["//"]), Ok((1, 1)));
}

#[test]
fn blocks_are_placed_with_separators() {
    let at_end = place_block(
        "def a():\n    pass\n",
        "def b():\n    pass\n",
        None,
        2,
        "\n",
    );
    assert_eq!(
        at_end.edit,
        TextEdit::insert(18, "\n\ndef b():\n    pass\n")
    );
    assert_eq!(at_end.block_start, 20);
    let no_newline = place_block("fn a() {}", "fn b() {}\n", None, 1, "\n");
    assert_eq!(no_newline.edit.new_text, "\n\nfn b() {}");
    let padded = place_block("fn a() {}\n\n\n", "fn b() {}\n", None, 1, "\n");
    assert_eq!(padded.edit.new_text, "fn b() {}\n");
    let guard = "def a():\n    pass\n\nif __name__ == \"__main__\":\n    a()\n";
    let before_guard = place_block(guard, "def b():\n    pass\n", Some(19), 2, "\n");
    assert_eq!(
        before_guard.edit,
        TextEdit::insert(19, "\ndef b():\n    pass\n\n\n")
    );
    assert_eq!(before_guard.block_start, 20);
    assert_eq!(
        place_block("\n \n", "x = 1\n", None, 2, "\n").edit,
        TextEdit::new(0..3, "x = 1\n")
    );
}

#[test]
fn line_endings_are_normalised() {
    assert_eq!(with_line_endings("a\r\nb\nc", "\r\n"), "a\r\nb\r\nc");
    assert_eq!(with_line_endings("a\r\nb\n", "\n"), "a\nb\n");
}

#[test]
fn lines_inside_a_multiline_string_are_verbatim() {
    let text = "def f():\n    s = \"\"\"a\n  b\n\"\"\"\n    if s:\n        return s\n";
    let start = text.find("s =").unwrap();
    let end = text.len() - 1;
    let string_start = text.find("\"\"\"").unwrap();
    let string_end = text.rfind("\"\"\"").unwrap() + 3;
    let (lines, first) = cut_lines(
        text,
        start..end,
        &[],
        std::slice::from_ref(&(string_start..string_end)),
    );
    let verbatim: Vec<bool> = lines.iter().map(|l| l.verbatim).collect();
    assert_eq!(verbatim, vec![false, true, true, false, false]);
    let base = base_indent(&lines, first.as_deref());
    assert_eq!(base, "    ");
    let out = Reindent {
        base: &base,
        to: "\t",
        from_unit: IndentUnit::Spaces(4),
        to_unit: IndentUnit::Tab,
    }
    .lines(&lines);
    assert_eq!(
        out,
        vec!["\ts = \"\"\"a", "  b", "\"\"\"", "\tif s:", "\t\treturn s"]
    );
}

#[test]
fn splices_apply_and_crlf_is_dropped() {
    let text = "fn f() {\r\n    let a = 1;\r\n    return a;\r\n}\r\n";
    let start = text.find("let").unwrap();
    let end = text.find("a;\r\n}").unwrap() + 2;
    let ret = text.find("return a;").unwrap();
    let splices = vec![
        (ret..ret + 7, String::new()),
        (ret + 8..ret + 9, String::new()),
    ];
    let (lines, first) = cut_lines(text, start..end, &splices, &[]);
    let out = Reindent {
        base: &base_indent(&lines, first.as_deref()),
        to: "  ",
        from_unit: IndentUnit::Spaces(4),
        to_unit: IndentUnit::Spaces(2),
    }
    .lines(&lines);
    assert_eq!(out, vec!["  let a = 1;", "  a"]);
}

#[test]
fn indentation_converts_between_units() {
    assert_eq!(
        convert_indent("        x", IndentUnit::Spaces(4), IndentUnit::Tab),
        "\t\tx"
    );
    assert_eq!(
        convert_indent("\t  ", IndentUnit::Tab, IndentUnit::Spaces(2)),
        "    "
    );
    assert_eq!(
        convert_indent("      ", IndentUnit::Spaces(4), IndentUnit::Spaces(2)),
        "    "
    );
}

#[test]
fn a_block_moves_to_another_base() {
    let block = "    if x:\n        y()\n\n    z()\n";
    let same = IndentUnit::Spaces(4);
    let reindent = Reindent {
        base: "    ",
        to: "\t",
        from_unit: same,
        to_unit: same,
    };
    assert_eq!(reindent.block(block, &[]), "\tif x:\n\t    y()\n\n\tz()\n");
}

#[test]
fn a_block_changes_unit_level_for_level() {
    let block = "def f():\n\tif x:\n\t\treturn 1\n\ts = '''\n\tkept\n'''\n";
    assert_eq!(
        Reindent::units(IndentUnit::Tab, IndentUnit::Spaces(4)).block_strict(block, &[4, 5]),
        "def f():\n    if x:\n        return 1\n    s = '''\n\tkept\n'''\n"
    );
    assert_eq!(
        Reindent::units(IndentUnit::Spaces(4), IndentUnit::Spaces(2))
            .block_strict("fn f() {\n    g(a,\n      b);\n}\n", &[]),
        "fn f() {\n  g(a,\n    b);\n}\n"
    );
    // Mixed indentation and blank lines with spaces are left as they are.
    assert_eq!(
        Reindent::units(IndentUnit::Spaces(4), IndentUnit::Tab)
            .block_strict("a\n  \t b\n    \n    c\n", &[]),
        "a\n  \t b\n    \n\tc\n"
    );
}
