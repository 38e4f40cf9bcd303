// A `_meta` key that breaks the naming rules, or one set twice, is reported at its literal.
use mcp_runtime::mcp_tool;

#[mcp_tool(meta("no spaces" = 1, "com.example/a" = 1, "com.example/a" = 2))]
async fn ping() -> &'static str {
    "pong"
}

fn main() {}
