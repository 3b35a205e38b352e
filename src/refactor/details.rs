//! The tool-specific fields of a plan, typed: what each refactor reports beside its changes and
//! findings (`new_function_name`, `call_sites_updated`...). The envelope adds them to `data` in
//! the order written here; none of them may take the name of an envelope field.

use serde::Serialize;
use serde_json::{Map, Value};

/// The fields one plan adds to the envelope's `data`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Details {
    #[default]
    None,
    Extract(ExtractDetails),
    Inline(InlineDetails),
    Move(MoveDetails),
    ChangeSignature(ChangeSignatureDetails),
    /// A language server's extract function.
    LspExtract(LspExtractDetails),
    /// A language server's inline function.
    LspInline(LspInlineDetails),
    /// rope's move to file.
    RopeMove(RopeMoveDetails),
    /// rope's change signature.
    RopeChangeSignature(RopeChangeSignatureDetails),
    /// A rename, by candor's engine or a language server.
    Rename(RenameDetails),
    ExtractVariable(ExtractVariableDetails),
    InlineVariable(InlineVariableDetails),
    SafeDelete(SafeDeleteDetails),
    IntroduceParameter(IntroduceParameterDetails),
}

impl Details {
    /// The fields as JSON, in order.
    pub fn to_map(&self) -> Map<String, Value> {
        match serde_json::to_value(self) {
            Ok(Value::Object(map)) => map,
            _ => Map::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtractDetails {
    pub new_function_name: String,
    /// `"10-14"`, 1-based.
    pub extracted_lines: String,
    /// The receiver of the new function as written (`&self`, `cls`), if it has one.
    pub receiver: Option<String>,
    /// The call written in place of the selection.
    pub call: String,
    pub new_function_line: usize,
    #[serde(rename = "async")]
    pub is_async: bool,
    /// The parameters after the receiver, as the new signature writes them.
    pub parameters: Vec<String>,
    /// The names the call assigns from the new function's result.
    pub returns: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ExtractVariableDetails {
    pub variable_name: String,
    /// The expression bound, its blanks collapsed.
    pub expression: String,
    /// 1-based line of the new binding.
    pub binding_line: usize,
    /// The selection and the identical occurrences replaced with it.
    pub occurrences_replaced: usize,
    /// Identical occurrences left as they were (a finding says why for each).
    pub occurrences_left: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InlineVariableDetails {
    pub variable_name: String,
    /// The initializer pasted at the reads, its blanks collapsed.
    pub initializer: String,
    /// 1-based line of the binding removed.
    pub binding_line: usize,
    pub reads_replaced: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InlineDetails {
    pub function_name: String,
    pub call_sites_updated: usize,
    pub call_sites_left: usize,
    pub definition_removed: bool,
    /// `"first-last"`, 1-based.
    pub definition_lines: String,
    pub files_changed: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveDetails {
    pub target_file: String,
    pub symbol: String,
    pub target_created: bool,
    pub import_added: Option<String>,
    /// Rust only: the `mod` declaration added for a new module (`null` when none was).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub module_declared: Option<Option<String>>,
    pub moved: Vec<MovedPiece>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MovedPiece {
    pub symbol: String,
    /// `"first-last"`, 1-based.
    pub lines: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeSignatureDetails {
    /// The old list on one line: `(a: i32, b: &str)`.
    pub old_params: String,
    pub new_params: String,
    pub call_sites_updated: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LspExtractDetails {
    pub new_function_name: String,
    pub extracted_lines: String,
    /// The title of the server's code action.
    pub lsp_action: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LspInlineDetails {
    pub function_name: String,
    pub lsp_action: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RopeMoveDetails {
    pub symbol_name: String,
    pub target_file: String,
    pub target_created: bool,
    /// The dotted module the symbol now lives in.
    pub target_module: String,
    /// Files other than the source and the target whose imports or calls rope rewrote.
    pub files_updated: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RopeChangeSignatureDetails {
    pub old_params: String,
    pub new_params: String,
    pub call_sites_updated: usize,
    /// rope's changers, in the order they were applied (`remove b`, `add c=None`...).
    pub rope_changers: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenameDetails {
    pub old_name: String,
    pub new_name: String,
    /// What was renamed ("function", "method", "struct", "field", "local variable"...).
    pub symbol_kind: String,
    /// `path:line` of the definition.
    pub definition: String,
    /// How many occurrences were rewritten (the definition included).
    pub references_renamed: usize,
    /// `path:line:column` of each possible reference left unchanged.
    pub possible_references: Vec<String>,
    pub files_changed: Vec<String>,
    /// Where the references came from (candor's engine, checked against a server, a server).
    pub references_from: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SafeDeleteDetails {
    pub symbol_name: String,
    /// What was deleted ("function", "method", "struct", "constant"...).
    pub symbol_kind: String,
    /// `path:first-last` of the lines removed with the definition (its docs and attributes).
    pub definition_lines: String,
    /// `path:line` of each import, re-export or `__all__` entry of it that went with it.
    pub imports_removed: Vec<String>,
    pub files_changed: Vec<String>,
    /// Where the references came from (candor's engine, checked against a server).
    pub references_from: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IntroduceParameterDetails {
    /// The function that takes the new parameter (`Type/method`).
    pub function_name: String,
    /// The new parameter as written in the list (`limit: i32`).
    pub new_parameter: String,
    /// The expression it replaces, as written.
    pub expression: String,
    /// How many occurrences of the expression in the function became the parameter.
    pub occurrences_replaced: usize,
    pub call_sites_updated: usize,
}

impl Details {
    /// The new parameter list as written, when this is a change of signature.
    pub fn new_params(&self) -> Option<&str> {
        match self {
            Details::ChangeSignature(d) => Some(&d.new_params),
            Details::RopeChangeSignature(d) => Some(&d.new_params),
            _ => None,
        }
    }

    /// The old parameter list as written, when this is a change of signature.
    pub fn old_params(&self) -> Option<&str> {
        match self {
            Details::ChangeSignature(d) => Some(&d.old_params),
            Details::RopeChangeSignature(d) => Some(&d.old_params),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The fields `api::envelope` writes itself: a detail of the same name would be lost.
    const ENVELOPE_FIELDS: &[&str] = &[
        "operation",
        "file_path",
        "dry_run",
        "applied",
        "tree_sitter_caveats",
        "degraded_reason",
        "fallback_reason",
        "lsp_server",
        "unknown_args",
        "findings",
        "changes",
        "transaction_id",
        "recovered_transactions",
    ];

    fn every_kind() -> Vec<Details> {
        vec![
            Details::Extract(ExtractDetails {
                new_function_name: "f".into(),
                extracted_lines: "1-2".into(),
                receiver: None,
                call: "f()".into(),
                new_function_line: 4,
                is_async: false,
                parameters: vec!["total".into()],
                returns: vec!["count".into()],
            }),
            Details::Inline(InlineDetails {
                function_name: "f".into(),
                call_sites_updated: 1,
                call_sites_left: 0,
                definition_removed: true,
                definition_lines: "1-2".into(),
                files_changed: vec!["a.py".into()],
            }),
            Details::Move(MoveDetails {
                target_file: "b.rs".into(),
                symbol: "f".into(),
                target_created: true,
                import_added: None,
                module_declared: Some(None),
                moved: vec![MovedPiece {
                    symbol: "f".into(),
                    lines: "1-2".into(),
                }],
            }),
            Details::ChangeSignature(ChangeSignatureDetails {
                old_params: "(a)".into(),
                new_params: "(a, b)".into(),
                call_sites_updated: 2,
            }),
            Details::LspExtract(LspExtractDetails {
                new_function_name: "f".into(),
                extracted_lines: "1-2".into(),
                lsp_action: "Extract".into(),
            }),
            Details::LspInline(LspInlineDetails {
                function_name: "f".into(),
                lsp_action: "Inline".into(),
            }),
            Details::Rename(RenameDetails {
                old_name: "f".into(),
                new_name: "g".into(),
                symbol_kind: "function".into(),
                definition: "a.py:1".into(),
                references_renamed: 2,
                possible_references: vec!["b.py:3:5".into()],
                files_changed: vec!["a.py".into()],
                references_from: "candor's references engine (tree-sitter)".into(),
            }),
            Details::ExtractVariable(ExtractVariableDetails {
                variable_name: "v".into(),
                expression: "a * b".into(),
                binding_line: 3,
                occurrences_replaced: 2,
                occurrences_left: 1,
            }),
            Details::InlineVariable(InlineVariableDetails {
                variable_name: "v".into(),
                initializer: "a * b".into(),
                binding_line: 3,
                reads_replaced: 2,
            }),
            Details::SafeDelete(SafeDeleteDetails {
                symbol_name: "f".into(),
                symbol_kind: "function".into(),
                definition_lines: "a.py:1-2".into(),
                imports_removed: vec!["b.py:1".into()],
                files_changed: vec!["a.py".into()],
                references_from: "candor's references engine (tree-sitter)".into(),
            }),
            Details::IntroduceParameter(IntroduceParameterDetails {
                function_name: "f".into(),
                new_parameter: "limit".into(),
                expression: "10".into(),
                occurrences_replaced: 1,
                call_sites_updated: 2,
            }),
        ]
    }

    #[test]
    fn no_detail_takes_the_name_of_an_envelope_field() {
        for details in every_kind() {
            let map = details.to_map();
            assert!(!map.is_empty(), "{details:?}");
            for key in map.keys() {
                assert!(
                    !ENVELOPE_FIELDS.contains(&key.as_str()),
                    "{key} in {details:?}"
                );
            }
        }
        assert!(Details::None.to_map().is_empty());
    }

    #[test]
    fn fields_keep_their_names_order_and_nulls() {
        let extract = every_kind().remove(0).to_map();
        let keys: Vec<&str> = extract.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "new_function_name",
                "extracted_lines",
                "receiver",
                "call",
                "new_function_line",
                "async",
                "parameters",
                "returns"
            ]
        );
        assert!(extract["receiver"].is_null());
        let moved = every_kind().remove(2).to_map();
        assert!(moved["module_declared"].is_null());
        let python_move = Details::Move(MoveDetails {
            target_file: "b.py".into(),
            symbol: "f".into(),
            target_created: false,
            import_added: Some("from b import f".into()),
            module_declared: None,
            moved: Vec::new(),
        })
        .to_map();
        assert!(!python_move.contains_key("module_declared"));
        assert_eq!(python_move["import_added"], "from b import f");
    }
}
