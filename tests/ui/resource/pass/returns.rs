// Every supported return type compiles: text, bytes, contents, lists of them, `Result`s.
#![deny(warnings)]

use mcp_runtime::{ResourceContents, ResourceError, mcp_resource, resources};

#[mcp_resource("a://text")]
async fn text() -> String {
    String::new()
}

#[mcp_resource("a://str")]
async fn static_str() -> &'static str {
    ""
}

#[mcp_resource("a://bytes")]
async fn bytes() -> Vec<u8> {
    Vec::new()
}

#[mcp_resource("a://contents")]
async fn contents() -> ResourceContents {
    ResourceContents::text("a://contents", "")
}

#[mcp_resource("a://several")]
async fn several() -> Vec<ResourceContents> {
    Vec::new()
}

#[mcp_resource("a://fallible")]
async fn fallible() -> Result<String, std::io::Error> {
    Ok(String::new())
}

#[mcp_resource("a://internal")]
fn internal() -> Result<Vec<u8>, ResourceError> {
    Err(ResourceError::internal("no"))
}

fn main() {
    let resources = resources![text, static_str, bytes, contents, several, fallible, internal];
    assert_eq!(resources.handlers().len(), 7);
}
