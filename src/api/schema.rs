//! JSON Schemas and descriptions of the five tools, as `tools/list` (MCP) and `candor call`
//! without a tool show them. Extra keys are allowed (they come back in `data.unknown_args`).

use serde_json::{Value, json};

use crate::honesty::{DEGRADED_REASON, Tool};

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
    };
    format!(
        "{what} dry_run defaults to true: you get a diff per file with sha256_before/after and data.plan_id, and nothing is written; pass dry_run=false with plan_id (and optionally expected_sha256) from the preview to write exactly that plan atomically — if the plan computed now differs, nothing is written and stale_file says what changed. \
Honesty surfaces: backend_used is \"lsp\" when a language server did the work (confidence {lsp:.2}) or \"hybrid\" for the tree-sitter heuristic (confidence {heur:.2}), which also sets degraded_reason = \"{DEGRADED_REASON}\" and lists the canonical tree_sitter_caveats; data.findings are concrete located warnings for this edit (severity info/warning/error) — read them before applying. data.verification says whether the result was compiled or type-checked: state \"skipped\" until you pass verify: true, then \"clean\", \"introduced\" (its introduced list holds the new diagnostics, which are also error findings), \"unavailable\" (reason says why) or \"timeout\". Unknown argument keys are reported in data.unknown_args.",
        lsp = tool.semantic_confidence(),
        heur = tool.heuristic_confidence(),
    )
}

