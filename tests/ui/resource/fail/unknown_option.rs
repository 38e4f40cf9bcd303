// An unknown option lists the valid ones and suggests the closest.
use mcp_runtime::mcp_resource;

#[mcp_resource("doc://readme", mime = "text/markdown")]
async fn readme() -> String {
    String::new()
}

fn main() {}
