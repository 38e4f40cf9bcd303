//! Asking the client (elicitation, sampling, roots) over Streamable HTTP, on a real socket:
//! in a legacy session the question rides the asking call's POST event stream (or the GET
//! stream when the POST takes no events) and the client POSTs its answer; in 2026-07-28 the
//! call ends with an `InputRequiredResult` and the retry completes it. Every message the server
//! writes is checked against the official schema of its revision.

// Not every helper is used here.
#[allow(unused_macros)]
mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use mcp_runtime::http::HttpConfig;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::{
    Elicitation, RequestContext, Server, ask::SamplingRequest, mcp_tool, server_info, tools,
};
use serde_json::{Value, json};
use support::http::{Reply, request_bytes, send};
use support::http_server::InProcessServer;
use support::schema::check_server_message;

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

/// Ask the client's model; fails without the `sampling` capability.
#[mcp_tool]
async fn ask_model(ctx: RequestContext) -> Result<String, String> {
    let answer = ctx
        .sample(SamplingRequest::new(20).user("Say hi"))
        .await
        .map_err(|error| error.to_string())?;
    Ok(answer.text().unwrap_or_default().to_owned())
}

/// Answers at once, asking nothing.
#[mcp_tool]
fn quick() -> &'static str {
    "quick"
}

/// The server these tests talk to, on a loopback port of this process.
fn serve() -> InProcessServer {
    InProcessServer::start(
        Server::new(server_info!())
            .tools(tools![confirm_delete, list_roots, ask_model, quick])
            .shutdown_timeout(Duration::from_secs(1)),
        HttpConfig::new(),
    )
}

const JSON: (&str, &str) = ("Content-Type", "application/json");
const ACCEPT_BOTH: (&str, &str) = ("Accept", "application/json, text/event-stream");
const ACCEPT_JSON: (&str, &str) = ("Accept", "application/json");

/// `initialize` at `version` with every asking capability; the session id.
fn initialize(addr: SocketAddr, version: &str) -> String {
    let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": version,
        "capabilities": {"elicitation": {}, "roots": {}, "sampling": {}},
        "clientInfo": {"name": "http-asking", "version": "0"},
    }});
    let reply = send(
        addr,
        "POST",
        &[JSON, ACCEPT_BOTH],
        body.to_string().as_bytes(),
    );
    assert_eq!(reply.status, 200);
    let session = reply.header("mcp-session-id").unwrap().to_owned();
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let reply = post_legacy(addr, &session, version, ACCEPT_BOTH, note);
    assert_eq!(reply.status, 202);
    session
}

fn post_legacy(
    addr: SocketAddr,
    session: &str,
    version: &str,
    accept: (&'static str, &'static str),
    body: &[u8],
) -> Reply {
    send(
        addr,
        "POST",
        &[
            JSON,
            accept,
            ("Mcp-Session-Id", session),
            ("MCP-Protocol-Version", version),
        ],
        body,
    )
}

/// An open response read as it arrives: its head, then its events one by one.
struct Incoming {
    reader: BufReader<TcpStream>,
    status: u16,
    content_type: String,
    chunked: bool,
    /// Body bytes read but not yet split into events.
    pending: String,
}

/// One event: its `id` field, and its data as JSON.
#[derive(Debug)]
struct Event {
    id: Option<String>,
    data: Value,
}

impl Incoming {
    /// Send a request and read the head of its response.
    fn open(addr: SocketAddr, method: &str, headers: &[(&str, &str)], body: &[u8]) -> Self {
        let mut stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        stream
            .write_all(&request_bytes(method, headers, body))
            .unwrap();
        let mut reader = BufReader::new(stream);
        let mut line = String::new();
        reader.read_line(&mut line).unwrap();
        let status = line.split(' ').nth(1).unwrap().parse().unwrap();
        let (mut content_type, mut chunked) = (String::new(), false);
        loop {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            if line == "\r\n" {
                break;
            }
            let (name, value) = line.split_once(':').unwrap();
            let value = value.trim().to_owned();
            if name.eq_ignore_ascii_case("content-type") {
                content_type = value;
            } else if name.eq_ignore_ascii_case("transfer-encoding") {
                chunked = value == "chunked";
            }
        }
        Incoming {
            reader,
            status,
            content_type,
            chunked,
            pending: String::new(),
        }
    }

