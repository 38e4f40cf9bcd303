// Tools may be `pub`, live in modules, and be listed by path; the function stays callable.
#![deny(warnings, missing_docs)]
//! A crate with public tools.

/// The tools.
pub mod math {
    use mcp_runtime::mcp_tool;

    /// Multiply two numbers.
    #[mcp_tool]
    pub async fn multiply(a: i64, b: i64) -> i64 {
        a * b
    }

    /// Negate a number.
    #[mcp_tool]
    pub(crate) fn negate(a: i64) -> i64 {
        -a
    }
}

fn main() {
    let tools = mcp_runtime::tools![math::multiply, math::negate];
    assert_eq!(tools.handlers().len(), 2);
    assert_eq!(math::negate(2), -2);
}
