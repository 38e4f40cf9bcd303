// A URI without a scheme is refused: clients validate resource URIs as URIs.
use mcp_runtime::mcp_resource;

#[mcp_resource("app-settings")]
async fn settings() -> String {
    String::new()
}

fn main() {}
