//! Turns a tool's JSON arguments into a typed [`ToolCall`]: the names of the argument table
//! (`arg.rs`, the seed's KNOWN_ARGS), the `path` alias, lenient but checked types, and the
//! sorted `unknown_args` report. The TUI builds the same [`ToolCall`] without JSON.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::backend::BackendChoice;
use crate::backend::lsp::ServerOverride;
use crate::honesty::Tool;
use crate::lang::symbols::SymbolQuery;
use crate::refactor::{
    ChangeSignatureRequest, ExtractRequest, ExtractVariableRequest, InlineRequest,
    InlineVariableRequest, IntroduceParameterRequest, MoveRequest, NewParameter, RenameRequest,
    Request, SafeDeleteRequest,
};

use super::arg;
use super::error::{ApiError, ErrorCode};

/// The arguments a tool knows (its rows of the argument table).
pub fn known_args(tool: Tool) -> Vec<&'static str> {
    arg::known(tool)
}

/// How a call is carried out, apart from what it refactors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallOptions {
    /// Default true: compute and show, write nothing.
    pub dry_run: bool,
    /// `None` when the caller did not say (the engine's default applies).
    pub backend: Option<BackendChoice>,
    /// Project path → sha256 the caller previewed.
    pub expected_sha256: BTreeMap<String, String>,
    /// The `data.plan_id` of the preview the caller is applying: the plan computed now must be
    /// exactly that one.
    pub plan_id: Option<String>,
    /// Site ids to leave out (`exclude_sites`) and to write though not written by default
    /// (`include_sites`).
    pub exclude_sites: BTreeSet<String>,
    pub include_sites: BTreeSet<String>,
    pub allow_syntax_errors: bool,
    /// `verify`: `None` when the caller did not say (the config's default, else off).
    pub verify: Option<crate::verify::Level>,
    /// Write even when the check found new errors or newly failing tests.
    pub allow_introduced_errors: bool,
    pub server_override: ServerOverride,
}

impl Default for CallOptions {
    fn default() -> CallOptions {
        CallOptions {
            dry_run: true,
            backend: None,
            expected_sha256: BTreeMap::new(),
            plan_id: None,
            exclude_sites: BTreeSet::new(),
            include_sites: BTreeSet::new(),
            allow_syntax_errors: false,
            verify: None,
            allow_introduced_errors: false,
            server_override: ServerOverride::default(),
        }
    }
}

/// A parsed tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    pub request: Request,
    pub options: CallOptions,
    /// Keys the tool does not know, sorted; `_`-prefixed keys are never listed.
    pub unknown_args: Vec<String>,
}

impl ToolCall {
    /// A typed call with the default options (a dry run, the engine's backend and checks), as
    /// a front end without JSON builds it (the TUI).
    pub fn new(request: Request) -> ToolCall {
        ToolCall {
            request,
            options: CallOptions::default(),
            unknown_args: Vec::new(),
        }
    }

    pub fn tool(&self) -> Tool {
        self.request.tool()
    }
}

