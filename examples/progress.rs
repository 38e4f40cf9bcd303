//! Long-running tools that keep the client informed: progress notifications, log messages, and
//! the heartbeat the server sends by itself while a tool runs without reporting.
//!
//! ```text
//! cargo run --example progress
//! ```
//!
//! `PROGRESS_HEARTBEAT_MS` sets the heartbeat period (`0`: off; default 10 s).
//! `PROGRESS_FORWARD_TRACING=1` also sends the tools' `tracing` events to the client
//! (`Server::forward_tracing`).

use std::time::Duration;

use mcp_runtime::{LogLevel, RequestContext, Server, mcp_tool, server_info, tools};

/// Count to `to`, one step every `step_ms` milliseconds, reporting each step.
///
/// # Arguments
///
/// * `to` - Where to stop.
/// * `step_ms` - Milliseconds between steps.
#[mcp_tool(annotations(read_only))]
async fn count(to: u32, step_ms: u64, ctx: RequestContext) -> String {
    ctx.log(LogLevel::Debug, format!("counting to {to}"));
    // On stderr; also to the client when the server forwards `tracing` events.
    tracing::info!(to, "counting");
    for step in 1..=to {
        tokio::time::sleep(Duration::from_millis(step_ms)).await;
        ctx.progress(
            f64::from(step),
            Some(f64::from(to)),
            Some(&format!("step {step} of {to}")),
        );
        // Out of order on purpose: a value not above the last one is never sent.
        ctx.progress(f64::from(step) - 0.5, Some(f64::from(to)), None);
    }
    ctx.log(
        LogLevel::Info,
        serde_json::json!({"event": "counted", "to": to}),
    );
    format!("counted to {to}")
}

/// Wait `ms` milliseconds without reporting anything: the server's heartbeat keeps the client
/// waiting.
#[mcp_tool(annotations(read_only))]
async fn wait(ms: u64) -> String {
    tokio::time::sleep(Duration::from_millis(ms)).await;
    format!("waited {ms} ms")
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let heartbeat = match std::env::var("PROGRESS_HEARTBEAT_MS") {
        Ok(ms) => ms
            .parse()
            .ok()
            .map(Duration::from_millis)
            .filter(|every| !every.is_zero()),
        Err(_) => Some(Server::DEFAULT_PROGRESS_HEARTBEAT),
    };
    let forward_tracing = std::env::var("PROGRESS_FORWARD_TRACING").is_ok_and(|on| on == "1");
    Server::new(server_info!())
        .trace_from_env()
        .progress_heartbeat(heartbeat)
        .forward_tracing(forward_tracing)
        .tools(tools![count, wait])
        .serve_stdio()
        .await
}
