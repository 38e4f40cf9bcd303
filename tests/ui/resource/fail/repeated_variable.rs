// A variable named twice is refused: each variable is one parameter.
use mcp_runtime::mcp_resource;

#[mcp_resource("echo://{word}/{word}")]
async fn echo(word: String) -> String {
    word
}

fn main() {}
