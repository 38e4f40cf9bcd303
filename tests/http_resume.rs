//! Resumable event streams of legacy Streamable HTTP sessions (2025-11-25, SEP-1699), over a
//! real socket: a handler releasing its connection and the client resuming with
//! `Last-Event-ID`, a client that drops its stream mid-call and comes back for the rest, a
//! broken GET stream replayed, ids that cannot be resumed, which disconnections still cancel
//! (2026-07-28, and the id-less streams of earlier revisions), and sessions kept alive by the
//! calls they run. Every JSON-RPC message is checked against the official schema of its
//! revision.

// Not every helper is used here (`per_revision!` among them).
#[allow(unused_macros)]
mod support;

use std::net::SocketAddr;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use mcp_runtime::http::HttpConfig;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::{RequestContext, Server, mcp_tool, server_info, tools};
use serde_json::{Value, json};
use support::http::{EventStream, Reply, SseEvent, send};
use support::http_server::InProcessServer;
use support::schema::check_server_message;

const JSON: (&str, &str) = ("Content-Type", "application/json");
const ACCEPT_BOTH: &str = "application/json, text/event-stream";
const RESUMABLE: &str = "2025-11-25";

/// Tags of the calls that reached their waiting point, of those the test let go on, and of
/// those dropped with their cancellation token fired.
static WAITING: Mutex<Vec<String>> = Mutex::new(Vec::new());
static GO_ON: Mutex<Vec<String>> = Mutex::new(Vec::new());
static CANCELLED: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn note(list: &Mutex<Vec<String>>, tag: &str) {
    list.lock().unwrap().push(tag.to_owned());
}

fn noted(list: &Mutex<Vec<String>>, tag: &str) -> bool {
    list.lock().unwrap().iter().any(|noted| noted == tag)
}

/// Wait (10 s at most, against hangs) until `list` holds `tag`.
fn wait_for(list: &Mutex<Vec<String>>, tag: &str, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !noted(list, tag) {
        assert!(Instant::now() < deadline, "{tag}: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The handler's side of [`wait_for`].
async fn until(list: &Mutex<Vec<String>>, tag: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !noted(list, tag) && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Releases its connection, then answers a little later, saying whether it was released.
#[mcp_tool]
async fn release_then_answer(ctx: RequestContext) -> String {
    let released = ctx.release_connection();
    tokio::time::sleep(Duration::from_millis(300)).await;
    format!("released: {released}")
}

/// Releases its connection, reports progress once the client has resumed and releases that
/// connection too, then answers once it has resumed again.
///
/// # Arguments
/// * `tag` - names the call's waiting points (`{tag}`, `{tag}-again`)
#[mcp_tool]
async fn poll_twice(tag: String, ctx: RequestContext) -> String {
    ctx.release_connection();
    until(&GO_ON, &tag).await;
    ctx.progress(1.0, Some(2.0), Some("half way"));
    ctx.release_connection();
    until(&GO_ON, &format!("{tag}-again")).await;
    "polled".to_owned()
}

/// Reports progress, waits until the test lets it go on, reports twice more and answers.
///
/// # Arguments
/// * `tag` - names the call's waiting point
#[mcp_tool]
async fn steps(tag: String, ctx: RequestContext) -> String {
    ctx.progress(1.0, Some(3.0), Some("one"));
    note(&WAITING, &tag);
    until(&GO_ON, &tag).await;
    ctx.progress(2.0, Some(3.0), Some("two"));
    ctx.progress(3.0, Some(3.0), Some("three"));
    format!("stepped {tag}")
}

/// Reports progress, then waits until cancelled, noting when it is.
///
/// # Arguments
/// * `tag` - names the call in the notes
#[mcp_tool]
async fn hold(tag: String, ctx: RequestContext) -> String {
    struct Observe(mcp_runtime::CancellationToken, String);
    impl Drop for Observe {
        fn drop(&mut self) {
            if self.0.is_cancelled() {
                note(&CANCELLED, &self.1);
            }
        }
    }
    let _observe = Observe(ctx.cancellation.clone(), tag.clone());
    ctx.progress(1.0, None, Some("holding"));
    note(&WAITING, &tag);
    ctx.cancellation.cancelled().await;
    "cancelled".to_owned()
}

/// Reports progress twice, then answers.
#[mcp_tool]
async fn count(ctx: RequestContext) -> String {
    ctx.progress(1.0, Some(2.0), Some("one"));
    ctx.progress(2.0, Some(2.0), Some("two"));
    "counted".to_owned()
}

fn serve(config: HttpConfig) -> InProcessServer {
    InProcessServer::start(
        Server::new(server_info!())
            .tools(tools![release_then_answer, poll_twice, steps, hold, count])
            .shutdown_timeout(Duration::from_secs(1)),
        config,
    )
}

/// `initialize` at `version`, and `notifications/initialized`; the session id.
fn initialize(addr: SocketAddr, version: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize",
        "params": support::initialize_params(version)});
    let reply = send(
        addr,
        "POST",
        &[JSON, ("Accept", ACCEPT_BOTH)],
        body.to_string().as_bytes(),
    );
    assert_eq!(reply.status, 200);
    let session = reply.header("mcp-session-id").unwrap().to_owned();
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    assert_eq!(post(addr, &session, version, ACCEPT_BOTH, note).status, 202);
    session
}

/// A `tools/call` of `name`, with a progress token when given.
fn call(id: u64, name: &str, arguments: Value, token: Option<&str>) -> Vec<u8> {
    let mut params = json!({"name": name, "arguments": arguments});
    if let Some(token) = token {
        params["_meta"] = json!({"progressToken": token});
    }
    serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params}),
    )
    .unwrap()
}

