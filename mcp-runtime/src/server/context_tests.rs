//! The request context through the dispatcher: progress and logs reach the connection's
//! outbound before the answer, log levels in both eras, shared state, and cancelled calls
//! that ignore their token.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

use crate::context::logging::LogLevel;
use crate::context::peer::Outbound;
use crate::dispatch::session::Session;
use crate::dispatch::{Dispatcher, Reply};
use crate::handler::{BoxFuture, ToolBuilder, ToolCall, ToolDefinition, ToolHandler};
use crate::handler::{PromptBuilder, ResourceBuilder};
use crate::protocol::ServerInfo;
use crate::protocol::jsonrpc::Outgoing;
use crate::protocol::{CallToolResult, Content};
use crate::server::Server;
use crate::{Prompts, Resource, Resources, Tools};

/// A tool that reports progress and logs, or (`ignore`) waits forever without looking at its
/// token, recording when its future is dropped.
struct Reporter {
    name: &'static str,
    dropped: Arc<AtomicBool>,
}

/// The definition of a tool named `name` that takes any arguments: the builder's.
fn definition(name: &'static str) -> ToolDefinition {
    ToolBuilder::new(name)
        .handler(|_, _| async { "" })
        .definition()
}

impl ToolHandler for Reporter {
    fn definition(&self) -> ToolDefinition {
        definition(self.name)
    }

    fn call(&self, call: ToolCall) -> BoxFuture<'static, CallToolResult> {
        struct OnDrop(Arc<AtomicBool>);
        impl Drop for OnDrop {
            fn drop(&mut self) {
                self.0.store(true, Ordering::SeqCst);
            }
        }
        let guard = OnDrop(self.dropped.clone());
        let name = self.name;
        Box::pin(async move {
            let _guard = guard;
            let ctx = call.context;
            match name {
                "ignore" => std::future::pending().await,
                "count" => {
                    let calls = ctx.state::<AtomicU32>().expect("the server has a counter");
                    let n = calls.fetch_add(1, Ordering::SeqCst) + 1;
                    CallToolResult::success(vec![Content::text(n.to_string())])
                }
                _ => {
                    tokio::task::yield_now().await;
                    ctx.log(LogLevel::Debug, "debug");
                    ctx.progress(1.0, Some(2.0), Some("half"));
                    ctx.log(LogLevel::Error, json!({"error": 1}));
                    ctx.progress(2.0, Some(2.0), None);
                    CallToolResult::success(vec![Content::text("done")])
                }
            }
        })
    }
}

struct Connection {
    dispatcher: Dispatcher,
    session: Session,
    sent: Arc<Mutex<Vec<Value>>>,
    dropped: Arc<AtomicBool>,
}

impl Connection {
    fn new() -> Self {
        let dropped = Arc::new(AtomicBool::new(false));
        let tools = ["report", "ignore", "count"]
            .into_iter()
            .fold(Tools::new(), |tools, name| {
                tools.with(Reporter {
                    name,
                    dropped: dropped.clone(),
                })
            });
        let server = Server::new(ServerInfo::new("s", "1"))
            .with_state(AtomicU32::new(0))
            .tools(tools);
        Connection::serving(&server, dropped)
    }

    /// A connection to `server`; `dropped` is what its tools set when their future is dropped.
    fn serving(server: &Server, dropped: Arc<AtomicBool>) -> Self {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let mut session = Session::new();
        let sink = sent.clone();
        session.set_outbound(Outbound::new(move |message: Outgoing| {
            let value = serde_json::from_slice(message.as_bytes()).unwrap();
            sink.lock().unwrap().push(value);
        }));
        Connection {
            dispatcher: server.dispatcher().unwrap(),
            session,
            sent,
            dropped,
        }
    }

    fn start(&mut self, message: Value) -> Reply {
        self.dispatcher
            .handle_bytes(message.to_string().as_bytes(), &mut self.session)
    }

    async fn send(&mut self, message: Value) -> Option<Value> {
        match self.start(message) {
            Reply::None => None,
            Reply::Ready(message) => Some(serde_json::from_slice(message.as_bytes()).unwrap()),
            Reply::Pending(call) => call
                .await
                .map(|message| serde_json::from_slice(message.as_bytes()).unwrap()),
        }
    }

    async fn initialize(&mut self, version: &str) {
        self.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}}),
        )
        .await
        .unwrap();
        self.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }

    fn methods(&self) -> Vec<String> {
        self.sent
            .lock()
            .unwrap()
            .iter()
            .map(|message| message["method"].as_str().unwrap().to_owned())
            .collect()
    }
}

fn call(id: i64, name: &str, meta: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "_meta": meta}})
}

fn modern_meta(extra: Value) -> Value {
    let mut meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    for (key, value) in extra.as_object().unwrap() {
        meta[key] = value.clone();
    }
    meta
}

