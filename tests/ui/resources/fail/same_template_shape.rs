// Two templates that match the same URIs (whatever their variable names) are refused.
use mcp_runtime::{mcp_resource, resources};

#[mcp_resource("doc://{name}")]
async fn by_name(name: String) -> String {
    name
}

#[mcp_resource("doc://{id}")]
async fn by_id(id: u64) -> String {
    id.to_string()
}

fn main() {
    let _ = resources![by_name, by_id];
}
