//! `_meta`, extensions and MCP Apps over a real pipe, in every revision (`tests/apps_server`,
//! and `examples/weather.rs` for the app). Every message the client sends or receives is
//! validated against the official schema of its revision (`tests/schemas/<revision>`), as in
//! every stdio test; the `ui` entries are validated against the MCP Apps extension's own schema
//! (`tests/schemas/ext-apps/schema.json`, from `@modelcontextprotocol/ext-apps` 2.0.4, the
//! extension's revision 2026-01-26), whose `McpUiToolMeta` allows no other member.

mod support;

use std::path::Path;
use std::sync::OnceLock;

use mcp_runtime::protocol::ProtocolVersion;
use serde_json::{Value, json};
use support::{Client, ServerProcess, per_revision};

const UI: &str = "io.modelcontextprotocol/ui";
const APP_MIME: &str = "text/html;profile=mcp-app";

fn apps_server() -> ServerProcess {
    ServerProcess::spawn(Path::new(env!("CARGO_BIN_EXE_apps-server")))
}

/// The extension's schema for `definition` (`McpUiToolMeta`, `McpUiResourceMeta`, ...).
fn check_against_apps_schema(definition: &str, instance: &Value) {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    let document = DOCUMENT.get_or_init(|| {
        serde_json::from_str(include_str!("schemas/ext-apps/schema.json")).unwrap()
    });
    let mut schema = document.clone();
    schema["$ref"] = json!(format!("#/$defs/{definition}"));
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(instance)
        .map(|error| format!("at `{}`: {error}", error.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{instance} is not an MCP Apps `{definition}`: {errors:?}"
    );
}

/// `_meta` on definitions and contents exists from 2025-06-18 on.
fn has_definition_meta(revision: ProtocolVersion) -> bool {
    revision >= ProtocolVersion::V2025_06_18
}

/// The client and the server's capabilities: from `initialize` (legacy) or `server/discover`.
fn open(revision: ProtocolVersion) -> (Client, Value) {
    if revision.is_modern() {
        let mut client = Client::open(apps_server(), revision);
        let discovered = client.result("server/discover", json!({}));
        return (client, discovered["capabilities"].clone());
    }
    let mut client = Client::new(apps_server());
    let result = client.initialize(revision.as_str());
    (client, result["capabilities"].clone())
}

fn by_name<'a>(items: &'a [Value], key: &str, name: &str) -> &'a Value {
    items
        .iter()
        .find(|item| item[key] == name)
        .unwrap_or_else(|| panic!("no `{name}` in {items:?}"))
}

fn declares_its_extensions_in_every_era(revision: ProtocolVersion) {
    let (_client, capabilities) = open(revision);
    assert_eq!(
        capabilities["extensions"],
        json!({"com.example/audit": {"level": "full"}, UI: {}}),
        "{capabilities}"
    );
}

fn definitions_carry_their_meta_from_2025_06_18(revision: ProtocolVersion) {
    let (mut client, _) = open(revision);
    let tools = client.result("tools/list", json!({}))["tools"].clone();
    let tools = tools.as_array().unwrap();
    let resources = client.result("resources/list", json!({}))["resources"].clone();
    let resources = resources.as_array().unwrap();
    let templates =
        client.result("resources/templates/list", json!({}))["resourceTemplates"].clone();
    let prompts = client.result("prompts/list", json!({}))["prompts"].clone();
    let metas = [
        &by_name(tools, "name", "tagged")["_meta"],
        &by_name(resources, "uri", "docs://readme")["_meta"],
        &by_name(templates.as_array().unwrap(), "name", "chapter")["_meta"],
        &by_name(prompts.as_array().unwrap(), "name", "greet")["_meta"],
    ];
    if !has_definition_meta(revision) {
        for meta in metas {
            assert!(meta.is_null(), "{revision} has no `_meta` here: {meta}");
        }
        return;
    }
    assert_eq!(
        metas[0],
        &json!({"com.example/owner": "tests", "com.example/cost": 3})
    );
    assert_eq!(metas[1], &json!({"com.example/lang": "en"}));
    assert_eq!(metas[2], &json!({"com.example/kind": "chapter"}));
    assert_eq!(metas[3], &json!({"com.example/lang": "en"}));
}