/// Parses the JSON arguments of `tool`. File paths are returned as given; the engine resolves
/// them against the root.
pub fn parse(tool: Tool, args: &Value) -> Result<ToolCall, ApiError> {
    let empty = Map::new();
    let object = match args {
        Value::Object(map) => map,
        Value::Null => &empty,
        other => {
            return Err(ApiError::new(
                ErrorCode::InvalidArgument,
                format!(
                    "arguments must be a JSON object like {{\"file_path\": \"src/lib.rs\", ...}}, not {}",
                    kind_of(other)
                ),
            ));
        }
    };
    let mut unknown_args: Vec<String> = object
        .keys()
        .filter(|k| !k.starts_with('_') && !arg::takes(tool, k))
        .cloned()
        .collect();
    unknown_args.sort();

    let a = Args(object);
    let file = a.file_path()?;
    // Checked for every tool, used by those that look a symbol up: a malformed value is an
    // error, never silently ignored.
    a.positive(arg::LINE)?;
    a.positive(arg::COLUMN)?;
    let request = match tool {
        Tool::ExtractFunction => extract_request(&a, file)?,
        Tool::InlineFunction => Request::Inline(InlineRequest {
            file,
            function: a.symbol(arg::FUNCTION_NAME)?,
        }),
        Tool::MoveToFile => move_request(&a, file)?,
        Tool::ChangeSignature => Request::ChangeSignature(ChangeSignatureRequest {
            file,
            function: a.symbol(arg::FUNCTION_NAME)?,
            new_parameters: a.new_parameters()?,
        }),
        Tool::RenameSymbol => rename_request(&a, file)?,
        Tool::ExtractVariable => extract_variable_request(&a, file)?,
        Tool::InlineVariable => Request::InlineVariable(InlineVariableRequest {
            file,
            line: a.positive(arg::LINE)?.ok_or_else(|| {
                ApiError::missing(
                    arg::LINE,
                    "the line of any occurrence of the local (1-based)",
                )
            })?,
            column: a.positive(arg::COLUMN)?.ok_or_else(|| {
                ApiError::missing(
                    arg::COLUMN,
                    "the column of that occurrence's name (1-based)",
                )
            })?,
        }),
        Tool::SafeDelete => Request::SafeDelete(SafeDeleteRequest {
            file,
            symbol: a.symbol_or_cursor(arg::SYMBOL_NAME)?,
        }),
        Tool::IntroduceParameter => introduce_parameter_request(&a, file)?,
    };
    Ok(ToolCall {
        request,
        options: call_options(&a)?,
        unknown_args,
    })
}

fn extract_request(a: &Args, file: String) -> Result<Request, ApiError> {
    let start_line = a.positive(arg::START_LINE)?.ok_or_else(|| {
        ApiError::missing(arg::START_LINE, "the first line of the selection (1-based)")
    })?;
    let end_line = a.positive(arg::END_LINE)?.ok_or_else(|| {
        ApiError::missing(
            arg::END_LINE,
            "the last line of the selection (1-based, inclusive)",
        )
    })?;
    if end_line < start_line {
        return Err(ApiError::new(
            ErrorCode::InvalidRange,
            format!(
                "{} {end_line} is before {} {start_line}; give the first line, then the last",
                arg::END_LINE,
                arg::START_LINE
            ),
        )
        .with_param(arg::END_LINE));
    }
    let new_name = a
        .string(arg::NEW_NAME)?
        .ok_or_else(|| ApiError::missing(arg::NEW_NAME, "the name of the new function"))?;
    Ok(Request::Extract(ExtractRequest {
        file,
        start_line,
        end_line,
        new_name,
    }))
}

fn extract_variable_request(a: &Args, file: String) -> Result<Request, ApiError> {
    let ExpressionRange {
        start_line,
        start_column,
        end_line,
        end_column,
    } = a.expression_range()?;
    let new_name = a
        .string(arg::NEW_NAME)?
        .ok_or_else(|| ApiError::missing(arg::NEW_NAME, "the name of the new local"))?;
    Ok(Request::ExtractVariable(ExtractVariableRequest {
        file,
        start_line,
        start_column,
        end_line,
        end_column,
        new_name,
        replace_all: a.boolean(arg::REPLACE_ALL)?.unwrap_or(false),
    }))
}

fn move_request(a: &Args, file: String) -> Result<Request, ApiError> {
    let symbol = a.symbol(arg::SYMBOL_NAME)?;
    let target_file = a.string(arg::TARGET_FILE)?.ok_or_else(|| {
        ApiError::missing(
            arg::TARGET_FILE,
            "the file to move the item to, relative to the project root",
        )
    })?;
    Ok(Request::Move(MoveRequest {
        file,
        symbol,
        target_file,
    }))
}

fn rename_request(a: &Args, file: String) -> Result<Request, ApiError> {
    let symbol = a.symbol_or_cursor(arg::SYMBOL_NAME)?;
    let new_name = a
        .string(arg::NEW_NAME)?
        .ok_or_else(|| ApiError::missing(arg::NEW_NAME, "the new name of the symbol"))?;
    Ok(Request::Rename(RenameRequest {
        file,
        symbol,
        new_name,
        include_possible: a.string_list(arg::INCLUDE_POSSIBLE)?,
    }))
}

