// `visibility` lists `"model"` and/or `"app"`; an unknown value, a repeat or an empty list is
// reported where it is written.
use mcp_runtime::mcp_tool;

#[mcp_tool(visibility("user", "app", "app"))]
async fn refresh() -> &'static str {
    "fresh"
}

#[mcp_tool(visibility())]
async fn hidden() -> &'static str {
    "nobody"
}

fn main() {}
