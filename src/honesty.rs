//! The honesty contract of `../shared/seed/refactor-backend-honesty.txt`: the seven tools, their
//! canonical tree-sitter caveats, the degraded reason and the confidence table. Agents match on
//! these strings byte for byte; change them only together with the policy.

use serde::Serialize;

/// What a heuristic (tree-sitter) response says about itself, at envelope level and in `data`.
pub const DEGRADED_REASON: &str = "tree-sitter heuristic — no semantic analysis";

/// The seven refactor tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Tool {
    ExtractFunction,
    InlineFunction,
    MoveToFile,
    ChangeSignature,
    RenameSymbol,
    ExtractVariable,
    InlineVariable,
    SafeDelete,
    IntroduceParameter,
}

impl Tool {
    pub const ALL: [Tool; 9] = [
        Tool::ExtractFunction,
        Tool::InlineFunction,
        Tool::MoveToFile,
        Tool::ChangeSignature,
        Tool::RenameSymbol,
        Tool::ExtractVariable,
        Tool::InlineVariable,
        Tool::SafeDelete,
        Tool::IntroduceParameter,
    ];

    /// The tool name of the JSON and MCP interfaces.
    pub fn name(self) -> &'static str {
        match self {
            Tool::ExtractFunction => "refactor_extract_function",
            Tool::InlineFunction => "refactor_inline_function",
            Tool::MoveToFile => "refactor_move_to_file",
            Tool::ChangeSignature => "refactor_change_signature",
            Tool::RenameSymbol => "refactor_rename_symbol",
            Tool::ExtractVariable => "refactor_extract_variable",
            Tool::InlineVariable => "refactor_inline_variable",
            Tool::SafeDelete => "refactor_safe_delete",
            Tool::IntroduceParameter => "refactor_introduce_parameter",
        }
    }

    /// `data.operation` of the envelope.
    pub fn operation(self) -> &'static str {
        match self {
            Tool::ExtractFunction => "extract_function",
            Tool::InlineFunction => "inline_function",
            Tool::MoveToFile => "move_to_file",
            Tool::ChangeSignature => "change_signature",
            Tool::RenameSymbol => "rename_symbol",
            Tool::ExtractVariable => "extract_variable",
            Tool::InlineVariable => "inline_variable",
            Tool::SafeDelete => "safe_delete",
            Tool::IntroduceParameter => "introduce_parameter",
        }
    }

    /// Whether it searches the project's other files for the name it works on (then the
    /// persistent index is worth loading as soon as the request starts).
    pub fn searches_project(self) -> bool {
        match self {
            Tool::ExtractFunction | Tool::ExtractVariable | Tool::InlineVariable => false,
            Tool::InlineFunction
            | Tool::MoveToFile
            | Tool::ChangeSignature
            | Tool::RenameSymbol
            | Tool::SafeDelete
            | Tool::IntroduceParameter => true,
        }
    }

    /// A human label ("extract function").
    pub fn label(self) -> &'static str {
        match self {
            Tool::ExtractFunction => "extract function",
            Tool::InlineFunction => "inline function",
            Tool::MoveToFile => "move to file",
            Tool::ChangeSignature => "change signature",
            Tool::RenameSymbol => "rename symbol",
            Tool::ExtractVariable => "extract variable",
            Tool::InlineVariable => "inline variable",
            Tool::SafeDelete => "safe delete",
            Tool::IntroduceParameter => "introduce parameter",
        }
    }

    pub fn from_name(name: &str) -> Option<Tool> {
        Tool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The canonical caveats of the tree-sitter heuristic for this tool, verbatim from the seed.
    pub fn caveats(self) -> &'static [&'static str] {
        match self {
            Tool::ExtractFunction => &[
                "captured local variables not detected — caller must verify",
                "indentation inferred from first line only",
                "no scope analysis — extracted code may reference unavailable bindings",
                "no return-value inference — function returns nothing",
            ],
            Tool::InlineFunction => &[
                "no scope analysis — inlined code may shadow caller-side bindings",
                "no argument-substitution — call-site arguments left as-is",
                "definition removal heuristic; trailing comments may be stranded",
            ],
            Tool::MoveToFile => &[
                "import dependencies not auto-resolved at target file",
                "no cross-file reference rewrite for callers in third files",
                "name-collision at target file not detected",
            ],
            Tool::ChangeSignature => &[
                "no call-site argument re-ordering or default insertion",
                "no type-checker validation of new parameter types",
                "callers in non-source files (e.g. tests) may need manual updates",
            ],
            Tool::RenameSymbol => &[
                "references resolved by name, imports and evident types only — no type inference",
                "possible references (unknown receiver type, star import, macro, string) are listed, not renamed",
                "occurrences in non-source files, docs and comments are not renamed",
            ],
            Tool::ExtractVariable => &[
                "occurrences matched as text — no check that they denote the same value",
                "effects judged by syntax only — every call assumed to have effects",
                "no type inference — the new local's borrow, move or mutability not checked",
            ],
            Tool::InlineVariable => &[
                "no alias analysis — mutation through another reference not detected",
                "effects judged by syntax only — every call assumed to have effects",
                "no type inference — a type written on the binding is dropped at the reads",
            ],
            Tool::SafeDelete => &[
                "references resolved by name, imports and evident types only — no type inference",
                "dynamic uses (getattr, strings, reflection) are listed as warnings, never proven absent",
                "uses in non-source files, docs and comments are not checked",
            ],
            Tool::IntroduceParameter => &[
                "no type inference — a Rust parameter's type comes from a literal or a written annotation only",
                "no side-effect analysis — the expression now runs at each call site, once per call",
                "callers in non-source files (e.g. tests) may need manual updates",
            ],
        }
    }

    /// Confidence of a result from the tree-sitter heuristic.
    pub fn heuristic_confidence(self) -> f64 {
        match self {
            Tool::ExtractFunction => 0.65,
            Tool::ExtractVariable | Tool::InlineVariable => 0.70,
            _ => 0.60,
        }
    }

    /// Confidence of a result from a language server (the seed's "pre-honesty" values).
    pub fn semantic_confidence(self) -> f64 {
        match self {
            Tool::ExtractFunction => 0.90,
            _ => 0.85,
        }
    }
}

