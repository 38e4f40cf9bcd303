// Prompt arguments are strings: a type without `FromStr` is an error at the type.
use mcp_runtime::mcp_prompt;

/// Summarize.
#[mcp_prompt]
async fn summarize(topics: Vec<String>) -> String {
    topics.join(", ")
}

fn main() {}
