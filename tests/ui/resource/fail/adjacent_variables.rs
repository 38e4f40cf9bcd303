// Two variables with nothing between them cannot split a URI unambiguously.
use mcp_runtime::mcp_resource;

#[mcp_resource("pair://{first}{second}")]
async fn pair(first: String, second: String) -> String {
    format!("{first}{second}")
}

fn main() {}
