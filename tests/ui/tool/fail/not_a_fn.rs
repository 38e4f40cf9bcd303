// `#[mcp_tool]` on something other than a function is an error at the item's keyword.
use mcp_runtime::mcp_tool;

#[mcp_tool]
struct Add {
    a: f64,
    b: f64,
}

fn main() {}
