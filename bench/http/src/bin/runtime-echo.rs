//! This runtime's Streamable HTTP server, as the HTTP benchmark measures it: `echo`, and
//! `wait` (a task that runs until cancelled, for the memory of running tasks).
//!
//! `runtime-echo ADDR [--redis URL]`: with `--redis`, the shared stores on that Redis (the
//! benchmark's "Redis stores" column). The limits are raised past what the benchmark opens (10,000 idle
//! sessions from one address, 256 connections and more); everything else is the default
//! `HttpConfig`, so the Host and Origin checks, the body limits and the timeouts all run.

use std::time::Duration;

use mcp_runtime::http::HttpConfig;
use mcp_runtime::redis::RedisStore;
use mcp_runtime::{RequestContext, Server, mcp_tool, server_info, tools};

/// Repeat the text back, unchanged.
///
/// # Arguments
/// * `text` - what to echo
#[mcp_tool(annotations(read_only))]
async fn echo(text: String) -> String {
    text
}

/// Run as a task until cancelled.
#[mcp_tool(task)]
async fn wait(ctx: RequestContext) -> String {
    ctx.start_task().await;
    ctx.cancellation.cancelled().await;
    "cancelled".to_owned()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:8080".to_owned());
    let redis = match (args.next().as_deref(), args.next()) {
        (Some("--redis"), Some(url)) => Some(url),
        (None, _) => None,
        _ => {
            return Err(std::io::Error::other(
                "usage: runtime-echo ADDR [--redis URL]",
            ));
        }
    };
    let config = HttpConfig::new()
        .max_sessions(50_000)
        .max_sessions_per_client(50_000)
        .max_connections(4096)
        .max_connections_per_address(4096)
        .session_idle_timeout(Duration::from_secs(3600));
    let mut server = Server::new(server_info!()).tools(tools![echo, wait]);
    if let Some(url) = redis {
        let store = RedisStore::open(&url).map_err(std::io::Error::other)?;
        server = server.redis(&store);
    }
    server.serve_http_with(addr, config).await
}
