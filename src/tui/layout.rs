//! Screen geometry, computed from the terminal size alone so that `update` (scrolling, mouse
//! hits) and `view` (drawing) agree on where things are. Pure.

use ratatui::layout::Rect;

/// The smallest terminal candor draws in; below it a message asks for more room, and nothing
/// can be confirmed (the warning panel would not be readable).
pub const MIN_SIZE: (u16, u16) = (60, 16);

pub fn too_small(size: (u16, u16)) -> bool {
    size.0 < MIN_SIZE.0 || size.1 < MIN_SIZE.1
}

/// The frame: a title row, the body, a status row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame {
    pub title: Rect,
    pub body: Rect,
    pub status: Rect,
}

pub fn frame(size: (u16, u16)) -> Frame {
    let (w, h) = size;
    let body_h = h.saturating_sub(2);
    Frame {
        title: Rect::new(0, 0, w, h.min(1)),
        body: Rect::new(0, h.min(1), w, body_h),
        status: Rect::new(0, h.saturating_sub(1), w, h.min(1)),
    }
}

/// The code view: the bordered code box and, when shown, the outline beside it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CodeLayout {
    pub code_box: Rect,
    /// Inside the border: gutter and text.
    pub code: Rect,
    pub outline_box: Option<Rect>,
    pub outline: Option<Rect>,
}

/// Whether the outline is shown without being focused (wide terminals).
pub fn outline_always_shown(size: (u16, u16)) -> bool {
    size.0 >= 100
}

pub fn code(size: (u16, u16), outline: bool) -> CodeLayout {
    let body = frame(size).body;
    let outline_w = if outline {
        (body.width / 3).clamp(24, 40).min(body.width / 2)
    } else {
        0
    };
    let code_box = Rect::new(body.x, body.y, body.width - outline_w, body.height);
    let outline_box =
        outline.then(|| Rect::new(body.x + code_box.width, body.y, outline_w, body.height));
    CodeLayout {
        code_box,
        code: inner(code_box),
        outline_box,
        outline: outline_box.map(inner),
    }
}

/// Columns before the code text in the code view: the line number (3 digits at least), the
/// cursor or selection marker, a space.
pub fn code_gutter(line_count: usize) -> u16 {
    line_count.to_string().len().max(3) as u16 + 2
}

/// The picker: the query box on top, the list under it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PickerLayout {
    pub query_box: Rect,
    pub list_box: Rect,
    pub list: Rect,
}

pub fn picker(size: (u16, u16)) -> PickerLayout {
    let body = frame(size).body;
    let query_h = body.height.min(3);
    let query_box = Rect::new(body.x, body.y, body.width, query_h);
    let list_box = Rect::new(body.x, body.y + query_h, body.width, body.height - query_h);
    PickerLayout {
        query_box,
        list_box,
        list: inner(list_box),
    }
}

/// The preview: the diff box (a file bar, then the rows) beside the warning panel.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PreviewLayout {
    pub diff_box: Rect,
    pub files_bar: Rect,
    pub diff: Rect,
    pub panel_box: Rect,
    pub panel: Rect,
}

/// How the preview shares the width: the panel's width the user chose (`<` / `>`; `None`:
/// automatic), and whether the diff has the whole screen (`Z`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Split {
    pub panel: Option<u16>,
    pub zoom: bool,
}

/// Columns `<` and `>` move the split by.
pub const SPLIT_STEP: u16 = 4;
/// The widest the warning panel gets on its own.
const PANEL_MAX: u16 = 72;
/// The least the diff keeps beside the panel.
const DIFF_MIN: u16 = 30;

/// The panel's width at `width` columns: what it needs to be readable (about two fifths of a
/// small screen, 36 columns on a large one), more when the diff does not need the room
/// (`diff_need`, its widest row), at most [`PANEL_MAX`]; or what the user chose, kept between
/// the narrowest readable panel and the narrowest useful diff.
pub fn panel_width(width: u16, split: Split, diff_need: u16) -> u16 {
    let least = (width * 2 / 5).clamp(30, 36).min(width / 2);
    let most = width.saturating_sub(DIFF_MIN).max(least);
    match split.panel {
        Some(chosen) => chosen.clamp(least, most),
        None => {
            let spare = width.saturating_sub(diff_need.saturating_add(2));
            spare.clamp(least, PANEL_MAX.max(least)).min(most)
        }
    }
}

/// The preview at `size` with `split`, the shown diff's widest row needing `diff_need` columns.
pub fn preview(size: (u16, u16), split: Split, diff_need: u16) -> PreviewLayout {
    let body = frame(size).body;
    let panel_w = if split.zoom {
        0
    } else {
        panel_width(body.width, split, diff_need)
    };
    let diff_box = Rect::new(body.x, body.y, body.width - panel_w, body.height);
    let panel_box = Rect::new(body.x + diff_box.width, body.y, panel_w, body.height);
    let diff_inner = inner(diff_box);
    let files_bar = Rect::new(
        diff_inner.x,
        diff_inner.y,
        diff_inner.width,
        diff_inner.height.min(1),
    );
    let diff = Rect::new(
        diff_inner.x,
        diff_inner.y + files_bar.height,
        diff_inner.width,
        diff_inner.height - files_bar.height,
    );
    PreviewLayout {
        diff_box,
        files_bar,
        diff,
        panel_box,
        panel: inner(panel_box),
    }
}

