//! The 2024-11-05 HTTP+SSE transport on a real socket, beside the Streamable HTTP endpoint:
//! `GET /sse` opens a session whose first event, `endpoint`, names the URI to POST to; every
//! POST is answered 202 and its answer, like every message of the server (its questions to
//! the client among them), arrives as a `message` event on the stream; the session ends with
//! the stream. Every message the server writes is checked against its revision's schema.

// Not every helper is used here.
#[allow(unused_macros)]
mod support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mcp_runtime::http::{AuthRejection, HttpConfig};
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::{Elicitation, RequestContext, Server, mcp_tool, server_info, tools};
use serde_json::{Value, json};
use support::PATIENCE;
use support::http::{EventStream, Reply, parse, request_bytes_to};
use support::http_server::InProcessServer;
use support::schema::check_server_message;

/// Repeat the text back.
///
/// # Arguments
/// * `text` - what to echo
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

/// The client's roots.
#[mcp_tool]
async fn list_roots(ctx: RequestContext) -> Result<String, String> {
    let roots = ctx.roots().await.map_err(|error| error.to_string())?;
    Ok(roots
        .iter()
        .map(|root| root.uri.as_str())
        .collect::<Vec<_>>()
        .join(","))
}

/// What the user confirms.
#[derive(Debug, serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    /// Whether to go ahead.
    confirm: bool,
}

/// Delete `name` once the user confirms.
///
/// # Arguments
/// * `name` - what to delete
#[mcp_tool]
async fn confirm_delete(name: String, ctx: RequestContext) -> Result<String, String> {
    match ctx.elicit::<Confirm>(format!("Delete {name}?")).await {
        Ok(Elicitation::Accepted(Confirm { confirm: true })) => Ok(format!("deleted {name}")),
        Ok(other) => Ok(format!("kept {name}: {other:?}")),
        Err(error) => Err(format!("cannot ask: {error}")),
    }
}

/// Set once `hold` has started, and once it was cancelled (whether it saw the token fire or
/// was dropped with it fired).
static HOLD_STARTED: AtomicBool = AtomicBool::new(false);
static HOLD_CANCELLED: AtomicBool = AtomicBool::new(false);

/// Wait until cancelled.
#[mcp_tool]
async fn hold(ctx: RequestContext) -> String {
    struct Observe(mcp_runtime::CancellationToken);
    impl Drop for Observe {
        fn drop(&mut self) {
            if self.0.is_cancelled() {
                HOLD_CANCELLED.store(true, Ordering::SeqCst);
            }
        }
    }
    let _observe = Observe(ctx.cancellation.clone());
    HOLD_STARTED.store(true, Ordering::SeqCst);
    ctx.cancellation.cancelled().await;
    "cancelled".to_owned()
}

/// The server these tests talk to, on a loopback port of this process.
fn serve(config: HttpConfig) -> InProcessServer {
    InProcessServer::start(
        Server::new(server_info!())
            .tools(tools![echo, list_roots, confirm_delete, hold])
            .max_message_size(64 * 1024)
            .shutdown_timeout(Duration::from_secs(1)),
        config,
    )
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const EVENTS: (&str, &str) = ("Accept", "text/event-stream");

/// One request on its own connection (`Connection: close`), read whole.
fn send_to(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Reply {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(&request_bytes_to(path, method, headers, body, true))
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    parse(&raw)
}

fn checked(revision: ProtocolVersion, method: Option<&str>, message: &Value) {
    if let Err(violation) = check_server_message(revision, method, message) {
        panic!("{violation:?}: {message}");
    }
}

/// An open HTTP+SSE session: its stream and the URI its messages go to.
struct SseSession {
    addr: SocketAddr,
    stream: EventStream,
    post_to: String,
}

impl SseSession {
    /// `GET /sse`, and its `endpoint` event.
    fn open(addr: SocketAddr) -> Self {
        let mut stream = EventStream::open(addr, "GET", "/sse", &[EVENTS], b"");
        assert_eq!(stream.status, 200);
        assert_eq!(stream.header("content-type"), Some("text/event-stream"));
        let endpoint = stream.next_event().expect("an endpoint event");
        assert_eq!(endpoint.event.as_deref(), Some("endpoint"), "{endpoint:?}");
        let id = endpoint
            .data
            .strip_prefix("/messages?sessionId=")
            .unwrap_or_else(|| panic!("endpoint {:?}", endpoint.data));
        assert_eq!(id.len(), 64, "a long random id: {id}");
        assert!(id.bytes().all(|byte| byte.is_ascii_hexdigit()));
        SseSession {
            addr,
            stream,
            post_to: endpoint.data,
        }
    }

    /// POST one message; the status.
    fn post(&self, message: &Value) -> u16 {
        let reply = send_to(
            self.addr,
            "POST",
            &self.post_to,
            &[JSON],
            message.to_string().as_bytes(),
        );
        assert!(
            reply.body.is_empty() || reply.status != 202,
            "202 has no body"
        );
        reply.status
    }

    /// POST a request (202), and read its answer from the stream.
    fn request(&mut self, revision: ProtocolVersion, message: Value) -> Value {
        assert_eq!(self.post(&message), 202);
        let answer = self.stream.next_message();
        checked(revision, message["method"].as_str(), &answer);
        assert_eq!(answer["id"], message["id"]);
        answer
    }

    /// `initialize` asking for `version`, then `notifications/initialized`; the answer.
    fn initialize(&mut self, version: &str, capabilities: Value) -> Value {
        let answer = self.request(
            ProtocolVersion::V2024_11_05,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": version,
                "capabilities": capabilities,
                "clientInfo": {"name": "sse-test", "version": "0"},
            }}),
        );
        let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        assert_eq!(self.post(&note), 202);
        answer
    }
}

