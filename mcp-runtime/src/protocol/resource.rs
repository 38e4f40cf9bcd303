//! What resource handlers produce, independent of any revision: the contents of a read, and the
//! annotations and roles shared by resources, templates and prompt messages.

use std::borrow::Cow;

use super::Icon;
use super::uri_template::UriTemplate;

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
    /// Its `_meta` (sent from 2025-06-18 on): an MCP App page's `ui` entry, or keys of your
    /// own.
    pub meta: super::Meta,
}

impl ResourceContents {
    /// A text item.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Text(text.into()),
            meta: super::Meta::new(),
        }
    }

    /// A binary item, sent base64-encoded.
    pub fn blob(uri: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        ResourceContents {
            uri: uri.into(),
            mime_type: None,
            body: ResourceBody::Blob(bytes.into()),
            meta: super::Meta::new(),
        }
    }

    /// The same item with a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With this `_meta` (sent from 2025-06-18 on), replacing any it had.
    pub fn with_meta(mut self, meta: super::Meta) -> Self {
        self.meta = meta;
        self
    }
}

/// A concrete resource, as `resources/list` shows it: a static resource, or one instance of a
/// template that its lister enumerates.
///
/// ```
/// use mcp_runtime::Resource;
///
/// let readme = Resource::new("doc://readme", "readme")
///     .with_description("What this project is")
///     .with_mime_type("text/markdown");
/// assert_eq!(readme.uri, "doc://readme");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Resource {
    /// Its URI.
    pub uri: Cow<'static, str>,
    /// Its name, for programs (and for display when there is no title).
    pub name: Cow<'static, str>,
    /// A human-readable name (sent from 2025-06-18 on).
    pub title: Option<Cow<'static, str>>,
    /// What it holds, for the model.
    pub description: Option<Cow<'static, str>>,
    /// Its MIME type, if known.
    pub mime_type: Option<Cow<'static, str>>,
    /// Its size in bytes (before any base64 encoding), if known.
    pub size: Option<u64>,
    /// Hints for the client.
    pub annotations: Annotations,
    /// Icons a client may show (sent from 2025-11-25 on).
    pub icons: Vec<Icon>,
    /// Its `_meta` (sent from 2025-06-18 on).
    pub meta: super::Meta,
}

impl Resource {
    /// A resource at `uri` called `name`, with nothing else said about it.
    pub fn new(uri: impl Into<Cow<'static, str>>, name: impl Into<Cow<'static, str>>) -> Self {
        Resource {
            uri: uri.into(),
            name: name.into(),
            title: None,
            description: None,
            mime_type: None,
            size: None,
            annotations: Annotations::NONE,
            icons: Vec::new(),
            meta: super::Meta::new(),
        }
    }

    /// With a human-readable name.
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// With a description.
    pub fn with_description(mut self, description: impl Into<Cow<'static, str>>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// With a MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<Cow<'static, str>>) -> Self {
        self.mime_type = Some(mime_type.into());
        self
    }

    /// With a size in bytes.
    pub fn with_size(mut self, size: u64) -> Self {
        self.size = Some(size);
        self
    }

    /// With annotations.
    pub fn with_annotations(mut self, annotations: Annotations) -> Self {
        self.annotations = annotations;
        self
    }

    /// With one more icon (sent from 2025-11-25 on).
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// With this `_meta` (sent from 2025-06-18 on), replacing any it had.
    pub fn with_meta(mut self, meta: super::Meta) -> Self {
        self.meta = meta;
        self
    }
}

/// A family of resources whose URIs fit a template, as `resources/templates/list` shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ResourceTemplate {
    /// The URI template (RFC 6570).
    pub uri_template: UriTemplate,
    /// Its name.
    pub name: Cow<'static, str>,
    /// A human-readable name (sent from 2025-06-18 on).
    pub title: Option<Cow<'static, str>>,
    /// What the resources hold, for the model.
    pub description: Option<Cow<'static, str>>,
    /// The MIME type of every resource it matches, if they share one.
    pub mime_type: Option<Cow<'static, str>>,
    /// Hints for the client.
    pub annotations: Annotations,
    /// Icons a client may show (sent from 2025-11-25 on).
    pub icons: Vec<Icon>,
    /// Its `_meta` (sent from 2025-06-18 on).
    pub meta: super::Meta,
}

impl ResourceTemplate {
    /// With one more icon (sent from 2025-11-25 on).
    pub fn with_icon(mut self, icon: Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// With this `_meta` (sent from 2025-06-18 on), replacing any it had.
    pub fn with_meta(mut self, meta: super::Meta) -> Self {
        self.meta = meta;
        self
    }
}

/// What a resource handler serves: one URI, or every URI a template matches.
#[derive(Debug, Clone, PartialEq)]
pub enum ResourceDefinition {
    /// One resource at a fixed URI, listed by `resources/list`.
    Static(Resource),
    /// Resources whose URIs fit a template, listed by `resources/templates/list` (and their
    /// instances by `resources/list`, when the handler has a lister).
    Template(ResourceTemplate),
}

impl ResourceDefinition {
    /// The name of the resource or template.
    pub fn name(&self) -> &str {
        match self {
            ResourceDefinition::Static(resource) => &resource.name,
            ResourceDefinition::Template(template) => &template.name,
        }
    }

    /// Its `_meta`.
    pub fn meta(&self) -> &super::Meta {
        match self {
            ResourceDefinition::Static(resource) => &resource.meta,
            ResourceDefinition::Template(template) => &template.meta,
        }
    }

    pub(crate) fn meta_mut(&mut self) -> &mut super::Meta {
        match self {
            ResourceDefinition::Static(resource) => &mut resource.meta,
            ResourceDefinition::Template(template) => &mut template.meta,
        }
    }

    /// The MIME type declared for what it serves.
    pub fn mime_type(&self) -> Option<&str> {
        match self {
            ResourceDefinition::Static(resource) => resource.mime_type.as_deref(),
            ResourceDefinition::Template(template) => template.mime_type.as_deref(),
        }
    }
}
