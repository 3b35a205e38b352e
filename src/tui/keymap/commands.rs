//! The vocabulary of the keymap: where a key is interpreted ([`Context`]), what it can do there
//! ([`Command`]), and the words the help screen uses for each. Pure data.

/// Where a key is interpreted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Context {
    Global,
    Picker,
    Code,
    Outline,
    /// The go-to-line (`:`) and search (`/`) prompts of the code view.
    Prompt,
    Form,
    /// The editing keys of every text field (picker, outline filter, prompts, forms).
    Input,
    Preview,
    Findings,
    /// The sites list of the warning panel: what the preview writes, site by site.
    Sites,
    Confirm,
    /// A yes/no question over the screen (trust the project, close a long preview).
    Ask,
    Help,
}

impl Context {
    pub const ALL: [Context; 13] = [
        Context::Global,
        Context::Picker,
        Context::Code,
        Context::Outline,
        Context::Prompt,
        Context::Form,
        Context::Input,
        Context::Preview,
        Context::Findings,
        Context::Sites,
        Context::Confirm,
        Context::Ask,
        Context::Help,
    ];

    /// The section name in the keymap file.
    pub fn name(self) -> &'static str {
        match self {
            Context::Global => "global",
            Context::Picker => "picker",
            Context::Code => "code",
            Context::Outline => "outline",
            Context::Prompt => "prompt",
            Context::Form => "form",
            Context::Input => "input",
            Context::Preview => "preview",
            Context::Findings => "findings",
            Context::Sites => "sites",
            Context::Confirm => "confirm",
            Context::Ask => "ask",
            Context::Help => "help",
        }
    }

    /// The heading of the section in the help screen.
    pub fn title(self) -> &'static str {
        match self {
            Context::Global => "Everywhere",
            Context::Picker => "File picker (type to filter)",
            Context::Code => "Code view",
            Context::Outline => "Outline (type to filter)",
            Context::Prompt => "Go-to-line and search prompts",
            Context::Form => "Refactor form (type in the input)",
            Context::Input => "Text fields (picker, outline, prompts, forms)",
            Context::Preview => "Preview and warning panel",
            Context::Findings => "Findings list (warning panel)",
            Context::Sites => "Sites list (warning panel): what the preview writes, site by site",
            Context::Confirm => "Confirmation prompt",
            Context::Ask => "Questions (trust the project, close a long preview)",
            Context::Help => "Help",
        }
    }

    /// Whether plain characters are typed into a text field here (so only named keys can be
    /// commands, global character bindings do not apply, and the [`Context::Input`] editing
    /// keys work).
    pub fn takes_text(self) -> bool {
        matches!(
            self,
            Context::Picker | Context::Form | Context::Outline | Context::Prompt
        )
    }

    /// The commands of this context, in help order.
    pub fn commands(self) -> &'static [Command] {
        use Command::*;
        match self {
            Context::Global => &[Quit, Help],
            Context::Picker => &[Up, Down, PageUp, PageDown, Top, Bottom, Open, Back],
            Context::Code => &[
                Up,
                Down,
                Left,
                Right,
                WordForward,
                WordBack,
                LineStart,
                LineEnd,
                PageUp,
                PageDown,
                Top,
                Bottom,
                GotoLine,
                Search,
                SearchNext,
                SearchPrev,
                ScrollLeft,
                ScrollRight,
                SelectLines,
                ExtendUp,
                ExtendDown,
                ClearSelection,
                Extract,
                Inline,
                MoveToFile,
                ChangeSignature,
                Rename,
                ExtractVariable,
                InlineVariable,
                Undo,
                Outline,
                OpenPicker,
                ReturnToPreview,
                Trust,
                Quit,
                SafeDelete,
                IntroduceParameter,
            ],
            Context::Outline => &[Up, Down, PageUp, PageDown, Top, Bottom, SelectSymbol, Back],
            Context::Prompt => &[Submit, Cancel],
            Context::Form => &[Submit, Cancel, Complete, Widen, Narrow],
            Context::Input => &[
                Left,
                Right,
                WordBack,
                WordForward,
                LineStart,
                LineEnd,
                DeleteBack,
                DeleteForward,
                DeleteWordBack,
                DeleteWordForward,
                DeleteToStart,
                DeleteToEnd,
                UndoEdit,
            ],
            Context::Preview => &[
                Up,
                Down,
                PageUp,
                PageDown,
                Top,
                Bottom,
                NextHunk,
                PrevHunk,
                NextFile,
                PrevFile,
                ScrollLeft,
                ScrollRight,
                ToggleContext,
                SplitLeft,
                SplitRight,
                SplitAuto,
                Zoom,
                FocusWarnings,
                Check,
                RunTests,
                Trust,
                Apply,
                Back,
            ],
            Context::Findings => &[
                Up,
                Down,
                PageUp,
                PageDown,
                Top,
                Bottom,
                Jump,
                ToggleNotes,
                IncludeReference,
                FocusSites,
                Back,
            ],
            Context::Sites => &[
                Up, Down, PageUp, PageDown, Top, Bottom, Jump, ToggleSite, ToggleFile, ToggleAll,
                Back,
            ],
            Context::Confirm => &[Yes, No],
            Context::Ask => &[Yes, No],
            Context::Help => &[Up, Down, PageUp, PageDown, Top, Bottom, Back],
        }
    }

    pub(super) fn from_name(name: &str) -> Option<Context> {
        Context::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// What a key does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Command {
    Quit,
    Help,
    Up,
    Down,
    Left,
    Right,
    WordForward,
    WordBack,
    LineStart,
    LineEnd,
    PageUp,
    PageDown,
    Top,
    Bottom,
    GotoLine,
    Search,
    SearchNext,
    SearchPrev,
    Open,
    Back,
    SelectLines,
    ExtendUp,
    ExtendDown,
    ClearSelection,
    Extract,
    Inline,
    MoveToFile,
    ChangeSignature,
    Rename,
    ExtractVariable,
    InlineVariable,
    Undo,
    Outline,
    OpenPicker,
    ReturnToPreview,
    SelectSymbol,
    Submit,
    Cancel,
    Complete,
    Widen,
    Narrow,
    DeleteBack,
    DeleteForward,
    DeleteWordBack,
    DeleteWordForward,
    DeleteToStart,
    DeleteToEnd,
    UndoEdit,
    Apply,
    NextHunk,
    PrevHunk,
    NextFile,
    PrevFile,
    ScrollLeft,
    ScrollRight,
    ToggleContext,
    FocusWarnings,
    Jump,
    ToggleNotes,
    Check,
    RunTests,
    IncludeReference,
    FocusSites,
    ToggleSite,
    ToggleFile,
    ToggleAll,
    SplitLeft,
    SplitRight,
    SplitAuto,
    Zoom,
    Trust,
    Yes,
    No,
    SafeDelete,
    IntroduceParameter,
}

