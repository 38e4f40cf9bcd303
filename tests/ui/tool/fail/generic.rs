// A generic function is an error at its generics: each argument needs one concrete type.
use mcp_runtime::mcp_tool;

/// Echo anything.
#[mcp_tool]
async fn echo<T: ToString>(value: T) -> String {
    value.to_string()
}

fn main() {}