/// A box of `width` × `height` centred in the body.
pub fn popup(size: (u16, u16), width: u16, height: u16) -> Rect {
    let body = frame(size).body;
    let w = width.min(body.width);
    let h = height.min(body.height);
    Rect::new(
        body.x + (body.width - w) / 2,
        body.y + (body.height - h) / 2,
        w,
        h,
    )
}

/// The refactor form's box (taller for move, whose completions show under the input), at the
/// bottom of the body, or at the top when it would hide `keep_visible` (screen rows of the
/// lines the refactor is about).
pub fn form(
    size: (u16, u16),
    with_list: bool,
    extra_rows: u16,
    keep_visible: Option<(u16, u16)>,
) -> Rect {
    let body = frame(size).body;
    // Over the code box (not the outline beside it), inside its border.
    let code_box = code(size, outline_always_shown(size)).code_box;
    let width = form_width(size);
    let height = ((if with_list { 14 } else { 10 }) + extra_rows).min(body.height);
    let x = code_box.x + (code_box.width - width) / 2;
    let bottom = Rect::new(
        x,
        (body.bottom() - height).saturating_sub(1).max(body.y),
        width,
        height,
    );
    let top = Rect::new(x, (body.y + 1).min(body.bottom() - height), width, height);
    match keep_visible {
        Some((first, last))
            if first < bottom.bottom()
                && last >= bottom.y
                && !(first < top.bottom() && last >= top.y) =>
        {
            top
        }
        _ => bottom,
    }
}

/// The width of the refactor form's box.
pub fn form_width(size: (u16, u16)) -> u16 {
    code(size, outline_always_shown(size))
        .code_box
        .width
        .saturating_sub(2)
        .min(84)
}

/// The help overlay.
pub fn help(size: (u16, u16)) -> Rect {
    frame(size).body
}

/// The rectangle inside a one-cell border.
pub fn inner(r: Rect) -> Rect {
    Rect::new(
        r.x.saturating_add(1),
        r.y.saturating_add(1),
        r.width.saturating_sub(2),
        r.height.saturating_sub(2),
    )
}

/// Whether a terminal cell is inside `r`.
pub fn contains(r: Rect, column: u16, row: u16) -> bool {
    column >= r.x && column < r.x + r.width && row >= r.y && row < r.y + r.height
}

/// The first row shown of a list where `selected` must be visible in `height` rows.
pub fn list_offset(selected: usize, height: usize) -> usize {
    if height == 0 {
        0
    } else {
        selected.saturating_sub(height - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn areas_fit_in_the_terminal_at_the_supported_sizes() {
        for size in [(80, 24), (120, 40), MIN_SIZE] {
            let full = Rect::new(0, 0, size.0, size.1);
            let code = code(size, true);
            assert!(
                full.contains(code.code_box.as_position())
                    && code.outline_box.unwrap().right() <= size.0
            );
            assert_eq!(
                code.code_box.width + code.outline_box.unwrap().width,
                size.0
            );
            let p = preview(size, Split::default(), 200);
            assert!(
                p.panel.width >= 28,
                "the warning panel stays readable at {size:?}"
            );
            assert_eq!(p.diff_box.width + p.panel_box.width, size.0);
            assert!(p.diff.height >= 10);
            assert_eq!(picker(size).list_box.bottom(), frame(size).body.bottom());
        }
    }

    #[test]
    fn the_split_follows_the_width_and_the_diff_gets_what_the_panel_does_not_need() {
        let auto = Split::default();
        // A diff of 100-column rows at 120 columns: the panel keeps what it needs, no more.
        let p = preview((120, 40), auto, 100);
        assert_eq!(p.panel_box.width, 36);
        assert_eq!(p.diff_box.width, 84);
        // At 200 columns the panel takes what the diff does not need.
        let p = preview((200, 60), auto, 100);
        assert_eq!(p.panel_box.width, 72);
        assert_eq!(p.diff_box.width, 128);
        let p = preview((200, 60), auto, 160);
        assert_eq!(p.panel_box.width, 38);
        // The user's choice, kept in bounds.
        let chosen = Split {
            panel: Some(60),
            zoom: false,
        };
        assert_eq!(preview((120, 40), chosen, 100).panel_box.width, 60);
        assert_eq!(preview((80, 24), chosen, 100).panel_box.width, 50);
        let narrow = Split {
            panel: Some(4),
            zoom: false,
        };
        assert_eq!(preview((120, 40), narrow, 100).panel_box.width, 36);
        // Z: the diff has the whole width.
        let zoom = Split {
            panel: None,
            zoom: true,
        };
        let p = preview((120, 40), zoom, 100);
        assert_eq!((p.diff_box.width, p.panel_box.width), (120, 0));
    }
}
