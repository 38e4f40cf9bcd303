//! The Streamable HTTP transport over a real socket, driven by a hand-written HTTP/1.1 client:
//! every status and JSON-RPC error it promises, in both eras, and every JSON-RPC body checked
//! against the official schema of its revision.

// Not every helper is used here (`per_revision!` among them).
#[allow(unused_macros)]
mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use mcp_runtime::http::{AuthRejection, HttpConfig, OwnedAuthRequest, ProtectedResource};
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::{
    CancellationToken, RequestContext, Server, mcp_resource, mcp_tool, resources, server_info,
    tools,
};
use serde_json::{Value, json};
use support::PATIENCE;
use support::http::{EventStream, Reply, events, parse, request_bytes, send};
use support::http_server::InProcessServer;
use support::schema::check_server_message;

const MODERN: &str = "2026-07-28";

/// Repeat the text back.
///
/// # Arguments
/// * `text` - what to echo
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

/// Sleep, then answer.
///
/// # Arguments
/// * `millis` - how long to sleep
#[mcp_tool]
async fn nap(millis: u64) -> String {
    tokio::time::sleep(Duration::from_millis(millis)).await;
    "rested".to_owned()
}

/// Report progress twice, then answer.
#[mcp_tool]
async fn count(context: RequestContext) -> String {
    context.progress(1.0, Some(2.0), Some("one"));
    tokio::time::sleep(Duration::from_millis(20)).await;
    context.progress(2.0, Some(2.0), Some("two"));
    "counted".to_owned()
}

/// Report progress once and answer in the same poll: the report still goes first.
#[mcp_tool]
async fn tell(context: RequestContext) -> String {
    context.progress(1.0, Some(1.0), Some("all at once"));
    "told".to_owned()
}

/// A fixed note, so the server offers resources (and listen streams).
#[mcp_resource("note://hello", mime_type = "text/plain")]
async fn hello() -> String {
    "hello".to_owned()
}

/// Set when `wait_for_cancel` has started, and when it was dropped with its token fired.
static WAITING_FOR_CANCEL: AtomicBool = AtomicBool::new(false);
static CANCELLED: AtomicBool = AtomicBool::new(false);

/// Wait until the request is cancelled.
#[mcp_tool]
async fn wait_for_cancel(cancellation: CancellationToken) -> String {
    struct Observe(CancellationToken);
    impl Drop for Observe {
        fn drop(&mut self) {
            if self.0.is_cancelled() {
                CANCELLED.store(true, Ordering::SeqCst);
            }
        }
    }
    let _observe = Observe(cancellation.clone());
    WAITING_FOR_CANCEL.store(true, Ordering::SeqCst);
    cancellation.cancelled().await;
    "cancelled".to_owned()
}

/// Tags of the `hold` calls that have started, and of those dropped with their token fired.
static HELD: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
static RELEASED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Wait until the request is cancelled, noting when it starts and when it is cancelled.
///
/// # Arguments
/// * `tag` - names the call in the notes
#[mcp_tool]
async fn hold(tag: String, cancellation: CancellationToken) -> String {
    struct Observe(CancellationToken, String);
    impl Drop for Observe {
        fn drop(&mut self) {
            if self.0.is_cancelled() {
                RELEASED.lock().unwrap().push(self.1.clone());
            }
        }
    }
    let _observe = Observe(cancellation.clone(), tag.clone());
    HELD.lock().unwrap().push(tag);
    cancellation.cancelled().await;
    "cancelled".to_owned()
}

/// Tags the test has let go on.
static GO_ON: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

/// Note its start in `HELD`, then answer once the test lets it go on (never on its own: a call
/// that must still be running at some point is made to, not assumed to be by its length).
///
/// # Arguments
/// * `tag` - names the call in the notes
#[mcp_tool]
async fn rest(tag: String) -> String {
    HELD.lock().unwrap().push(tag.clone());
    let deadline = Instant::now() + PATIENCE;
    while !GO_ON.lock().unwrap().contains(&tag) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    "rested".to_owned()
}

