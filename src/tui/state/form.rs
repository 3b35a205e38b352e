//! A refactor form's data: what it is about and the input line.

use ratatui_textarea::TextArea;

use crate::honesty::Tool;
use crate::lang::Language;
use crate::lang::symbols::SymbolQuery;

/// The symbol a refactor is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub name_path: String,
    /// 1-based line of its name.
    pub line: usize,
    /// `fn parse_header`
    pub label: String,
}

impl Target {
    /// How the engine finds it: its name path, at its line.
    pub fn query(&self) -> SymbolQuery {
        crate::refactor::change_signature::function_query(&self.name_path, self.line)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FormKind {
    Extract {
        file: String,
        /// 1-based, inclusive.
        start: usize,
        end: usize,
        language: Language,
    },
    Move {
        file: String,
        target: Target,
    },
    ChangeSignature {
        file: String,
        target: Target,
        language: Language,
        is_method: bool,
    },
    Rename {
        file: String,
        /// The name under the cursor, and where (1-based line and character column).
        name: String,
        line: usize,
        column: usize,
        language: Language,
    },
    ExtractVariable {
        file: String,
        /// 1-based line and character column of the expression's start, and of its end (just
        /// after its last character).
        start: (usize, usize),
        end: (usize, usize),
        /// The expression, its blanks collapsed, to show.
        expression: String,
        language: Language,
        /// The expressions around the cursor, innermost first; `start`, `end` and `expression`
        /// are those of `choices[chosen]` (the widen and narrow keys move `chosen`).
        choices: Vec<ExpressionChoice>,
        chosen: usize,
    },
    IntroduceParameter {
        file: String,
        /// The expression as written, and where (1-based lines, character columns; the end
        /// column is just after its last character).
        expression: String,
        start: (usize, usize),
        end: (usize, usize),
        /// `fn wait`, the function that takes the parameter.
        function: String,
        language: Language,
    },
}

/// One expression extract variable can take: where it is (1-based lines, character columns,
/// the end just after its last character) and its text, blanks collapsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExpressionChoice {
    pub start: (usize, usize),
    pub end: (usize, usize),
    pub expression: String,
}

impl FormKind {
    /// Extract variable: moves to the next enclosing expression (`wider`) or back to the
    /// previous one; `false` when there is none that way (or the form is another one).
    pub fn step_expression(&mut self, wider: bool) -> bool {
        let FormKind::ExtractVariable {
            start,
            end,
            expression,
            choices,
            chosen,
            ..
        } = self
        else {
            return false;
        };
        let next = if wider {
            *chosen + 1
        } else if *chosen == 0 {
            return false;
        } else {
            *chosen - 1
        };
        let Some(choice) = choices.get(next) else {
            return false;
        };
        *start = choice.start;
        *end = choice.end;
        *expression = choice.expression.clone();
        *chosen = next;
        true
    }

    pub fn tool(&self) -> Tool {
        match self {
            FormKind::Extract { .. } => Tool::ExtractFunction,
            FormKind::Move { .. } => Tool::MoveToFile,
            FormKind::ChangeSignature { .. } => Tool::ChangeSignature,
            FormKind::Rename { .. } => Tool::RenameSymbol,
            FormKind::ExtractVariable { .. } => Tool::ExtractVariable,
            FormKind::IntroduceParameter { .. } => Tool::IntroduceParameter,
        }
    }
}

/// A refactor form: one input line.
#[derive(Debug)]
pub struct Form {
    pub kind: FormKind,
    pub input: TextArea<'static>,
    /// What is wrong with the input as it stands (shown under it; submit is refused).
    pub error: Option<String>,
    /// Move: existing paths that complete the input.
    pub completions: Vec<String>,
    /// The completion `Tab` last put in the input.
    pub completion: Option<usize>,
    /// Move: the folder of the typed target and whether it exists (`None` until the disk
    /// answered).
    pub folder: Option<(String, Option<bool>)>,
}

impl Form {
    pub fn input_text(&self) -> String {
        crate::tui::input::text(&self.input)
    }
}
