// A name with characters clients reject is an error at the string literal.
use mcp_runtime::mcp_tool;

/// Get the weather.
#[mcp_tool(name = "get weather")]
async fn weather(city: String) -> String {
    city
}

fn main() {}
