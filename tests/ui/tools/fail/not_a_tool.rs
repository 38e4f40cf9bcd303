// Listing a function without `#[mcp_tool]` is ONE error, at its name.
use mcp_runtime::tools;

/// Echo.
async fn echo(text: String) -> String {
    text
}

fn main() {
    let _ = tools![echo];
}
