//! Times inline, change signature and rename (dry runs, tree-sitter backend) on ONE big file, in
//! process through the engine and through `candor call` (the release binary), and prints each
//! figure with the machine load (`/proc/loadavg`) and, for `candor call`, its peak RSS. It is the
//! bench of "linear in one big file" (issue 21 item 10, issue 22 item 5):
//!
//! - `growth [N...]`: N calls of `f`, one per line (default 4,000 16,000 64,000), and the ratio of
//!   each size to the one before (the goal: ≤ 4.5× for 4× the calls);
//! - `big`: a 5 MiB file with 20,000 calls (lines padded with a comment), goal < 10 s;
//! - `oneline`: a 4 MB file on one line with 20,000 calls, goal < 10 s and < 500 MB;
//! - `many [N]`: change signature with N calls (default 100,000), goal < 5 s.
//!
//! `cargo build --release && cargo run --release --example big_file -- growth` (the binary is
//! `$CARGO_TARGET_DIR/release/candor` or `CANDOR_BIN`; without it only the engine is timed).
//! `ONLY=inline|change|rename` and `LANG=python|rust` pick one.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use candor::api::Engine;
use candor::backend::BackendChoice;
use serde_json::{Value, json};

#[derive(Clone, Copy, PartialEq)]
enum Lang {
    Python,
    Rust,
}

#[derive(Clone, Copy)]
enum Shape {
    /// One call per line.
    Lines,
    /// One call per line, each line padded with a comment to `pad` bytes.
    Padded(usize),
    /// Everything on one line, each call followed by a string of `pad` bytes.
    OneLine(usize),
}

fn main() {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "growth".into());
    let numbers: Vec<usize> = std::env::args()
        .skip(2)
        .filter_map(|a| a.parse().ok())
        .collect();
    match mode.as_str() {
        "growth" => {
            let sizes = if numbers.is_empty() {
                vec![4_000, 16_000, 64_000]
            } else {
                numbers
            };
            for lang in langs() {
                let mut before: Vec<(String, f64)> = Vec::new();
                for &n in &sizes {
                    let figures = run(lang, n, Shape::Lines, &tools());
                    for (label, secs) in &figures {
                        if let Some((_, b)) = before.iter().find(|(l, _)| l == label) {
                            println!("    {label}: {:.2}× the previous size's time", secs / b);
                        }
                    }
                    before = figures;
                }
            }
        }
        "big" => {
            for lang in langs() {
                run(
                    lang,
                    20_000,
                    Shape::Padded(5 * 1024 * 1024 / 20_000 - 8),
                    &tools(),
                );
            }
        }
        "oneline" => {
            for lang in langs() {
                run(
                    lang,
                    20_000,
                    Shape::OneLine(4_000_000 / 20_000 - 24),
                    &tools(),
                );
            }
        }
        "many" => {
            let n = numbers.first().copied().unwrap_or(100_000);
            for lang in langs() {
                run(lang, n, Shape::Lines, &["change"]);
            }
        }
        other => eprintln!("unknown mode {other}: growth, big, oneline or many"),
    }
}

fn langs() -> Vec<Lang> {
    match std::env::var("LANG_ONLY")
        .or_else(|_| std::env::var("LANG"))
        .as_deref()
    {
        Ok("python") => vec![Lang::Python],
        Ok("rust") => vec![Lang::Rust],
        _ => vec![Lang::Python, Lang::Rust],
    }
}

fn tools() -> Vec<&'static str> {
    let all = ["inline", "change", "rename"];
    match std::env::var("ONLY") {
        Ok(only) => all.into_iter().filter(|t| *t == only).collect(),
        Err(_) => all.to_vec(),
    }
}

