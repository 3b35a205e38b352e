//! The `candor` binary: parses the command line and hands over to the TUI, `call`, `mcp`,
//! `calls`, `undo` or `trust`. The only place where errors become `anyhow` and exit codes (from
//! the one table, `api::Exit`).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use candor::api::{Engine, Exit, envelope};
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
    #[arg(long, env = "CANDOR_BACKEND")]
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
        /// Which backend refactors: auto (default), lsp or tree-sitter. Also CANDOR_BACKEND.
        #[arg(long, env = "CANDOR_BACKEND")]
        backend: Option<BackendChoice>,
    },
    /// Serve the four tools over the Model Context Protocol on stdio.
    Mcp {
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Which backend refactors: auto (default), lsp or tree-sitter. Also CANDOR_BACKEND.
        #[arg(long, env = "CANDOR_BACKEND")]
        backend: Option<BackendChoice>,
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
        /// The file that defines (or uses) the symbol: its references come from candor's
        /// references engine, each marked certain or possible (with why).
        #[arg(long)]
        file: Option<String>,
        /// The 1-based line of the name in `--file`, to pick one of several.
        #[arg(long)]
        line: Option<usize>,
        /// With `--file`: every reference (imports, uses, definitions), not only the calls.
        #[arg(long)]
        all: bool,
    },
    /// Restore the files of the last applied refactor (exit 0 done, 3 nothing to undo, 4 a file
    /// changed since candor wrote it, 5 done in part, 1 anything else).
    Undo {
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Show the history instead of undoing.
        #[arg(long, conflicts_with = "id")]
        list: bool,
        /// Undo this transaction (an ID from `--list`) instead of the last one.
        #[arg(long)]
        id: Option<String>,
        /// Print a JSON report (with the sha256 of what candor wrote and what is there now
        /// when a file stops the undo) instead of sentences.
        #[arg(long, conflicts_with = "list")]
        json: bool,
    },
    /// Trust a project: let candor run the programs it controls (the language server its
    /// .candor/config.toml names, its toolchain and cargo settings, its .ropeproject). Any
    /// change of its .candor/config.toml revokes the trust.
    Trust {
        /// The project directory (default: the current directory).
        dir: Option<PathBuf>,
        /// Forget the project instead.
        #[arg(long, conflicts_with = "list")]
        revoke: bool,
        /// List the trusted projects.
        #[arg(long)]
        list: bool,
    },
    /// Build or bring up to date the project's index in .candor/index/: each file's stamp,
    /// hash and identifiers, so project-wide searches read only the files that can matter.
    /// Never required (without it candor reads every file); kept up to date by every search.
    Index {
        #[arg(long, default_value = ".")]
        root: PathBuf,
        /// Say what the index holds and how many files changed since, without writing it.
        #[arg(long, conflicts_with = "rebuild")]
        status: bool,
        /// Build it again from nothing.
        #[arg(long)]
        rebuild: bool,
    },
    /// Show how much candor's cache holds (the checks' copies of your projects and their build
    /// output), per project; or clear it. It is kept under 1 GiB by default ([verify]
    /// cache_limit_mib), the least recently used projects removed first.
    Cache {
        /// How much it holds, per project (the default).
        #[arg(long, conflicts_with = "clear")]
        size: bool,
        /// Remove every project's check copies (those of a check running now are kept).
        #[arg(long)]
        clear: bool,
    },
    /// (Internal) What rust-analyzer runs as cargo in an untrusted project: refuses while the
    /// project's cargo configuration holds what candor refuses, else runs the real cargo.
    #[command(hide = true)]
    CargoGuard {
        #[arg(long)]
        root: PathBuf,
        /// The real cargo, then its arguments.
        #[arg(last = true, required = true)]
        command: Vec<std::ffi::OsString>,
    },
}

