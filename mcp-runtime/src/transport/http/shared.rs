//! Legacy sessions shared through a [`SessionStore`]: what an instance writes so that another
//! can take a session over when it dies, and how that other instance rebuilds it.
//!
//! * The session's record ([`StoredSession`]) is written when the session opens (before the
//!   client learns its id), after every request that changed it (subscriptions, log level,
//!   the end of the handshake: a POST's answer waits for the write), and again whenever a
//!   third of the idle timeout passed without a write, so that it expires in the store only
//!   when the session is idle. A write that fails is logged and tried again with the next
//!   request or sweep: the instance keeps serving the session from memory meanwhile.
//! * The events of its resumable streams are written through by one writer task per session,
//!   in the order they are logged (see [`super::resume`]). When the store fails, the writer
//!   skips writes for a second at a time (events still go out at once, never waiting on a
//!   store that is down), and when it falls more than [`MOST_BEHIND`] events behind it skips
//!   what it cannot catch up with; the next event it writes on such a stream says which
//!   events the store missed ([`StoredEvent::missed_through`]), so that a replay never skips
//!   one silently: the store refuses a replay from before a missed event.
//! * A request naming a session this instance does not know loads it from the store; the
//!   session is adopted when the caller is the principal it is bound to. The adopting
//!   instance gives its event log a tag no earlier log of the session had, so event ids stay
//!   unique across the instances that served the session.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::resume::{MAX_RETAINED_EVENTS, UNREAD_RETENTION};
use crate::context::logging::LogLevel;
use crate::dispatch::session::Session;
use crate::middleware::ClientInfo;
use crate::protocol::ProtocolVersion;
use crate::store::session::SessionDocument;
use crate::store::{SessionStore, StoreError, StoredEvent, StoredSession, StreamBounds};

/// How long the event writer leaves the store alone after a write failed.
const BACK_OFF: Duration = Duration::from_secs(1);

/// How many events the writer may fall behind by before it skips them: a store slower than
/// the session's events never makes the instance hold them all.
pub(crate) const MOST_BEHIND: usize = 4096;

/// The record last written, when, and what of it may change while the session is served.
struct Saved {
    encoded: String,
    at: Instant,
    mutable: Mutable,
}

/// The parts of a session's record that requests change, read without building the record:
/// every POST of a shared session asks whether its record must be written again, and
/// building and encoding it each time cost more than the call itself.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mutable {
    initialized: bool,
    log_level: Option<LogLevel>,
    uri_changes: u64,
    principal: Option<String>,
}

impl Mutable {
    fn of(session: &Session) -> Self {
        Mutable {
            initialized: session.legacy().is_some_and(|legacy| legacy.initialized),
            log_level: session.log_level(),
            uri_changes: session.subscriptions().uri_changes(),
            principal: session.principal().map(|who| who.as_str().to_owned()),
        }
    }

    /// Whether `session` still has these parts, without copying any.
    fn holds_for(&self, session: &Session) -> bool {
        self.initialized == session.legacy().is_some_and(|legacy| legacy.initialized)
            && self.log_level == session.log_level()
            && self.uri_changes == session.subscriptions().uri_changes()
            && self.principal.as_deref() == session.principal().map(|who| who.as_str())
    }
}

/// One session's place in the store.
pub(crate) struct Persist {
    store: Arc<dyn SessionStore>,
    id: String,
    /// How long the record lives in the store unless written again.
    ttl: Duration,
    /// The tags of the session's event logs: earlier instances', then this one's.
    tags: Vec<String>,
    /// What was last written, and when: `None` until a write succeeded, and again once a
    /// write of its events failed (the store may have lost the record too: it is written
    /// again with the next request).
    saved: Arc<Mutex<Option<Saved>>>,
    /// One write at a time, so that an older record never replaces a newer one.
    writing: tokio::sync::Mutex<()>,
}

