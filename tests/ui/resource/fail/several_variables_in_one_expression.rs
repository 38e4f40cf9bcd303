// `{a,b}` is refused: one expression per variable, with literal text between them.
use mcp_runtime::mcp_resource;

#[mcp_resource("map://{x,y}")]
async fn point(x: String, y: String) -> String {
    format!("{x} {y}")
}

fn main() {}
