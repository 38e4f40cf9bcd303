//! The protocol model: revisions and the revision-independent shapes handlers produce.

mod content;
mod version;

pub use content::{CallToolResult, Content};
pub use version::{ProtocolVersion, UnknownVersion};
