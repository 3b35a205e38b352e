//! Single-file previews and the TUI's frames, in process (`cargo bench --bench preview`).
//!
//! - `preview/<lang>/<tool>/cold`: `refactor::plan` on an in-memory project (the 10,000-line file
//!   is parsed every time) and the unified diff of every change.
//! - `preview/<lang>/<tool>/cached`: what the TUI does on each selection (`tui::jobs::preview`:
//!   the engine reads the file, takes its tree from the cache, plans, checks the result and
//!   builds the diff model), on a project on disk whose tree is already cached.
//! - `tui/frame/<lang>`: one frame of the preview screen (a change signature with its findings)
//!   drawn into ratatui's TestBackend at 120×40.
//! - `tui/start_to_first_frame`: opening a 20,000-file project up to its first frame (engine,
//!   state, start-up effects queued — the walk runs in the background in the real UI — and the
//!   frame drawn).
//!
//! - `reparse/<lang>/{incremental,full}`: the 10,000-line file after a one-line change, parsed
//!   again from its previous tree and from scratch.
//!
//! The targets speak of the median ("Fast at project scale"): 5 ms per preview, 2 ms per frame,
//! 100 ms to the first frame.

mod common;

use std::hint::black_box;
use std::time::Duration;

use candor::api::{Engine, args, envelope};
use candor::backend::BackendChoice;
use candor::refactor::{MemorySources, plan};
use candor::tui::headless::Headless;
use candor::tui::{jobs, view};
use criterion::{Criterion, criterion_group, criterion_main};
use ratatui::Terminal;
use ratatui::backend::TestBackend;

use common::Project;

fn previews(c: &mut Criterion) {
    for (lang, project) in [
        ("rust", common::rust_project()),
        ("python", common::python_project()),
    ] {
        let lines = project.text.lines().count();
        eprintln!("{lang}: {lines} lines in {}", project.main);
        let language = candor::lang::Language::from_path(project.main).unwrap();
        let errors = candor::lang::syntax_errors(&language.parse(&project.text), &project.text);
        assert!(errors.is_empty(), "the generated {lang} parses: {errors:?}");
        let mut memory = MemorySources::new();
        for (path, text) in &project.files {
            memory = memory.with(path, text);
        }
        let dir = tempfile::tempdir().unwrap();
        project.write(dir.path());
        let engine = Engine::open(dir.path(), Some(BackendChoice::TreeSitter)).unwrap();

        let mut group = c.benchmark_group(format!("preview/{lang}"));
        group
            .sample_size(30)
            .warm_up_time(Duration::from_secs(1))
            .measurement_time(Duration::from_secs(4));
        for (tool_name, arguments) in project.requests() {
            let tool = envelope::tool_named(tool_name).unwrap();
            let call = args::parse(tool, &arguments).unwrap();
            let short = tool_name.trim_start_matches("refactor_");
            // The request must succeed, or the benchmark would time an error.
            let checked =
                plan(&memory, &call.request).unwrap_or_else(|e| panic!("{lang} {tool_name}: {e}"));
            assert!(
                !checked.changes.is_empty(),
                "{lang} {tool_name} changes nothing"
            );
            group.bench_function(format!("{short}/cold"), |b| {
                b.iter(|| {
                    let planned = plan(&memory, &call.request).unwrap();
                    let diffs: Vec<String> = planned.changes.iter().map(|c| c.diff()).collect();
                    black_box((planned.findings, diffs))
                })
            });
            jobs::preview(&engine, call.clone()).unwrap();
            group.bench_function(format!("{short}/cached"), |b| {
                b.iter(|| black_box(jobs::preview(&engine, call.clone()).unwrap()))
            });
        }
        group.finish();
    }
}