#[tokio::test]
async fn a_legacy_call_with_a_token_reports_progress_and_every_log_until_a_level_is_set() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    let answer = connection
        .send(call(1, "report", json!({"progressToken": "p"})))
        .await
        .unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], json!("done"));
    assert_eq!(
        connection.methods(),
        [
            "notifications/message",
            "notifications/progress",
            "notifications/message",
            "notifications/progress"
        ]
    );
    let sent = connection.sent.lock().unwrap().clone();
    assert_eq!(
        sent[1]["params"],
        json!({"progressToken": "p", "progress": 1.0, "total": 2.0, "message": "half"})
    );
    assert_eq!(
        sent[2]["params"],
        json!({"level": "error", "data": {"error": 1}})
    );
}

#[tokio::test]
async fn set_level_filters_the_session_and_refuses_unknown_levels() {
    let mut connection = Connection::new();
    connection.initialize("2024-11-05").await;
    let set = |id: i64, level: &str| {
        json!({"jsonrpc": "2.0", "id": id, "method": "logging/setLevel",
            "params": {"level": level}})
    };
    let bad = connection.send(set(1, "loud")).await.unwrap();
    assert_eq!(bad["error"]["code"], json!(-32602));
    let ok = connection.send(set(2, "error")).await.unwrap();
    assert_eq!(ok["result"], json!({}));
    connection.send(call(3, "report", json!({}))).await.unwrap();
    assert_eq!(connection.methods(), ["notifications/message"]);
    assert_eq!(
        connection.sent.lock().unwrap()[0]["params"]["level"],
        json!("error")
    );
}

#[tokio::test]
async fn a_modern_request_gets_logs_only_at_the_level_it_names() {
    let mut connection = Connection::new();
    // No level, no token: nothing but the answer.
    connection
        .send(call(1, "report", modern_meta(json!({}))))
        .await
        .unwrap();
    assert!(connection.methods().is_empty());
    let meta =
        modern_meta(json!({"io.modelcontextprotocol/logLevel": "warning", "progressToken": 5}));
    connection.send(call(2, "report", meta)).await.unwrap();
    assert_eq!(
        connection.methods(),
        [
            "notifications/progress",
            "notifications/message",
            "notifications/progress"
        ]
    );
    let bad = modern_meta(json!({"io.modelcontextprotocol/logLevel": "verbose"}));
    let answer = connection.send(call(3, "report", bad)).await.unwrap();
    assert_eq!(answer["error"]["code"], json!(-32602));
    let discover = connection
        .send(
            json!({"jsonrpc": "2.0", "id": 4, "method": "server/discover",
            "params": {"_meta": modern_meta(json!({}))}}),
        )
        .await
        .unwrap();
    assert_eq!(discover["result"]["capabilities"]["logging"], json!({}));
}

#[tokio::test]
async fn every_call_shares_the_servers_state() {
    let mut connection = Connection::new();
    connection.initialize("2025-11-25").await;
    for n in 1..=3 {
        let answer = connection.send(call(n, "count", json!({}))).await.unwrap();
        assert_eq!(answer["result"]["content"][0]["text"], json!(n.to_string()));
    }
}

#[tokio::test]
async fn a_cancelled_call_that_ignores_its_token_is_dropped() {
    let mut connection = Connection::new();
    connection.initialize("2025-06-18").await;
    let Reply::Pending(running) = connection.start(call(7, "ignore", json!({}))) else {
        panic!("a call that never ends is pending");
    };
    let running = tokio::spawn(running);
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(!connection.dropped.load(Ordering::SeqCst));
    assert_eq!(connection.session.in_flight().len(), 1);
    connection
        .send(
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
            "params": {"requestId": 7}}),
        )
        .await;
    let answer = tokio::time::timeout(Duration::from_secs(5), running)
        .await
        .expect("the cancelled call ends though its tool never looks at the token")
        .unwrap();
    assert!(answer.is_none(), "a cancelled call is not answered");
    assert!(
        connection.dropped.load(Ordering::SeqCst),
        "the tool's future is dropped, not leaked"
    );
    assert_eq!(connection.session.in_flight().len(), 0);
}

/// A server whose prompt `slow` and resource `slow://it` each take 17 s, with a heartbeat every
/// 5 s.
fn slow_offerings() -> Server {
    let slow = || tokio::time::sleep(Duration::from_secs(17));
    let prompt = PromptBuilder::new("slow").handler(move |_request| async move {
        slow().await;
        "done"
    });
    let resource =
        ResourceBuilder::new(Resource::new("slow://it", "slow")).reader(move |_read| async move {
            slow().await;
            "done"
        });
    Server::new(ServerInfo::new("s", "1"))
        .progress_heartbeat(Some(Duration::from_secs(5)))
        .prompts(Prompts::new().with(prompt))
        .resources(Resources::new().with(resource))
}

