//! Tools, resources and prompts added and removed while serving, over stdio in every
//! revision: the capabilities that say so, `list_changed` for legacy sessions once
//! initialized, tagged notifications on 2026-07-28 listen streams that opted in (and none on
//! those that did not), the lists and calls after each change, and `examples/math.rs`, which
//! adds `get_stats` after a delay. Every message is checked against the official schema of its
//! revision by the support client.

mod support;

use std::path::Path;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{Client, ServerProcess, assert_text, assert_tool_error_mentions, per_revision};

fn dynamic_server() -> ServerProcess {
    ServerProcess::spawn(Path::new(env!("CARGO_BIN_EXE_dynamic-server")))
}

/// The fixture in `revision`, and the capabilities it declared (`server/discover` for
/// 2026-07-28).
fn open(revision: ProtocolVersion) -> (Client, Value) {
    if revision.is_modern() {
        let mut client = Client::open(dynamic_server(), revision);
        let discovered = client.result("server/discover", json!({}));
        return (client, discovered["capabilities"].clone());
    }
    let mut client = Client::new(dynamic_server());
    let initialized = client.initialize(revision.as_str());
    (client, initialized["capabilities"].clone())
}

/// The next message that is a notification, failing on anything else.
fn next_notification(client: &mut Client) -> Value {
    let message = client.next_message();
    assert!(
        message.get("method").is_some() && message.get("id").is_none(),
        "expected a notification, got {message}"
    );
    message
}

fn untagged(kind: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": format!("notifications/{kind}/list_changed")})
}

fn tagged(kind: &str, stream: &Value) -> Value {
    json!({"jsonrpc": "2.0", "method": format!("notifications/{kind}/list_changed"),
           "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": stream}}})
}

