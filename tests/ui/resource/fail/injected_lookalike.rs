// A parameter named like an injected type but of another type fails at that type.
use mcp_runtime::mcp_resource;

struct RequestContext;

#[mcp_resource("config://app")]
async fn config(context: RequestContext) -> String {
    let _ = context;
    String::new()
}

fn main() {}
