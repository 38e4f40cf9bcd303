//! `layer = ...` on tools: any number of them, on free functions and on `#[mcp_server]`
//! methods.

use std::time::Duration;

use mcp_runtime::middleware::{self, MaxOutputLayer, Next, Request, TimeoutLayer};
use mcp_runtime::{mcp_server, mcp_tool, tools};

/// Fetch a page.
#[mcp_tool(
    layer = TimeoutLayer::new(Duration::from_secs(5)),
    layer = MaxOutputLayer::new(1024),
    layer = middleware::from_fn(|request: Request, next: Next| next.run(request)),
)]
async fn fetch(url: String) -> String {
    url
}

struct Archive;

#[mcp_server]
impl Archive {
    /// Search the archive.
    #[mcp_tool(layer = TimeoutLayer::new(Duration::from_secs(1)))]
    async fn search(&self, query: String) -> String {
        query
    }
}

fn main() {
    let _ = tools![fetch];
    let _ = Archive;
}
