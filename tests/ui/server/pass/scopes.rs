// Scopes on the methods of an `#[mcp_server]` impl reach each one's handler, and a free
// function's reach its companion.
#![deny(warnings)]

use std::sync::Arc;

use mcp_runtime::handler::{McpService, ToolHandler};
use mcp_runtime::{mcp_prompt, mcp_resource, mcp_server, mcp_tool};

pub struct Notes;

#[mcp_server]
impl Notes {
    /// Write a note.
    #[mcp_tool(scopes("notes:write"))]
    async fn write(&self, text: String) -> String {
        text
    }

    /// A note.
    #[mcp_resource("note://{name}", scopes("notes:read"))]
    fn note(&self, name: String) -> String {
        name
    }

    /// Draft.
    #[mcp_prompt(scopes("notes:write", "drafts"))]
    fn draft(&self) -> &'static str {
        "Draft"
    }
}

/// Anyone may.
#[mcp_tool]
fn open() -> &'static str {
    "open"
}

/// Only admins.
#[mcp_tool(scopes("admin"))]
fn wipe() -> &'static str {
    "wiped"
}

fn main() {
    let notes = Arc::new(Notes);
    assert_eq!(notes.tools().handlers()[0].scopes(), ["notes:write"]);
    assert_eq!(notes.resources().handlers()[0].scopes(), ["notes:read"]);
    assert_eq!(notes.prompts().handlers()[0].scopes(), ["notes:write", "drafts"]);
    assert!(open {}.scopes().is_empty());
    assert_eq!(wipe {}.scopes(), ["admin"]);
}
