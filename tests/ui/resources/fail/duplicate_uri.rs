// Two resources at one URI are refused at compile time, naming both.
use mcp_runtime::{mcp_resource, resources};

#[mcp_resource("config://app")]
async fn first() -> String {
    String::new()
}

#[mcp_resource("config://app")]
async fn second() -> String {
    String::new()
}

fn main() {
    let _ = resources![first, second];
}
