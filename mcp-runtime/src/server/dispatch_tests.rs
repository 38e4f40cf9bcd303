//! The dispatcher end to end, with hand-written tools: lines in, answers out.

use std::time::Duration;

use serde_json::{Value, json};

use crate::dispatch::session::Session;
use crate::dispatch::test_tools::{Behaviour, named, scripted};
use crate::dispatch::{Dispatcher, Reply};
use crate::handler::Tools;
use crate::protocol::ServerInfo;
use crate::server::Server;

const MODERN: &str = "2026-07-28";

/// One client connection to a test server.
struct Connection {
    dispatcher: Dispatcher,
    session: Session,
}

fn tools() -> Tools {
    Tools::new()
        .with(named("echo"))
        .with(scripted("probe", Behaviour::Probe))
        .with(scripted("sleep", Behaviour::Sleep))
        .with(scripted("await_cancel", Behaviour::AwaitCancel))
        .with(scripted("panic", Behaviour::Panic))
        .with(scripted("panic_early", Behaviour::PanicEarly))
}

fn server() -> Server {
    Server::new(ServerInfo::new("test-server", "1.2.3").with_title("Test Server"))
        .instructions("Use the tools.")
        .tools(tools())
}

impl Connection {
    fn new() -> Self {
        Self::to(server())
    }

    fn to(server: Server) -> Self {
        Connection {
            dispatcher: server.dispatcher().unwrap(),
            session: Session::new(),
        }
    }

    fn start(&mut self, message: &Value) -> Reply {
        self.start_raw(&message.to_string())
    }

    fn start_raw(&mut self, line: &str) -> Reply {
        self.dispatcher
            .handle_bytes(line.as_bytes(), &mut self.session)
    }

    async fn send(&mut self, message: Value) -> Option<Value> {
        let reply = self.start(&message);
        answer(reply).await
    }

    async fn send_raw(&mut self, line: &str) -> Option<Value> {
        let reply = self.start_raw(line);
        answer(reply).await
    }

    async fn initialize(&mut self, version: &str) -> Value {
        let answer = self
            .send(request(
                0,
                "initialize",
                json!({
                    "protocolVersion": version,
                    "capabilities": {"roots": {"listChanged": true}},
                    "clientInfo": {"name": "test-client", "version": "0"}
                }),
            ))
            .await
            .unwrap();
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        answer
    }
}

async fn answer(reply: Reply) -> Option<Value> {
    let message = match reply {
        Reply::None => return None,
        Reply::Ready(message) => message,
        Reply::Pending(call) => call.await?,
    };
    let bytes = message.as_bytes();
    assert!(!bytes.contains(&b'\n'), "an answer must fit on one line");
    Some(serde_json::from_slice(bytes).unwrap())
}

fn request(id: i64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// A 2026-07-28 request: `params` with the required `_meta` added.
fn modern(id: i64, method: &str, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"sampling": {}},
    });
    request(id, method, params)
}

fn error_code(answer: &Value) -> i64 {
    answer["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error, got {answer}"))
}

fn text(answer: &Value) -> &str {
    answer["result"]["content"][0]["text"].as_str().unwrap()
}

// ---- legacy lifecycle ----

#[tokio::test]
async fn initialize_echoes_a_supported_legacy_version() {
    for version in ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] {
        let answer = Connection::new().initialize(version).await;
        assert_eq!(answer["id"], json!(0));
        assert_eq!(answer["result"]["protocolVersion"], json!(version));
        assert_eq!(
            answer["result"]["capabilities"],
            json!({"tools": {}, "logging": {}})
        );
        assert_eq!(answer["result"]["serverInfo"]["name"], json!("test-server"));
        assert_eq!(answer["result"]["instructions"], json!("Use the tools."));
        assert!(answer["result"].get("resultType").is_none());
    }
}