/// The input schema of `tool`.
pub fn input_schema(tool: Tool) -> Value {
    let mut properties = serde_json::Map::new();
    let mut put = |name: &str, schema: Value| {
        properties.insert(name.to_string(), schema);
    };
    put(
        "file_path",
        json!({"type": "string", "description": "File to refactor, relative to the project root (.rs, .py or .pyi)."}),
    );
    put(
        "path",
        json!({"type": "string", "description": "Alias of file_path."}),
    );
    let required: Vec<&str> = match tool {
        Tool::ExtractFunction => {
            put(
                "start_line",
                json!({"type": "integer", "minimum": 1, "description": "First line of the selection (1-based)."}),
            );
            put(
                "end_line",
                json!({"type": "integer", "minimum": 1, "description": "Last line of the selection (1-based, inclusive)."}),
            );
            put(
                "new_name",
                json!({"type": "string", "description": "Name of the new function; a valid identifier, not a keyword."}),
            );
            vec!["file_path", "start_line", "end_line", "new_name"]
        }
        Tool::InlineFunction => {
            put(
                "function_name",
                json!({"type": "string", "description": "Function to inline."}),
            );
            put(
                "name_path",
                json!({"type": "string", "description": "Disambiguating path such as Type/method."}),
            );
            vec!["file_path", "function_name"]
        }
        Tool::MoveToFile => {
            put(
                "symbol_name",
                json!({"type": "string", "description": "Top-level item to move."}),
            );
            put(
                "target_file",
                json!({"type": "string", "description": "Destination file relative to the project root; created when missing (its directory must exist)."}),
            );
            put(
                "name_path",
                json!({"type": "string", "description": "Disambiguating path."}),
            );
            vec!["file_path", "symbol_name", "target_file"]
        }
        Tool::ChangeSignature => {
            put(
                "function_name",
                json!({"type": "string", "description": "Function whose parameters change."}),
            );
            put(
                "name_path",
                json!({"type": "string", "description": "Disambiguating path such as Type/method."}),
            );
            put(
                "new_parameters",
                json!({
                    "type": "array",
                    "description": "The whole new parameter list, in order (a leading self/&self receiver is kept automatically).",
                    "items": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string"},
                            "type": {"type": "string"},
                            "default": {"type": "string"}
                        },
                        "required": ["name"],
                        "additionalProperties": false
                    }
                }),
            );
            vec!["file_path", "function_name", "new_parameters"]
        }
        Tool::RenameSymbol => {
            put(
                "symbol_name",
                json!({"type": "string", "description": "Symbol to rename; optional when line and column point at it."}),
            );
            put(
                "name_path",
                json!({"type": "string", "description": "Disambiguating path such as Type/method or function/variable."}),
            );
            put(
                "new_name",
                json!({"type": "string", "description": "The new name; a valid identifier, not a keyword."}),
            );
            put(
                "include_possible",
                json!({"type": "array", "items": {"type": "string"}, "description": "Possible references (path:line:column, as data.possible_references lists them) to rename too."}),
            );
            vec!["file_path", "new_name"]
        }
    };
    put(
        "dry_run",
        json!({"type": "boolean", "default": true, "description": "true (default): preview only. false: write the result as one transaction."}),
    );
    put(
        "semantic_edit_backend",
        json!({"type": "string", "enum": ["auto", "lsp", "tree-sitter"], "default": "auto", "description": "auto: language server where it can, heuristic otherwise (data.fallback_reason says why); lsp: language server or an error; tree-sitter: heuristic only."}),
    );
    put(
        "line",
        json!({"type": "integer", "minimum": 1, "description": "1-based line of the symbol, to disambiguate."}),
    );
    put(
        "column",
        json!({"type": "integer", "minimum": 1, "description": "1-based column of the symbol, to disambiguate."}),
    );
    put(
        "expected_sha256",
        json!({"type": "object", "additionalProperties": {"type": "string"}, "description": "path -> sha256 hex of the content you previewed; a mismatch is a stale_file error and nothing is written."}),
    );
    put(
        "plan_id",
        json!({"type": "string", "pattern": "^[0-9a-fA-F]{64}$", "description": "data.plan_id of the preview you apply: the write happens only if the plan computed now is exactly that one (else stale_file naming what differs)."}),
    );
    put(
        "allow_syntax_errors",
        json!({"type": "boolean", "default": false, "description": "Write even when the result no longer parses."}),
    );
    put(
        "verify",
        json!({"type": ["boolean", "string"], "enum": [true, false, "tests"], "default": false, "description": "Check the result with the project's own tools before answering (and before writing): true runs cargo check (Rust) or ruff, compile() and basedpyright (Python) on a shadow of the project, before and after, and reports in data.verification only what the refactor introduced; \"tests\" also runs the project's tests before and after and reports those that newly fail. Default false here (the project's .candor/config.toml [verify] default can change it). Rust needs a trusted project (`candor trust`): cargo check runs its build scripts."}),
    );
    put(
        "allow_introduced_errors",
        json!({"type": "boolean", "default": false, "description": "Write even when the check found new errors or newly failing tests (dry_run false with verify)."}),
    );
    put(
        "command",
        json!({"type": "string", "description": "Language server command to use for this call."}),
    );
    put(
        "args",
        json!({"type": "array", "items": {"type": "string"}, "description": "Arguments of `command`."}),
    );
    // `file_path` or its alias `path` is required; JSON Schema cannot say "one of" simply
    // without confusing clients, so the schema lists file_path and the server accepts either.
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": true,
    })
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
            "message": {"type": "string"}
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
            "code": {"type": "string", "description": "E0106, F821, reportCallIssue, SyntaxError; empty when the checker gives none"},
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
            "checker": {"type": ["string", "null"], "description": "e.g. \"cargo check\" or \"ruff + compile + basedpyright\"; null when none ran"},
            "state": {"type": "string", "enum": states},
            "introduced": {"type": "array", "items": diagnostic},
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
        "required": ["checker", "state", "introduced", "preexisting", "duration_ms"]
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
                        "description": "the findings counted per severity, and per kind (the message without the place it names), errors first, the most frequent first",
                        "properties": {
                            "error": {"type": "integer"},
                            "warning": {"type": "integer"},
                            "info": {"type": "integer"},
                            "by_kind": {"type": "array", "items": {
                                "type": "object",
                                "properties": {
                                    "severity": {"type": "string", "enum": ["info", "warning", "error"]},
                                    "kind": {"type": "string"},
                                    "count": {"type": "integer"}
                                },
                                "required": ["severity", "kind", "count"]
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
                    "param": {"type": "string"}
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