/// Wait ([`PATIENCE`] at most, against hangs) until `list` holds `tag`.
fn wait_for(list: &std::sync::Mutex<Vec<String>>, tag: &str, what: &str) {
    let deadline = Instant::now() + PATIENCE;
    while !list.lock().unwrap().iter().any(|held| held == tag) {
        assert!(Instant::now() < deadline, "{tag}: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The server these tests talk to, on a loopback port of this process.
fn serve(config: HttpConfig) -> InProcessServer {
    InProcessServer::start(
        Server::new(server_info!())
            .tools(tools![echo, nap, wait_for_cancel, count, tell, hold, rest])
            .resources(resources![hello])
            .shutdown_timeout(Duration::from_secs(2)),
        config,
    )
}

/// Begin `server`'s shutdown and wait until it no longer accepts connections: from then on it
/// is shutting down, whatever the machine's load.
fn begin_shut_down(server: &mut InProcessServer) {
    server.begin_shut_down();
    let deadline = Instant::now() + PATIENCE;
    while TcpStream::connect(server.addr).is_ok() {
        assert!(Instant::now() < deadline, "the server kept accepting");
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn meta() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
    })
}

/// A 2026-07-28 request body.
fn modern(id: i64, method: &str, mut params: Value) -> Vec<u8> {
    params["_meta"] = meta();
    serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
        .unwrap()
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const ACCEPT: (&str, &str) = ("Accept", "application/json, text/event-stream");

/// POST a 2026-07-28 request with the headers it needs (`Mcp-Name` when given).
fn post_modern(addr: SocketAddr, method: &str, name: Option<&str>, body: &[u8]) -> Reply {
    let mut headers = vec![
        JSON,
        ACCEPT,
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", method),
    ];
    if let Some(name) = name {
        headers.push(("Mcp-Name", name));
    }
    send(addr, "POST", &headers, body)
}

#[test]
fn modern_requests_are_served_statelessly() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let discover = post_modern(
        addr,
        "server/discover",
        None,
        &modern(1, "server/discover", json!({})),
    );
    assert_eq!(discover.status, 200);
    assert_eq!(discover.header("content-type"), Some("application/json"));
    assert!(
        discover.header("mcp-session-id").is_none(),
        "2026-07-28 has no sessions"
    );
    let discover = discover.message(ProtocolVersion::V2026_07_28, Some("server/discover"));
    assert_eq!(discover["result"]["supportedVersions"][0], MODERN);

    let list = post_modern(
        addr,
        "tools/list",
        None,
        &modern(2, "tools/list", json!({})),
    );
    assert_eq!(list.status, 200);
    let list = list.message(ProtocolVersion::V2026_07_28, Some("tools/list"));
    assert_eq!(list["result"]["tools"].as_array().unwrap().len(), 7);

    let body = modern(
        3,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "hi"}}),
    );
    let call = post_modern(addr, "tools/call", Some("echo"), &body);
    assert_eq!(call.status, 200);
    let call = call.message(ProtocolVersion::V2026_07_28, Some("tools/call"));
    assert_eq!(call["result"]["content"][0]["text"], "hi");
    assert_eq!(call["id"], 3);

    // Header names in any case, values trimmed, names in base64.
    let body = modern(
        4,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "b64"}}),
    );
    let call = send(
        addr,
        "POST",
        &[
            JSON,
            ACCEPT,
            ("mcp-protocol-version", "  2026-07-28 "),
            ("MCP-METHOD", "tools/call"),
            ("mcp-name", "=?base64?ZWNobw==?="),
        ],
        &body,
    );
    assert_eq!(
        call.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&call.body)
    );
    server.shut_down();
}

#[test]
fn modern_header_mismatches_are_400_with_32020() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let body = modern(
        1,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x"}}),
    );
    let cases: [&[(&str, &str)]; 5] = [
        // Mcp-Name names another tool.
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "nap"),
        ],
        // Mcp-Method names another method.
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/list"),
            ("Mcp-Name", "echo"),
        ],
        // The version header differs from `_meta`.
        &[
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "echo"),
        ],
        // Headers missing.
        &[
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
        ],
        &[("Mcp-Method", "tools/call"), ("Mcp-Name", "echo")],
    ];
    for extra in cases {
        let mut headers = vec![JSON, ACCEPT];
        headers.extend_from_slice(extra);
        let reply = send(addr, "POST", &headers, &body);
        assert_eq!(reply.status, 400, "{extra:?}");
        let message = reply.message(ProtocolVersion::V2026_07_28, Some("tools/call"));
        assert_eq!(message["error"]["code"], -32020, "{extra:?}: {message}");
        assert_eq!(message["id"], 1);
    }

    // `resources/read` repeats its URI in `Mcp-Name`.
    let read = modern(2, "resources/read", json!({"uri": "note://hello"}));
    let reply = post_modern(addr, "resources/read", Some("note://hello"), &read);
    assert_eq!(reply.status, 200);
    let message = reply.message(ProtocolVersion::V2026_07_28, Some("resources/read"));
    assert_eq!(message["result"]["contents"][0]["text"], "hello");
    let reply = post_modern(addr, "resources/read", Some("note://other"), &read);
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), -32020);
    server.shut_down();
}

