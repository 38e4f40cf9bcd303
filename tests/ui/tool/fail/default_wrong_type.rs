// A default of the wrong type is ONE error, at the default expression.
use mcp_runtime::mcp_tool;

/// Round a number.
#[mcp_tool]
fn round(value: f64, #[arg(default = "zero")] digits: u8) -> f64 {
    value + f64::from(digits)
}

fn main() {
    let _ = mcp_runtime::tools![round];
}
