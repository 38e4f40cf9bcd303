//! Arithmetic with shared state: `add` counts its calls in a [`State`] given to the server once,
//! and the resource `stats://server` reports that count and the server's uptime as JSON.
//!
//! ```text
//! cargo run --example math
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use mcp_runtime::{Server, State, mcp_resource, mcp_tool, resources, server_info, tools};

/// What the server counts, shared by every call: no globals.
struct Stats {
    started: Instant,
    additions: AtomicU64,
}

/// Add two numbers.
///
/// # Arguments
///
/// * `a` - The first addend.
/// * `b` - The second addend.
#[mcp_tool(annotations(read_only))]
fn add(a: f64, b: f64, stats: State<Stats>) -> f64 {
    stats.additions.fetch_add(1, Ordering::Relaxed);
    a + b
}

/// How many additions the server has made, and for how long it has been up.
#[mcp_resource("stats://server", mime_type = "application/json")]
async fn server_stats(stats: State<Stats>) -> String {
    serde_json::json!({
        "additions": stats.additions.load(Ordering::Relaxed),
        "uptimeSeconds": stats.started.elapsed().as_secs_f64(),
    })
    .to_string()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new(server_info!().with_title("Math"))
        .with_state(Stats {
            started: Instant::now(),
            additions: AtomicU64::new(0),
        })
        .tools(tools![add])
        .resources(resources![server_stats])
        .serve_stdio()
        .await
}
