// Parameter names never clash with generated code, and raw identifiers name the tool plainly.
#![deny(warnings)]

use mcp_runtime::{mcp_tool, tools};

/// Parameters named like the locals the macro generates.
#[mcp_tool]
async fn clash(__mcp_call: u8, __mcp_reader: u8, __mcp_arg_0: u8, __mcp_output: u8) -> u8 {
    __mcp_call + __mcp_reader + __mcp_arg_0 + __mcp_output
}

/// A keyword as a name.
#[mcp_tool]
async fn r#type(r#match: String) -> String {
    r#match
}

fn main() {
    let tools = tools![clash, r#type];
    let definition = tools.handlers()[1].definition();
    assert_eq!(definition.name, "type");
    assert!(definition.input_schema["properties"].get("match").is_some());
}
