#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub use mcp_macros::{mcp_tool, tools};

mod context;
mod dispatch;
mod handler;
pub mod protocol;
mod registry;
mod schema;
mod server;
mod session;
mod transport;

#[doc(hidden)]
pub mod __private;

pub use context::{CancellationToken, RequestContext};
pub use handler::{
    ArgumentDefault, ArgumentError, BoxFuture, IntoToolResult, JsonObject, ToolAnnotations,
    ToolCall, ToolDefinition, ToolHandler, ToolParam,
};
pub use protocol::{CallToolResult, Content};
pub use registry::Tools;
pub use server::{Server, ServerInfo};

/// The calling crate's identity (`CARGO_PKG_NAME`, `CARGO_PKG_VERSION`) as a [`ServerInfo`].
///
/// ```
/// let info = mcp_runtime::server_info!();
/// assert_eq!(info.name, "mcp-runtime");
/// ```
#[macro_export]
macro_rules! server_info {
    () => {
        $crate::ServerInfo::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION"))
    };
}
