//! Protocol extensions: optional features a server and a client each declare in
//! `capabilities.extensions`, keyed by the extension's identifier, with its settings.
//!
//! A server declares one with [`Server::extension`](crate::Server::extension); the runtime
//! declares those it implements by itself: [`TASKS`] when a tool may run as a task (to
//! 2026-07-28 clients, the only ones that speak it), [`apps::EXTENSION`] when the server has an
//! MCP App. The declaration goes in `server/discover` and in the legacy `initialize` result
//! (whose schemas leave `capabilities` open for it).
//!
//! Whether the client of a request declared one is
//! [`RequestContext::client_extension`](crate::RequestContext::client_extension): from the
//! request's own capabilities in 2026-07-28, from `initialize` in a legacy session.
//!
//! ```
//! use mcp_runtime::extensions::Extension;
//! use mcp_runtime::{Server, server_info};
//!
//! let server = Server::new(server_info!())
//!     .extension(Extension::new("com.example/audit").with_setting("retentionDays", 30));
//! # let _ = server;
//! ```

pub mod apps;

use std::borrow::Cow;

use serde_json::Value;

use crate::protocol::JsonObject;

/// The identifier of the tasks extension (2026-07-28): tool calls that become tasks.
pub const TASKS: &str = "io.modelcontextprotocol/tasks";

/// An extension a server declares: its identifier and settings (`{}` when it has none).
#[derive(Debug, Clone, PartialEq)]
pub struct Extension {
    id: Cow<'static, str>,
    settings: JsonObject,
    /// Whether legacy clients are told of it too: every extension but tasks, whose legacy
    /// shape (2025-11-25's `tasks` capability) is another thing the runtime does not serve.
    legacy: bool,
}

impl Extension {
    /// The extension `id` (a prefix, `/`, a name: `com.example/audit`), without settings.
    /// An identifier the naming rules reject stops the server at start, naming it.
    pub fn new(id: impl Into<Cow<'static, str>>) -> Self {
        Extension {
            id: id.into(),
            settings: JsonObject::new(),
            legacy: true,
        }
    }

    /// With the setting `key` set to `value`.
    pub fn with_setting(mut self, key: impl Into<String>, value: impl Into<Value>) -> Self {
        self.settings.insert(key.into(), value.into());
        self
    }

    /// Its identifier.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Its settings.
    pub fn settings(&self) -> &JsonObject {
        &self.settings
    }

    /// The tasks extension, declared to 2026-07-28 clients only.
    #[cfg_attr(not(any(feature = "tasks", test)), allow(dead_code))]
    pub(crate) fn tasks() -> Self {
        Extension {
            legacy: false,
            ..Extension::new(TASKS)
        }
    }

    /// Why its identifier cannot be declared, if it cannot: the schema wants a `_meta`-style
    /// key with a mandatory prefix.
    pub(crate) fn id_problem(&self) -> Option<String> {
        let Some((prefix, name)) = self.id.rsplit_once('/') else {
            return Some(format!(
                "the extension identifier `{}` has no prefix: write it like `com.example/{}`",
                self.id, self.id
            ));
        };
        // Reserved prefixes are what official extensions use, so only the shape is checked.
        let probe = format!("com.example/{name}");
        let labels_ok = prefix.split('.').all(|label| {
            let bytes = label.as_bytes();
            bytes.first().is_some_and(u8::is_ascii_alphabetic)
                && bytes.last().is_some_and(u8::is_ascii_alphanumeric)
                && bytes
                    .iter()
                    .all(|b| b.is_ascii_alphanumeric() || *b == b'-')
        });
        if !labels_ok || name.is_empty() || crate::protocol::meta_key_problem(&probe).is_some() {
            return Some(format!(
                "the extension identifier `{}` does not follow the `_meta` key rules (dot-separated \
                 labels, `/`, then a name of letters, digits, `-`, `_` or `.`)",
                self.id
            ));
        }
        None
    }
}

/// The extensions a server declares, in order, each identifier once (a later declaration
/// replaces an earlier one).
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Declared(Vec<Extension>);

impl Declared {
    /// Declare `extension`, replacing one with its identifier.
    pub(crate) fn declare(&mut self, extension: Extension) {
        match self.0.iter_mut().find(|known| known.id == extension.id) {
            Some(known) => *known = extension,
            None => self.0.push(extension),
        }
    }

    /// Declare `extension` unless the server already declares its identifier (with settings
    /// of its own, which win).
    pub(crate) fn declare_default(&mut self, extension: Extension) {
        if !self.0.iter().any(|known| known.id == extension.id) {
            self.0.push(extension);
        }
    }

    /// The first identifier that cannot be declared, and why.
    pub(crate) fn problem(&self) -> Option<String> {
        self.0.iter().find_map(Extension::id_problem)
    }

    /// `capabilities.extensions` for a modern client (`legacy` false) or a legacy one; `None`
    /// when it would be empty.
    pub(crate) fn capability(&self, legacy: bool) -> Option<Value> {
        let object: JsonObject = self
            .0
            .iter()
            .filter(|extension| !legacy || extension.legacy)
            .map(|extension| {
                (
                    extension.id.to_string(),
                    Value::Object(extension.settings.clone()),
                )
            })
            .collect();
        (!object.is_empty()).then_some(Value::Object(object))
    }
}

/// The settings `capabilities` (a `ClientCapabilities` object) declares for the extension `id`.
pub(crate) fn declared_in<'a>(capabilities: &'a Value, id: &str) -> Option<&'a JsonObject> {
    capabilities
        .get("extensions")
        .and_then(|extensions| extensions.get(id))
        .and_then(Value::as_object)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn identifiers_need_a_prefix_and_valid_labels() {
        for good in ["com.example/audit", "io.modelcontextprotocol/ui", "x/y-z.1"] {
            assert_eq!(Extension::new(good).id_problem(), None, "{good}");
        }
        for bad in [
            "audit",
            "com..example/x",
            "com.example/",
            "com.example/-x",
            "1x/y",
        ] {
            assert!(Extension::new(bad).id_problem().is_some(), "{bad}");
        }
    }

    #[test]
    fn legacy_clients_are_not_told_of_tasks() {
        let mut declared = Declared::default();
        declared.declare(Extension::tasks());
        declared.declare(Extension::new("com.example/a").with_setting("n", 1));
        assert_eq!(
            declared.capability(false),
            Some(json!({"io.modelcontextprotocol/tasks": {}, "com.example/a": {"n": 1}}))
        );
        assert_eq!(
            declared.capability(true),
            Some(json!({"com.example/a": {"n": 1}}))
        );
        let mut only_tasks = Declared::default();
        only_tasks.declare(Extension::tasks());
        assert_eq!(only_tasks.capability(true), None);
    }

    #[test]
    fn the_server_s_own_settings_win_over_the_runtime_s() {
        let mut declared = Declared::default();
        declared.declare(Extension::new(apps::EXTENSION).with_setting("x", true));
        declared.declare_default(Extension::new(apps::EXTENSION));
        assert_eq!(
            declared.capability(true),
            Some(json!({apps::EXTENSION: {"x": true}}))
        );
    }

    #[test]
    fn a_client_declares_an_extension_with_an_object() {
        let capabilities = json!({"extensions": {"io.modelcontextprotocol/ui":
            {"mimeTypes": ["text/html;profile=mcp-app"]}, "com.example/bad": true}});
        assert!(declared_in(&capabilities, apps::EXTENSION).is_some());
        assert!(declared_in(&capabilities, "com.example/bad").is_none());
        assert!(declared_in(&json!({}), apps::EXTENSION).is_none());
    }
}
