// `#[mcp_server]` takes no options: any is an error at its tokens.
use mcp_runtime::{mcp_server, mcp_tool};

struct Service;

#[mcp_server(name = "service")]
impl Service {
    /// Run.
    #[mcp_tool]
    async fn run(&self) {}
}

fn main() {}
