//! Line-level surgery shared by both languages: removing an item as whole lines without
//! leaving a widening gap of blank lines, removing one name from an import list, and the small
//! questions edits ask ("does this statement own its lines?"). Pure text work.

use std::ops::Range;

use crate::edit::TextEdit;

/// Start of the line containing `offset`.
pub(super) fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// End of the line containing `offset`, after its `\n` (or the end of the text).
pub(super) fn line_end_with_newline(text: &str, offset: usize) -> usize {
    text[offset..]
        .find('\n')
        .map_or(text.len(), |i| offset + i + 1)
}

/// Whether only spaces and tabs precede `offset` on its line.
pub(super) fn starts_its_line(text: &str, offset: usize) -> bool {
    text[line_start(text, offset)..offset]
        .chars()
        .all(|c| c == ' ' || c == '\t')
}

/// Whether only whitespace, or whitespace and a line comment starting with `comment`, follows
/// `offset` on its line.
pub(super) fn ends_its_line(text: &str, offset: usize, comment: &str) -> bool {
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let rest = text[offset..end].trim();
    rest.is_empty() || rest.starts_with(comment)
}

fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Removes `range` (an item with its docs and attributes) as whole lines when it owns them,
/// together with the blank lines that separated it from its neighbours on one side, so the
/// spacing between the items that remain stays what it was. `last_in_container` says that
/// nothing but the container's end follows the item: then the blank lines above it go.
/// `comment` is the line-comment marker, so a comment trailing the item's last line goes too.
pub(super) fn remove_whole_lines(
    text: &str,
    range: Range<usize>,
    last_in_container: bool,
    comment: &str,
) -> TextEdit {
    if !starts_its_line(text, range.start) || !ends_its_line(text, range.end, comment) {
        return TextEdit::delete(range);
    }
    let start = line_start(text, range.start);
    let end = line_end_with_newline(text, range.end);
    // Blank lines below the item.
    let mut below_end = end;
    while below_end < text.len() {
        let next = line_end_with_newline(text, below_end);
        if !is_blank(&text[below_end..next]) {
            break;
        }
        below_end = next;
    }
    let nothing_follows = below_end >= text.len();
    // Blank lines above the item.
    let mut above_start = start;
    while above_start > 0 {
        let previous = line_start(text, above_start - 1);
        if !is_blank(&text[previous..above_start]) {
            break;
        }
        above_start = previous;
    }
    if nothing_follows {
        // The end of the file: drop everything from the end of the last kept line, keeping
        // the file's final-newline convention.
        if above_start == 0 {
            return TextEdit::delete(0..text.len());
        }
        let ends_with_newline = text.ends_with('\n');
        let cut = if ends_with_newline {
            above_start
        } else {
            // The kept last line loses its terminator, as the original last line had none.
            let before = above_start - 1;
            if before > 0 && text.as_bytes()[before - 1] == b'\r' {
                before - 1
            } else {
                before
            }
        };
        return TextEdit::delete(cut..text.len());
    }
    if last_in_container && above_start > 0 {
        TextEdit::delete(above_start..end)
    } else if start == 0 || above_start < start || opens_a_block(&text[..start]) {
        // Blank lines (or the start of the file or block) above stay as the separator; those
        // below go.
        TextEdit::delete(start..below_end)
    } else {
        // Directly under the previous line: the blank lines below are the separator now.
        TextEdit::delete(start..end)
    }
}

/// Whether the last line of `before` opens a block (`impl A {`, `class A:`).
fn opens_a_block(before: &str) -> bool {
    before.trim_end().ends_with(['{', ':', '(', '['])
}

/// Removes item `index` of a comma-separated list whose items are at `items` (byte ranges);
/// `None` when the list has only that item (the caller removes the whole statement).
pub(super) fn remove_list_item(items: &[Range<usize>], index: usize) -> Option<TextEdit> {
    if items.len() < 2 {
        return None;
    }
    let item = items.get(index)?;
    match (
        items.get(index + 1),
        index.checked_sub(1).and_then(|i| items.get(i)),
    ) {
        (Some(next), _) => Some(TextEdit::delete(item.start..next.start)),
        (None, Some(previous)) => Some(TextEdit::delete(previous.end..item.end)),
        (None, None) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::apply;

    fn remove(text: &str, item: &str, last: bool) -> String {
        let start = text.find(item).unwrap();
        let edit = remove_whole_lines(text, start..start + item.len(), last, "//");
        apply(text, &[edit])
    }

    #[test]
    fn spacing_between_the_remaining_items_is_kept() {
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
}
