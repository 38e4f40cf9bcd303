// An `# Arguments` entry naming no parameter is an error at that doc line.
use mcp_runtime::mcp_tool;

/// Add.
///
/// # Arguments
/// * `a` - the first addend
/// * `second` - the second addend
#[mcp_tool]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