/// One canonical caveat of one tool, typed, so a note can only be tied to a caveat that exists.
/// Its text is the tool's [`Tool::caveats`] entry (one place for the strings).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Caveat {
    /// "captured local variables not detected — caller must verify"
    ExtractCapturedLocals,
    /// "indentation inferred from first line only"
    ExtractIndentation,
    /// "no scope analysis — extracted code may reference unavailable bindings"
    ExtractScope,
    /// "no return-value inference — function returns nothing"
    ExtractReturnValue,
    /// "no scope analysis — inlined code may shadow caller-side bindings"
    InlineShadowing,
    /// "no argument-substitution — call-site arguments left as-is"
    InlineArguments,
    /// "definition removal heuristic; trailing comments may be stranded"
    InlineDefinitionRemoval,
    /// "import dependencies not auto-resolved at target file"
    MoveImports,
    /// "no cross-file reference rewrite for callers in third files"
    MoveThirdFiles,
    /// "name-collision at target file not detected"
    MoveNameCollision,
    /// "no call-site argument re-ordering or default insertion"
    SignatureArguments,
    /// "no type-checker validation of new parameter types"
    SignatureTypes,
    /// "callers in non-source files (e.g. tests) may need manual updates"
    SignatureOtherCallers,
    /// "references resolved by name, imports and evident types only — no type inference"
    RenameResolution,
    /// "possible references (unknown receiver type, star import, macro, string) are listed, not renamed"
    RenamePossible,
    /// "occurrences in non-source files, docs and comments are not renamed"
    RenameNonSource,
    /// "occurrences matched as text — no check that they denote the same value"
    ExtractVariableOccurrences,
    /// "effects judged by syntax only — every call assumed to have effects"
    ExtractVariableEffects,
    /// "no type inference — the new local's borrow, move or mutability not checked"
    ExtractVariableTypes,
    /// "no alias analysis — mutation through another reference not detected"
    InlineVariableAliasing,
    /// "effects judged by syntax only — every call assumed to have effects"
    InlineVariableEffects,
    /// "no type inference — a type written on the binding is dropped at the reads"
    InlineVariableTypes,
    /// "references resolved by name, imports and evident types only — no type inference"
    SafeDeleteResolution,
    /// "dynamic uses (getattr, strings, reflection) are listed as warnings, never proven absent"
    SafeDeleteDynamic,
    /// "uses in non-source files, docs and comments are not checked"
    SafeDeleteNonSource,
    /// "no type inference — a Rust parameter's type comes from a literal or a written annotation only"
    IntroduceParameterTypes,
    /// "no side-effect analysis — the expression now runs at each call site, once per call"
    IntroduceParameterEffects,
    /// "callers in non-source files (e.g. tests) may need manual updates"
    IntroduceParameterOtherCallers,
}

