//! Requests in flight together: a slow call must not hold up a fast one, a panicking tool must
//! not take the server down, and a cancelled call gets no answer.

mod support;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::json;
use support::{Client, assert_text, is_error, per_revision};

/// What the fixture's `wait_for_cancellation` tool writes to stderr when its token fires.
const TOKEN_FIRED: &str = "wait_for_cancellation: token fired";
const DROPPED_UNFINISHED: &str = "wait_for_cancellation: dropped unfinished";

fn a_slow_call_does_not_delay_a_fast_one(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let slow = client.send_request(
        "tools/call",
        json!({"name": "slow", "arguments": {"millis": 2000}}),
    );
    let fast = client.send_request(
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "fast"}}),
    );
    let fast = client.received_response(&fast);
    let slow = client.received_response(&slow);
    assert!(
        fast.order < slow.order,
        "the fast call, sent second, is answered first (fast #{}, slow #{})",
        fast.order,
        slow.order
    );
    assert_text(&fast.message["result"], "fast");
    assert_text(&slow.message["result"], "slept 2000 ms");
}

/// The same without timing: a call that only ends when cancelled cannot be what the fast
/// call waits for.
fn a_blocked_call_does_not_block_others(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let blocked = client.send_request(
        "tools/call",
        json!({"name": "wait_for_cancellation", "arguments": {"millis": 60000}}),
    );
    for text in ["first", "second"] {
        assert_text(&client.call_tool("echo", json!({"text": text})), text);
    }
    let sync = client.call_tool("multiply", json!({"multiplicand": 3, "multiplier": 5}));
    assert_text(&sync, "15");
    client.assert_no_response_to(&blocked);
    client.notify("notifications/cancelled", json!({"requestId": blocked}));
}

fn a_panicking_tool_fails_alone(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let response = client.request("tools/call", json!({"name": "panics", "arguments": {}}));
    let failed = response.get("error").is_some() || is_error(&response["result"]);
    assert!(failed, "a panic is reported as a failure: {response}");
    assert_text(
        &client.call_tool("echo", json!({"text": "after the panic"})),
        "after the panic",
    );
}

fn a_cancelled_call_gets_no_response(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let cancelled = client.send_request(
        "tools/call",
        json!({"name": "wait_for_cancellation", "arguments": {"millis": 5000}}),
    );
    client.notify(
        "notifications/cancelled",
        json!({"requestId": cancelled, "reason": "the test changed its mind"}),
    );
    // The runtime fires the token and polls the call once more before dropping it: the tool
    // either sees the token in that poll or is dropped unfinished; both end the call.
    client
        .server()
        .wait_for_stderr_any(&[TOKEN_FIRED, DROPPED_UNFINISHED]);
    assert_text(&client.call_tool("echo", json!({"text": "next"})), "next");
    // After exit every line the server wrote is in: none may answer the cancelled call.
    let status = client.finish();
    assert!(status.success(), "exit status {status}");
    client.assert_no_response_to(&cancelled);
}

fn cancelling_an_unknown_request_is_harmless(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    client.notify(
        "notifications/cancelled",
        json!({"requestId": "never-sent", "reason": "races happen"}),
    );
    assert_text(&client.call_tool("echo", json!({"text": "fine"})), "fine");
}

per_revision!(all:
    a_slow_call_does_not_delay_a_fast_one,
    a_blocked_call_does_not_block_others,
    a_panicking_tool_fails_alone,
    a_cancelled_call_gets_no_response,
    cancelling_an_unknown_request_is_harmless,
);
