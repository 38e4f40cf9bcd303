//! The server's identity, as `initialize` and `server/discover` send it.

use std::borrow::Cow;

/// The server's identity, sent to clients as `serverInfo`. `server_info!()` fills it from the
/// calling crate's `Cargo.toml`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerInfo {
    /// The programmatic name.
    pub name: Cow<'static, str>,
    /// The version string.
    pub version: Cow<'static, str>,
    /// A human-readable name (2025-06-18 on).
    pub title: Option<Cow<'static, str>>,
    /// Icons a client may show for the server (2025-11-25 on).
    pub icons: Vec<super::Icon>,
}

impl ServerInfo {
    /// Identity with `name` and `version`.
    pub fn new(name: impl Into<Cow<'static, str>>, version: impl Into<Cow<'static, str>>) -> Self {
        ServerInfo {
            name: name.into(),
            version: version.into(),
            title: None,
            icons: Vec::new(),
        }
    }

    /// The same identity with one more icon (sent to clients from 2025-11-25 on).
    pub fn with_icon(mut self, icon: super::Icon) -> Self {
        self.icons.push(icon);
        self
    }

    /// The same identity with a human-readable title.
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }
}
