//! A calculator MCP server over stdio: the README's first example.
//!
//! Run it with `cargo run --example calculator`; from a terminal it explains how to connect a
//! client, from a client it speaks MCP on stdin/stdout. With `-- --http 127.0.0.1:8080` it
//! serves Streamable HTTP at `http://127.0.0.1:8080/mcp` instead.

use mcp_runtime::{Server, mcp_tool, server_info, tools};
use schemars::JsonSchema;
use serde::Deserialize;

/// Add two numbers.
///
/// # Arguments
/// * `a` - the first addend
/// * `b` - the second addend
#[mcp_tool(annotations(read_only, idempotent))]
async fn add(a: f64, b: f64) -> f64 {
    a + b
}

/// Divide one number by another.
///
/// # Arguments
/// * `dividend` - the number to divide
#[mcp_tool(title = "Divide", annotations(read_only, idempotent))]
async fn divide(
    dividend: f64,
    #[arg(description = "the number to divide by; must not be zero")] divisor: f64,
) -> Result<f64, String> {
    if divisor == 0.0 {
        return Err("cannot divide by zero: `divisor` must not be 0".to_owned());
    }
    Ok(dividend / divisor)
}

/// Repeat the text back, unchanged.
///
/// # Arguments
/// * `text` - what to echo
#[mcp_tool(annotations(read_only))]
async fn echo(text: String) -> String {
    text
}

/// Round a number to a number of decimal places. Runs on the blocking pool, being a plain fn.
///
/// # Arguments
/// * `value` - the number to round
/// * `digits` - how many decimal places to keep
#[mcp_tool(name = "round", annotations(read_only, idempotent))]
fn round_to(value: f64, #[arg(default = 0)] digits: u8) -> f64 {
    let scale = 10f64.powi(i32::from(digits.min(15)));
    (value * scale).round() / scale
}

/// Which statistic `statistic` computes.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
enum Measure {
    /// The arithmetic mean.
    Mean,
    /// The middle value.
    Median,
    /// The smallest value.
    Min,
    /// The largest value.
    Max,
}

/// Compute a statistic over a list of numbers.
///
/// # Arguments
/// * `values` - the numbers; at least one
/// * `measure` - which statistic to compute (default: mean)
#[mcp_tool(annotations(read_only, idempotent))]
async fn statistic(values: Vec<f64>, measure: Option<Measure>) -> Result<f64, String> {
    if values.is_empty() {
        return Err("`values` must hold at least one number".to_owned());
    }
    let mut sorted = values;
    sorted.sort_by(f64::total_cmp);
    Ok(match measure.unwrap_or(Measure::Mean) {
        Measure::Mean => sorted.iter().sum::<f64>() / sorted.len() as f64,
        Measure::Median => {
            let mid = sorted.len() / 2;
            if sorted.len() % 2 == 0 {
                (sorted[mid - 1] + sorted[mid]) / 2.0
            } else {
                sorted[mid]
            }
        }
        Measure::Min => sorted[0],
        Measure::Max => sorted[sorted.len() - 1],
    })
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Server::new(server_info!())
        .trace_from_env()
        .instructions("Arithmetic tools: add, divide, round, statistic, and echo.")
        .tools(tools![add, divide, echo, round_to, statistic])
        .serve_from_args()
        .await
}
