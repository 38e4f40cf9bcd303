// A borrowed argument cannot outlive the request: the error says which owned type to take.
use mcp_runtime::mcp_prompt;

#[mcp_prompt]
async fn greet(name: &str) -> String {
    name.to_owned()
}

fn main() {}
