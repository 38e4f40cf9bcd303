// Arguments are passed by name, so a parameter must be a plain name.
use mcp_runtime::mcp_prompt;

#[mcp_prompt]
async fn pair((first, second): (String, String)) -> String {
    format!("{first}{second}")
}

fn main() {}
