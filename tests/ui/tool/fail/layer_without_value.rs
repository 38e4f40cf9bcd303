use mcp_runtime::mcp_tool;

/// A tool whose `layer` option has no value.
#[mcp_tool(layer)]
async fn counted() -> &'static str {
    "counted"
}

fn main() {}
