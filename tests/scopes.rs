//! Scopes on tools, resources and prompts: who sees what in the lists, who may call what, and
//! how a refusal reads in each era and transport. In process (the test client serves as stdio
//! does, with or without a configured principal) and over a real socket, where an
//! authorization hook names principals with scopes and a refusal is HTTP's 403 (or 401)
//! with the step-up challenge.

// Not every helper is used here (`per_revision!` among them).
#[allow(unused_macros)]
mod support;

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_runtime::auth::Principal;
use mcp_runtime::handler::{ResourceBuilder, ToolBuilder};
use mcp_runtime::http::{AuthRejection, HttpConfig, ProtectedResource};
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    Resource, Server, Tools, mcp_prompt, mcp_resource, mcp_tool, prompts, resources, server_info,
    tools,
};
use serde_json::{Value, json};
use support::http::{Reply, legacy_answer, open_legacy_session_as, post_legacy_as, send};
use support::http_server::InProcessServer;
use support::schema::check_server_message;

/// How many times a scoped handler ran: a refused request must run none.
static WRITES: AtomicUsize = AtomicUsize::new(0);

/// Read the notes.
#[mcp_tool(scopes("notes:read"), annotations(read_only))]
fn read_notes() -> &'static str {
    "the notes"
}

/// Write a note.
#[mcp_tool(scopes("notes:write", "notes:read"))]
fn write_note(text: String) -> String {
    WRITES.fetch_add(1, Ordering::SeqCst);
    format!("wrote {text}")
}

/// The time, for anyone.
#[mcp_tool]
fn clock() -> &'static str {
    "noon"
}

/// The admin's secrets.
#[mcp_resource("secret://admin", scopes("admin"))]
fn secrets() -> &'static str {
    "hunter2"
}

/// A note by its name.
#[mcp_resource("note://{name}", scopes("notes:read"))]
fn note(name: String) -> String {
    format!("note {name}")
}

/// Topics to draft about.
fn topics(prefix: &str) -> Vec<String> {
    ["lunch", "launch"]
        .into_iter()
        .filter(|topic| topic.starts_with(prefix))
        .map(str::to_owned)
        .collect()
}

/// Draft a note.
#[mcp_prompt(scopes("notes:write"), complete(topic = topics))]
fn draft(topic: String) -> String {
    format!("Draft a note about {topic}")
}

fn server() -> Server {
    Server::new(server_info!())
        .tools(tools![read_notes, write_note, clock])
        .resources(resources![secrets, note])
        .prompts(prompts![draft])
}

fn names(items: &[Value], key: &str) -> Vec<String> {
    let mut names: Vec<String> = items
        .iter()
        .map(|item| item[key].as_str().unwrap().to_owned())
        .collect();
    names.sort();
    names
}

fn reader() -> Principal {
    Principal::new("reader").with_scopes(["notes:read"])
}

#[tokio::test]
async fn the_operator_of_stdio_is_trusted_with_every_scope() {
    for revision in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let client = TestClient::at(server(), revision);
        let tools = client.list_tools().await.unwrap();
        assert_eq!(names(&tools, "name"), ["clock", "read_notes", "write_note"]);
        let completion = client
            .request(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "draft"},
                    "argument": {"name": "topic", "value": "la"}}),
            )
            .await
            .unwrap();
        assert_eq!(completion["completion"]["values"], json!(["launch"]));
        let wrote = client
            .call_tool("write_note", json!({"text": "hi"}))
            .await
            .unwrap();
        assert_eq!(wrote.text(), "wrote hi");
        assert_eq!(
            client.read_resource("secret://admin").await.unwrap().text(),
            "hunter2"
        );
        if revision.is_modern() {
            let list = client.request("tools/list", json!({})).await.unwrap();
            assert_eq!(
                list["cacheScope"], "public",
                "nothing depends on the caller"
            );
        }
    }
}

