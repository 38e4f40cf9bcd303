// Shared state must be `Send + Sync + 'static`: a `State` of an `Rc` fails at the parameter's type.
use std::rc::Rc;

use mcp_runtime::{State, mcp_tool};

/// Read the shared counter.
#[mcp_tool]
async fn read(counter: State<Rc<u32>>) -> u32 {
    **counter
}

fn main() {
    let _ = mcp_runtime::tools![read];
}