#[tokio::test]
async fn initialize_answers_the_newest_legacy_version_otherwise() {
    for asked in ["2024-01-01", "2099-12-31", MODERN] {
        let answer = Connection::new().initialize(asked).await;
        assert_eq!(
            answer["result"]["protocolVersion"],
            json!("2025-11-25"),
            "{asked}"
        );
    }
}

#[tokio::test]
async fn a_second_initialize_is_an_invalid_request() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    let answer = connection
        .send(request(
            5,
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}}),
        ))
        .await
        .unwrap();
    assert_eq!(answer["id"], json!(5));
    assert_eq!(error_code(&answer), -32600);
}

#[tokio::test]
async fn initialize_without_a_version_is_invalid_params() {
    let answer = Connection::new()
        .send(request(1, "initialize", json!({"capabilities": {}})))
        .await
        .unwrap();
    assert_eq!(error_code(&answer), -32602);
}

#[tokio::test]
async fn requests_before_initialize_are_refused_and_serving_goes_on() {
    let mut connection = Connection::new();
    let answer = connection
        .send(request(1, "tools/list", json!({})))
        .await
        .unwrap();
    assert_eq!(answer["id"], json!(1));
    assert_eq!(error_code(&answer), -32602);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize")
    );
    // The same process still initializes and serves.
    connection.initialize("2025-06-18").await;
    let answer = connection
        .send(request(2, "tools/list", json!({})))
        .await
        .unwrap();
    assert!(answer["result"]["tools"].is_array());
}

#[tokio::test]
async fn ping_works_before_and_after_initialize() {
    let mut connection = Connection::new();
    let ping = || json!({"jsonrpc": "2.0", "id": "p", "method": "ping"});
    assert_eq!(
        connection.send(ping()).await.unwrap(),
        json!({"jsonrpc": "2.0", "id": "p", "result": {}})
    );
    connection.initialize("2024-11-05").await;
    assert_eq!(connection.send(ping()).await.unwrap()["result"], json!({}));
}

#[tokio::test]
async fn unknown_legacy_methods_are_method_not_found() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    let answer = connection
        .send(request(3, "prompts/list", json!({})))
        .await
        .unwrap();
    assert_eq!(error_code(&answer), -32601);
    let answer = connection
        .send(json!({"jsonrpc": "2.0", "id": 4, "method": "server/discover"}))
        .await
        .unwrap();
    assert_eq!(error_code(&answer), -32601);
}

#[tokio::test]
async fn notifications_and_client_responses_get_no_answer() {
    let mut connection = Connection::new();
    for message in [
        json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json!({"jsonrpc": "2.0", "method": "notifications/whatever", "params": {}}),
        json!({"jsonrpc": "2.0", "id": "s-1", "result": {}}),
        json!({"jsonrpc": "2.0", "id": "s-2", "error": {"code": 1, "message": "no"}}),
    ] {
        assert_eq!(connection.send(message.clone()).await, None, "{message}");
    }
}

// ---- framing errors ----