/// Times each tool on a file of `calls` calls; returns (label, seconds) per figure.
fn run(lang: Lang, calls: usize, shape: Shape, tools: &[&str]) -> Vec<(String, f64)> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let (name, text) = source(lang, calls, shape);
    std::fs::write(dir.path().join(name), &text).expect("write the file");
    let lines = text.lines().count();
    println!(
        "{name}: {calls} calls, {} bytes, {lines} line(s)",
        text.len()
    );
    let engine = Engine::open(dir.path(), Some(BackendChoice::TreeSitter)).expect("open");
    let mut figures = Vec::new();
    for &tool in tools {
        let (tool_name, args) = request(lang, name, tool);
        let load = loadavg();
        let cpu = own_cpu_seconds();
        let started = Instant::now();
        let answer = engine.call(tool_name, &args);
        let took = started.elapsed();
        let cpu = own_cpu_seconds() - cpu;
        println!(
            "  engine       {tool:<7} {:>8.2?} wall {cpu:>6.2} s CPU  {}  [load {load}]",
            took,
            summary(answer.map_err(|e| e.message))
        );
        figures.push((format!("engine {tool} wall"), took.as_secs_f64()));
        figures.push((format!("engine {tool} CPU"), cpu));
        if let Some(bin) = candor_bin() {
            let load = loadavg();
            let (took, cpu, rss_kib, out) = call_binary(&bin, dir.path(), tool_name, &args);
            println!(
                "  candor call  {tool:<7} {:>8.2?} wall {cpu:>6.2} s CPU  peak RSS {} MB  {}  [load {load}]",
                took,
                rss_kib / 1024,
                summary(out)
            );
            figures.push((format!("candor call {tool} wall"), took.as_secs_f64()));
            figures.push((format!("candor call {tool} CPU"), cpu));
        }
    }
    figures
}

fn request(lang: Lang, file: &str, tool: &str) -> (&'static str, Value) {
    match tool {
        "inline" => (
            "refactor_inline_function",
            json!({"file_path": file, "function_name": "f", "verify": false}),
        ),
        "change" => (
            "refactor_change_signature",
            json!({"file_path": file, "function_name": "f", "verify": false, "new_parameters": match lang {
                Lang::Rust => json!([{"name": "b"}, {"name": "a"}, {"name": "c", "type": "i64", "default": "0"}]),
                Lang::Python => json!([{"name": "b"}, {"name": "a"}, {"name": "c", "default": "0"}]),
            }}),
        ),
        _ => (
            "refactor_rename_symbol",
            json!({"file_path": file, "symbol_name": "f", "new_name": "g", "verify": false}),
        ),
    }
}

fn summary(answer: Result<Value, String>) -> String {
    match answer {
        Ok(v) => {
            let data = &v["data"];
            format!(
                "ok: {} change(s), {} finding(s), backend {}",
                data["changes"].as_array().map_or(0, Vec::len),
                data["findings"].as_array().map_or(0, Vec::len),
                v["backend_used"].as_str().unwrap_or("?"),
            )
        }
        Err(e) => format!("error: {}", e.chars().take(160).collect::<String>()),
    }
}

fn candor_bin() -> Option<PathBuf> {
    if let Ok(bin) = std::env::var("CANDOR_BIN") {
        return Some(bin.into());
    }
    let target = std::env::var("CARGO_TARGET_DIR").unwrap_or_else(|_| "target".into());
    let bin = Path::new(&target).join("release/candor");
    bin.exists().then_some(bin)
}

