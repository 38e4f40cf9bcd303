// `size` describes one resource; on a template the error says where sizes go instead.
use mcp_runtime::mcp_resource;

#[mcp_resource("doc://{name}", size = 1024)]
async fn doc(name: String) -> String {
    name
}

fn main() {}
