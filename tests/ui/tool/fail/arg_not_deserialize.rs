// An argument type without `Deserialize`/`JsonSchema` is ONE error, at the type, saying what to derive.
use mcp_runtime::mcp_tool;

struct Point {
    x: f64,
    y: f64,
}

/// Measure a point's distance from the origin.
#[mcp_tool]
async fn norm(point: Point) -> f64 {
    (point.x * point.x + point.y * point.y).sqrt()
}

fn main() {
    let _ = mcp_runtime::tools![norm];
}
