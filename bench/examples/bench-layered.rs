//! The calculator's `add` and `echo` behind three layers (an audit log written to a sink, a
//! rate limit no call reaches, a timeout), to measure what a pipeline costs per call against
//! `examples/calculator` (no layers):
//!
//! ```sh
//! cargo build --release -p mcp-bench --example bench-layered
//! cargo run --release -p mcp-bench -- --no-build --pin --server target/release/examples/bench-layered
//! ```
//!
//! `BENCH_LAYERS=trace` traces every message instead (`Server::trace`): spans through the
//! OpenTelemetry SDK's batch processor to an exporter that drops them, and the duration
//! histogram and counters aggregated and read every minute by an exporter that drops them: the
//! cost of tracing on the server, without the network's.

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

/// Drops every span it is given.
#[derive(Debug)]
struct Sink;

impl opentelemetry_sdk::trace::SpanExporter for Sink {
    async fn export(
        &self,
        batch: Vec<opentelemetry_sdk::trace::SpanData>,
    ) -> opentelemetry_sdk::error::OTelSdkResult {
        drop(std::hint::black_box(batch));
        Ok(())
    }
}

impl opentelemetry_sdk::metrics::exporter::PushMetricExporter for Sink {
    async fn export(
        &self,
        metrics: &opentelemetry_sdk::metrics::data::ResourceMetrics,
    ) -> opentelemetry_sdk::error::OTelSdkResult {
        std::hint::black_box(metrics);
        Ok(())
    }

    fn force_flush(&self) -> opentelemetry_sdk::error::OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(
        &self,
        _: std::time::Duration,
    ) -> opentelemetry_sdk::error::OTelSdkResult {
        Ok(())
    }

    fn temporality(&self) -> opentelemetry_sdk::metrics::Temporality {
        opentelemetry_sdk::metrics::Temporality::Cumulative
    }
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
    if has("trace") {
        let spans = opentelemetry_sdk::trace::SdkTracerProvider::builder()
            .with_batch_exporter(Sink)
            .build();
        let metrics = opentelemetry_sdk::metrics::SdkMeterProvider::builder()
            .with_periodic_exporter(Sink)
            .build();
        server = server.trace(
            mcp_runtime::middleware::TraceLayer::new()
                .with_tracer_provider(spans)
                .with_meter_provider(&metrics),
        );
    }
    if has("audit") {
        server = server.layer(AuditLogLayer::to_writer(std::io::sink()).buffer(1 << 16));
    }
    server.serve_from_args().await
}
