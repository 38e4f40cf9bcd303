// Parameter names never clash with generated code; raw identifiers bind plain variables.
#![deny(warnings)]

use mcp_runtime::{mcp_resource, resources};

#[mcp_resource("x://{__mcp_reader}/{__mcp_uri}/{type}")]
async fn clash(__mcp_reader: String, __mcp_uri: String, r#type: String) -> String {
    format!("{__mcp_reader}{__mcp_uri}{}", r#type)
}

fn main() {
    let resources = resources![clash];
    assert_eq!(resources.handlers().len(), 1);
}
