// RFC 6570 operators other than `+` are refused, naming the operator and what to use.
use mcp_runtime::mcp_resource;

#[mcp_resource("search://{?query}")]
async fn search(query: String) -> String {
    query
}

fn main() {}