#[test]
fn modern_protocol_errors_have_their_statuses() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;

    // Missing `_meta` while the header speaks 2026-07-28.
    let bare = serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}),
    )
    .unwrap();
    let reply = post_modern(addr, "tools/list", None, &bare);
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), -32602);

    // `_meta` without the client's capabilities.
    let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": MODERN}}}))
    .unwrap();
    let reply = post_modern(addr, "tools/list", None, &body);
    assert_eq!(reply.status, 400);
    assert_eq!(
        reply.message(ProtocolVersion::V2026_07_28, None)["error"]["code"],
        -32602
    );

    // A revision the server does not serve.
    let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
        "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2030-01-01",
            "io.modelcontextprotocol/clientCapabilities": {}}}}))
    .unwrap();
    let reply = send(
        addr,
        "POST",
        &[
            JSON,
            ACCEPT,
            ("MCP-Protocol-Version", "2030-01-01"),
            ("Mcp-Method", "tools/list"),
        ],
        &body,
    );
    assert_eq!(reply.status, 400);
    let message = reply.message(ProtocolVersion::V2026_07_28, None);
    assert_eq!(message["error"]["code"], -32022);
    assert_eq!(message["error"]["data"]["requested"], "2030-01-01");

    // Unknown and removed methods: 404.
    for method in ["no/such/method", "ping", "initialize"] {
        let reply = post_modern(addr, method, None, &modern(4, method, json!({})));
        assert_eq!(reply.status, 404, "{method}");
        assert_eq!(
            reply.message(ProtocolVersion::V2026_07_28, None)["error"]["code"],
            -32601
        );
    }

    // An unknown tool is an ordinary JSON-RPC error.
    let body = modern(5, "tools/call", json!({"name": "nope"}));
    let reply = post_modern(addr, "tools/call", Some("nope"), &body);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.error_code(), -32602);

    // A notification is accepted with no body.
    let note = serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 9, "_meta": meta()}}),
    )
    .unwrap();
    let reply = post_modern(addr, "notifications/cancelled", None, &note);
    assert_eq!(reply.status, 202);
    assert!(reply.body.is_empty());

    // GET and DELETE do not exist in 2026-07-28.
    for method in ["GET", "DELETE"] {
        let reply = send(
            addr,
            method,
            &[ACCEPT, ("MCP-Protocol-Version", MODERN)],
            b"",
        );
        assert_eq!(reply.status, 405, "{method}");
        assert!(reply.header("allow").is_some());
    }
    server.shut_down();
}

/// `initialize` at `version`; the session id.
fn initialize(addr: SocketAddr, version: &str) -> String {
    let body = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": support::initialize_params(version)}))
    .unwrap();
    let reply = send(addr, "POST", &[JSON, ACCEPT], &body);
    assert_eq!(reply.status, 200);
    let revision: ProtocolVersion = version.parse().unwrap();
    let message = reply.message(revision, Some("initialize"));
    assert_eq!(message["result"]["protocolVersion"], version);
    let id = reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    assert!(
        id.len() >= 32 && id.bytes().all(|b| (0x21..=0x7e).contains(&b)),
        "{id}"
    );
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let reply = send(
        addr,
        "POST",
        &[
            JSON,
            ACCEPT,
            ("Mcp-Session-Id", &id),
            ("MCP-Protocol-Version", version),
        ],
        note,
    );
    assert_eq!(reply.status, 202);
    id
}

#[test]
fn legacy_clients_get_sessions() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let list = br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
    for version in ["2025-06-18", "2025-11-25"] {
        let revision: ProtocolVersion = version.parse().unwrap();
        let session = initialize(addr, version);
        let headers = [
            JSON,
            ACCEPT,
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", version),
        ];
        let reply = send(addr, "POST", &headers, list);
        assert_eq!(reply.status, 200);
        let message = reply.message(revision, Some("tools/list"));
        assert_eq!(message["result"]["tools"].as_array().unwrap().len(), 7);

        let call = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"nap","arguments":{"millis":10}}}"#;
        let reply = send(addr, "POST", &headers, call);
        assert_eq!(
            reply.message(revision, Some("tools/call"))["result"]["content"][0]["text"],
            "rested"
        );

        // An unsupported version header is refused.
        let bad = [
            JSON,
            ACCEPT,
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", "1999-01-01"),
        ];
        assert_eq!(send(addr, "POST", &bad, list).status, 400);

        // DELETE ends the session; it is unknown afterwards.
        let end = send(addr, "DELETE", &[("Mcp-Session-Id", session.as_str())], b"");
        assert_eq!(end.status, 200);
        let reply = send(addr, "POST", &headers, list);
        assert_eq!(reply.status, 404);
        assert_eq!(reply.message(revision, None)["error"]["code"], -32600);
        assert_eq!(
            send(addr, "DELETE", &[("Mcp-Session-Id", session.as_str())], b"").status,
            404
        );
    }

    // Without a session id, or with one never issued.
    let reply = send(
        addr,
        "POST",
        &[JSON, ACCEPT, ("MCP-Protocol-Version", "2025-06-18")],
        list,
    );
    assert_eq!(reply.status, 400);
    assert_eq!(reply.message(ProtocolVersion::V2025_06_18, None)["id"], 1);
    let reply = send(
        addr,
        "POST",
        &[JSON, ACCEPT, ("Mcp-Session-Id", "not-a-session")],
        list,
    );
    assert_eq!(reply.status, 404);
    // GET without a session: no standalone stream to open.
    assert_eq!(
        send(addr, "GET", &[("Accept", "text/event-stream")], b"").status,
        405
    );
    server.shut_down();
}

