// A completer for a name that is no variable of the template would never be asked.
use mcp_runtime::mcp_resource;

fn complete_title(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

#[mcp_resource("doc://{name}", complete(title = complete_title))]
async fn doc(name: String) -> String {
    name
}

fn main() {}
