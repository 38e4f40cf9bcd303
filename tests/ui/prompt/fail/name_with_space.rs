// Clients use prompt names as commands: a name with a space is refused.
use mcp_runtime::mcp_prompt;

#[mcp_prompt(name = "code review")]
async fn review() -> String {
    String::new()
}

fn main() {}
