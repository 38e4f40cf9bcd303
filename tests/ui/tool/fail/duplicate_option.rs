// A repeated option is an error at the repetition.
use mcp_runtime::mcp_tool;

/// Add.
#[mcp_tool(name = "add", name = "plus")]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
