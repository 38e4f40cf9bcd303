// `name = "..."` renames the tool; `#[arg(rename = "...")]` renames an argument on the wire.
#![deny(warnings)]

use mcp_runtime::{mcp_tool, tools};

/// Look up a user.
#[mcp_tool(name = "get-user", title = "Get a user")]
async fn lookup(#[arg(rename = "userId", description = "the user's id")] user_id: u64) -> String {
    user_id.to_string()
}

fn main() {
    let tools = tools![lookup];
    let definition = tools.handlers()[0].definition();
    assert_eq!(definition.name, "get-user");
    assert_eq!(definition.title.as_deref(), Some("Get a user"));
    assert_eq!(
        definition.input_schema["properties"]["userId"]["description"],
        "the user's id"
    );
}
