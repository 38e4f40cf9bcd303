// A method taking `self` is an error at `self`: a tool is a free function.
use mcp_runtime::mcp_tool;

struct Calculator;

impl Calculator {
    /// Add.
    #[mcp_tool]
    async fn add(&self, a: f64, b: f64) -> f64 {
        a + b
    }
}

fn main() {}
