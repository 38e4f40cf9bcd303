// An `impl Trait` parameter is an error at its type: the schema needs one concrete type.
use mcp_runtime::mcp_tool;

/// Echo anything.
#[mcp_tool]
async fn echo(value: impl ToString) -> String {
    value.to_string()
}

fn main() {}
