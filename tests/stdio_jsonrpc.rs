//! JSON-RPC framing over stdio: parse errors, invalid requests, unknown methods, batches and
//! oversize messages, each followed by proof the server keeps serving.

mod support;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{Client, expect_error, per_revision};

/// The fixture's `max_message_size`.
const MAX_MESSAGE_SIZE: usize = 64 * 1024;

fn still_serving(client: &mut Client) {
    client.call_tool("echo", json!({"text": "still here"}));
}

fn malformed_json_is_a_parse_error_with_a_null_id(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    client.send_line(r#"{"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": "#);
    let response = client.next_message();
    let error = expect_error(&response);
    assert_eq!(error["code"], -32700, "{response}");
    assert_eq!(
        response.get("id"),
        Some(&Value::Null),
        "JSON-RPC 2.0 answers an unreadable request with `\"id\": null`: {response}"
    );
    still_serving(&mut client);
}

fn a_request_without_method_is_an_invalid_request(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let id = json!("no-method");
    client.send_unchecked(&json!({"jsonrpc": "2.0", "id": id, "params": {}}), revision);
    let error = expect_error(&client.response(&id));
    assert_eq!(error["code"], -32600, "{error}");
    still_serving(&mut client);
}

fn a_wrong_jsonrpc_version_is_an_invalid_request(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let id = json!("jsonrpc-1.0");
    client.send_unchecked(
        &json!({"jsonrpc": "1.0", "id": id, "method": "tools/list", "params": {}}),
        revision,
    );
    let error = expect_error(&client.response(&id));
    assert_eq!(error["code"], -32600, "{error}");
    still_serving(&mut client);
}

fn an_unknown_method_is_method_not_found(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let id = json!("unknown-method");
    let mut params = json!({});
    if revision.is_modern() {
        params["_meta"] = support::modern_meta(revision.as_str());
    }
    client.send_unchecked(
        &json!({"jsonrpc": "2.0", "id": id, "method": "no/such/method", "params": params}),
        revision,
    );
    let error = expect_error(&client.response(&id));
    assert_eq!(error["code"], -32601, "{error}");
    still_serving(&mut client);
}

fn an_unknown_notification_is_ignored(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    client.send_line(r#"{"jsonrpc": "2.0", "method": "notifications/no_such_thing"}"#);
    // Notifications get no answer, not even an error: the next message is the list.
    client.send_request("tools/list", json!({}));
    let next = client.next_message();
    assert!(
        next.get("result").is_some(),
        "expected the list, got {next}"
    );
}

fn an_oversize_message_is_refused_then_serving_goes_on(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let id = json!("oversize");
    let mut params = json!({"name": "echo", "arguments": {"text": "x".repeat(MAX_MESSAGE_SIZE)}});
    if revision.is_modern() {
        params["_meta"] = support::modern_meta(revision.as_str());
    }
    let request = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    // The id may be answered or, if the server refuses before parsing, null.
    client.send_unchecked(&request, revision);
    let response = client.next_message();
    let error = expect_error(&response);
    assert!(
        [-32600, -32700].contains(&error["code"].as_i64().unwrap_or_default()),
        "an oversize message is an invalid request (or unparsed): {response}"
    );
    let message = error["message"].as_str().unwrap_or_default().to_lowercase();
    assert!(
        ["limit", "size", "large", "long"]
            .iter()
            .any(|word| message.contains(word)),
        "the error says the message is too large: {response}"
    );
    still_serving(&mut client);
}

per_revision!(all:
    malformed_json_is_a_parse_error_with_a_null_id,
    a_request_without_method_is_an_invalid_request,
    a_wrong_jsonrpc_version_is_an_invalid_request,
    an_unknown_method_is_method_not_found,
    an_unknown_notification_is_ignored,
    an_oversize_message_is_refused_then_serving_goes_on,
);

#[test]
fn a_batch_is_answered_with_an_array_on_2025_03_26() {
    let revision = ProtocolVersion::V2025_03_26;
    let mut client = Client::fixture(revision);
    let batch = json!([
        {"jsonrpc": "2.0", "id": "batched-echo", "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "one"}}},
        {"jsonrpc": "2.0", "method": "notifications/no_such_thing"},
        {"jsonrpc": "2.0", "id": "batched-ping", "method": "ping"},
    ]);
    client.send_unchecked(&batch, revision);
    let response = client.next_message();
    let responses = response
        .as_array()
        .unwrap_or_else(|| panic!("a batch is answered by an array: {response}"));
    let mut ids: Vec<&Value> = responses.iter().map(|r| &r["id"]).collect();
    ids.sort_by_key(|id| id.to_string());
    assert_eq!(
        ids,
        [&json!("batched-echo"), &json!("batched-ping")],
        "one response per request, none for the notification: {response}"
    );
    still_serving(&mut client);
}

#[test]
fn an_empty_batch_is_an_invalid_request_on_2025_03_26() {
    let mut client = Client::fixture(ProtocolVersion::V2025_03_26);
    client.send_line("[]");
    let response = client.next_message();
    assert_eq!(expect_error(&response)["code"], -32600, "{response}");
    still_serving(&mut client);
}

fn a_batch_is_an_invalid_request(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let mut params = json!({});
    if revision.is_modern() {
        params["_meta"] = support::modern_meta(revision.as_str());
    }
    let batch = json!([{"jsonrpc": "2.0", "id": "batched", "method": "tools/list",
        "params": params}]);
    client.send_unchecked(&batch, revision);
    let response = client.next_message();
    let error = expect_error(&response);
    assert_eq!(
        error["code"], -32600,
        "{revision} has no batches: {response}"
    );
    client.assert_no_response_to(&json!("batched"));
    still_serving(&mut client);
}

mod batches_outside_2025_03_26 {
    use super::*;

    #[test]
    fn v2024_11_05() {
        a_batch_is_an_invalid_request(ProtocolVersion::V2024_11_05);
    }

    #[test]
    fn v2025_06_18() {
        a_batch_is_an_invalid_request(ProtocolVersion::V2025_06_18);
    }

    #[test]
    fn v2025_11_25() {
        a_batch_is_an_invalid_request(ProtocolVersion::V2025_11_25);
    }

    #[test]
    fn v2026_07_28() {
        a_batch_is_an_invalid_request(ProtocolVersion::V2026_07_28);
    }
}