fn introduce_parameter_request(a: &Args, file: String) -> Result<Request, ApiError> {
    let ExpressionRange {
        start_line,
        start_column,
        end_line,
        end_column,
    } = a.expression_range()?;
    let new_name = a
        .string(arg::NEW_NAME)?
        .ok_or_else(|| ApiError::missing(arg::NEW_NAME, "the name of the new parameter"))?;
    Ok(Request::IntroduceParameter(IntroduceParameterRequest {
        file,
        start_line,
        start_column,
        end_line,
        end_column,
        new_name,
    }))
}

/// An expression's extent as the tools that select one take it: 1-based lines and columns, the
/// end column just after the expression's last character.
struct ExpressionRange {
    start_line: usize,
    start_column: usize,
    end_line: usize,
    end_column: usize,
}

/// How the call is carried out: the arguments every tool takes.
fn call_options(a: &Args) -> Result<CallOptions, ApiError> {
    Ok(CallOptions {
        dry_run: a.boolean(arg::DRY_RUN)?.unwrap_or(true),
        backend: match a.string(arg::SEMANTIC_EDIT_BACKEND)? {
            Some(s) => Some(
                s.parse()
                    .map_err(|m: String| ApiError::invalid(arg::SEMANTIC_EDIT_BACKEND, m))?,
            ),
            None => None,
        },
        expected_sha256: a.expected_sha256()?,
        plan_id: a.plan_id()?,
        exclude_sites: a.string_list(arg::EXCLUDE_SITES)?.into_iter().collect(),
        include_sites: a.string_list(arg::INCLUDE_SITES)?.into_iter().collect(),
        allow_syntax_errors: a.boolean(arg::ALLOW_SYNTAX_ERRORS)?.unwrap_or(false),
        verify: match a.get(arg::VERIFY) {
            Some(value) => Some(
                crate::verify::Level::from_json(value)
                    .map_err(|m| ApiError::invalid(arg::VERIFY, m))?,
            ),
            None => None,
        },
        allow_introduced_errors: a.boolean(arg::ALLOW_INTRODUCED_ERRORS)?.unwrap_or(false),
        server_override: ServerOverride {
            command: a.string(arg::COMMAND)?,
            args: a.string_list(arg::ARGS)?,
        },
    })
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

struct Args<'a>(&'a Map<String, Value>);

