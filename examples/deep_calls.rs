//! Times the refactors of `f` on `f(f(…f(1)…))` nested N deep (argument: N), to see how the
//! heuristic scales with nesting. `cargo run --release --example deep_calls -- 2000`
use candor::api::args;
use candor::honesty::Tool;
use candor::lang::Language;
use candor::refactor::{self, MemorySources};
use serde_json::json;

fn main() {
    let depth: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1000);
    for lang in [Language::Python, Language::Rust] {
        let (calls, ends) = ("f(".repeat(depth), ")".repeat(depth));
        let (file, text) = match lang {
            Language::Python => (
                "deep.py",
                format!(
                    "def f(a):\n    return a\n\n\ndef main():\n    x = 1\n    y = {calls}1{ends}\n    return x + y\n"
                ),
            ),
            Language::Rust => (
                "deep.rs",
                format!(
                    "fn f(a: i32) -> i32 {{\n    a\n}}\n\nfn main() {{\n    let x = 1;\n    let y = {calls}1{ends};\n    println!(\"{{}}\", x + y);\n}}\n"
                ),
            ),
        };
        let ext = &file[file.len() - 2..];
        let requests = [
            (
                Tool::InlineFunction,
                json!({"file_path": file, "function_name": "f"}),
            ),
            (
                Tool::MoveToFile,
                json!({"file_path": file, "symbol_name": "f", "target_file": format!("other.{ext}")}),
            ),
            (
                Tool::ChangeSignature,
                json!({"file_path": file, "function_name": "f", "new_parameters": if ext == "rs" {
                    json!([{"name": "a", "type": "i32"}, {"name": "b", "type": "i32"}])
                } else {
                    json!([{"name": "a"}, {"name": "b", "default": "0"}])
                }}),
            ),
        ];
        let only = std::env::args().nth(2);
        for (tool, a) in requests {
            if only
                .as_deref()
                .is_some_and(|o| !format!("{tool:?}").contains(o))
            {
                continue;
            }
            let sources = MemorySources::new().with(file, &text);
            let call = args::parse(tool, &a).unwrap();
            let t = std::time::Instant::now();
            let r = refactor::plan(&sources, &call.request);
            println!(
                "{file} {:?} depth {depth}: {:.2?} {}",
                tool,
                t.elapsed(),
                match r {
                    Ok(p) => format!("ok {} changes", p.changes.len()),
                    Err(e) => format!("err {e}").chars().take(100).collect(),
                }
            );
        }
    }
}
