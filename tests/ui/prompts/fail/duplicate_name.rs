// Two prompts with one name are refused at compile time, naming both.
use mcp_runtime::{mcp_prompt, prompts};

#[mcp_prompt(name = "review")]
async fn first() -> String {
    String::new()
}

#[mcp_prompt(name = "review")]
async fn second() -> String {
    String::new()
}

fn main() {
    let _ = prompts![first, second];
}