fn session_headers<'a>(
    session: &'a str,
    version: &'a str,
    accept: &'a str,
) -> [(&'a str, &'a str); 4] {
    [
        JSON,
        ("Accept", accept),
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", version),
    ]
}

/// A POST in the session, read whole.
fn post(addr: SocketAddr, session: &str, version: &str, accept: &str, body: &[u8]) -> Reply {
    send(
        addr,
        "POST",
        &session_headers(session, version, accept),
        body,
    )
}

/// A POST in the session that takes events, read as it arrives.
fn post_events(addr: SocketAddr, session: &str, version: &str, body: &[u8]) -> EventStream {
    let stream = EventStream::open(
        addr,
        "POST",
        "/mcp",
        &session_headers(session, version, ACCEPT_BOTH),
        body,
    );
    assert_eq!(stream.status, 200);
    assert_eq!(stream.header("content-type"), Some("text/event-stream"));
    stream
}

/// A GET in the session, with `Last-Event-ID` when given.
fn get(addr: SocketAddr, session: &str, last_event_id: Option<&str>) -> EventStream {
    let mut headers = vec![
        ("Accept", "text/event-stream"),
        ("Mcp-Session-Id", session),
        ("MCP-Protocol-Version", RESUMABLE),
    ];
    if let Some(id) = last_event_id {
        headers.push(("Last-Event-ID", id));
    }
    EventStream::open(addr, "GET", "/mcp", &headers, b"")
}

/// The next event, which must be a priming event: an id, a `retry`, empty data.
fn priming(stream: &mut EventStream) -> String {
    let event = stream.next_event().expect("a priming event");
    assert!(
        event.data.is_empty() && event.retry.is_some(),
        "not a priming event: {event:?}"
    );
    event.id.expect("a priming event has an id")
}

/// The next event, which must carry a message: its id and the message, checked against the
/// schema (`method`: the request it answers, if it is a response).
fn message(stream: &mut EventStream, method: Option<&str>) -> (String, Value) {
    let event: SseEvent = stream.next_event().expect("another event");
    assert_eq!(event.event.as_deref(), Some("message"), "{event:?}");
    let message: Value = serde_json::from_str(&event.data).unwrap();
    check_server_message(ProtocolVersion::V2025_11_25, method, &message)
        .unwrap_or_else(|violation| panic!("{violation:?}"));
    (event.id.expect("every event has an id"), message)
}

fn progress_of(message: &Value) -> f64 {
    assert_eq!(message["method"], "notifications/progress", "{message}");
    message["params"]["progress"].as_f64().unwrap()
}

fn text_of(message: &Value) -> &str {
    message["result"]["content"][0]["text"].as_str().unwrap()
}

