//! The life of a stdio server process: a clean stdout, and a prompt, successful exit when the
//! client closes stdin or sends SIGTERM.

mod support;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::json;
use support::{Client, ServerProcess, assert_text, per_revision};

fn printing_tools_do_not_corrupt_stdout(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let printed = client.call_tool("noisy", json!({"text": "loud"}));
    assert_text(&printed, "loud");
    assert_text(&client.call_tool("echo", json!({"text": "quiet"})), "quiet");
    // Every line written until exit must parse as a JSON-RPC message (the client checks
    // each); the tool's own output belongs on stderr, if anywhere.
    let status = client.finish();
    assert!(status.success(), "exit status {status}");
    assert!(
        client.server().stderr().contains("noise from a tool: loud"),
        "a tool's stdout output is redirected, not lost; stderr:\n{}",
        client.server().stderr()
    );
}

fn stdin_eof_ends_the_process_successfully(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    client.call_tool("echo", json!({"text": "bye"}));
    let status = client.finish();
    assert!(status.success(), "exit status after EOF: {status}");
}

#[cfg(unix)]
fn sigterm_ends_the_process_successfully(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    client.call_tool("echo", json!({"text": "bye"}));
    client.server().terminate();
    let status = client.server().wait_for_exit();
    assert!(status.success(), "exit status after SIGTERM: {status}");
}

per_revision!(all:
    printing_tools_do_not_corrupt_stdout,
    stdin_eof_ends_the_process_successfully,
);

#[cfg(unix)]
per_revision!(all: sigterm_ends_the_process_successfully);

#[test]
fn stdin_eof_before_any_message_ends_the_process_successfully() {
    let mut client = Client::new(ServerProcess::fixture());
    let status = client.finish();
    assert!(status.success(), "exit status: {status}");
}

#[test]
fn stdin_eof_while_a_call_is_running_still_ends_the_process() {
    let mut client = Client::fixture(ProtocolVersion::V2025_11_25);
    client.send_request(
        "tools/call",
        json!({"name": "wait_for_cancellation", "arguments": {"millis": 60000}}),
    );
    // The call would outlive the test's patience: the server must not wait for it.
    let status = client.finish();
    assert!(status.success(), "exit status: {status}");
}
