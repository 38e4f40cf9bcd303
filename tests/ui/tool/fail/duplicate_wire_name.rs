// Two parameters sent under one name are an error at the second.
use mcp_runtime::mcp_tool;

/// Add.
#[mcp_tool]
async fn add(a: f64, #[arg(rename = "a")] b: f64) -> f64 {
    a + b
}

fn main() {}
