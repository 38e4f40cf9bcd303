// `RequestContext` and `CancellationToken` parameters are injected, not arguments.
#![deny(warnings)]

use mcp_runtime::{CancellationToken, RequestContext, mcp_tool, tools};

/// Report the revision and whether the call was cancelled.
#[mcp_tool]
async fn status(context: RequestContext, verbose: bool, cancel: CancellationToken) -> String {
    format!("{} {verbose} {}", context.revision, cancel.is_cancelled())
}

fn main() {
    let tools = tools![status];
    let schema = tools.handlers()[0].definition().input_schema;
    assert_eq!(schema["required"], serde_json::json!(["verbose"]));
    assert_eq!(schema["properties"].as_object().map(|p| p.len()), Some(1));
}
