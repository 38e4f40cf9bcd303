//! The `_meta` of generated definitions: `meta(...)` entries and the MCP Apps options, whose
//! keys the macros have already checked.

use serde::Serialize;

pub use crate::extensions::apps::Visibility;
use crate::extensions::apps::{AppPage, AppTool, Csp, META_KEY, Permissions};
pub use crate::protocol::Meta;

/// `meta` with `key` (checked by the macro) set to `value`; generated with the value's span,
/// so a value that is not `Serialize` is reported there.
///
/// # Panics
///
/// When `value` cannot be a JSON value (a map with non-string keys): a definition that could
/// never be sent, reported when the server builds its lists.
pub fn meta_entry<T: Serialize + ?Sized>(mut meta: Meta, key: &'static str, value: &T) -> Meta {
    match serde_json::to_value(value) {
        Ok(value) => meta.insert_owned(key, value),
        Err(error) => panic!("the `_meta` entry `{key}` cannot be sent as JSON: {error}"),
    }
    meta
}

/// `meta` with the `ui` entry of `#[mcp_tool(app = "...", visibility(...))]`.
pub fn app_tool_meta(
    mut meta: Meta,
    resource_uri: Option<&'static str>,
    visibility: &[Visibility],
) -> Meta {
    let app = match resource_uri {
        Some(uri) => AppTool::new(uri),
        None => AppTool::without_page(),
    };
    meta.insert_owned(META_KEY, app.visibility(visibility).to_value());
    meta
}

/// What `#[mcp_resource(..., app(...))]` says of its page.
#[derive(Debug, Clone, Copy, Default)]
pub struct AppPageSpec {
    /// `csp(connect_domains = [...])`.
    pub connect_domains: &'static [&'static str],
    /// `csp(resource_domains = [...])`.
    pub resource_domains: &'static [&'static str],
    /// `csp(frame_domains = [...])`.
    pub frame_domains: &'static [&'static str],
    /// `csp(base_uri_domains = [...])`.
    pub base_uri_domains: &'static [&'static str],
    /// `permissions(...)`.
    pub permissions: Permissions,
    /// `domain = "..."`.
    pub domain: Option<&'static str>,
    /// `prefers_border = ...`.
    pub prefers_border: Option<bool>,
}

/// `meta` with the `ui` entry of an app page.
pub fn app_page_meta(mut meta: Meta, spec: AppPageSpec) -> Meta {
    let mut csp = Csp::new();
    for origin in spec.connect_domains {
        csp = csp.connect_domain(*origin);
    }
    for origin in spec.resource_domains {
        csp = csp.resource_domain(*origin);
    }
    for origin in spec.frame_domains {
        csp = csp.frame_domain(*origin);
    }
    for origin in spec.base_uri_domains {
        csp = csp.base_uri_domain(*origin);
    }
    let mut page = AppPage::new().csp(csp).permissions(spec.permissions);
    if let Some(domain) = spec.domain {
        page = page.domain(domain);
    }
    if let Some(prefers) = spec.prefers_border {
        page = page.prefers_border(prefers);
    }
    meta.insert_owned(META_KEY, page.to_value());
    meta
}

/// The permissions of `permissions(camera, ...)`, in a call so generated code does not
/// depend on the struct's fields.
pub const fn app_permissions(
    camera: bool,
    microphone: bool,
    geolocation: bool,
    clipboard_write: bool,
) -> Permissions {
    Permissions {
        camera,
        microphone,
        geolocation,
        clipboard_write,
    }
}
