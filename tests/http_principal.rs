//! Who a request comes from, over a real socket: the authorization hook names a principal,
//! handlers see it, a legacy session (Streamable HTTP or 2024-11-05 HTTP+SSE) belongs to the
//! principal that opened it, and a
//! 2026-07-28 `requestState` resumes only for the principal it was issued to, once.

// Not every helper is used here (`per_revision!` among them).
#[allow(unused_macros)]
mod support;

use std::net::SocketAddr;

use mcp_runtime::http::{AuthRejection, HttpConfig, Principal};
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::{Elicitation, RequestContext, Server, mcp_tool, server_info, tools};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};
use support::http::{
    EventStream, legacy_answer, open_legacy_session_as, parse, post_legacy_as, request_bytes_to,
    send,
};
use support::http_server::InProcessServer;
use support::schema::check_server_message;

const MODERN: &str = "2026-07-28";
const LEGACY: &str = "2025-11-25";

/// Who is calling.
#[mcp_tool]
async fn whoami(context: RequestContext) -> String {
    context
        .principal()
        .map_or("nobody", |who| who.as_str())
        .to_owned()
}

/// The answer to `confirm`'s question.
#[derive(Deserialize, JsonSchema)]
struct Confirmation {
    /// Go ahead?
    confirm: bool,
}

/// Ask before answering.
#[mcp_tool]
async fn confirm(context: RequestContext) -> String {
    match context.elicit::<Confirmation>("Go ahead?").await {
        Ok(Elicitation::Accepted(Confirmation { confirm: true })) => "done".to_owned(),
        Ok(_) => "not done".to_owned(),
        Err(error) => format!("could not ask: {error}"),
    }
}

/// Tokens `alice-token` and `bob-token` name their users; `anonymous` is let through
/// unnamed; anything else is refused.
fn serve() -> InProcessServer {
    let config = HttpConfig::new().authorize(|request| match request.bearer_token {
        Some("anonymous") => Ok(None),
        Some(token) => match token.strip_suffix("-token") {
            Some(user) => Ok(Some(Principal::new(user))),
            None => Err(AuthRejection::invalid_token("unknown token")),
        },
        None => Err(AuthRejection::missing_token()),
    });
    InProcessServer::start(
        Server::new(server_info!()).tools(tools![whoami, confirm]),
        config,
    )
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

/// POST a 2026-07-28 `tools/call` as the holder of `token`.
fn call_modern(addr: SocketAddr, token: &str, id: i64, mut params: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        "io.modelcontextprotocol/clientInfo": {"name": "principal-tests", "version": "0"},
    });
    let name = params["name"].as_str().unwrap().to_owned();
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params});
    let authorization = bearer(token);
    let reply = send(
        addr,
        "POST",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", MODERN),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", &name),
            ("Authorization", &authorization),
        ],
        body.to_string().as_bytes(),
    );
    assert_eq!(
        reply.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    let message = reply.json();
    check_server_message(ProtocolVersion::V2026_07_28, Some("tools/call"), &message).unwrap();
    message
}

fn text_of(message: &Value) -> &str {
    message["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {message}"))
}

#[test]
fn handlers_see_the_principal_the_hook_named() {
    let server = serve();
    let addr = server.addr;
    let whoami = json!({"name": "whoami", "arguments": {}});
    assert_eq!(
        text_of(&call_modern(addr, "alice-token", 1, whoami.clone())),
        "alice"
    );
    assert_eq!(
        text_of(&call_modern(addr, "bob-token", 2, whoami.clone())),
        "bob"
    );
    assert_eq!(
        text_of(&call_modern(addr, "anonymous", 3, whoami)),
        "nobody"
    );

    let session = open_legacy_session_as(addr, "alice-token");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}});
    let reply = post_legacy_as(addr, "alice-token", Some(&session), &call);
    assert_eq!(reply.status, 200);
    assert_eq!(text_of(&legacy_answer(&reply)), "alice");
    server.shut_down();
}

