// A parameter described both in `# Arguments` and by `#[arg(description)]` is an error at the attribute.
use mcp_runtime::mcp_tool;

/// Add.
///
/// # Arguments
/// * `a` - the first addend
#[mcp_tool]
async fn add(#[arg(description = "the first number")] a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
