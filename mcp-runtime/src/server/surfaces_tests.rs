//! Surfaces that change while serving, through the dispatcher: capabilities, lists, calls,
//! and the announcements each connection forwards.

use serde_json::{Value, json};

use crate::cancel::CancellationToken;
use crate::dispatch::session::Session;
use crate::dispatch::subscriptions::NotificationForwarder;
use crate::dispatch::surfaces::{SurfaceError, Surfaces};
use crate::dispatch::test_tools::named;
use crate::dispatch::{Dispatcher, Reply};
use crate::handler::Tools;
use crate::handler::{PromptBuilder, Resource, ResourceBuilder, ToolBuilder};
use crate::protocol::ServerInfo;
use crate::protocol::jsonrpc::Outgoing;
use crate::server::Server;

fn server() -> Server {
    Server::new(ServerInfo::new("dynamic", "1")).tools(Tools::new().with(named("fixed")))
}

/// A dynamic server's dispatcher and the handle that changes it.
fn dynamic() -> (Dispatcher, Surfaces) {
    let server = server();
    let surfaces = server.surfaces();
    (server.dispatcher().unwrap(), surfaces)
}

async fn answer(reply: Reply) -> Value {
    let message = match reply {
        Reply::Ready(message) => message,
        Reply::Pending(call) => call.await.expect("not cancelled"),
        Reply::None => panic!("expected an answer"),
    };
    parse(&message)
}

fn parse(message: &Outgoing) -> Value {
    serde_json::from_slice(message.as_bytes()).unwrap()
}

fn request(id: i64, method: &str, params: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}).to_string()
}

fn modern(id: i64, method: &str, mut params: Value) -> String {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    request(id, method, params)
}

async fn send(dispatcher: &Dispatcher, session: &mut Session, line: &str) -> Value {
    answer(dispatcher.handle_bytes(line.as_bytes(), session)).await
}

/// A legacy session at `version`, initialized (`notifications/initialized` sent).
async fn legacy(dispatcher: &Dispatcher, version: &str) -> (Session, Value) {
    let mut session = Session::new();
    let params = json!({"protocolVersion": version, "capabilities": {},
                        "clientInfo": {"name": "t", "version": "0"}});
    let initialized = send(dispatcher, &mut session, &request(0, "initialize", params)).await;
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = dispatcher.handle_bytes(notification.to_string().as_bytes(), &mut session);
    assert!(matches!(reply, Reply::None));
    (session, initialized)
}

