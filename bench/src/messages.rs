//! The JSON-RPC messages the harness sends, and the check of an answer.
//!
//! Hot-loop requests are formatted by hand: the driver's own cost is part of every round trip,
//! so it is kept small and identical for both servers.

use std::io;

use serde_json::{Value, json};

/// The legacy revision the harness negotiates through `initialize`.
pub const LEGACY_VERSION: &str = "2025-11-25";

/// The `_meta` of a 2026-07-28 request: its revision and (no) client capabilities.
const MODERN_META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

pub fn initialize(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"initialize","params":{{"protocolVersion":"{LEGACY_VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-bench","version":"0.0.0"}}}}}}"#
    )
}

pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

pub fn discover(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"server/discover","params":{{"_meta":{MODERN_META}}}}}"#
    )
}

/// `tools/call` of `add(2, 3)` in the negotiated session.
pub fn add(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":2,"b":3}}}}}}"#
    )
}

/// `tools/call` of `add(2, 3)`, stateless (2026-07-28).
pub fn modern_add(id: u64) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"add","arguments":{{"a":2,"b":3}},"_meta":{MODERN_META}}}}}"#
    )
}

pub fn echo(id: u64, text: &str) -> String {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": text}},
    })
    .to_string()
}

pub fn tools_list(id: u64) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/list"}}"#)
}

/// The `result` of a successful answer to request `id`; anything else is an error that shows
/// the answer.
pub fn expect_result(answer: &str, id: u64) -> io::Result<Value> {
    let shown = || answer.chars().take(300).collect::<String>();
    let mut message: Value = serde_json::from_str(answer)
        .map_err(|error| io::Error::other(format!("unparsable answer ({error}): {}", shown())))?;
    if message["id"] != json!(id) {
        return Err(io::Error::other(format!(
            "expected the answer to request {id}, got: {}",
            shown()
        )));
    }
    match message.get_mut("result") {
        Some(result) if result["isError"] != json!(true) => Ok(result.take()),
        _ => Err(io::Error::other(format!("not a success: {}", shown()))),
    }
}

/// The text of the first content block of a tool result.
pub fn first_text(result: &Value) -> Option<&str> {
    result["content"][0]["text"].as_str()
}
