// A name over 64 bytes is an error at the string literal, giving the length.
use mcp_runtime::mcp_tool;

/// Get the weather.
#[mcp_tool(name = "get_the_current_weather_conditions_for_a_city_anywhere_on_the_planet")]
async fn weather(city: String) -> String {
    city
}

fn main() {}
