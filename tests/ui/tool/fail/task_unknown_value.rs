// A `task` value other than the runtime's modes is an error at the value, listing them.
use mcp_runtime::mcp_tool;

/// Index everything.
#[mcp_tool(task = "sometimes")]
async fn index() {}

fn main() {}
