//! `candor mcp`: the four tools over the Model Context Protocol (JSON-RPC 2.0 on stdio, one
//! message per line), answering through the same `api::Engine` as `candor call`.

use std::io::{BufRead, Write};

use crate::api::Engine;

/// Serves MCP requests from `input` until it closes.
pub fn serve(_engine: Engine, _input: impl BufRead, _output: impl Write) -> std::io::Result<()> {
    Err(std::io::Error::other("the MCP server is not implemented yet"))
}
