// A struct argument (with nested structs) is inlined into the schema, field docs included.
#![deny(warnings)]

use mcp_runtime::{mcp_tool, tools};
use schemars::JsonSchema;
use serde::Deserialize;

/// A point.
#[derive(Deserialize, JsonSchema)]
struct Point {
    /// Degrees east.
    x: f64,
    /// Degrees north.
    y: f64,
}

/// A segment.
#[derive(Deserialize, JsonSchema)]
struct Segment {
    from: Point,
    to: Point,
}

/// Measure a segment.
#[mcp_tool]
async fn length(segment: Segment) -> f64 {
    let (dx, dy) = (segment.to.x - segment.from.x, segment.to.y - segment.from.y);
    (dx * dx + dy * dy).sqrt()
}

fn main() {
    let tools = tools![length];
    let schema = serde_json::Value::Object(tools.handlers()[0].definition().input_schema);
    assert!(!schema.to_string().contains("$ref"));
    assert_eq!(
        schema["properties"]["segment"]["properties"]["from"]["properties"]["x"]["description"],
        "Degrees east."
    );
}
