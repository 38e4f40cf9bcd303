//! The server's identity and capabilities: `initialize` (legacy) and `server/discover` (modern).

use serde::Serialize;

use super::{EmptyObject, ModernResult};
use crate::protocol::ProtocolVersion;
use crate::protocol::ServerInfo;

/// `Implementation`: who the server is. `title` exists from 2025-06-18 on.
#[derive(Debug, Clone, Copy, Serialize)]
pub(crate) struct Implementation<'a> {
    name: &'a str,
    version: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    icons: &'a [crate::protocol::Icon],
}

impl<'a> Implementation<'a> {
    pub(crate) fn new(info: &'a ServerInfo, revision: ProtocolVersion) -> Self {
        Implementation {
            name: &info.name,
            version: &info.version,
            title: info
                .title
                .as_deref()
                .filter(|_| revision >= ProtocolVersion::V2025_06_18),
            // Icons arrived in 2025-11-25.
            icons: if revision >= ProtocolVersion::V2025_11_25 {
                &info.icons
            } else {
                &[]
            },
        }
    }
}

/// `ServerCapabilities`: what this server offers. The same in every revision but for
/// `completions`, which 2024-11-05 lacks (see [`ServerCapabilities::for_revision`]).
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct ServerCapabilities {
    /// Present when the server has tools, or may get some; `listChanged` only when they can
    /// change while serving (`{}` otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) tools: Option<ListChangedCapability>,
    /// Present when the server has resources.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) resources: Option<ResourcesCapability>,
    /// Present when the server has prompts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) prompts: Option<ListChangedCapability>,
    /// Present when some prompt argument or template variable has a completer (2025-03-26 on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) completions: Option<EmptyObject>,
    /// Present when the server may send log messages (`notifications/message`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) logging: Option<EmptyObject>,
    /// Extensions the server takes, for 2026-07-28: those it declares, the tasks extension
    /// when some tool may run as a task, MCP Apps when it has an app.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) extensions: Option<serde_json::Value>,
    /// The same for legacy clients (the legacy schemas leave `capabilities` open, and clients
    /// that render apps look there): all but the tasks extension, which they do not speak.
    #[serde(skip)]
    pub(crate) legacy_extensions: Option<serde_json::Value>,
}

impl ServerCapabilities {
    /// The capabilities as `revision` defines them: 2024-11-05 has no `completions`
    /// capability (its clients may still send `completion/complete`), and legacy clients get
    /// the legacy `extensions`.
    pub(crate) fn for_revision(&self, revision: ProtocolVersion) -> std::borrow::Cow<'_, Self> {
        let no_completions = revision < ProtocolVersion::V2025_03_26 && self.completions.is_some();
        let no_extensions = !revision.is_modern() && self.extensions != self.legacy_extensions;
        if !no_completions && !no_extensions {
            return std::borrow::Cow::Borrowed(self);
        }
        let mut capabilities = self.clone();
        if no_completions {
            capabilities.completions = None;
        }
        if no_extensions {
            capabilities.extensions = capabilities.legacy_extensions.clone();
        }
        std::borrow::Cow::Owned(capabilities)
    }
}

/// `resources` capability: `{subscribe?, listChanged?}`.
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ResourcesCapability {
    /// Clients may subscribe to a resource's updates.
    pub(crate) subscribe: bool,
    /// The server announces changes to the resource list.
    pub(crate) list_changed: bool,
}

/// `{listChanged?}`, the capability shape of prompts (and tools).
#[derive(Debug, Clone, Copy, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ListChangedCapability {
    /// The server announces changes to the list (left out when `false`).
    #[serde(skip_serializing_if = "is_false")]
    pub(crate) list_changed: bool,
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// The result of a legacy `initialize`.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct InitializeResult<'a> {
    protocol_version: &'static str,
    capabilities: &'a ServerCapabilities,
    server_info: Implementation<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
}

impl<'a> InitializeResult<'a> {
    /// The answer that settles a legacy session on `revision`.
    pub(crate) fn new(
        revision: ProtocolVersion,
        info: &'a ServerInfo,
        capabilities: &'a ServerCapabilities,
        instructions: Option<&'a str>,
    ) -> Self {
        debug_assert!(
            !revision.is_modern(),
            "initialize only negotiates legacy revisions"
        );
        InitializeResult {
            protocol_version: revision.as_str(),
            capabilities,
            server_info: Implementation::new(info, revision),
            instructions,
        }
    }
}

/// The result of `server/discover` (2026-07-28).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct DiscoverResult<'a> {
    supported_versions: &'a [&'static str],
    capabilities: &'a ServerCapabilities,
    #[serde(skip_serializing_if = "Option::is_none")]
    instructions: Option<&'a str>,
    #[serde(flatten)]
    modern: ModernResult<'a>,
}

impl<'a> DiscoverResult<'a> {
    pub(crate) fn new(
        supported_versions: &'a [&'static str],
        capabilities: &'a ServerCapabilities,
        instructions: Option<&'a str>,
        modern: ModernResult<'a>,
    ) -> Self {
        DiscoverResult {
            supported_versions,
            capabilities,
            instructions,
            modern,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::protocol::wire::result_meta;

    fn info() -> ServerInfo {
        ServerInfo::new("calc", "0.1.0").with_title("Calculator")
    }

    #[test]
    fn initialize_result_before_2025_06_18_has_no_title() {
        let info = info();
        let caps = ServerCapabilities {
            tools: Some(ListChangedCapability::default()),
            ..ServerCapabilities::default()
        };
        let result = InitializeResult::new(ProtocolVersion::V2025_03_26, &info, &caps, None);
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({
                "protocolVersion": "2025-03-26",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "calc", "version": "0.1.0"}
            })
        );
    }

    #[test]
    fn initialize_result_from_2025_06_18_has_title_and_instructions() {
        let info = info();
        let caps = ServerCapabilities::default();
        let result =
            InitializeResult::new(ProtocolVersion::V2025_11_25, &info, &caps, Some("Be nice."));
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "serverInfo": {"name": "calc", "version": "0.1.0", "title": "Calculator"},
                "instructions": "Be nice."
            })
        );
    }

    #[test]
    fn discover_result_has_every_required_member() {
        let info = info();
        let meta = result_meta(&info);
        let caps = ServerCapabilities {
            tools: Some(ListChangedCapability::default()),
            ..ServerCapabilities::default()
        };
        let versions = ["2026-07-28", "2025-11-25"];
        let result = DiscoverResult::new(
            &versions,
            &caps,
            None,
            ModernResult::cacheable(&meta, Duration::from_secs(60)),
        );
        assert_eq!(
            serde_json::to_value(&result).unwrap(),
            json!({
                "supportedVersions": ["2026-07-28", "2025-11-25"],
                "capabilities": {"tools": {}},
                "resultType": "complete",
                "ttlMs": 60000,
                "cacheScope": "public",
                "_meta": {"io.modelcontextprotocol/serverInfo":
                    {"name": "calc", "version": "0.1.0", "title": "Calculator"}}
            })
        );
    }
}