/// The `progress` of every notification sent, each checked to be progress for `token`.
fn heartbeats(connection: &Connection, token: &Value) -> Vec<f64> {
    let sent = std::mem::take(&mut *connection.sent.lock().unwrap());
    sent.iter()
        .map(|message| {
            assert_eq!(message["method"], "notifications/progress", "{message}");
            assert_eq!(&message["params"]["progressToken"], token, "{message}");
            message["params"]["progress"].as_f64().unwrap()
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn prompts_and_reads_with_a_token_get_heartbeats_while_they_run() {
    let mut connection = Connection::serving(&slow_offerings(), Arc::default());
    connection.initialize("2025-06-18").await;
    let get = |id: i64, meta: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "prompts/get",
            "params": {"name": "slow", "_meta": meta}})
    };
    let read = |id: i64, meta: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "resources/read",
            "params": {"uri": "slow://it", "_meta": meta}})
    };

    let answer = connection
        .send(get(1, json!({"progressToken": "p"})))
        .await
        .unwrap();
    assert_eq!(answer["result"]["messages"][0]["content"]["text"], "done");
    let sent = heartbeats(&connection, &json!("p"));
    assert_eq!(sent.len(), 3, "at 5, 10 and 15 s: {sent:?}");
    assert!(sent.windows(2).all(|pair| pair[0] < pair[1]), "{sent:?}");

    let answer = connection
        .send(read(2, json!({"progressToken": 9})))
        .await
        .unwrap();
    assert_eq!(answer["result"]["contents"][0]["text"], "done");
    assert_eq!(heartbeats(&connection, &json!(9)).len(), 3);

    // Without a token, nothing but the answers.
    connection.send(get(3, json!({}))).await.unwrap();
    connection.send(read(4, json!({}))).await.unwrap();
    assert!(heartbeats(&connection, &Value::Null).is_empty());
}

#[tokio::test(start_paused = true)]
async fn modern_prompts_and_reads_get_heartbeats_too() {
    let mut connection = Connection::serving(&slow_offerings(), Arc::default());
    let meta = modern_meta(json!({"progressToken": "m"}));
    let answer = connection
        .send(json!({"jsonrpc": "2.0", "id": 1, "method": "prompts/get",
            "params": {"name": "slow", "_meta": meta}}))
        .await
        .unwrap();
    assert_eq!(answer["result"]["resultType"], "complete", "{answer}");
    assert_eq!(heartbeats(&connection, &json!("m")).len(), 3);
    let answer = connection
        .send(
            json!({"jsonrpc": "2.0", "id": 2, "method": "resources/read",
            "params": {"uri": "slow://it", "_meta": meta}}),
        )
        .await
        .unwrap();
    assert_eq!(answer["result"]["contents"][0]["text"], "done", "{answer}");
    assert_eq!(heartbeats(&connection, &json!("m")).len(), 3);
}

/// A tool that says it cannot reach its context (as `#[mcp_tool]` says of one without a
/// `RequestContext` parameter), noting whether its call came with a way to send all the same,
/// then taking 17 s.
struct Unreaching(Arc<Mutex<Vec<bool>>>);

impl ToolHandler for Unreaching {
    fn definition(&self) -> ToolDefinition {
        definition("unreaching")
    }

    fn call(&self, call: ToolCall) -> BoxFuture<'static, CallToolResult> {
        self.0.lock().unwrap().push(call.context.peer.is_some());
        Box::pin(async {
            tokio::time::sleep(Duration::from_secs(17)).await;
            CallToolResult::success(vec![Content::text("done")])
        })
    }

    fn reaches_context(&self) -> bool {
        false
    }
}

#[tokio::test(start_paused = true)]
async fn a_tool_that_cannot_reach_its_context_gets_a_peer_only_for_what_its_run_sends() {
    let peers = Arc::new(Mutex::new(Vec::new()));
    let server = |forward| {
        Server::new(ServerInfo::new("s", "1"))
            .progress_heartbeat(Some(Duration::from_secs(5)))
            .forward_tracing(forward)
            .tools(Tools::new().with(Unreaching(peers.clone())))
    };
    // A session, whose log level lets any message through until one is set.
    let mut connection = Connection::serving(&server(false), Arc::default());
    connection.initialize("2025-06-18").await;

    // Nothing for the run to send: no peer, and nothing sent but the answer.
    let answer = connection
        .send(call(1, "unreaching", json!({})))
        .await
        .unwrap();
    assert_eq!(answer["result"]["content"][0]["text"], "done", "{answer}");
    assert!(heartbeats(&connection, &Value::Null).is_empty());

    // A progress token: the run's heartbeat goes through a peer.
    connection
        .send(call(2, "unreaching", json!({"progressToken": "p"})))
        .await
        .unwrap();
    assert_eq!(heartbeats(&connection, &json!("p")).len(), 3);

    // Forwarded `tracing` events go through one too.
    let mut forwarding = Connection::serving(&server(true), Arc::default());
    forwarding.initialize("2025-06-18").await;
    forwarding
        .send(call(1, "unreaching", json!({})))
        .await
        .unwrap();
    assert_eq!(*peers.lock().unwrap(), [false, true, true]);
}