fn results_carry_their_meta_in_every_revision(revision: ProtocolVersion) {
    let (mut client, _) = open(revision);
    let called = client.result("tools/call", json!({"name": "tagged", "arguments": {}}));
    assert_eq!(
        called["_meta"]["com.example/source"], "station-12",
        "{called}"
    );
    let prompt = client.result("prompts/get", json!({"name": "greet"}));
    assert_eq!(prompt["_meta"]["com.example/variant"], "b", "{prompt}");
    if revision.is_modern() {
        // Beside the server's identity, which the handler's entries cannot replace.
        for result in [&called, &prompt] {
            assert!(
                result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"].is_string(),
                "{result}"
            );
        }
    }
    let read = client.result("resources/read", json!({"uri": "docs://readme"}));
    let contents = &read["contents"][0];
    if has_definition_meta(revision) {
        assert_eq!(
            contents["_meta"],
            json!({"com.example/etag": "v1"}),
            "{read}"
        );
    } else {
        assert!(contents.get("_meta").is_none(), "{read}");
    }
}

fn app_tools_name_their_pages(revision: ProtocolVersion) {
    let (mut client, _) = open(revision);
    let tools = client.result("tools/list", json!({}))["tools"].clone();
    let tools = tools.as_array().unwrap();
    let dashboard = &by_name(tools, "name", "dashboard")["_meta"];
    let board = &by_name(tools, "name", "board")["_meta"];
    if !has_definition_meta(revision) {
        assert!(dashboard.is_null() && board.is_null());
        return;
    }
    assert_eq!(
        dashboard["ui"],
        json!({"resourceUri": "ui://apps/dashboard", "visibility": ["model", "app"]})
    );
    // An app-only tool is listed all the same: the host keeps it from the model.
    assert_eq!(
        board["ui"],
        json!({"resourceUri": "ui://apps/board", "visibility": ["app"]})
    );
    assert_eq!(board["com.example/built"], true);
    check_against_apps_schema("McpUiToolMeta", &dashboard["ui"]);
    check_against_apps_schema("McpUiToolMeta", &board["ui"]);
}

fn app_pages_are_served_as_mcp_app_html_with_their_policy(revision: ProtocolVersion) {
    let (mut client, _) = open(revision);
    let resources = client.result("resources/list", json!({}))["resources"].clone();
    let resources = resources.as_array().unwrap();
    for (uri, ui) in [
        (
            "ui://apps/dashboard",
            json!({
                "csp": {"connectDomains": ["https://api.example.com"]},
                "permissions": {"clipboardWrite": {}},
                "prefersBorder": true,
            }),
        ),
        (
            "ui://apps/board",
            json!({"csp": {"resourceDomains": ["https://cdn.example.com"]}}),
        ),
    ] {
        let listed = by_name(resources, "uri", uri);
        assert_eq!(listed["mimeType"], APP_MIME, "{listed}");
        let read = client.result("resources/read", json!({"uri": uri}));
        let contents = &read["contents"][0];
        assert_eq!(contents["mimeType"], APP_MIME, "{read}");
        assert!(
            contents["text"]
                .as_str()
                .unwrap()
                .starts_with("<!doctype html>"),
            "{read}"
        );
        if has_definition_meta(revision) {
            assert_eq!(listed["_meta"]["ui"], ui, "{listed}");
            assert_eq!(contents["_meta"]["ui"], ui, "{read}");
            check_against_apps_schema("McpUiResourceMeta", &contents["_meta"]["ui"]);
        } else {
            assert!(listed.get("_meta").is_none() && contents.get("_meta").is_none());
        }
    }
}

/// The capabilities of a client that renders MCP Apps.
fn host_capabilities() -> Value {
    json!({"extensions": {UI: {"mimeTypes": [APP_MIME]}}})
}

fn declared(client: &mut Client, params: Value) -> Value {
    let result = client.result("tools/call", params);
    serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap()
}

