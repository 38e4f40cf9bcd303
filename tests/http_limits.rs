//! What one client, authenticated or not, cannot take from the others, over real sockets:
//! connections that send nothing or stop mid-body are closed, bodies in flight share one memory
//! budget, one address cannot hold every connection, one principal cannot hold every session,
//! and an HTTP+SSE session whose stream nobody reads refuses requests beyond its queue. With
//! all of that happening at once, a request from another client is still served.
//!
//! A second client address is `127.0.0.2`: all of `127.0.0.0/8` is loopback on Linux.

// Not every helper is used here (`per_revision!` among them).
#[allow(unused_macros)]
mod support;

use std::io::{Read, Write};
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use mcp_runtime::http::{AuthRejection, HttpConfig, Principal};
use mcp_runtime::{CancellationToken, Server, mcp_tool, server_info, tools};
use serde_json::{Value, json};
use support::PATIENCE;
use support::http::{EventStream, Reply, parse, request_bytes_to};
use support::http_server::InProcessServer;

/// Wait until the request is cancelled.
#[mcp_tool]
async fn wait_for_cancel(cancellation: CancellationToken) -> String {
    cancellation.cancelled().await;
    "cancelled".to_owned()
}

/// Tokens `<user>-token` name their user; no token is anonymous.
fn serve(config: HttpConfig) -> InProcessServer {
    let config = config.authorize(|request| match request.bearer_token {
        None => Ok(None),
        Some(token) => match token.strip_suffix("-token") {
            Some(user) => Ok(Some(Principal::new(user))),
            None => Err(AuthRejection::invalid_token("unknown token")),
        },
    });
    InProcessServer::start(
        Server::new(server_info!())
            .tools(tools![wait_for_cancel])
            .shutdown_timeout(Duration::from_secs(1)),
        config,
    )
}

/// A connection to `addr` from the loopback address `127.0.0.<host>`.
fn connect_from(host: u8, addr: SocketAddr) -> TcpStream {
    let socket = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    let from = SocketAddr::new(IpAddr::V4(Ipv4Addr::new(127, 0, 0, host)), 0);
    socket.bind(&from.into()).unwrap();
    socket.connect(&addr.into()).unwrap();
    let stream: TcpStream = socket.into();
    stream.set_read_timeout(Some(PATIENCE)).unwrap();
    stream
}

/// A 2026-07-28 `tools/list`, padded with spaces (still valid JSON) to `size` bytes.
fn list_body(size: usize) -> Vec<u8> {
    let mut body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}}))
    .unwrap();
    assert!(body.len() <= size);
    body.resize(size, b' ');
    body
}

const LIST_HEADERS: [(&str, &str); 4] = [
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
    ("MCP-Protocol-Version", "2026-07-28"),
    ("Mcp-Method", "tools/list"),
];

/// The headers of a 2026-07-28 `tools/call` of `wait_for_cancel`.
const WAIT_HEADERS: [(&str, &str); 5] = [
    ("Content-Type", "application/json"),
    ("Accept", "application/json, text/event-stream"),
    ("MCP-Protocol-Version", "2026-07-28"),
    ("Mcp-Method", "tools/call"),
    ("Mcp-Name", "wait_for_cancel"),
];

/// Send a whole request on `stream` and read its whole answer (`Connection: close`).
fn exchange(mut stream: TcpStream, request: &[u8]) -> Reply {
    stream.write_all(request).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    parse(&raw)
}

/// `tools/list` of `size` bytes from `127.0.0.<host>`.
fn list_from(host: u8, addr: SocketAddr, size: usize) -> Reply {
    let request = request_bytes_to("/mcp", "POST", &LIST_HEADERS, &list_body(size), true);
    exchange(connect_from(host, addr), &request)
}

fn served(reply: &Reply) -> bool {
    reply.status == 200 && reply.json()["result"]["tools"].is_array()
}

/// Whether the server closed `stream` (its read sees the end) rather than keeping it open
/// past [`PATIENCE`].
fn closed_by_server(stream: &mut TcpStream) -> bool {
    let mut rest = Vec::new();
    stream.read_to_end(&mut rest).is_ok()
}

/// Whether the server has answered (or closed) `stream` already, without waiting.
fn answered_already(stream: &mut TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let mut byte = [0; 1];
    let answered = match stream.peek(&mut byte) {
        Ok(_) => true,
        Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => false,
        Err(_) => true,
    };
    stream.set_nonblocking(false).unwrap();
    answered
}