#[tokio::test]
async fn malformed_json_is_a_parse_error_with_null_id() {
    let mut connection = Connection::new();
    let answer = connection
        .send_raw(r#"{"jsonrpc": "2.0", "id": 1,"#)
        .await
        .unwrap();
    assert_eq!(answer["id"], Value::Null);
    assert_eq!(error_code(&answer), -32700);
    // Serving goes on.
    let answer = connection
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await
        .unwrap();
    assert_eq!(answer["result"], json!({}));
}

#[tokio::test]
async fn an_invalid_request_echoes_its_id() {
    let answer = Connection::new()
        .send(json!({"jsonrpc": "2.0", "id": 8, "method": ["ping"]}))
        .await
        .unwrap();
    assert_eq!(answer["id"], json!(8));
    assert_eq!(error_code(&answer), -32600);
}

#[tokio::test]
async fn an_invalid_notification_gets_no_answer() {
    assert_eq!(
        Connection::new()
            .send(json!({"jsonrpc": "1.0", "method": "notifications/initialized"}))
            .await,
        None
    );
}

// ---- tools ----

#[tokio::test]
async fn tools_list_renders_for_the_negotiated_revision() {
    let mut old = Connection::new();
    old.initialize("2024-11-05").await;
    let answer = old.send(request(1, "tools/list", json!({}))).await.unwrap();
    let tools = answer["result"]["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 6);
    assert_eq!(
        tools[0],
        json!({"name": "echo", "description": "test tool echo", "inputSchema": {"type": "object"}})
    );
    assert!(answer["result"].get("nextCursor").is_none());
    assert!(answer["result"].get("resultType").is_none());
}

#[tokio::test]
async fn tools_list_paginates_with_opaque_cursors() {
    let mut connection = Connection::to(server().page_size(4));
    connection.initialize("2025-06-18").await;
    let first = connection
        .send(request(1, "tools/list", json!({})))
        .await
        .unwrap();
    assert_eq!(first["result"]["tools"].as_array().unwrap().len(), 4);
    let cursor = first["result"]["nextCursor"].clone();
    assert!(cursor.is_string());
    let second = connection
        .send(request(2, "tools/list", json!({"cursor": cursor})))
        .await
        .unwrap();
    assert_eq!(second["result"]["tools"].as_array().unwrap().len(), 2);
    assert!(second["result"].get("nextCursor").is_none());

    for bad in [json!("nope"), json!(3)] {
        let answer = connection
            .send(request(3, "tools/list", json!({"cursor": bad})))
            .await
            .unwrap();
        assert_eq!(error_code(&answer), -32602, "{bad}");
    }
}

#[tokio::test]
async fn a_call_answers_with_the_tools_result() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    let answer = connection
        .send(request(
            7,
            "tools/call",
            json!({"name": "echo", "arguments": {"a": 1}}),
        ))
        .await
        .unwrap();
    assert_eq!(
        answer,
        json!({"jsonrpc": "2.0", "id": 7, "result": {"content": [{"type": "text", "text": "{\"a\":1}"}]}})
    );
}

#[tokio::test]
async fn missing_or_null_arguments_are_an_empty_object() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    for params in [
        json!({"name": "echo"}),
        json!({"name": "echo", "arguments": null}),
    ] {
        let answer = connection
            .send(request(1, "tools/call", params))
            .await
            .unwrap();
        assert_eq!(text(&answer), "{}");
    }
}

#[tokio::test]
async fn arguments_a_hand_written_tool_cannot_get_built_are_invalid_params() {
    // Well-formed, so the decoder takes them; a tool reading `call.arguments` needs them
    // built, which serde_json cannot do. (A generated tool reads them from the text, and
    // answers an argument error only for a parameter it cannot read.)
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    for arguments in [
        r#"{"a":1e400}"#,
        &format!("{{\"a\":{}{}}}", "[".repeat(200), "]".repeat(200)),
    ] {
        let line = format!(
            r#"{{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{{"name":"echo","arguments":{arguments}}}}}"#
        );
        let answer = connection.send_raw(&line).await.unwrap();
        assert_eq!(error_code(&answer), -32602, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(
            message.starts_with("`arguments` cannot be read: "),
            "{message}"
        );
    }
    // The connection goes on.
    let answer = connection
        .send(request(
            4,
            "tools/call",
            json!({"name": "echo", "arguments": {"a": 1}}),
        ))
        .await
        .unwrap();
    assert_eq!(text(&answer), r#"{"a":1}"#);
}

#[tokio::test]
async fn malformed_calls_are_invalid_params() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    for params in [
        json!({"name": "echo", "arguments": [1, 2]}),
        json!({"name": "echo", "arguments": "a=1"}),
        json!({"arguments": {}}),
        json!({"name": 5}),
    ] {
        let answer = connection
            .send(request(1, "tools/call", params.clone()))
            .await
            .unwrap();
        assert_eq!(error_code(&answer), -32602, "{params}");
    }
    let answer = connection
        .send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call"}))
        .await
        .unwrap();
    assert_eq!(error_code(&answer), -32602);
}

#[tokio::test]
async fn an_unknown_tool_is_invalid_params_naming_it() {
    let mut connection = Connection::new();
    connection.initialize("2025-11-25").await;
    let answer = connection
        .send(request(1, "tools/call", json!({"name": "missing"})))
        .await
        .unwrap();
    assert_eq!(error_code(&answer), -32602);
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`missing`")
    );
}