#[tokio::test]
async fn a_stdio_principal_sees_and_uses_only_what_its_scopes_allow() {
    for revision in [ProtocolVersion::V2025_11_25, ProtocolVersion::V2026_07_28] {
        let client = TestClient::at(server().stdio_principal(reader()), revision);
        assert_eq!(
            names(&client.list_tools().await.unwrap(), "name"),
            ["clock", "read_notes"],
            "{revision}"
        );
        assert_eq!(
            names(&client.list_resources().await.unwrap(), "uri"),
            Vec::<String>::new(),
            "the admin's resource is hidden; the template lists no instances"
        );
        assert_eq!(
            names(&client.list_resource_templates().await.unwrap(), "name"),
            ["note"]
        );
        assert!(client.list_prompts().await.unwrap().is_empty());

        let before = WRITES.load(Ordering::SeqCst);
        let refused = client
            .call_tool("write_note", json!({"text": "hi"}))
            .await
            .unwrap_err();
        assert_eq!(refused.code, -32003, "{refused:?}");
        assert_eq!(
            refused.data,
            Some(json!({"error": "insufficient_scope", "scope": "notes:write notes:read"}))
        );
        assert_eq!(WRITES.load(Ordering::SeqCst), before, "the tool never ran");
        assert_eq!(
            client
                .read_resource("secret://admin")
                .await
                .unwrap_err()
                .code,
            -32003
        );
        assert_eq!(
            client.read_resource("note://a").await.unwrap().text(),
            "note a"
        );
        assert_eq!(
            client
                .get_prompt("draft", json!({"topic": "x"}))
                .await
                .unwrap_err()
                .code,
            -32003
        );
        let completion = client
            .request(
                "completion/complete",
                json!({"ref": {"type": "ref/prompt", "name": "draft"},
                    "argument": {"name": "topic", "value": ""}}),
            )
            .await
            .unwrap_err();
        assert_eq!(completion.code, -32003, "{completion:?}");
        if revision.is_modern() {
            let list = client.request("tools/list", json!({})).await.unwrap();
            assert_eq!(
                list["cacheScope"], "private",
                "the list depends on the caller"
            );
        } else {
            let subscribe = client
                .request("resources/subscribe", json!({"uri": "secret://admin"}))
                .await
                .unwrap_err();
            assert_eq!(subscribe.code, -32003);
        }
    }
}

#[tokio::test]
async fn a_server_may_list_everything_and_refuse_only_the_call() {
    let client = TestClient::at(
        server().stdio_principal(reader()).hide_unpermitted(false),
        ProtocolVersion::V2026_07_28,
    );
    let list = client.request("tools/list", json!({})).await.unwrap();
    assert_eq!(
        names(list["tools"].as_array().unwrap(), "name"),
        ["clock", "read_notes", "write_note"]
    );
    assert_eq!(list["cacheScope"], "public");
    let refused = client
        .call_tool("write_note", json!({"text": "hi"}))
        .await
        .unwrap_err();
    assert_eq!(refused.code, -32003);
}

#[tokio::test]
async fn builders_declare_scopes_too() {
    let tools = Tools::new().with(
        ToolBuilder::new("wipe")
            .scopes(["admin"])
            .handler(|_, _| async { "wiped" }),
    );
    let motd = ResourceBuilder::new(Resource::new("motd://today", "motd"))
        .scopes(["admin"])
        .reader(|_| async { "hello" });
    let server = Server::new(server_info!())
        .tools(tools)
        .resources(mcp_runtime::Resources::new().with(motd))
        .stdio_principal(Principal::new("guest"));
    let client = TestClient::at(server, ProtocolVersion::V2026_07_28);
    assert!(client.list_tools().await.unwrap().is_empty());
    assert!(client.list_resources().await.unwrap().is_empty());
    assert_eq!(
        client.call_tool("wipe", json!({})).await.unwrap_err().code,
        -32003
    );
}

// --- over HTTP ---------------------------------------------------------------------------------

const MODERN: &str = "2026-07-28";

/// `reader-token` reads, `writer-token` reads and writes, `anonymous` is let through unnamed.
fn serve_http() -> InProcessServer {
    let config = HttpConfig::new()
        .protected_resource(
            ProtectedResource::new("http://mcp.example/mcp")
                .authorization_server("https://auth.example")
                .scope("profile"),
        )
        .authorize(|request| match request.bearer_token {
            Some("anonymous") => Ok(None),
            Some("reader-token") => Ok(Some(reader())),
            Some("writer-token") => Ok(Some(
                Principal::new("writer").with_scopes(["notes:read", "notes:write"]),
            )),
            Some(_) => Err(AuthRejection::invalid_token("unknown token")),
            None => Err(AuthRejection::missing_token()),
        });
    InProcessServer::start(server(), config)
}

