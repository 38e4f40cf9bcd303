// A resource function cannot be generic: each variable needs one concrete type.
use mcp_runtime::mcp_resource;

#[mcp_resource("doc://{name}")]
async fn doc<T: std::str::FromStr>(name: T) -> String {
    let _ = name;
    String::new()
}

fn main() {}