/// A headless session on `project` showing the preview of a change signature in the middle of
/// its file.
fn preview_screen(project: &Project, dir: &std::path::Path) -> Headless {
    project.write(dir);
    let mut h = Headless::open(
        &dir.join(project.main),
        Some(BackendChoice::TreeSitter),
        (120, 40),
    )
    .unwrap();
    let name = format!("summarize_{}", project.middle + 1);
    let label = if project.rust {
        format!("fn {name}")
    } else {
        format!("def {name}")
    };
    // The outline's filter finds it by name.
    h.press(&["o"]).type_text(&name);
    let code = h.state.code.as_ref().unwrap();
    let found = code
        .outline_symbol()
        .map(|i| candor::tui::state::symbol_label(&code.doc, &code.doc.symbols[i]));
    assert_eq!(found.as_deref(), Some(label.as_str()));
    h.press(&["enter", "c", "ctrl-e", "ctrl-u"]);
    let list = if project.rust {
        "(items: &[i64], label: &str, limit: usize)"
    } else {
        "(items, label, limit=None)"
    };
    h.type_text(list).press(&["enter"]);
    assert_eq!(
        h.state.screen.kind(),
        candor::tui::state::ScreenKind::Preview,
        "{:?}",
        h.state.notice
    );
    h
}

fn frames(c: &mut Criterion) {
    let mut group = c.benchmark_group("tui");
    group.sample_size(50);
    for (lang, project) in [
        ("rust", common::rust_project()),
        ("python", common::python_project()),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let h = preview_screen(&project, dir.path());
        let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
        group.bench_function(format!("frame/{lang}"), |b| {
            b.iter(|| {
                terminal.draw(|f| view::render(&h.state, f)).unwrap();
            })
        });
    }

    let dir = tempfile::tempdir().unwrap();
    write_many_files(dir.path(), 20_000);
    group.bench_function("start_to_first_frame", |b| {
        b.iter(|| {
            let engine = Engine::open(dir.path(), None).unwrap();
            let mut state = candor::tui::state::State::new(
                "bench".to_string(),
                engine.default_backend(),
                candor::tui::keymap::Keymap::default_keymap(),
                candor::tui::theme::Theme::colored(),
                (120, 40),
            );
            let effects = candor::tui::update::start(&mut state, None);
            let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
            terminal.draw(|f| view::render(&state, f)).unwrap();
            black_box((effects, engine))
        })
    });
    group.finish();
}

/// A project of `count` small Rust and Python files in nested directories.
fn write_many_files(root: &std::path::Path, count: usize) {
    for i in 0..count {
        let dir = root.join(format!("pkg{:02}/mod{}", i / 500, (i / 50) % 10));
        std::fs::create_dir_all(&dir).unwrap();
        if i % 2 == 0 {
            std::fs::write(
                dir.join(format!("f{i}.py")),
                format!("def f{i}(a, b):\n    return a + b * {i}\n"),
            )
            .unwrap();
        } else {
            std::fs::write(
                dir.join(format!("f{i}.rs")),
                format!("pub fn f{i}(a: u32, b: u32) -> u32 {{\n    a + b * {i}\n}}\n"),
            )
            .unwrap();
        }
    }
}

/// Target 6's evidence in figures: the tree of the file after a one-line change, re-parsed from
/// the previous tree (what the TUI does when the watcher reports a change) and from scratch.
fn reparse(c: &mut Criterion) {
    let mut group = c.benchmark_group("reparse");
    group.sample_size(30);
    for (lang, project) in [
        ("rust", common::rust_project()),
        ("python", common::python_project()),
    ] {
        let language = candor::lang::Language::from_path(project.main).unwrap();
        let old = &project.text;
        let old_tree = language.parse(old);
        let at = old.find(&format!("scale_{}(", project.middle)).unwrap();
        let new = format!("{}renamed_{}", &old[..at], &old[at..]);
        group.bench_function(format!("{lang}/incremental"), |b| {
            b.iter(|| {
                black_box(candor::lang::incremental::reparse(
                    language, old, &old_tree, &new,
                ))
            })
        });
        group.bench_function(format!("{lang}/full"), |b| {
            b.iter(|| black_box(language.parse(&new)))
        });
    }
    group.finish();
}

criterion_group!(benches, previews, frames, reparse);
criterion_main!(benches);