/// Whether `stream` is still open: whatever the server sent so far is read, without waiting,
/// and no end follows it.
fn still_open(stream: &mut TcpStream) -> bool {
    stream.set_nonblocking(true).unwrap();
    let mut buffer = [0; 4096];
    let open = loop {
        match stream.read(&mut buffer) {
            Ok(0) => break false,
            Ok(_) => continue,
            Err(error) if error.kind() == std::io::ErrorKind::WouldBlock => break true,
            Err(_) => break false,
        }
    };
    stream.set_nonblocking(false).unwrap();
    open
}

/// Repeat `attempt` until it holds; the server reacts to an earlier event (a connection
/// accepted, a body's memory given back) on its own tasks, so the test waits for the effect.
fn eventually(what: &str, mut attempt: impl FnMut() -> bool) {
    let started = Instant::now();
    while !attempt() {
        assert!(
            started.elapsed() < PATIENCE,
            "waited {PATIENCE:?} for {what}"
        );
        std::thread::yield_now();
    }
}

#[test]
fn connections_that_send_nothing_or_send_their_headers_slowly_are_closed() {
    let server = serve(HttpConfig::new().idle_timeout(Duration::from_millis(300)));
    let mut silent = connect_from(1, server.addr);
    assert!(
        closed_by_server(&mut silent),
        "a connection that never sent anything"
    );
    let mut slow = connect_from(1, server.addr);
    slow.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        .unwrap();
    assert!(closed_by_server(&mut slow), "headers never completed");
    // A kept-alive connection idle after its answer goes the same way.
    let mut kept = connect_from(1, server.addr);
    let request = request_bytes_to("/mcp", "POST", &LIST_HEADERS, &list_body(300), false);
    kept.write_all(&request).unwrap();
    let mut head = [0u8; 12];
    kept.read_exact(&mut head).unwrap();
    assert_eq!(&head, b"HTTP/1.1 200");
    assert!(closed_by_server(&mut kept), "idle after its answer");
    assert!(served(&list_from(1, server.addr, 300)));
    server.shut_down();
}

#[test]
fn a_call_that_runs_longer_than_the_idle_timeout_keeps_its_connection() {
    let server = serve(HttpConfig::new().idle_timeout(Duration::from_millis(300)));
    let mut busy = connect_from(1, server.addr);
    let call = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "wait_for_cancel", "arguments": {},
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}}))
    .unwrap();
    busy.write_all(&request_bytes_to(
        "/mcp",
        "POST",
        &WAIT_HEADERS,
        &call,
        false,
    ))
    .unwrap();
    // A connection opened after the call is closed once idle for the timeout; by then the
    // call's connection, older, has been without traffic longer, and is still open.
    let mut silent = connect_from(1, server.addr);
    assert!(closed_by_server(&mut silent), "the silent connection");
    assert!(
        still_open(&mut busy),
        "the connection of a call still running was closed"
    );
    server.shut_down();
}

#[test]
fn a_body_that_stops_arriving_is_answered_408_and_its_connection_closed() {
    let server = serve(HttpConfig::new().body_read_timeout(Duration::from_millis(300)));
    let mut stream = connect_from(1, server.addr);
    let mut request = request_bytes_to("/mcp", "POST", &LIST_HEADERS, &list_body(1000), true);
    request.truncate(request.len() - 900);
    stream.write_all(&request).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let reply = parse(&raw);
    assert_eq!(reply.status, 408);
    assert_eq!(reply.header("connection"), Some("close"));
    assert_eq!(reply.error_code(), -32600);
    assert_eq!(
        reply.json()["error"]["message"],
        "the request body did not arrive within 0.3 s"
    );
    assert!(served(&list_from(1, server.addr, 300)));
    server.shut_down();
}

const K: usize = 1024;

#[test]
fn large_bodies_in_flight_share_one_memory_budget() {
    let server = serve(
        HttpConfig::new()
            .max_body_size(800 * K)
            .max_body_memory(1024 * K)
            .body_read_timeout(PATIENCE),
    );
    let addr = server.addr;
    // A body of 700 KiB that has not finished arriving holds its memory...
    let request = request_bytes_to("/mcp", "POST", &LIST_HEADERS, &list_body(700 * K), true);
    let (start, rest) = request.split_at(request.len() - 1000);
    let start_slow = || {
        let mut slow = connect_from(1, addr);
        slow.write_all(start).unwrap();
        slow
    };
    let mut slow = start_slow();
    // ...so one of 500 KiB from another address does not fit, once the server has begun
    // reading the first. Until then the two race: the 500 KiB one may be read first and
    // served, and may even crowd the first out (answered 503 and closed); then the first is
    // sent again, until the server holds it while the other arrives.
    eventually("a body refused for memory", || {
        let reply = list_from(2, addr, 500 * K);
        if reply.status == 503 {
            assert_eq!(reply.header("retry-after"), Some("1"));
            assert_eq!(reply.error_code(), -32603);
            return true;
        }
        assert!(served(&reply), "{}", reply.status);
        if answered_already(&mut slow) {
            slow = start_slow();
        }
        false
    });
    // ...while an ordinary one still does.
    assert!(served(&list_from(2, addr, 60 * K)));
    slow.write_all(rest).unwrap();
    let mut raw = Vec::new();
    slow.read_to_end(&mut raw).unwrap();
    assert!(served(&parse(&raw)));
    // Handled, the first body gave its memory back.
    assert!(served(&list_from(2, addr, 500 * K)));
    server.shut_down();
}

