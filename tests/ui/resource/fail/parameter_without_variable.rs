// A parameter that is no variable of the template (nor injected) is an error at the
// parameter, listing the variables.
use mcp_runtime::mcp_resource;

#[mcp_resource("doc://{name}")]
async fn doc(name: String, version: u32) -> String {
    format!("{name} {version}")
}

fn main() {}