#[tokio::test]
async fn a_legacy_call_sees_the_session_revision_and_capabilities() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    let answer = connection
        .send(request(
            1,
            "tools/call",
            json!({"name": "probe", "_meta": {"progressToken": "tok"}}),
        ))
        .await
        .unwrap();
    assert_eq!(
        answer["result"]["structuredContent"],
        json!({
            "revision": "2025-06-18",
            "capabilities": {"roots": {"listChanged": true}},
            "progressToken": "tok"
        })
    );
}

#[tokio::test]
async fn a_panicking_tool_gives_an_error_result_and_serving_goes_on() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    for (id, tool) in [(1, "panic"), (2, "panic_early")] {
        let answer = connection
            .send(request(id, "tools/call", json!({"name": tool})))
            .await
            .unwrap();
        assert_eq!(answer["id"], json!(id));
        assert_eq!(answer["result"]["isError"], json!(true));
        let message = text(&answer);
        assert!(
            message.contains(tool) && !message.contains("broke"),
            "{message}"
        );
    }
    let answer = connection
        .send(request(3, "tools/call", json!({"name": "echo"})))
        .await
        .unwrap();
    assert_eq!(text(&answer), "{}");
}

#[tokio::test]
async fn a_call_whose_tool_never_waits_is_answered_as_it_is_dispatched() {
    for version in ["2025-11-25", MODERN] {
        let mut connection = Connection::new();
        let call = |id: i64, name: &str| {
            let params = json!({"name": name, "arguments": {"n": id}});
            if version == MODERN {
                modern(id, "tools/call", params)
            } else {
                request(id, "tools/call", params)
            }
        };
        if version != MODERN {
            connection.initialize(version).await;
        }
        // Nothing of it is left running: its answer is ready, its id free again.
        for id in [1, 1, 2] {
            let Reply::Ready(answer) = connection.start(&call(id, "echo")) else {
                panic!("{version}: an echo is answered at once");
            };
            let answer: Value = serde_json::from_slice(answer.as_bytes()).unwrap();
            assert_eq!(answer["id"], json!(id), "{version}");
            assert_eq!(text(&answer), format!(r#"{{"n":{id}}}"#), "{version}");
            assert_eq!(connection.session.in_flight().len(), 0, "{version}");
        }
        // A panic before the tool's first wait is answered at once too, as an error result.
        let Reply::Ready(answer) = connection.start(&call(3, "panic")) else {
            panic!("{version}: a panic on the first poll is answered at once");
        };
        let answer: Value = serde_json::from_slice(answer.as_bytes()).unwrap();
        assert_eq!(answer["result"]["isError"], json!(true), "{version}");
        // A tool that waits runs on, in flight until it ends.
        if version != MODERN {
            let Reply::Pending(running) = connection.start(&call(4, "await_cancel")) else {
                panic!("{version}: a waiting tool is pending");
            };
            assert_eq!(connection.session.in_flight().len(), 1);
            connection
                .send(json!({
                    "jsonrpc": "2.0",
                    "method": "notifications/cancelled",
                    "params": {"requestId": 4}
                }))
                .await;
            assert!(running.await.is_none(), "cancelled: nothing to answer");
            assert_eq!(connection.session.in_flight().len(), 0);
        }
    }
}

#[tokio::test(start_paused = true)]
async fn a_slow_call_does_not_delay_a_fast_one() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    let call = |id: i64, ms: u64| {
        request(
            id,
            "tools/call",
            json!({"name": "sleep", "arguments": {"ms": ms}}),
        )
    };
    let slow = tokio::spawn(answer(connection.start(&call(1, 10_000))));
    let fast = tokio::spawn(answer(connection.start(&call(2, 10))));
    let (finished_first, _) = tokio::select! {
        fast = fast => ("fast", fast),
        slow = slow => ("slow", slow),
    };
    assert_eq!(finished_first, "fast");
}

#[tokio::test]
async fn a_cancelled_call_gets_no_answer() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    let call = connection.start(&request(9, "tools/call", json!({"name": "await_cancel"})));
    assert_eq!(connection.session.in_flight().len(), 1);
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 9, "reason": "user gave up"}});
    assert_eq!(connection.send(cancel).await, None);
    let answered = tokio::time::timeout(Duration::from_secs(5), answer(call))
        .await
        .expect("the tool saw its cancellation");
    assert_eq!(answered, None);
    assert_eq!(connection.session.in_flight().len(), 0);
}

