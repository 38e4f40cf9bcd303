use mcp_runtime::mcp_tool;

/// A tool whose `layer` option names no layer.
#[mcp_tool(layer = 5)]
async fn counted() -> &'static str {
    "counted"
}

fn main() {}