async fn tool_names(dispatcher: &Dispatcher, session: &mut Session) -> Vec<String> {
    let listed = send(dispatcher, session, &request(9, "tools/list", json!({}))).await;
    listed["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap().to_owned())
        .collect()
}

fn echo(name: &'static str) -> crate::handler::BuiltTool {
    ToolBuilder::new(name).handler(move |_, _| async move { name })
}

/// The next batch of messages the forwarder sends, parsed.
async fn forwarded(forwarder: &mut NotificationForwarder) -> Vec<Value> {
    forwarder
        .next()
        .await
        .expect("the server still announces")
        .iter()
        .map(parse)
        .collect()
}

#[test]
fn a_static_server_declares_tools_without_list_changed() {
    let dispatcher = server().dispatcher().unwrap();
    let capabilities = serde_json::to_value(&dispatcher.capabilities).unwrap();
    assert_eq!(capabilities["tools"], json!({}));
    assert!(capabilities.get("prompts").is_none());
    assert!(capabilities.get("resources").is_none());
}

#[tokio::test]
async fn a_dynamic_server_declares_every_list_as_changing_even_when_empty() {
    let server = Server::new(ServerInfo::new("empty", "1"));
    let _surfaces = server.surfaces();
    let dispatcher = server.dispatcher().unwrap();
    for version in ["2024-11-05", "2025-11-25"] {
        let (_, initialized) = legacy(&dispatcher, version).await;
        let capabilities = &initialized["result"]["capabilities"];
        assert_eq!(
            capabilities["tools"],
            json!({"listChanged": true}),
            "{version}"
        );
        assert_eq!(capabilities["prompts"], json!({"listChanged": true}));
        assert_eq!(capabilities["resources"]["listChanged"], true);
    }
    let mut session = Session::new();
    let discovered = send(
        &dispatcher,
        &mut session,
        &modern(1, "server/discover", json!({})),
    )
    .await;
    assert_eq!(
        discovered["result"]["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    // The empty lists exist, and 2026-07-28 clients must not cache them.
    let listed = send(
        &dispatcher,
        &mut session,
        &modern(2, "tools/list", json!({})),
    )
    .await;
    assert_eq!(listed["result"]["tools"], json!([]));
    assert_eq!(listed["result"]["ttlMs"], 0);
    let prompts = send(
        &dispatcher,
        &mut session,
        &modern(3, "prompts/list", json!({})),
    )
    .await;
    assert_eq!(prompts["result"]["prompts"], json!([]));
}

#[tokio::test]
async fn added_tools_are_listed_and_callable_and_removed_ones_are_unknown() {
    let (dispatcher, surfaces) = dynamic();
    let (mut session, _) = legacy(&dispatcher, "2025-06-18").await;
    surfaces.add_tool(echo("late")).unwrap();
    assert_eq!(
        tool_names(&dispatcher, &mut session).await,
        ["fixed", "late"]
    );
    assert_eq!(surfaces.tool_names(), ["fixed", "late"]);
    let call = json!({"name": "late", "arguments": {}});
    let called = send(
        &dispatcher,
        &mut session,
        &request(1, "tools/call", call.clone()),
    )
    .await;
    assert_eq!(called["result"]["content"][0]["text"], "late");

    assert!(surfaces.remove_tool("late"));
    assert!(!surfaces.remove_tool("late"), "already gone");
    assert_eq!(tool_names(&dispatcher, &mut session).await, ["fixed"]);
    let unknown = send(&dispatcher, &mut session, &request(2, "tools/call", call)).await;
    assert_eq!(unknown["error"]["code"], -32602, "{unknown}");
    assert!(
        unknown["error"]["message"]
            .as_str()
            .unwrap()
            .contains("unknown tool `late`")
    );
    // Macro-made (or any hand-written) tools can be removed too.
    assert!(surfaces.remove_tool("fixed"));
    assert!(tool_names(&dispatcher, &mut session).await.is_empty());
}

#[test]
fn refused_changes_are_errors_and_change_nothing() {
    let (dispatcher, surfaces) = dynamic();
    assert_eq!(
        surfaces.add_tool(named("fixed")),
        Err(SurfaceError::DuplicateTool("fixed".into()))
    );
    let loose = ToolBuilder::new("loose")
        .input_schema(json!({"type": "string"}))
        .handler(|_, _| async {});
    let refused = surfaces.add_tool(loose).unwrap_err();
    assert_eq!(refused, SurfaceError::InputSchemaNotObject("loose".into()));
    assert!(refused.to_string().contains("`loose`"));

    let note = |uri: &'static str| {
        ResourceBuilder::new(Resource::new(uri, "note")).reader(|_| async { "text" })
    };
    surfaces.add_resource(note("note://a")).unwrap();
    let conflict = surfaces.add_resource(note("note://a")).unwrap_err();
    assert!(
        matches!(conflict, SurfaceError::ResourceConflict(_)),
        "{conflict}"
    );

    let prompt = || PromptBuilder::new("p").handler(|_| async { "text" });
    surfaces.add_prompt(prompt()).unwrap();
    assert_eq!(
        surfaces.add_prompt(prompt()),
        Err(SurfaceError::DuplicatePrompt("p".into()))
    );
    assert_eq!(dispatcher.tool_names().len(), 1);
    assert_eq!(dispatcher.resources.get().router().routes().len(), 1);
}

#[tokio::test]
async fn sets_are_added_whole_or_not_at_all_with_one_announcement() {
    let (dispatcher, surfaces) = dynamic();
    let (session, _) = legacy(&dispatcher, "2025-06-18").await;
    let mut forwarder = dispatcher.notification_forwarder(&session);
    // A clash with a tool already offered, or within the set: nothing is added.
    let clash = Tools::new().with(echo("a")).with(named("fixed"));
    assert_eq!(
        surfaces.add_tools(clash),
        Err(SurfaceError::DuplicateTool("fixed".into()))
    );
    let twice = Tools::new().with(echo("b")).with(echo("b"));
    assert_eq!(
        surfaces.add_tools(twice),
        Err(SurfaceError::DuplicateTool("b".into()))
    );
    assert_eq!(dispatcher.tool_names().len(), 1);
    surfaces
        .add_tools(Tools::new().with(echo("a")).with(echo("b")))
        .unwrap();
    assert_eq!(dispatcher.tool_names().len(), 3);
    let prompt = |name: &'static str| PromptBuilder::new(name).handler(|_| async { "x" });
    let prompts = crate::Prompts::new().with(prompt("p")).with(prompt("q"));
    surfaces.add_prompts(prompts).unwrap();
    let note = |uri: &'static str| {
        ResourceBuilder::new(Resource::new(uri, "note")).reader(|_| async { "text" })
    };
    let clashing = crate::Resources::new()
        .with(note("note://c"))
        .with(note("note://c"));
    assert!(surfaces.add_resources(clashing).is_err());
    assert!(dispatcher.resources.get().router().routes().is_empty());
    surfaces
        .add_resources(crate::Resources::new().with(note("note://c")))
        .unwrap();
    // One announcement per set that went in, none for the refused ones.
    for expected in ["tools", "prompts", "resources"] {
        let messages = forwarded(&mut forwarder).await;
        let method = format!("notifications/{expected}/list_changed");
        assert_eq!(messages, [json!({"jsonrpc": "2.0", "method": method})]);
    }
}

#[tokio::test]
async fn a_running_call_keeps_its_tool_after_removal() {
    let (dispatcher, surfaces) = dynamic();
    let (mut session, _) = legacy(&dispatcher, "2025-11-25").await;
    let release = CancellationToken::new();
    let gate = release.clone();
    let tool = ToolBuilder::new("slow").handler(move |_, _| {
        let gate = gate.clone();
        async move {
            gate.cancelled().await;
            "finished"
        }
    });
    surfaces.add_tool(tool).unwrap();
    let running = dispatcher.handle_bytes(
        request(1, "tools/call", json!({"name": "slow"})).as_bytes(),
        &mut session,
    );
    assert!(surfaces.remove_tool("slow"));
    release.cancel();
    let finished = answer(running).await;
    assert_eq!(finished["result"]["content"][0]["text"], "finished");
}

#[tokio::test]
async fn the_builder_sets_and_the_handle_are_one() {
    let server = Server::new(ServerInfo::new("s", "1"));
    let surfaces = server.surfaces();
    surfaces.add_tool(echo("early")).unwrap();
    // A set given to the builder afterwards replaces that kind, as it always does.
    let server = server.tools(Tools::new().with(named("given")));
    let dispatcher = server.dispatcher().unwrap();
    let (mut session, _) = legacy(&dispatcher, "2025-03-26").await;
    assert_eq!(tool_names(&dispatcher, &mut session).await, ["given"]);
    surfaces.add_tool(echo("early")).unwrap();
    assert_eq!(
        tool_names(&dispatcher, &mut session).await,
        ["given", "early"]
    );
}

#[tokio::test]
async fn resources_and_prompts_come_and_go() {
    let (dispatcher, surfaces) = dynamic();
    let mut session = Session::new();
    let read = modern(1, "resources/read", json!({"uri": "text://motd"}));
    let missing = send(&dispatcher, &mut session, &read).await;
    assert_eq!(missing["error"]["code"], -32602);
    let motd =
        ResourceBuilder::new(Resource::new("text://motd", "motd")).reader(|_| async { "hello" });
    surfaces.add_resource(motd).unwrap();
    let found = send(&dispatcher, &mut session, &read).await;
    assert_eq!(found["result"]["contents"][0]["text"], "hello");
    assert!(surfaces.remove_resource("text://motd"));
    let gone = send(&dispatcher, &mut session, &read).await;
    assert_eq!(gone["error"]["code"], -32602);

    let greet = PromptBuilder::new("greet")
        .argument("name", "Who.", true)
        .handler(|request| async move { format!("hi {}", request.argument("name").unwrap()) });
    surfaces.add_prompt(greet).unwrap();
    let get = modern(
        2,
        "prompts/get",
        json!({"name": "greet", "arguments": {"name": "Ada"}}),
    );
    let got = send(&dispatcher, &mut session, &get).await;
    assert_eq!(got["result"]["messages"][0]["content"]["text"], "hi Ada");
    let without = modern(3, "prompts/get", json!({"name": "greet"}));
    let refused = send(&dispatcher, &mut session, &without).await;
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(surfaces.remove_prompt("greet"));
    let gone = send(&dispatcher, &mut session, &get).await;
    assert_eq!(gone["error"]["code"], -32602);
}

#[tokio::test]
async fn legacy_sessions_hear_of_changes_once_initialized() {
    let (dispatcher, surfaces) = dynamic();
    // Never initialized; its one listen stream makes the forwarder say something.
    let mut fresh = Session::new();
    let mut before = dispatcher.notification_forwarder(&fresh);
    let stream = json!({"notifications": {"toolsListChanged": true}});
    let _listen = dispatcher.handle_bytes(
        modern(7, "subscriptions/listen", stream).as_bytes(),
        &mut fresh,
    );
    assert_eq!(
        forwarded(&mut before).await[0]["method"],
        "notifications/subscriptions/acknowledged"
    );
    let (session, _) = legacy(&dispatcher, "2025-06-18").await;
    let mut after = dispatcher.notification_forwarder(&session);
    surfaces.add_tool(echo("one")).unwrap();
    surfaces.remove_tool("one");
    let prompt = PromptBuilder::new("p").handler(|_| async { "x" });
    surfaces.add_prompt(prompt).unwrap();
    for expected in ["tools", "tools", "prompts"] {
        let messages = forwarded(&mut after).await;
        let method = format!("notifications/{expected}/list_changed");
        assert_eq!(messages, [json!({"jsonrpc": "2.0", "method": method})]);
    }
    // The uninitialized session gets only its stream's tagged copy, no legacy one.
    let messages = forwarded(&mut before).await;
    assert_eq!(
        messages,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 7}}})
        ]
    );
}

