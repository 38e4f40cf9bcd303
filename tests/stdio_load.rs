//! Load over a real pipe: many calls in flight at once, fast, slow, failing and panicking
//! mixed, each answered exactly once with its own content, in bounded memory.
//!
//! `MCP_LOAD_CALLS` sets how many calls the big test makes (default below); the memory
//! figures are printed to stderr (`cargo test --test stdio_load -- --nocapture` shows them).

#[allow(unused_macros)]
mod support;

use std::collections::HashMap;

use serde_json::{Value, json};
use support::process::{Next, StdoutLine};
use support::{PATIENCE, ServerProcess};

/// Calls made by [`every_call_of_a_mixed_load_gets_its_own_answer`] unless `MCP_LOAD_CALLS` says.
const DEFAULT_CALLS: usize = 100_000;
/// Requests sent and not yet answered, at most.
const IN_FLIGHT: usize = 256;

/// The fixture's resident memory in KiB, from `/proc/<pid>/status`.
fn rss_kib(server: &ServerProcess) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", server.id()))
        .expect("/proc/<pid>/status is readable while the server runs");
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("a VmRSS line")
}

/// How a call of the fixture's `mixed` tool is meant to end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Fast,
    Slow,
    Fail,
    Panic,
}

impl Kind {
    /// Mostly fast calls, with slow (1 to 4 ms), failing and panicking ones throughout.
    fn of(call: usize) -> (Kind, u64) {
        match call % 16 {
            0..=8 => (Kind::Fast, 0),
            9..=12 => (Kind::Slow, 1 + (call as u64 / 16) % 4),
            13 | 14 => (Kind::Fail, (call as u64 / 16) % 2),
            _ => (Kind::Panic, 0),
        }
    }

    fn outcome(self) -> &'static str {
        match self {
            Kind::Fast | Kind::Slow => "answer",
            Kind::Fail => "fail",
            Kind::Panic => "panic",
        }
    }
}

fn token(call: usize) -> String {
    format!("token-{call}-{:x}", call.wrapping_mul(0x9e37_79b9))
}

fn request(call: usize) -> String {
    let (kind, millis) = Kind::of(call);
    json!({
        "jsonrpc": "2.0", "id": call, "method": "tools/call",
        "params": {"name": "mixed", "arguments": {
            "token": token(call), "outcome": kind.outcome(), "millis": millis
        }}
    })
    .to_string()
}

/// Check `response` is the answer `call`'s request expects.
fn check_answer(call: usize, response: &Value) {
    let (kind, _) = Kind::of(call);
    let result = response
        .get("result")
        .unwrap_or_else(|| panic!("call {call} got no result: {response}"));
    let text = result["content"][0]["text"].as_str().unwrap_or_default();
    let is_error = result["isError"] == json!(true);
    let expected = match kind {
        Kind::Fast | Kind::Slow => !is_error && text == token(call),
        Kind::Fail => is_error && text == format!("failed on purpose: {}", token(call)),
        Kind::Panic => is_error && text.contains("`mixed` failed unexpectedly"),
    };
    assert!(
        expected,
        "call {call} ({kind:?}) got another's answer: {response}"
    );
}

fn next_json(server: &mut ServerProcess) -> Value {
    match server.next_line(PATIENCE) {
        Next::Line(StdoutLine::Json(message)) => message,
        Next::Line(StdoutLine::NotJson(text)) => panic!("not JSON on stdout: {text:?}"),
        other => panic!(
            "expected a message, got {other:?}\nserver stderr:\n{}",
            server.stderr()
        ),
    }
}

/// Open a 2025-06-18 session.
fn initialize(server: &mut ServerProcess) {
    server.write_line(
        &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "load", "version": "0"}}})
        .to_string(),
    );
    let answer = next_json(server);
    assert_eq!(
        answer["result"]["protocolVersion"], "2025-06-18",
        "{answer}"
    );
    server.write_line(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
}

#[test]
fn every_call_of_a_mixed_load_gets_its_own_answer() {
    let calls = std::env::var("MCP_LOAD_CALLS")
        .ok()
        .and_then(|calls| calls.parse().ok())
        .unwrap_or(DEFAULT_CALLS);
    let warm_up = calls / 10;
    let mut server = ServerProcess::fixture();
    initialize(&mut server);

    let mut outstanding: HashMap<usize, ()> = HashMap::with_capacity(IN_FLIGHT);
    let mut sent = 0;
    let mut answered = 0;
    let mut rss_after_warm_up = None;
    let mut rss_peak = 0;
    let mut batch = String::new();
    while answered < calls {
        // Top the window up in one write.
        batch.clear();
        while sent < calls && outstanding.len() < IN_FLIGHT {
            batch.push_str(&request(sent));
            batch.push('\n');
            outstanding.insert(sent, ());
            sent += 1;
        }
        if !batch.is_empty() {
            server.write_raw(batch.as_bytes());
        }
        let response = next_json(&mut server);
        let call = response["id"]
            .as_u64()
            .and_then(|id| usize::try_from(id).ok())
            .unwrap_or_else(|| panic!("an answer to no call of ours: {response}"));
        assert!(
            outstanding.remove(&call).is_some(),
            "call {call} answered twice, or never sent: {response}"
        );
        check_answer(call, &response);
        answered += 1;
        if answered % 5_000 == 0 {
            let rss = rss_kib(&server);
            rss_peak = rss_peak.max(rss);
            if answered >= warm_up && rss_after_warm_up.is_none() {
                rss_after_warm_up = Some(rss);
            }
        }
    }
    let rss_at_end = rss_kib(&server);
    let rss_after_warm_up = rss_after_warm_up.unwrap_or(rss_at_end);
    eprintln!(
        "{calls} calls, {IN_FLIGHT} in flight: server RSS {rss_after_warm_up} KiB after \
         {warm_up} calls, {rss_peak} KiB at most, {rss_at_end} KiB at the end"
    );
    // Generous: allocator slack, not a leak, may add a little.
    assert!(
        rss_at_end <= rss_after_warm_up * 2 + 16 * 1024,
        "memory grew from {rss_after_warm_up} KiB to {rss_at_end} KiB"
    );

    server.close_stdin();
    let status = server.wait_for_exit();
    assert!(status.success(), "exit status {status}");
    match server.next_line(PATIENCE) {
        Next::Closed => {}
        other => panic!("nothing more may come after every call was answered: {other:?}"),
    }
}
