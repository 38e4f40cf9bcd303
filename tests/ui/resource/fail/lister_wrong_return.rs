// A lister must return resources: the error is at the lister's path.
use mcp_runtime::mcp_resource;

fn names() -> Vec<String> {
    vec!["a".to_owned()]
}

#[mcp_resource("doc://{name}", list = names)]
async fn doc(name: String) -> String {
    name
}

fn main() {}
