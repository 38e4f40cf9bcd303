//! The HTTP requests the benchmark sends, prepared whole (head and body) before they are timed.

use std::net::SocketAddr;

pub const LEGACY_VERSION: &str = "2025-11-25";
pub const MODERN_VERSION: &str = "2026-07-28";

/// The text every `echo` call sends, and expects back.
pub const ECHO_TEXT: &str = "hello from mcp-bench-http";

/// A POST to `/mcp` with `body` and the extra header lines `headers` (each ending `\r\n`).
fn post(addr: SocketAddr, headers: &str, body: &str) -> Vec<u8> {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\n{headers}Content-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// A 2026-07-28 request's `_meta`: the revision, `capabilities`, then the members `more`
/// (empty, or starting with a comma).
fn modern_meta(capabilities: &str, more: &str) -> String {
    format!(
        r#"{{"io.modelcontextprotocol/protocolVersion":"{MODERN_VERSION}","io.modelcontextprotocol/clientCapabilities":{capabilities}{more}}}"#
    )
}

/// The capabilities clients typically declare.
const DECLARED_CAPABILITIES: &str =
    r#"{"roots":{"listChanged":true},"sampling":{},"elicitation":{}}"#;

/// A stateless 2026-07-28 `tools/call` of `echo`, its headers agreeing with its body.
pub fn modern_echo(addr: SocketAddr) -> Vec<u8> {
    modern_echo_with(addr, &modern_meta("{}", ""))
}

/// `modern_echo` from a client declaring `DECLARED_CAPABILITIES` and asking for progress.
pub fn modern_echo_declaring(addr: SocketAddr) -> Vec<u8> {
    let meta = modern_meta(DECLARED_CAPABILITIES, r#","progressToken":"echo-1""#);
    modern_echo_with(addr, &meta)
}

fn modern_echo_with(addr: SocketAddr, meta: &str) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}},"_meta":{meta}}}}}"#
    );
    let headers = format!(
        "MCP-Protocol-Version: {MODERN_VERSION}\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n"
    );
    post(addr, &headers, &body)
}

/// A 2026-07-28 `tools/call` of `wait` from a client taking tasks: it becomes a task that runs
/// until cancelled.
pub fn modern_task(addr: SocketAddr, id: u64) -> Vec<u8> {
    let capabilities = r#"{"extensions":{"io.modelcontextprotocol/tasks":{}}}"#;
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"wait","arguments":{{}},"_meta":{}}}}}"#,
        modern_meta(capabilities, "")
    );
    let headers = format!(
        "MCP-Protocol-Version: {MODERN_VERSION}\r\nMcp-Method: tools/call\r\nMcp-Name: wait\r\n"
    );
    post(addr, &headers, &body)
}

/// `initialize` at 2025-11-25, which opens a legacy session.
pub fn initialize(addr: SocketAddr) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{LEGACY_VERSION}","capabilities":{{}},"clientInfo":{{"name":"mcp-bench-http","version":"0.0.0"}}}}}}"#
    );
    post(addr, "", &body)
}

fn session_headers(session: &str) -> String {
    format!("Mcp-Session-Id: {session}\r\nMCP-Protocol-Version: {LEGACY_VERSION}\r\n")
}

/// `notifications/initialized` in `session`.
pub fn initialized(addr: SocketAddr, session: &str) -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    post(addr, &session_headers(session), body)
}

/// `tools/call` of `echo` in `session`.
pub fn legacy_echo(addr: SocketAddr, session: &str) -> Vec<u8> {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"{ECHO_TEXT}"}}}}}}"#
    );
    post(addr, &session_headers(session), &body)
}

/// GET `/mcp`: the session's stream of notifications.
pub fn open_stream(addr: SocketAddr, session: &str) -> Vec<u8> {
    format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\n{}\r\n",
        session_headers(session)
    )
    .into_bytes()
}
