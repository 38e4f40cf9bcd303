// Listing a type that is not an `#[mcp_tool]` is ONE error, at it, saying what to do.
use mcp_runtime::tools;

struct Echo {}

fn main() {
    let _ = tools![Echo];
}