#[tokio::test]
async fn cancelling_an_unknown_request_is_harmless() {
    let mut connection = Connection::new();
    connection.initialize("2025-11-25").await;
    for params in [
        json!({"requestId": 404}),
        json!({}),
        json!({"requestId": null}),
    ] {
        let cancel =
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params});
        assert_eq!(connection.send(cancel).await, None);
    }
    let answer = connection
        .send(request(1, "tools/call", json!({"name": "echo"})))
        .await
        .unwrap();
    assert_eq!(text(&answer), "{}");
}

#[tokio::test]
async fn an_id_already_running_is_refused() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    let running = connection.start(&request(1, "tools/call", json!({"name": "await_cancel"})));
    let answer = connection
        .send(request(1, "tools/call", json!({"name": "echo"})))
        .await
        .unwrap();
    assert_eq!(error_code(&answer), -32600);
    drop(running);
}

// ---- modern (2026-07-28) ----

#[tokio::test]
async fn discover_on_a_fresh_process_does_not_pin_the_era() {
    let mut connection = Connection::new();
    let answer = connection
        .send(modern(1, "server/discover", json!({})))
        .await
        .unwrap();
    let result = &answer["result"];
    assert_eq!(
        result["supportedVersions"],
        json!([
            "2026-07-28",
            "2025-11-25",
            "2025-06-18",
            "2025-03-26",
            "2024-11-05"
        ])
    );
    assert_eq!(result["capabilities"], json!({"tools": {}, "logging": {}}));
    assert_eq!(result["instructions"], json!("Use the tools."));
    assert_eq!(result["resultType"], json!("complete"));
    assert!(result["ttlMs"].as_u64().is_some());
    assert_eq!(result["cacheScope"], json!("public"));
    assert_eq!(
        result["_meta"]["io.modelcontextprotocol/serverInfo"],
        json!({"name": "test-server", "version": "1.2.3", "title": "Test Server"})
    );
    // Still fresh: a legacy client may initialize now.
    let answer = connection.initialize("2025-03-26").await;
    assert_eq!(answer["result"]["protocolVersion"], json!("2025-03-26"));
}

