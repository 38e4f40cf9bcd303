// A return type that is not `IntoToolResult` is ONE error, at the return type, listing what works.
use mcp_runtime::mcp_tool;

/// Where are we?
#[mcp_tool]
async fn cwd() -> std::path::PathBuf {
    std::path::PathBuf::from(".")
}

fn main() {
    let _ = mcp_runtime::tools![cwd];
}
