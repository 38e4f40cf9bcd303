// A generic impl block is refused at its generics: the server holds one concrete type.
use mcp_runtime::{mcp_server, mcp_tool};

struct Store<T>(T);

#[mcp_server]
impl<T: Send + Sync + 'static> Store<T> {
    /// Size.
    #[mcp_tool]
    async fn size(&self) -> usize {
        0
    }
}

fn main() {}
