// An async tool whose future is not `Send` is an error at the function's name, pointing at the culprit.
use std::rc::Rc;

use mcp_runtime::mcp_tool;

/// Count, badly.
#[mcp_tool]
async fn count(n: u32) -> u32 {
    let shared = Rc::new(n);
    tokio::task::yield_now().await;
    *shared
}

fn main() {
    let _ = mcp_runtime::tools![count];
}
