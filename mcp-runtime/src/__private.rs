//! Everything generated code names, and nothing else. Not a public API: it may change in any
//! release. Generated code reaches it only as `::mcp_runtime::__private::...`.

pub use schemars;
pub use serde;
pub use serde_json;

pub use crate::handler::{
    BoxFuture, IntoToolResult, JsonObject, ToolAnnotations, ToolCall, ToolDefinition, ToolHandler,
};
pub use crate::protocol::CallToolResult;
pub use crate::registry::Tools;
