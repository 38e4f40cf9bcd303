// An `# Arguments` entry naming no parameter is an error at that line.
use mcp_runtime::mcp_prompt;

/// Greet.
///
/// # Arguments
/// * `nmae` - who to greet
#[mcp_prompt]
async fn greet(name: String) -> String {
    name
}

fn main() {}
