//! The request context over real pipes, in every revision: progress and log notifications
//! (each checked against the revision's schema by the test client) arrive before the response
//! and only when asked for; the heartbeat keeps a silent tool's client waiting; shared state
//! outlives calls (`examples/math.rs`).

mod support;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{Client, ServerProcess, per_revision, text_of};

/// The `progress` example with the heartbeat at `heartbeat_ms` (`"0"`: off), opened in
/// `revision`.
fn progress_server(revision: ProtocolVersion, heartbeat_ms: &str) -> Client {
    let server =
        ServerProcess::example_with_env("progress", &[("PROGRESS_HEARTBEAT_MS", heartbeat_ms)]);
    Client::open(server, revision)
}

/// Send `tools/call` with `meta` and return the notifications that came before its response,
/// and the result.
fn call_collecting(
    client: &mut Client,
    name: &str,
    arguments: Value,
    meta: Value,
) -> (Vec<Value>, Value) {
    let id = client.send_request(
        "tools/call",
        json!({"name": name, "arguments": arguments, "_meta": meta}),
    );
    let mut before = Vec::new();
    loop {
        let message = client.next_message();
        if message.get("id") == Some(&id) {
            let result = message
                .get("result")
                .unwrap_or_else(|| panic!("expected a result, got {message}"))
                .clone();
            return (before, result);
        }
        before.push(message);
    }
}

fn of_method<'a>(messages: &'a [Value], method: &str) -> Vec<&'a Value> {
    messages
        .iter()
        .filter(|message| message["method"] == method)
        .collect()
}

fn progress_and_logs_precede_the_response(revision: ProtocolVersion) {
    let mut client = progress_server(revision, "0");
    let meta = if revision.is_modern() {
        json!({"progressToken": "count-1", "io.modelcontextprotocol/logLevel": "debug"})
    } else {
        client.result("logging/setLevel", json!({"level": "debug"}));
        json!({"progressToken": "count-1"})
    };
    let (before, result) =
        call_collecting(&mut client, "count", json!({"to": 3, "step_ms": 1}), meta);
    assert_eq!(text_of(&result), "counted to 3");

    let progress = of_method(&before, "notifications/progress");
    let values: Vec<f64> = progress
        .iter()
        .map(|message| message["params"]["progress"].as_f64().unwrap())
        .collect();
    // The out-of-order reports (1.5 after 2 ...) were never sent.
    assert_eq!(values, [1.0, 2.0, 3.0], "{before:?}");
    for message in &progress {
        assert_eq!(message["params"]["progressToken"], json!("count-1"));
        assert_eq!(message["params"]["total"], json!(3.0));
        // `message` exists from 2025-03-26 on.
        assert_eq!(
            message["params"].get("message").is_some(),
            revision >= ProtocolVersion::V2025_03_26,
            "{message}"
        );
    }
    let logs = of_method(&before, "notifications/message");
    let levels: Vec<&Value> = logs.iter().map(|log| &log["params"]["level"]).collect();
    assert_eq!(levels, [&json!("debug"), &json!("info")]);
    assert_eq!(
        logs[1]["params"]["data"],
        json!({"event": "counted", "to": 3})
    );
    client.finish();
}

/// With `PROGRESS_FORWARD_TRACING=1`, the `tracing::info!` of `count` reaches the client as
/// a log message, in order with `ctx.log`'s and before the response; not below the level the
/// client asked for.
fn tracing_events_are_forwarded_when_the_server_opts_in(revision: ProtocolVersion) {
    let server = ServerProcess::example_with_env(
        "progress",
        &[
            ("PROGRESS_HEARTBEAT_MS", "0"),
            ("PROGRESS_FORWARD_TRACING", "1"),
        ],
    );
    let mut client = Client::open(server, revision);
    // Legacy levels are the session's, set before each call.
    let meta = |level: &str| {
        if revision.is_modern() {
            json!({"io.modelcontextprotocol/logLevel": level})
        } else {
            json!({})
        }
    };
    if !revision.is_modern() {
        client.result("logging/setLevel", json!({"level": "debug"}));
    }
    let (before, result) = call_collecting(
        &mut client,
        "count",
        json!({"to": 1, "step_ms": 1}),
        meta("debug"),
    );
    assert_eq!(text_of(&result), "counted to 1");
    let params: Vec<&Value> = of_method(&before, "notifications/message")
        .into_iter()
        .map(|message| &message["params"])
        .collect();
    assert_eq!(
        params,
        [
            &json!({"level": "debug", "data": "counting to 1"}),
            &json!({"level": "info", "logger": "progress",
                "data": {"message": "counting", "to": 1}}),
            &json!({"level": "info", "data": {"event": "counted", "to": 1}}),
        ],
        "{before:?}"
    );

    if !revision.is_modern() {
        client.result("logging/setLevel", json!({"level": "warning"}));
    }
    let (before, result) = call_collecting(
        &mut client,
        "count",
        json!({"to": 1, "step_ms": 1}),
        meta("warning"),
    );
    assert_eq!(text_of(&result), "counted to 1");
    assert!(before.is_empty(), "nothing at warning: {before:?}");
    client.finish();
}