#[test]
fn a_body_that_would_expand_past_the_parse_budget_is_refused_before_parsing() {
    let server = InProcessServer::start(
        Server::new(server_info!())
            .tools(tools![wait_for_cancel])
            .max_parsed_size(256 * K),
        HttpConfig::new(),
    );
    let zeros = vec![0; 30_000];
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "wait_for_cancel", "arguments": {"unused": zeros},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let body = call.to_string();
    assert!(body.len() < 64 * K, "small enough for every other limit");
    let request = request_bytes_to("/mcp", "POST", &WAIT_HEADERS, body.as_bytes(), true);
    let reply = exchange(connect_from(1, server.addr), &request);
    assert_eq!(reply.status, 400);
    let answer = reply.json();
    assert_eq!(answer["id"], 7);
    assert_eq!(answer["error"]["code"], -32600);
    assert_eq!(
        answer["error"]["message"],
        "message would take more than the limit of 262144 bytes once parsed and was refused"
    );
    assert!(served(&list_from(1, server.addr, 300)));
    server.shut_down();
}

#[test]
fn one_address_cannot_take_every_connection() {
    let server = serve(
        HttpConfig::new()
            .max_connections(8)
            .max_connections_per_address(3)
            .idle_timeout(PATIENCE * 2),
    );
    let addr = server.addr;
    let mut held: Vec<TcpStream> = (0..3).map(|_| connect_from(1, addr)).collect();
    // Accepted in order, so the fourth from the same address is refused at once.
    let mut refused = connect_from(1, addr);
    let mut raw = Vec::new();
    refused.read_to_end(&mut raw).unwrap();
    let reply = parse(&raw);
    assert_eq!(reply.status, 503);
    assert_eq!(reply.header("retry-after"), Some("1"));
    assert_eq!(
        reply.json()["error"]["message"],
        "too many connections from this address; try again later"
    );
    assert!(
        served(&list_from(2, addr, 300)),
        "another address is served"
    );
    // A slot comes back when one of the three closes.
    held.pop();
    eventually("a connection slot given back", || {
        let reply = list_from(1, addr, 300);
        reply.status != 503 && served(&reply)
    });
    drop(held);
    server.shut_down();
}

/// POST a legacy message as `token` (anonymous without), in `session` when given.
fn legacy(addr: SocketAddr, token: Option<&str>, session: Option<&str>, message: &Value) -> Reply {
    let authorization = token.map(|token| format!("Bearer {token}"));
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    if let Some(authorization) = &authorization {
        headers.push(("Authorization", authorization));
    }
    if let Some(session) = session {
        headers.push(("Mcp-Session-Id", session));
    }
    let request = request_bytes_to(
        "/mcp",
        "POST",
        &headers,
        message.to_string().as_bytes(),
        true,
    );
    exchange(connect_from(1, addr), &request)
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "limits-tests", "version": "0"}}})
}

/// `initialize` for `token`: the new session's id, or the refusal.
fn open_session(addr: SocketAddr, token: Option<&str>) -> Result<String, Reply> {
    let reply = legacy(addr, token, None, &initialize());
    match reply.header("mcp-session-id") {
        Some(id) if reply.status == 200 => Ok(id.to_owned()),
        _ => Err(reply),
    }
}

fn ping_in(addr: SocketAddr, token: Option<&str>, session: &str) -> u16 {
    let ping = json!({"jsonrpc": "2.0", "id": 2, "method": "ping"});
    legacy(addr, token, Some(session), &ping).status
}