#[test]
fn a_released_post_stream_ends_after_its_priming_event_and_is_resumed_for_the_result() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let session = initialize(addr, RESUMABLE);
    let body = call(1, "release_then_answer", json!({}), None);
    let mut stream = post_events(addr, &session, RESUMABLE, &body);
    let primed = priming(&mut stream);
    assert!(
        stream.next_event().is_none(),
        "the server ends the stream before the result"
    );
    let mut resumed = get(addr, &session, Some(&primed));
    assert_eq!(resumed.status, 200);
    let (id, answer) = message(&mut resumed, Some("tools/call"));
    assert_eq!(answer["id"], 1);
    assert_eq!(text_of(&answer), "released: true");
    assert_ne!(id, primed);
    assert!(resumed.next_event().is_none(), "the result ends the stream");

    // Where the client could not come back for it, nothing is released.
    let session = initialize(addr, "2025-06-18");
    let reply = post(addr, &session, "2025-06-18", ACCEPT_BOTH, &body);
    assert_eq!(reply.header("content-type"), Some("application/json"));
    let answer = reply.message(ProtocolVersion::V2025_06_18, Some("tools/call"));
    assert_eq!(text_of(&answer), "released: false");
    let modern = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "release_then_answer", "arguments": {},
        "_meta": support::modern_meta("2026-07-28")}});
    let reply = send(
        addr,
        "POST",
        &[
            JSON,
            ("Accept", ACCEPT_BOTH),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "release_then_answer"),
        ],
        modern.to_string().as_bytes(),
    );
    let answer = reply.message(ProtocolVersion::V2026_07_28, Some("tools/call"));
    assert_eq!(text_of(&answer), "released: false");
    server.shut_down();
}

#[test]
fn a_handler_may_release_each_resumed_connection_in_turn() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let session = initialize(addr, RESUMABLE);
    let body = call(2, "poll_twice", json!({"tag": "poll"}), Some("poll"));
    let mut stream = post_events(addr, &session, RESUMABLE, &body);
    let primed = priming(&mut stream);
    assert!(stream.next_event().is_none());

    let mut first = get(addr, &session, Some(&primed));
    assert_eq!(first.status, 200);
    note(&GO_ON, "poll");
    let (seen, progress) = message(&mut first, None);
    assert_eq!(progress_of(&progress), 1.0);
    assert!(first.next_event().is_none(), "released again");

    let mut second = get(addr, &session, Some(&seen));
    assert_eq!(second.status, 200);
    note(&GO_ON, "poll-again");
    let (_, answer) = message(&mut second, Some("tools/call"));
    assert_eq!(answer["id"], 2);
    assert_eq!(text_of(&answer), "polled");
    assert!(second.next_event().is_none());
    server.shut_down();
}

#[test]
fn a_client_that_drops_its_post_stream_mid_call_resumes_to_everything_sent_meanwhile_once() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let session = initialize(addr, RESUMABLE);
    let body = call(3, "steps", json!({"tag": "dropped"}), Some("steps"));
    let mut stream = post_events(addr, &session, RESUMABLE, &body);
    let primed = priming(&mut stream);
    let (seen, first) = message(&mut stream, None);
    assert_eq!(progress_of(&first), 1.0);
    wait_for(&WAITING, "dropped", "the call did not start");
    drop(stream);
    // Time for the server to notice: a disconnection cancelled the call before.
    std::thread::sleep(Duration::from_millis(300));
    assert!(!noted(&CANCELLED, "dropped"));
    note(&GO_ON, "dropped");

    let mut resumed = get(addr, &session, Some(&seen));
    assert_eq!(resumed.status, 200);
    let mut ids = vec![primed, seen];
    let mut progress = Vec::new();
    let answer = loop {
        let (id, message) = message(&mut resumed, Some("tools/call"));
        assert!(!ids.contains(&id), "{id} was sent before: {ids:?}");
        ids.push(id);
        if message.get("id").is_some() {
            break message;
        }
        progress.push(progress_of(&message));
    };
    assert_eq!(progress, [2.0, 3.0], "in order, each once");
    assert_eq!(answer["id"], 3);
    assert_eq!(text_of(&answer), "stepped dropped");
    assert!(resumed.next_event().is_none(), "nothing after the result");
    server.shut_down();
}

