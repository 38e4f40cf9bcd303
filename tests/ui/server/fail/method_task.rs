// A method's `task` is checked as a free function's, and reported with the other mistakes of
// its attribute: here a wrong `task` value, a `task` that is not a string and an unknown option.
use mcp_runtime::{mcp_server, mcp_tool};

struct Service;

#[mcp_server]
impl Service {
    /// Run.
    #[mcp_tool(task = "always", titel = "Run")]
    async fn run(&self) {}

    /// Stop.
    #[mcp_tool(task = true)]
    async fn stop(&self) {}
}

fn main() {}