fn main() -> ExitCode {
    candor::process_memory::prefer_huge_pages();
    let cli = Cli::parse();
    if let Ok(program) = std::env::current_exe() {
        candor::backend::lsp::cargo_guard::enable(program);
    }
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
            ExitCode::from(Exit::Failure.code())
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
        Some(Command::Call {
            tool,
            args,
            root,
            backend,
        }) => call(backend, tool, args, root),
        Some(Command::Mcp {
            root,
            backend,
            allow_server_command,
        }) => {
            let mut engine = Engine::open(&root, backend)?;
            engine.allow_server_command(allow_server_command);
            candor::mcp::serve(engine, std::io::stdin().lock(), std::io::stdout())?;
            Ok(ExitCode::SUCCESS)
        }
        Some(Command::Calls {
            name,
            root,
            json,
            file: Some(file),
            line,
            all,
            ..
        }) => references(&name, &root, &file, line, json, all),
        Some(Command::Calls {
            name,
            root,
            lang,
            json,
            file: None,
            ..
        }) => calls(&name, &root, lang.as_deref(), json),
        Some(Command::Undo {
            root,
            list,
            id,
            json,
        }) => undo(&root, list, id.as_deref(), json),
        Some(Command::Trust { dir, revoke, list }) => trust(dir, revoke, list),
        Some(Command::Cache { clear, .. }) => cache(clear),
        Some(Command::CargoGuard { root, command }) => {
            eprintln!(
                "{}",
                candor::backend::lsp::cargo_guard::run(&root, &command)
            );
            Ok(ExitCode::from(101))
        }
        Some(Command::Index {
            root,
            status,
            rebuild,
        }) => index(&root, status, rebuild),
        None => {
            let path = cli.path.unwrap_or_else(|| PathBuf::from("."));
            candor::tui::run(&path, cli.backend)?;
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// `candor index [--status|--rebuild]`.
fn index(root: &Path, status: bool, rebuild: bool) -> anyhow::Result<ExitCode> {
    use candor::workspace::index;
    let root = candor::workspace::Root::new(root)
        .with_context(|| format!("cannot open project root {}", root.display()))?;
    let config = candor::config::Config::load(&root)?.config;
    let max = config
        .max_file_bytes
        .unwrap_or(candor::workspace::Limits::default().max_file_bytes);
    let loaded = match index::load(&root) {
        Ok(loaded) => loaded,
        Err(e) if status => anyhow::bail!("{e}"),
        Err(e) => {
            eprintln!("candor: {e}");
            None
        }
    };
    if status {
        let Some(mut found) = loaded else {
            println!("no index: run `candor index` to build one in .candor/index/");
            return Ok(ExitCode::SUCCESS);
        };
        let size = index::encoded_len(&found);
        let held = found.status();
        let changed = index::refresh(&mut found, &root, None);
        println!(
            "index (format {}): {} files ({} text), {} distinct words, {} postings, {} bytes; {}",
            index::VERSION,
            held.files,
            held.text_files,
            held.words,
            held.postings,
            size,
            if changed.changed() {
                format!(
                    "{} file(s) changed and {} gone since it was written (any search brings it up to date)",
                    changed.updated, changed.removed
                )
            } else {
                "up to date".to_string()
            }
        );
        match index::facts::held(&root) {
            Some(held) => println!(
                "facts (.candor/index/facts/): {} entries in {} packs, {} bytes ({} bytes of disk, bound {})",
                held.entries,
                held.packs,
                held.bytes,
                held.disk_bytes,
                index::facts::DEFAULT_MAX_BYTES
            ),
            None => println!("facts (.candor/index/facts/): none kept yet"),
        }
        return Ok(ExitCode::SUCCESS);
    }
    if rebuild {
        index::facts::clear(&root)
            .map_err(|e| anyhow::anyhow!("cannot clear the facts kept on disk: {e}"))?;
        // A rebuild walks the project whatever the last walk's listing says.
        index::forget_listing(&root)
            .map_err(|e| anyhow::anyhow!("cannot remove the listing kept on disk: {e}"))?;
    }
    let mut built = match loaded {
        Some(found) if !rebuild && found.max_bytes == max => found,
        _ => index::Index::empty(max),
    };
    let started = std::time::Instant::now();
    let progress = |done: usize, total: usize| {
        if done % 500 == 0 || done == total {
            eprint!("\rcandor index: {done}/{total} files read");
        }
    };
    let refreshed = index::refresh(&mut built, &root, Some(&progress));
    if refreshed.read > 0 {
        eprintln!();
    }
    index::save(&root, &built).map_err(|e| anyhow::anyhow!("cannot write the index: {e}"))?;
    println!(
        "indexed {} files ({} read, {} gone) in {} ms: {} bytes in .candor/index/",
        refreshed.files,
        refreshed.read,
        refreshed.removed,
        started.elapsed().as_millis(),
        index::encoded_len(&built)
    );
    Ok(ExitCode::SUCCESS)
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
    let config = candor::config::Config::load(&root)?.config;
    let max = config
        .max_file_bytes
        .unwrap_or(candor::workspace::Limits::default().max_file_bytes);
    let limits = candor::workspace::Limits {
        max_file_bytes: max,
    };
    let sources = candor::workspace::DiskSources::new(root.clone(), limits);
    let report = match sources.indexed_calls(&langs, name) {
        Some(answer) => {
            candor::workspace::search::call_sites_indexed(root.path(), &answer, &langs, name, max)
        }
        None => candor::workspace::search::call_sites(root.path(), &langs, name, max),
    };
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

/// `candor calls NAME --file PATH`: the symbol's references from candor's engine, each marked.
fn references(
    name: &str,
    root: &std::path::Path,
    file: &str,
    line: Option<usize>,
    json: bool,
    all: bool,
) -> anyhow::Result<ExitCode> {
    use candor::refactor::references::{Certainty, ReferencesRequest, find};
    let root = candor::workspace::Root::new(root)
        .with_context(|| format!("cannot open project root {}", root.display()))?;
    let lang = candor::lang::Language::from_path(file)
        .with_context(|| format!("{file} is not a Rust or Python file"))?;
    let config = candor::config::Config::load(&root)?.config;
    let mut limits = candor::workspace::Limits::default();
    if let Some(max) = config.max_file_bytes {
        limits.max_file_bytes = max;
    }
    let sources = candor::workspace::DiskSources::new(root, limits);
    let request = ReferencesRequest {
        file: file.to_string(),
        symbol: candor::lang::symbols::SymbolQuery {
            name: name.to_string(),
            line,
            column: None,
        },
    };
    let found = find(&sources, &request, lang, None).map_err(|e| anyhow::anyhow!("{e}"))?;
    let listed: Vec<_> = found
        .references
        .iter()
        .filter(|r| all || r.role == candor::lang::refs::Role::Call)
        .collect();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    use std::io::Write;
    if json {
        let rows: Vec<serde_json::Value> = listed
            .iter()
            .map(|r| {
                let (certainty, why) = match &r.certainty {
                    Certainty::Certain => ("certain", None),
                    Certainty::Possible(why) => ("possible", Some(why.clone())),
                };
                serde_json::json!({
                    "path": r.path, "line": r.line, "column": r.column,
                    "role": format!("{:?}", r.role).to_lowercase(),
                    "certainty": certainty, "why": why, "alias": r.alias,
                })
            })
            .collect();
        let report = serde_json::json!({
            "symbol": found.target.name, "kind": found.target.label,
            "definition": format!("{}:{}", found.target.path, found.references.iter().find(|r| r.role == candor::lang::refs::Role::Definition).map_or(0, |r| r.line)),
            "references_from": found.source.describe(),
            "references": rows,
        });
        serde_json::to_writer_pretty(&mut out, &report)?;
        writeln!(out)?;
    } else {
        for r in &listed {
            match &r.certainty {
                Certainty::Certain => writeln!(out, "{} certain", r.location())?,
                Certainty::Possible(why) => writeln!(out, "{} possible: {why}", r.location())?,
            }
        }
        let possible = listed.iter().filter(|r| !r.is_certain()).count();
        eprintln!(
            "{} {} of {} `{}`: {} certain, {possible} possible ({})",
            listed.len(),
            if all { "references" } else { "calls" },
            found.target.label,
            found.target.name,
            listed.len() - possible,
            found.source.describe()
        );
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
    let args: serde_json::Value = match candor::api::strict_json::parse(&text) {
        Ok(value) => value,
        Err(e) => {
            use candor::api::strict_json::StrictJsonError;
            let message = match &e {
                StrictJsonError::Syntax(_) => format!(
                    "the arguments are not valid JSON ({e}); pass an object like '{{\"file_path\": \"src/lib.rs\", ...}}'"
                ),
                StrictJsonError::Duplicate { key, .. } => {
                    format!("the arguments name `{key}` twice: {e}; give each argument once")
                }
            };
            let mut error =
                candor::api::ApiError::new(candor::api::ErrorCode::InvalidArgument, message);
            if let StrictJsonError::Duplicate { key, .. } = &e {
                error = error.with_param(key);
            }
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
    // A tool that searches the project reads the index and scans the project on another thread
    // while it reads and parses its own file.
    let searches = candor::honesty::Tool::from_name(&tool).is_some_and(|t| t.searches_project());
    let response = std::thread::scope(|s| {
        let sources = engine.sources();
        if searches {
            s.spawn(|| sources.prefetch_index());
        }
        engine.call_text(&tool, &args)
    });
    // What the store did (parses, facts made, read from disk…), for the tests and the benches.
    if std::env::var_os("CANDOR_STORE_STATS").is_some() {
        eprintln!("candor call: {}", engine.sources().store_stats());
    }
    engine.finish();
    print_out(&response.text)?;
    Ok(ExitCode::from(response.exit_code as u8))
}

/// `candor undo [--list | --id ID]`, through the engine.
fn undo(root: &Path, list: bool, id: Option<&str>, json: bool) -> anyhow::Result<ExitCode> {
    use candor::workspace::undo::{describe_report, format_history};
    let engine = match Engine::open_bare(root) {
        Ok(engine) => engine,
        Err(error) => {
            if json {
                let value = serde_json::json!({"success": false, "error": {
                    "code": error.code.as_str(), "message": error.message}});
                print_out(&serde_json::to_string_pretty(&value)?)?;
            } else {
                eprintln!("candor: {}", error.message);
            }
            return Ok(ExitCode::from(error.code.exit().code()));
        }
    };
    if json {
        let (value, exit) = engine.undo_json(id);
        print_out(&serde_json::to_string_pretty(&value)?)?;
        return Ok(ExitCode::from(exit.code()));
    }
    let result = if list {
        engine
            .history()
            .map(|entries| (format_history(&entries), Exit::Success))
    } else {
        engine
            .undo(id)
            .map(|report| (format!("{}\n", describe_report(&report)), report.exit()))
    };
    match result {
        Ok((text, exit)) => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            // A closed pipe (`candor undo --list | head -1`) is not an error.
            let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
            Ok(ExitCode::from(exit.code()))
        }
        Err(error) => {
            eprintln!("candor: {}", error.message);
            Ok(ExitCode::from(error.code.exit().code()))
        }
    }
}

/// `candor cache [--size | --clear]`.
fn cache(clear: bool) -> anyhow::Result<ExitCode> {
    use candor::workspace::undo::printable;
    let mib = |bytes: u64| format!("{:.1} MiB", bytes as f64 / f64::from(1 << 20));
    if clear {
        let cleared = candor::verify::clear(None)?;
        print_out(&format!(
            "removed the checks' copies of {} project(s) and the cargo guards of {}, {}",
            cleared.removed,
            cleared.guards,
            mib(cleared.bytes)
        ))?;
        for root in &cleared.in_use {
            print_out(&format!(
                "kept {} (a check of it is running)",
                printable(root)
            ))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let usage = candor::verify::usage(None)?;
    let limit = candor::config::user_verify_config()
        .ok()
        .and_then(|c| c.cache_limit_mib)
        .unwrap_or(candor::verify::DEFAULT_LIMIT_MIB);
    print_out(&format!(
        "{}: {} of at most {limit} MiB ([verify] cache_limit_mib)",
        usage.path.display(),
        mib(usage.total())
    ))?;
    for project in &usage.projects {
        let when = project
            .last_used
            .and_then(|t| t.elapsed().ok())
            .map(|d| ago(d.as_secs()))
            .unwrap_or_else(|| "never".to_string());
        let busy = if project.in_use { ", checking now" } else { "" };
        print_out(&format!(
            "  {:>10}  {}  (used {when}{busy})",
            mib(project.bytes),
            printable(project.root.as_deref().unwrap_or(&project.name))
        ))?;
    }
    if usage.other_bytes > 0 {
        print_out(&format!("  {:>10}  (other)", mib(usage.other_bytes)))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// "3 min ago", "2 h ago", "5 days ago".
fn ago(secs: u64) -> String {
    match secs {
        0..60 => "just now".to_string(),
        60..3600 => format!("{} min ago", secs / 60),
        3600..86400 => format!("{} h ago", secs / 3600),
        _ => format!("{} days ago", secs / 86400),
    }
}

/// `candor trust [DIR] [--revoke | --list]`.
fn trust(dir: Option<PathBuf>, revoke: bool, list: bool) -> anyhow::Result<ExitCode> {
    use candor::trust::TrustStore;
    use candor::workspace::undo::printable;
    let store = TrustStore::user()?;
    if list {
        let projects = store.list()?;
        if projects.is_empty() {
            print_out("no trusted projects")?;
        }
        for (record, still) in projects {
            let state = match still {
                Some(candor::trust::Trust::Trusted) => "trusted".to_string(),
                Some(candor::trust::Trust::Untrusted { why, .. }) => {
                    format!("NOT trusted any more: {}", why.short())
                }
                None => "missing".to_string(),
            };
            print_out(&format!("{}  ({state})", printable(&record.root)))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let dir = dir.unwrap_or_else(|| PathBuf::from("."));
    if revoke {
        let shown = printable(&dir.display().to_string());
        if store.revoke(&dir)? {
            print_out(&format!("{shown} is no longer trusted"))?;
        } else {
            print_out(&format!("{shown} was not trusted; nothing changed"))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    let record = store.trust(&dir)?;
    let pinned = if record.config_sha256 == "none" {
        "it has no .candor/config.toml; creating one revokes the trust".to_string()
    } else {
        format!(
            "pinned to its .candor/config.toml (sha256 {}); any change of that file revokes the trust",
            &record.config_sha256[..12.min(record.config_sha256.len())]
        )
    };
    print_out(&format!(
        "trusted {}: candor may now run the language server its .candor/config.toml names, rust-analyzer with its own toolchain and cargo configuration, and pylsp-rope with its .ropeproject; {pinned}. Recorded in {}",
        printable(&record.root),
        store.path().display()
    ))?;
    Ok(ExitCode::SUCCESS)
}
