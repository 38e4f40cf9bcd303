// `&mut self` is an error at the receiver: calls run concurrently on one shared value.
use mcp_runtime::{mcp_server, mcp_tool};

struct Counter {
    count: u64,
}

#[mcp_server]
impl Counter {
    /// Bump.
    #[mcp_tool]
    async fn bump(&mut self) -> u64 {
        self.count += 1;
        self.count
    }
}

fn main() {}
