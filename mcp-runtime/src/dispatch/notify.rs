//! Telling connected clients that something changed: a resource's contents, the list of
//! tools, resources or prompts.

use std::sync::{Arc, OnceLock};

use tokio::sync::broadcast;

use crate::store::{Change, EventBus};

/// Announces changes to the clients of a running server. Cheap to clone; get one from
/// [`Server::notifier`](crate::Server::notifier) before serving.
///
/// Each connection forwards what its client asked for: a legacy client gets
/// `notifications/resources/updated` for the URIs it subscribed to (`resources/subscribe`) and
/// the `list_changed` notifications once initialized; a 2026-07-28 client gets what its
/// `subscriptions/listen` streams opted in to, each tagged with the stream's id. With no client
/// connected (or none interested) an announcement is simply dropped.
///
/// Behind a load balancer, an [`EventBus`] shared by the instances
/// ([`Server::event_bus`](crate::Server::event_bus), or the `redis` feature's
/// [`Server::redis`](crate::Server::redis)) carries each announcement to the clients of every
/// instance, whichever one announced it.
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
    events: broadcast::Sender<Change>,
    /// The other instances, once the server was given a bus.
    bus: Arc<OnceLock<Arc<dyn EventBus>>>,
}

impl Notifier {
    /// Announcements a slow connection may lag behind before it misses some.
    const BACKLOG: usize = 256;

    pub(crate) fn new() -> Self {
        Notifier {
            events: broadcast::channel(Self::BACKLOG).0,
            bus: Arc::default(),
        }
    }

    /// Carry announcements to and from the other instances on `bus`, from now on (the first
    /// bus given stays: a server has one).
    pub(crate) fn connect(&self, bus: Arc<dyn EventBus>) {
        if self.bus.set(bus.clone()).is_err() {
            return;
        }
        let events = self.events.clone();
        bus.on_change(Box::new(move |change| {
            // An error only means no connection is listening right now.
            let _ = events.send(change);
        }));
    }

    /// The contents of the resource at `uri` changed: subscribers should read it again.
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.announce(Change::ResourceUpdated(uri.into()));
    }

    /// The set of resources changed: clients should list them again.
    pub fn resource_list_changed(&self) {
        self.announce(Change::ResourceListChanged);
    }

    /// The set of prompts changed: clients should list them again.
    pub fn prompt_list_changed(&self) {
        self.announce(Change::PromptListChanged);
    }

    /// The set of tools changed (announced by [`Surfaces`](crate::Surfaces) itself).
    pub(crate) fn tool_list_changed(&self) {
        self.announce(Change::ToolListChanged);
    }

    fn announce(&self, event: Change) {
        if let Some(bus) = self.bus.get() {
            bus.publish(event.clone());
        }
        // An error only means no connection is listening right now.
        let _ = self.events.send(event);
    }

    /// A receiver of every announcement from now on, for one connection.
    pub(crate) fn subscribe(&self) -> broadcast::Receiver<Change> {
        self.events.subscribe()
    }
}
