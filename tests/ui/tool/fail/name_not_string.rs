// A name that is not a string literal is an error at the value, showing the expected form.
use mcp_runtime::mcp_tool;

/// Get the weather.
#[mcp_tool(name = get_weather)]
async fn weather(city: String) -> String {
    city
}

fn main() {}
