// A method taking `self` by value is an error at `self`: the server shares one value.
use mcp_runtime::{mcp_server, mcp_tool};

struct Service;

#[mcp_server]
impl Service {
    /// Consume.
    #[mcp_tool]
    async fn consume(self) -> String {
        String::new()
    }
}

fn main() {}
