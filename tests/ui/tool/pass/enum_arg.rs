// A unit enum argument is a string enum in the schema.
#![deny(warnings)]

use mcp_runtime::{mcp_tool, tools};
use schemars::JsonSchema;
use serde::Deserialize;

/// How to round.
#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Rounding {
    /// Toward positive infinity.
    Up,
    /// Toward negative infinity.
    Down,
}

/// Round a number.
#[mcp_tool]
fn round(value: f64, mode: Rounding) -> f64 {
    match mode {
        Rounding::Up => value.ceil(),
        Rounding::Down => value.floor(),
    }
}

fn main() {
    let tools = tools![round];
    let schema = tools.handlers()[0].definition().input_schema;
    assert_eq!(schema["properties"]["mode"]["type"], "string");
    assert_eq!(
        schema["properties"]["mode"]["enum"],
        serde_json::json!(["up", "down"])
    );
}
