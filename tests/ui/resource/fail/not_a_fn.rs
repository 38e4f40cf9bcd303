// `#[mcp_resource]` on something other than a function: one error, at the item's keyword.
use mcp_runtime::mcp_resource;

#[mcp_resource("config://app")]
struct Config;

fn main() {}