/// Runs `candor call` under `/usr/bin/time` and returns its wall time, CPU seconds (user +
/// system), peak RSS (KiB) and its answer.
fn call_binary(
    bin: &Path,
    root: &Path,
    tool: &str,
    args: &Value,
) -> (Duration, f64, u64, Result<Value, String>) {
    let report = tempfile::NamedTempFile::new().expect("a temporary file");
    let report = report.path();
    let started = Instant::now();
    let output = Command::new("/usr/bin/time")
        .arg("-o")
        .arg(report)
        .args(["-f", "%U %S %M"])
        .arg(bin)
        .args(["call", "--backend", "tree-sitter", "--root"])
        .arg(root)
        .arg(tool)
        .arg(args.to_string())
        .output()
        .expect("run candor under /usr/bin/time");
    let took = started.elapsed();
    let measured = std::fs::read_to_string(report).unwrap_or_default();
    let numbers: Vec<f64> = measured
        .lines()
        .last()
        .unwrap_or("")
        .split_whitespace()
        .filter_map(|n| n.parse().ok())
        .collect();
    let (cpu, rss) = match numbers.as_slice() {
        [user, system, rss] => (user + system, *rss as u64),
        _ => (f64::NAN, 0),
    };
    let answer = serde_json::from_slice::<Value>(&output.stdout).map_err(|_| {
        String::from_utf8_lossy(&output.stderr)
            .chars()
            .take(300)
            .collect()
    });
    let answer = match answer {
        Ok(v) if v.get("error").is_some_and(|e| !e.is_null()) => Err(v["error"].to_string()),
        other => other,
    };
    (took, cpu, rss, answer)
}

/// User + system CPU seconds of this process so far (`/proc/self/stat`, in clock ticks of
/// 1/100 s).
fn own_cpu_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the command's closing parenthesis: state is field 3, utime 14, stime 15.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<f64> = rest
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0.0))
        .collect();
    (fields.get(11).copied().unwrap_or(0.0) + fields.get(12).copied().unwrap_or(0.0)) / 100.0
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

/// A file defining `f(a, b)` and calling it `calls` times in one function.
fn source(lang: Lang, calls: usize, shape: Shape) -> (&'static str, String) {
    let (name, head, call, sep, tail) = match lang {
        Lang::Python => (
            "big.py",
            "def f(a, b):\n    return a - b\n\n\ndef main():\n    x = 0\n",
            "x += f(%, x)",
            "; ",
            "return x\n",
        ),
        Lang::Rust => (
            "big.rs",
            "fn f(a: i64, b: i64) -> i64 {\n    a - b\n}\n\nfn main() {\n    let mut x = 0;\n",
            "x += f(%, x);",
            " ",
            "println!(\"{x}\");\n}\n",
        ),
    };
    let mut text = String::with_capacity(calls * 64);
    match shape {
        Shape::Lines | Shape::Padded(_) => {
            text.push_str(head);
            for i in 0..calls {
                text.push_str("    ");
                text.push_str(&call.replace('%', &i.to_string()));
                if let Shape::Padded(pad) = shape {
                    let comment = if lang == Lang::Python {
                        "  # "
                    } else {
                        "  // "
                    };
                    text.push_str(comment);
                    let used = 4 + call.len() + comment.len() + 5;
                    text.push_str(&"p".repeat(pad.saturating_sub(used)));
                }
                text.push('\n');
            }
            text.push_str("    ");
            text.push_str(tail);
        }
        Shape::OneLine(pad) => {
            // One line: Python keeps `def main():` and its body on that line (simple statements
            // separated by `;`), after the definition of `f` on a line of its own.
            let filler = |i: usize| match lang {
                Lang::Python => format!("s = \"{}\"", "p".repeat(pad.saturating_sub(i % 7))),
                Lang::Rust => format!("let _s = \"{}\";", "p".repeat(pad.saturating_sub(i % 7))),
            };
            match lang {
                Lang::Python => text.push_str("def f(a, b): return a - b\ndef main(): x = 0"),
                Lang::Rust => text
                    .push_str("fn f(a: i64, b: i64) -> i64 { a - b } fn main() { let mut x = 0;"),
            }
            for i in 0..calls {
                text.push_str(sep);
                text.push_str(&call.replace('%', &i.to_string()));
                text.push_str(sep);
                text.push_str(&filler(i));
            }
            match lang {
                Lang::Python => text.push_str("; return x\n"),
                Lang::Rust => text.push_str(" println!(\"{x}\"); }\n"),
            }
        }
    }
    (name, text)
}
