//! How a client opens a conversation over stdio, in each era: the legacy `initialize`
//! handshake, 2026-07-28 per-request `_meta`, and the dual-era probe between them.

mod support;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{Client, ServerProcess, expect_error, initialize_params, modern_meta, per_revision};

/// Fields only 2026-07-28 results have. A legacy client told about them may validate the
/// whole result as 2026 and reject it, so legacy answers must not carry them.
const MODERN_ONLY_RESULT_FIELDS: [&str; 3] = ["resultType", "ttlMs", "cacheScope"];

fn assert_no_modern_fields(result: &Value) {
    for field in MODERN_ONLY_RESULT_FIELDS {
        assert!(
            result.get(field).is_none(),
            "a legacy result carries the 2026-07-28 field `{field}`: {result}"
        );
    }
}

fn initialize_echoes_a_supported_revision(revision: ProtocolVersion) {
    let mut client = Client::new(ServerProcess::fixture());
    let result = client.initialize(revision.as_str());
    assert_eq!(result["protocolVersion"], revision.as_str());
    assert!(
        result["capabilities"]["tools"].is_object(),
        "a server with tools declares the `tools` capability: {result}"
    );
    assert_eq!(
        result["instructions"], "Tools for the end-to-end tests of mcp-runtime.",
        "the instructions the server was built with"
    );
    assert_no_modern_fields(&result);
}

fn ping_answers_an_empty_result(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let result = client.result("ping", Value::Null);
    assert_no_modern_fields(&result);
}

fn legacy_results_carry_no_modern_fields(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let listed = client.result("tools/list", json!({}));
    assert_no_modern_fields(&listed);
    let called = client.call_tool("echo", json!({"text": "hi"}));
    assert_no_modern_fields(&called);
}

fn a_second_initialize_is_refused(revision: ProtocolVersion) {
    let mut client = Client::fixture(revision);
    let response = client.request("initialize", initialize_params(revision.as_str()));
    expect_error(&response);
    client.result("ping", Value::Null);
}

per_revision!(legacy:
    initialize_echoes_a_supported_revision,
    ping_answers_an_empty_result,
    legacy_results_carry_no_modern_fields,
    a_second_initialize_is_refused,
);

#[test]
fn an_unknown_legacy_version_gets_the_newest_legacy_revision() {
    let mut client = Client::new(ServerProcess::fixture());
    let result = client.initialize("2024-01-01");
    assert_eq!(
        result["protocolVersion"],
        ProtocolVersion::NEWEST_LEGACY.as_str()
    );
    client.call_tool("echo", json!({"text": "still works"}));
}

#[test]
fn initialize_never_negotiates_the_modern_revision() {
    let mut client = Client::new(ServerProcess::fixture());
    let result = client.initialize(ProtocolVersion::V2026_07_28.as_str());
    assert_eq!(
        result["protocolVersion"],
        ProtocolVersion::NEWEST_LEGACY.as_str(),
        "2026-07-28 has no `initialize`; a legacy client asking for it gets a legacy revision"
    );
}

#[test]
fn a_request_before_initialize_is_refused_without_ending_the_process() {
    let mut client = Client::new(ServerProcess::fixture());
    let response = client.request("tools/list", json!({}));
    expect_error(&response);
    client.initialize(ProtocolVersion::V2025_06_18.as_str());
    client.result("tools/list", json!({}));
}

#[test]
fn ping_is_answered_before_initialize() {
    let mut client = Client::new(ServerProcess::fixture());
    client.result("ping", Value::Null);
}

#[test]
fn modern_requests_need_no_handshake() {
    let mut client = Client::fixture(ProtocolVersion::V2026_07_28);
    let result = client.result("tools/list", json!({}));
    assert_eq!(result["resultType"], "complete");
    let called = client.call_tool("echo", json!({"text": "stateless"}));
    assert_eq!(called["resultType"], "complete");
}

#[test]
fn discover_describes_the_server() {
    let mut client = Client::fixture(ProtocolVersion::V2026_07_28);
    let result = client.result("server/discover", json!({}));
    let supported: Vec<&str> = result["supportedVersions"]
        .as_array()
        .expect("validated: supportedVersions is an array")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        supported.contains(&"2026-07-28"),
        "a server answering 2026-07-28 lists it: {supported:?}"
    );
    assert!(result["capabilities"]["tools"].is_object(), "{result}");
    assert!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].is_string(),
        "the server identifies itself in `_meta`: {result}"
    );
}

#[test]
fn an_unsupported_modern_version_is_refused_with_the_supported_list() {
    let mut client = Client::new(ServerProcess::fixture());
    let id = json!("unsupported-version");
    let request = json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "tools/list",
        "params": {"_meta": modern_meta("2099-01-01")},
    });
    client.send_unchecked(&request, ProtocolVersion::V2026_07_28);
    let error = expect_error(&client.response(&id));
    assert_eq!(error["code"], -32022, "{error}");
    assert_eq!(error["data"]["requested"], "2099-01-01", "{error}");
    let supported = error["data"]["supported"]
        .as_array()
        .expect("validated: data.supported is an array");
    assert!(supported.contains(&json!("2026-07-28")), "{error}");
}

#[test]
fn a_modern_request_without_client_capabilities_is_invalid_params() {
    let mut client = Client::new(ServerProcess::fixture());
    let id = json!("no-capabilities");
    let mut meta = modern_meta("2026-07-28");
    meta.as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    let request = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/list", "params": {"_meta": meta},
    });
    client.send_unchecked(&request, ProtocolVersion::V2026_07_28);
    let error = expect_error(&client.response(&id));
    assert_eq!(error["code"], -32602, "{error}");
}

#[test]
fn methods_removed_in_2026_are_not_found_for_modern_requests() {
    let mut client = Client::new(ServerProcess::fixture());
    for method in ["initialize", "ping"] {
        let id = json!(format!("modern-{method}"));
        let mut params = match method {
            "initialize" => initialize_params("2026-07-28"),
            _ => json!({}),
        };
        params["_meta"] = modern_meta("2026-07-28");
        let request = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        client.send_unchecked(&request, ProtocolVersion::V2026_07_28);
        let error = expect_error(&client.response(&id));
        assert_eq!(
            error["code"], -32601,
            "`{method}` with modern `_meta`: {error}"
        );
    }
    // A modern `initialize` must not have pinned the process: a legacy client still can.
    client.initialize(ProtocolVersion::V2025_11_25.as_str());
}

/// The dual-era client flow: probe with `server/discover`; a client that cannot use the
/// answer falls back to `initialize` on the same process.
#[test]
fn discover_probe_then_initialize_on_the_same_process() {
    let mut client = Client::new(ServerProcess::fixture());
    let id = client.send_modern_request("server/discover", json!({}));
    let probe = client.response(&id);
    assert!(probe.get("result").is_some(), "discover answered: {probe}");
    let result = client.initialize(ProtocolVersion::V2025_06_18.as_str());
    assert_eq!(result["protocolVersion"], "2025-06-18");
    let listed = client.result("tools/list", json!({}));
    assert_no_modern_fields(&listed);
}

#[test]
fn modern_requests_are_served_on_a_legacy_session() {
    let mut client = Client::fixture(ProtocolVersion::V2025_06_18);
    let id = client.send_modern_request("tools/list", json!({}));
    let result = client.response(&id)["result"].clone();
    assert_eq!(result["resultType"], "complete", "{result}");
    let legacy = client.result("tools/list", json!({}));
    assert_no_modern_fields(&legacy);
}
