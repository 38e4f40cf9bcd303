use mcp_runtime::mcp_tool;

// Each wrong scope is reported at its own literal: one holding a space (two scopes in one
// string), one that is no string, and one listed twice; the good ones are kept.
/// Write notes.
#[mcp_tool(scopes("notes:read notes:write", 7, "notes:write", "notes:write"))]
async fn write_note() -> &'static str {
    "written"
}

fn main() {}