impl Command {
    const ALL: [Command; 75] = [
        Command::Quit,
        Command::Help,
        Command::Up,
        Command::Down,
        Command::Left,
        Command::Right,
        Command::WordForward,
        Command::WordBack,
        Command::LineStart,
        Command::LineEnd,
        Command::PageUp,
        Command::PageDown,
        Command::Top,
        Command::Bottom,
        Command::GotoLine,
        Command::Search,
        Command::SearchNext,
        Command::SearchPrev,
        Command::Open,
        Command::Back,
        Command::SelectLines,
        Command::ExtendUp,
        Command::ExtendDown,
        Command::ClearSelection,
        Command::Extract,
        Command::Inline,
        Command::MoveToFile,
        Command::ChangeSignature,
        Command::Rename,
        Command::ExtractVariable,
        Command::InlineVariable,
        Command::Undo,
        Command::Outline,
        Command::OpenPicker,
        Command::ReturnToPreview,
        Command::SelectSymbol,
        Command::Submit,
        Command::Cancel,
        Command::Complete,
        Command::Widen,
        Command::Narrow,
        Command::DeleteBack,
        Command::DeleteForward,
        Command::DeleteWordBack,
        Command::DeleteWordForward,
        Command::DeleteToStart,
        Command::DeleteToEnd,
        Command::UndoEdit,
        Command::Apply,
        Command::NextHunk,
        Command::PrevHunk,
        Command::NextFile,
        Command::PrevFile,
        Command::ScrollLeft,
        Command::ScrollRight,
        Command::ToggleContext,
        Command::FocusWarnings,
        Command::Jump,
        Command::ToggleNotes,
        Command::Check,
        Command::RunTests,
        Command::IncludeReference,
        Command::FocusSites,
        Command::ToggleSite,
        Command::ToggleFile,
        Command::ToggleAll,
        Command::SplitLeft,
        Command::SplitRight,
        Command::SplitAuto,
        Command::Zoom,
        Command::Trust,
        Command::Yes,
        Command::No,
        Command::SafeDelete,
        Command::IntroduceParameter,
    ];

