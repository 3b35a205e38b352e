//! The warm store (issue 22, item 1): one `Engine` keeps what it parsed across requests, so a
//! second preview of the same refactor parses nothing, and a changed file is parsed again.

use candor::api::Engine;
use candor::config::Config;
use candor::workspace::Root;
use serde_json::json;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("pkg")).unwrap();
    std::fs::write(
        dir.path().join("pkg/a.py"),
        "def helper(a):\n    return a + 1\n\n\ndef main():\n    return helper(2)\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pkg/b.py"),
        "from pkg.a import helper\n\n\ndef use():\n    return helper(3) + helper(4)\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pkg/c.py"),
        "# helper is documented in a.py\nimport pkg.a\n\nx = pkg.a.helper(5)\n",
    )
    .unwrap();
    dir
}

fn engine(dir: &std::path::Path) -> Engine {
    Engine::with_config(
        Root::new(dir).unwrap(),
        Config::default(),
        Some(candor::backend::BackendChoice::TreeSitter),
    )
}

fn preview(engine: &Engine) -> serde_json::Value {
    let args = json!({
        "file_path": "pkg/a.py",
        "function_name": "helper",
        "new_parameters": [{"name": "b", "default": "0"}],
        "dry_run": true,
    });
    engine
        .call("refactor_change_signature", &args)
        .unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn a_second_preview_through_one_engine_parses_no_file() {
    let dir = project();
    let engine = engine(dir.path());
    let first = preview(&engine);
    let after_first = engine.sources().store_stats();
    assert!(after_first.parses > 0, "{after_first:?}");
    let second = preview(&engine);
    let after_second = engine.sources().store_stats();
    assert_eq!(
        after_second.parses, after_first.parses,
        "the second preview parsed again: {after_first:?} then {after_second:?}"
    );
    assert!(after_second.hits > after_first.hits, "{after_second:?}");
    assert_eq!(first["data"]["changes"], second["data"]["changes"]);
}

#[test]
fn a_changed_file_is_parsed_again_and_the_preview_follows_it() {
    let dir = project();
    let engine = engine(dir.path());
    preview(&engine);
    let before = engine.sources().store_stats();
    std::fs::write(
        dir.path().join("pkg/b.py"),
        "from pkg.a import helper\n\n\ndef use():\n    return helper(3)\n",
    )
    .unwrap();
    let again = preview(&engine);
    let after = engine.sources().store_stats();
    assert!(after.parses > before.parses, "{before:?} then {after:?}");
    let b = again["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "pkg/b.py")
        .unwrap()
        .to_string();
    // The diff is of the new text: the call that was removed is not in it.
    assert!(b.contains("-    return helper(3)\\n"), "{b}");
    assert!(!b.contains("helper(4"), "{b}");
}

#[test]
fn a_first_preview_parses_each_file_that_names_the_function_once() {
    // a.py (full tree), b.py and c.py (partial trees around `helper`): three parses. The
    // cross-check of the result reads b.py and c.py through the same partial trees, and d.py,
    // which holds `helper` only inside `helpers`, has no call of it and is not parsed at all.
    let dir = project();
    std::fs::write(dir.path().join("pkg/d.py"), "helpers = []\n").unwrap();
    let engine = engine(dir.path());
    let first = preview(&engine);
    assert_eq!(first["success"], true, "{first}");
    let stats = engine.sources().store_stats();
    assert_eq!(stats.parses, 3, "{stats:?}");
}

fn change(engine: &Engine, new_parameters: serde_json::Value) -> serde_json::Value {
    let args = json!({
        "file_path": "pkg/a.py",
        "function_name": "helper",
        "new_parameters": new_parameters,
        "dry_run": true,
    });
    engine
        .call("refactor_change_signature", &args)
        .unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn another_refactor_of_the_same_function_judges_no_file_again() {
    // The second change of signature asks the references engine the same question about the
    // same files: every verdict (and what it learned from each file) is the one kept, and the
    // plan is the one a fresh engine makes.
    let dir = project();
    let engine = engine(dir.path());
    change(
        &engine,
        json!([{"name": "a"}, {"name": "b", "default": "0"}]),
    );
    let after_first = engine.sources().store_stats();
    assert!(after_first.facts > 0, "{after_first:?}");
    let other = json!([{"name": "a"}, {"name": "c", "default": "None"}]);
    let second = change(&engine, other.clone());
    let after_second = engine.sources().store_stats();
    // The only new facts are the arity check's findings for the new signature (another
    // function, another question), at most one per file that names it (a.py, b.py, c.py), and
    // the rewrite of b.py and c.py for it (another callee); a file judged again would add its
    // verdicts and its top imports besides.
    assert!(
        after_second.facts - after_first.facts <= 5,
        "the second refactor judged files again: {after_first:?} then {after_second:?}"
    );
    assert!(
        after_second.fact_hits > after_first.fact_hits,
        "{after_second:?}"
    );
    let fresh = change(&self::engine(dir.path()), other);
    assert_eq!(second["data"], fresh["data"]);
}

#[test]
fn a_verdict_that_read_a_reexport_is_not_reused_once_the_reexport_changed() {
    // pkg/d.py calls `helper` through the package, which re-exports it from pkg/a.py: its call
    // is certain, and changed. Once pkg/__init__.py stops re-exporting it, d.py (unchanged) no
    // longer calls our function: the verdict kept for d.py must not be reused.
    let dir = project();
    std::fs::write(
        dir.path().join("pkg/__init__.py"),
        "from .a import helper\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pkg/d.py"),
        "from pkg import helper\n\nx = helper(6)\n",
    )
    .unwrap();
    let engine = engine(dir.path());
    let params = json!([{"name": "b"}, {"name": "a"}]);
    let first = change(&engine, params.clone());
    let d_changed = |envelope: &serde_json::Value| {
        envelope["data"]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["path"] == "pkg/d.py")
    };
    assert!(d_changed(&first), "{first}");
    std::fs::write(
        dir.path().join("pkg/__init__.py"),
        "def helper(a):\n    return a\n",
    )
    .unwrap();
    let second = change(&engine, params.clone());
    assert!(!d_changed(&second), "{second}");
    let fresh = change(&self::engine(dir.path()), params);
    assert_eq!(second["data"], fresh["data"]);
}

/// A Rust crate: `helper` defined in `a.rs`, re-exported by `lib.rs`, called from `b.rs`
/// through its module and from `c.rs` through the re-export.
fn rust_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let files = [
        (
            "src/lib.rs",
            "pub mod a;\npub mod b;\npub mod c;\n\npub use a::helper;\n",
        ),
        ("src/a.rs", "pub fn helper(x: u8) -> u8 {\n    x + 1\n}\n"),
        (
            "src/b.rs",
            "use crate::a::helper;\n\npub fn two() -> u8 {\n    helper(1) + helper(2)\n}\n",
        ),
        (
            "src/c.rs",
            "use crate::helper;\n\npub fn three() -> u8 {\n    helper(3)\n}\n",
        ),
    ];
    for (path, text) in files {
        std::fs::write(dir.path().join(path), text).unwrap();
    }
    dir
}

