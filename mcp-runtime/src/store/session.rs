//! The shared record of legacy HTTP sessions (2025-03-26 to 2025-11-25, `Mcp-Session-Id`) and
//! of their resumable event streams: what another instance needs to go on serving a session
//! whose instance died, and to replay what the client missed (`Last-Event-ID`).

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::time::Instant;

use super::{Record, StoreError};
use crate::future::BoxFuture;

/// One legacy session as a [`SessionStore`] keeps it: opaque to the store but for its id.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredSession(Record<SessionDocument>);

/// What is encoded: everything the session needs to be served again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SessionDocument {
    /// The negotiated revision (`2025-11-25`).
    pub(crate) version: String,
    /// The client's `capabilities` from `initialize`.
    pub(crate) client_capabilities: Value,
    /// The client's `clientInfo` (name, version), if it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) client_version: Option<String>,
    /// Whether `notifications/initialized` arrived.
    pub(crate) initialized: bool,
    /// The principal the session is bound to (`None`: an anonymous session).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) principal: Option<String>,
    /// The level `logging/setLevel` set, if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) log_level: Option<String>,
    /// The URIs of `resources/subscribe`.
    #[serde(default)]
    pub(crate) subscriptions: Vec<String>,
    /// The tags of the event logs the session had, one per instance that served it: every
    /// event id starts with one, so an instance taking the session over picks a new one.
    #[serde(default)]
    pub(crate) tags: Vec<String>,
}

impl StoredSession {
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn new(id: String, document: SessionDocument) -> Self {
        StoredSession(Record::new(id, document))
    }

    /// The session read back from what [`encoded`](Self::encoded) gave.
    ///
    /// # Errors
    ///
    /// When `encoded` is not a session this runtime stored.
    pub fn decode(id: impl Into<String>, encoded: impl Into<String>) -> Result<Self, StoreError> {
        Record::decode(id.into(), encoded.into(), "session").map(StoredSession)
    }

    /// The session's id (its `Mcp-Session-Id`).
    pub fn id(&self) -> &str {
        &self.0.id
    }

    /// The session as a store keeps it (JSON).
    pub fn encoded(&self) -> &str {
        &self.0.encoded
    }

    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn document(&self) -> &SessionDocument {
        &self.0.document
    }
}

/// One event of a session's stream, written through as the instance sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    /// The stream it belongs to: its event ids up to the last `-` (`3f9c01ab-2`).
    pub stream: String,
    /// Its number (the last part of its id): numbers grow along a stream.
    pub number: u64,
    /// The event as sent: the server-sent event's lines, its `id:` among them.
    pub frame: String,
    /// The JSON-RPC id (as JSON text) of the request whose POST the stream answers; `None`
    /// for the session's GET stream.
    pub request: Option<String>,
    /// It is that request's response: the stream ends with it.
    pub response: bool,
    /// The newest earlier event of the stream that never reached the store (its instance
    /// could not write it): a replay from before that one would skip it, so the store then
    /// answers [`Replay::Expired`], as for an event dropped for the bounds.
    pub missed_through: Option<u64>,
}

/// How much of one stream a store keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StreamBounds {
    /// The most events kept; older ones are dropped first.
    pub events: usize,
    /// How long the stream is kept after its last event.
    pub ttl: Duration,
}

/// What [`SessionStore::replay`] found of a stream.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Replay {
    /// The store has no such stream (never written, or expired).
    Unknown,
    /// Some events after the one asked for were dropped for the bounds: replaying the rest
    /// would skip them.
    Expired,
    /// The events after the one asked for, in order.
    Events {
        /// Their frames, as [`StoredEvent::frame`].
        frames: Vec<String>,
        /// As [`StoredEvent::request`].
        request: Option<String>,
        /// Whether the stream's response is stored (among `frames`, or before them).
        answered: bool,
    },
}

/// Where the instances of one server keep their legacy HTTP sessions, so that a session whose
/// instance died goes on on another: the session's record, written when it opens and whenever
/// it changes (subscriptions, log level, the handshake's end), and the events of its
/// resumable streams, written as they are sent.
///
/// An instance that receives a request naming a session it does not know loads it here and,
/// if the caller is the principal it is bound to, serves it from then on. The record expires
/// after the session's idle timeout unless written again, and ends with `DELETE`; the streams
/// expire on their own ([`StreamBounds`]).
///
/// Each operation must end within a bounded time: a store that cannot answer returns
/// [`StoreError`] (a request that needs it then gets
/// [`STORE_UNAVAILABLE`](super::STORE_UNAVAILABLE)).
pub trait SessionStore: Send + Sync + 'static {
    /// Store `session`, replacing what was stored under its id, for `ttl`.
    fn save<'a>(
        &'a self,
        session: &'a StoredSession,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The session `id`; `Ok(None)` for a session not stored (never, ended, or expired).
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredSession>, StoreError>>;

    /// Forget the session `id` (it ended).
    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Add `event` to its stream of the session `session`, within `bounds`. Events of one
    /// stream arrive in order.
    fn append<'a>(
        &'a self,
        session: &'a str,
        event: &'a StoredEvent,
        bounds: StreamBounds,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// The events of `stream` of the session `session` numbered after `after`.
    fn replay<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        after: u64,
    ) -> BoxFuture<'a, Result<Replay, StoreError>>;
}

