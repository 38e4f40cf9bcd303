//! Telling connected clients that something changed: a resource's contents, the list of
//! tools, resources or prompts.

use tokio::sync::broadcast;

/// What changed, as a [`Notifier`] announces it to every connection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ServerEvent {
    /// The contents at this URI changed.
    ResourceUpdated(String),
    /// Resources were added or removed (what `resources/list` shows changed).
    ResourceListChanged,
    /// Prompts were added or removed.
    PromptListChanged,
    /// Tools were added or removed (only through [`Surfaces`](crate::Surfaces), so only
    /// servers that handed theirs out announce it).
    ToolListChanged,
}

/// Announces changes to the clients of a running server. Cheap to clone; get one from
/// [`Server::notifier`](crate::Server::notifier) before serving.
///
/// Each connection forwards what its client asked for: a legacy client gets
/// `notifications/resources/updated` for the URIs it subscribed to (`resources/subscribe`) and
/// the `list_changed` notifications once initialized; a 2026-07-28 client gets what its
/// `subscriptions/listen` streams opted in to, each tagged with the stream's id. With no client
/// connected (or none interested) an announcement is simply dropped.
///
/// ```no_run
/// use mcp_runtime::{Server, server_info};
///
/// # async fn run() -> std::io::Result<()> {
/// let server = Server::new(server_info!());
/// let notifier = server.notifier();
/// tokio::spawn(async move {
///     // ... when the file behind `file:///notes.md` changes:
///     notifier.resource_updated("file:///notes.md");
/// });
/// server.serve_stdio().await
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct Notifier {
    events: broadcast::Sender<ServerEvent>,
}

impl Notifier {
    /// Announcements a slow connection may lag behind before it misses some.
    const BACKLOG: usize = 256;

    pub(crate) fn new() -> Self {
        Notifier {
            events: broadcast::channel(Self::BACKLOG).0,
        }
    }

    /// The contents of the resource at `uri` changed: subscribers should read it again.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.announce(ServerEvent::ResourceUpdated(uri.into()));
    }

    /// The set of resources changed: clients should list them again.
    pub fn resource_list_changed(&self) {
        self.announce(ServerEvent::ResourceListChanged);
    }

    /// The set of prompts changed: clients should list them again.
    pub fn prompt_list_changed(&self) {
        self.announce(ServerEvent::PromptListChanged);
    }

    /// The set of tools changed (announced by [`Surfaces`](crate::Surfaces) itself).
    pub(crate) fn tool_list_changed(&self) {
        self.announce(ServerEvent::ToolListChanged);
    }

    fn announce(&self, event: ServerEvent) {
        // An error only means no connection is listening right now.
        let _ = self.events.send(event);
    }

    /// A receiver of every announcement from now on, for one connection.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<ServerEvent> {
        self.events.subscribe()
    }
}
