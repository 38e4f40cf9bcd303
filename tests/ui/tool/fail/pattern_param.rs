// A pattern instead of a name is an error at the pattern: arguments are sent by name.
use mcp_runtime::mcp_tool;

/// Add a pair.
#[mcp_tool]
async fn add((a, b): (f64, f64)) -> f64 {
    a + b
}

fn main() {}
