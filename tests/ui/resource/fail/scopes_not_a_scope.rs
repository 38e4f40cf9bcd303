use mcp_runtime::mcp_resource;

// A scope with a quote in it is no RFC 6749 scope token.
/// Secrets.
#[mcp_resource("secret://admin", scopes("admin\""))]
fn secrets() -> &'static str {
    "hunter2"
}

fn main() {}
