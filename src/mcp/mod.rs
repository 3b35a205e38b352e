//! `candor mcp`: the four tools over the Model Context Protocol (JSON-RPC 2.0 on stdio, one
//! message per line), answering through the same `api::Engine` as `candor call`. This module
//! owns the IO: stdout carries protocol messages only; diagnostics go to stderr. Tool calls run
//! one after the other on a worker thread, so `ping` and the other requests are answered while a
//! long call runs, and `notifications/cancelled` stops a call (it then gets no reply).

pub mod protocol;
pub mod server;
pub mod tools;

use std::collections::HashMap;
use std::io::{BufRead, Read, Write};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use crate::api::Engine;
use crate::cancel::Cancel;

pub use server::{Dispatch, Session, ToolCallJob};

/// The longest line read as one message; a longer one is answered with a parse error and
/// skipped, so a runaway client cannot make the server hold unbounded memory.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// The tool calls received and not yet answered, by request id, with their cancellation tokens.
type InFlight = Mutex<HashMap<String, Cancel>>;

/// Serves MCP requests from `input` until it closes, then finishes the tool calls already
/// received. Bad input never ends the session; only a failing read or write does (a closed
/// output means the client is gone: a clean end).
pub fn serve(
    engine: Engine,
    mut input: impl BufRead,
    output: impl Write + Send,
) -> std::io::Result<()> {
    eprintln!(
        "candor mcp {}: serving {} on stdio",
        env!("CARGO_PKG_VERSION"),
        engine.root().path().display()
    );
    let engine = Arc::new(engine);
    index_in_background(Arc::clone(&engine));
    let mut session = Session::shared(Arc::clone(&engine));
    let output = Mutex::new(output);
    let in_flight: InFlight = Mutex::new(HashMap::new());
    let (jobs, queue) = mpsc::channel::<(ToolCallJob, Cancel)>();
    std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            for (job, cancel) in queue {
                let started = std::time::Instant::now();
                let reply = server::run_call(&engine, &job, &cancel);
                log_call(&engine, &job, started.elapsed());
                in_flight
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .remove(&job.id.to_string());
                if let Some(reply) = reply
                    && let Err(e) = send(&output, &reply)
                {
                    return closed_is_fine(e);
                }
            }
            Ok::<(), std::io::Error>(())
        });
        let read = read_loop(&mut input, &mut session, &output, &in_flight, &jobs);
        drop(jobs);
        let worked = worker
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("the MCP worker thread panicked")));
        read.and(worked)
    })
}

/// A session on a project with no index builds one beside the tool calls (which walk until it is
/// ready), so that every search after it reads only the files that can hold the word, as the TUI
/// does; one line on stderr says what it did. Not waited for: a session that ends first leaves
/// no index (the index is written to a temporary file and renamed, never half-written).
fn index_in_background(engine: Arc<Engine>) {
    std::thread::spawn(move || {
        let started = std::time::Instant::now();
        match engine.sources().index_when_absent() {
            Some(Ok(files)) => eprintln!(
                "candor mcp: indexed the project for its searches: {files} files in {} ms (.candor/index/)",
                started.elapsed().as_millis()
            ),
            Some(Err(e)) => eprintln!(
                "candor mcp: the project's index could not be saved ({e}); this session uses it in memory"
            ),
            None => {}
        }
    });
}

/// One line on stderr per tool call: the tool, how long it took, and what the warm store holds
/// now (entries, memory, hits, misses, parses since the session began).
fn log_call(engine: &Engine, job: &ToolCallJob, took: std::time::Duration) {
    let tool = job
        .params
        .as_ref()
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .unwrap_or("?");
    eprintln!(
        "candor mcp: {tool} took {} ms; {}",
        took.as_millis(),
        engine.sources().store_stats()
    );
}

