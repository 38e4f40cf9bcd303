// Listing a function that is not an `#[mcp_prompt]` is one error, at its path.
use mcp_runtime::{mcp_tool, prompts};

/// A tool, not a prompt.
#[mcp_tool]
async fn tool() -> String {
    String::new()
}

fn main() {
    let _ = prompts![tool];
}
