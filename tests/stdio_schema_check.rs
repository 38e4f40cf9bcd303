//! The schema check every stdio test relies on: it must accept the spec's shapes and reject
//! wrong ones, or a passing end-to-end test would prove nothing.

mod support;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::per_revision;
use support::schema::{check_batch_envelope, check_client_message, check_server_message};

fn text_result(revision: ProtocolVersion) -> Value {
    let mut result = json!({"content": [{"type": "text", "text": "5"}]});
    if revision.is_modern() {
        result["resultType"] = json!("complete");
    }
    result
}

fn accepts_a_well_formed_tool_result(revision: ProtocolVersion) {
    let response = json!({"jsonrpc": "2.0", "id": 3, "result": text_result(revision)});
    check_server_message(revision, Some("tools/call"), &response).unwrap();
}

fn rejects_a_content_block_without_type(revision: ProtocolVersion) {
    let mut response = json!({"jsonrpc": "2.0", "id": 3, "result": text_result(revision)});
    response["result"]["content"][0]
        .as_object_mut()
        .unwrap()
        .remove("type");
    let violation = check_server_message(revision, Some("tools/call"), &response)
        .expect_err("a content block without `type` is not a ContentBlock");
    let report = violation.to_string();
    assert!(
        report.contains("CallToolResult"),
        "names the type: {report}"
    );
    assert!(report.contains("/content/0"), "names the place: {report}");
}

fn rejects_an_error_without_message(revision: ProtocolVersion) {
    let response = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32601}});
    check_server_message(revision, Some("tools/call"), &response)
        .expect_err("`error.message` is required");
}

fn rejects_a_null_id_error_with_a_string_code(revision: ProtocolVersion) {
    let good = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "bad"}});
    check_server_message(revision, None, &good).unwrap();
    let bad = json!({"jsonrpc": "2.0", "id": null, "error": {"code": "-32700", "message": "bad"}});
    check_server_message(revision, None, &bad).expect_err("`error.code` is an integer");
}

fn rejects_a_response_without_jsonrpc(revision: ProtocolVersion) {
    let response = json!({"id": 3, "result": text_result(revision)});
    check_server_message(revision, Some("tools/call"), &response)
        .expect_err("`jsonrpc: \"2.0\"` is required");
}

fn rejects_an_initialize_result_without_server_info(revision: ProtocolVersion) {
    let result = json!({"protocolVersion": revision.as_str(), "capabilities": {}});
    let response = json!({"jsonrpc": "2.0", "id": 1, "result": result});
    check_server_message(revision, Some("initialize"), &response)
        .expect_err("`serverInfo` is required");
}

per_revision!(
    all: accepts_a_well_formed_tool_result,
    rejects_a_content_block_without_type,
    rejects_an_error_without_message,
    rejects_a_null_id_error_with_a_string_code,
    rejects_a_response_without_jsonrpc,
);
per_revision!(legacy: rejects_an_initialize_result_without_server_info);

#[test]
fn a_modern_result_needs_result_type() {
    let response = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": []}});
    check_server_message(ProtocolVersion::V2026_07_28, Some("tools/call"), &response)
        .expect_err("2026-07-28 results carry `resultType`");
    check_server_message(ProtocolVersion::V2025_11_25, Some("tools/call"), &response).unwrap();
}

#[test]
fn a_modern_list_needs_cache_hints() {
    let mut result = json!({"tools": [], "resultType": "complete"});
    let response = |result: &Value| json!({"jsonrpc": "2.0", "id": 3, "result": result});
    check_server_message(
        ProtocolVersion::V2026_07_28,
        Some("tools/list"),
        &response(&result),
    )
    .expect_err("2026-07-28 lists carry `ttlMs` and `cacheScope`");
    result["ttlMs"] = json!(0);
    result["cacheScope"] = json!("public");
    check_server_message(
        ProtocolVersion::V2026_07_28,
        Some("tools/list"),
        &response(&result),
    )
    .unwrap();
}

