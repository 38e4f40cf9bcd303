//! The `Server` value users build; every transport serves it.

use std::borrow::Cow;

use crate::registry::Tools;

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
}

impl ServerInfo {
    /// Identity with `name` and `version`.
    pub fn new(name: impl Into<Cow<'static, str>>, version: impl Into<Cow<'static, str>>) -> Self {
        ServerInfo {
            name: name.into(),
            version: version.into(),
            title: None,
        }
    }

    /// The same identity with a human-readable title.
    pub fn with_title(mut self, title: impl Into<Cow<'static, str>>) -> Self {
        self.title = Some(title.into());
        self
    }
}

/// An MCP server: its identity and what it offers. Build it, then serve it on a transport.
#[derive(Debug, Clone)]
pub struct Server {
    pub(crate) info: ServerInfo,
    pub(crate) tools: Tools,
    pub(crate) instructions: Option<String>,
}

impl Server {
    /// A server with this identity and nothing to offer yet.
    pub fn new(info: ServerInfo) -> Self {
        Server {
            info,
            tools: Tools::new(),
            instructions: None,
        }
    }

    /// Offer these tools (replacing any offered before).
    pub fn tools(mut self, tools: Tools) -> Self {
        self.tools = tools;
        self
    }

    /// Instructions that tell the client's model how to use this server.
    pub fn instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }
}
