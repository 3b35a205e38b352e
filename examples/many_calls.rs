//! Times inline and change signature on one file holding N calls of the function (argument:
//! N, default 20,000; a second argument picks the tool by a part of its name), to see that the
//! heuristic stays linear in the calls of a file. `cargo run --release --example many_calls --
//! 100000 ChangeSignature`. Deep nesting is `examples/deep_calls.rs`.
use candor::api::args;
use candor::honesty::Tool;
use candor::lang::Language;
use candor::refactor::{self, MemorySources};
use serde_json::json;

fn main() {
    let calls: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let only = std::env::args().nth(2);
    for lang in [Language::Python, Language::Rust] {
        let (file, text) = source(lang, calls);
        let requests = [
            (
                Tool::InlineFunction,
                json!({"file_path": file, "function_name": "f"}),
            ),
            (
                Tool::ChangeSignature,
                json!({"file_path": file, "function_name": "f", "new_parameters": match lang {
                    Language::Rust => json!([
                        {"name": "b"}, {"name": "a"}, {"name": "c", "type": "i32", "default": "0"}
                    ]),
                    Language::Python => json!([{"name": "b"}, {"name": "a"}, {"name": "c", "default": "0"}]),
                }}),
            ),
        ];
        for (tool, arguments) in requests {
            if only
                .as_deref()
                .is_some_and(|o| !format!("{tool:?}").contains(o))
            {
                continue;
            }
            let sources = MemorySources::new().with(file, &text);
            let call = match args::parse(tool, &arguments) {
                Ok(call) => call,
                Err(e) => {
                    println!("{file} {tool:?}: bad arguments: {}", e.message);
                    continue;
                }
            };
            let started = std::time::Instant::now();
            let result = refactor::plan(&sources, &call.request);
            println!(
                "{file} {tool:?} {calls} calls in one file: {:.2?} {}",
                started.elapsed(),
                match result {
                    Ok(plan) => format!(
                        "ok, {} change(s), {} finding(s)",
                        plan.changes.len(),
                        plan.findings.len()
                    ),
                    Err(e) => format!("error {e}").chars().take(120).collect(),
                }
            );
        }
    }
}

/// A file defining `f(a, b)` and calling it `calls` times, one call per line, in one function.
fn source(lang: Language, calls: usize) -> (&'static str, String) {
    match lang {
        Language::Python => {
            let mut text =
                String::from("def f(a, b):\n    return a - b\n\n\ndef main():\n    x = 0\n");
            for i in 0..calls {
                text.push_str(&format!("    x += f({i}, x)\n"));
            }
            text.push_str("    return x\n");
            ("many.py", text)
        }
        Language::Rust => {
            let mut text = String::from(
                "fn f(a: i64, b: i64) -> i64 {\n    a - b\n}\n\nfn main() {\n    let mut x = 0;\n",
            );
            for i in 0..calls {
                text.push_str(&format!("    x += f({i}, x);\n"));
            }
            text.push_str("    println!(\"{x}\");\n}\n");
            ("many.rs", text)
        }
    }
}
