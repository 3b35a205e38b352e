//! JSON Schemas and descriptions of the tools, as `tools/list` (MCP) and `candor call` without
//! a tool show them; the input schemas are drawn from the argument table (`arg.rs`). Extra
//! keys are allowed (they come back in `data.unknown_args`).

use serde_json::{Value, json};

use crate::honesty::{DEGRADED_REASON, Tool};

use super::arg::{self, Shape};

/// A description that explains what the tool does and how to read its honesty surfaces.
pub fn description(tool: Tool) -> String {
    let what = match tool {
        Tool::ExtractFunction => {
            "Extract function: moves whole statements (start_line..end_line, 1-based inclusive) of one block into a new function `new_name` and leaves a call in their place. A method's statements become a sibling method called through `self`."
        }
        Tool::InlineFunction => {
            "Inline function: replaces every call of `function_name` in the project with its body (arguments bound to the parameter names) and removes the definition."
        }
        Tool::MoveToFile => {
            "Move to file: moves the top-level item `symbol_name` (with its doc comments, attributes or decorators) to `target_file` (created if missing) and imports it back where the source file still uses it."
        }
        Tool::ChangeSignature => {
            "Change signature: gives `function_name` the whole parameter list `new_parameters` and rewrites its call sites positionally (no re-ordering; missing arguments get a placeholder)."
        }
        Tool::RenameSymbol => {
            "Rename symbol: renames `symbol_name` (a function, method, class/struct/enum/trait, field, local variable or parameter; or the name at `line`/`column`) to `new_name` at its definition and every reference. The heuristic rewrites the references it is certain of (resolved through imports, scopes, self and evident receiver types) and lists the possible ones as warnings (data.possible_references); pass some of those `path:line:column` in `include_possible` to rename them too. A new name that collides where the rename writes it is refused, saying where. Import aliases are kept."
        }
        Tool::ExtractVariable => {
            "Extract variable: binds the expression selected by start_line/start_column..end_line/end_column (1-based; end column just after the last character) to a new local `new_name`, declared just before the statement that holds it (Rust `let`), and puts the name in its place; with replace_all, identical expressions later in the same block whose value cannot have changed are replaced too (the findings list those left and why). Refuses a selection that is not exactly one expression and an expression whose evaluation would move across a short-circuit, a branch, a while condition, a comprehension, a closure or a default argument."
        }
        Tool::InlineVariable => {
            "Inline variable: the local at line/column (its binding or any read), bound once, is replaced at every read by its initializer (parenthesised where needed) and its binding is removed. Refuses a parameter, global or pattern binding, a reassigned or mutated local, an unused one (delete it), an initializer with effects that is not read exactly once right after it, and a name the initializer reads that may change before a read."
        }
        Tool::SafeDelete => {
            "Safe delete: removes `symbol_name` (a function, method, class/struct/enum/trait or module-level variable/constant; or the name at `line`/`column`) with its decorators, attributes and doc comments, its now-unused imports, its Python `__all__` entry and Rust `pub use` re-exports — only when the references engine finds no reference outside its own definition. Otherwise it refuses and lists every reference, certain and possible, as `path:line` (in the message and in the error's data.references). Dynamic uses it cannot see (getattr, strings naming it) are warnings."
        }
        Tool::IntroduceParameter => {
            "Introduce parameter: the expression from start_line:start_column to end_line:end_column (1-based; the end column is just after its last character) inside a function becomes the function's new last parameter `new_name` (Python: before *args, keyword-only parameters and **kwargs; Rust: typed from a literal or a written annotation, else refused); every identical occurrence of it in the function is replaced, and every certain call passes the expression with the callee's parameters replaced by the call's arguments (a method's `self.x` by the receiver's `.x`). An expression that reads the function's own locals is refused, naming them; possible calls are warnings."
        }
    };
    format!(
        "{what} dry_run defaults to true: you get a diff per file with sha256_before/after and data.plan_id, and nothing is written; pass dry_run=false with plan_id (and optionally expected_sha256) from the preview to write exactly that plan atomically — if the plan computed now differs, nothing is written and stale_file says what changed. \
Honesty surfaces: backend_used is \"lsp\" when a language server did the work (confidence {lsp:.2}) or \"hybrid\" for the tree-sitter heuristic (confidence {heur:.2}), which also sets degraded_reason = \"{DEGRADED_REASON}\" and lists the canonical tree_sitter_caveats; data.findings are concrete located warnings for this edit (severity info/warning/error) — read them before applying. data.verification says whether the result was compiled or type-checked: an apply (dry_run false) is checked unless you pass verify: false, a preview when you pass verify: true (else state \"skipped\"); then \"clean\" (new warnings, if any, in introduced_warnings), \"introduced\" (its introduced list holds the new errors, which are also error findings, and an apply with them is refused), \"unavailable\" (reason says why) or \"timeout\"; steps lists what the check did and how long each step took. Unknown argument keys are reported in data.unknown_args.",
        lsp = tool.semantic_confidence(),
        heur = tool.heuristic_confidence(),
    )
}

