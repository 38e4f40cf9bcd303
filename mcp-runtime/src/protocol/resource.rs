//! What resource handlers produce, independent of any revision: the contents of a read, and the
//! annotations and roles shared by resources, templates and prompt messages.

use std::borrow::Cow;

/// Who a message is from, or who a piece of data is meant for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// The human on the client side.
    User,
    /// The model.
    Assistant,
}

impl Role {
    /// The role as it travels on the wire: `"user"` or `"assistant"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Role::User => "user",
            Role::Assistant => "assistant",
        }
    }
}

/// Hints to the client about a resource: who it is for, how important it is, when it changed.
/// Every field is optional; an empty value sends no `annotations` at all.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Annotations {
    /// Who the data is meant for (`[]`: not said).
    pub audience: Cow<'static, [Role]>,
    /// How important the data is, from 0 (entirely optional) to 1 (effectively required).
    pub priority: Option<f64>,
    /// When the data last changed, as an ISO 8601 timestamp (sent to clients from 2025-06-18 on).
    pub last_modified: Option<Cow<'static, str>>,
}

impl Annotations {
    /// No hint.
    pub const NONE: Annotations = Annotations {
        audience: Cow::Borrowed(&[]),
        priority: None,
        last_modified: None,
    };

    /// Whether no hint is set (then no `annotations` object is sent).
    pub fn is_empty(&self) -> bool {
        self.audience.is_empty() && self.priority.is_none() && self.last_modified.is_none()
    }
}

/// The body of one item of a resource read: text, or bytes (sent base64-encoded as `blob`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceBody {
    /// Text, sent as is.
    Text(String),
    /// Binary data, sent base64-encoded.
    Blob(Vec<u8>),
}

/// One item of the contents of a resource: what `resources/read` returns (possibly several of
/// them), and what a prompt message or tool result embeds.
///
/// ```
/// use mcp_runtime::protocol::ResourceContents;
///
/// let page = ResourceContents::text("doc://intro", "# Intro").with_mime_type("text/markdown");
/// assert_eq!(page.uri, "doc://intro");
/// let logo = ResourceContents::blob("file:///logo.png", vec![0x89, b'P', b'N', b'G']);
/// assert!(logo.mime_type.is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContents {
    /// The URI of this item (for a read, usually the URI that was read).
    pub uri: String,
    /// Its MIME type, if known.
    pub mime_type: Option<String>,
    /// The data.
    pub body: ResourceBody,
}

impl ResourceContents {
    /// A text item.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
        }
    }

    /// A binary item, sent base64-encoded.
    pub fn blob(uri: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(bytes.into()),
        }
    }

    /// The same item with a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }
}
