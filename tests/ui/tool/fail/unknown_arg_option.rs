// An unknown `#[arg]` option is an error at it, listing the valid ones and the likely one.
use mcp_runtime::mcp_tool;

/// Add.
#[mcp_tool]
async fn add(#[arg(desc = "the first addend")] a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