    /// Read one more piece of the body; `false` at its end.
    fn read_more(&mut self) -> bool {
        if !self.chunked {
            let mut rest = String::new();
            self.reader.read_to_string(&mut rest).unwrap();
            self.pending.push_str(&rest);
            return !rest.is_empty();
        }
        let mut size = String::new();
        self.reader.read_line(&mut size).unwrap();
        let size = usize::from_str_radix(size.trim(), 16).unwrap();
        let mut chunk = vec![0; size + 2];
        self.reader.read_exact(&mut chunk).unwrap();
        self.pending
            .push_str(std::str::from_utf8(&chunk[..size]).unwrap());
        size > 0
    }

    /// The next event with data (priming events and comments skipped).
    fn next_event(&mut self) -> Event {
        loop {
            if let Some(end) = self.pending.find("\n\n") {
                let block: String = self.pending.drain(..end + 2).collect();
                let mut event = (None, String::new());
                for line in block.lines() {
                    if let Some(id) = line.strip_prefix("id: ") {
                        event.0 = Some(id.to_owned());
                    } else if let Some(data) = line.strip_prefix("data:") {
                        event.1.push_str(data.trim());
                    }
                }
                if !event.1.is_empty() {
                    return Event {
                        id: event.0,
                        data: serde_json::from_str(&event.1).unwrap(),
                    };
                }
                continue;
            }
            assert!(self.read_more(), "the stream ended before the next event");
        }
    }

    /// The whole body, as JSON (a response that is not a stream).
    fn json(mut self) -> Value {
        while self.read_more() {}
        serde_json::from_str(&self.pending).unwrap()
    }
}

fn checked(revision: ProtocolVersion, method: Option<&str>, message: &Value) {
    if let Err(violation) = check_server_message(revision, method, message) {
        panic!("{violation:?}: {message}");
    }
}

#[test]
fn a_legacy_question_rides_the_calls_post_stream() {
    let server = serve();
    let (addr, version) = (server.addr, "2025-11-25");
    let revision: ProtocolVersion = version.parse().unwrap();
    let session = initialize(addr, version);
    let headers = [
        JSON,
        ACCEPT_BOTH,
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", version),
    ];
    // A call that asks nothing is answered as plain JSON, events accepted or not.
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "quick", "arguments": {}}});
    let reply = Incoming::open(addr, "POST", &headers, call.to_string().as_bytes());
    assert_eq!(
        (reply.status, reply.content_type.as_str()),
        (200, "application/json")
    );
    assert_eq!(reply.json()["result"]["content"][0]["text"], "quick");

    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "confirm_delete", "arguments": {"name": "repo"}}});
    let mut stream = Incoming::open(addr, "POST", &headers, call.to_string().as_bytes());
    assert_eq!(stream.status, 200);
    assert_eq!(stream.content_type, "text/event-stream");
    let question = stream.next_event();
    checked(revision, None, &question.data);
    assert_eq!(question.data["method"], "elicitation/create");
    assert_eq!(question.data["params"]["message"], "Delete repo?");
    assert!(question.id.is_some(), "2025-11-25 events have ids");
    let asked = question.data["id"].clone();

    let answer = json!({"jsonrpc": "2.0", "id": asked,
        "result": {"action": "accept", "content": {"confirm": true}}});
    let reply = post_legacy(
        addr,
        &session,
        version,
        ACCEPT_BOTH,
        answer.to_string().as_bytes(),
    );
    assert_eq!(reply.status, 202);

    let result = stream.next_event();
    checked(revision, Some("tools/call"), &result.data);
    assert_eq!(result.data["id"], 2);
    assert_eq!(result.data["result"]["content"][0]["text"], "deleted repo");
    // An answer nobody waits for any more is still accepted, and changes nothing.
    let reply = post_legacy(
        addr,
        &session,
        version,
        ACCEPT_BOTH,
        answer.to_string().as_bytes(),
    );
    assert_eq!(reply.status, 202);
}

#[test]
fn a_post_that_takes_no_events_has_its_questions_on_the_get_stream() {
    let server = serve();
    let (addr, version) = (server.addr, "2025-06-18");
    let revision: ProtocolVersion = version.parse().unwrap();
    let session = initialize(addr, version);
    let mut listen = Incoming::open(
        addr,
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("Mcp-Session-Id", session.as_str()),
            ("MCP-Protocol-Version", version),
        ],
        b"",
    );
    assert_eq!(listen.status, 200);
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "confirm_delete", "arguments": {"name": "repo"}}});
    let calling = {
        let session = session.clone();
        std::thread::spawn(move || {
            let reply = Incoming::open(
                addr,
                "POST",
                &[
                    JSON,
                    ACCEPT_JSON,
                    ("Mcp-Session-Id", session.as_str()),
                    ("MCP-Protocol-Version", version),
                ],
                call.to_string().as_bytes(),
            );
            assert_eq!(reply.content_type, "application/json");
            (reply.status, reply.json())
        })
    };
    let question = listen.next_event();
    checked(revision, None, &question.data);
    assert_eq!(question.data["method"], "elicitation/create");
    let answer = json!({"jsonrpc": "2.0", "id": question.data["id"],
        "result": {"action": "decline"}});
    let reply = post_legacy(
        addr,
        &session,
        version,
        ACCEPT_JSON,
        answer.to_string().as_bytes(),
    );
    assert_eq!(reply.status, 202);
    let (status, result) = calling.join().unwrap();
    assert_eq!(status, 200);
    checked(revision, Some("tools/call"), &result);
    assert_eq!(
        result["result"]["content"][0]["text"],
        "kept repo: Declined"
    );
}