impl Caveat {
    pub const ALL: [Caveat; 28] = [
        Caveat::ExtractCapturedLocals,
        Caveat::ExtractIndentation,
        Caveat::ExtractScope,
        Caveat::ExtractReturnValue,
        Caveat::InlineShadowing,
        Caveat::InlineArguments,
        Caveat::InlineDefinitionRemoval,
        Caveat::MoveImports,
        Caveat::MoveThirdFiles,
        Caveat::MoveNameCollision,
        Caveat::SignatureArguments,
        Caveat::SignatureTypes,
        Caveat::SignatureOtherCallers,
        Caveat::RenameResolution,
        Caveat::RenamePossible,
        Caveat::RenameNonSource,
        Caveat::ExtractVariableOccurrences,
        Caveat::ExtractVariableEffects,
        Caveat::ExtractVariableTypes,
        Caveat::InlineVariableAliasing,
        Caveat::InlineVariableEffects,
        Caveat::InlineVariableTypes,
        Caveat::SafeDeleteResolution,
        Caveat::SafeDeleteDynamic,
        Caveat::SafeDeleteNonSource,
        Caveat::IntroduceParameterTypes,
        Caveat::IntroduceParameterEffects,
        Caveat::IntroduceParameterOtherCallers,
    ];

    /// The tool whose caveat this is, and its place in that tool's list.
    fn place(self) -> (Tool, usize) {
        match self {
            Caveat::ExtractCapturedLocals => (Tool::ExtractFunction, 0),
            Caveat::ExtractIndentation => (Tool::ExtractFunction, 1),
            Caveat::ExtractScope => (Tool::ExtractFunction, 2),
            Caveat::ExtractReturnValue => (Tool::ExtractFunction, 3),
            Caveat::InlineShadowing => (Tool::InlineFunction, 0),
            Caveat::InlineArguments => (Tool::InlineFunction, 1),
            Caveat::InlineDefinitionRemoval => (Tool::InlineFunction, 2),
            Caveat::MoveImports => (Tool::MoveToFile, 0),
            Caveat::MoveThirdFiles => (Tool::MoveToFile, 1),
            Caveat::MoveNameCollision => (Tool::MoveToFile, 2),
            Caveat::SignatureArguments => (Tool::ChangeSignature, 0),
            Caveat::SignatureTypes => (Tool::ChangeSignature, 1),
            Caveat::SignatureOtherCallers => (Tool::ChangeSignature, 2),
            Caveat::RenameResolution => (Tool::RenameSymbol, 0),
            Caveat::RenamePossible => (Tool::RenameSymbol, 1),
            Caveat::RenameNonSource => (Tool::RenameSymbol, 2),
            Caveat::ExtractVariableOccurrences => (Tool::ExtractVariable, 0),
            Caveat::ExtractVariableEffects => (Tool::ExtractVariable, 1),
            Caveat::ExtractVariableTypes => (Tool::ExtractVariable, 2),
            Caveat::InlineVariableAliasing => (Tool::InlineVariable, 0),
            Caveat::InlineVariableEffects => (Tool::InlineVariable, 1),
            Caveat::InlineVariableTypes => (Tool::InlineVariable, 2),
            Caveat::SafeDeleteResolution => (Tool::SafeDelete, 0),
            Caveat::SafeDeleteDynamic => (Tool::SafeDelete, 1),
            Caveat::SafeDeleteNonSource => (Tool::SafeDelete, 2),
            Caveat::IntroduceParameterTypes => (Tool::IntroduceParameter, 0),
            Caveat::IntroduceParameterEffects => (Tool::IntroduceParameter, 1),
            Caveat::IntroduceParameterOtherCallers => (Tool::IntroduceParameter, 2),
        }
    }

