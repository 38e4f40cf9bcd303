//! The server `tests/stdio_apps.rs` talks to: `_meta` on every kind of definition and result,
//! an extension declared with settings, an MCP App written with the attributes and one with
//! the builders, and a tool that reports what extensions its client declared.

use mcp_runtime::extensions::Extension;
use mcp_runtime::extensions::apps::{self, AppPage, AppTool, Csp, Visibility};
use mcp_runtime::handler::{ResourceBuilder, ToolBuilder};
use mcp_runtime::protocol::Meta;
use mcp_runtime::{
    CallToolResult, Content, GetPromptResult, PromptMessage, RequestContext, Resource,
    ResourceContents, Server, mcp_prompt, mcp_resource, mcp_tool, prompts, resources, server_info,
    tools,
};
use serde_json::json;

/// A tool whose definition and result carry `_meta` of their own.
#[mcp_tool(meta("com.example/owner" = "tests", "com.example/cost" = 3))]
fn tagged() -> CallToolResult {
    let meta = Meta::new()
        .with("com.example/source", "station-12")
        .unwrap();
    CallToolResult::success(vec![Content::text("tagged")]).with_meta(meta)
}

/// Which extensions the client of this request declared, as JSON: the settings of the MCP
/// Apps extension and of `com.example/audit`, `null` for one not declared.
#[mcp_tool]
fn declared(context: RequestContext) -> String {
    json!({
        "ui": context.client_extension(apps::EXTENSION),
        "audit": context.client_declares("com.example/audit"),
    })
    .to_string()
}

/// The dashboard's data; its page renders it.
#[mcp_tool(app = "ui://apps/dashboard", visibility("model", "app"))]
fn dashboard() -> &'static str {
    "{\"widgets\":3}"
}

/// The dashboard page.
#[mcp_resource(
    "ui://apps/dashboard",
    app(
        csp(connect_domains("https://api.example.com")),
        permissions(clipboard_write),
        prefers_border = true
    )
)]
fn dashboard_page() -> &'static str {
    "<!doctype html><html><body><p id=widgets></p></body></html>"
}

/// A document with `_meta` on its listing and on its contents.
#[mcp_resource("docs://readme", mime_type = "text/plain", meta("com.example/lang" = "en"))]
fn readme() -> ResourceContents {
    ResourceContents::text("docs://readme", "read me")
        .with_mime_type("text/plain")
        .with_meta(Meta::new().with("com.example/etag", "v1").unwrap())
}

/// Any chapter.
#[mcp_resource("docs://chapters/{n}", meta("com.example/kind" = "chapter"))]
fn chapter(n: u32) -> String {
    format!("chapter {n}")
}

/// A prompt with `_meta` on its definition and its result.
#[mcp_prompt(meta("com.example/lang" = "en"))]
fn greet() -> GetPromptResult {
    GetPromptResult::new(vec![PromptMessage::user("hello")])
        .with_meta(Meta::new().with("com.example/variant", "b").unwrap())
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let board = ToolBuilder::new("board")
        .description("The board's cards.")
        .meta("com.example/built", true)
        .app(AppTool::new("ui://apps/board").visibility(&[Visibility::App]))
        .handler(|_, _| async { "[]" });
    let board_page = ResourceBuilder::new(Resource::new("ui://apps/board", "board"))
        .app(AppPage::new().csp(Csp::new().resource_domain("https://cdn.example.com")))
        .reader(|_| async { "<!doctype html><p>board</p>".to_owned() });
    Server::new(server_info!())
        .extension(Extension::new("com.example/audit").with_setting("level", "full"))
        .tools(tools![tagged, declared, dashboard].with(board))
        .resources(resources![dashboard_page, readme, chapter].with(board_page))
        .prompts(prompts![greet])
        .serve_stdio()
        .await
}
