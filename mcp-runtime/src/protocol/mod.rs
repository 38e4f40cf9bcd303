//! The protocol model: revisions and the revision-independent shapes handlers produce.

mod completion;
mod content;
mod icon;
pub(crate) mod jsonrpc;
mod meta;
mod prompt;
mod resource;
mod server_info;
mod tool;
pub mod uri_template;
mod version;
pub(crate) mod wire;

pub use completion::Completion;
pub use content::{CallToolResult, Content};
pub use icon::{Icon, IconTheme};
pub use jsonrpc::RequestId;
pub(crate) use meta::key_problem as meta_key_problem;
pub use meta::{Meta, MetaKeyError};
pub use prompt::{GetPromptResult, PromptArgumentDefinition, PromptDefinition, PromptMessage};
pub use resource::{
    Annotations, Resource, ResourceBody, ResourceContents, ResourceDefinition, ResourceTemplate,
    Role,
};
pub use server_info::ServerInfo;
pub use tool::{JsonObject, TaskSupport, ToolAnnotations, ToolDefinition};
pub use uri_template::{TemplatePart, UriTemplate, UriTemplateError, UriVariables};
pub use version::{ProtocolVersion, UnknownVersion};