fn nothing_is_sent_unless_asked(revision: ProtocolVersion) {
    let mut client = progress_server(revision, "0");
    if !revision.is_modern() {
        // Legacy sessions get every level until the client sets one.
        client.result("logging/setLevel", json!({"level": "warning"}));
    }
    let (before, result) = call_collecting(
        &mut client,
        "count",
        json!({"to": 2, "step_ms": 1}),
        json!({}),
    );
    assert_eq!(text_of(&result), "counted to 2");
    assert!(before.is_empty(), "no token and no level: {before:?}");
    client.finish();
}

fn a_silent_tool_gets_heartbeats(revision: ProtocolVersion) {
    let mut client = progress_server(revision, "100");
    let (before, result) = call_collecting(
        &mut client,
        "wait",
        json!({"ms": 650}),
        json!({"progressToken": 42}),
    );
    assert_eq!(text_of(&result), "waited 650 ms");
    let beats = of_method(&before, "notifications/progress");
    assert!(beats.len() >= 3, "heartbeats every 100 ms: {before:?}");
    let values: Vec<f64> = beats
        .iter()
        .map(|beat| beat["params"]["progress"].as_f64().unwrap())
        .collect();
    assert!(
        values.windows(2).all(|pair| pair[0] < pair[1]),
        "{values:?}"
    );
    assert!(
        beats
            .iter()
            .all(|beat| beat["params"]["progressToken"] == 42)
    );
    // Without a token, the same wait is silent.
    let (before, _) = call_collecting(&mut client, "wait", json!({"ms": 250}), json!({}));
    assert!(before.is_empty(), "{before:?}");
    client.finish();
}

fn logging_is_declared(revision: ProtocolVersion) {
    let mut client = Client::new(ServerProcess::example("progress"));
    let capabilities = if revision.is_modern() {
        client.send_modern_request("server/discover", json!({}));
        client.next_message()["result"]["capabilities"].clone()
    } else {
        client.initialize(revision.as_str())["capabilities"].clone()
    };
    assert_eq!(capabilities["logging"], json!({}), "{capabilities}");
    client.finish();
}

fn an_unknown_log_level_is_invalid_params(revision: ProtocolVersion) {
    let mut client = progress_server(revision, "0");
    // Deliberately outside the schema's `LoggingLevel`.
    let request = json!({"jsonrpc": "2.0", "id": "bad-level", "method": "logging/setLevel",
        "params": {"level": "verbose"}});
    client.send_unchecked(&request, revision);
    let error = support::expect_error(&client.response(&json!("bad-level")));
    assert_eq!(error["code"], json!(-32602));
    assert!(error["message"].as_str().unwrap().contains("verbose"));
    client.finish();
}

