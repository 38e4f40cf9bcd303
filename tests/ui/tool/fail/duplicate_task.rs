// A repeated `task` is an error at the repetition, even with the same meaning.
use mcp_runtime::mcp_tool;

/// Index everything.
#[mcp_tool(task, task = "optional")]
async fn index() {}

fn main() {}