fn tool_names(client: &mut Client) -> Vec<String> {
    client
        .list_all_tools()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

fn assert_unknown_tool(client: &mut Client, name: &str) {
    let error = client.error("tools/call", json!({"name": name, "arguments": {}}));
    assert_eq!(error["code"], -32602, "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains(&format!("unknown tool `{name}`")),
        "{error}"
    );
}

fn every_list_is_declared_as_changing(revision: ProtocolVersion) {
    let (mut client, capabilities) = open(revision);
    assert_eq!(capabilities["tools"], json!({"listChanged": true}));
    assert_eq!(capabilities["prompts"], json!({"listChanged": true}));
    assert_eq!(capabilities["resources"]["listChanged"], true);
    // None of either kind yet, but the lists exist.
    let prompts = client.result("prompts/list", json!({}));
    assert_eq!(prompts["prompts"], json!([]));
    let resources = client.result("resources/list", json!({}));
    assert_eq!(resources["resources"], json!([]));
}

fn legacy_sessions_hear_of_new_and_removed_tools(revision: ProtocolVersion) {
    let (mut client, _) = open(revision);
    assert!(!tool_names(&mut client).contains(&"late".to_owned()));
    assert_text(
        &client.call_tool("add_tool", json!({"name": "late"})),
        "added",
    );
    assert_eq!(next_notification(&mut client), untagged("tools"));
    assert!(tool_names(&mut client).contains(&"late".to_owned()));
    assert_text(&client.call_tool("late", json!({})), "late");

    assert_text(
        &client.call_tool("remove_tool", json!({"name": "late"})),
        "true",
    );
    assert_eq!(next_notification(&mut client), untagged("tools"));
    assert!(!tool_names(&mut client).contains(&"late".to_owned()));
    assert_unknown_tool(&mut client, "late");
    // Nothing to remove: no change, no announcement.
    assert_text(
        &client.call_tool("remove_tool", json!({"name": "late"})),
        "false",
    );

    assert_text(
        &client.call_tool("add_prompt", json!({"name": "chat"})),
        "added",
    );
    assert_eq!(next_notification(&mut client), untagged("prompts"));
    assert_text(
        &client.call_tool("add_resource", json!({"uri": "note://x"})),
        "added",
    );
    assert_eq!(next_notification(&mut client), untagged("resources"));
    let read = client.result("resources/read", json!({"uri": "note://x"}));
    assert_eq!(read["contents"][0]["text"], "note://x");
}

fn a_taken_name_is_refused(revision: ProtocolVersion) {
    let (mut client, _) = open(revision);
    // 2026-07-28 clients hear of changes only on a listen stream.
    let stream = revision.is_modern().then(|| {
        listen(
            &mut client,
            json!({"toolsListChanged": true, "promptsListChanged": true}),
        )
    });
    let refused = client.call_tool("add_tool", json!({"name": "remove_tool"}));
    assert_tool_error_mentions(&refused, &["remove_tool", "already offered"]);
    assert_text(
        &client.call_tool("add_prompt", json!({"name": "p"})),
        "added",
    );
    // The refused tool announced nothing: the next announcement is the prompt's.
    let expected = match &stream {
        Some(stream) => tagged("prompts", stream),
        None => untagged("prompts"),
    };
    assert_eq!(next_notification(&mut client), expected);
}

fn a_running_call_keeps_its_tool_after_removal(revision: ProtocolVersion) {
    let (mut client, _) = open(revision);
    assert_text(&client.call_tool("add_gate", json!({})), "added");
    let running = client.send_request("tools/call", json!({"name": "gate", "arguments": {}}));
    assert_text(
        &client.call_tool("remove_tool", json!({"name": "gate"})),
        "true",
    );
    assert_text(&client.call_tool("open_gate", json!({})), "opened");
    let finished = client.response(&running);
    assert_text(&finished["result"], "passed");
    assert_unknown_tool(&mut client, "gate");
}

/// A server whose surfaces change declares `completions` from the start: a prompt added later
/// may bring completers, and clients read the capabilities once.
fn completers_added_while_serving_are_served(revision: ProtocolVersion) {
    let (mut client, capabilities) = open(revision);
    if revision != ProtocolVersion::V2024_11_05 {
        // 2024-11-05 had `completion/complete` but no capability to declare it with.
        assert_eq!(capabilities["completions"], json!({}), "{capabilities}");
    }
    let complete = json!({"ref": {"type": "ref/prompt", "name": "paint"},
        "argument": {"name": "color", "value": "r"}});
    let error = client.error("completion/complete", complete.clone());
    assert_eq!(error["code"], -32602, "no such prompt yet: {error}");
    assert_text(&client.call_tool("add_paint", json!({})), "added");
    let completion = client.result("completion/complete", complete);
    assert_eq!(
        completion["completion"]["values"],
        json!(["red"]),
        "{completion}"
    );
}

per_revision!(all:
    completers_added_while_serving_are_served,
    every_list_is_declared_as_changing,
    a_taken_name_is_refused,
    a_running_call_keeps_its_tool_after_removal,
);

per_revision!(legacy: legacy_sessions_hear_of_new_and_removed_tools);

/// Open a listen stream asking for `notifications`; returns its id after checking that the
/// acknowledgement comes first and honors all of it.
fn listen(client: &mut Client, notifications: Value) -> Value {
    let id = client.send_request(
        "subscriptions/listen",
        json!({"notifications": notifications.clone()}),
    );
    let ack = next_notification(client);
    assert_eq!(
        ack["method"], "notifications/subscriptions/acknowledged",
        "{ack}"
    );
    assert_eq!(ack["params"]["notifications"], notifications, "{ack}");
    assert_eq!(
        ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        id
    );
    id
}

#[test]
fn listen_streams_hear_of_changes_they_opted_into_only() {
    let (mut client, _) = open(ProtocolVersion::V2026_07_28);
    let tools = listen(&mut client, json!({"toolsListChanged": true}));
    let prompts = listen(&mut client, json!({"promptsListChanged": true}));
    let everything = listen(
        &mut client,
        json!({"toolsListChanged": true, "resourcesListChanged": true}),
    );

    assert_text(
        &client.call_tool("add_tool", json!({"name": "late"})),
        "added",
    );
    // One per stream that asked, in the order the streams were opened; none for `prompts`.
    assert_eq!(next_notification(&mut client), tagged("tools", &tools));
    assert_eq!(next_notification(&mut client), tagged("tools", &everything));
    let listed = client.result("tools/list", json!({}));
    assert_eq!(listed["ttlMs"], 0, "a list that changes must not be cached");
    assert!(tool_names(&mut client).contains(&"late".to_owned()));
    assert_text(&client.call_tool("late", json!({})), "late");

    assert_text(
        &client.call_tool("add_prompt", json!({"name": "chat"})),
        "added",
    );
    assert_eq!(next_notification(&mut client), tagged("prompts", &prompts));
    assert_text(
        &client.call_tool("add_resource", json!({"uri": "note://x"})),
        "added",
    );
    assert_eq!(
        next_notification(&mut client),
        tagged("resources", &everything)
    );

    client.notify("notifications/cancelled", json!({"requestId": tools}));
    assert_text(
        &client.call_tool("remove_tool", json!({"name": "late"})),
        "true",
    );
    assert_eq!(
        next_notification(&mut client),
        tagged("tools", &everything),
        "a cancelled stream hears nothing more"
    );
    assert_unknown_tool(&mut client, "late");

    let status = client.finish();
    assert!(status.success(), "{status}");
    client.assert_no_response_to(&tools);
}

// ---- examples/math.rs ------------------------------------------------------------------------

/// The math example, adding `get_stats` after one second (perhaps before the client looks).
fn math() -> ServerProcess {
    ServerProcess::example_with_args("math", &["--stats-after", "1"])
}

fn has_get_stats(client: &mut Client) -> bool {
    tool_names(client).contains(&"get_stats".to_owned())
}

/// `get_stats` answers with the additions made so far.
fn assert_get_stats_counts(client: &mut Client) {
    assert_text(&client.call_tool("add", json!({"a": 1, "b": 2})), "3");
    let stats = client.call_tool("get_stats", json!({}));
    let text = stats["content"][0]["text"].as_str().unwrap();
    let stats: Value = serde_json::from_str(text).unwrap();
    assert_eq!(stats["additions"], 1, "{stats}");
    assert!(stats["uptimeSeconds"].is_number(), "{stats}");
}

fn math_adds_get_stats_and_tells_legacy_clients(revision: ProtocolVersion) {
    let mut client = Client::new(math());
    let initialized = client.initialize(revision.as_str());
    assert_eq!(
        initialized["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    // Listed after `notifications/initialized`: if it is not there yet, it is announced.
    if !has_get_stats(&mut client) {
        assert_eq!(next_notification(&mut client), untagged("tools"));
        assert!(has_get_stats(&mut client));
    }
    assert_get_stats_counts(&mut client);
}

per_revision!(legacy: math_adds_get_stats_and_tells_legacy_clients);

#[test]
fn math_adds_get_stats_and_tells_listening_modern_clients() {
    let mut client = Client::open(math(), ProtocolVersion::V2026_07_28);
    let stream = listen(&mut client, json!({"toolsListChanged": true}));
    if !has_get_stats(&mut client) {
        assert_eq!(next_notification(&mut client), tagged("tools", &stream));
        assert!(has_get_stats(&mut client));
    }
    assert_get_stats_counts(&mut client);
}

#[test]
fn math_refuses_a_delay_that_is_not_a_number() {
    let mut server = ServerProcess::example_with_args("math", &["--stats-after", "soon"]);
    let status = server.wait_for_exit();
    assert_eq!(status.code(), Some(2), "{status}");
    assert!(
        server
            .stderr()
            .contains("`soon` is not a number of seconds")
    );
}
