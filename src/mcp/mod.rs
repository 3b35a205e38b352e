//! `candor mcp`: the four tools over the Model Context Protocol (JSON-RPC 2.0 on stdio, one
//! message per line), answering through the same `api::Engine` as `candor call`. This module
//! owns the IO: stdout carries protocol messages only; diagnostics go to stderr.

pub mod protocol;
pub mod server;
pub mod tools;

use std::io::{BufRead, Read, Write};

use crate::api::Engine;

pub use server::Session;

/// The longest line read as one message; a longer one is answered with a parse error and
/// skipped, so a runaway client cannot make the server hold unbounded memory.
pub const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// Serves MCP requests from `input` until it closes. Bad input never ends the session; only a
/// failing read or write does (a closed output means the client is gone: a clean end).
pub fn serve(
    engine: Engine,
    mut input: impl BufRead,
    mut output: impl Write,
) -> std::io::Result<()> {
    eprintln!(
        "candor mcp {}: serving {} on stdio",
        env!("CARGO_PKG_VERSION"),
        engine.root().path().display()
    );
    let mut session = Session::new(engine);
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
        let reply = if line.len() > MAX_LINE_BYTES && line.last() != Some(&b'\n') {
            skip_rest_of_line(&mut input)?;
            Some(protocol::error_line(
                &serde_json::Value::Null,
                &protocol::RpcError::new(
                    protocol::PARSE_ERROR,
                    format!(
                        "parse error: a message is longer than {MAX_LINE_BYTES} bytes; it was skipped"
                    ),
                ),
            ))
        } else {
            session.handle_line(&line)
        };
        if let Some(reply) = reply {
            match write_line(&mut output, &reply) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return Ok(()),
                other => other?,
            }
        }
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