fn call(id: u64, name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

#[test]
fn the_endpoint_event_comes_first_then_every_answer_rides_the_stream() {
    let server = serve(HttpConfig::new());
    let mut session = SseSession::open(server.addr);
    let revision = ProtocolVersion::V2024_11_05;
    let init = session.initialize("2024-11-05", json!({}));
    assert_eq!(init["result"]["protocolVersion"], "2024-11-05");
    assert!(init["result"]["capabilities"]["tools"].is_object());

    let list = session.request(
        revision,
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    );
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"echo"), "{names:?}");

    let answer = session.request(revision, call(2, "echo", json!({"text": "over sse"})));
    assert_eq!(answer["result"]["content"][0]["text"], "over sse");
    // An unknown tool is an error on the stream, the POST itself is still accepted.
    let answer = session.request(revision, call(3, "nope", json!({})));
    assert!(answer["error"].is_object() || answer["result"]["isError"] == true);
    // A body that is not JSON-RPC is refused at once.
    let reply = send_to(server.addr, "POST", &session.post_to, &[JSON], b"{not json");
    assert_eq!(reply.status, 400);
    assert_eq!(reply.json()["error"]["code"], -32700);
}

#[test]
fn initialize_negotiates_like_any_legacy_session() {
    let server = serve(HttpConfig::new());
    let mut session = SseSession::open(server.addr);
    let init = session.initialize("2025-06-18", json!({}));
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    let mut other = SseSession::open(server.addr);
    let init = other.initialize("1999-01-01", json!({}));
    let version = init["result"]["protocolVersion"].as_str().unwrap();
    assert!(
        version.parse::<ProtocolVersion>().is_ok(),
        "an unknown version is answered with one the server speaks: {version}"
    );
}

#[test]
fn a_roots_question_and_its_answer_travel_over_the_session() {
    let server = serve(HttpConfig::new());
    let mut session = SseSession::open(server.addr);
    let revision = ProtocolVersion::V2024_11_05;
    session.initialize("2024-11-05", json!({"roots": {}}));
    assert_eq!(session.post(&call(5, "list_roots", json!({}))), 202);
    let question = session.stream.next_message();
    checked(revision, None, &question);
    assert_eq!(question["method"], "roots/list");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"],
        "result": {"roots": [{"uri": "file:///work", "name": "work"}]}});
    assert_eq!(session.post(&answer), 202);
    let result = session.stream.next_message();
    checked(revision, Some("tools/call"), &result);
    assert_eq!(result["id"], 5);
    assert_eq!(result["result"]["content"][0]["text"], "file:///work");
}

#[test]
fn an_elicitation_travels_over_a_session_negotiated_at_2025_06_18() {
    let server = serve(HttpConfig::new());
    let mut session = SseSession::open(server.addr);
    let revision = ProtocolVersion::V2025_06_18;
    session.initialize("2025-06-18", json!({"elicitation": {}}));
    assert_eq!(
        session.post(&call(6, "confirm_delete", json!({"name": "repo"}))),
        202
    );
    let question = session.stream.next_message();
    checked(revision, None, &question);
    assert_eq!(question["method"], "elicitation/create");
    assert_eq!(question["params"]["message"], "Delete repo?");
    let answer = json!({"jsonrpc": "2.0", "id": question["id"],
        "result": {"action": "accept", "content": {"confirm": true}}});
    assert_eq!(session.post(&answer), 202);
    let result = session.stream.next_message();
    checked(revision, Some("tools/call"), &result);
    assert_eq!(result["result"]["content"][0]["text"], "deleted repo");
}

#[test]
fn a_message_for_an_unknown_session_is_404() {
    let server = serve(HttpConfig::new());
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    for path in ["/messages?sessionId=0123abcd", "/messages"] {
        let reply = send_to(server.addr, "POST", path, &[JSON], ping);
        assert_eq!(reply.status, 404, "{path}");
        assert_eq!(reply.json()["error"]["code"], -32600);
    }
}

