//! The `candor` binary: parses the command line and hands over to the TUI, `call`, `mcp` or
//! `undo`. The only place where errors become `anyhow` and exit codes.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use candor::api::{Engine, envelope};
use candor::backend::BackendChoice;

#[derive(Parser, Debug)]
#[command(
    name = "candor",
    version,
    about = "A terminal refactoring assistant for Rust and Python that is honest about what it knows",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// Project directory (or a file to open in its project); default: the current directory.
    path: Option<PathBuf>,
    /// Which backend refactors: auto (default), lsp or tree-sitter. Also CANDOR_BACKEND.
    #[arg(long, global = true, env = "CANDOR_BACKEND")]
    backend: Option<BackendChoice>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Run one refactor tool and print its JSON envelope.
    Call {
        /// refactor_extract_function, refactor_inline_function, refactor_move_to_file or
        /// refactor_change_signature; omit to list them.
        tool: Option<String>,
        /// The arguments as a JSON object, or `-` to read them from standard input.
        args: Option<String>,
        /// Project root; paths in the arguments are relative to it.
        #[arg(long, default_value = ".")]
        root: PathBuf,
    },
    /// Serve the four tools over the Model Context Protocol on stdio.
    Mcp {
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Let clients choose the language-server program per call (`command` / `args`).
        /// Off by default: an agent could otherwise make candor run any program.
        #[arg(long)]
        allow_server_command: bool,
    },
    /// List every call of a function name in the project (path:line:column), as inline and
    /// change signature see them.
    Calls {
        /// The function name.
        name: String,
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Only this language: rust or python (default: both).
        #[arg(long)]
        lang: Option<String>,
        /// Print a JSON report instead of one line per call.
        #[arg(long)]
        json: bool,
    },
    /// Restore the files of the last applied refactor.
    Undo {
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Show the history instead of undoing.
        #[arg(long)]
        list: bool,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        // The reader of our output went away (`candor calls x | head`): nothing left to say.
        Err(error)
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("candor: {error:#}");
            ExitCode::from(1)
        }
    }
}

/// Prints `text` and a newline on standard output.
fn print_out(text: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.write_all(b"\n")?;
    out.flush()
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Some(Command::Call { tool, args, root }) => call(cli.backend, tool, args, root),
        Some(Command::Mcp {
            root,
            allow_server_command,
        }) => {
            let mut engine = Engine::open(&root, cli.backend)?;
            engine.allow_server_command(allow_server_command);
            candor::mcp::serve(engine, std::io::stdin().lock(), std::io::stdout().lock())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Calls {
            name,
            root,
            lang,
            json,
        }) => calls(&name, &root, lang.as_deref(), json),
        Some(Command::Undo { root, list }) => {
            let root = candor::workspace::Root::new(&root)
                .with_context(|| format!("cannot open project root {}", root.display()))?;
            Ok(candor::workspace::undo_command(&root, list))
        }
        None => {
            let path = cli.path.unwrap_or_else(|| PathBuf::from("."));
            candor::tui::run(&path, cli.backend)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn calls(
    name: &str,
    root: &std::path::Path,
    lang: Option<&str>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    use candor::lang::Language;
    let langs = match lang.map(str::to_ascii_lowercase).as_deref() {
        None => vec![Language::Rust, Language::Python],
        Some("rust" | "rs") => vec![Language::Rust],
        Some("python" | "py") => vec![Language::Python],
        Some(other) => anyhow::bail!("unknown language `{other}`; use rust or python"),
    };
    let root = candor::workspace::Root::new(root)
        .with_context(|| format!("cannot open project root {}", root.display()))?;
    let config = candor::config::Config::load(root.path())?;
    let max = config
        .max_file_bytes
        .unwrap_or(candor::workspace::Limits::default().max_file_bytes);
    let report = candor::workspace::search::call_sites(root.path(), &langs, name, max);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    use std::io::Write;
    if json {
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        for hit in &report.calls {
            writeln!(out, "{}:{}:{}", hit.path, hit.line, hit.column)?;
        }
        eprintln!("{}", report.summary(name));
    }
    Ok(ExitCode::SUCCESS)
}

fn call(
    backend: Option<BackendChoice>,
    tool: Option<String>,
    args: Option<String>,
    root: PathBuf,
) -> anyhow::Result<ExitCode> {
    let Some(tool) = tool else {
        let mut usage =
            String::from("usage: candor call TOOL [ARGS_JSON | -] [--root DIR]\n\ntools:");
        for (name, description) in candor::api::tool_list() {
            let summary = description.split(". ").next().unwrap_or("");
            usage.push_str(&format!("\n  {name}\n      {summary}"));
        }
        print_out(&usage)?;
        return Ok(ExitCode::SUCCESS);
    };
    let text = match args.as_deref() {
        Some("-") => {
            let mut buffer = String::new();
            std::io::stdin()
                .read_to_string(&mut buffer)
                .context("reading the arguments from standard input")?;
            buffer
        }
        Some(text) => text.to_string(),
        None => "{}".to_string(),
    };
    let args: serde_json::Value = match serde_json::from_str(&text) {
        Ok(value) => value,
        Err(e) => {
            let error = candor::api::ApiError::new(
                candor::api::ErrorCode::InvalidArgument,
                format!(
                    "the arguments are not valid JSON ({e}); pass an object like '{{\"file_path\": \"src/lib.rs\", ...}}'"
                ),
            );
            print_out(&serde_json::to_string_pretty(&envelope::error(
                &tool, &error,
            ))?)?;
            return Ok(ExitCode::from(error.code.exit_code() as u8));
        }
    };
    let engine = match Engine::open(&root, backend) {
        Ok(engine) => engine,
        Err(error) => {
            print_out(&serde_json::to_string_pretty(&envelope::error(
                &tool, &error,
            ))?)?;
            return Ok(ExitCode::from(error.code.exit_code() as u8));
        }
    };
    let response = engine.call_json(&tool, &args);
    print_out(&serde_json::to_string_pretty(&response.envelope)?)?;
    Ok(ExitCode::from(response.exit_code as u8))
}