/// A legacy session declares its extensions once, in `initialize`.
fn a_legacy_handler_sees_what_its_session_declared(revision: ProtocolVersion) {
    let call = json!({"name": "declared", "arguments": {}});
    let mut host = Client::new(apps_server());
    host.initialize_with(revision.as_str(), host_capabilities());
    check_against_apps_schema(
        "McpUiClientCapabilities",
        &host_capabilities()["extensions"][UI],
    );
    for _ in 0..2 {
        assert_eq!(
            declared(&mut host, call.clone()),
            json!({"ui": {"mimeTypes": [APP_MIME]}, "audit": false})
        );
    }
    let mut plain = Client::open(apps_server(), revision);
    assert_eq!(
        declared(&mut plain, call),
        json!({"ui": null, "audit": false})
    );
}

/// A 2026-07-28 request declares its own: the next request, without them, has none.
fn a_modern_handler_sees_what_its_request_declared(revision: ProtocolVersion) {
    let mut client = Client::open(apps_server(), revision);
    let declaring = json!({
        "name": "declared",
        "arguments": {},
        "_meta": {"io.modelcontextprotocol/clientCapabilities": {"extensions": {
            UI: {"mimeTypes": [APP_MIME]},
            "com.example/audit": {},
        }}},
    });
    assert_eq!(
        declared(&mut client, declaring),
        json!({"ui": {"mimeTypes": [APP_MIME]}, "audit": true})
    );
    assert_eq!(
        declared(&mut client, json!({"name": "declared", "arguments": {}})),
        json!({"ui": null, "audit": false})
    );
}

/// The weather example: its tool names its page, which reads as MCP App HTML, and its result
/// is structured for the page.
fn the_weather_app_is_complete(revision: ProtocolVersion) {
    let mut client = Client::open(ServerProcess::example("weather"), revision);
    let tools = client.list_all_tools();
    let weather = by_name(&tools, "name", "get_weather");
    if has_definition_meta(revision) {
        assert_eq!(
            weather["_meta"]["ui"]["resourceUri"],
            "ui://weather/forecast"
        );
        check_against_apps_schema("McpUiToolMeta", &weather["_meta"]["ui"]);
    }
    let read = client.result("resources/read", json!({"uri": "ui://weather/forecast"}));
    assert_eq!(read["contents"][0]["mimeType"], APP_MIME, "{read}");
    let html = read["contents"][0]["text"].as_str().unwrap();
    assert!(html.contains("ui/initialize") && html.contains("toggle-units"));
    let paris = client.call_tool("get_weather", json!({"city": "Paris"}));
    if revision >= ProtocolVersion::V2025_06_18 {
        assert_eq!(paris["structuredContent"]["temperature"], 18.5, "{paris}");
        assert_eq!(paris["structuredContent"]["units"], "celsius", "{paris}");
    }
}

per_revision!(all:
    declares_its_extensions_in_every_era,
    definitions_carry_their_meta_from_2025_06_18,
    results_carry_their_meta_in_every_revision,
    app_tools_name_their_pages,
    app_pages_are_served_as_mcp_app_html_with_their_policy,
    the_weather_app_is_complete,
);
per_revision!(legacy: a_legacy_handler_sees_what_its_session_declared);

#[test]
fn a_modern_handler_sees_what_its_request_declared_in_2026_07_28() {
    a_modern_handler_sees_what_its_request_declared(ProtocolVersion::V2026_07_28);
}

/// The apps schema check can fail: a member the extension does not define, or a wrong type.
#[test]
fn the_apps_schema_check_rejects_what_the_extension_does_not_define() {
    for wrong in [
        json!({"resourceUri": "ui://a", "visibility": ["user"]}),
        json!({"resourceUri": 3}),
        json!({"resourceUri": "ui://a", "hidden": true}),
    ] {
        let outcome =
            std::panic::catch_unwind(|| check_against_apps_schema("McpUiToolMeta", &wrong));
        assert!(outcome.is_err(), "{wrong} passed the McpUiToolMeta check");
    }
    let outcome = std::panic::catch_unwind(|| {
        check_against_apps_schema(
            "McpUiResourceMeta",
            &json!({"csp": {"connectDomains": "x"}}),
        )
    });
    assert!(outcome.is_err());
}
