//! Handlers: the traits tools implement and the conversions of their return values.

mod into_result;
mod tool;

pub use into_result::IntoToolResult;
pub use tool::{BoxFuture, JsonObject, ToolAnnotations, ToolCall, ToolDefinition, ToolHandler};