#[tokio::test]
async fn modern_requests_are_served_beside_a_legacy_session() {
    let mut connection = Connection::new();
    connection.initialize("2024-11-05").await;
    let answer = connection
        .send(modern(1, "tools/list", json!({})))
        .await
        .unwrap();
    assert_eq!(answer["result"]["resultType"], json!("complete"));
    assert_eq!(answer["result"]["cacheScope"], json!("public"));
    assert!(answer["result"]["ttlMs"].is_u64());
    assert!(answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    assert_eq!(answer["result"]["tools"].as_array().unwrap().len(), 6);
}

#[tokio::test]
async fn a_modern_call_is_answered_in_2026_shape_with_its_own_capabilities() {
    let mut connection = Connection::new();
    let mut message = modern(1, "tools/call", json!({"name": "probe"}));
    message["params"]["_meta"]["progressToken"] = json!(17);
    let answer = connection.send(message).await.unwrap();
    let result = &answer["result"];
    assert_eq!(result["resultType"], json!("complete"));
    assert!(result["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    assert!(result.get("ttlMs").is_none());
    assert_eq!(
        result["structuredContent"],
        json!({"revision": MODERN, "capabilities": {"sampling": {}}, "progressToken": 17})
    );
    // Stateless: the connection is still fresh.
    assert!(connection.session.legacy().is_none());
}

#[tokio::test]
async fn an_unsupported_modern_version_lists_the_supported_ones() {
    let mut message = modern(1, "tools/list", json!({}));
    message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("2027-01-01");
    let answer = Connection::new().send(message).await.unwrap();
    assert_eq!(error_code(&answer), -32022);
    assert_eq!(answer["error"]["data"]["requested"], json!("2027-01-01"));
    assert_eq!(answer["error"]["data"]["supported"][0], json!(MODERN));
}

#[tokio::test]
async fn a_modern_request_without_capabilities_is_invalid_params() {
    let message = request(
        1,
        "tools/list",
        json!({"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}),
    );
    let answer = Connection::new().send(message).await.unwrap();
    assert_eq!(error_code(&answer), -32602);
}

#[tokio::test]
async fn removed_methods_are_not_found_in_the_modern_era() {
    let mut connection = Connection::new();
    for method in ["initialize", "ping", "logging/setLevel", "made/up"] {
        let answer = connection
            .send(modern(1, method, json!({"protocolVersion": "2025-06-18"})))
            .await
            .unwrap();
        assert_eq!(error_code(&answer), -32601, "{method}");
    }
    // A modern `initialize` did not open a legacy session either.
    assert!(connection.session.legacy().is_none());
}

// ---- batches ----

#[tokio::test]
async fn a_2025_03_26_session_answers_batches_in_order() {
    let mut connection = Connection::new();
    connection.initialize("2025-03-26").await;
    let batch = json!([
        request(1, "tools/call", json!({"name": "sleep", "arguments": {"ms": 20}})),
        {"jsonrpc": "2.0", "method": "notifications/progress", "params": {}},
        request(2, "ping", json!({})),
        request(3, "initialize", json!({"protocolVersion": "2025-03-26"})),
        5,
    ]);
    let answer = connection.send(batch).await.unwrap();
    let answers = answer.as_array().unwrap();
    assert_eq!(answers.len(), 4);
    assert_eq!(text(&answers[0]), "slept");
    assert_eq!(answers[1]["result"], json!({}));
    assert_eq!(answers[2]["id"], json!(3));
    assert_eq!(error_code(&answers[2]), -32600);
    assert_eq!(answers[3]["id"], Value::Null);
    assert_eq!(error_code(&answers[3]), -32600);
}

#[tokio::test]
async fn a_batch_of_notifications_gets_no_answer() {
    let mut connection = Connection::new();
    connection.initialize("2025-03-26").await;
    let batch = json!([{"jsonrpc": "2.0", "method": "notifications/initialized"}]);
    assert_eq!(connection.send(batch).await, None);
}

#[tokio::test]
async fn batches_are_refused_outside_2025_03_26() {
    let batch = json!([request(1, "ping", json!({}))]);
    let answer = Connection::new().send(batch.clone()).await.unwrap();
    assert_eq!(answer["id"], Value::Null);
    assert_eq!(error_code(&answer), -32600);

    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    let answer = connection.send(batch).await.unwrap();
    assert_eq!(error_code(&answer), -32600);
}

// ---- serve-start checks ----

#[test]
fn duplicate_tool_names_fail_at_serve_start() {
    let server = Server::new(ServerInfo::new("s", "1"))
        .tools(Tools::new().with(named("twin")).with(named("twin")));
    let error = server.dispatcher().err().unwrap();
    assert!(error.to_string().contains("`twin`"));
}

#[test]
fn a_server_without_tools_declares_no_tools_capability() {
    let dispatcher = Server::new(ServerInfo::new("s", "1")).dispatcher().unwrap();
    assert!(dispatcher.capabilities.tools.is_none());
    assert!(dispatcher.tool_names().is_empty());
}
