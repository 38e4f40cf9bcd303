// `self: Box<Self>` is an error at the receiver, naming the type written: the server lends `&self`.
use mcp_runtime::{mcp_prompt, mcp_server};

struct Service;

#[mcp_server]
impl Service {
    /// Ask.
    #[mcp_prompt]
    async fn ask(self: Box<Self>) -> String {
        String::new()
    }
}

fn main() {}
