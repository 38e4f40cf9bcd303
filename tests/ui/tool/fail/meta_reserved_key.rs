// A `_meta` key under a reserved prefix is refused at its literal: the runtime writes those
// (the server's identity, task links), so a tool must not set one by mistake.
use mcp_runtime::mcp_tool;

#[mcp_tool(meta("io.modelcontextprotocol/serverInfo" = "me", "dev.mcp/x" = 1))]
async fn ping() -> &'static str {
    "pong"
}

fn main() {}
