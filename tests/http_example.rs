//! The `calculator` example serving Streamable HTTP (`--http ADDR`): a real process on a real
//! socket, both eras, then a graceful stop on SIGTERM.

// Not every helper is used here (`per_revision!` among them).
#[allow(unused_macros)]
mod support;

use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::json;
use support::http::send;

const JSON: (&str, &str) = ("Content-Type", "application/json");
const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");

#[test]
fn the_calculator_serves_http_when_asked_and_stops_on_sigterm() {
    let mut child = Command::new(support::example_path("calculator"))
        .args(["--http", "127.0.0.1:0"])
        .env("MCP_LOG", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = BufReader::new(child.stderr.take().unwrap());
    // The log line says where it listens: `... serving MCP over HTTP at http://ADDR/mcp`.
    let addr: SocketAddr = loop {
        let mut line = String::new();
        assert!(
            stderr.read_line(&mut line).unwrap() > 0,
            "the server exited"
        );
        if let Some((_, rest)) = line.split_once("http://") {
            break rest.split('/').next().unwrap().parse().unwrap();
        }
    };

    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "add", "arguments": {"a": 2, "b": 3},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let headers = [
        JSON,
        ACCEPT,
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "add"),
    ];
    let reply = send(addr, "POST", &headers, &serde_json::to_vec(&call).unwrap());
    assert_eq!(reply.status, 200);
    let answer = reply.message(ProtocolVersion::V2026_07_28, Some("tools/call"));
    assert_eq!(answer["result"]["content"][0]["text"], "5");

    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": support::initialize_params("2025-06-18")});
    let reply = send(
        addr,
        "POST",
        &[JSON, ACCEPT],
        &serde_json::to_vec(&initialize).unwrap(),
    );
    assert_eq!(reply.status, 200);
    reply.message(ProtocolVersion::V2025_06_18, Some("initialize"));
    assert!(reply.header("mcp-session-id").is_some());

    let stopped = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(stopped.success());
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "still running after SIGTERM");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(status.success(), "{status}");
}
