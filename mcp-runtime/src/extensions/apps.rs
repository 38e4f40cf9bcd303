//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865, revision 2026-01-26): tools that come
//! with an interactive HTML page the host renders in a sandboxed frame.
//!
//! A tool names its page in `_meta.ui.resourceUri` and says who may call it in
//! `_meta.ui.visibility`; the page is a `ui://` resource served as [`MIME_TYPE`], whose
//! `_meta.ui` carries its content security policy ([`Csp`]), the browser features it asks for
//! ([`Permissions`]) and its border preference. `#[mcp_tool(app = "ui://...")]` and
//! `#[mcp_resource("ui://...", app(...))]` write these; [`AppTool`] and [`AppPage`] are the
//! same for builders and hand-written handlers.
//!
//! A server with an app declares the extension by itself, and a tool that names a page the
//! server does not offer stops it at start (or fails to compile, inside one `#[mcp_server]`).
//!
//! ```
//! use mcp_runtime::extensions::apps::{AppPage, AppTool, Csp, Visibility};
//! use serde_json::json;
//!
//! let tool = AppTool::new("ui://weather/forecast").visibility(&[Visibility::Model, Visibility::App]);
//! assert_eq!(
//!     tool.to_value(),
//!     json!({"resourceUri": "ui://weather/forecast", "visibility": ["model", "app"]})
//! );
//! let page = AppPage::new()
//!     .csp(Csp::new().connect_domain("https://api.example.com"))
//!     .prefers_border(true);
//! assert_eq!(
//!     page.to_value(),
//!     json!({"csp": {"connectDomains": ["https://api.example.com"]}, "prefersBorder": true})
//! );
//! ```

use std::borrow::Cow;

use serde_json::{Value, json};

use crate::protocol::JsonObject;

/// The extension's identifier.
pub const EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app page: HTML for MCP Apps.
pub const MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme of app pages.
pub const SCHEME: &str = "ui://";

/// The `_meta` key the extension's entries live under, on tools and on pages.
pub const META_KEY: &str = "ui";

/// Who may call a tool: the model, the app (its page, through the host), or both (the
/// default). Hosts leave a tool without [`Visibility::Model`] out of the model's tool list;
/// the server lists it all the same, since the host needs it for the page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Visibility {
    /// The model sees and calls the tool (`"model"`).
    Model,
    /// The app's page calls it through the host (`"app"`).
    App,
}

impl Visibility {
    /// Its name on the wire.
    pub const fn as_str(self) -> &'static str {
        match self {
            Visibility::Model => "model",
            Visibility::App => "app",
        }
    }
}

/// A tool's `_meta.ui`: the page that renders its results, and who may call it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppTool {
    resource_uri: Option<Cow<'static, str>>,
    visibility: Vec<Visibility>,
}

impl AppTool {
    /// A tool whose results the page at `resource_uri` (a `ui://` resource) renders.
    pub fn new(resource_uri: impl Into<Cow<'static, str>>) -> Self {
        AppTool {
            resource_uri: Some(resource_uri.into()),
            visibility: Vec::new(),
        }
    }

    /// A tool with no page of its own, only a visibility (an app-only helper a page calls).
    pub fn without_page() -> Self {
        AppTool {
            resource_uri: None,
            visibility: Vec::new(),
        }
    }

    /// Who may call it; not set (or empty) is the spec's default, both.
    pub fn visibility(mut self, visibility: &[Visibility]) -> Self {
        self.visibility = visibility.to_vec();
        self
    }

    /// The entry as sent under `_meta.ui`.
    pub fn to_value(&self) -> Value {
        let mut object = JsonObject::new();
        if let Some(uri) = &self.resource_uri {
            object.insert("resourceUri".into(), Value::String(uri.to_string()));
        }
        if !self.visibility.is_empty() {
            let names = self.visibility.iter().map(|v| json!(v.as_str())).collect();
            object.insert("visibility".into(), Value::Array(names));
        }
        Value::Object(object)
    }
}

/// The origins an app page may reach, from which the host builds its Content-Security-Policy.
/// Empty (the default) is the spec's restrictive policy: no outside origin at all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Csp {
    connect_domains: Vec<Cow<'static, str>>,
    resource_domains: Vec<Cow<'static, str>>,
    frame_domains: Vec<Cow<'static, str>>,
    base_uri_domains: Vec<Cow<'static, str>>,
}

impl Csp {
    /// No outside origin.
    pub fn new() -> Self {
        Csp::default()
    }

    /// One more origin for `fetch`, XHR and WebSockets (`connectDomains`, CSP `connect-src`).
    pub fn connect_domain(mut self, origin: impl Into<Cow<'static, str>>) -> Self {
        self.connect_domains.push(origin.into());
        self
    }

    /// One more origin for scripts, styles, images, fonts and media (`resourceDomains`).
    pub fn resource_domain(mut self, origin: impl Into<Cow<'static, str>>) -> Self {
        self.resource_domains.push(origin.into());
        self
    }

    /// One more origin for nested frames (`frameDomains`, CSP `frame-src`).
    pub fn frame_domain(mut self, origin: impl Into<Cow<'static, str>>) -> Self {
        self.frame_domains.push(origin.into());
        self
    }