#[test]
fn a_broken_get_stream_is_resumed_with_the_notifications_it_missed() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let session = initialize(addr, RESUMABLE);
    let mut stream = get(addr, &session, None);
    assert_eq!(stream.status, 200);
    let primed = priming(&mut stream);
    drop(stream);
    // A POST that takes only JSON has its progress sent on the GET stream, which nobody
    // reads now.
    let reply = post(
        addr,
        &session,
        RESUMABLE,
        "application/json",
        &call(4, "count", json!({}), Some("missed")),
    );
    assert_eq!(
        text_of(&reply.message(ProtocolVersion::V2025_11_25, Some("tools/call"))),
        "counted"
    );

    let mut resumed = get(addr, &session, Some(&primed));
    assert_eq!(resumed.status, 200);
    for expected in [1.0, 2.0] {
        let (id, progress) = message(&mut resumed, None);
        assert_ne!(id, primed);
        assert_eq!(progress["params"]["progressToken"], "missed");
        assert_eq!(progress_of(&progress), expected);
    }
    // Then it goes on as the session's GET stream.
    post(
        addr,
        &session,
        RESUMABLE,
        "application/json",
        &call(5, "count", json!({}), Some("live")),
    );
    let (_, live) = message(&mut resumed, None);
    assert_eq!(live["params"]["progressToken"], "live");
    assert_eq!(
        get(addr, &session, None).status,
        409,
        "one GET stream at a time"
    );
    server.shut_down();
}

/// An id that cannot be resumed is ignored (the spec's server MAY use it): the GET opens the
/// session's own stream, with fresh ids, replaying nothing. Never 404, which would tell the
/// client that its session is gone.
#[test]
fn ids_that_cannot_be_resumed_open_the_sessions_own_stream() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let theirs = initialize(addr, RESUMABLE);
    let mut their_stream = get(addr, &theirs, None);
    let their_id = priming(&mut their_stream);
    post(
        addr,
        &theirs,
        RESUMABLE,
        "application/json",
        &call(6, "count", json!({}), Some("theirs")),
    );

    // Another session's id, and one that is no id at all. Our session has a stream of the
    // same number (0) kept for resumption: a released POST stream.
    for last_event_id in [their_id.as_str(), "not-an-id"] {
        let ours = initialize(addr, RESUMABLE);
        let body = call(6, "release_then_answer", json!({}), None);
        let mut released = post_events(addr, &ours, RESUMABLE, &body);
        priming(&mut released);
        assert!(released.next_event().is_none());
        let mut stream = get(addr, &ours, Some(last_event_id));
        assert_eq!(stream.status, 200, "{last_event_id}");
        let primed = priming(&mut stream);
        let tag = |id: &str| id.split('-').next().unwrap().to_owned();
        assert_ne!(tag(&primed), tag(&their_id), "ids are the session's own");
        post(
            addr,
            &ours,
            RESUMABLE,
            "application/json",
            &call(7, "count", json!({}), Some("ours")),
        );
        let (_, first) = message(&mut stream, None);
        assert_eq!(
            first["params"]["progressToken"], "ours",
            "nothing of the other session is replayed"
        );
    }

    // A stream delivered to its end is forgotten.
    let ours = initialize(addr, RESUMABLE);
    let mut stream = post_events(
        addr,
        &ours,
        RESUMABLE,
        &call(8, "count", json!({}), Some("done")),
    );
    let delivered = priming(&mut stream);
    while stream.next_event().is_some() {}
    let mut fresh = get(addr, &ours, Some(&delivered));
    assert_eq!(fresh.status, 200);
    assert_ne!(priming(&mut fresh), delivered);
    // Ignored, the id leaves a plain GET, which meets the stream already open.
    assert_eq!(get(addr, &ours, Some(&delivered)).status, 409);
    server.shut_down();
}