#[test]
fn a_2025_03_26_session_takes_batches_without_a_version_header() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let session = initialize(addr, "2025-03-26");
    let batch = br#"[{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"a"}}},{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}]"#;
    let reply = send(
        addr,
        "POST",
        &[JSON, ACCEPT, ("Mcp-Session-Id", &session)],
        batch,
    );
    assert_eq!(reply.status, 200);
    let answers = reply.json();
    let answers = answers.as_array().unwrap();
    assert_eq!(answers.len(), 2);
    for answer in answers {
        check_server_message(ProtocolVersion::V2025_03_26, None, answer).unwrap();
    }
    let notes =
        br#"[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}]"#;
    assert_eq!(
        send(
            addr,
            "POST",
            &[JSON, ACCEPT, ("Mcp-Session-Id", &session)],
            notes
        )
        .status,
        202
    );
    server.shut_down();
}

#[test]
fn legacy_sessions_open_one_notification_stream() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let session = initialize(addr, "2025-11-25");
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream
        .write_all(&request_bytes(
            "GET",
            &[
                ("Accept", "text/event-stream"),
                ("Mcp-Session-Id", &session),
            ],
            b"",
        ))
        .unwrap();
    let mut reader = BufReader::new(stream);
    let mut status = String::new();
    reader.read_line(&mut status).unwrap();
    assert!(status.contains(" 200 "), "{status}");
    let mut content_type = None;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        if line == "\r\n" {
            break;
        }
        if let Some((name, value)) = line.split_once(':')
            && name.eq_ignore_ascii_case("content-type")
        {
            content_type = Some(value.trim().to_owned());
        }
    }
    assert_eq!(content_type.as_deref(), Some("text/event-stream"));
    // A second stream for the same session is refused while the first is open.
    let second = send(
        addr,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", &session),
        ],
        b"",
    );
    assert_eq!(second.status, 409);
    // Shutting down ends the stream.
    server.shut_down();
    let mut rest = Vec::new();
    reader.read_to_end(&mut rest).unwrap();
}

#[test]
fn foreign_origins_bad_content_and_oversize_bodies_are_refused() {
    let server = serve(
        HttpConfig::new()
            .max_body_size(1024)
            .allow_origin("https://app.example"),
    );
    let addr = server.addr;
    let body = modern(1, "tools/list", json!({}));
    let headers = |origin: &'static str| {
        vec![
            JSON,
            ACCEPT,
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/list"),
            ("Origin", origin),
        ]
    };
    let reply = send(addr, "POST", &headers("https://evil.example"), &body);
    assert_eq!(reply.status, 403);
    assert_eq!(reply.error_code(), -32600);
    assert_eq!(
        send(addr, "POST", &headers("http://localhost:5173"), &body).status,
        200
    );
    assert_eq!(
        send(addr, "POST", &headers("https://app.example"), &body).status,
        200
    );

    // DNS rebinding: a loopback server answers only loopback host names.
    let raw = format!(
        "POST /mcp HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).unwrap();
    stream.write_all(raw.as_bytes()).unwrap();
    stream.write_all(&body).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    assert_eq!(parse(&raw).status, 403);

    let text = send(
        addr,
        "POST",
        &[("Content-Type", "text/plain"), ACCEPT],
        &body,
    );
    assert_eq!(text.status, 415);
    let html_only = send(addr, "POST", &[JSON, ("Accept", "text/html")], &body);
    assert_eq!(html_only.status, 406);

    let mut big = modern(
        2,
        "tools/call",
        json!({"name": "echo", "arguments": {"text": "x".repeat(2000)}}),
    );
    let reply = post_modern(addr, "tools/call", Some("echo"), &big);
    assert_eq!(reply.status, 413);
    assert_eq!(reply.error_code(), -32600);
    big.truncate(10);
    let reply = post_modern(addr, "tools/call", Some("echo"), &big);
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error_code(), -32700);

    let reply = send(addr, "PUT", &[JSON], b"{}");
    assert_eq!(reply.status, 405);
    server.shut_down();
}

