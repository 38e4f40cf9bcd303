// A MIME type is `type/subtype`.
use mcp_runtime::mcp_resource;

#[mcp_resource("doc://readme", mime_type = "markdown")]
async fn readme() -> String {
    String::new()
}

fn main() {}