#[test]
fn batches_carry_questions_and_answers_in_2025_03_26() {
    let server = serve();
    let (addr, version) = (server.addr, "2025-03-26");
    let revision: ProtocolVersion = version.parse().unwrap();
    let session = initialize(addr, version);
    let batch = json!([{"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "list_roots", "arguments": {}}}]);
    let mut stream = Incoming::open(
        addr,
        "POST",
        &[JSON, ACCEPT_BOTH, ("Mcp-Session-Id", session.as_str())],
        batch.to_string().as_bytes(),
    );
    assert_eq!(stream.content_type, "text/event-stream");
    let question = stream.next_event();
    checked(revision, None, &question.data);
    assert_eq!(question.data["method"], "roots/list");
    assert!(question.id.is_none(), "no event ids before 2025-11-25");
    // The answer, itself in a batch: accepted with nothing to say.
    let answers = json!([{"jsonrpc": "2.0", "id": question.data["id"],
        "result": {"roots": [{"uri": "file:///work", "name": "work"}]}}]);
    let reply = send(
        addr,
        "POST",
        &[JSON, ACCEPT_BOTH, ("Mcp-Session-Id", session.as_str())],
        answers.to_string().as_bytes(),
    );
    assert_eq!(reply.status, 202);
    let result = stream.next_event();
    let answers = result
        .data
        .as_array()
        .expect("a batch's answer is an array");
    assert_eq!(answers.len(), 1);
    checked(revision, Some("tools/call"), &answers[0]);
    assert_eq!(answers[0]["result"]["content"][0]["text"], "file:///work");
}

const MODERN: &str = "2026-07-28";

fn post_modern(addr: SocketAddr, name: &str, params: Value, capabilities: Value) -> Reply {
    let mut params = params;
    params["name"] = name.into();
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params});
    send(
        addr,
        "POST",
        &[
            JSON,
            ACCEPT_BOTH,
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", name),
        ],
        body.to_string().as_bytes(),
    )
}

#[test]
fn a_modern_question_ends_the_call_and_the_retry_completes_it() {
    let server = serve();
    let revision = ProtocolVersion::V2026_07_28;
    let capabilities = json!({"elicitation": {}});
    let arguments = json!({"arguments": {"name": "repo"}});
    let first = post_modern(
        server.addr,
        "confirm_delete",
        arguments.clone(),
        capabilities.clone(),
    );
    assert_eq!(first.status, 200);
    assert_eq!(first.header("content-type"), Some("application/json"));
    let first = first.json();
    checked(revision, Some("tools/call"), &first);
    let result = &first["result"];
    assert_eq!(result["resultType"], "input_required");
    assert_eq!(
        result["inputRequests"]["q0"]["method"],
        "elicitation/create"
    );
    let mut retry = arguments;
    retry["inputResponses"] = json!({"q0": {"action": "accept", "content": {"confirm": true}}});
    retry["requestState"] = result["requestState"].clone();
    let second = post_modern(server.addr, "confirm_delete", retry, capabilities);
    assert_eq!(second.status, 200);
    let second = second.json();
    checked(revision, Some("tools/call"), &second);
    assert_eq!(second["result"]["content"][0]["text"], "deleted repo");
}

#[test]
fn a_modern_call_missing_a_capability_is_400_with_32021() {
    let server = serve();
    let reply = post_modern(
        server.addr,
        "ask_model",
        json!({"arguments": {}}),
        json!({}),
    );
    assert_eq!(reply.status, 400);
    let message = reply.json();
    checked(ProtocolVersion::V2026_07_28, Some("tools/call"), &message);
    assert_eq!(message["id"], 1);
    assert_eq!(message["error"]["code"], -32021);
    assert_eq!(
        message["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
}