#[test]
fn the_authorization_hook_refuses_with_a_challenge() {
    let config = HttpConfig::new()
        .protected_resource(
            ProtectedResource::new("http://127.0.0.1/mcp")
                .authorization_server("https://auth.example"),
        )
        .authorize(|request| match request.bearer_token {
            Some("good") => Ok(()),
            Some(_) => Err(AuthRejection::invalid_token("unknown token")),
            None => Err(AuthRejection::missing_token()),
        });
    let server = serve(config);
    let addr = server.addr;
    let body = modern(1, "tools/list", json!({}));
    let base = [
        JSON,
        ACCEPT,
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/list"),
    ];

    let reply = send(addr, "POST", &base, &body);
    assert_eq!(reply.status, 401);
    let challenge = reply.header("www-authenticate").unwrap();
    assert!(challenge.starts_with("Bearer "), "{challenge}");
    assert!(
        challenge.contains(
            r#"resource_metadata="http://127.0.0.1/.well-known/oauth-protected-resource/mcp""#
        ),
        "{challenge}"
    );

    let mut wrong = base.to_vec();
    wrong.push(("Authorization", "Bearer bad"));
    let reply = send(addr, "POST", &wrong, &body);
    assert_eq!(reply.status, 401);
    assert!(
        reply
            .header("www-authenticate")
            .unwrap()
            .contains(r#"error="invalid_token""#)
    );

    let mut right = base.to_vec();
    right.push(("Authorization", "Bearer good"));
    assert_eq!(send(addr, "POST", &right, &body).status, 200);

    // The metadata document is public.
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .write_all(b"GET /.well-known/oauth-protected-resource/mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let document = parse(&raw);
    assert_eq!(document.status, 200);
    assert_eq!(
        document.json(),
        json!({"resource": "http://127.0.0.1/mcp", "authorization_servers": ["https://auth.example"],
            "bearer_methods_supported": ["header"]})
    );
    server.shut_down();
}

#[test]
fn an_asynchronous_authorization_hook_is_awaited() {
    // The verdict comes from a "remote" lookup: a task that answers after a tick of its own.
    let config = HttpConfig::new().authorize_async(|request: OwnedAuthRequest| async move {
        let token = request.bearer_token;
        let active = tokio::spawn(async move {
            tokio::task::yield_now().await;
            token.as_deref() == Some("active")
        })
        .await
        .unwrap_or(false);
        assert_eq!(request.path, "/mcp");
        if active {
            Ok(())
        } else {
            Err(AuthRejection::invalid_token("the token is not active"))
        }
    });
    let server = serve(config);
    let body = modern(1, "tools/list", json!({}));
    let base = [
        JSON,
        ACCEPT,
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/list"),
    ];
    let mut revoked = base.to_vec();
    revoked.push(("Authorization", "Bearer revoked"));
    let reply = send(server.addr, "POST", &revoked, &body);
    assert_eq!(reply.status, 401);
    assert!(
        reply
            .header("www-authenticate")
            .unwrap()
            .contains(r#"error_description="the token is not active""#)
    );
    let mut active = base.to_vec();
    active.push(("Authorization", "Bearer active"));
    let reply = send(server.addr, "POST", &active, &body);
    assert_eq!(reply.status, 200);
    assert!(reply.json()["result"]["tools"].is_array());
    server.shut_down();
}

#[test]
fn a_client_that_disconnects_cancels_its_call() {
    let server = serve(HttpConfig::new());
    let body = modern(1, "tools/call", json!({"name": "wait_for_cancel"}));
    let mut stream = TcpStream::connect(server.addr).unwrap();
    let headers = [
        JSON,
        ACCEPT,
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "wait_for_cancel"),
    ];
    stream
        .write_all(&request_bytes("POST", &headers, &body))
        .unwrap();
    // A disconnection before the call started would cancel nothing.
    let deadline = Instant::now() + PATIENCE;
    while !WAITING_FOR_CANCEL.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "the call did not start");
        std::thread::sleep(Duration::from_millis(10));
    }
    assert!(!CANCELLED.load(Ordering::SeqCst));
    drop(stream);
    let deadline = Instant::now() + PATIENCE;
    while !CANCELLED.load(Ordering::SeqCst) {
        assert!(Instant::now() < deadline, "the call was not cancelled");
        std::thread::sleep(Duration::from_millis(20));
    }
    server.shut_down();
}

