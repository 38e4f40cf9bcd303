//! The calculator's `add` and `echo` behind three layers (an audit log written to a sink, a
//! rate limit no call reaches, a timeout), to measure what a pipeline costs per call against
//! `examples/calculator` (no layers):
//!
//! ```sh
//! cargo build --release -p mcp-bench --example bench-layered
//! cargo run --release -p mcp-bench -- --no-build --pin --server target/release/examples/bench-layered
//! ```

use std::time::Duration;

use mcp_runtime::middleware::{AuditLogLayer, RateLimitLayer, TimeoutLayer};
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
    Server::new(server_info!())
        .tools(tools![add, echo])
        .layer(TimeoutLayer::new(Duration::from_secs(60)))
        // Far above what the benchmark sends, so every call is checked and none refused.
        .layer(RateLimitLayer::per_second(1_000_000_000))
        .layer(AuditLogLayer::to_writer(std::io::sink()).buffer(1 << 16))
        .serve_from_args()
        .await
}
