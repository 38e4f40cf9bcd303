// Priority is from 0 to 1 and the audience is `user` or `assistant`: each mistake at its
// own tokens.
use mcp_runtime::mcp_resource;

#[mcp_resource("doc://readme", annotations(audience(user, robot), priority = 1.5))]
async fn readme() -> String {
    String::new()
}

fn main() {}
