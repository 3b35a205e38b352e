//! Every argument of the tools, in one table: its name, the tools that take it, whether they
//! require it, the shape of its value and what it is for. `args.rs` parses by these names and
//! reports the others in `unknown_args`, `schema.rs` builds each tool's input schema (MCP
//! `tools/list`) from the rows, and the TUI, which builds typed requests, words the engine's
//! messages about an argument with the name from here. No argument name is spelled anywhere
//! else in the shell.
//!
//! Adding a tool is adding rows: one per argument it takes (the arguments every tool takes,
//! [`Takers::Every`], it gets without a row). An argument that means something else for the new
//! tool gets its own row with its own description (`function_name` has two).

use crate::honesty::Tool;

pub const FILE_PATH: &str = "file_path";
/// The alias of [`FILE_PATH`].
pub const PATH: &str = "path";
pub const START_LINE: &str = "start_line";
pub const END_LINE: &str = "end_line";
pub const START_COLUMN: &str = "start_column";
pub const END_COLUMN: &str = "end_column";
pub const REPLACE_ALL: &str = "replace_all";
pub const NEW_NAME: &str = "new_name";
pub const FUNCTION_NAME: &str = "function_name";
pub const SYMBOL_NAME: &str = "symbol_name";
pub const TARGET_FILE: &str = "target_file";
pub const NAME_PATH: &str = "name_path";
pub const NEW_PARAMETERS: &str = "new_parameters";
pub const INCLUDE_POSSIBLE: &str = "include_possible";
pub const DRY_RUN: &str = "dry_run";
pub const SEMANTIC_EDIT_BACKEND: &str = "semantic_edit_backend";
pub const LINE: &str = "line";
pub const COLUMN: &str = "column";
pub const EXPECTED_SHA256: &str = "expected_sha256";
pub const PLAN_ID: &str = "plan_id";
pub const EXCLUDE_SITES: &str = "exclude_sites";
pub const INCLUDE_SITES: &str = "include_sites";
pub const ALLOW_SYNTAX_ERRORS: &str = "allow_syntax_errors";
pub const VERIFY: &str = "verify";
pub const ALLOW_INTRODUCED_ERRORS: &str = "allow_introduced_errors";
pub const COMMAND: &str = "command";
pub const ARGS: &str = "args";

/// The keys of one item of [`NEW_PARAMETERS`].
pub const PARAMETER_KEYS: [&str; 3] = ["name", "type", "default"];

/// Which tools take an argument.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Takers {
    /// Every tool, present and future.
    Every,
    Only(&'static [Tool]),
    /// Every tool but these (which have a row of their own for it).
    AllBut(&'static [Tool]),
}

impl Takers {
    pub fn include(self, tool: Tool) -> bool {
        match self {
            Takers::Every => true,
            Takers::Only(tools) => tools.contains(&tool),
            Takers::AllBut(tools) => !tools.contains(&tool),
        }
    }
}

/// The JSON shape of an argument's value, as the input schema states it. The parser is more
/// lenient than the schema where agents are known to err harmlessly ("3" for 3, `"true"` for
/// true, the parameter list as a JSON string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    Text,
    /// A 1-based line or column.
    Line,
    Flag {
        default: bool,
    },
    /// One of these words, `default` when absent.
    Word {
        words: &'static [&'static str],
        default: &'static str,
    },
    /// `path -> sha256 hex` ([`EXPECTED_SHA256`]).
    HashPerPath,
    /// 64 hex digits ([`PLAN_ID`]).
    PlanId,
    /// true, false or "tests" ([`VERIFY`]).
    VerifyLevel,
    /// The whole new parameter list, items with [`PARAMETER_KEYS`] ([`NEW_PARAMETERS`]).
    Parameters,
    TextList,
}

/// One argument of some tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub name: &'static str,
    pub takers: Takers,
    /// The tools of this row must be given it (`file_path` is satisfied by its alias `path`).
    pub required: bool,
    pub shape: Shape,
    /// For the schema, which agents read.
    pub description: &'static str,
}

use Tool::{
    ChangeSignature, ExtractFunction, ExtractVariable, InlineFunction, InlineVariable,
    IntroduceParameter, MoveToFile, RenameSymbol, SafeDelete,
};