impl Persist {
    pub(crate) fn new(
        store: Arc<dyn SessionStore>,
        id: String,
        ttl: Duration,
        tags: Vec<String>,
    ) -> Self {
        Persist {
            store,
            id,
            ttl,
            tags,
            saved: Arc::default(),
            writing: tokio::sync::Mutex::new(()),
        }
    }

    /// The record of `session` as it is now.
    fn record(&self, session: &Session, version: ProtocolVersion) -> StoredSession {
        let legacy = session.legacy();
        let client = session.client();
        StoredSession::new(
            self.id.clone(),
            SessionDocument {
                version: version.as_str().to_owned(),
                client_capabilities: legacy
                    .map(|legacy| legacy.shared.client_capabilities.clone())
                    .unwrap_or_default(),
                client_name: client.map(|client| client.name.to_string()),
                client_version: client.and_then(|client| client.version.as_deref().map(Into::into)),
                initialized: legacy.is_some_and(|legacy| legacy.initialized),
                principal: session.principal().map(|who| who.as_str().to_owned()),
                log_level: session.log_level().map(|level| level.as_str().to_owned()),
                subscriptions: session.subscriptions().uris(),
                tags: self.tags.clone(),
            },
        )
    }

    /// Whether the record is due: never written, or written longer ago than a third of its
    /// time to live.
    pub(crate) fn due(&self) -> bool {
        let saved = self.saved.lock().unwrap_or_else(|p| p.into_inner());
        saved
            .as_ref()
            .is_none_or(|saved| saved.at.elapsed() >= self.ttl / 3)
    }

    /// Write the record of `session` unless the store already has it, fresh enough.
    pub(crate) async fn save(
        &self,
        session: &Mutex<Session>,
        version: ProtocolVersion,
    ) -> Result<(), StoreError> {
        let unchanged = |session: &Session| {
            let saved = self.saved.lock().unwrap_or_else(|p| p.into_inner());
            saved.as_ref().is_some_and(|saved| {
                saved.at.elapsed() < self.ttl / 3 && saved.mutable.holds_for(session)
            })
        };
        // The common case, a call that changed nothing, takes no lock but the session's.
        if unchanged(&session.lock().unwrap_or_else(|p| p.into_inner())) {
            return Ok(());
        }
        // Boxed: the write's state stays out of the future of every POST that writes nothing.
        Box::pin(self.write(session, version)).await
    }

    /// Write the record of `session`, one write at a time, unless it is what the store holds.
    async fn write(
        &self,
        session: &Mutex<Session>,
        version: ProtocolVersion,
    ) -> Result<(), StoreError> {
        let _one_at_a_time = self.writing.lock().await;
        let (record, mutable) = {
            let session = session.lock().unwrap_or_else(|p| p.into_inner());
            (self.record(&session, version), Mutable::of(&session))
        };
        let fresh = {
            let saved = self.saved.lock().unwrap_or_else(|p| p.into_inner());
            saved.as_ref().is_some_and(|saved| {
                saved.encoded == record.encoded() && saved.at.elapsed() < self.ttl / 3
            })
        };
        if fresh {
            return Ok(());
        }
        self.store.save(&record, self.ttl).await?;
        *self.saved.lock().unwrap_or_else(|p| p.into_inner()) = Some(Saved {
            encoded: record.encoded().to_owned(),
            at: Instant::now(),
            mutable,
        });
        Ok(())
    }

    /// The events of `stream` of this session after `after`, from the store.
    pub(crate) async fn replay(
        &self,
        stream: &str,
        after: u64,
    ) -> Result<crate::store::Replay, StoreError> {
        self.store.replay(&self.id, stream, after).await
    }

