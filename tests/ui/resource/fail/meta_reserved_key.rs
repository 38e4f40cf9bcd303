// A resource's `_meta` key under a reserved prefix is refused; with `app`, so is `ui`.
use mcp_runtime::mcp_resource;

#[mcp_resource("ui://page", app, meta("ui" = 1, "io.modelcontextprotocol/x" = 2))]
fn page() -> &'static str {
    ""
}

fn main() {}
