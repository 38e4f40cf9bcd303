// `task` takes no list: `task(optional)` is an error at it, showing the forms.
use mcp_runtime::mcp_tool;

/// Index everything.
#[mcp_tool(task(optional))]
async fn index() {}

fn main() {}