impl Args<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        self.0.get(key).filter(|v| !v.is_null())
    }

    fn string(&self, key: &str) -> Result<Option<String>, ApiError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(s)) if s.trim().is_empty() => Err(ApiError::invalid(
                key,
                format!("`{key}` is empty; give a value"),
            )),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(other) => Err(ApiError::invalid(
                key,
                format!("`{key}` must be a string, not {}", kind_of(other)),
            )),
        }
    }

    fn boolean(&self, key: &str) -> Result<Option<bool>, ApiError> {
        match self.get(key) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) if s == "true" || s == "false" => Ok(Some(s == "true")),
            Some(other) => Err(ApiError::invalid(
                key,
                format!("`{key}` must be true or false, not {}", kind_of(other)),
            )),
        }
    }

    /// A 1-based number: an integer ≥ 1, or a string of digits.
    fn positive(&self, key: &str) -> Result<Option<usize>, ApiError> {
        let bad = |shown: String| {
            ApiError::invalid(
                key,
                format!(
                    "`{key}` must be a whole number from 1 up (lines and columns are 1-based), not {shown}"
                ),
            )
        };
        match self.get(key) {
            None => Ok(None),
            Some(Value::Number(n)) => match n.as_u64() {
                Some(v) if v >= 1 => Ok(Some(v as usize)),
                _ => Err(bad(n.to_string())),
            },
            Some(Value::String(s)) => match s.trim().parse::<usize>() {
                Ok(v) if v >= 1 => Ok(Some(v)),
                _ => Err(bad(format!("\"{s}\""))),
            },
            Some(other) => Err(bad(kind_of(other).to_string())),
        }
    }

    fn file_path(&self) -> Result<String, ApiError> {
        let (file_path, path) = (arg::FILE_PATH, arg::PATH);
        match (self.string(file_path)?, self.string(path)?) {
            (Some(a), Some(b)) if a != b => Err(ApiError::invalid(
                path,
                format!(
                    "`{file_path}` (\"{a}\") and its alias `{path}` (\"{b}\") disagree; give only one"
                ),
            )),
            (Some(a), _) | (None, Some(a)) => Ok(a),
            (None, None) => Err(ApiError::missing(
                file_path,
                "the file to refactor, relative to the project root",
            )),
        }
    }

    /// The symbol by name (or `name_path`), or only by `line` and `column` (the name under a
    /// cursor).
    fn symbol_or_cursor(&self, name_key: &str) -> Result<SymbolQuery, ApiError> {
        let by_name = self.get(name_key).is_some() || self.get(arg::NAME_PATH).is_some();
        Ok(
            match (self.positive(arg::LINE)?, self.positive(arg::COLUMN)?) {
                (Some(line), Some(column)) if !by_name => SymbolQuery {
                    name: String::new(),
                    line: Some(line),
                    column: Some(column),
                },
                _ => self.symbol(name_key)?,
            },
        )
    }

    /// The symbol from `name_key` and/or `name_path`, with the optional `line` / `column`.
    fn symbol(&self, name_key: &str) -> Result<SymbolQuery, ApiError> {
        let name_path_key = arg::NAME_PATH;
        let name = match (self.string(name_key)?, self.string(name_path_key)?) {
            (Some(name), Some(path)) => {
                let last = path.rsplit('/').next().unwrap_or(&path);
                let name_last = name.rsplit('/').next().unwrap_or(&name);
                if last != name_last {
                    return Err(ApiError::invalid(
                        name_path_key,
                        format!(
                            "`{name_path_key}` \"{path}\" does not end with `{name_key}` \"{name}\"; give matching values or only one"
                        ),
                    ));
                }
                path
            }
            (Some(name), None) => name,
            (None, Some(path)) => path,
            (None, None) => {
                return Err(ApiError::missing(
                    name_key,
                    &format!("the name of the symbol (or `{name_path_key}` like `Type/method`)"),
                ));
            }
        };
        Ok(SymbolQuery {
            name,
            line: self.positive(arg::LINE)?,
            column: self.positive(arg::COLUMN)?,
        })
    }

    fn new_parameters(&self) -> Result<Vec<NewParameter>, ApiError> {
        let key = arg::NEW_PARAMETERS;
        let shape = || {
            format!(
                "`{key}` must be the whole new parameter list as an array of objects, e.g. [{{\"name\": \"a\", \"type\": \"i32\"}}, {{\"name\": \"b\", \"default\": \"1\"}}] ([] for none)"
            )
        };
        let value = self.0.get(key).ok_or_else(|| {
            ApiError::missing(
                key,
                "the whole new parameter list, e.g. [{\"name\": \"a\", \"type\": \"i32\"}]",
            )
        })?;
        // Agents sometimes send the list as a JSON string; accept that form too.
        let parsed;
        let value = match value {
            Value::String(s) => {
                parsed = serde_json::from_str::<Value>(s)
                    .map_err(|_| ApiError::invalid(key, shape()))?;
                &parsed
            }
            v => v,
        };
        let Value::Array(items) = value else {
            return Err(ApiError::invalid(
                key,
                format!("{}; got {}", shape(), kind_of(value)),
            ));
        };
        items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::Object(fields) => new_parameter(i, fields),
                _ => Err(ApiError::invalid(
                    key,
                    format!("{}; item {i} is {}", shape(), kind_of(item)),
                )),
            })
            .collect()
    }

    fn expected_sha256(&self) -> Result<BTreeMap<String, String>, ApiError> {
        let key = arg::EXPECTED_SHA256;
        let shape = format!(
            "`{key}` must be an object mapping each file path to the sha256 hex of the content you previewed"
        );
        match self.get(key) {
            None => Ok(BTreeMap::new()),
            Some(Value::Object(map)) => map
                .iter()
                .map(|(path, hash)| match hash {
                    Value::String(h)
                        if h.len() == 64 && h.chars().all(|c| c.is_ascii_hexdigit()) =>
                    {
                        Ok((path.clone(), h.to_ascii_lowercase()))
                    }
                    _ => Err(ApiError::invalid(
                        key,
                        format!("{shape}; the value for \"{path}\" is not 64 hex digits"),
                    )),
                })
                .collect(),
            Some(other) => Err(ApiError::invalid(
                key,
                format!("{shape}, not {}", kind_of(other)),
            )),
        }
    }

    fn plan_id(&self) -> Result<Option<String>, ApiError> {
        let key = arg::PLAN_ID;
        match self.get(key) {
            None => Ok(None),
            Some(Value::String(id))
                if id.len() == 64 && id.chars().all(|c| c.is_ascii_hexdigit()) =>
            {
                Ok(Some(id.to_ascii_lowercase()))
            }
            Some(other) => Err(ApiError::invalid(
                key,
                format!(
                    "`{key}` must be the 64 hex digits of a preview's data.plan_id, not {}",
                    match other {
                        Value::String(s) => format!(
                            "\"{}\"",
                            s.chars().take(80).collect::<String>().escape_default()
                        ),
                        other => kind_of(other).to_string(),
                    }
                ),
            )),
        }
    }

    /// `start_line`, `start_column`, `end_line`, `end_column`, each required and positive, the end
    /// after the start.
    fn expression_range(&self) -> Result<ExpressionRange, ApiError> {
        let need = |key: &'static str, what: &str| -> Result<usize, ApiError> {
            self.positive(key)?
                .ok_or_else(|| ApiError::missing(key, what))
        };
        let start_line = need(
            arg::START_LINE,
            "the line of the expression's first character (1-based)",
        )?;
        let start_column = need(
            arg::START_COLUMN,
            "the column of the expression's first character (1-based)",
        )?;
        let end_line = need(
            arg::END_LINE,
            "the line of the expression's last character (1-based)",
        )?;
        let end_column = need(
            arg::END_COLUMN,
            "the column just after the expression's last character (1-based)",
        )?;
        if (end_line, end_column) <= (start_line, start_column) {
            return Err(ApiError::new(
                ErrorCode::InvalidRange,
                format!(
                    "the end ({} {end_line}, {} {end_column}) is not after the start ({} {start_line}, {} {start_column}); the end column is the one just after the expression's last character",
                    arg::END_LINE,
                    arg::END_COLUMN,
                    arg::START_LINE,
                    arg::START_COLUMN
                ),
            )
            .with_param(arg::END_COLUMN));
        }
        Ok(ExpressionRange {
            start_line,
            start_column,
            end_line,
            end_column,
        })
    }

    fn string_list(&self, key: &str) -> Result<Vec<String>, ApiError> {
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    other => Err(ApiError::invalid(
                        key,
                        format!(
                            "`{key}` must be a list of strings; found {}",
                            kind_of(other)
                        ),
                    )),
                })
                .collect(),
            Some(other) => Err(ApiError::invalid(
                key,
                format!("`{key}` must be a list of strings, not {}", kind_of(other)),
            )),
        }
    }
}

