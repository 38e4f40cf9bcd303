// An unclosed `{` is reported inside the literal (its whole span on stable compilers).
use mcp_runtime::mcp_resource;

#[mcp_resource("doc://{name")]
async fn doc(name: String) -> String {
    name
}

fn main() {}
