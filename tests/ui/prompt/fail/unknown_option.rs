// An unknown option lists the valid ones and suggests the closest.
use mcp_runtime::mcp_prompt;

#[mcp_prompt(titel = "Review")]
async fn review() -> String {
    String::new()
}

fn main() {}
