// A function name that is not a valid tool name is an error at the name, suggesting `name = ...`.
use mcp_runtime::mcp_tool;

/// Add.
#[mcp_tool]
async fn añadir(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
