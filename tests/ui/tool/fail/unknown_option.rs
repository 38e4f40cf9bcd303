// An unknown `#[mcp_tool]` option is an error at the option, listing every valid one.
use mcp_runtime::mcp_tool;

/// Add.
#[mcp_tool(nmae = "add")]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