fn state_is_shared_by_calls_and_resources(revision: ProtocolVersion) {
    let mut client = Client::open(ServerProcess::example("math"), revision);
    for (a, b) in [(1, 2), (3, 4), (5, 6)] {
        let result = client.call_tool("add", json!({"a": a, "b": b}));
        assert_eq!(text_of(&result), (a + b).to_string());
    }
    let read = client.result("resources/read", json!({"uri": "stats://server"}));
    let stats: Value = serde_json::from_str(read["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(stats["additions"], json!(3));
    assert!(stats["uptimeSeconds"].as_f64().unwrap() >= 0.0);
    client.finish();
}

fn structured_output_per_revision(revision: ProtocolVersion) {
    let mut client = Client::open(ServerProcess::example("math"), revision);
    let tools = client.list_all_tools();
    let schema_of = |name: &str| {
        tools
            .iter()
            .find(|tool| tool["name"] == name)
            .unwrap()
            .get("outputSchema")
            .cloned()
    };
    let structured = revision >= ProtocolVersion::V2025_06_18;
    let divide_schema = schema_of("divide");
    assert_eq!(divide_schema.is_some(), structured, "{tools:?}");
    if let Some(schema) = divide_schema {
        assert_eq!(schema["type"], json!("object"));
        assert_eq!(schema["properties"]["quotient"]["type"], json!("number"));
    }
    // An array root reaches only 2026-07-28.
    assert_eq!(schema_of("squares").is_some(), revision.is_modern());
    assert!(schema_of("add").is_none());
    let icon = json!([{"src": "data:image/svg+xml;base64,PHN2Zy8+"}]);
    let icons = (revision >= ProtocolVersion::V2025_11_25).then_some(&icon);
    let add = tools.iter().find(|tool| tool["name"] == "add").unwrap();
    assert_eq!(add.get("icons"), icons, "{add}");
    // The statistics resource has the same icon, from the same revision on.
    let resources = client.result("resources/list", json!({}));
    let stats = &resources["resources"][0];
    assert_eq!(stats["uri"], "stats://server", "{resources}");
    assert_eq!(stats.get("icons"), icons, "{stats}");
    assert_eq!(
        add.get("title").is_some(),
        revision >= ProtocolVersion::V2025_06_18
    );

    let divided = client.call_tool("divide", json!({"a": 7, "b": 2}));
    let value = json!({"quotient": 3.0, "remainder": 1.0});
    assert_eq!(divided.get("structuredContent").is_some(), structured);
    if structured {
        assert_eq!(divided["structuredContent"], value);
    }
    // Every revision reads the same data as text.
    let text: Value = serde_json::from_str(&text_of(&divided)).unwrap();
    assert_eq!(text, value);

    let squares = client.call_tool("squares", json!({"n": 3}));
    assert_eq!(
        squares.get("structuredContent"),
        revision.is_modern().then_some(&json!([1, 4, 9]))
    );
    assert_eq!(text_of(&squares), "[1,4,9]");

    let failed = client.call_tool("divide", json!({"a": 1, "b": 0}));
    assert_eq!(failed["isError"], json!(true));
    assert!(failed.get("structuredContent").is_none());
    client.finish();
}

fn rich_content_per_revision(revision: ProtocolVersion) {
    let mut client = Client::open(ServerProcess::example("math"), revision);
    // The client checks the result against the revision's schema.
    let result = client.call_tool("report", json!({}));
    let blocks = result["content"].as_array().unwrap();
    let types: Vec<&str> = blocks
        .iter()
        .map(|block| block["type"].as_str().unwrap())
        .collect();
    let expected: &[&str] = match revision {
        ProtocolVersion::V2024_11_05 => &["text", "image", "text", "resource", "text"],
        ProtocolVersion::V2025_03_26 => &["text", "image", "audio", "resource", "text"],
        _ => &["text", "image", "audio", "resource", "resource_link"],
    };
    assert_eq!(types, expected);
    assert_eq!(
        blocks[0]["annotations"],
        json!({"audience": ["user"], "priority": 0.8})
    );
    assert_eq!(blocks[1]["data"], json!("iVBORw0KGgo="));
    assert_eq!(blocks[1]["mimeType"], json!("image/png"));
    if revision >= ProtocolVersion::V2025_06_18 {
        assert_eq!(blocks[4]["uri"], json!("stats://server"));
        assert_eq!(blocks[4]["mimeType"], json!("application/json"));
    } else {
        assert!(
            blocks[4]["text"]
                .as_str()
                .unwrap()
                .contains("stats://server")
        );
    }
    client.finish();
}

fn server_title_and_icons_per_revision(revision: ProtocolVersion) {
    let mut client = Client::new(ServerProcess::example("math"));
    let info = if revision.is_modern() {
        client.send_modern_request("server/discover", json!({}));
        client.next_message()["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].clone()
    } else {
        client.initialize(revision.as_str())["serverInfo"].clone()
    };
    assert_eq!(
        info.get("title").is_some(),
        revision >= ProtocolVersion::V2025_06_18,
        "{info}"
    );
    assert_eq!(
        info.get("icons"),
        (revision >= ProtocolVersion::V2025_11_25).then_some(
            &json!([{"src": "data:image/svg+xml;base64,PHN2Zy8+", "mimeType": "image/svg+xml"}])
        ),
        "{info}"
    );
    client.finish();
}

per_revision!(all:
    server_title_and_icons_per_revision,
    rich_content_per_revision,
    structured_output_per_revision,
    progress_and_logs_precede_the_response,
    tracing_events_are_forwarded_when_the_server_opts_in,
    nothing_is_sent_unless_asked,
    a_silent_tool_gets_heartbeats,
    logging_is_declared,
    state_is_shared_by_calls_and_resources,
);
per_revision!(legacy: an_unknown_log_level_is_invalid_params);
