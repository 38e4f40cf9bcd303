// A return type that is not `IntoReadResult` is an error at the return type, listing what
// works.
use mcp_runtime::mcp_resource;

#[mcp_resource("counter://hits")]
async fn hits() -> u32 {
    42
}

fn main() {}