impl std::fmt::Debug for dyn SessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionStore(..)")
    }
}

/// A [`SessionStore`] in this process's memory: for servers of one process that share their
/// sessions (several [`HttpService`](crate::http::HttpService)s), and for tests. Without any
/// store installed a server keeps its sessions in the instance that opened them, as this one
/// does; across processes use a shared one ([`RedisStore`](crate::redis::RedisStore)). Cheap
/// to clone; clones share the sessions.
#[derive(Debug, Clone, Default)]
pub struct MemorySessionStore {
    state: Arc<Mutex<Memory>>,
}

#[derive(Debug, Default)]
struct Memory {
    sessions: HashMap<String, (StoredSession, Instant)>,
    streams: HashMap<(String, String), MemoryStream>,
}

#[derive(Debug, Default)]
struct MemoryStream {
    events: VecDeque<(u64, String)>,
    evicted_through: Option<u64>,
    request: Option<String>,
    answered: bool,
    expires: Option<Instant>,
}

impl MemorySessionStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn state(&self) -> MutexGuard<'_, Memory> {
        // Every operation leaves the maps consistent, even one cut short by a panic.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Memory {
    /// Forget what expired.
    fn prune(&mut self, now: Instant) {
        self.sessions.retain(|_, (_, expires)| *expires > now);
        self.streams
            .retain(|_, stream| stream.expires.is_none_or(|expires| expires > now));
    }
}

impl SessionStore for MemorySessionStore {
    fn save<'a>(
        &'a self,
        session: &'a StoredSession,
        ttl: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let now = Instant::now();
            let mut state = self.state();
            state.prune(now);
            state
                .sessions
                .insert(session.id().to_owned(), (session.clone(), now + ttl));
            Ok(())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<StoredSession>, StoreError>> {
        Box::pin(async move {
            let mut state = self.state();
            state.prune(Instant::now());
            Ok(state.sessions.get(id).map(|(session, _)| session.clone()))
        })
    }

