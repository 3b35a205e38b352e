//! Times leaving a site out in the TUI's sites list (issue 26): a rename of a function called
//! 2,000 times (the tree-sitter backend), then `space` on one site and a redraw with ratatui's
//! TestBackend, each toggle timed from the key to the drawn frame. Prints the median and the
//! slowest of the toggles in ms, with the machine load (`/proc/loadavg`) beside them. Goal:
//! under 50 ms.
//!
//! `cargo run --release --example sites_toggle [SITES] [TOGGLES]` (default 2,000 sites, 21
//! toggles).

use std::time::Instant;

use candor::backend::BackendChoice;
use candor::tui::headless::Headless;
use candor::tui::state::PreviewFocus;
use ratatui::{Terminal, backend::TestBackend};

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sites = args.first().copied().unwrap_or(2_000);
    let toggles = args.get(1).copied().unwrap_or(21).max(1);
    let dir = tempfile::tempdir().expect("a temp dir");
    let mut text = String::from("def helper(x):\n    return x + 1\n\n\ndef main():\n");
    for i in 0..sites {
        text.push_str(&format!("    v{i} = helper({i})\n"));
    }
    let file = dir.path().join("app.py");
    std::fs::write(&file, &text).expect("the file");
    let started = Instant::now();
    let mut h =
        Headless::open(&file, Some(BackendChoice::TreeSitter), (120, 40)).expect("the session");
    h.press(&["w", "r", "ctrl-e", "ctrl-u"])
        .type_text("aid")
        .press(&["enter"]);
    let preview = h.state.preview().expect("the preview");
    let ready = preview.ready().expect("a result");
    let listed = ready.outcome.plan.sites.len();
    println!(
        "preview of a rename with {listed} sites: {:.0} ms (load {})",
        started.elapsed().as_secs_f64() * 1e3,
        loadavg()
    );
    for _ in 0..3 {
        if h.state
            .preview()
            .is_some_and(|p| p.focus == PreviewFocus::Sites)
        {
            break;
        }
        h.press(&["tab"]);
    }
    assert!(
        h.state
            .preview()
            .is_some_and(|p| p.focus == PreviewFocus::Sites),
        "the sites list has the focus"
    );
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).expect("the test terminal");
    h.press(&["G"]); // the last site: its file's diff is the one redone
    let mut times = Vec::with_capacity(toggles);
    for _ in 0..toggles {
        let t = Instant::now();
        h.press(&["space"]);
        terminal
            .draw(|f| candor::tui::view::render(&h.state, f))
            .expect("the frame");
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let left = h
        .state
        .preview()
        .and_then(|p| p.ready())
        .map_or(0, |r| r.left_out());
    times.sort_by(f64::total_cmp);
    println!(
        "toggle a site and redraw, {listed} sites, {toggles} toggles: median {:.1} ms, slowest {:.1} ms (goal < 50 ms; {left} left out at the end) (load {})",
        times[times.len() / 2],
        times[times.len() - 1],
        loadavg()
    );
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
