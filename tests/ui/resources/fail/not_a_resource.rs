// Listing a function that is not an `#[mcp_resource]` is one error, at its path.
use mcp_runtime::resources;

async fn plain() -> String {
    String::new()
}

fn main() {
    let _ = plain;
    let _ = resources![plain];
}
