//! The protocol model: revisions and the revision-independent shapes handlers produce.

mod content;
pub(crate) mod jsonrpc;
mod version;
pub(crate) mod wire;

pub use content::{CallToolResult, Content};
pub use version::{ProtocolVersion, UnknownVersion};