    /// The name in the keymap file.
    pub fn name(self) -> &'static str {
        match self {
            Command::Quit => "quit",
            Command::Help => "help",
            Command::Up => "up",
            Command::Down => "down",
            Command::Left => "left",
            Command::Right => "right",
            Command::WordForward => "word_forward",
            Command::WordBack => "word_back",
            Command::LineStart => "line_start",
            Command::LineEnd => "line_end",
            Command::PageUp => "page_up",
            Command::PageDown => "page_down",
            Command::Top => "top",
            Command::Bottom => "bottom",
            Command::GotoLine => "goto_line",
            Command::Search => "search",
            Command::SearchNext => "search_next",
            Command::SearchPrev => "search_prev",
            Command::Open => "open",
            Command::Back => "back",
            Command::SelectLines => "select_lines",
            Command::ExtendUp => "extend_up",
            Command::ExtendDown => "extend_down",
            Command::ClearSelection => "clear_selection",
            Command::Extract => "extract",
            Command::Inline => "inline",
            Command::MoveToFile => "move_to_file",
            Command::ChangeSignature => "change_signature",
            Command::Rename => "rename",
            Command::ExtractVariable => "extract_variable",
            Command::InlineVariable => "inline_variable",
            Command::Undo => "undo",
            Command::Outline => "outline",
            Command::OpenPicker => "open_picker",
            Command::ReturnToPreview => "return_to_preview",
            Command::SelectSymbol => "select_symbol",
            Command::Submit => "submit",
            Command::Cancel => "cancel",
            Command::Complete => "complete",
            Command::Widen => "widen",
            Command::Narrow => "narrow",
            Command::DeleteBack => "delete_back",
            Command::DeleteForward => "delete_forward",
            Command::DeleteWordBack => "delete_word_back",
            Command::DeleteWordForward => "delete_word_forward",
            Command::DeleteToStart => "delete_to_start",
            Command::DeleteToEnd => "delete_to_end",
            Command::UndoEdit => "undo_edit",
            Command::Apply => "apply",
            Command::NextHunk => "next_hunk",
            Command::PrevHunk => "prev_hunk",
            Command::NextFile => "next_file",
            Command::PrevFile => "prev_file",
            Command::ScrollLeft => "scroll_left",
            Command::ScrollRight => "scroll_right",
            Command::ToggleContext => "toggle_context",
            Command::FocusWarnings => "focus_warnings",
            Command::Jump => "jump",
            Command::ToggleNotes => "toggle_notes",
            Command::Check => "check",
            Command::RunTests => "run_tests",
            Command::IncludeReference => "include_reference",
            Command::FocusSites => "focus_sites",
            Command::ToggleSite => "toggle_site",
            Command::ToggleFile => "toggle_file",
            Command::ToggleAll => "toggle_all",
            Command::SplitLeft => "split_left",
            Command::SplitRight => "split_right",
            Command::SplitAuto => "split_auto",
            Command::Zoom => "zoom",
            Command::Trust => "trust",
            Command::Yes => "yes",
            Command::No => "no",
            Command::SafeDelete => "safe_delete",
            Command::IntroduceParameter => "introduce_parameter",
        }
    }

    pub(super) fn from_name(name: &str) -> Option<Command> {
        Command::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether a count typed before the key (`5j`, `52G`) means something to it.
    pub fn takes_count(self) -> bool {
        use Command::*;
        matches!(
            self,
            Up | Down
                | Left
                | Right
                | WordForward
                | WordBack
                | PageUp
                | PageDown
                | Bottom
                | Top
                | SearchNext
                | SearchPrev
                | ScrollLeft
                | ScrollRight
                | ExtendUp
                | ExtendDown
                | NextHunk
                | PrevHunk
        )
    }

    /// What the command does in `context`, for the help screen.
    pub fn description(self, context: Context) -> &'static str {
        use Command::*;
        match (context, self) {
            (_, Quit) => "quit candor",
            (_, Help) => "show this help",
            (Context::Help, Up) | (Context::Help, Down) => "scroll",
            (Context::Preview, Up) => "scroll the diff up (a count before it: that many rows)",
            (Context::Preview, Down) => "scroll the diff down (a count before it: that many rows)",
            (Context::Findings | Context::Sites, Up) => {
                "previous row (a count before it: that many)"
            }
            (Context::Findings | Context::Sites, Down) => "next row (a count before it: that many)",
            (Context::Findings | Context::Sites, Top) => "first row",
            (Context::Findings | Context::Sites, Bottom) => "last row (with a count: that row)",
            (Context::Sites, Jump) => "show the site in the diff",
            (Context::Picker, Top) | (Context::Outline, Top) => "first match",
            (Context::Picker, Bottom) | (Context::Outline, Bottom) => "last match",
            (Context::Picker, Up) => "previous file",
            (Context::Picker, Down) => "next file",
            (Context::Outline, Up) => "previous symbol",
            (Context::Outline, Down) => "next symbol",
            (Context::Input, Left) => "cursor left",
            (Context::Input, Right) => "cursor right",
            (Context::Input, WordBack) => "back a word",
            (Context::Input, WordForward) => "forward a word",
            (Context::Input, LineStart) => "to the start",
            (Context::Input, LineEnd) => "to the end",
            (_, Up) => "cursor up (a count before it: that many lines)",
            (_, Down) => "cursor down (a count before it: that many lines)",
            (_, Left) => "cursor left (the view scrolls with it)",
            (_, Right) => "cursor right (the view scrolls with it)",
            (_, WordForward) => "next word",
            (_, WordBack) => "previous word",
            (_, LineStart) => "start of the line",
            (_, LineEnd) => "end of the line",
            (_, PageUp) => "page up",
            (_, PageDown) => "page down",
            (Context::Code, Top) => "go to the top (with a count: that line)",
            (_, Top) => "go to the top",
            (Context::Code, Bottom) => "go to the bottom (with a count: that line, as in 52G)",
            (_, Bottom) => "go to the bottom",
            (_, GotoLine) => "go to a line: type its number, Enter",
            (_, Search) => "search the file (as you type; Enter keeps the place, Esc goes back)",
            (_, SearchNext) => "next match",
            (_, SearchPrev) => "previous match",
            (_, Open) => "open the file",
            (Context::Picker, Back) => "back to the code view",
            (Context::Outline, Back) => "close the outline",
            (Context::Preview, Back) => {
                "cancel: back to the code view (a preview or check running is stopped), nothing is written"
            }
            (Context::Findings | Context::Sites, Back) => "back to the diff",
            (Context::Help, Back) => "close the help",
            (_, Back) => "back",
            (_, SelectLines) => "start or end a line selection at the cursor",
            (_, ExtendUp) => "extend the selection up",
            (_, ExtendDown) => "extend the selection down",
            (_, ClearSelection) => "clear the selection",
            (_, Extract) => "extract the selected lines into a new function",
            (_, Inline) => {
                "inline the function named under the cursor (a call or a definition), else the one around it"
            }
            (_, MoveToFile) => {
                "move the item named under the cursor, else the top-level item around it, to another file"
            }
            (_, ChangeSignature) => {
                "change the parameters of the function named under the cursor, else the one around it"
            }
            (_, Rename) => {
                "rename the symbol named under the cursor (a definition or a use: function, type, method, field, variable)"
            }
            (_, ExtractVariable) => {
                "extract variable: the expression under the cursor (or the selected lines) becomes a local"
            }
            (_, InlineVariable) => {
                "inline variable: replace the local under the cursor by its value at every read"
            }
            (_, Undo) => "undo the last refactor candor wrote",
            (_, Outline) => "outline: type to find a symbol, Enter jumps to it and selects it",
            (_, OpenPicker) => "open another file",
            (_, ReturnToPreview) => "return to the pending preview",
            (_, SelectSymbol) => "jump to the symbol and select it",
            (Context::Prompt, Submit) => "go there",
            (_, Submit) => "compute the preview",
            (Context::Prompt, Cancel) => "cancel: back where the cursor was",
            (_, Cancel) => "cancel",
            (_, Complete) => "complete the path",
            (_, Widen) => "extract variable: take the next enclosing expression",
            (_, Narrow) => "extract variable: back to the previous, smaller expression",
            (_, DeleteBack) => "delete the character before the cursor",
            (_, DeleteForward) => "delete the character under the cursor",
            (_, DeleteWordBack) => "delete the word before the cursor",
            (_, DeleteWordForward) => "delete the word after the cursor",
            (_, DeleteToStart) => "delete to the start",
            (_, DeleteToEnd) => "delete to the end",
            (_, UndoEdit) => "undo the last edit",
            (_, Apply) => {
                "apply: write the previewed change (asks again for heuristic results, findings, new errors, or a check still running)"
            }
            (_, NextHunk) => "next hunk",
            (_, PrevHunk) => "previous hunk",
            (_, NextFile) => "next changed file",
            (_, PrevFile) => "previous changed file",
            (_, ScrollLeft) => "scroll left",
            (_, ScrollRight) => "scroll right",
            (_, ToggleContext) => "show the whole file / only the changes",
            (_, FocusWarnings) => "select findings in the warning panel",
            (_, Jump) => {
                "jump to the finding's line; on a folded row (`E0425 × 2 …`, the fallback reason): open or close it"
            }
            (_, ToggleNotes) => "notes: folded into counts per kind, every note, or none (in turn)",
            (_, Check) => {
                "check the result with the project's checker (cargo check; ruff, compile() and a type checker) on a copy; while it runs: stop it"
            }
            (_, RunTests) => {
                "check the result and run the project's tests before and after, on a copy; while they run: stop them"
            }
            (_, FocusSites) => {
                "the sites list: every place the preview writes (a call, a reference, an import), to leave some out"
            }
            (_, ToggleSite) => {
                "leave the site out, or write it again (on a file row: the whole file); the diff follows at once"
            }
            (_, ToggleFile) => {
                "leave out every site of the file under the cursor, or write them all again"
            }
            (_, ToggleAll) => "leave out every site of every file, or write them all again",
            (_, IncludeReference) => {
                "rename: include the possible reference of the selected warning too (again: leave it out)"
            }
            (_, SplitLeft) => "move the split left: a wider warning panel (remembered)",
            (_, SplitRight) => "move the split right: a wider diff (remembered)",
            (_, SplitAuto) => "split the width automatically again (remembered)",
            (_, Zoom) => {
                "the diff on the whole screen, or back beside the warning panel (applying shows the panel first)"
            }
            (_, Trust) => "trust this project (or stop trusting it): shows what it allows and asks",
            (Context::Ask, Yes) => "yes",
            (Context::Ask, No) => "no",
            (_, Yes) => "yes, apply",
            (_, No) => "no, go back",
            (_, SafeDelete) => {
                "safe delete the item named under the cursor, else the one around it (refused, with every reference, while anything uses it)"
            }
            (_, IntroduceParameter) => {
                "introduce parameter: the expression at the cursor becomes a new last parameter of its function; callers pass it"
            }
        }
    }
}