#[test]
fn closing_the_stream_ends_the_session_and_cancels_its_calls() {
    let server = serve(HttpConfig::new());
    let mut session = SseSession::open(server.addr);
    session.initialize("2024-11-05", json!({}));
    assert_eq!(session.post(&call(9, "hold", json!({}))), 202);
    let ping = json!({"jsonrpc": "2.0", "id": 10, "method": "ping"});
    assert_eq!(session.post(&ping), 202);
    assert_eq!(session.stream.next_message()["id"], 10);
    // The 202 and the ping's answer do not mean the call has started: a call the session's end
    // finds not yet running has nothing to cancel.
    let started = Instant::now();
    while !HOLD_STARTED.load(Ordering::SeqCst) {
        assert!(started.elapsed() < PATIENCE, "the call did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    let SseSession {
        addr,
        stream,
        post_to,
    } = session;
    drop(stream);
    // The server notices the closed connection on its own time: poll, within a generous
    // bound, until the session is gone.
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        let reply = send_to(addr, "POST", &post_to, &[JSON], ping.to_string().as_bytes());
        if reply.status != 202 || Instant::now() > deadline {
            break reply.status;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status, 404, "the session ends with its stream");
    while !HOLD_CANCELLED.load(Ordering::SeqCst) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(
        HOLD_CANCELLED.load(Ordering::SeqCst),
        "the session's running call is cancelled"
    );
}

#[test]
fn the_transport_passes_the_same_gates_as_the_endpoint() {
    let server = serve(HttpConfig::new());
    let foreign = ("Origin", "https://evil.example");
    let reply = send_to(server.addr, "GET", "/sse", &[EVENTS, foreign], b"");
    assert_eq!(reply.status, 403);
    let session = SseSession::open(server.addr);
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let reply = send_to(
        server.addr,
        "POST",
        &session.post_to,
        &[JSON, foreign],
        ping,
    );
    assert_eq!(reply.status, 403);
    // The body limit (the server's max_message_size, 64 KiB here).
    let big = format!(
        r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"pad":"{}"}}}}"#,
        "x".repeat(70 * 1024)
    );
    let reply = send_to(
        server.addr,
        "POST",
        &session.post_to,
        &[JSON],
        big.as_bytes(),
    );
    assert_eq!(reply.status, 413);
    let reply = send_to(
        server.addr,
        "POST",
        &session.post_to,
        &[("Content-Type", "text/plain")],
        ping,
    );
    assert_eq!(reply.status, 415);
    // Each path takes its one method.
    let reply = send_to(server.addr, "POST", "/sse", &[JSON], ping);
    assert_eq!((reply.status, reply.header("allow")), (405, Some("GET")));
    let reply = send_to(server.addr, "GET", &session.post_to, &[EVENTS], b"");
    assert_eq!((reply.status, reply.header("allow")), (405, Some("POST")));
}

#[test]
fn the_authorization_hook_sees_the_transports_requests() {
    let config = HttpConfig::new().authorize(|request| match request.bearer_token {
        Some("let-me-in") => Ok(()),
        Some(_) => Err(AuthRejection::invalid_token("unknown token")),
        None => Err(AuthRejection::missing_token()),
    });
    let server = serve(config);
    let reply = send_to(server.addr, "GET", "/sse", &[EVENTS], b"");
    assert_eq!(reply.status, 401);
    assert!(reply.header("www-authenticate").is_some());
    let token = ("Authorization", "Bearer let-me-in");
    let mut stream = EventStream::open(server.addr, "GET", "/sse", &[EVENTS, token], b"");
    assert_eq!(stream.status, 200);
    let endpoint = stream.next_event().unwrap();
    assert_eq!(endpoint.event.as_deref(), Some("endpoint"));
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let reply = send_to(server.addr, "POST", &endpoint.data, &[JSON], ping);
    assert_eq!(reply.status, 401);
    let reply = send_to(server.addr, "POST", &endpoint.data, &[JSON, token], ping);
    assert_eq!(reply.status, 202);
    assert_eq!(stream.next_message()["id"], 1);
}

#[test]
fn the_transport_can_be_moved_or_switched_off() {
    let server = serve(HttpConfig::new().legacy_sse("/events", "/post"));
    let mut stream = EventStream::open(server.addr, "GET", "/events", &[EVENTS], b"");
    let endpoint = stream.next_event().unwrap();
    assert!(
        endpoint.data.starts_with("/post?sessionId="),
        "{endpoint:?}"
    );
    assert_eq!(
        send_to(server.addr, "GET", "/sse", &[EVENTS], b"").status,
        404
    );

    let server = serve(HttpConfig::new().without_legacy_sse());
    assert_eq!(
        send_to(server.addr, "GET", "/sse", &[EVENTS], b"").status,
        404
    );
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    assert_eq!(
        send_to(server.addr, "POST", "/messages?sessionId=x", &[JSON], ping).status,
        404
    );
}
