// A completer takes the typed text (`&str`): another signature is an error at its path.
use mcp_runtime::mcp_resource;

fn complete_id(typed: u64) -> Vec<String> {
    vec![typed.to_string()]
}

#[mcp_resource("note://{id}", complete(id = complete_id))]
async fn note(id: u64) -> String {
    id.to_string()
}

fn main() {}
