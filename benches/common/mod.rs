//! Generated sources for the benchmarks: a Rust file and a Python file of about 10,000 lines
//! each, shaped like real code (types with methods, free functions, helpers called from many
//! places, doc comments, loops, matches, closures, strings), and the requests the benchmarks
//! make on them. Deterministic: the same text on every run.

#![allow(dead_code)]

use std::fmt::Write;

/// Units (a type with methods, a helper, a function…) per file: about 10,000 lines each.
pub const RUST_UNITS: usize = 520;
pub const PYTHON_UNITS: usize = 636;

/// The unit the single-file requests are about: mid-file, a multiple of 4 (the unit kinds cycle).
fn middle(units: usize) -> usize {
    (units / 2) & !3
}

/// `src/lib.rs` of a generated crate of `units` units.
pub fn rust_source(units: usize) -> String {
    let mut s = String::from(
        "//! Generated for candor's benchmarks: ledgers, accounts and reports.\n\nuse std::collections::BTreeMap;\nuse std::fmt;\n\n",
    );
    for i in 0..units {
        match i % 4 {
            0 => {
                let _ = write!(
                    s,
                    r#"/// An account of ledger {i}.
#[derive(Debug, Clone, PartialEq)]
pub struct Account{i} {{
    pub id: u64,
    pub owner: String,
    pub entries: Vec<i64>,
}}

impl Account{i} {{
    /// The balance after every entry.
    pub fn balance(&self) -> i64 {{
        let mut total = 0i64;
        for entry in &self.entries {{
            if *entry < 0 && total + entry < -1000 {{
                return total;
            }}
            total += entry;
        }}
        scale_{i}(total, 3)
    }}
}}

"#
                );
            }
            1 => {
                let _ = write!(
                    s,
                    r#"fn scale_{prev}(value: i64, factor: i64) -> i64 {{
    value * factor + {i}
}}

/// Sums the positive entries of `items`, counting the negative ones.
pub fn summarize_{i}(items: &[i64], label: &str) -> (i64, usize) {{
    let mut positive = 0;
    let mut negative = 0usize;
    for item in items.iter() {{
        match item.signum() {{
            1 => positive += scale_{prev}(*item, 2),
            -1 => negative += 1,
            _ => {{}}
        }}
    }}
    if label.is_empty() {{
        println!("unnamed report {i}: {{}}", positive);
    }}
    (positive, negative)
}}

"#,
                    prev = i - 1
                );
            }
            2 => {
                let _ = write!(
                    s,
                    r#"/// Groups entries by owner for report {i}.
pub fn group_{i}(accounts: &[(String, i64)]) -> BTreeMap<String, i64> {{
    let mut groups: BTreeMap<String, i64> = BTreeMap::new();
    for (owner, amount) in accounts {{
        let slot = groups.entry(owner.clone()).or_insert(0);
        *slot += amount;
    }}
    let (total, count) = summarize_{prev}(&groups.values().copied().collect::<Vec<_>>(), "groups");
    groups.retain(|_, v| *v != 0 || total > count as i64);
    let names: Vec<String> = groups
        .keys()
        .filter(|k| !k.starts_with('_'))
        .map(|k| k.to_uppercase())
        .collect();
    if names.len() > 3 {{
        groups.insert(format!("{{}} and others", names[0]), total);
    }}
    groups
}}

"#,
                    prev = i - 1
                );
            }
            _ => {
                let _ = write!(
                    s,
                    r#"pub struct Report{i} {{
    rows: Vec<(String, i64)>,
}}

impl fmt::Display for Report{i} {{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {{
        for (name, value) in &self.rows {{
            writeln!(f, "{{name:>12}} {{value:>8}}")?;
        }}
        let grouped = group_{prev}(&self.rows);
        write!(f, "{{}} groups", grouped.len())
    }}
}}

"#,
                    prev = i - 1
                );
            }
        }
    }
    s
}

