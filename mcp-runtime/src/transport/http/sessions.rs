//! Legacy sessions over HTTP: `initialize` opens one under a fresh `Mcp-Session-Id`; later
//! requests name it; DELETE, idleness or shutdown end it.
//!
//! Each session keeps its dispatcher [`Session`] (negotiated revision, running calls,
//! subscriptions) and a forwarder task that turns the server's announcements into the
//! session's notifications, sent on its GET stream when one is open (and dropped otherwise:
//! without a stream there is no one to tell).
//!
//! What concerns one running request (its questions to the client and their withdrawal, its
//! progress) goes on that request's own POST stream while it has one (see [`Entry::route`]),
//! else on the GET stream.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::body::{self, EventIds};
use crate::dispatch::Dispatcher;
use crate::peer::Outbound;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{Outgoing, RequestId};
use crate::session::Session;

/// Every open legacy session.
pub(crate) struct Sessions {
    open: Mutex<HashMap<String, Arc<Entry>>>,
    idle_timeout: Duration,
    max: usize,
}

/// One legacy session.
pub(crate) struct Entry {
    pub(crate) session: Mutex<Session>,
    pub(crate) version: ProtocolVersion,
    last_used: Mutex<Instant>,
    /// The open GET stream, if any.
    stream: Arc<Mutex<Option<Stream>>>,
    /// How many event streams (GET and POST) the session has opened: each one's number.
    streams: AtomicU64,
    /// How many events with ids its streams have sent: each one's number.
    events: Arc<AtomicU64>,
    /// Where the messages about a request that may get its own event stream go.
    routes: Routes,
    forwarder: AbortHandle,
}

/// An open GET stream: where its events go, and their ids (2025-11-25 sessions).
pub(crate) struct Stream {
    sender: mpsc::Sender<Bytes>,
    ids: Option<EventIds>,
}

impl Stream {
    /// Queue `message` as an event; `false` when the stream is full or closed.
    fn try_send(&self, message: &Outgoing) -> bool {
        self.sender
            .try_send(body::framed(self.ids.as_ref(), message))
            .is_ok()
    }

    fn is_closed(&self) -> bool {
        self.sender.is_closed()
    }
}

/// What a message is about: a request (by id), or the request that carried a progress token
/// (the token as JSON text).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum RouteKey {
    Request(RequestId),
    Token(String),
}

/// Request or progress token -> the stream of the request's POST.
type Routes = Arc<Mutex<HashMap<RouteKey, mpsc::UnboundedSender<Outgoing>>>>;

/// Sends the messages about some requests to their POST's stream until dropped.
pub(crate) struct Route {
    routes: Routes,
    keys: Vec<RouteKey>,
}

impl Drop for Route {
    fn drop(&mut self) {
        let mut routes = lock(&self.routes);
        for key in &self.keys {
            routes.remove(key);
        }
    }
}

/// Where a message about `related` (a request id, if the sender knew it) goes: the stream of
/// that request's POST, if it has one. Progress is recognised by its token.
fn route_of(
    routes: &Routes,
    related: Option<&RequestId>,
    message: &Outgoing,
) -> Option<mpsc::UnboundedSender<Outgoing>> {
    let key = match related {
        Some(id) => RouteKey::Request(id.clone()),
        None => RouteKey::Token(progress_token(message)?),
    };
    lock(routes).get(&key).cloned()
}

/// The token of a `notifications/progress`, as JSON text.
fn progress_token(message: &Outgoing) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Progress {
        params: Params,
    }
    #[derive(serde::Deserialize)]
    struct Params {
        #[serde(rename = "progressToken")]
        progress_token: serde_json::Value,
    }
    let bytes = message.as_bytes();
    memchr::memmem::find(bytes, b"\"notifications/progress\"")?;
    let progress: Progress = serde_json::from_slice(bytes).ok()?;
    Some(progress.params.progress_token.to_string())
}

