// `Option<T>` parameters (also spelled with a full path) are optional arguments.
#![deny(warnings)]

use mcp_runtime::{mcp_tool, tools};

/// Greet someone, maybe by title.
#[mcp_tool]
async fn greet(name: String, title: Option<String>, times: std::option::Option<u8>) -> String {
    let times = usize::from(times.unwrap_or(1));
    let who = match title {
        Some(title) => format!("{title} {name}"),
        None => name,
    };
    vec![format!("Hello, {who}!"); times].join(" ")
}

fn main() {
    let tools = tools![greet];
    let schema = tools.handlers()[0].definition().input_schema;
    assert_eq!(schema["required"], serde_json::json!(["name"]));
}