/// In 2025-11-25 a client that goes away does not cancel its call (it may come back for the
/// rest), but a call nobody will read is not left running: it ends with its session.
#[test]
fn a_call_whose_client_went_away_runs_until_its_session_ends() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let session = initialize(addr, RESUMABLE);
    let body = call(9, "hold", json!({"tag": "orphan"}), Some("orphan"));
    let mut stream = post_events(addr, &session, RESUMABLE, &body);
    priming(&mut stream);
    message(&mut stream, None);
    wait_for(&WAITING, "orphan", "the call did not start");
    drop(stream);
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        !noted(&CANCELLED, "orphan"),
        "a disconnection is no cancellation"
    );
    let reply = send(
        addr,
        "DELETE",
        &[
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", RESUMABLE),
        ],
        b"",
    );
    assert_eq!(reply.status, 200);
    wait_for(
        &CANCELLED,
        "orphan",
        "the session ended but its call runs on",
    );
    server.shut_down();
}

/// Where the stream cannot be resumed, a disconnection still cancels the call: 2026-07-28
/// (where it is the way to cancel), and the id-less streams of 2025-06-18 sessions.
#[test]
fn disconnections_cancel_calls_whose_streams_cannot_be_resumed() {
    let server = serve(HttpConfig::new());
    let addr = server.addr;
    let modern = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {
        "name": "hold", "arguments": {"tag": "modern"},
        "_meta": {"progressToken": "modern",
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
    let mut stream = EventStream::open(
        addr,
        "POST",
        "/mcp",
        &[
            JSON,
            ("Accept", ACCEPT_BOTH),
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "hold"),
        ],
        modern.to_string().as_bytes(),
    );
    assert_eq!(stream.status, 200);
    assert_eq!(stream.next_message()["method"], "notifications/progress");
    wait_for(&WAITING, "modern", "the call did not start");
    drop(stream);
    wait_for(&CANCELLED, "modern", "a 2026-07-28 disconnection cancels");

    let session = initialize(addr, "2025-06-18");
    let body = call(11, "hold", json!({"tag": "june"}), Some("june"));
    let mut stream = post_events(addr, &session, "2025-06-18", &body);
    let event = stream.next_event().unwrap();
    assert!(event.id.is_none() && !event.data.is_empty(), "{event:?}");
    wait_for(&WAITING, "june", "the call did not start");
    drop(stream);
    wait_for(
        &CANCELLED,
        "june",
        "an id-less stream's disconnection cancels",
    );
    server.shut_down();
}

/// A session with a call running is in use, however long the call takes; its idle time starts
/// when the call ends.
#[test]
fn a_session_with_a_call_running_does_not_expire() {
    // The idle timeout is inherently a matter of time. What the test waits out (the call
    // running past the timeout, the idle session after it) it waits for longer than that; what
    // must happen within the timeout (the call arriving after `initialize`, the ping after the
    // answer) normally takes milliseconds, so the timeout is kept well above a loaded
    // machine's delays.
    const IDLE: Duration = Duration::from_secs(2);
    let server = serve(HttpConfig::new().session_idle_timeout(IDLE));
    let addr = server.addr;
    let session = initialize(addr, RESUMABLE);
    let ping = br#"{"jsonrpc":"2.0","id":12,"method":"ping"}"#;
    let body = call(13, "steps", json!({"tag": "in-use"}), None);
    let running = {
        let session = session.clone();
        std::thread::spawn(move || post(addr, &session, RESUMABLE, "application/json", &body))
    };
    // The call runs until let go, so it is certainly running when another session's
    // `initialize` sweeps out the idle ones.
    wait_for(&WAITING, "in-use", "the call did not start");
    std::thread::sleep(IDLE + IDLE / 4);
    initialize(addr, RESUMABLE);
    note(&GO_ON, "in-use");
    let reply = running.join().unwrap();
    assert_eq!(reply.status, 200);
    assert_eq!(
        text_of(&reply.message(ProtocolVersion::V2025_11_25, Some("tools/call"))),
        "stepped in-use"
    );
    assert_eq!(
        post(addr, &session, RESUMABLE, ACCEPT_BOTH, ping).status,
        200,
        "the session outlived the idle timeout while its call ran"
    );
    std::thread::sleep(IDLE + IDLE / 4);
    assert_eq!(
        post(addr, &session, RESUMABLE, ACCEPT_BOTH, ping).status,
        404,
        "idle, it expires"
    );
    server.shut_down();
}
