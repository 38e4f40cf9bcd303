// A service that cannot be shared between threads is reported at the type in `impl Service`
// (once for `Send`, once for `Sync`), not at every method.
use std::cell::Cell;
use std::rc::Rc;

use mcp_runtime::{mcp_resource, mcp_server, mcp_tool};

struct Service {
    calls: Cell<u64>,
    name: Rc<str>,
}

#[mcp_server]
impl Service {
    /// Count.
    #[mcp_tool]
    async fn count(&self) -> u64 {
        self.calls.set(self.calls.get() + 1);
        self.calls.get()
    }

    /// The name.
    #[mcp_resource("service://name")]
    async fn name(&self) -> String {
        self.name.to_string()
    }
}

fn main() {}
