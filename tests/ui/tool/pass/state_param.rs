// `State<T>` is injected (not in the input schema), alone or beside arguments and the context.
use std::sync::atomic::{AtomicU64, Ordering};

use mcp_runtime::{RequestContext, Server, State, mcp_tool, server_info, tools};

struct Counter(AtomicU64);

/// Count and add.
#[mcp_tool]
fn add(a: f64, b: f64, counter: State<Counter>) -> f64 {
    counter.0.fetch_add(1, Ordering::Relaxed);
    a + b
}

/// Report the count, if there is a counter.
#[mcp_tool]
async fn count(counter: Option<State<Counter>>, ctx: RequestContext) -> String {
    let _ = ctx.progress(1.0, None, None);
    counter.map_or(0, |c| c.0.load(Ordering::Relaxed)).to_string()
}

fn main() {
    let _server = Server::new(server_info!())
        .with_state(Counter(AtomicU64::new(0)))
        .tools(tools![add, count]);
}