/// A client that goes away cancels its 2026-07-28 call, whether it asked to keep the
/// connection alive or sent `Connection: close` (after which hyper reads nothing more), and
/// whether its answer is JSON or an event stream (a progress token).
#[test]
fn a_disconnect_cancels_a_modern_call_with_or_without_connection_close() {
    let server = serve(HttpConfig::new());
    let headers = [
        JSON,
        ACCEPT,
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "hold"),
    ];
    for (tag, close, streamed) in [
        ("json-close", true, false),
        ("json-keep-alive", false, false),
        ("events-close", true, true),
        ("events-keep-alive", false, true),
    ] {
        let mut request: Value = serde_json::from_slice(&modern(
            1,
            "tools/call",
            json!({"name": "hold", "arguments": {"tag": tag}}),
        ))
        .unwrap();
        if streamed {
            request["params"]["_meta"]["progressToken"] = json!(tag);
        }
        let body = serde_json::to_vec(&request).unwrap();
        let mut stream = TcpStream::connect(server.addr).unwrap();
        stream
            .write_all(&support::http::request_bytes_to(
                "/mcp", "POST", &headers, &body, close,
            ))
            .unwrap();
        wait_for(&HELD, tag, "the call did not start");
        assert!(!RELEASED.lock().unwrap().iter().any(|held| held == tag));
        drop(stream);
        wait_for(&RELEASED, tag, "the call was not cancelled");
    }
    server.shut_down();
}

/// A 2025-11-25 session's event streams open with a priming event (an id, a `retry`, empty
/// data) and number every event; earlier revisions' streams carry neither.
#[test]
fn legacy_event_streams_are_primed_and_numbered_from_2025_11_25() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let call = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"count","_meta":{"progressToken":"t5"}}}"#;
    for version in ["2025-06-18", "2025-11-25"] {
        let session = initialize(addr, version);
        let headers = [
            JSON,
            ACCEPT,
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", version),
        ];
        let reply = send(addr, "POST", &headers, call);
        assert_eq!(reply.status, 200);
        assert_eq!(reply.header("content-type"), Some("text/event-stream"));
        let streamed = support::http::sse_events(&reply.body);
        let messages: Vec<_> = streamed
            .iter()
            .filter(|event| !event.data.is_empty())
            .collect();
        assert_eq!(messages.len(), 3, "{streamed:?}");
        assert!(
            messages
                .iter()
                .all(|event| event.event.as_deref() == Some("message"))
        );
        if version == "2025-06-18" {
            assert_eq!(streamed.len(), 3, "no priming event: {streamed:?}");
            assert!(
                streamed
                    .iter()
                    .all(|event| event.id.is_none() && event.retry.is_none())
            );
            continue;
        }
        let priming = &streamed[0];
        assert!(priming.data.is_empty(), "{priming:?}");
        assert!(
            priming.id.is_some() && priming.retry.is_some(),
            "{priming:?}"
        );
        assert_eq!(streamed.len(), 4);
        let mut ids: Vec<_> = streamed
            .iter()
            .map(|event| event.id.clone().unwrap())
            .collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), 4, "ids are unique: {streamed:?}");

        // The GET stream is primed too, with ids of its own.
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        let get = [
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", session.as_str()),
            ("Last-Event-ID", ids[0].as_str()),
        ];
        stream.write_all(&request_bytes("GET", &get, b"")).unwrap();
        let mut reader = BufReader::new(stream);
        let mut head = String::new();
        while !head.ends_with("\r\n\r\n") {
            assert!(reader.read_line(&mut head).unwrap() > 0, "{head}");
        }
        assert!(head.starts_with("HTTP/1.1 200 "), "{head}");
        // The first chunk of the (chunked) body is the priming event.
        let mut event = String::new();
        while !event.ends_with("\n\n") {
            let mut line = String::new();
            assert!(reader.read_line(&mut line).unwrap() > 0, "{event}");
            if line.starts_with("id:")
                || line.starts_with("retry:")
                || line.starts_with("data:")
                || line == "\n"
            {
                event.push_str(&line);
            }
        }
        let primed = support::http::sse_events(event.as_bytes());
        assert_eq!(primed.len(), 1, "{event:?}");
        assert!(primed[0].data.is_empty() && primed[0].retry.is_some());
        let id = primed[0].id.clone().unwrap();
        assert!(!ids.contains(&id), "{id} is new in the session");
    }
    server.shut_down();
}

#[test]
fn shutdown_lets_a_running_call_finish() {
    let mut server = serve(HttpConfig::new());
    let addr = server.addr;
    let body = modern(
        1,
        "tools/call",
        json!({"name": "rest", "arguments": {"tag": "modern-shutdown"}}),
    );
    let call = std::thread::spawn(move || post_modern(addr, "tools/call", Some("rest"), &body));
    wait_for(&HELD, "modern-shutdown", "the call did not start");
    begin_shut_down(&mut server);
    GO_ON.lock().unwrap().push("modern-shutdown".into());
    server.shut_down();
    let reply = call.join().unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(
        reply.message(ProtocolVersion::V2026_07_28, Some("tools/call"))["result"]["content"][0]["text"],
        "rested"
    );
    assert!(TcpStream::connect(addr).is_err(), "no longer accepting");
}