/// A new session was refused: too many are open.
#[derive(Debug)]
pub(crate) struct Full;

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section leaves its data consistent, even one cut short by a panic.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl Entry {
    /// The dispatcher's session, for handling one message.
    pub(crate) fn session(&self) -> MutexGuard<'_, Session> {
        lock(&self.session)
    }

    /// Ids for the events of a new stream of this session: from 2025-11-25 on, every event
    /// has one and each stream opens with a priming event (resumption is not offered: a
    /// `Last-Event-ID` replays nothing).
    pub(crate) fn event_ids(&self) -> Option<EventIds> {
        (self.version >= ProtocolVersion::V2025_11_25).then(|| {
            let stream = self.streams.fetch_add(1, Ordering::Relaxed);
            EventIds::new(stream, self.events.clone())
        })
    }

    fn idle_since(&self) -> Option<Instant> {
        let streaming = lock(&self.stream)
            .as_ref()
            .is_some_and(|stream| !stream.is_closed());
        (!streaming).then(|| *lock(&self.last_used))
    }

    /// Send what concerns the requests `ids` (questions to the client, their withdrawal) and
    /// the progress reported under `tokens` to `stream` instead of the GET stream, until the
    /// route drops.
    pub(crate) fn route(
        &self,
        ids: &[RequestId],
        tokens: &[serde_json::Value],
        stream: &mpsc::UnboundedSender<Outgoing>,
    ) -> Route {
        let keys: Vec<RouteKey> = ids
            .iter()
            .cloned()
            .map(RouteKey::Request)
            .chain(
                tokens
                    .iter()
                    .map(|token| RouteKey::Token(token.to_string())),
            )
            .collect();
        let mut routes = lock(&self.routes);
        for key in &keys {
            routes.insert(key.clone(), stream.clone());
        }
        Route {
            routes: self.routes.clone(),
            keys,
        }
    }

    /// Open the GET stream: `None` when one is already open.
    pub(crate) fn open_stream(&self, capacity: usize) -> Option<mpsc::Receiver<Bytes>> {
        let mut slot = lock(&self.stream);
        if slot.as_ref().is_some_and(|stream| !stream.is_closed()) {
            return None;
        }
        let (sender, receiver) = mpsc::channel(capacity.max(1));
        let ids = self.event_ids();
        if let Some(ids) = &ids {
            // The channel is new and empty: the priming event fits.
            let _ = sender.try_send(ids.priming());
        }
        *slot = Some(Stream { sender, ids });
        Some(receiver)
    }

    /// Stop its notifications and close its stream.
    fn close_stream(&self) {
        self.forwarder.abort();
        lock(&self.stream).take();
        self.session().subscriptions().close_streams();
    }

    /// End the session: close its stream, cancel its calls.
    fn close(&self) {
        self.close_stream();
        self.session().in_flight().cancel_all();
    }
}

impl Sessions {
    pub(crate) fn new(idle_timeout: Duration, max: usize) -> Self {
        Sessions {
            open: Mutex::new(HashMap::new()),
            idle_timeout,
            max,
        }
    }

    /// Keep `session` (just initialized at `version`) under a new id, and start forwarding its
    /// notifications. Must run inside a tokio runtime.
    pub(crate) fn open(
        &self,
        mut session: Session,
        version: ProtocolVersion,
        dispatcher: &Dispatcher,
    ) -> Result<String, Full> {
        self.expire();
        let mut open = lock(&self.open);
        if open.len() >= self.max {
            return Err(Full);
        }
        let stream: Arc<Mutex<Option<Stream>>> = Arc::default();
        // What concerns a request that takes events (its questions to the client, their
        // withdrawal, its progress) goes on its POST's stream, ahead of its response (the spec:
        // server requests SHOULD ride the related request's stream). The rest, and everything
        // about a request whose client takes no events, goes on the GET stream (one session may
        // have several requests running).
        let routes: Routes = Arc::default();
        let (to_stream, to_routes) = (stream.clone(), routes.clone());
        session.set_outbound(Outbound::routed(move |related, message| {
            let route = route_of(&to_routes, related, &message);
            let message = match route {
                Some(route) => match route.send(message) {
                    Ok(()) => return,
                    // That request has just been answered: the GET stream takes it.
                    Err(mpsc::error::SendError(message)) => message,
                },
                None => message,
            };
            match lock(&to_stream).as_ref() {
                Some(stream) if stream.try_send(&message) => {}
                Some(_) => {
                    tracing::debug!("a session's stream is full or closed; message dropped");
                }
                None => tracing::debug!(
                    "no stream to send a session's message on (no GET stream open); dropped"
                ),
            }
        }));
        let mut forwarder = dispatcher.notification_forwarder(&session);
        let to_stream = stream.clone();
        let forwarder = tokio::spawn(async move {
            while let Some(messages) = forwarder.next().await {
                let slot = lock(&to_stream);
                let Some(stream) = slot.as_ref() else {
                    continue;
                };
                for message in &messages {
                    if !stream.try_send(message) {
                        tracing::debug!(
                            "a session's stream is full or closed; notification dropped"
                        );
                    }
                }
            }
        })
        .abort_handle();
        let id = new_id();
        open.insert(
            id.clone(),
            Arc::new(Entry {
                session: Mutex::new(session),
                version,
                last_used: Mutex::new(Instant::now()),
                stream,
                streams: AtomicU64::new(0),
                events: Arc::default(),
                routes,
                forwarder,
            }),
        );
        Ok(id)
    }