    /// Forget the session in the store (it ended), off the request path. With `if_ours`, only
    /// while the stored record is still this instance's (its newest tag is this log's): an
    /// instance that let go of a session another one took over since does not end it there.
    pub(crate) fn remove(&self, if_ours: bool) {
        let (store, id) = (Arc::clone(&self.store), self.id.clone());
        let own_tag = self.tags.last().cloned();
        tokio::spawn(async move {
            if if_ours {
                match store.load(&id).await {
                    Ok(Some(stored)) if stored.document().tags.last() == own_tag.as_ref() => {}
                    Ok(_) => return,
                    Err(error) => {
                        tracing::warn!(%error, "an ended session stays in the store until it expires");
                        return;
                    }
                }
            }
            if let Err(error) = store.remove(&id).await {
                tracing::warn!(%error, "an ended session stays in the store until it expires");
            }
        });
    }

    /// Start the task writing the session's events through to the store, in order; it ends
    /// with the session's log (which holds the returned sender).
    pub(crate) fn start_writer(&self) -> mpsc::UnboundedSender<StoredEvent> {
        let (mirror, mut events) = mpsc::unbounded_channel::<StoredEvent>();
        let (store, id) = (Arc::clone(&self.store), self.id.clone());
        let saved = Arc::clone(&self.saved);
        let bounds = StreamBounds {
            events: MAX_RETAINED_EVENTS,
            ttl: UNREAD_RETENTION,
        };
        tokio::spawn(async move {
            let mut resting_until: Option<Instant> = None;
            // Per stream, the newest event skipped and not yet reported to the store.
            let mut missed: HashMap<String, u64> = HashMap::new();
            while let Some(mut event) = events.recv().await {
                let behind = events.len() >= MOST_BEHIND;
                if behind || resting_until.is_some_and(|until| Instant::now() < until) {
                    missed.insert(event.stream.clone(), event.number);
                    continue;
                }
                event.missed_through = missed.get(&event.stream).copied();
                match store.append(&id, &event, bounds).await {
                    Ok(()) => {
                        missed.remove(&event.stream);
                        if resting_until.take().is_some() {
                            tracing::info!("a session's events reach the store again");
                        }
                    }
                    Err(error) => {
                        if resting_until.is_none() {
                            tracing::warn!(
                                %error,
                                "a session's events do not reach the store: another instance \
                                 could not replay them"
                            );
                        }
                        resting_until = Some(Instant::now() + BACK_OFF);
                        missed.insert(event.stream.clone(), event.number);
                        *saved.lock().unwrap_or_else(|p| p.into_inner()) = None;
                    }
                }
            }
        });
        mirror
    }
}

