// A tool listed twice is an error at the second listing.
use mcp_runtime::{mcp_tool, tools};

/// Echo.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

fn main() {
    let _ = tools![echo, echo];
}
