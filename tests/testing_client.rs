//! `mcp_runtime::testing::TestClient` as a user's unit tests would use it: tools, resources
//! and prompts written with the macros, called in process through the real dispatcher.

use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    Server, ServerInfo, mcp_prompt, mcp_resource, mcp_tool, prompts, resources, tools,
};
use serde_json::{Value, json};

/// Divide one number by another.
///
/// # Arguments
/// * `dividend` - the number to divide
/// * `divisor` - the number to divide by
#[mcp_tool]
async fn divide(dividend: f64, divisor: f64) -> Result<f64, String> {
    if divisor == 0.0 {
        return Err("cannot divide by zero".to_owned());
    }
    Ok(dividend / divisor)
}

/// The greeting of the day.
#[mcp_resource("memo://greeting", mime_type = "text/plain")]
async fn greeting() -> &'static str {
    "hello"
}

/// A numbered note.
#[mcp_resource("note://{id}", mime_type = "text/plain")]
async fn note(id: u32) -> Result<String, String> {
    if id < 3 {
        Ok(format!("note {id}"))
    } else {
        Err(format!("there is no note {id}"))
    }
}

/// Ask for a summary.
///
/// # Arguments
/// * `topic` - what to summarize
#[mcp_prompt]
async fn summarize(topic: String) -> String {
    format!("Summarize {topic} in three sentences.")
}

fn server() -> Server {
    Server::new(ServerInfo::new("unit", "1.0"))
        .tools(tools![divide])
        .resources(resources![greeting, note])
        .prompts(prompts![summarize])
}

#[tokio::test]
async fn calls_tools_with_the_real_validation() {
    let client = TestClient::new(server());
    assert_eq!(client.revision(), ProtocolVersion::V2026_07_28);

    let half = client
        .call_tool("divide", json!({"dividend": 1, "divisor": 2}))
        .await
        .unwrap();
    assert!(!half.is_error());
    assert_eq!(half.text(), "0.5");

    let by_zero = client
        .call_tool("divide", json!({"dividend": 1, "divisor": 0}))
        .await
        .unwrap();
    assert!(by_zero.is_error());
    assert_eq!(by_zero.text(), "cannot divide by zero");

    let missing = client
        .call_tool("divide", json!({"dividend": 1}))
        .await
        .unwrap();
    assert!(missing.is_error());
    assert!(missing.text().contains("`divisor`"), "{}", missing.text());

    let unknown = client.call_tool("multiply", json!({})).await.unwrap_err();
    assert_eq!(unknown.code, -32602);
}

#[tokio::test]
async fn reads_resources_and_gets_prompts() {
    let client = TestClient::new(server());
    let read = client.read_resource("memo://greeting").await.unwrap();
    assert_eq!(read.text(), "hello");
    assert_eq!(read.contents()[0]["mimeType"], "text/plain");
    assert_eq!(
        client.read_resource("note://2").await.unwrap().text(),
        "note 2"
    );
    // 2026-07-28 reports an unknown resource as invalid params, with the URI in `data`.
    let absent = client.read_resource("note://7").await.unwrap_err();
    assert_eq!(absent.code, -32602, "{absent}");
    assert_eq!(absent.data.unwrap()["uri"], "note://7");

    let prompt = client
        .get_prompt("summarize", json!({"topic": "MCP"}))
        .await
        .unwrap();
    assert_eq!(prompt.text(), "Summarize MCP in three sentences.");
    assert_eq!(prompt.messages()[0]["role"], "user");
    let no_topic = client.get_prompt("summarize", json!({})).await.unwrap_err();
    assert_eq!(no_topic.code, -32602);
    assert!(no_topic.message.contains("topic"), "{no_topic}");
}

#[tokio::test]
async fn lists_everything() {
    let client = TestClient::new(server());
    let names = |items: Vec<Value>, key: &str| -> Vec<String> {
        items
            .iter()
            .map(|item| item[key].as_str().unwrap().to_owned())
            .collect()
    };
    assert_eq!(
        names(client.list_tools().await.unwrap(), "name"),
        ["divide"]
    );
    assert_eq!(
        names(client.list_resources().await.unwrap(), "uri"),
        ["memo://greeting"]
    );
    assert_eq!(
        names(
            client.list_resource_templates().await.unwrap(),
            "uriTemplate"
        ),
        ["note://{id}"]
    );
    assert_eq!(
        names(client.list_prompts().await.unwrap(), "name"),
        ["summarize"]
    );
}

#[tokio::test]
async fn legacy_revisions_answer_as_legacy_clients_see_them() {
    let client = TestClient::at(server(), ProtocolVersion::V2025_06_18);
    assert_eq!(
        client
            .call_tool("divide", json!({"dividend": 9, "divisor": 3}))
            .await
            .unwrap()
            .text(),
        "3"
    );
    // Legacy clients get -32002 for an unknown resource.
    let absent = client.read_resource("note://9").await.unwrap_err();
    assert_eq!(absent.code, -32002, "{absent}");
    // Legacy-only methods work after the handshake the client made.
    assert_eq!(
        client.request("ping", Value::Null).await.unwrap(),
        json!({})
    );
}