/// Item `i` of `new_parameters`: `name`, and `type` and `default` as source text.
fn new_parameter(i: usize, fields: &Map<String, Value>) -> Result<NewParameter, ApiError> {
    let list = arg::NEW_PARAMETERS;
    let [name_key, type_key, default_key] = arg::PARAMETER_KEYS;
    if let Some(extra) = fields
        .keys()
        .find(|k| !arg::PARAMETER_KEYS.contains(&k.as_str()))
    {
        return Err(ApiError::invalid(
            list,
            format!(
                "item {i} of `{list}` has the key `{extra}`; the keys are `{name_key}`, `{type_key}` and `{default_key}`"
            ),
        ));
    }
    let text = |key: &str| -> Result<Option<String>, ApiError> {
        match fields.get(key) {
            None | Some(Value::Null) => Ok(None),
            // Source text, so "" is no value at all: neither "no default" nor the empty string
            // (that is "''" or "\"\"" in the source).
            Some(Value::String(s)) if s.trim().is_empty() => Err(ApiError::invalid(
                list,
                if key == default_key {
                    format!(
                        "`{key}` of item {i} of `{list}` is empty; it is the default's source text (e.g. \"''\" for an empty string, \"0\", \"None\"), or leave `{key}` out for no default"
                    )
                } else if key == type_key {
                    format!(
                        "`{key}` of item {i} of `{list}` is empty; give the type's source text, or leave `{key}` out for none"
                    )
                } else {
                    format!("item {i} of `{list}` has an empty `{key}`")
                },
            )),
            Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
            Some(Value::Number(n)) if key == default_key => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) if key == default_key => {
                Ok(Some(if *b { "True" } else { "False" }.to_string()))
            }
            Some(other) => Err(ApiError::invalid(
                list,
                format!(
                    "`{key}` of item {i} of `{list}` must be a string, not {}",
                    kind_of(other)
                ),
            )),
        }
    };
    let name = text(name_key)?.ok_or_else(|| {
        ApiError::invalid(list, format!("item {i} of `{list}` has no `{name_key}`"))
    })?;
    Ok(NewParameter {
        name,
        ty: text(type_key)?,
        default: text(default_key)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn unknown_args_are_sorted_and_underscore_keys_ignored() {
        let call = parse(
            Tool::InlineFunction,
            &json!({"path": "a.py", "function_name": "f", "zeta": 1, "banana": 2, "_meta": 3}),
        )
        .unwrap();
        assert_eq!(call.unknown_args, vec!["banana", "zeta"]);
        assert_eq!(call.request.file(), "a.py");
        assert!(call.options.dry_run);
    }

    #[test]
    fn missing_and_wrong_types_name_the_parameter() {
        let err = parse(
            Tool::ExtractFunction,
            &json!({"file_path": "a.py", "end_line": 2, "new_name": "f"}),
        )
        .unwrap_err();
        assert_eq!(
            (err.code, err.param.as_deref()),
            (ErrorCode::MissingParam, Some("start_line"))
        );
        let err = parse(
            Tool::ExtractFunction,
            &json!({"file_path": "a.py", "start_line": 0, "end_line": 2, "new_name": "f"}),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        let err = parse(
            Tool::ExtractFunction,
            &json!({"file_path": "a.py", "start_line": 5, "end_line": 2, "new_name": "f"}),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidRange);
        let err = parse(
            Tool::ChangeSignature,
            &json!({"file_path": "a.py", "function_name": "f", "new_parameters": {"name": "a"}}),
        )
        .unwrap_err();
        assert_eq!(
            (err.code, err.param.as_deref()),
            (ErrorCode::InvalidArgument, Some("new_parameters"))
        );
        let err = parse(
            Tool::ChangeSignature,
            &json!({"file_path": "a.py", "function_name": "f", "new_parameters": ["a"]}),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        let err = parse(
            Tool::MoveToFile,
            &json!({"file_path": "a.py", "symbol_name": "f"}),
        )
        .unwrap_err();
        assert_eq!(err.param.as_deref(), Some("target_file"));
        let err = parse(Tool::InlineFunction, &json!([1])).unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
    }

    #[test]
    fn verify_is_a_flag_or_tests() {
        use crate::verify::Level;
        let level = |value: serde_json::Value| {
            parse(
                Tool::InlineFunction,
                &json!({"path": "a.py", "function_name": "f", "verify": value}),
            )
            .map(|c| c.options.verify)
        };
        assert_eq!(level(json!(true)), Ok(Some(Level::Check)));
        assert_eq!(level(json!(false)), Ok(Some(Level::Off)));
        assert_eq!(level(json!("tests")), Ok(Some(Level::Tests)));
        assert_eq!(level(json!("true")), Ok(Some(Level::Check)));
        let err = level(json!("sometimes")).unwrap_err();
        assert_eq!(
            (err.code, err.param.as_deref()),
            (ErrorCode::InvalidArgument, Some("verify"))
        );
        assert!(
            err.message.contains("true, false or \"tests\""),
            "{}",
            err.message
        );
        assert!(level(json!(1)).is_err());
        let call = parse(
            Tool::InlineFunction,
            &json!({"path": "a.py", "function_name": "f"}),
        )
        .unwrap();
        assert_eq!(
            (call.options.verify, call.options.allow_introduced_errors),
            (None, false)
        );
    }

    #[test]
    fn name_path_and_parameters_parse() {
        let call = parse(
            Tool::ChangeSignature,
            &json!({"file_path": "a.rs", "name_path": "Foo/bar", "line": "3", "new_parameters": [{"name": "x", "type": "i32"}, {"name": "y", "default": 2}], "dry_run": false}),
        )
        .unwrap();
        let Request::ChangeSignature(r) = &call.request else {
            panic!()
        };
        assert_eq!(r.function.name, "Foo/bar");
        assert_eq!(r.function.line, Some(3));
        assert_eq!(r.new_parameters[1].default.as_deref(), Some("2"));
        assert!(!call.options.dry_run);
    }

    #[test]
    fn malformed_common_arguments_are_refused_for_every_tool() {
        let err = parse(
            Tool::ExtractFunction,
            &json!({"file_path": "a.py", "start_line": 1, "end_line": 2, "new_name": "f", "line": {"x": 1}}),
        )
        .unwrap_err();
        assert_eq!(
            (err.code, err.param.as_deref()),
            (ErrorCode::InvalidArgument, Some("line"))
        );
        let err = parse(
            Tool::InlineFunction,
            &json!({"file_path": "a.py", "function_name": "f", "plan_id": "abc"}),
        )
        .unwrap_err();
        assert_eq!(err.param.as_deref(), Some("plan_id"));
    }

    #[test]
    fn both_expression_tools_read_the_range_alike() {
        for tool in [Tool::ExtractVariable, Tool::IntroduceParameter] {
            let range = |sl: u64, sc: u64, el: u64, ec: u64| {
                json!({"file_path": "a.py", "start_line": sl, "start_column": sc,
                       "end_line": el, "end_column": ec, "new_name": "v"})
            };
            let err = parse(tool, &range(3, 5, 3, 5)).unwrap_err();
            assert_eq!(
                (err.code, err.param.as_deref()),
                (ErrorCode::InvalidRange, Some("end_column")),
                "{tool:?}"
            );
            assert!(
                err.message.contains("(end_line 3, end_column 5)"),
                "{err:?}"
            );
            let mut missing = range(3, 5, 4, 1);
            missing.as_object_mut().unwrap().remove("start_column");
            let err = parse(tool, &missing).unwrap_err();
            assert_eq!(err.param.as_deref(), Some("start_column"), "{tool:?}");
            assert!(parse(tool, &range(3, 5, 4, 1)).is_ok(), "{tool:?}");
        }
    }

    #[test]
    fn an_empty_default_is_refused_not_dropped() {
        let err = parse(
            Tool::ChangeSignature,
            &json!({"file_path": "a.py", "function_name": "f", "new_parameters": [{"name": "a"}, {"name": "b", "default": ""}]}),
        )
        .unwrap_err();
        assert_eq!(err.code, ErrorCode::InvalidArgument);
        assert!(
            err.message.contains("`default` of item 1"),
            "{}",
            err.message
        );
        let call = parse(
            Tool::ChangeSignature,
            &json!({"file_path": "a.py", "function_name": "f", "new_parameters": [{"name": "b", "default": "''"}]}),
        )
        .unwrap();
        let Request::ChangeSignature(r) = &call.request else {
            panic!()
        };
        assert_eq!(r.new_parameters[0].default.as_deref(), Some("''"));
    }
}