const fn own(
    name: &'static str,
    tools: &'static [Tool],
    required: bool,
    shape: Shape,
    description: &'static str,
) -> Row {
    Row {
        name,
        takers: Takers::Only(tools),
        required,
        shape,
        description,
    }
}

const fn every(name: &'static str, shape: Shape, description: &'static str) -> Row {
    Row {
        name,
        takers: Takers::Every,
        required: false,
        shape,
        description,
    }
}

/// The arguments, in the order the schemas list them: the file, each tool's own, then the
/// arguments of every call.
pub const TABLE: &[Row] = &[
    Row {
        name: FILE_PATH,
        takers: Takers::Every,
        required: true,
        shape: Shape::Text,
        description: "File to refactor, relative to the project root (.rs, .py or .pyi).",
    },
    every(PATH, Shape::Text, "Alias of file_path."),
    // extract function
    own(
        START_LINE,
        &[ExtractFunction],
        true,
        Shape::Line,
        "First line of the selection (1-based).",
    ),
    own(
        END_LINE,
        &[ExtractFunction],
        true,
        Shape::Line,
        "Last line of the selection (1-based, inclusive).",
    ),
    own(
        NEW_NAME,
        &[ExtractFunction],
        true,
        Shape::Text,
        "Name of the new function; a valid identifier, not a keyword.",
    ),
    // inline function
    own(
        FUNCTION_NAME,
        &[InlineFunction],
        true,
        Shape::Text,
        "Function to inline.",
    ),
    own(
        NAME_PATH,
        &[InlineFunction],
        false,
        Shape::Text,
        "Disambiguating path such as Type/method.",
    ),
    // move to file
    own(
        SYMBOL_NAME,
        &[MoveToFile],
        true,
        Shape::Text,
        "Top-level item to move.",
    ),
    own(
        TARGET_FILE,
        &[MoveToFile],
        true,
        Shape::Text,
        "Destination file relative to the project root; created when missing (its directory must exist).",
    ),
    own(
        NAME_PATH,
        &[MoveToFile],
        false,
        Shape::Text,
        "Disambiguating path.",
    ),
    // change signature
    own(
        FUNCTION_NAME,
        &[ChangeSignature],
        true,
        Shape::Text,
        "Function whose parameters change.",
    ),
    own(
        NAME_PATH,
        &[ChangeSignature],
        false,
        Shape::Text,
        "Disambiguating path such as Type/method.",
    ),
    own(
        NEW_PARAMETERS,
        &[ChangeSignature],
        true,
        Shape::Parameters,
        "The whole new parameter list, in order (a leading self/&self receiver is kept automatically).",
    ),
    // rename symbol
    own(
        SYMBOL_NAME,
        &[RenameSymbol],
        false,
        Shape::Text,
        "Symbol to rename; optional when line and column point at it.",
    ),
    own(
        NAME_PATH,
        &[RenameSymbol],
        false,
        Shape::Text,
        "Disambiguating path such as Type/method or function/variable.",
    ),
    own(
        NEW_NAME,
        &[RenameSymbol],
        true,
        Shape::Text,
        "The new name; a valid identifier, not a keyword.",
    ),
    own(
        INCLUDE_POSSIBLE,
        &[RenameSymbol],
        false,
        Shape::TextList,
        "Possible references (path:line:column, as data.possible_references lists them) to rename too.",
    ),
    // extract variable
    own(
        START_LINE,
        &[ExtractVariable],
        true,
        Shape::Line,
        "Line of the expression's first character (1-based).",
    ),
    own(
        START_COLUMN,
        &[ExtractVariable],
        true,
        Shape::Line,
        "Column of the expression's first character (1-based, in characters).",
    ),
    own(
        END_LINE,
        &[ExtractVariable],
        true,
        Shape::Line,
        "Line of the expression's last character (1-based).",
    ),
    own(
        END_COLUMN,
        &[ExtractVariable],
        true,
        Shape::Line,
        "Column just after the expression's last character (1-based, in characters).",
    ),
    own(
        NEW_NAME,
        &[ExtractVariable],
        true,
        Shape::Text,
        "Name of the new local; a valid identifier, not a keyword, not a name used in the scope.",
    ),
    own(
        REPLACE_ALL,
        &[ExtractVariable],
        false,
        Shape::Flag { default: false },
        "Also replace the identical expressions after it in the same block whose value cannot have changed (findings list those left and why).",
    ),
    // inline variable
    own(
        LINE,
        &[InlineVariable],
        true,
        Shape::Line,
        "1-based line of any occurrence of the local (its binding or a read).",
    ),
    own(
        COLUMN,
        &[InlineVariable],
        true,
        Shape::Line,
        "1-based column (in characters) of that occurrence's name.",
    ),
    // every call
    every(
        DRY_RUN,
        Shape::Flag { default: true },
        "true (default): preview only. false: write the result as one transaction.",
    ),
    every(
        SEMANTIC_EDIT_BACKEND,
        Shape::Word {
            words: &["auto", "lsp", "tree-sitter"],
            default: "auto",
        },
        "auto: language server where it can, heuristic otherwise (data.fallback_reason says why); lsp: language server or an error; tree-sitter: heuristic only.",
    ),
    Row {
        name: LINE,
        takers: Takers::AllBut(&[InlineVariable]),
        required: false,
        shape: Shape::Line,
        description: "1-based line of the symbol, to disambiguate.",
    },
    Row {
        name: COLUMN,
        takers: Takers::AllBut(&[InlineVariable]),
        required: false,
        shape: Shape::Line,
        description: "1-based column of the symbol, to disambiguate.",
    },
    every(
        EXPECTED_SHA256,
        Shape::HashPerPath,
        "path -> sha256 hex of the content you previewed; a mismatch is a stale_file error and nothing is written.",
    ),
    every(
        PLAN_ID,
        Shape::PlanId,
        "data.plan_id of the preview you apply: the write happens only if the plan computed now is exactly that one (else stale_file naming what differs).",
    ),
    every(
        EXCLUDE_SITES,
        Shape::TextList,
        "Ids of sites (data.sites of a preview of this same request) to leave out: the plan is computed again without them, and a finding at each says what leaving it out means.",
    ),
    every(
        INCLUDE_SITES,
        Shape::TextList,
        "Ids of sites (data.sites) not written by default (a rename's possible references) to write too.",
    ),
    every(
        ALLOW_SYNTAX_ERRORS,
        Shape::Flag { default: false },
        "Write even when the result no longer parses.",
    ),
    every(
        VERIFY,
        Shape::VerifyLevel,
        "Check the result with the project's own tools before answering (and before writing): true runs cargo check (Rust) or ruff, compile() and a type checker (Python: pyrefly, or the one the project configures) on a shadow of the project, before and after, and reports in data.verification only what the refactor introduced; \"tests\" also runs the project's tests before and after and reports those that newly fail. Default: true for an apply (dry_run false: pass false to write unchecked), false for a preview (the project's .candor/config.toml [verify] default can change that). Rust needs a trusted project (`candor trust`): cargo check runs its build scripts.",
    ),
    every(
        ALLOW_INTRODUCED_ERRORS,
        Shape::Flag { default: false },
        "Write even when the check found new errors or newly failing tests (dry_run false).",
    ),
    every(
        COMMAND,
        Shape::Text,
        "Language server command to use for this call.",
    ),
    every(ARGS, Shape::TextList, "Arguments of `command`."),
    // safe delete
    own(
        SYMBOL_NAME,
        &[SafeDelete],
        false,
        Shape::Text,
        "Function, method, class/struct/enum/trait or module-level variable/constant to delete; optional when line and column point at it.",
    ),
    own(
        NAME_PATH,
        &[SafeDelete],
        false,
        Shape::Text,
        "Disambiguating path such as Type/method.",
    ),
    // introduce parameter
    own(
        START_LINE,
        &[IntroduceParameter],
        true,
        Shape::Line,
        "Line where the expression starts (1-based).",
    ),
    own(
        START_COLUMN,
        &[IntroduceParameter],
        true,
        Shape::Line,
        "Column of the expression's first character (1-based, in characters).",
    ),
    own(
        END_LINE,
        &[IntroduceParameter],
        true,
        Shape::Line,
        "Line where the expression ends (1-based, inclusive).",
    ),
    own(
        END_COLUMN,
        &[IntroduceParameter],
        true,
        Shape::Line,
        "Column just after the expression's last character (1-based).",
    ),
    own(
        NEW_NAME,
        &[IntroduceParameter],
        true,
        Shape::Text,
        "Name of the new parameter; a valid identifier, not a keyword, not already bound in the function.",
    ),
];