#[test]
fn progress_of_a_modern_call_streams_before_its_response() {
    let server = serve(HttpConfig::new());
    let mut body = modern(7, "tools/call", json!({"name": "count"}));
    let mut request: Value = serde_json::from_slice(&body).unwrap();
    request["params"]["_meta"]["progressToken"] = json!("p7");
    body = serde_json::to_vec(&request).unwrap();
    let reply = post_modern(server.addr, "tools/call", Some("count"), &body);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let events = events(&reply.body);
    assert_eq!(events.len(), 3, "{events:?}");
    for event in &events[..2] {
        check_server_message(ProtocolVersion::V2026_07_28, None, event).unwrap();
        assert_eq!(event["method"], "notifications/progress");
        assert_eq!(event["params"]["progressToken"], "p7");
    }
    assert_eq!(events[1]["params"]["progress"], 2.0);
    check_server_message(ProtocolVersion::V2026_07_28, Some("tools/call"), &events[2]).unwrap();
    assert_eq!(events[2]["id"], 7);
    assert_eq!(events[2]["result"]["content"][0]["text"], "counted");

    // Without a progress token the same call is plain JSON.
    let reply = post_modern(
        server.addr,
        "tools/call",
        Some("count"),
        &modern(8, "tools/call", json!({"name": "count"})),
    );
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(
        reply.message(ProtocolVersion::V2026_07_28, Some("tools/call"))["result"]["content"][0]["text"],
        "counted"
    );
    server.shut_down();
}

#[test]
fn a_modern_call_asking_for_progress_streams_only_once_something_is_reported() {
    let server = serve(HttpConfig::new());
    for (id, meta) in [
        (9, json!({"progressToken": "p9"})),
        (10, json!({"io.modelcontextprotocol/logLevel": "debug"})),
    ] {
        let mut request: Value = serde_json::from_slice(&modern(
            id,
            "tools/call",
            json!({"name": "echo", "arguments": {"text": "quiet"}}),
        ))
        .unwrap();
        for (key, value) in meta.as_object().unwrap() {
            request["params"]["_meta"][key] = value.clone();
        }
        let body = serde_json::to_vec(&request).unwrap();
        let reply = post_modern(server.addr, "tools/call", Some("echo"), &body);
        assert_eq!(reply.status, 200);
        assert_eq!(
            reply.header("content-type"),
            Some("application/json"),
            "{meta}"
        );
        let message = reply.message(ProtocolVersion::V2026_07_28, Some("tools/call"));
        assert_eq!(message["id"], id);
        assert_eq!(message["result"]["content"][0]["text"], "quiet");
    }

    // A report made in the poll that also answers still opens the stream, ahead of the answer.
    let mut request: Value =
        serde_json::from_slice(&modern(11, "tools/call", json!({"name": "tell"}))).unwrap();
    request["params"]["_meta"]["progressToken"] = json!("p11");
    let body = serde_json::to_vec(&request).unwrap();
    let reply = post_modern(server.addr, "tools/call", Some("tell"), &body);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let events = events(&reply.body);
    assert_eq!(events.len(), 2, "{events:?}");
    check_server_message(ProtocolVersion::V2026_07_28, None, &events[0]).unwrap();
    assert_eq!(events[0]["params"]["progressToken"], "p11");
    check_server_message(ProtocolVersion::V2026_07_28, Some("tools/call"), &events[1]).unwrap();
    assert_eq!(events[1]["result"]["content"][0]["text"], "told");
    server.shut_down();
}

