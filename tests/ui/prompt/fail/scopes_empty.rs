use mcp_runtime::mcp_prompt;

// An empty string is no scope.
/// Draft a note.
#[mcp_prompt(scopes(""))]
fn draft() -> &'static str {
    "Draft a note"
}

fn main() {}
