// A misspelled tool is ONE ordinary error at the misspelling.
use mcp_runtime::{mcp_tool, tools};

/// Echo.
#[mcp_tool]
async fn echo(text: String) -> String {
    text
}

fn main() {
    let _ = tools![echo, ecko];
}
