// `#[arg(default = expr)]` and `#[arg(default)]` make arguments optional, with a default.
#![deny(warnings)]

use mcp_runtime::{mcp_tool, tools};

const DEFAULT_LIMIT: u32 = 10;

/// Search for something.
#[mcp_tool]
async fn search(
    query: String,
    #[arg(default = DEFAULT_LIMIT)] limit: u32,
    #[arg(default)] exact: bool,
    #[arg(default = vec!["en".to_owned()])] languages: Vec<String>,
) -> String {
    format!("{query} {limit} {exact} {languages:?}")
}

fn main() {
    let tools = tools![search];
    let schema = tools.handlers()[0].definition().input_schema;
    assert_eq!(schema["properties"]["limit"]["default"], 10);
    assert_eq!(schema["properties"]["exact"]["default"], false);
    assert_eq!(
        schema["properties"]["languages"]["default"],
        serde_json::json!(["en"])
    );
    assert_eq!(schema["required"], serde_json::json!(["query"]));
}
