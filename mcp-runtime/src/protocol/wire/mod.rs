//! What MCP results look like on the wire in each revision.
//!
//! Handlers produce revision-independent values (`ToolDefinition`, `CallToolResult`); the types
//! here borrow them and serialize exactly the members the negotiated revision defines, so an
//! older client never meets a member its schema lacks and a 2026-07-28 client always gets the
//! members its schema requires.

mod call_result;
mod completion;
mod content;
mod lifecycle;
mod modern;
pub(crate) mod notification;
mod prompt;
mod resource;
mod tool;

pub(crate) use call_result::{CallToolResultWire, write_text};
pub(crate) use completion::CompleteResult;
pub(crate) use lifecycle::{
    DiscoverResult, InitializeResult, ListChangedCapability, ResourcesCapability,
    ServerCapabilities,
};
pub(crate) use modern::{InputRequiredResult, ModernResult, legacy_meta, result_meta};

/// A definition's or contents' `_meta`, for `revision`: from 2025-06-18 on, when not empty.
pub(crate) fn definition_meta(
    meta: &crate::protocol::Meta,
    revision: crate::protocol::ProtocolVersion,
) -> Option<&crate::protocol::JsonObject> {
    (revision >= crate::protocol::ProtocolVersion::V2025_06_18 && !meta.is_empty())
        .then(|| meta.as_object())
}
pub(crate) use prompt::{GetPromptResultWire, ListPromptsResult};
pub(crate) use resource::base64;
pub(crate) use resource::{ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult};
pub(crate) use tool::ListToolsResult;

/// Serialize-only helper: `{}`.
#[derive(Debug, Clone, Copy, Default, serde::Serialize)]
pub(crate) struct EmptyObject {}
