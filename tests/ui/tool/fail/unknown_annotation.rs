// An unknown annotation is an error at it, listing the valid hints and the likely one.
use mcp_runtime::mcp_tool;

/// Add.
#[mcp_tool(annotations(readonly))]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
