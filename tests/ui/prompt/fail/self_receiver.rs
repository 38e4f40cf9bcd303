// A prompt is a free function: `self` is refused, and the impl block still compiles.
use mcp_runtime::mcp_prompt;

struct Reviewer;

impl Reviewer {
    #[mcp_prompt]
    async fn review(&self) -> String {
        String::new()
    }
}

fn main() {}
