// A tool with an MCP App page, a visibility and `_meta` entries of its own; a page served by
// the server; `_meta` on a resource template and a prompt. The definitions carry them.
use mcp_runtime::handler::{PromptHandler, ResourceHandler, ToolHandler};
use mcp_runtime::{mcp_prompt, mcp_resource, mcp_tool};

#[mcp_tool(
    app = "ui://weather/forecast",
    visibility("model", "app"),
    meta("com.example/owner" = "weather-team", "com.example/tier" = 2)
)]
async fn forecast() -> &'static str {
    "sunny"
}

#[mcp_tool(visibility("app"))]
async fn refresh() -> &'static str {
    "fresh"
}

/// The page.
#[mcp_resource(
    "ui://weather/forecast",
    app(
        csp(connect_domains("https://api.example.com"), resource_domains("https://cdn.example.com")),
        permissions(clipboard_write),
        prefers_border = false
    ),
    meta("com.example/version" = "1")
)]
fn page() -> &'static str {
    "<!doctype html><p>hi</p>"
}

/// A note.
#[mcp_resource("notes://{name}", meta("com.example/kind" = "note"))]
fn note(name: String) -> String {
    name
}

/// Greet.
#[mcp_prompt(meta("com.example/lang" = "en"))]
fn greet() -> String {
    "hello".into()
}

fn main() {
    let tool = forecast {}.definition();
    assert_eq!(tool.meta.get("ui").unwrap()["resourceUri"], "ui://weather/forecast");
    assert_eq!(tool.meta.get("ui").unwrap()["visibility"][1], "app");
    assert_eq!(tool.meta.get("com.example/tier").unwrap(), 2);
    assert!(refresh {}.definition().meta.get("ui").unwrap().get("resourceUri").is_none());
    let page = page {}.definition();
    assert_eq!(page.mime_type(), Some("text/html;profile=mcp-app"));
    let ui = page.meta().get("ui").unwrap();
    assert_eq!(ui["csp"]["connectDomains"][0], "https://api.example.com");
    assert_eq!(ui["permissions"]["clipboardWrite"], serde_json::json!({}));
    assert_eq!(ui["prefersBorder"], false);
    assert_eq!(note {}.definition().meta().get("com.example/kind").unwrap(), "note");
    assert_eq!(greet {}.definition().meta.get("com.example/lang").unwrap(), "en");
}
