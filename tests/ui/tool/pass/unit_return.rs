// A tool may return nothing (`()`), explicitly or not.
#![deny(warnings)]

use mcp_runtime::{mcp_tool, tools};

/// Do nothing.
#[mcp_tool]
async fn nothing() {}

/// Do nothing, explicitly.
#[mcp_tool]
fn unit(_ignored: Option<String>) -> () {}

fn main() {
    let tools = tools![nothing, unit];
    let schema = tools.handlers()[0].definition().input_schema;
    assert_eq!(
        serde_json::Value::Object(schema),
        serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
    );
}
