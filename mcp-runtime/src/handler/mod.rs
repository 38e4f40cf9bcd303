//! Handlers: the traits tools implement and the conversions of their return values.

mod into_result;
mod params;
mod tool;

pub use into_result::IntoToolResult;
pub use params::{ArgumentDefault, ArgumentError, ArgumentReader, ParamFns, ToolParam, param};
pub use tool::{BoxFuture, JsonObject, ToolAnnotations, ToolCall, ToolDefinition, ToolHandler};
