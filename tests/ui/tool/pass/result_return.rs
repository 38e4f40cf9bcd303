// `Result<T, E>` with `E: Display` is a return type; so is anything else `IntoToolResult`.
#![deny(warnings)]

use mcp_runtime::{CallToolResult, Content, handler::IntoToolResult, mcp_tool, tools};

/// Parse a number.
#[mcp_tool]
async fn parse(text: String) -> Result<i64, std::num::ParseIntError> {
    text.parse()
}

/// Several content blocks.
#[mcp_tool]
fn blocks() -> Vec<Content> {
    vec![Content::text("a"), Content::text("b")]
}

/// A hand-made result.
#[mcp_tool]
async fn hand_made() -> CallToolResult {
    CallToolResult::error("always fails")
}

/// Whatever converts.
#[mcp_tool]
async fn opaque() -> impl IntoToolResult {
    "opaque"
}

/// A static string.
#[mcp_tool]
fn static_text() -> &'static str {
    "static"
}

fn main() {
    let tools = tools![parse, blocks, hand_made, opaque, static_text];
    assert_eq!(tools.handlers().len(), 5);
}
