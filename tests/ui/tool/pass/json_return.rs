// `Json<T>` (also inside `Result`) is a return type and gives the tool an `outputSchema`; `icon` sets its icon.
use mcp_runtime::{Json, handler::ToolHandler, mcp_tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Sum {
    total: f64,
}

/// Add.
#[mcp_tool]
fn add(a: f64, b: f64) -> Json<Sum> {
    Json(Sum { total: a + b })
}

/// Divide.
#[mcp_tool(icon = "https://example.com/divide.svg")]
async fn divide(a: f64, b: f64) -> Result<Json<Sum>, String> {
    if b == 0.0 {
        return Err("division by zero".into());
    }
    Ok(Json(Sum { total: a / b }))
}

fn main() {
    let _ = mcp_runtime::tools![add, divide];
    assert!(add {}.definition().output_schema.is_some());
    assert!(divide {}.definition().output_schema.is_some());
    assert_eq!(divide {}.definition().icons[0].src, "https://example.com/divide.svg");
}
