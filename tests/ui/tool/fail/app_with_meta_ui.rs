// With `app`, the `_meta` key `ui` is MCP Apps' and written by `app`: setting it too is refused.
use mcp_runtime::mcp_tool;

#[mcp_tool(app = "ui://weather/forecast", meta("ui" = 1))]
async fn forecast() -> &'static str {
    "sunny"
}

fn main() {}