/// The input schema of `tool`: its rows of the argument table ([`arg::TABLE`]), in order.
pub fn input_schema(tool: Tool) -> Value {
    let properties: serde_json::Map<String, Value> = arg::rows(tool)
        .map(|row| (row.name.to_string(), property(row)))
        .collect();
    let required: Vec<&str> = arg::rows(tool)
        .filter(|row| row.required)
        .map(|row| row.name)
        .collect();
    // `file_path` or its alias `path` is required; JSON Schema cannot say "one of" simply
    // without confusing clients, so the schema lists file_path and the server accepts either.
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": true,
    })
}

/// The schema of one argument: its shape, then its description.
fn property(row: &arg::Row) -> Value {
    let mut schema = match row.shape {
        Shape::Text => json!({"type": "string"}),
        Shape::Line => json!({"type": "integer", "minimum": 1}),
        Shape::Flag { default } => json!({"type": "boolean", "default": default}),
        Shape::Word { words, default } => {
            json!({"type": "string", "enum": words, "default": default})
        }
        Shape::HashPerPath => {
            json!({"type": "object", "additionalProperties": {"type": "string"}})
        }
        Shape::PlanId => json!({"type": "string", "pattern": "^[0-9a-fA-F]{64}$"}),
        Shape::VerifyLevel => json!({
            "type": ["boolean", "string"],
            "enum": [true, false, "tests"],
            "default": false,
        }),
        Shape::Parameters => json!({"type": "array"}),
        Shape::TextList => json!({"type": "array", "items": {"type": "string"}}),
    };
    if let Value::Object(map) = &mut schema {
        map.insert("description".into(), json!(row.description));
        if row.shape == Shape::Parameters {
            let [name, ty, default] = arg::PARAMETER_KEYS;
            map.insert(
                "items".into(),
                json!({
                    "type": "object",
                    "properties": {
                        name: {"type": "string"},
                        ty: {"type": "string"},
                        default: {"type": "string"}
                    },
                    "required": [name],
                    "additionalProperties": false
                }),
            );
        }
    }
    schema
}

