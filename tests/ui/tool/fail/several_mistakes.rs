// Several mistakes in one tool are all reported at once, each at its own tokens.
use mcp_runtime::mcp_tool;

/// Add.
///
/// # Arguments
/// * `c` - not a parameter
#[mcp_tool(name = "add numbers", colour = "blue")]
async fn add((a, b): (f64, f64), #[arg(rename = "")] c: f64, #[arg(nme = "d")] d: f64) -> f64 {
    a + b + c + d
}

fn main() {
    // The fallback still declares the companion struct: no further error here.
    let _ = mcp_runtime::tools![add];
}