    /// One more allowed document base URI (`baseUriDomains`, CSP `base-uri`).
    pub fn base_uri_domain(mut self, origin: impl Into<Cow<'static, str>>) -> Self {
        self.base_uri_domains.push(origin.into());
        self
    }

    fn is_empty(&self) -> bool {
        self == &Csp::default()
    }

    fn to_value(&self) -> Value {
        let mut object = JsonObject::new();
        for (key, origins) in [
            ("connectDomains", &self.connect_domains),
            ("resourceDomains", &self.resource_domains),
            ("frameDomains", &self.frame_domains),
            ("baseUriDomains", &self.base_uri_domains),
        ] {
            if !origins.is_empty() {
                let origins = origins
                    .iter()
                    .map(|o| Value::String(o.to_string()))
                    .collect();
                object.insert(key.into(), Value::Array(origins));
            }
        }
        Value::Object(object)
    }
}

/// Browser features an app page asks the host's frame for; a host may refuse any.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Permissions {
    /// `camera`.
    pub camera: bool,
    /// `microphone`.
    pub microphone: bool,
    /// `geolocation`.
    pub geolocation: bool,
    /// `clipboardWrite` (the `clipboard-write` feature).
    pub clipboard_write: bool,
}

impl Permissions {
    fn is_empty(&self) -> bool {
        self == &Permissions::default()
    }

    fn to_value(self) -> Value {
        let mut object = JsonObject::new();
        for (key, asked) in [
            ("camera", self.camera),
            ("microphone", self.microphone),
            ("geolocation", self.geolocation),
            ("clipboardWrite", self.clipboard_write),
        ] {
            if asked {
                object.insert(key.into(), json!({}));
            }
        }
        Value::Object(object)
    }
}

/// An app page's `_meta.ui`: its security policy and how the host should frame it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AppPage {
    csp: Csp,
    permissions: Permissions,
    domain: Option<Cow<'static, str>>,
    prefers_border: Option<bool>,
}

impl AppPage {
    /// A page that reaches no outside origin, asks for no feature and leaves the border to
    /// the host.
    pub fn new() -> Self {
        AppPage::default()
    }

    /// The origins it may reach.
    pub fn csp(mut self, csp: Csp) -> Self {
        self.csp = csp;
        self
    }

    /// The browser features it asks for.
    pub fn permissions(mut self, permissions: Permissions) -> Self {
        self.permissions = permissions;
        self
    }

    /// A dedicated sandbox origin (its format is the host's; see the host's documentation).
    pub fn domain(mut self, domain: impl Into<Cow<'static, str>>) -> Self {
        self.domain = Some(domain.into());
        self
    }

    /// Whether the host should draw a border and background around it.
    pub fn prefers_border(mut self, prefers: bool) -> Self {
        self.prefers_border = Some(prefers);
        self
    }

    /// The entry as sent under `_meta.ui`.
    pub fn to_value(&self) -> Value {
        let mut object = JsonObject::new();
        if !self.csp.is_empty() {
            object.insert("csp".into(), self.csp.to_value());
        }
        if !self.permissions.is_empty() {
            object.insert("permissions".into(), self.permissions.to_value());
        }
        if let Some(domain) = &self.domain {
            object.insert("domain".into(), Value::String(domain.to_string()));
        }
        if let Some(prefers) = self.prefers_border {
            object.insert("prefersBorder".into(), Value::Bool(prefers));
        }
        Value::Object(object)
    }
}

/// The `_meta.ui` an app page's read contents carry: its definition's, on every item that
/// has none of its own.
pub(crate) fn page_meta(definition: &crate::protocol::ResourceDefinition) -> Option<Value> {
    (definition.mime_type() == Some(MIME_TYPE))
        .then(|| definition.meta().get(META_KEY).cloned())
        .flatten()
}

/// The page a tool's `_meta` names, if it names one.
pub(crate) fn tool_page(meta: &crate::protocol::Meta) -> Option<&str> {
    meta.get(META_KEY)?.get("resourceUri")?.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn field_names_are_the_spec_s() {
        let page = AppPage::new()
            .csp(
                Csp::new()
                    .connect_domain("https://a")
                    .resource_domain("https://b")
                    .frame_domain("https://c")
                    .base_uri_domain("https://d"),
            )
            .permissions(Permissions {
                camera: true,
                clipboard_write: true,
                ..Permissions::default()
            })
            .domain("x.example")
            .prefers_border(false);
        assert_eq!(
            page.to_value(),
            json!({
                "csp": {
                    "connectDomains": ["https://a"],
                    "resourceDomains": ["https://b"],
                    "frameDomains": ["https://c"],
                    "baseUriDomains": ["https://d"],
                },
                "permissions": {"camera": {}, "clipboardWrite": {}},
                "domain": "x.example",
                "prefersBorder": false,
            })
        );
        assert_eq!(AppPage::new().to_value(), json!({}));
        assert_eq!(
            AppTool::without_page()
                .visibility(&[Visibility::App])
                .to_value(),
            json!({"visibility": ["app"]})
        );
    }
}
