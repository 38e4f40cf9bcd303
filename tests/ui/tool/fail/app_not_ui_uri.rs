// `app` names an MCP App page, which is a `ui://` resource: anything else is refused at the URI.
use mcp_runtime::mcp_tool;

#[mcp_tool(app = "https://example.com/page")]
async fn forecast() -> &'static str {
    "sunny"
}

fn main() {}
