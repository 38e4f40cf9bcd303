//! Change notifications, in both eras.
//!
//! * Legacy: `resources/subscribe` records a URI in the connection's [`Subscriptions`]; an
//!   announcement ([`Notifier`](crate::Notifier)) then becomes `notifications/resources/updated`
//!   for subscribed URIs, and `notifications/{tools,resources,prompts}/list_changed` for any
//!   initialized session (tools only when they can change: see [`Surfaces`](crate::Surfaces)).
//! * 2026-07-28: `subscriptions/listen` opens a stream: the acknowledgement (what the server
//!   will send of what was asked) goes out first, then every matching announcement tagged with
//!   `_meta["io.modelcontextprotocol/subscriptionId"]` (the listen request's id), until the
//!   client cancels the request (nothing more is sent) or the server shuts down (the stream ends
//!   with a `SubscriptionsListenResult`).
//!
//! A transport runs one [`NotificationForwarder`] per connection, beside the loop that reads
//! requests, and writes whatever it yields: acknowledgements and notifications leave in the
//! order they were decided.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::{Map, Value};
use tokio::sync::{Notify, broadcast};

use super::run::Run;
use super::{Dispatcher, Reply};
use crate::cancel::CancellationToken;
use crate::dispatch::session::Session;
use crate::handler::{BoxFuture, JsonObject};
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};
use crate::protocol::wire::notification;
use crate::store::Change;

/// One connection's subscriptions: legacy subscribed URIs, open listen streams, and the
/// acknowledgements waiting to be sent. Cheap to clone; clones share the state.
#[derive(Debug, Clone, Default)]
pub(crate) struct Subscriptions {
    shared: Arc<Shared>,
}

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    /// Woken when an acknowledgement is queued.
    queued: Notify,
}

#[derive(Debug, Default)]
struct State {
    /// Whether a legacy session completed its handshake: before that only pings and logs
    /// may be sent.
    legacy_initialized: bool,
    /// URIs subscribed with legacy `resources/subscribe`.
    uris: BTreeSet<String>,
    /// How many times `uris` changed, so a shared session sees a change without comparing sets.
    uri_changes: u64,
    /// Open 2026-07-28 listen streams.
    streams: Vec<Stream>,
    /// Acknowledgements of new listen streams, to send before anything else of theirs.
    outbox: Vec<Outgoing>,
}

#[derive(Debug)]
struct Stream {
    id: RequestId,
    filter: Filter,
    /// Fired by `notifications/cancelled` for the listen request.
    cancelled: CancellationToken,
    /// Fired when the server closes the stream (shutdown).
    closed: CancellationToken,
}

/// What one listen stream carries (only what the server honored).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Filter {
    tools_list: bool,
    resources_list: bool,
    prompts_list: bool,
    uris: BTreeSet<String>,
}

impl Filter {
    fn wants(&self, event: &Change) -> bool {
        match event {
            Change::ResourceUpdated(uri) => self.uris.contains(uri),
            Change::ResourceListChanged => self.resources_list,
            Change::PromptListChanged => self.prompts_list,
            Change::ToolListChanged => self.tools_list,
        }
    }

    /// The `SubscriptionFilter` this stream acknowledges.
    fn to_json(&self) -> Value {
        let mut honored = Map::new();
        if self.tools_list {
            honored.insert("toolsListChanged".into(), true.into());
        }
        if self.resources_list {
            honored.insert("resourcesListChanged".into(), true.into());
        }
        if self.prompts_list {
            honored.insert("promptsListChanged".into(), true.into());
        }
        if !self.uris.is_empty() {
            honored.insert(
                "resourceSubscriptions".into(),
                self.uris.iter().cloned().collect::<Vec<_>>().into(),
            );
        }
        Value::Object(honored)
    }
}

impl Subscriptions {
    fn state(&self) -> MutexGuard<'_, State> {
        // Every operation leaves the state consistent, even one interrupted by a panic.
        self.shared
            .state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The legacy handshake completed: `list_changed` notifications may flow.
    pub(crate) fn legacy_initialized(&self) {
        self.state().legacy_initialized = true;
    }

    /// Send `notifications/resources/updated` for `uri` from now on (legacy).
    pub(crate) fn subscribe(&self, uri: &str) {
        let mut state = self.state();
        state.uris.insert(uri.to_owned());
        state.uri_changes += 1;
    }

    /// How many times the subscribed URIs changed so far.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn uri_changes(&self) -> u64 {
        self.state().uri_changes
    }

    /// The URIs subscribed (legacy), in order.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn uris(&self) -> Vec<String> {
        self.state().uris.iter().cloned().collect()
    }

    /// Stop sending them (legacy). Unsubscribing from a URI never subscribed is no error.
    pub(crate) fn unsubscribe(&self, uri: &str) {
        let mut state = self.state();
        state.uris.remove(uri);
        state.uri_changes += 1;
    }

    /// End every listen stream gracefully (at shutdown): each answers its listen request with a
    /// `SubscriptionsListenResult`.
    pub(crate) fn close_streams(&self) {
        for stream in self.state().streams.drain(..) {
            stream.closed.cancel();
        }
    }
}

/// Turns the server's announcements into what one connection's client should get.
#[derive(Debug)]
pub(crate) struct NotificationForwarder {
    events: broadcast::Receiver<Change>,
    subscriptions: Subscriptions,
    /// Whether tools can change (the server's surfaces are dynamic).
    tools_change: bool,
    has_resources: bool,
    has_prompts: bool,
}