/// Reads and dispatches lines until the input closes (or the output does).
fn read_loop(
    input: &mut impl BufRead,
    session: &mut Session,
    output: &Mutex<impl Write>,
    in_flight: &InFlight,
    jobs: &mpsc::Sender<(ToolCallJob, Cancel)>,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = input
            .by_ref()
            .take(MAX_LINE_BYTES as u64 + 1)
            .read_until(b'\n', &mut line)?;
        if read == 0 {
            return Ok(());
        }
        let dispatch = if line.len() > MAX_LINE_BYTES && line.last() != Some(&b'\n') {
            skip_rest_of_line(input)?;
            Dispatch::Reply(protocol::error_line(
                &serde_json::Value::Null,
                &protocol::RpcError::new(
                    protocol::PARSE_ERROR,
                    format!(
                        "parse error: a message is longer than {MAX_LINE_BYTES} bytes; it was skipped"
                    ),
                ),
            ))
        } else {
            session.dispatch_line(&line)
        };
        match dispatch {
            Dispatch::Reply(reply) => {
                if let Err(e) = send(output, &reply) {
                    return closed_is_fine(e);
                }
            }
            Dispatch::Nothing => {}
            Dispatch::Call(job) => {
                let cancel = Cancel::new();
                in_flight
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .insert(job.id.to_string(), cancel.clone());
                if jobs.send((job, cancel)).is_err() {
                    // The worker stopped: the output is gone.
                    return Ok(());
                }
            }
            Dispatch::Cancel { request_id } => {
                if let Some(cancel) = in_flight
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get(&request_id.to_string())
                {
                    cancel.cancel();
                }
            }
        }
    }
}

/// Writes one message line; whole lines only, from either thread.
fn send(output: &Mutex<impl Write>, line: &str) -> std::io::Result<()> {
    let mut output = output.lock().unwrap_or_else(|e| e.into_inner());
    write_line(&mut *output, line)
}

/// A closed output means the client is gone: a clean end.
fn closed_is_fine(error: std::io::Error) -> std::io::Result<()> {
    if error.kind() == std::io::ErrorKind::BrokenPipe {
        Ok(())
    } else {
        Err(error)
    }
}

fn write_line(output: &mut impl Write, line: &str) -> std::io::Result<()> {
    output.write_all(line.as_bytes())?;
    output.write_all(b"\n")?;
    output.flush()
}

/// Discards input up to and including the next line feed (or the end of input).
fn skip_rest_of_line(input: &mut impl BufRead) -> std::io::Result<()> {
    loop {
        let available = input.fill_buf()?;
        if available.is_empty() {
            return Ok(());
        }
        match memchr::memchr(b'\n', available) {
            Some(end) => {
                input.consume(end + 1);
                return Ok(());
            }
            None => {
                let len = available.len();
                input.consume(len);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn run(input: &[u8]) -> Vec<Value> {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), None).unwrap();
        let mut output = Vec::new();
        serve(engine, input, &mut output).unwrap();
        let text = String::from_utf8(output).unwrap();
        assert!(text.is_empty() || text.ends_with('\n'));
        text.lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn one_reply_line_per_request_in_order() {
        let replies = run(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\r\n\n{bad\n{\"jsonrpc\":\"2.0\",\"method\":\"n\"}\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
        let ids: Vec<Value> = replies.iter().map(|r| r["id"].clone()).collect();
        assert_eq!(ids, vec![Value::from(1), Value::Null, Value::from(2)]);
        assert_eq!(replies[1]["error"]["code"], protocol::PARSE_ERROR);
    }

    #[test]
    fn an_oversized_line_is_skipped_and_the_next_one_served() {
        let mut input = vec![b'x'; MAX_LINE_BYTES + 10];
        input.extend_from_slice(b"\n{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\n");
        let replies = run(&input);
        assert_eq!(replies.len(), 2);
        assert_eq!(replies[0]["error"]["code"], protocol::PARSE_ERROR);
        assert_eq!(replies[1]["id"], 7);
    }
}