#[test]
fn unsupported_version_errors_need_their_data() {
    let mut response = json!({
        "jsonrpc": "2.0",
        "id": 3,
        "error": {"code": -32022, "message": "unsupported", "data": {"requested": "1999-01-01"}},
    });
    check_server_message(ProtocolVersion::V2026_07_28, None, &response)
        .expect_err("-32022 needs `data.supported`");
    response["error"]["data"]["supported"] = json!(["2026-07-28"]);
    check_server_message(ProtocolVersion::V2026_07_28, None, &response).unwrap();
}

#[test]
fn modern_servers_must_not_send_resource_not_found() {
    let response = json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32002, "message": "gone"}});
    check_server_message(ProtocolVersion::V2026_07_28, None, &response)
        .expect_err("-32002 is forbidden in 2026-07-28");
    check_server_message(ProtocolVersion::V2025_06_18, None, &response).unwrap();
}

#[test]
fn a_result_for_a_method_the_revision_lacks_is_rejected() {
    let result = json!({"supportedVersions": [], "capabilities": {}, "ttlMs": 0,
        "cacheScope": "public", "resultType": "complete"});
    let response = json!({"jsonrpc": "2.0", "id": 3, "result": result});
    check_server_message(
        ProtocolVersion::V2026_07_28,
        Some("server/discover"),
        &response,
    )
    .unwrap();
    check_server_message(
        ProtocolVersion::V2025_11_25,
        Some("server/discover"),
        &response,
    )
    .expect_err("2025-11-25 has no server/discover");
}

#[test]
fn batches_exist_only_in_2025_03_26() {
    let batch = json!([{"jsonrpc": "2.0", "id": 1, "result": {}}]);
    check_batch_envelope(ProtocolVersion::V2025_03_26, &batch).unwrap();
    for revision in [ProtocolVersion::V2025_06_18, ProtocolVersion::V2026_07_28] {
        check_batch_envelope(revision, &batch).expect_err("no batches in this revision");
    }
}

#[test]
fn client_messages_are_checked_too() {
    let meta = support::modern_meta("2026-07-28");
    let modern = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": meta}});
    check_client_message(ProtocolVersion::V2026_07_28, &modern).unwrap();
    let without_meta = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}});
    check_client_message(ProtocolVersion::V2026_07_28, &without_meta)
        .expect_err("2026-07-28 requests carry `_meta`");
    check_client_message(ProtocolVersion::V2025_06_18, &without_meta).unwrap();
}

/// The same checks on a live pipe: a stand-in server that misbehaves must fail the test.
#[cfg(unix)]
mod live {
    use serde_json::{Value, json};

    use super::support::{Client, ServerProcess};

    /// A client of a script that reads one request and writes `lines` back.
    fn client_of_script(lines: &[&str]) -> Client {
        let script = lines
            .iter()
            .map(|line| format!("printf '%s\\n' '{line}'"))
            .collect::<Vec<_>>()
            .join("; ");
        Client::new(ServerProcess::shell(&format!(
            "read request; {script}; sleep 5"
        )))
    }

    #[test]
    #[should_panic(expected = "stdout must carry only JSON-RPC messages")]
    fn a_line_that_is_not_json_fails() {
        let mut client = client_of_script(&["Listening on stdio..."]);
        client.request("ping", Value::Null);
    }

    #[test]
    #[should_panic(expected = "does not conform to 2025-11-25 `CallToolResult`")]
    fn a_result_of_the_wrong_shape_fails() {
        let mut client =
            client_of_script(&[r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"text":"5"}]}}"#]);
        client.request("tools/call", json!({"name": "add"}));
    }

    #[test]
    #[should_panic(expected = "which is not an outstanding request")]
    fn a_second_answer_fails() {
        let answer = r#"{"jsonrpc":"2.0","id":1,"result":{}}"#;
        let mut client = client_of_script(&[answer, answer]);
        client.request("ping", Value::Null);
        client.request("ping", Value::Null);
    }

    #[test]
    fn a_well_formed_answer_passes() {
        let mut client = client_of_script(&[r#"{"jsonrpc":"2.0","id":1,"result":{}}"#]);
        let response = client.request("ping", Value::Null);
        assert_eq!(response["result"], json!({}));
    }
}