#[test]
fn progress_of_a_legacy_call_streams_before_its_response_or_goes_on_the_session_stream() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let session = initialize(addr, "2025-11-25");
    let call = br#"{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"count","_meta":{"progressToken":"t5"}}}"#;

    // A client that takes events gets the progress on the POST's own stream, first.
    let headers = [
        JSON,
        ACCEPT,
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let reply = send(addr, "POST", &headers, call);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let streamed = events(&reply.body);
    assert_eq!(streamed.len(), 3, "{streamed:?}");
    for event in &streamed[..2] {
        check_server_message(ProtocolVersion::V2025_11_25, None, event).unwrap();
        assert_eq!(event["params"]["progressToken"], "t5");
    }
    check_server_message(
        ProtocolVersion::V2025_11_25,
        Some("tools/call"),
        &streamed[2],
    )
    .unwrap();
    assert_eq!(streamed[2]["result"]["content"][0]["text"], "counted");

    // So does a call that reports and answers in one go (answered as it is dispatched).
    let tell = br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"tell","_meta":{"progressToken":"t6"}}}"#;
    let reply = send(addr, "POST", &headers, tell);
    assert_eq!(reply.status, 200);
    assert_eq!(reply.header("content-type"), Some("text/event-stream"));
    let streamed = events(&reply.body);
    assert_eq!(streamed.len(), 2, "{streamed:?}");
    check_server_message(ProtocolVersion::V2025_11_25, None, &streamed[0]).unwrap();
    assert_eq!(streamed[0]["params"]["progressToken"], "t6");
    check_server_message(
        ProtocolVersion::V2025_11_25,
        Some("tools/call"),
        &streamed[1],
    )
    .unwrap();
    assert_eq!(streamed[1]["result"]["content"][0]["text"], "told");

    // One that takes only JSON gets it on the session's GET stream.
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let get = [
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session.as_str()),
    ];
    stream.write_all(&request_bytes("GET", &get, b"")).unwrap();
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    reader.read_line(&mut line).unwrap();
    assert!(line.contains(" 200 "), "{line}");
    let json_only = [
        JSON,
        ("Accept", "application/json"),
        ("Mcp-Session-Id", session.as_str()),
    ];
    let reply = send(addr, "POST", &json_only, call);
    let answer = reply.message(ProtocolVersion::V2025_11_25, Some("tools/call"));
    assert_eq!(answer["result"]["content"][0]["text"], "counted");
    let mut progress = Vec::new();
    while progress.len() < 2 {
        line.clear();
        assert!(
            reader.read_line(&mut line).unwrap() > 0,
            "the stream ended early"
        );
        if let Some(data) = line.trim_end().strip_prefix("data: ") {
            let message: Value = serde_json::from_str(data).unwrap();
            check_server_message(ProtocolVersion::V2025_11_25, None, &message).unwrap();
            progress.push(message);
        }
    }
    assert_eq!(progress[0]["method"], "notifications/progress");
    assert_eq!(progress[0]["params"]["progressToken"], "t5");
    assert_eq!(progress[1]["params"]["progress"], 2.0);
    server.shut_down();
}

#[test]
fn a_listen_stream_is_acknowledged_and_ends_with_its_result_at_shutdown() {
    let server = serve(HttpConfig::new());
    let body = modern(
        9,
        "subscriptions/listen",
        json!({"notifications": {"resourcesListChanged": true}}),
    );
    let mut listen = EventStream::open(
        server.addr,
        "POST",
        "/mcp",
        &[
            JSON,
            ACCEPT,
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "subscriptions/listen"),
        ],
        &body,
    );
    assert_eq!(listen.status, 200);
    assert_eq!(listen.header("content-type"), Some("text/event-stream"));
    // The acknowledgement is the sign the stream is open: shut down only once it came.
    let acknowledged = next_data(&mut listen).expect("an acknowledgement");
    assert_eq!(
        acknowledged["method"],
        "notifications/subscriptions/acknowledged"
    );
    check_server_message(ProtocolVersion::V2026_07_28, None, &acknowledged).unwrap();
    server.shut_down();
    let result = next_data(&mut listen).expect("the listen's result at shutdown");
    assert_eq!(result["id"], 9);
    check_server_message(
        ProtocolVersion::V2026_07_28,
        Some("subscriptions/listen"),
        &result,
    )
    .unwrap();
    assert_eq!(next_data(&mut listen), None, "nothing after the result");
}

/// The next event of `stream` that carries data (priming events carry none), as JSON.
fn next_data(stream: &mut EventStream) -> Option<Value> {
    loop {
        let event = stream.next_event()?;
        if !event.data.is_empty() {
            return Some(serde_json::from_str(&event.data).unwrap());
        }
    }
}

#[test]
fn shutdown_lets_a_legacy_call_finish() {
    let mut server = serve(HttpConfig::new());
    let addr = server.addr;
    let session = initialize(addr, "2025-06-18");
    let call = std::thread::spawn(move || {
        let rest = br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"rest","arguments":{"tag":"legacy-shutdown"}}}"#;
        let headers = [JSON, ACCEPT, ("Mcp-Session-Id", session.as_str())];
        send(addr, "POST", &headers, rest)
    });
    wait_for(&HELD, "legacy-shutdown", "the call did not start");
    begin_shut_down(&mut server);
    GO_ON.lock().unwrap().push("legacy-shutdown".into());
    server.shut_down();
    let reply = call.join().unwrap();
    assert_eq!(reply.status, 200);
    let answer = reply.message(ProtocolVersion::V2025_06_18, Some("tools/call"));
    assert_eq!(answer["result"]["content"][0]["text"], "rested");
}

#[test]
fn connections_over_the_limit_wait_for_one_to_close() {
    let server = serve(HttpConfig::new().max_connections(1));
    let addr = server.addr;
    let idle = TcpStream::connect(addr).unwrap();
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let body = modern(1, "tools/list", json!({}));
        let _ = done.send(post_modern(addr, "tools/list", None, &body).status);
    });
    assert!(
        finished.recv_timeout(Duration::from_millis(300)).is_err(),
        "a second connection was served while the first was open"
    );
    drop(idle);
    assert_eq!(finished.recv_timeout(PATIENCE).unwrap(), 200);
    server.shut_down();
}
