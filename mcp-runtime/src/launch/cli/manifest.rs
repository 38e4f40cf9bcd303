//! `manifest`: everything the server offers, as clients see it, in one JSON document.
//!
//! The lists come from the dispatcher (`tools/list`, `resources/list`,
//! `resources/templates/list`, `prompts/list`, every page) at the newest revision, so the
//! manifest shows exactly what a client gets. `resources` holds what the resource listers
//! enumerate at the time, besides the static resources.
//!
//! ```json
//! {
//!   "server": {"name": "calculator", "version": "0.1.0"},
//!   "protocolVersion": "2026-07-28",
//!   "tools": [{"name": "add", "description": "...", "inputSchema": {...}}],
//!   "resources": [], "resourceTemplates": [], "prompts": [],
//!   "tokenEstimate": {"method": "...", "tools": {"add": 64}, "total": 64}
//! }
//! ```

use serde_json::{Map, Value, json};

use crate::launch::client::{RpcError, TestClient};
use crate::protocol::ProtocolVersion;
use crate::server::Server;

/// The revision the manifest shows: the newest.
const REVISION: ProtocolVersion = TestClient::DEFAULT_REVISION;

/// How the token estimate is made, stated in the manifest itself.
const METHOD: &str =
    "ceil(bytes / 4) of each tool's compact JSON definition as tools/list sends it";

/// The manifest of `server`, or the error a listing answered with.
pub(crate) async fn manifest(server: &Server, client: &TestClient) -> Result<Value, RpcError> {
    let tools = client.list_tools().await?;
    // A capability the server does not offer is a method it does not have: nothing to list.
    let offered = server.surfaces.sets();
    let resources = if offered.resources.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        (
            client.list_resources().await?,
            client.list_resource_templates().await?,
        )
    };
    let prompts = if offered.prompts.is_empty() {
        Vec::new()
    } else {
        client.list_prompts().await?
    };

    let mut server_info = Map::new();
    server_info.insert("name".into(), json!(server.config.info.name));
    server_info.insert("version".into(), json!(server.config.info.version));
    if let Some(title) = &server.config.info.title {
        server_info.insert("title".into(), json!(title));
    }
    if let Some(instructions) = &server.config.instructions {
        server_info.insert("instructions".into(), json!(instructions));
    }

    let mut per_tool = Map::new();
    let mut total = 0;
    for tool in &tools {
        let tokens = estimate_tokens(tool);
        total += tokens;
        let name = tool["name"].as_str().unwrap_or_default();
        per_tool.insert(name.to_owned(), json!(tokens));
    }
    Ok(json!({
        "server": server_info,
        "protocolVersion": REVISION.as_str(),
        "tools": tools,
        "resources": resources.0,
        "resourceTemplates": resources.1,
        "prompts": prompts,
        "tokenEstimate": {"method": METHOD, "tools": per_tool, "total": total},
    }))
}

/// Roughly how many tokens `definition` costs a model that is shown it: about 4 bytes of
/// compact JSON make a token in common tokenizers (JSON punctuation makes it a little
/// pessimistic for prose and optimistic for schemas; it is for comparing, not billing).
pub(crate) fn estimate_tokens(definition: &Value) -> usize {
    let bytes = serde_json::to_vec(definition)
        .expect("a JSON value always serializes")
        .len();
    bytes.div_ceil(4)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dispatch::test_tools;
    use crate::handler::Tools;
    use crate::server::ServerInfo;

    #[test]
    fn four_bytes_of_compact_json_a_token() {
        // `{"a":"bc"}` is 10 bytes.
        assert_eq!(estimate_tokens(&json!({"a": "bc"})), 3);
        assert_eq!(estimate_tokens(&json!("ab")), 1);
    }

    #[tokio::test]
    async fn lists_what_a_client_sees_with_estimates() {
        let server = Server::new(ServerInfo::new("s", "1"))
            .instructions("Use it.")
            .tools(
                Tools::new()
                    .with(test_tools::named("one"))
                    .with(test_tools::named("two")),
            );
        let client = TestClient::new(server.clone());
        let manifest = manifest(&server, &client).await.unwrap();
        assert_eq!(
            manifest["server"],
            json!({"name": "s", "version": "1", "instructions": "Use it."})
        );
        assert_eq!(manifest["protocolVersion"], "2026-07-28");
        let listed = client.list_tools().await.unwrap();
        assert_eq!(manifest["tools"], json!(listed));
        let one = estimate_tokens(&listed[0]);
        assert!(one > 10, "{one}");
        assert_eq!(manifest["tokenEstimate"]["tools"]["one"], one);
        assert_eq!(
            manifest["tokenEstimate"]["total"],
            one + estimate_tokens(&listed[1])
        );
        assert_eq!(manifest["resources"], json!([]));
        assert_eq!(manifest["prompts"], json!([]));
    }
}
