// An argument described both in `# Arguments` and `#[arg(description)]` is an error.
use mcp_runtime::mcp_prompt;

/// Greet.
///
/// # Arguments
/// * `name` - who to greet
#[mcp_prompt]
async fn greet(#[arg(description = "the name")] name: String) -> String {
    name
}

fn main() {}