/// The JSON Schema of the envelope a tool returns (MCP `outputSchema`): the success envelope of
/// DESIGN.md §2 and the error envelope both validate, so a client that checks
/// `structuredContent` accepts every answer. Tool-specific fields of `data` are allowed.
pub fn output_schema() -> Value {
    let finding = json!({
        "type": "object",
        "properties": {
            "file": {"type": "string"},
            "line": {"type": "integer", "minimum": 1},
            "severity": {"type": "string", "enum": ["info", "warning", "error"]},
            "message": {"type": "string"},
            "kind": {"type": "string", "description": "a stable key for what the finding is about (inline.call_inlined, cross.return_in_block), the same whatever places its message names"}
        },
        "required": ["file", "line", "severity", "message"]
    });
    let change = json!({
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "created": {"type": "boolean"},
            "sha256_before": {"type": ["string", "null"], "description": "null for a file the refactor creates"},
            "sha256_after": {"type": "string"},
            "diff": {"type": "string", "description": "unified diff"}
        },
        "required": ["path", "created", "sha256_before", "sha256_after", "diff"]
    });
    let strings = json!({"type": "array", "items": {"type": "string"}});
    let diagnostic = json!({
        "type": "object",
        "properties": {
            "file": {"type": "string"},
            "line": {"type": "integer", "minimum": 1},
            "severity": {"type": "string", "enum": ["warning", "error"]},
            "code": {"type": "string", "description": "E0106, F821, bad-argument-count, reportCallIssue, SyntaxError; empty when the checker gives none"},
            "message": {"type": "string"},
            "source": {"type": "string", "description": "the checker that reported it"}
        },
        "required": ["file", "line", "severity", "code", "message"]
    });
    let states = json!(["clean", "introduced", "unavailable", "timeout", "skipped"]);
    let verification = json!({
        "type": "object",
        "description": "The check of the result with the project's own tools (verify argument): what the refactor introduced, apart from what was already there.",
        "properties": {
            "checker": {"type": ["string", "null"], "description": "e.g. \"cargo check\" or \"ruff + compile + pyrefly\"; null when none ran"},
            "state": {"type": "string", "enum": states},
            "introduced": {"type": "array", "items": diagnostic, "description": "the errors the refactor introduced"},
            "introduced_warnings": {"type": "array", "items": diagnostic, "description": "the warnings the refactor introduced (they leave the state clean)"},
            "steps": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "duration_ms": {"type": "integer", "minimum": 0}}, "required": ["name", "duration_ms"]}, "description": "what the check did, in order, and how long each step took"},
            "notes": strings,
            "preexisting": {"type": "integer", "minimum": 0, "description": "diagnostics that were there before the refactor and still are"},
            "duration_ms": {"type": "integer", "minimum": 0},
            "reason": {"type": "string", "description": "why the state is unavailable, timeout or skipped"},
            "not_run": strings,
            "tests": {
                "type": "object",
                "properties": {
                    "runner": {"type": ["string", "null"]},
                    "state": {"type": "string", "enum": states},
                    "failing": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "file": {"type": "string"}, "line": {"type": "integer"}, "message": {"type": "string"}}, "required": ["name", "message"]}},
                    "passed_before": {"type": "integer", "minimum": 0},
                    "duration_ms": {"type": "integer", "minimum": 0},
                    "reason": {"type": "string"}
                },
                "required": ["state", "failing", "passed_before", "duration_ms"]
            }
        },
        "required": ["checker", "state", "introduced", "introduced_warnings", "preexisting", "duration_ms", "steps"]
    });
    json!({
        "type": "object",
        "properties": {
            "success": {"type": "boolean"},
            "tool": {"type": "string"},
            "backend_used": {"type": "string", "enum": ["lsp", "hybrid"], "description": "lsp: a semantic backend (a language server, or rope) did the work; hybrid: the tree-sitter heuristic did"},
            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
            "degraded_reason": {"type": ["string", "null"], "description": format!("\"{DEGRADED_REASON}\" on the heuristic path, null otherwise")},
            "data": {
                "type": "object",
                "properties": {
                    "operation": {"type": "string"},
                    "file_path": {"type": "string"},
                    "dry_run": {"type": "boolean"},
                    "applied": {"type": "boolean"},
                    "tree_sitter_caveats": strings,
                    "degraded_reason": {"type": "string"},
                    "fallback_reason": {"type": "string"},
                    "semantic_backend": {"type": "object", "properties": {"name": {"type": "string"}, "version": {"type": "string"}}, "required": ["name"], "description": "the semantic engine that did the work: a language server, or rope (Python move to file and change signature)"},
                    "unknown_args": strings,
                    "findings": {"type": "array", "items": finding},
                    "finding_counts": {
                        "type": "object",
                        "description": "the findings counted per severity, and per kind (the finding's kind, else its message without the place it names), errors first, the most frequent first",
                        "properties": {
                            "error": {"type": "integer"},
                            "warning": {"type": "integer"},
                            "info": {"type": "integer"},
                            "by_kind": {"type": "array", "items": {
                                "type": "object",
                                "properties": {
                                    "severity": {"type": "string", "enum": ["info", "warning", "error"]},
                                    "kind": {"type": "string"},
                                    "message": {"type": "string", "description": "the first finding's message without the places it names"},
                                    "count": {"type": "integer"}
                                },
                                "required": ["severity", "kind", "message", "count"]
                            }}
                        },
                        "required": ["error", "warning", "info", "by_kind"]
                    },
                    "changes": {"type": "array", "items": change},
                    "plan_id": {"type": "string", "description": "sha256 of exactly what the plan writes; pass it back with dry_run false"},
                    "recovered": {"type": "array", "description": "interrupted earlier writes rolled back before this result (transaction, what, restored, not_restored)"},
                    "transaction_id": {"type": "string"},
                    "verification": verification
                },
                "required": ["operation", "file_path", "dry_run", "applied", "findings", "changes"],
                "additionalProperties": true
            },
            "error": {
                "type": "object",
                "properties": {
                    "code": {"type": "string", "description": "missing_param, invalid_argument, invalid_range, not_found, ambiguous_symbol, unsupported_language, unsupported_operation, stale_file, outside_root, io or lsp"},
                    "message": {"type": "string"},
                    "param": {"type": "string"},
                    "data": {"type": "object", "description": "facts behind a refusal: a refused safe delete lists every reference as path:line in references", "properties": {"references": strings}}
                },
                "required": ["code", "message"]
            }
        },
        "required": ["success", "tool"],
        "if": {"properties": {"success": {"const": true}}},
        "then": {"required": ["backend_used", "confidence", "degraded_reason", "data"]},
        "else": {"required": ["error"]}
    })
}
