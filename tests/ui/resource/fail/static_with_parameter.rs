// A static URI has no variables, so a parameter has no value; the error suggests a template.
use mcp_runtime::mcp_resource;

#[mcp_resource("config://app")]
async fn config(section: String) -> String {
    section
}

fn main() {}
