// `list` enumerates a template's resources; on a static resource it means nothing.
use mcp_runtime::{Resource, mcp_resource};

fn everything() -> Vec<Resource> {
    Vec::new()
}

#[mcp_resource("config://app", list = everything)]
async fn config() -> String {
    String::new()
}

fn main() {}
