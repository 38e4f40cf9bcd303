// A default on an `Option` parameter is an error at the default: absence already means `None`.
use mcp_runtime::mcp_tool;

/// Search.
#[mcp_tool]
async fn search(query: String, #[arg(default = Some(10))] limit: Option<u32>) -> String {
    format!("{query} {limit:?}")
}

fn main() {}
