// A template variable always has a value in a matching URI: `Option` is refused at the type.
use mcp_runtime::mcp_resource;

#[mcp_resource("note://{id}")]
async fn note(id: Option<u64>) -> String {
    format!("{id:?}")
}

fn main() {}
