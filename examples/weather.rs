//! A weather MCP server with one tool, `get_weather`, answering from a fixed local table (no
//! network), so its answers are the same everywhere.
//!
//! The tool is an MCP App: hosts that render apps (`io.modelcontextprotocol/ui`) show its
//! results in the page `ui://weather/forecast`, a static HTML file compiled into the binary,
//! which draws the tool's structured result and calls the tool again, through the host, when
//! the user switches units. Other clients get the same JSON as text.
//!
//! ```sh
//! cargo run --example weather -- call get_weather city=Paris
//! cargo run --example weather -- call get_weather city=Oslo units=fahrenheit
//! cargo run --example weather -- --http 127.0.0.1:8080   # for a host on the web
//! ```
//!
//! Started by an MCP client it serves over stdin/stdout.

use mcp_runtime::{Json, Server, ServerInfo, mcp_resource, mcp_tool, resources, tools};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The unit temperatures are given in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Units {
    /// Degrees Celsius.
    #[default]
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// One city's weather, in the table.
struct Observation {
    city: &'static str,
    celsius: f64,
    condition: &'static str,
    humidity: u8,
}

const OBSERVATIONS: [Observation; 6] = [
    Observation {
        city: "Paris",
        celsius: 18.5,
        condition: "partly cloudy",
        humidity: 62,
    },
    Observation {
        city: "London",
        celsius: 14.0,
        condition: "light rain",
        humidity: 81,
    },
    Observation {
        city: "Tokyo",
        celsius: 24.0,
        condition: "clear",
        humidity: 55,
    },
    Observation {
        city: "New York",
        celsius: 21.5,
        condition: "sunny",
        humidity: 48,
    },
    Observation {
        city: "Sydney",
        celsius: 16.0,
        condition: "windy",
        humidity: 67,
    },
    Observation {
        city: "Oslo",
        celsius: -3.0,
        condition: "snow",
        humidity: 90,
    },
];

/// What `get_weather` answers: its structured result, and the same as JSON text.
#[derive(Serialize, JsonSchema)]
struct Report {
    city: &'static str,
    temperature: f64,
    units: Units,
    condition: &'static str,
    humidity: u8,
}

/// Get the current weather in a city: temperature, sky condition and relative humidity (%).
///
/// # Arguments
/// * `city` - the city's name, like `Paris` or `New York` (case does not matter)
/// * `units` - the temperature unit (default: celsius)
#[mcp_tool(
    title = "Current weather",
    annotations(read_only, idempotent),
    app = "ui://weather/forecast"
)]
async fn get_weather(city: String, #[arg(default)] units: Units) -> Result<Json<Report>, String> {
    let wanted = city.trim();
    let Some(observation) = OBSERVATIONS
        .iter()
        .find(|observation| observation.city.eq_ignore_ascii_case(wanted))
    else {
        let known: Vec<&str> = OBSERVATIONS.iter().map(|o| o.city).collect();
        return Err(format!(
            "unknown city `{wanted}`: weather is known for {}",
            known.join(", ")
        ));
    };
    let temperature = match units {
        Units::Celsius => observation.celsius,
        Units::Fahrenheit => observation.celsius * 9.0 / 5.0 + 32.0,
    };
    let report = Report {
        city: observation.city,
        // One decimal, without float noise (`64.4`, not `64.39999999999999`).
        temperature: (temperature * 10.0).round() / 10.0,
        units,
        condition: observation.condition,
        humidity: observation.humidity,
    };
    Ok(Json(report))
}

/// The page that shows a `get_weather` result: a table of the reading, with a button that asks
/// for it in the other unit.
#[mcp_resource(
    "ui://weather/forecast",
    name = "forecast",
    title = "Weather forecast",
    app(prefers_border = true)
)]
fn forecast_page() -> &'static str {
    include_str!("assets/weather_forecast.html")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new(ServerInfo::new("weather", env!("CARGO_PKG_VERSION")).with_title("Weather"))
        .trace_from_env()
        .instructions("Current weather for a few cities: call `get_weather` with a city name.")
        .tools(tools![get_weather])
        .resources(resources![forecast_page])
        .serve_from_args()
        .await
}
