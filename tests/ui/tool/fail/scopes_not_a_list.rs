use mcp_runtime::mcp_tool;

// `scopes` takes a parenthesized list, not a value, and not an empty list.
/// Write notes.
#[mcp_tool(scopes = "notes:write")]
async fn write_note() -> &'static str {
    "written"
}

/// Read notes.
#[mcp_tool(scopes())]
async fn read_notes() -> &'static str {
    "read"
}

fn main() {}