    /// The session `id`, marked used; `None` when unknown or expired.
    pub(crate) fn get(&self, id: &str) -> Option<Arc<Entry>> {
        let entry = lock(&self.open).get(id).cloned()?;
        if entry
            .idle_since()
            .is_some_and(|since| since.elapsed() > self.idle_timeout)
        {
            self.close(id);
            return None;
        }
        *lock(&entry.last_used) = Instant::now();
        Some(entry)
    }

    /// End the session `id`; `false` when there was none.
    pub(crate) fn close(&self, id: &str) -> bool {
        let entry = lock(&self.open).remove(id);
        entry.map(|entry| entry.close()).is_some()
    }

    /// End every session at shutdown: streams close at once, while calls still running keep
    /// going (the server's grace period bounds them) so their answers reach their clients.
    pub(crate) fn close_all(&self) {
        let all: Vec<_> = lock(&self.open).drain().collect();
        for (_, entry) in all {
            entry.close_stream();
        }
    }

    /// Forget sessions idle for too long.
    fn expire(&self) {
        let expired: Vec<String> = lock(&self.open)
            .iter()
            .filter(|(_, entry)| {
                entry
                    .idle_since()
                    .is_some_and(|since| since.elapsed() > self.idle_timeout)
            })
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            tracing::debug!("a legacy session expired");
            self.close(&id);
        }
    }
}

/// 32 random bytes as 64 hex digits: visible ASCII, unguessable.
pub(crate) fn new_id() -> String {
    let mut bytes = [0u8; 32];
    if let Err(error) = getrandom::fill(&mut bytes) {
        // No randomness at all: the OS is broken; refusing to serve would be no safer.
        panic!("cannot get random bytes for a session id: {error}");
    }
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{Server, ServerInfo};

    #[test]
    fn ids_are_long_random_visible_ascii() {
        let (a, b) = (new_id(), new_id());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|byte| (0x21..=0x7e).contains(&byte)));
    }

    #[tokio::test]
    async fn sessions_open_expire_and_close() {
        let dispatcher = Dispatcher::new(&Server::new(ServerInfo::new("s", "1"))).unwrap();
        let sessions = Sessions::new(Duration::from_millis(50), 2);
        let version = ProtocolVersion::V2025_06_18;
        let a = sessions.open(Session::new(), version, &dispatcher).unwrap();
        let b = sessions.open(Session::new(), version, &dispatcher).unwrap();
        assert!(sessions.open(Session::new(), version, &dispatcher).is_err());
        assert_eq!(sessions.get(&a).unwrap().version, version);
        assert!(sessions.close(&b));
        assert!(!sessions.close(&b));
        assert!(sessions.get(&b).is_none());
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(sessions.get(&a).is_none(), "idle sessions expire");
    }

    #[tokio::test]
    async fn a_session_has_one_stream_at_a_time() {
        let dispatcher = Dispatcher::new(&Server::new(ServerInfo::new("s", "1"))).unwrap();
        let sessions = Sessions::new(Duration::from_secs(60), 10);
        let id = sessions
            .open(Session::new(), ProtocolVersion::V2025_03_26, &dispatcher)
            .unwrap();
        let entry = sessions.get(&id).unwrap();
        let first = entry.open_stream(4).unwrap();
        assert!(entry.open_stream(4).is_none());
        drop(first);
        assert!(
            entry.open_stream(4).is_some(),
            "a closed stream may be reopened"
        );
    }
}
