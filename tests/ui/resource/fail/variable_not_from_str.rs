// A variable's type must implement `FromStr`: the error is at the type, saying so.
use mcp_runtime::mcp_resource;

#[mcp_resource("bytes://{data}")]
async fn bytes(data: Vec<u8>) -> String {
    format!("{data:?}")
}

fn main() {}
