// An `Option` argument is already `None` when absent: a default on it is refused.
use mcp_runtime::mcp_prompt;

#[mcp_prompt]
async fn greet(#[arg(default = Some(1))] times: Option<u8>) -> String {
    format!("{times:?}")
}

fn main() {}