#[tokio::test]
async fn listen_streams_hear_of_tool_changes_only_when_they_opted_in() {
    let (dispatcher, surfaces) = dynamic();
    let mut session = Session::new();
    let mut forwarder = dispatcher.notification_forwarder(&session);
    let tools_stream = json!({"notifications": {"toolsListChanged": true}});
    let prompts_stream = json!({"notifications": {"promptsListChanged": true}});
    // Pending until cancelled; the acknowledgements are queued for the forwarder.
    let _tools = dispatcher.handle_bytes(
        modern(1, "subscriptions/listen", tools_stream).as_bytes(),
        &mut session,
    );
    let _prompts = dispatcher.handle_bytes(
        modern(2, "subscriptions/listen", prompts_stream).as_bytes(),
        &mut session,
    );
    let acks = forwarded(&mut forwarder).await;
    assert_eq!(acks.len(), 2);
    assert_eq!(
        acks[0]["params"]["notifications"],
        json!({"toolsListChanged": true})
    );
    surfaces.add_tool(echo("new")).unwrap();
    surfaces
        .add_prompt(PromptBuilder::new("p").handler(|_| async { "x" }))
        .unwrap();
    let tools = forwarded(&mut forwarder).await;
    assert_eq!(
        tools,
        [
            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed",
                "params": {"_meta": {"io.modelcontextprotocol/subscriptionId": 1}}})
        ],
        "only the stream that asked for tools"
    );
    let prompts = forwarded(&mut forwarder).await;
    assert_eq!(
        prompts[0]["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"],
        2
    );
    assert_eq!(prompts.len(), 1);
}

#[tokio::test]
async fn a_static_server_honors_no_tools_list_changed() {
    let prompt = PromptBuilder::new("p").handler(|_| async { "x" });
    let server = server().prompts(crate::handler::Prompts::new().with(prompt));
    let dispatcher = server.dispatcher().unwrap();
    let mut session = Session::new();
    let mut forwarder = dispatcher.notification_forwarder(&session);
    let stream = json!({"notifications": {"toolsListChanged": true}});
    let _listen = dispatcher.handle_bytes(
        modern(1, "subscriptions/listen", stream).as_bytes(),
        &mut session,
    );
    let ack = forwarded(&mut forwarder).await;
    assert_eq!(ack[0]["params"]["notifications"], json!({}));
}