    fn remove<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let mut state = self.state();
            state.sessions.remove(id);
            state.streams.retain(|(session, _), _| session != id);
            Ok(())
        })
    }

    fn append<'a>(
        &'a self,
        session: &'a str,
        event: &'a StoredEvent,
        bounds: StreamBounds,
    ) -> BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async move {
            let now = Instant::now();
            let mut state = self.state();
            state.prune(now);
            let stream = state
                .streams
                .entry((session.to_owned(), event.stream.clone()))
                .or_default();
            stream.events.push_back((event.number, event.frame.clone()));
            stream.request.clone_from(&event.request);
            stream.answered |= event.response;
            stream.evicted_through = stream.evicted_through.max(event.missed_through);
            stream.expires = Some(now + bounds.ttl);
            while stream.events.len() > bounds.events.max(1) {
                if let Some((number, _)) = stream.events.pop_front() {
                    stream.evicted_through = stream.evicted_through.max(Some(number));
                }
            }
            Ok(())
        })
    }

    fn replay<'a>(
        &'a self,
        session: &'a str,
        stream: &'a str,
        after: u64,
    ) -> BoxFuture<'a, Result<Replay, StoreError>> {
        Box::pin(async move {
            let mut state = self.state();
            state.prune(Instant::now());
            let Some(stream) = state.streams.get(&(session.to_owned(), stream.to_owned())) else {
                return Ok(Replay::Unknown);
            };
            if stream
                .evicted_through
                .is_some_and(|through| through > after)
            {
                return Ok(Replay::Expired);
            }
            Ok(Replay::Events {
                frames: (stream.events.iter())
                    .filter(|(number, _)| *number > after)
                    .map(|(_, frame)| frame.clone())
                    .collect(),
                request: stream.request.clone(),
                answered: stream.answered,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn session(id: &str) -> StoredSession {
        StoredSession::new(
            id.into(),
            SessionDocument {
                version: "2025-11-25".into(),
                client_capabilities: json!({"roots": {}}),
                client_name: Some("c".into()),
                initialized: true,
                principal: Some("alice".into()),
                subscriptions: vec!["file:///a".into()],
                tags: vec!["0badf00d".into()],
                ..SessionDocument::default()
            },
        )
    }

    fn event(stream: &str, number: u64, response: bool) -> StoredEvent {
        StoredEvent {
            stream: stream.into(),
            number,
            frame: format!("id: {stream}-{number}\ndata: {number}\n\n"),
            request: Some("7".into()),
            response,
            missed_through: None,
        }
    }

    const BOUNDS: StreamBounds = StreamBounds {
        events: 3,
        ttl: Duration::from_secs(60),
    };

    #[test]
    fn a_stored_session_reads_back_as_written() {
        let stored = session("s1");
        let back = StoredSession::decode("s1", stored.encoded()).unwrap();
        assert_eq!(back, stored);
        assert_eq!(back.document().principal.as_deref(), Some("alice"));
        let error = StoredSession::decode("s1", "[1]").unwrap_err();
        assert!(error.to_string().contains("unreadable"), "{error}");
    }

    #[tokio::test(start_paused = true)]
    async fn the_memory_store_keeps_a_session_for_its_time_to_live() {
        let store = MemorySessionStore::new();
        store
            .save(&session("s1"), Duration::from_secs(10))
            .await
            .unwrap();
        assert_eq!(store.load("s1").await.unwrap(), Some(session("s1")));
        assert_eq!(store.load("s2").await.unwrap(), None);
        tokio::time::sleep(Duration::from_secs(11)).await;
        assert_eq!(store.load("s1").await.unwrap(), None, "expired");
        store
            .save(&session("s1"), Duration::from_secs(10))
            .await
            .unwrap();
        store.remove("s1").await.unwrap();
        assert_eq!(store.load("s1").await.unwrap(), None, "removed");
    }

    #[tokio::test(start_paused = true)]
    async fn the_memory_store_replays_what_follows_an_event_within_its_bounds() {
        let store = MemorySessionStore::new();
        for number in [0, 2, 5] {
            store
                .append("s1", &event("t-1", number, false), BOUNDS)
                .await
                .unwrap();
        }
        let frames = |replay: Replay| match replay {
            Replay::Events { frames, .. } => frames,
            other => panic!("expected events, got {other:?}"),
        };
        let after_0 = frames(store.replay("s1", "t-1", 0).await.unwrap());
        assert_eq!(
            after_0,
            ["id: t-1-2\ndata: 2\n\n", "id: t-1-5\ndata: 5\n\n"]
        );
        assert!(frames(store.replay("s1", "t-1", 5).await.unwrap()).is_empty());
        assert_eq!(
            store.replay("s1", "t-2", 0).await.unwrap(),
            Replay::Unknown,
            "another stream"
        );
        assert_eq!(
            store.replay("s2", "t-1", 0).await.unwrap(),
            Replay::Unknown,
            "another session's"
        );
        // Two more drop the two oldest: resuming from before the second would skip it.
        store
            .append("s1", &event("t-1", 6, false), BOUNDS)
            .await
            .unwrap();
        assert_eq!(frames(store.replay("s1", "t-1", 0).await.unwrap()).len(), 3);
        store
            .append("s1", &event("t-1", 7, true), BOUNDS)
            .await
            .unwrap();
        assert_eq!(store.replay("s1", "t-1", 0).await.unwrap(), Replay::Expired);
        assert_eq!(
            store.replay("s1", "t-1", 2).await.unwrap(),
            Replay::Events {
                frames: vec![
                    "id: t-1-5\ndata: 5\n\n".into(),
                    "id: t-1-6\ndata: 6\n\n".into(),
                    "id: t-1-7\ndata: 7\n\n".into()
                ],
                request: Some("7".into()),
                answered: true,
            }
        );
        // An event that never reached the store: a replay from before it is refused too.
        let late = StoredEvent {
            missed_through: Some(8),
            ..event("t-1", 9, false)
        };
        store.append("s1", &late, BOUNDS).await.unwrap();
        assert_eq!(store.replay("s1", "t-1", 6).await.unwrap(), Replay::Expired);
        assert_eq!(frames(store.replay("s1", "t-1", 8).await.unwrap()).len(), 1);
        tokio::time::sleep(BOUNDS.ttl + Duration::from_secs(1)).await;
        assert_eq!(store.replay("s1", "t-1", 2).await.unwrap(), Replay::Unknown);
    }
}
