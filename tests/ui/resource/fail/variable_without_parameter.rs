// A template variable with no parameter of its name is an error at the variable, saying
// what to add.
use mcp_runtime::mcp_resource;

#[mcp_resource("repo://{owner}/{name}")]
async fn repo(owner: String) -> String {
    owner
}

fn main() {}
