// A resource takes the server's shared `State<T>` like a tool does: injected, not a variable.
use mcp_runtime::{State, mcp_resource, resources};

struct Greeting(String);

/// The greeting.
#[mcp_resource("greeting://{name}")]
async fn greeting(name: String, greeting: State<Greeting>) -> String {
    format!("{}, {name}", greeting.0)
}

fn main() {
    let _ = resources![greeting];
}
