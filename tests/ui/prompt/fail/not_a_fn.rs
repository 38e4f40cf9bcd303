// `#[mcp_prompt]` on something other than a function: one error, at the item's keyword.
use mcp_runtime::mcp_prompt;

#[mcp_prompt]
const GREETING: &str = "hi";

fn main() {}
