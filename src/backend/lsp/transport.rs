//! The LSP base protocol on a byte stream: `Content-Length` framed JSON messages. Knows nothing
//! of requests or servers; never logs, never touches our own stdout.

use std::io::{BufRead, Write};

use serde_json::Value;

/// Larger messages are refused rather than allocated (a broken or hostile server).
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    #[error("reading from the server failed: {0}")]
    Io(#[from] std::io::Error),
    #[error("the server sent a malformed header: {0}")]
    BadHeader(String),
    #[error("the server sent a message without a Content-Length header")]
    MissingLength,
    #[error("the server sent a {0}-byte message, over the {MAX_MESSAGE_BYTES}-byte limit")]
    TooLarge(usize),
    #[error("the server's output ended in the middle of a message")]
    Truncated,
    #[error("the server sent a message that is not JSON: {0}")]
    BadJson(String),
}

/// Writes one framed message.
pub fn write_message(out: &mut impl Write, message: &Value) -> std::io::Result<()> {
    let body = serde_json::to_vec(message)?;
    let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    framed.extend_from_slice(&body);
    out.write_all(&framed)?;
    out.flush()
}

/// Reads one framed message; `Ok(None)` when the stream ends cleanly between messages.
pub fn read_message(input: &mut impl BufRead) -> Result<Option<Value>, TransportError> {
    let mut length: Option<usize> = None;
    let mut saw_header = false;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = input.read_until(b'\n', &mut line)?;
        if n == 0 {
            return if saw_header {
                Err(TransportError::Truncated)
            } else {
                Ok(None)
            };
        }
        if !line.ends_with(b"\n") {
            return Err(TransportError::Truncated);
        }
        let text = String::from_utf8_lossy(&line);
        let text = text.trim_end_matches(['\r', '\n']);
        if text.is_empty() {
            if !saw_header {
                // Stray blank line between messages: tolerated.
                continue;
            }
            break;
        }
        saw_header = true;
        let (name, value) = text
            .split_once(':')
            .ok_or_else(|| TransportError::BadHeader(text.chars().take(80).collect()))?;
        if name.trim().eq_ignore_ascii_case("content-length") {
            let parsed: usize = value
                .trim()
                .parse()
                .map_err(|_| TransportError::BadHeader(text.chars().take(80).collect()))?;
            length = Some(parsed);
        }
    }
    let length = length.ok_or(TransportError::MissingLength)?;
    if length > MAX_MESSAGE_BYTES {
        return Err(TransportError::TooLarge(length));
    }
    let mut body = vec![0u8; length];
    input.read_exact(&mut body).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => TransportError::Truncated,
        _ => TransportError::Io(e),
    })?;
    serde_json::from_slice(&body)
        .map(Some)
        .map_err(|e| TransportError::BadJson(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::io::{BufReader, Read};

    /// A reader that hands out at most `chunk` bytes per read, like a slow pipe.
    struct Trickle {
        data: Vec<u8>,
        at: usize,
        chunk: usize,
    }

    impl Read for Trickle {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.chunk.min(buf.len()).min(self.data.len() - self.at);
            buf[..n].copy_from_slice(&self.data[self.at..self.at + n]);
            self.at += n;
            Ok(n)
        }
    }

    fn framed(messages: &[Value]) -> Vec<u8> {
        let mut out = Vec::new();
        for m in messages {
            write_message(&mut out, m).unwrap();
        }
        out
    }

    #[test]
    fn split_reads_and_several_messages_per_read() {
        let messages = vec![
            json!({"jsonrpc": "2.0", "id": 1, "result": {"text": "naïve — 😀"}}),
            json!({"jsonrpc": "2.0", "method": "x", "params": ["é"]}),
            json!({"jsonrpc": "2.0", "id": 2, "result": null}),
        ];
        let bytes = framed(&messages);
        for chunk in [1, 3, 7, bytes.len()] {
            let mut reader = BufReader::with_capacity(
                16,
                Trickle {
                    data: bytes.clone(),
                    at: 0,
                    chunk,
                },
            );
            for expected in &messages {
                assert_eq!(
                    read_message(&mut reader).unwrap().as_ref(),
                    Some(expected),
                    "chunk {chunk}"
                );
            }
            assert!(
                read_message(&mut reader).unwrap().is_none(),
                "clean end, chunk {chunk}"
            );
        }
    }

    #[test]
    fn content_length_counts_bytes_not_characters() {
        let message = json!({"s": "😀😀é"});
        let bytes = framed(std::slice::from_ref(&message));
        let body_len = serde_json::to_vec(&message).unwrap().len();
        let header = String::from_utf8_lossy(&bytes[..bytes.len() - body_len]).to_string();
        assert_eq!(header, format!("Content-Length: {body_len}\r\n\r\n"));
        assert!(body_len > serde_json::to_string(&message).unwrap().chars().count());
    }

    #[test]
    fn extra_headers_any_case_are_accepted() {
        let body = br#"{"id":1}"#;
        let mut raw = format!(
            "content-type: application/vscode-jsonrpc; charset=utf-8\r\ncontent-length: {}\r\n\r\n",
            body.len()
        )
        .into_bytes();
        raw.extend_from_slice(body);
        let mut reader = BufReader::new(&raw[..]);
        assert_eq!(read_message(&mut reader).unwrap(), Some(json!({"id": 1})));
    }

    #[test]
    fn broken_streams_are_errors() {
        let mut truncated = BufReader::new(&b"Content-Length: 10\r\n\r\n{\"a\""[..]);
        assert!(matches!(
            read_message(&mut truncated),
            Err(TransportError::Truncated)
        ));
        let mut no_length = BufReader::new(&b"X: 1\r\n\r\n{}"[..]);
        assert!(matches!(
            read_message(&mut no_length),
            Err(TransportError::MissingLength)
        ));
        let mut garbage = BufReader::new(&b"hello world\r\n\r\n"[..]);
        assert!(matches!(
            read_message(&mut garbage),
            Err(TransportError::BadHeader(_))
        ));
        let mut not_json = BufReader::new(&b"Content-Length: 3\r\n\r\nabc"[..]);
        assert!(matches!(
            read_message(&mut not_json),
            Err(TransportError::BadJson(_))
        ));
        let huge = format!("Content-Length: {}\r\n\r\n", MAX_MESSAGE_BYTES + 1);
        let mut too_large = BufReader::new(huge.as_bytes());
        assert!(matches!(
            read_message(&mut too_large),
            Err(TransportError::TooLarge(_))
        ));
    }
}
