//! The protocol model: revisions and the revision-independent shapes handlers produce.

mod completion;
mod content;
mod icon;
pub(crate) mod jsonrpc;
mod prompt;
mod resource;
mod version;
pub(crate) mod wire;

pub use completion::Completion;
pub use content::{CallToolResult, Content};
pub use icon::{Icon, IconTheme};
pub use prompt::{GetPromptResult, PromptMessage};
pub use resource::{Annotations, ResourceBody, ResourceContents, Role};
pub use version::{ProtocolVersion, UnknownVersion};
