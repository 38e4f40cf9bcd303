//! Arithmetic with shared state: `add` counts its calls in a [`State`] given to the server once,
//! and the resource `stats://server` reports that count and the server's uptime as JSON.
//!
//! ```text
//! cargo run --example math
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use mcp_runtime::{Json, Server, State, mcp_resource, mcp_tool, resources, server_info, tools};

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

/// A division's outcome.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Quotient {
    /// `a / b`.
    quotient: f64,
    /// `a % b`.
    remainder: f64,
}

/// Divide `a` by `b`: the quotient and the remainder, as structured data.
///
/// # Arguments
///
/// * `a` - The dividend.
/// * `b` - The divisor, not zero.
#[mcp_tool(annotations(read_only))]
fn divide(a: f64, b: f64) -> Result<Json<Quotient>, String> {
    if b == 0.0 {
        return Err("cannot divide by zero".into());
    }
    Ok(Json(Quotient {
        quotient: (a / b).trunc(),
        remainder: a % b,
    }))
}

/// The first `n` square numbers: structured data that is not an object, so only 2026-07-28
/// clients get it as such (others read the text).
///
/// # Arguments
///
/// * `n` - How many squares.
#[mcp_tool(annotations(read_only))]
fn squares(n: u32) -> Json<Vec<u64>> {
    Json((1..=u64::from(n.min(1000))).map(|k| k * k).collect())
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
        .tools(tools![add, divide, squares])
        .resources(resources![server_stats])
        .serve_stdio()
        .await
}