impl NotificationForwarder {
    /// The next messages to send, in order; `None` once the server can announce nothing more.
    pub(crate) async fn next(&mut self) -> Option<Vec<Outgoing>> {
        loop {
            let queued = std::mem::take(&mut self.subscriptions.state().outbox);
            if !queued.is_empty() {
                return Some(queued);
            }
            tokio::select! {
                () = self.subscriptions.shared.queued.notified() => {}
                event = self.events.recv() => match event {
                    Ok(event) => {
                        let messages = self.render(&event);
                        if !messages.is_empty() {
                            return Some(messages);
                        }
                    }
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        tracing::warn!(missed, "notifications were announced faster than sent; some were dropped");
                    }
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            }
        }
    }

    /// For `event`: at most one legacy notification (once the session is initialized), and one
    /// tagged notification per listen stream that wants it, after any pending acknowledgement.
    fn render(&self, event: &Change) -> Vec<Outgoing> {
        let mut state = self.subscriptions.state();
        let mut messages = std::mem::take(&mut state.outbox);
        if state.legacy_initialized {
            let legacy = match event {
                Change::ResourceUpdated(uri) => state.uris.contains(uri),
                Change::ResourceListChanged => self.has_resources,
                Change::PromptListChanged => self.has_prompts,
                Change::ToolListChanged => self.tools_change,
            };
            if legacy {
                messages.push(render(event, None));
            }
        }
        // A stream whose request was cancelled gets nothing more, and is forgotten.
        state
            .streams
            .retain(|stream| !stream.cancelled.is_cancelled());
        for stream in &state.streams {
            if stream.filter.wants(event) {
                messages.push(render(event, Some(&stream.id)));
            }
        }
        messages
    }
}

impl Dispatcher {
    /// The forwarder of `session`'s notifications, receiving every announcement from now on.
    pub(crate) fn notification_forwarder(&self, session: &Session) -> NotificationForwarder {
        NotificationForwarder {
            events: self.notifier.subscribe(),
            subscriptions: session.subscriptions().clone(),
            tools_change: self.catalog.is_dynamic(),
            has_resources: !self.resources.is_empty(),
            has_prompts: !self.prompts.is_empty(),
        }
    }

    /// `subscriptions/listen` (2026-07-28): acknowledge what will be sent (queued for the
    /// forwarder, so it precedes any notification of the stream), then keep the request open
    /// until the client cancels it or the server closes it.
    pub(super) fn listen(
        &self,
        id: &RequestId,
        params: Option<&JsonObject>,
        session: &Session,
    ) -> Result<Reply, ErrorObject> {
        let requested = params
            .and_then(|params| params.get("notifications"))
            .and_then(Value::as_object)
            .ok_or_else(|| {
                ErrorObject::invalid_params(
                    "`subscriptions/listen` needs a `notifications` object saying what to send",
                )
            })?;
        let asked = |key: &str| requested.get(key).and_then(Value::as_bool) == Some(true);
        let has_resources = !self.resources.is_empty();
        let filter = Filter {
            tools_list: self.catalog.is_dynamic() && asked("toolsListChanged"),
            resources_list: has_resources && asked("resourcesListChanged"),
            prompts_list: !self.prompts.is_empty() && asked("promptsListChanged"),
            uris: match requested.get("resourceSubscriptions") {
                // Inserted one by one: `collect` would sort them first, with code of its own.
                Some(Value::Array(uris)) if has_resources => {
                    let mut set = BTreeSet::new();
                    for uri in uris.iter().filter_map(Value::as_str) {
                        set.insert(uri.to_owned());
                    }
                    set
                }
                Some(Value::Array(_)) | None | Some(Value::Null) => BTreeSet::new(),
                Some(_) => {
                    return Err(ErrorObject::invalid_params(
                        "`resourceSubscriptions` must be an array of URIs",
                    ));
                }
            },
        };
        let cancelled = CancellationToken::new();
        let closed = CancellationToken::new();
        let info = self.info.clone();
        let stream_id = id.clone();
        let waiting = {
            let (cancelled, closed) = (cancelled.clone(), closed.clone());
            move |_: Option<&mut crate::middleware::Request>| -> BoxFuture<'static, ()> {
                Box::pin(async move {
                    tokio::select! {
                        () = cancelled.cancelled() => {}
                        () = closed.cancelled() => {}
                    }
                })
            }
        };
        // Registered first: a duplicate id is refused before anything is acknowledged.
        let reply = Run::quiet(id, cancelled.clone(), self.modern_meta.clone()).start(
            session.in_flight(),
            waiting,
            move |_, _, _| notification::subscriptions_closed(&stream_id, &info),
        )?;
        let subscriptions = session.subscriptions();
        let mut state = subscriptions.state();
        state.outbox.push(notification::subscriptions_acknowledged(
            &filter.to_json(),
            id,
        ));
        state.streams.push(Stream {
            id: id.clone(),
            filter,
            cancelled,
            closed,
        });
        drop(state);
        subscriptions.shared.queued.notify_one();
        Ok(reply)
    }
}

fn render(event: &Change, stream: Option<&RequestId>) -> Outgoing {
    match event {
        Change::ResourceUpdated(uri) => notification::resource_updated(uri, stream),
        Change::ResourceListChanged => notification::list_changed("resources", stream),
        Change::PromptListChanged => notification::list_changed("prompts", stream),
        Change::ToolListChanged => notification::list_changed("tools", stream),
    }
}