    pub fn tool(self) -> Tool {
        self.place().0
    }

    /// The canonical text, verbatim.
    pub fn text(self) -> &'static str {
        let (tool, index) = self.place();
        tool.caveats()[index]
    }
}

/// What candor's own analysis did, in this very result, about one canonical caveat
/// (`data.caveat_notes`: `{caveat, note}`). The caveat stays in `tree_sitter_caveats`, verbatim;
/// the note says where it no longer bites ("arguments bound to parameters with `let`").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaveatNote {
    pub caveat: Caveat,
    pub note: String,
}

impl CaveatNote {
    pub fn new(caveat: Caveat, note: impl Into<String>) -> CaveatNote {
        CaveatNote {
            caveat,
            note: note.into(),
        }
    }
}

impl Serialize for CaveatNote {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = serializer.serialize_struct("CaveatNote", 2)?;
        out.serialize_field("caveat", self.caveat.text())?;
        out.serialize_field("note", &self.note)?;
        out.end()
    }
}

/// Which path produced a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// A language server did the refactor.
    Lsp,
    /// Our tree-sitter heuristic did.
    Hybrid,
}

impl BackendKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Lsp => "lsp",
            BackendKind::Hybrid => "hybrid",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn degraded_reason_has_its_em_dash() {
        assert!(DEGRADED_REASON.contains('\u{2014}'));
        assert_eq!(
            DEGRADED_REASON.len(),
            "tree-sitter heuristic  no semantic analysis".len() + 3
        );
    }

    #[test]
    fn confidence_table_matches_the_seed() {
        let table: Vec<(&str, f64, f64)> = Tool::ALL
            .iter()
            .map(|t| (t.name(), t.semantic_confidence(), t.heuristic_confidence()))
            .collect();
        assert_eq!(
            table,
            vec![
                ("refactor_extract_function", 0.90, 0.65),
                ("refactor_inline_function", 0.85, 0.60),
                ("refactor_move_to_file", 0.85, 0.60),
                ("refactor_change_signature", 0.85, 0.60),
                ("refactor_rename_symbol", 0.85, 0.60),
                ("refactor_extract_variable", 0.85, 0.70),
                ("refactor_inline_variable", 0.85, 0.70),
                ("refactor_safe_delete", 0.85, 0.60),
                ("refactor_introduce_parameter", 0.85, 0.60),
            ]
        );
        for tool in Tool::ALL {
            assert_eq!(Tool::from_name(tool.name()), Some(tool));
            assert!(!tool.caveats().is_empty());
        }
    }

    #[test]
    fn every_canonical_caveat_is_one_typed_caveat() {
        for tool in Tool::ALL {
            let typed: Vec<&str> = Caveat::ALL
                .iter()
                .filter(|c| c.tool() == tool)
                .map(|c| c.text())
                .collect();
            assert_eq!(typed, tool.caveats(), "{tool:?}");
        }
        let note = CaveatNote::new(Caveat::InlineArguments, "arguments bound with `let`");
        assert_eq!(
            serde_json::to_value(&note).unwrap(),
            serde_json::json!({
                "caveat": "no argument-substitution — call-site arguments left as-is",
                "note": "arguments bound with `let`"
            })
        );
    }
}
