// A return type that is not `IntoPromptResult` is an error at the return type.
use mcp_runtime::mcp_prompt;

/// Count.
#[mcp_prompt]
async fn count() -> u32 {
    3
}

fn main() {}
