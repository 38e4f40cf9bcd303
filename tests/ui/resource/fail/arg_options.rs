// `#[arg]` options mean nothing on a resource parameter: a variable binds by its own name,
// always has a value and has no description on the wire.
use mcp_runtime::mcp_resource;

#[mcp_resource("doc://{name}")]
async fn doc(#[arg(description = "the page")] name: String) -> String {
    name
}

fn main() {}
