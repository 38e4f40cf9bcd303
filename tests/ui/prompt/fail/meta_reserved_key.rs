// A prompt's `_meta` key under a reserved prefix is refused at its literal.
use mcp_runtime::mcp_prompt;

#[mcp_prompt(meta("org.modelcontextprotocol.api/x" = true))]
fn greet() -> String {
    "hello".into()
}

fn main() {}
