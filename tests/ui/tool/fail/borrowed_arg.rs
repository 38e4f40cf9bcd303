// A borrowed argument type is ONE error, at the type, suggesting the owned type.
use mcp_runtime::mcp_tool;

/// Shout.
#[mcp_tool]
async fn shout(text: &str) -> String {
    text.to_uppercase()
}

fn main() {
    let _ = mcp_runtime::tools![shout];
}
