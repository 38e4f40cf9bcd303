// An impl of a trait is refused at the trait: the server serves the type's own methods.
use mcp_runtime::{mcp_server, mcp_tool};

trait Greet {
    async fn greet(&self) -> String;
}

struct Service;

#[mcp_server]
impl Greet for Service {
    /// Greet.
    #[mcp_tool]
    async fn greet(&self) -> String {
        String::new()
    }
}

fn main() {}