fn post_modern(addr: SocketAddr, token: &str, method: &str, name: &str, params: Value) -> Reply {
    let mut params = params;
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "scope-tests", "version": "0"},
    });
    let body = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
    let authorization = format!("Bearer {token}");
    let mut headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", MODERN),
        ("Mcp-Method", method),
        ("Authorization", authorization.as_str()),
    ];
    if !name.is_empty() {
        headers.push(("Mcp-Name", name));
    }
    send(addr, "POST", &headers, body.to_string().as_bytes())
}

const METADATA: &str = "http://mcp.example/.well-known/oauth-protected-resource/mcp";

#[test]
fn over_http_a_missing_scope_is_403_with_the_step_up_challenge_in_both_eras() {
    let server = serve_http();
    let addr = server.addr;
    let write = json!({"name": "write_note", "arguments": {"text": "hi"}});
    let before = WRITES.load(Ordering::SeqCst);

    let refused = post_modern(
        addr,
        "reader-token",
        "tools/call",
        "write_note",
        write.clone(),
    );
    assert_eq!(refused.status, 403);
    assert_eq!(
        refused.header("www-authenticate"),
        Some(
            format!(
                "Bearer resource_metadata=\"{METADATA}\", error=\"insufficient_scope\", \
                 scope=\"notes:write notes:read\""
            )
            .as_str()
        )
    );
    let message = refused.json();
    check_server_message(ProtocolVersion::V2026_07_28, Some("tools/call"), &message).unwrap();
    assert_eq!(message["error"]["code"], -32003);

    // Nobody named: 401, the challenge without an error code.
    let anonymous = post_modern(addr, "anonymous", "tools/call", "write_note", write.clone());
    assert_eq!(anonymous.status, 401);
    assert_eq!(
        anonymous.header("www-authenticate"),
        Some(
            format!("Bearer resource_metadata=\"{METADATA}\", scope=\"notes:write notes:read\"")
                .as_str()
        )
    );

    let session = open_legacy_session_as(addr, "reader-token");
    let call = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": write});
    let legacy = post_legacy_as(addr, "reader-token", Some(&session), &call);
    assert_eq!(legacy.status, 403);
    assert!(
        legacy
            .header("www-authenticate")
            .unwrap()
            .contains("error=\"insufficient_scope\", scope=\"notes:write notes:read\"")
    );
    assert_eq!(legacy_answer(&legacy)["error"]["code"], -32003);
    assert_eq!(WRITES.load(Ordering::SeqCst), before, "no refused call ran");

    let allowed = post_modern(addr, "writer-token", "tools/call", "write_note", write);
    assert_eq!(allowed.status, 200);
    assert_eq!(allowed.json()["result"]["content"][0]["text"], "wrote hi");
    server.shut_down();
}

#[test]
fn over_http_each_principal_gets_its_own_list() {
    let server = serve_http();
    let addr = server.addr;
    let listed = |token: &str| {
        let reply = post_modern(addr, token, "tools/list", "", json!({}));
        assert_eq!(reply.status, 200);
        let message = reply.json();
        check_server_message(ProtocolVersion::V2026_07_28, Some("tools/list"), &message).unwrap();
        assert_eq!(message["result"]["cacheScope"], "private");
        names(message["result"]["tools"].as_array().unwrap(), "name")
    };
    assert_eq!(listed("reader-token"), ["clock", "read_notes"]);
    assert_eq!(
        listed("writer-token"),
        ["clock", "read_notes", "write_note"]
    );
    assert_eq!(listed("anonymous"), ["clock"]);

    let session = open_legacy_session_as(addr, "writer-token");
    let list = json!({"jsonrpc": "2.0", "id": 3, "method": "prompts/list"});
    let prompts = legacy_answer(&post_legacy_as(addr, "writer-token", Some(&session), &list));
    assert_eq!(
        names(prompts["result"]["prompts"].as_array().unwrap(), "name"),
        ["draft"]
    );
    server.shut_down();
}

#[test]
fn the_metadata_lists_the_scopes_the_server_declares() {
    use std::io::{Read, Write};
    let server = serve_http();
    let mut stream = std::net::TcpStream::connect(server.addr).unwrap();
    let request = support::http::request_bytes_to(
        "/.well-known/oauth-protected-resource/mcp",
        "GET",
        &[],
        b"",
        true,
    );
    stream.write_all(&request).unwrap();
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw).unwrap();
    let metadata = support::http::parse(&raw);
    assert_eq!(metadata.status, 200);
    assert_eq!(
        metadata.json()["scopes_supported"],
        json!(["profile", "notes:read", "notes:write", "admin"])
    );
    server.shut_down();
}
