// `#[mcp_server]` on something other than an impl block is an error at the item's keyword.
use mcp_runtime::mcp_server;

#[mcp_server]
struct Service {
    name: String,
}

fn main() {}
