//! Programs come only from absolute PATH entries outside the project: with `.`, `tools`, an empty
//! entry and the project's own `tools` folder on PATH before the real servers and checkers, an
//! untrusted project's `./ruff`, `./pylsp`, `tools/pylsp`, `./rust-analyzer`, `./cargo` and
//! `./python3` never run (each would write a marker) — with the real pylsp, rust-analyzer, ruff
//! and cargo found further on — and the answer names the entry skipped.

mod common;

use std::path::Path;
use std::process::Command;

use common::servers::{path_env, require};
use serde_json::{Value, json};

fn plant(root: &Path, path: &str, marker: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(
        &full,
        format!(
            "#!/bin/sh\necho \"{path} $*\" >> '{}'\nexit 1\n",
            marker.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&full, std::fs::Permissions::from_mode(0o755)).unwrap();
}

fn call(home: &Path, root: &Path, tool: &str, args: &Value) -> Value {
    common::servers::patient_auto(&home.join("config"));
    // `.`, `tools` and an empty entry first, then the project's tools folder by its absolute
    // path, then the real PATH.
    let mut path = std::ffi::OsString::from(format!(".:tools::{}:", root.join("tools").display()));
    path.push(path_env());
    let out = Command::new(common::candor_bin())
        .args(["call", tool, &args.to_string(), "--root"])
        .arg(root)
        .current_dir(root)
        .env("PATH", path)
        .env("XDG_CONFIG_HOME", home.join("config"))
        .env("XDG_CACHE_HOME", home.join("cache"))
        .env_remove("CANDOR_BACKEND")
        .env_remove("RUSTUP_TOOLCHAIN")
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{e}: {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn relative_and_project_path_entries_are_never_searched() {
    if !require(&["rust-analyzer", "pylsp", "ruff", "cargo"]) {
        return;
    }
    let home = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let marker = home.path().join("MARKER");
    std::fs::write(
        root.join("app.py"),
        "def main():\n    x = 1\n    y = 2\n    print(x + y)\n    return x\n",
    )
    .unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"p\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    )
    .unwrap();
    std::fs::create_dir(root.join("src")).unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn total(values: &[i32]) -> i32 {\n    let mut sum = 0;\n    for v in values {\n        sum += v;\n    }\n    sum\n}\n",
    )
    .unwrap();
    for program in [
        "ruff",
        "pylsp",
        "jedi-language-server",
        "rust-analyzer",
        "cargo",
        "rustc",
        "python3",
        "python",
        "pyrefly",
        "tools/pylsp",
        "tools/ruff",
        "tools/rust-analyzer",
        "tools/cargo",
    ] {
        plant(&root, program, &marker);
    }

    let python = call(
        home.path(),
        &root,
        "refactor_extract_function",
        &json!({"file_path": "app.py", "start_line": 2, "end_line": 3, "new_name": "pair", "verify": true}),
    );
    let rust = call(
        home.path(),
        &root,
        "refactor_extract_function",
        &json!({"file_path": "src/lib.rs", "start_line": 3, "end_line": 5, "new_name": "add_all", "verify": true}),
    );
    assert!(
        !marker.exists(),
        "a program of the project ran: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
    assert_eq!(python["success"], true, "{python:#}");
    assert_eq!(rust["success"], true, "{rust:#}");
    assert_eq!(python["backend_used"], "lsp", "{python:#}");
    assert_eq!(rust["backend_used"], "lsp", "{rust:#}");
    // The checkers ran (the real ones), and the entries skipped are said.
    let notes = python["data"]["verification"].to_string();
    assert!(notes.contains("ruff"), "{notes}");
    assert!(
        notes.contains("skipped PATH entry `.`: relative"),
        "{notes}"
    );
    assert!(
        notes.contains(&format!(
            "skipped PATH entry `{}`: inside the project",
            root.join("tools").display()
        )),
        "{notes}"
    );
}
