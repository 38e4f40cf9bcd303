//! What handlers produce: content blocks and tool results, independent of any revision.
//!
//! The dispatcher renders these per negotiated revision (dropping what an older client
//! cannot read), so handlers never think about protocol versions.

use serde_json::Value;

use super::ResourceContents;

/// One block of content in a tool result or prompt message.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Content {
    /// Plain text.
    Text {
        /// The text itself.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// Base64 of the image bytes.
        data: String,
        /// For example `image/png`.
        mime_type: String,
    },
    /// Audio, base64-encoded (clients from 2025-03-26 on).
    Audio {
        /// Base64 of the audio bytes.
        data: String,
        /// For example `audio/wav`.
        mime_type: String,
    },
    /// The contents of a resource, embedded so the model reads them in place.
    Resource {
        /// The embedded contents.
        resource: ResourceContents,
    },
}

impl Content {
    /// A text block.
    ///
    /// ```
    /// use mcp_runtime::protocol::Content;
    /// assert_eq!(Content::text("hi"), Content::Text { text: "hi".into() });
    /// ```
    pub fn text(text: impl Into<String>) -> Self {
        Content::Text { text: text.into() }
    }
}

/// The outcome of one `tools/call`, before it is rendered for a revision.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallToolResult {
    /// The content blocks, in order.
    pub content: Vec<Content>,
    /// Machine-readable output (clients from 2025-06-18 on).
    pub structured_content: Option<Value>,
    /// `true` when the tool failed: the content then explains the failure to the model.
    pub is_error: bool,
}

impl CallToolResult {
    /// A successful result holding `content`.
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult {
            content,
            structured_content: None,
            is_error: false,
        }
    }

    /// A failed result whose single text block explains why, so the model can correct itself.
    ///
    /// ```
    /// use mcp_runtime::protocol::CallToolResult;
    /// let r = CallToolResult::error("city `Atlantis` is unknown");
    /// assert!(r.is_error);
    /// ```
    pub fn error(message: impl Into<String>) -> Self {
        CallToolResult {
            content: vec![Content::text(message)],
            structured_content: None,
            is_error: true,
        }
    }
}