/// The rows of `tool`, in table order.
pub fn rows(tool: Tool) -> impl Iterator<Item = &'static Row> {
    TABLE.iter().filter(move |row| row.takers.include(tool))
}

/// The names `tool` knows; any other key is reported in `unknown_args`.
pub fn known(tool: Tool) -> Vec<&'static str> {
    rows(tool).map(|row| row.name).collect()
}

/// Whether `tool` takes an argument called `name`.
pub fn takes(tool: Tool, name: &str) -> bool {
    rows(tool).any(|row| row.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_tool_has_each_argument_once_and_the_file_first() {
        for tool in Tool::ALL {
            let names = known(tool);
            let mut unique = names.clone();
            unique.sort_unstable();
            unique.dedup();
            assert_eq!(unique.len(), names.len(), "{tool:?} has an argument twice");
            assert_eq!(names[..2], [FILE_PATH, PATH], "{tool:?}");
        }
    }

    #[test]
    fn the_tools_know_what_they_knew() {
        // The contract agents rely on (unknown_args is the complement of these).
        let common = [
            DRY_RUN,
            SEMANTIC_EDIT_BACKEND,
            LINE,
            COLUMN,
            EXPECTED_SHA256,
            PLAN_ID,
            EXCLUDE_SITES,
            INCLUDE_SITES,
            ALLOW_SYNTAX_ERRORS,
            VERIFY,
            ALLOW_INTRODUCED_ERRORS,
            COMMAND,
            ARGS,
        ];
        let expect = |own: &[&'static str]| -> Vec<&'static str> {
            let mut all: Vec<&str> = own.to_vec();
            all.extend(common);
            all.sort_unstable();
            all
        };
        let sorted = |tool| {
            let mut names = known(tool);
            names.sort_unstable();
            names
        };
        assert_eq!(
            sorted(ExtractFunction),
            expect(&["file_path", "path", "start_line", "end_line", "new_name"])
        );
        assert_eq!(
            sorted(InlineFunction),
            expect(&["file_path", "path", "function_name", "name_path"])
        );
        assert_eq!(
            sorted(MoveToFile),
            expect(&[
                "file_path",
                "path",
                "symbol_name",
                "target_file",
                "name_path"
            ])
        );
        assert_eq!(
            sorted(ChangeSignature),
            expect(&[
                "file_path",
                "path",
                "function_name",
                "name_path",
                "new_parameters"
            ])
        );
        assert_eq!(
            sorted(RenameSymbol),
            expect(&[
                "file_path",
                "path",
                "symbol_name",
                "name_path",
                "new_name",
                "include_possible"
            ])
        );
        assert_eq!(
            sorted(ExtractVariable),
            expect(&[
                "file_path",
                "path",
                "start_line",
                "start_column",
                "end_line",
                "end_column",
                "new_name",
                "replace_all"
            ])
        );
        assert_eq!(sorted(InlineVariable), expect(&["file_path", "path"]));
        let required: Vec<&str> = rows(InlineVariable)
            .filter(|r| r.required)
            .map(|r| r.name)
            .collect();
        assert_eq!(required, [FILE_PATH, LINE, COLUMN]);
        assert_eq!(
            sorted(SafeDelete),
            expect(&["file_path", "path", "symbol_name", "name_path"])
        );
        assert_eq!(
            sorted(IntroduceParameter),
            expect(&[
                "file_path",
                "path",
                "start_line",
                "start_column",
                "end_line",
                "end_column",
                "new_name"
            ])
        );
        assert!(takes(MoveToFile, TARGET_FILE));
        assert!(!takes(InlineFunction, TARGET_FILE));
    }
}
