//! The calculator's `add` and `echo` behind three layers (an audit log written to a sink, a
//! rate limit no call reaches, a timeout), to measure what a pipeline costs per call against
//! `examples/calculator` (no layers):
//!
//! ```sh
//! cargo build --release -p mcp-bench --example bench-layered
//! cargo run --release -p mcp-bench -- --no-build --pin --server target/release/examples/bench-layered
//! ```

use std::time::Duration;

use mcp_runtime::middleware::{self, AuditLogLayer, Next, RateLimitLayer, Request, TimeoutLayer};
use mcp_runtime::{Server, mcp_tool, server_info, tools};

/// Add two numbers.
///
/// # Arguments
/// * `a` - the first addend
/// * `b` - the second addend
#[mcp_tool(annotations(read_only, idempotent))]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Repeat the text back, unchanged.
///
/// # Arguments
/// * `text` - what to echo
#[mcp_tool(annotations(read_only))]
async fn echo(text: String) -> String {
    text
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // `BENCH_LAYERS` picks some of the three (comma-separated: `timeout`, `rate`, `audit`;
    // `noop` is a layer that only passes requests on), to see what each costs; all three by
    // default.
    let chosen = std::env::var("BENCH_LAYERS").unwrap_or_else(|_| "timeout,rate,audit".into());
    let has = |layer: &str| chosen.split(',').any(|name| name == layer);
    let mut server = Server::new(server_info!()).tools(tools![add, echo]);
    if has("noop") {
        // The pipeline's own cost: one layer that only passes requests on.
        server = server.layer(middleware::from_fn(|request: Request, next: Next| {
            next.run(request)
        }));
    }
    if has("timeout") {
        server = server.layer(TimeoutLayer::new(Duration::from_secs(60)));
    }
    if has("rate") {
        // Far above what the benchmark sends, so every call is checked and none refused.
        server = server.layer(RateLimitLayer::per_second(1_000_000_000));
    }
    if has("audit") {
        server = server.layer(AuditLogLayer::to_writer(std::io::sink()).buffer(1 << 16));
    }
    server.serve_from_args().await
}