/// The session a stored record describes, served for whoever `principal` is (the adopting
/// request's); `None` when the record names a revision this build does not speak.
pub(crate) fn rebuild(
    document: &SessionDocument,
    principal: Option<crate::auth::Principal>,
) -> Option<(Session, ProtocolVersion)> {
    let version = document
        .version
        .parse::<ProtocolVersion>()
        .ok()
        .filter(|version| !version.is_modern())?;
    let mut session = Session::new();
    #[cfg(feature = "otel")]
    session.set_network_transport("tcp");
    session.set_principal(principal);
    let client = document.client_name.as_ref().map(|name| ClientInfo {
        name: name.as_str().into(),
        version: document.client_version.as_deref().map(Into::into),
    });
    session
        .begin_legacy(version, document.client_capabilities.clone(), client)
        .ok()?;
    if document.initialized {
        session.mark_initialized();
    }
    if let Some(level) = document
        .log_level
        .as_deref()
        .and_then(|level| level.parse::<LogLevel>().ok())
    {
        session.set_log_level(level);
    }
    for uri in &document.subscriptions {
        session.subscriptions().subscribe(uri);
    }
    Some((session, version))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::auth::Principal;
    use crate::store::MemorySessionStore;

    fn persist(store: &MemorySessionStore) -> Persist {
        Persist::new(
            Arc::new(store.clone()),
            "s1.abc".into(),
            Duration::from_secs(60),
            vec!["aaaaaaaa".into(), "bbbbbbbb".into()],
        )
    }

    fn served() -> Session {
        let mut session = Session::new();
        session.set_principal(Some(Principal::new("alice")));
        session
            .begin_legacy(
                ProtocolVersion::V2025_11_25,
                json!({"roots": {}}),
                Some(ClientInfo {
                    name: "client".into(),
                    version: Some("2.1".into()),
                }),
            )
            .unwrap();
        session.mark_initialized();
        session.set_log_level(LogLevel::Warning);
        session.subscriptions().subscribe("file:///b");
        session.subscriptions().subscribe("file:///a");
        session
    }

    #[tokio::test]
    async fn a_session_rebuilt_from_its_record_is_the_session_that_was_stored() {
        let store = MemorySessionStore::new();
        let persist = persist(&store);
        let version = ProtocolVersion::V2025_11_25;
        persist.save(&Mutex::new(served()), version).await.unwrap();
        let stored = store.load("s1.abc").await.unwrap().expect("written");
        let document = stored.document();
        assert_eq!(document.version, "2025-11-25");
        assert_eq!(document.principal.as_deref(), Some("alice"));
        assert_eq!(document.log_level.as_deref(), Some("warning"));
        assert_eq!(document.subscriptions, ["file:///a", "file:///b"]);
        assert_eq!(document.tags, ["aaaaaaaa", "bbbbbbbb"]);
        let (rebuilt, rebuilt_version) = rebuild(document, Some(Principal::new("alice"))).unwrap();
        assert_eq!(rebuilt_version, version);
        assert!(rebuilt.legacy().unwrap().initialized);
        assert_eq!(
            persist.record(&rebuilt, version).encoded(),
            stored.encoded(),
            "nothing lost on the way"
        );
    }

    #[tokio::test]
    async fn a_record_is_written_again_only_when_it_changed_or_is_due() {
        let store = MemorySessionStore::new();
        let persist = persist(&store);
        let version = ProtocolVersion::V2025_11_25;
        let session = Mutex::new(served());
        assert!(persist.due(), "never written");
        persist.save(&session, version).await.unwrap();
        assert!(!persist.due());
        store.remove("s1.abc").await.unwrap();
        persist.save(&session, version).await.unwrap();
        assert_eq!(
            store.load("s1.abc").await.unwrap(),
            None,
            "unchanged: not written"
        );
        session
            .lock()
            .unwrap()
            .subscriptions()
            .unsubscribe("file:///a");
        persist.save(&session, version).await.unwrap();
        let stored = store
            .load("s1.abc")
            .await
            .unwrap()
            .expect("changed: written");
        assert_eq!(stored.document().subscriptions, ["file:///b"]);

        store.remove("s1.abc").await.unwrap();
        session.lock().unwrap().set_log_level(LogLevel::Error);
        persist.save(&session, version).await.unwrap();
        let stored = store.load("s1.abc").await.unwrap().expect("level: written");
        assert_eq!(stored.document().log_level.as_deref(), Some("error"));
    }

    #[tokio::test(start_paused = true)]
    async fn an_instance_that_let_go_removes_the_record_only_while_it_is_its_own() {
        let store = MemorySessionStore::new();
        let shared: Arc<dyn SessionStore> = Arc::new(store.clone());
        let ttl = Duration::from_secs(60);
        let first = Persist::new(Arc::clone(&shared), "s1.abc".into(), ttl, vec!["a".into()]);
        let taken_over = Persist::new(shared, "s1.abc".into(), ttl, vec!["a".into(), "b".into()]);
        let version = ProtocolVersion::V2025_11_25;
        taken_over
            .save(&Mutex::new(served()), version)
            .await
            .unwrap();
        // Removal runs on a task of its own. With the clock paused, a sleep returns only once
        // no task can run: whatever that task would do is done.
        let settle = || tokio::time::sleep(Duration::from_millis(1));
        first.remove(true);
        settle().await;
        assert!(
            store.load("s1.abc").await.unwrap().is_some(),
            "not the first's any more"
        );
        taken_over.remove(true);
        settle().await;
        assert!(
            store.load("s1.abc").await.unwrap().is_none(),
            "the newest instance's"
        );
        let again = Persist::new(
            Arc::new(store.clone()),
            "s1.abc".into(),
            ttl,
            vec!["c".into()],
        );
        again.save(&Mutex::new(served()), version).await.unwrap();
        assert!(store.load("s1.abc").await.unwrap().is_some());
        first.remove(false);
        settle().await;
        assert!(
            store.load("s1.abc").await.unwrap().is_none(),
            "a DELETE removes it anyway"
        );
    }

    /// A store whose appends fail while `down` is set, recording what it was given.
    #[derive(Default)]
    struct Flaky {
        down: std::sync::atomic::AtomicBool,
        appended: Mutex<Vec<StoredEvent>>,
        written: tokio::sync::Notify,
    }

    impl SessionStore for Flaky {
        fn save<'a>(
            &'a self,
            _: &'a StoredSession,
            _: Duration,
        ) -> crate::future::BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async { Ok(()) })
        }
        fn load<'a>(
            &'a self,
            _: &'a str,
        ) -> crate::future::BoxFuture<'a, Result<Option<StoredSession>, StoreError>> {
            Box::pin(async { Ok(None) })
        }
        fn remove<'a>(
            &'a self,
            _: &'a str,
        ) -> crate::future::BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async { Ok(()) })
        }
        fn append<'a>(
            &'a self,
            _: &'a str,
            event: &'a StoredEvent,
            _: StreamBounds,
        ) -> crate::future::BoxFuture<'a, Result<(), StoreError>> {
            Box::pin(async move {
                let result = if self.down.load(std::sync::atomic::Ordering::SeqCst) {
                    Err(StoreError::new("down"))
                } else {
                    self.appended.lock().unwrap().push(event.clone());
                    Ok(())
                };
                self.written.notify_one();
                result
            })
        }
        fn replay<'a>(
            &'a self,
            _: &'a str,
            _: &'a str,
            _: u64,
        ) -> crate::future::BoxFuture<'a, Result<crate::store::Replay, StoreError>> {
            Box::pin(async { Ok(crate::store::Replay::Unknown) })
        }
    }

    fn event(number: u64) -> StoredEvent {
        StoredEvent {
            stream: "t-0".into(),
            number,
            frame: String::new(),
            request: None,
            response: false,
            missed_through: None,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn events_the_store_missed_are_reported_with_the_next_one_written() {
        let store = Arc::new(Flaky::default());
        let persist = Persist::new(
            store.clone(),
            "s1.abc".into(),
            Duration::from_secs(60),
            vec![],
        );
        let mirror = persist.start_writer();
        mirror.send(event(1)).unwrap();
        store.written.notified().await;
        store.down.store(true, std::sync::atomic::Ordering::SeqCst);
        mirror.send(event(2)).unwrap();
        store.written.notified().await;
        store.down.store(false, std::sync::atomic::Ordering::SeqCst);
        // Within the back-off: skipped without asking the store.
        mirror.send(event(3)).unwrap();
        tokio::time::sleep(BACK_OFF * 2).await;
        mirror.send(event(4)).unwrap();
        store.written.notified().await;
        let appended = store.appended.lock().unwrap().clone();
        let got: Vec<(u64, Option<u64>)> = appended
            .iter()
            .map(|event| (event.number, event.missed_through))
            .collect();
        assert_eq!(got, [(1, None), (4, Some(3))], "2 failed and 3 was skipped");
        assert!(
            persist.due(),
            "a failed write marks the record for writing again"
        );
    }

    #[test]
    fn a_record_of_a_revision_without_sessions_or_unknown_is_not_rebuilt() {
        for version in ["2026-07-28", "1999-01-01", ""] {
            let document = SessionDocument {
                version: version.into(),
                ..SessionDocument::default()
            };
            assert!(rebuild(&document, None).is_none(), "{version:?}");
        }
    }
}
