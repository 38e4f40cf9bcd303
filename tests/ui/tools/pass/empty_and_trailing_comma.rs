// `tools![]` may be empty, may end with a comma, and may list tools defined after it.
#![deny(warnings)]

use mcp_runtime::{mcp_tool, tools};

fn main() {
    assert!(tools![].handlers().is_empty());
    let tools = tools![first, second,];
    let names: Vec<_> = tools
        .handlers()
        .iter()
        .map(|handler| handler.definition().name)
        .collect();
    assert_eq!(names, ["first", "second"]);
}

/// The first tool.
#[mcp_tool]
async fn first() {}

/// The second tool.
#[mcp_tool]
fn second() {}
