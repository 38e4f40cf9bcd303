// Parameter names never clash with generated code; raw identifiers bind plain variables.
#![deny(warnings)]

use mcp_runtime::{mcp_resource, resources};

#[mcp_resource("x://{__mcp_reader}/{__mcp_uri}/{type}")]
async fn clash(__mcp_reader: String, __mcp_uri: String, r#type: String) -> String {
    format!("{__mcp_reader}{__mcp_uri}{}", r#type)
}

// A function and a completer named like the parameters of the generated handler.
#[mcp_resource("y://{name}", complete(name = __mcp_request))]
async fn __mcp_read(name: String) -> String {
    name
}

fn __mcp_request(typed: &str) -> Vec<String> {
    vec![typed.to_owned()]
}

fn main() {
    let resources = resources![clash, __mcp_read];
    assert_eq!(resources.handlers().len(), 2);
}