/// `pkg/ledger.py` of `units` units.
pub fn python_source(units: usize) -> String {
    let mut s = String::from(
        "\"\"\"Generated for candor's benchmarks: ledgers, accounts and reports.\"\"\"\n\nimport collections\nimport functools\n\n\n",
    );
    for i in 0..units {
        match i % 4 {
            0 => {
                let _ = write!(
                    s,
                    r#"class Account{i}:
    """An account of ledger {i}."""

    def __init__(self, owner, entries=None):
        self.owner = owner
        self.entries = list(entries or [])

    def balance(self):
        total = 0
        for entry in self.entries:
            if entry < 0 and total + entry < -1000:
                return total
            total += entry
        return scale_{i}(total, 3)


"#
                );
            }
            1 => {
                let _ = write!(
                    s,
                    r#"def scale_{prev}(value, factor):
    return value * factor + {i}


def summarize_{i}(items, label):
    """Sums the positive items, counting the negative ones."""
    positive = 0
    negative = 0
    for item in items:
        if item > 0:
            positive += scale_{prev}(item, 2)
        elif item < 0:
            negative += 1
    if not label:
        print(f"unnamed report {i}: {{positive}}")
    return positive, negative


"#,
                    prev = i - 1
                );
            }
            2 => {
                let _ = write!(
                    s,
                    r#"@functools.lru_cache(maxsize=None)
def group_{i}(accounts):
    groups = collections.defaultdict(int)
    for owner, amount in accounts:
        groups[owner] += amount
    total, count = summarize_{prev}(list(groups.values()), "groups")
    names = [k.upper() for k in groups if not k.startswith("_")]
    try:
        first = names[0]
    except IndexError:
        first = None
    if len(names) > 3:
        groups[f"{{first}} and others"] = total
    return dict(groups)


"#,
                    prev = i - 1
                );
            }
            _ => {
                let _ = write!(
                    s,
                    r#"class Report{i}:
    def __init__(self, rows):
        self.rows = rows

    def __str__(self):
        lines = []
        for name, value in self.rows:
            lines.append(f"{{name:>12}} {{value:>8}}")
        grouped = group_{prev}(tuple(self.rows))
        lines.append(f"{{len(grouped)}} groups")
        return "\n".join(lines)


"#,
                    prev = i - 1
                );
            }
        }
    }
    s
}

/// The 1-based line of the first line of `text` that contains `needle`.
pub fn line_of(text: &str, needle: &str) -> usize {
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("`{needle}` is in the text"));
    text[..at].matches('\n').count() + 1
}

/// A generated project: its files (relative path, text) and the file the requests are about.
pub struct Project {
    pub files: Vec<(&'static str, String)>,
    pub main: &'static str,
    pub text: String,
    pub rust: bool,
    /// The unit the requests are about.
    pub middle: usize,
}

pub fn rust_project() -> Project {
    let text = rust_source(RUST_UNITS);
    Project {
        files: vec![
            (
                "Cargo.toml",
                "[package]\nname = \"ledger\"\nversion = \"0.1.0\"\nedition = \"2021\"\n".into(),
            ),
            ("src/lib.rs", text.clone()),
        ],
        main: "src/lib.rs",
        text,
        rust: true,
        middle: middle(RUST_UNITS),
    }
}

pub fn python_project() -> Project {
    let text = python_source(PYTHON_UNITS);
    Project {
        files: vec![
            ("pkg/__init__.py", String::new()),
            ("pkg/ledger.py", text.clone()),
        ],
        main: "pkg/ledger.py",
        text,
        rust: false,
        middle: middle(PYTHON_UNITS),
    }
}

impl Project {
    /// The arguments of each refactor (`candor call` JSON), all about the middle of the file.
    pub fn requests(&self) -> Vec<(&'static str, serde_json::Value)> {
        use serde_json::json;
        let m = self.middle;
        let path = self.main;
        // Extract: the loop that groups the entries in `group_{m+2}`.
        let group = m + 2;
        let (first, last) = if self.rust {
            let start = line_of(&self.text, &format!("pub fn group_{group}(")) + 2;
            (start, start + 3)
        } else {
            let start = line_of(&self.text, &format!("def group_{group}(")) + 2;
            (start, start + 1)
        };
        let moved = if self.rust {
            "src/moved.rs"
        } else {
            "pkg/moved.py"
        };
        let new_params = if self.rust {
            json!([{"name": "items", "type": "&[i64]"}, {"name": "label", "type": "&str"}, {"name": "limit", "type": "usize"}])
        } else {
            json!([{"name": "items"}, {"name": "label"}, {"name": "limit", "default": "None"}])
        };
        vec![
            (
                "refactor_extract_function",
                json!({"file_path": path, "start_line": first, "end_line": last, "new_name": "collect_groups"}),
            ),
            (
                "refactor_inline_function",
                json!({"file_path": path, "function_name": format!("scale_{m}")}),
            ),
            (
                "refactor_move_to_file",
                json!({"file_path": path, "symbol_name": format!("group_{group}"), "target_file": moved}),
            ),
            (
                "refactor_change_signature",
                json!({"file_path": path, "function_name": format!("summarize_{}", m + 1), "new_parameters": new_params}),
            ),
        ]
    }

    /// Writes the project under `dir`.
    pub fn write(&self, dir: &std::path::Path) {
        for (path, text) in &self.files {
            let full = dir.join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
    }
}
