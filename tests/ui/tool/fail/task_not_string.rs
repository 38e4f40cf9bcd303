// A `task` value that is not a string literal is an error at the value, showing the forms.
use mcp_runtime::mcp_tool;

/// Index everything.
#[mcp_tool(task = 3)]
async fn index() {}

fn main() {}
