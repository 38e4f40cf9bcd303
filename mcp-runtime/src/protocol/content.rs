//! What handlers produce: content blocks and tool results, independent of any revision.
//!
//! The dispatcher renders these per negotiated revision (dropping what an older client
//! cannot read), so handlers never think about protocol versions.

use serde_json::Value;

use super::{Annotations, ResourceContents};
use crate::protocol::Resource;

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
    /// A link to a resource the client may read or show (`resource_link`, clients from
    /// 2025-06-18 on; older ones get a text block naming the URI). The resource need not be in
    /// `resources/list`; its own `annotations` are the link's.
    ResourceLink(Resource),
    /// A block with hints for the client: who it is for, how important it is
    /// ([`Content::with_annotations`]).
    Annotated {
        /// The block.
        content: Box<Content>,
        /// The hints (`lastModified` reaches clients from 2025-06-18 on).
        annotations: Annotations,
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

    /// An image from its bytes (sent base64-encoded), of MIME type `mime_type` (`image/png`).
    ///
    /// ```
    /// use mcp_runtime::protocol::Content;
    /// let pixel = Content::image([0x89, b'P', b'N', b'G'], "image/png");
    /// assert_eq!(
    ///     pixel,
    ///     Content::Image { data: "iVBORw==".into(), mime_type: "image/png".into() }
    /// );
    /// ```
    pub fn image(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::Image {
            data: super::wire::base64(bytes.as_ref()),
            mime_type: mime_type.into(),
        }
    }

    /// Audio from its bytes (sent base64-encoded), of MIME type `mime_type` (`audio/wav`).
    /// Clients from 2025-03-26 on get it; 2024-11-05 clients, which cannot, a note instead.
    pub fn audio(bytes: impl AsRef<[u8]>, mime_type: impl Into<String>) -> Self {
        Content::Audio {
            data: super::wire::base64(bytes.as_ref()),
            mime_type: mime_type.into(),
        }
    }

    /// The contents of a resource, embedded.
    pub fn embedded(resource: ResourceContents) -> Self {
        Content::Resource { resource }
    }

    /// A link to `resource` (see [`Content::ResourceLink`]).
    pub fn resource_link(resource: Resource) -> Self {
        Content::ResourceLink(resource)
    }

    /// The same block with `annotations` (replacing any it had). A resource link keeps its
    /// resource's own annotations and ignores these.
    ///
    /// ```
    /// use std::borrow::Cow;
    /// use mcp_runtime::protocol::{Annotations, Content, Role};
    ///
    /// let note = Content::text("for the user only").with_annotations(Annotations {
    ///     audience: Cow::Borrowed(&[Role::User]),
    ///     priority: Some(0.2),
    ///     ..Annotations::NONE
    /// });
    /// # let _ = note;
    /// ```
    pub fn with_annotations(self, annotations: Annotations) -> Self {
        let content = match self {
            Content::Annotated { content, .. } => content,
            content => Box::new(content),
        };
        Content::Annotated {
            content,
            annotations,
        }
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
    /// The result's `_meta` (every revision has it on results): data for an MCP App's page
    /// that is not for the model, or keys of your own.
    pub meta: super::Meta,
}

impl CallToolResult {
    /// A successful result holding `content`.
    pub fn success(content: Vec<Content>) -> Self {
        CallToolResult {
            content,
            structured_content: None,
            is_error: false,
            meta: super::Meta::new(),
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
            meta: super::Meta::new(),
        }
    }

    /// With this `_meta`, replacing any it had.
    ///
    /// ```
    /// use mcp_runtime::protocol::{CallToolResult, Content, Meta};
    ///
    /// let meta = Meta::new().with("com.example/source", "station 12").unwrap();
    /// let result = CallToolResult::success(vec![Content::text("12 °C")]).with_meta(meta);
    /// assert!(!result.meta.is_empty());
    /// ```
    pub fn with_meta(mut self, meta: super::Meta) -> Self {
        self.meta = meta;
        self
    }
}
