// A default for a type without `Serialize` is ONE error, at the default, saying why it is needed.
use mcp_runtime::mcp_tool;
use schemars::JsonSchema;
use serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
enum Unit {
    Celsius,
    Fahrenheit,
}

/// Get the temperature.
#[mcp_tool]
async fn temperature(#[arg(default = Unit::Celsius)] unit: Unit) -> f64 {
    match unit {
        Unit::Celsius => 20.0,
        Unit::Fahrenheit => 68.0,
    }
}

fn main() {
    let _ = mcp_runtime::tools![temperature];
}