#[test]
fn a_legacy_session_answers_only_the_principal_that_opened_it() {
    let server = serve();
    let addr = server.addr;
    let session = open_legacy_session_as(addr, "alice-token");
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});

    // Bob holds a valid token and Alice's session id (leaked, guessed): as good as unknown.
    for intruder in ["bob-token", "anonymous"] {
        let reply = post_legacy_as(addr, intruder, Some(&session), &list);
        assert_eq!(reply.status, 404, "{intruder}");
        let authorization = bearer(intruder);
        let headers = [
            ("Accept", "text/event-stream"),
            ("MCP-Protocol-Version", LEGACY),
            ("Mcp-Session-Id", session.as_str()),
            ("Authorization", authorization.as_str()),
        ];
        assert_eq!(
            send(addr, "GET", &headers, b"").status,
            404,
            "{intruder} GET"
        );
        assert_eq!(
            send(addr, "DELETE", &headers, b"").status,
            404,
            "{intruder} DELETE"
        );
    }

    // Alice's session survived all that.
    let reply = post_legacy_as(addr, "alice-token", Some(&session), &list);
    assert_eq!(reply.status, 200);
    assert!(legacy_answer(&reply)["result"]["tools"].is_array());
    server.shut_down();
}

#[test]
fn a_request_state_resumes_only_for_its_principal_and_only_once() {
    let server = serve();
    let addr = server.addr;
    let call = json!({"name": "confirm", "arguments": {}});
    let first = call_modern(addr, "alice-token", 1, call.clone());
    assert_eq!(first["result"]["resultType"], "input_required", "{first}");
    let mut retry = call;
    retry["requestState"] = first["result"]["requestState"].clone();
    retry["inputResponses"] = json!({"q0": {"action": "accept", "content": {"confirm": true}}});

    for (id, other) in [(2, "bob-token"), (3, "anonymous")] {
        let refused = call_modern(addr, other, id, retry.clone());
        assert_eq!(refused["error"]["code"], -32602, "{other}: {refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("another principal"),
            "{refused}"
        );
    }

    let resumed = call_modern(addr, "alice-token", 4, retry.clone());
    assert_eq!(text_of(&resumed), "done", "{resumed}");
    let again = call_modern(addr, "alice-token", 5, retry);
    assert_eq!(again["error"]["code"], -32602, "{again}");
    assert!(
        again["error"]["message"]
            .as_str()
            .unwrap()
            .contains("already used"),
        "{again}"
    );
    server.shut_down();
}

/// POST `message` to `path` as the holder of `token`, on its own connection; the status.
fn post_to(addr: SocketAddr, path: &str, token: &str, message: &Value) -> u16 {
    post_with(addr, path, token, &[], message)
}

/// [`post_to`] with `extra` headers.
fn post_with(
    addr: SocketAddr,
    path: &str,
    token: &str,
    extra: &[(&str, &str)],
    message: &Value,
) -> u16 {
    use std::io::{Read, Write};
    let authorization = bearer(token);
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Authorization", authorization.as_str()),
    ];
    headers.extend_from_slice(extra);
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    let body = message.to_string();
    stream
        .write_all(&request_bytes_to(
            path,
            "POST",
            &headers,
            body.as_bytes(),
            true,
        ))
        .unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    parse(&raw).status
}

#[test]
fn an_http_sse_session_answers_only_the_principal_that_opened_it() {
    let server = serve();
    let addr = server.addr;
    let authorization = bearer("alice-token");
    let mut stream = EventStream::open(
        addr,
        "GET",
        "/sse",
        &[
            ("Accept", "text/event-stream"),
            ("Authorization", authorization.as_str()),
        ],
        b"",
    );
    assert_eq!(stream.status, 200);
    let endpoint = stream.next_event().expect("an endpoint event").data;
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "principal-tests", "version": "0"}}});
    // Whatever else a request says (an `Mcp-Session-Id` naming no session, or bob's own
    // Streamable HTTP session), the HTTP+SSE session it names decides whose it is.
    let bobs_session = open_legacy_session_as(addr, "bob-token");
    let zeros = "0".repeat(64);
    let disguises: [&[(&str, &str)]; 4] = [
        &[],
        &[("Mcp-Session-Id", "x")],
        &[("Mcp-Session-Id", zeros.as_str())],
        &[("Mcp-Session-Id", bobs_session.as_str())],
    ];
    for intruder in ["bob-token", "anonymous"] {
        for extra in disguises {
            assert_eq!(
                post_with(addr, &endpoint, intruder, extra, &initialize),
                404,
                "{intruder} with {extra:?}"
            );
        }
    }
    assert_eq!(post_to(addr, &endpoint, "alice-token", &initialize), 202);
    let answer = stream.next_message();
    assert_eq!(answer["id"], 1, "{answer}");
    check_server_message(ProtocolVersion::V2024_11_05, Some("initialize"), &answer).unwrap();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post_to(addr, &endpoint, "alice-token", &initialized), 202);
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}}});
    assert_eq!(post_to(addr, &endpoint, "alice-token", &call), 202);
    let answer = stream.next_message();
    assert_eq!(text_of(&answer), "alice");
    server.shut_down();
}