#[test]
fn one_principal_cannot_take_every_session() {
    let server = serve(HttpConfig::new().max_sessions(4).max_sessions_per_client(2));
    let addr = server.addr;
    let alice = Some("alice-token");
    let first = open_session(addr, alice).unwrap();
    let second = open_session(addr, alice).unwrap();
    assert_eq!(ping_in(addr, alice, &second), 200);
    let third = open_session(addr, alice).unwrap();
    assert_eq!(
        ping_in(addr, alice, &first),
        404,
        "alice's oldest made room"
    );
    assert_eq!(ping_in(addr, alice, &second), 200);
    assert_eq!(ping_in(addr, alice, &third), 200);
    // Alice holds only her share: bob, and anonymous clients by address, still get theirs.
    let bobs = open_session(addr, Some("bob-token")).unwrap();
    let anonymous = open_session(addr, None).unwrap();
    assert_eq!(ping_in(addr, Some("bob-token"), &bobs), 200);
    assert_eq!(ping_in(addr, None, &anonymous), 200);
    let everyone = open_session(addr, Some("carol-token")).unwrap_err();
    assert_eq!(everyone.status, 503, "the server's own limit still holds");

    // HTTP+SSE sessions live with their streams, so a client at its limit is refused.
    let sse = |token: &str| {
        let authorization = format!("Bearer {token}");
        let headers = [
            ("Accept", "text/event-stream"),
            ("Authorization", authorization.as_str()),
        ];
        EventStream::open(addr, "GET", "/sse", &headers, b"")
    };
    let streams = [sse("alice-token"), sse("alice-token")];
    assert!(streams.iter().all(|stream| stream.status == 200));
    let refused = sse("alice-token");
    assert_eq!(refused.status, 503);
    assert_eq!(sse("bob-token").status, 200);
    drop(streams);
    server.shut_down();
}

#[test]
fn an_http_sse_session_nobody_reads_refuses_requests_beyond_its_queue() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let mut stream =
        EventStream::open(addr, "GET", "/sse", &[("Accept", "text/event-stream")], b"");
    let endpoint = stream.next_event().expect("an endpoint event").data;
    let post = |message: &Value| {
        let request = request_bytes_to(
            &endpoint,
            "POST",
            &[("Content-Type", "application/json")],
            message.to_string().as_bytes(),
            true,
        );
        exchange(connect_from(1, addr), &request)
    };
    let mut initialize = initialize();
    initialize["params"]["protocolVersion"] = json!("2024-11-05");
    assert_eq!(post(&initialize).status, 202);
    assert_eq!(stream.next_message()["id"], 1);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(&initialized).status, 202);
    // Calls that never end, and a client that stops reading: each takes a place in the
    // session's queue until its answer is on the stream.
    let call = |id: usize| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "wait_for_cancel", "arguments": {}}})
    };
    let mut accepted = 0;
    let refused = loop {
        let reply = post(&call(100 + accepted));
        if reply.status != 202 {
            break reply;
        }
        accepted += 1;
        assert!(accepted <= 10_000, "the queue has no bound");
    };
    assert_eq!(accepted, 128, "the queue's bound");
    assert_eq!(refused.status, 429);
    assert_eq!(refused.header("retry-after"), Some("1"));
    assert_eq!(refused.json()["id"], 100 + 128);
    // Notifications queue nothing and are still taken; other clients are served.
    assert_eq!(post(&initialized).status, 202);
    assert!(served(&list_from(2, addr, 300)));
    drop(stream);
    server.shut_down();
}

#[test]
fn with_every_limit_hit_at_once_another_client_is_still_served() {
    let server = serve(
        HttpConfig::new()
            .max_connections(16)
            .max_connections_per_address(4)
            .max_body_size(800 * K)
            .max_body_memory(1024 * K)
            .max_sessions(3)
            .max_sessions_per_client(2)
            .idle_timeout(PATIENCE * 2)
            .body_read_timeout(PATIENCE * 2),
    );
    let addr = server.addr;
    // The attacker at 127.0.0.1: two sessions (its share), then a body that holds most of the
    // body memory, and connections that send nothing up to its address's limit.
    open_session(addr, None).unwrap();
    open_session(addr, None).unwrap();
    let request = request_bytes_to("/mcp", "POST", &LIST_HEADERS, &list_body(800 * K), true);
    let mut slow = connect_from(1, addr);
    slow.write_all(&request[..request.len() - 100]).unwrap();
    let idle: Vec<TcpStream> = (0..3).map(|_| connect_from(1, addr)).collect();
    let mut raw = Vec::new();
    connect_from(1, addr).read_to_end(&mut raw).unwrap();
    assert_eq!(
        parse(&raw).status,
        503,
        "the attacker's address is at its limit"
    );
    eventually("the slow body's memory held", || {
        list_from(2, addr, 300 * K).status == 503
    });
    // Another client is served: a small request, and a session of its own.
    assert!(served(&list_from(2, addr, 300)));
    let request = request_bytes_to(
        "/mcp",
        "POST",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
        ],
        initialize().to_string().as_bytes(),
        true,
    );
    let reply = exchange(connect_from(2, addr), &request);
    assert_eq!(reply.status, 200);
    assert!(reply.header("mcp-session-id").is_some());
    drop((slow, idle));
    server.shut_down();
}