fn rename(engine: &Engine, new_name: &str) -> serde_json::Value {
    let args = json!({
        "file_path": "src/a.rs",
        "symbol_name": "helper",
        "new_name": new_name,
        "dry_run": true,
    });
    engine
        .call("refactor_rename_symbol", &args)
        .unwrap_or_else(|e| panic!("{e:?}"))
}

fn changed_paths(envelope: &serde_json::Value) -> Vec<String> {
    envelope["data"]["changes"]
        .as_array()
        .unwrap_or_else(|| panic!("{envelope}"))
        .iter()
        .map(|c| c["path"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn another_rename_of_the_same_rust_function_judges_no_file_again() {
    // The Rust verdicts are facts of the store too: a second rename of the same function asks
    // the same questions of the same files (another new name is not part of them).
    let dir = rust_project();
    let engine = engine(dir.path());
    let first = rename(&engine, "assist");
    assert_eq!(
        changed_paths(&first),
        ["src/a.rs", "src/b.rs", "src/c.rs", "src/lib.rs"],
        "{first}"
    );
    let after_first = engine.sources().store_stats();
    assert!(after_first.facts >= 4, "{after_first:?}");
    let second = rename(&engine, "aid");
    let after_second = engine.sources().store_stats();
    assert_eq!(
        after_second.facts, after_first.facts,
        "the second rename judged files again: {after_first:?} then {after_second:?}"
    );
    assert!(
        after_second.fact_hits >= after_first.fact_hits + 4,
        "{after_second:?}"
    );
    let fresh = rename(&self::engine(dir.path()), "aid");
    assert_eq!(second["data"], fresh["data"]);
}

#[test]
fn a_rust_verdict_that_read_a_reexport_is_not_reused_once_the_reexport_changed() {
    // c.rs reaches `helper` through lib.rs's `pub use a::helper`: its call is certain, and
    // renamed. Once lib.rs defines a `helper` of its own instead, c.rs (unchanged) calls that
    // one: the verdict kept for c.rs must not be reused.
    let dir = rust_project();
    let engine = engine(dir.path());
    let first = rename(&engine, "assist");
    assert!(
        changed_paths(&first).contains(&"src/c.rs".to_string()),
        "{first}"
    );
    std::fs::write(
        dir.path().join("src/lib.rs"),
        "pub mod a;\npub mod b;\npub mod c;\n\npub fn helper(x: u8) -> u8 {\n    x\n}\n",
    )
    .unwrap();
    let second = rename(&engine, "assist");
    assert_eq!(changed_paths(&second), ["src/a.rs", "src/b.rs"], "{second}");
    let fresh = rename(&self::engine(dir.path()), "assist");
    assert_eq!(second["data"], fresh["data"]);
}

/// A crate whose `Shape::is_empty` (a method of no trait) is called once, beside `DECOY_FILES`
/// files calling the `is_empty` of slices.
fn rust_method_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    let mut lib = "pub mod shape;\n".to_string();
    for i in 0..DECOY_FILES {
        lib.push_str(&format!("pub mod d{i};\n"));
        let decoy = format!("pub fn d{i}(v: &[u8]) -> bool {{\n    v.is_empty()\n}}\n");
        std::fs::write(dir.path().join(format!("src/d{i}.rs")), decoy).unwrap();
    }
    std::fs::write(dir.path().join("src/lib.rs"), lib).unwrap();
    let shape = "pub struct Shape {\n    items: Vec<u8>,\n}\n\nimpl Shape {\n    pub fn is_empty(&self) -> bool {\n        self.items.is_empty()\n    }\n}\n\npub fn blank(s: &Shape) -> bool {\n    s.is_empty()\n}\n";
    std::fs::write(dir.path().join("src/shape.rs"), shape).unwrap();
    dir
}

const DECOY_FILES: usize = 6;

#[test]
fn a_rust_method_of_no_trait_is_renamed_by_a_new_engine_without_parsing_the_files_judged_before() {
    // Nothing a file holds widens the reach of such a method (no re-export, no trait impl): a
    // candidate is parsed only when no verdict kept on disk answers for it.
    let dir = rust_method_project();
    let first = engine(dir.path());
    assert!(first.sources().indexed_source_files(true, None).is_some());
    let args = json!({
        "file_path": "src/shape.rs",
        "symbol_name": "is_empty",
        "new_name": "is_void",
        "dry_run": true,
    });
    let before = first.call("refactor_rename_symbol", &args).unwrap();
    assert_eq!(changed_paths(&before), ["src/shape.rs"], "{before}");
    let cold = first.sources().store_stats();
    assert!(cold.parses > DECOY_FILES as u64, "{cold:?}");
    let second = engine(dir.path());
    let after = second.call("refactor_rename_symbol", &args).unwrap();
    assert_eq!(before["data"], after["data"]);
    let warm = second.sources().store_stats();
    assert!(warm.disk.read >= DECOY_FILES as u64, "{warm:?}");
    assert!(
        warm.parses <= 2,
        "the decoys were parsed again though their verdicts were kept: {warm:?}"
    );
}

/// The anonymous mappings of a process that are advised as huge pages (`THPeligible: 1` under
/// the system's `madvise` setting), each as its `/proc/PID/smaps` header line and how much of it
/// is mapped as huge pages already (`AnonHugePages`, in KiB).
fn huge_page_mappings(pid: u32) -> Vec<(String, u64)> {
    let smaps = std::fs::read_to_string(format!("/proc/{pid}/smaps")).unwrap_or_default();
    let mut found = Vec::new();
    let mut header = "";
    let mut huge_kib = 0;
    for line in smaps.lines() {
        let mut words = line.split_whitespace();
        let first = words.next().unwrap_or("");
        if first.contains('-') && !first.ends_with(':') {
            header = line;
        } else if first == "AnonHugePages:" {
            huge_kib = words.next().and_then(|n| n.parse().ok()).unwrap_or(0);
        } else if line.split_whitespace().eq(["THPeligible:", "1"]) {
            let anonymous = header.split_whitespace().count() == 5 || header.ends_with("[heap]");
            if anonymous {
                found.push((header.to_string(), huge_kib));
            }
        }
    }
    found
}

/// Whether this kernel collapses a range into huge pages on request (`MADV_COLLAPSE`, 6.1).
fn kernel_collapses() -> bool {
    let release = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    let mut numbers = release.split(|c: char| !c.is_ascii_digit());
    let major: u32 = numbers.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    let minor: u32 = numbers.next().and_then(|n| n.parse().ok()).unwrap_or(0);
    (major, minor) >= (6, 1)
}

/// The process's memory set-up (`process_memory`, issue 22): a running candor has its main heap
/// (the break's area, `[heap]`) and its workers' heap advised as huge pages, where the system
/// gives them only on advice; with `CANDOR_HUGE_PAGES=0`, none. Where the kernel collapses a
/// range on request, the main heap's first advised range, written before the advice, is a huge
/// page already before any request (else each of its pages would be a fault of its own), and so
/// is the workers' heap's first range, which holds the heap's header.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[test]
fn a_running_candor_has_both_heaps_advised_as_huge_pages() {
    let thp =
        std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").unwrap_or_default();
    if !thp.contains("[madvise]") {
        eprintln!(
            "skipped: transparent huge pages are not `madvise` here ({})",
            thp.trim()
        );
        return;
    }
    let dir = project();
    // The workers' heap is advised whole, from its start (glibc aligns a thread's heap on its
    // largest size, 64 MiB), the arena's own header included.
    let start = |m: &str| {
        let first = m.split('-').next().unwrap_or("");
        u64::from_str_radix(first, 16).unwrap_or(1)
    };
    let main_heap = |found: &[(String, u64)]| -> Vec<u64> {
        (found.iter())
            .filter(|(m, _)| m.ends_with("[heap]"))
            .map(|(_, huge)| *huge)
            .collect()
    };
    let workers_heap = |found: &[(String, u64)]| -> Vec<u64> {
        (found.iter())
            .filter(|(m, _)| !m.ends_with("[heap]") && start(m) % (64 << 20) == 0)
            .map(|(_, huge)| *huge)
            .collect()
    };
    let collapses = kernel_collapses();
    let holds_a_huge_page = |heap: Vec<u64>| match collapses {
        true => heap.iter().any(|huge| *huge >= 2048),
        false => !heap.is_empty(),
    };
    let set_up = |found: &[(String, u64)]| {
        holds_a_huge_page(main_heap(found)) && holds_a_huge_page(workers_heap(found))
    };
    let mappings = |off: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_candor"));
        command.args(["mcp", "--root"]).arg(dir.path());
        if off {
            command.env("CANDOR_HUGE_PAGES", "0");
        }
        let mut server = command
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let mut found = Vec::new();
        // Until both heaps are seen as set up (at most 2 s); with the set-up off, 300 ms of
        // nothing.
        for _ in 0..if off { 15 } else { 100 } {
            std::thread::sleep(std::time::Duration::from_millis(20));
            found = huge_page_mappings(server.id());
            if set_up(&found) {
                break;
            }
        }
        server.kill().unwrap();
        server.wait().unwrap();
        found
    };
    let advised = mappings(false);
    assert!(!main_heap(&advised).is_empty(), "{advised:#?}");
    assert!(!workers_heap(&advised).is_empty(), "{advised:#?}");
    if collapses {
        assert!(
            holds_a_huge_page(main_heap(&advised)),
            "the main heap's first advised range is not a huge page: {advised:#?}"
        );
        assert!(
            holds_a_huge_page(workers_heap(&advised)),
            "the workers' heap's first range is not a huge page: {advised:#?}"
        );
    }
    assert_eq!(mappings(true), Vec::<(String, u64)>::new());
}
