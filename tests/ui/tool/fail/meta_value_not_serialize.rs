// A `_meta` value must be `Serialize`; the error points at the value.
use mcp_runtime::mcp_tool;

struct Opaque;

#[mcp_tool(meta("com.example/x" = Opaque))]
async fn ping() -> &'static str {
    "pong"
}

fn main() {}
