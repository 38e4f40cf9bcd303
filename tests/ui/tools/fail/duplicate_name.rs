// Two tools with one name are an error at the second, naming both and the name (at compile time).
use mcp_runtime::{mcp_tool, tools};

/// Round to an integer.
#[mcp_tool]
async fn round(value: f64) -> f64 {
    value.round()
}

/// Round to some digits.
#[mcp_tool(name = "round")]
async fn round_to(value: f64, digits: u8) -> f64 {
    let scale = 10f64.powi(i32::from(digits));
    (value * scale).round() / scale
}

fn main() {
    let _ = tools![round, round_to];
}
