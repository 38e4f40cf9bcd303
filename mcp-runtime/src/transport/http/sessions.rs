//! Legacy sessions over HTTP: `initialize` opens one under a fresh `Mcp-Session-Id`; later
//! requests name it; DELETE, idleness or shutdown end it.
//!
//! Each session keeps its dispatcher [`Session`] (negotiated revision, running calls,
//! subscriptions), the [`EventLog`] of its event streams, and a forwarder task that turns the
//! server's announcements into the session's notifications, sent on its GET stream when it has
//! one (and dropped otherwise: without a stream there is no one to tell).
//!
//! What concerns one running request (its questions to the client and their withdrawal, its
//! progress) goes on that request's own POST stream while it has one (see [`Entry::dispatching`]),
//! else on the GET stream. A handler releasing its connection
//! ([`RequestContext::release_connection`](crate::RequestContext::release_connection)) is
//! routed the same way, to the request's POST stream.
//!
//! A session is idle, and expires after [`HttpConfig::session_idle_timeout`], only while none
//! of its calls runs and no connection reads one of its streams.
//!
//! With a [`SessionStore`] every session is also written to the store, and a session another
//! instance opened is adopted from there (see [`super::shared`]): [`Sessions::adopt`]. A session
//! that ends (DELETE, idleness, a client over its limit) leaves the store too; one that this
//! instance stops serving at shutdown stays, for another instance to take over.
//!
//! [`HttpConfig::session_idle_timeout`]: super::HttpConfig::session_idle_timeout

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::task::AbortHandle;
// tokio's clock, not std's: the same in production, and the tests below can pause it, so
// whether a session has expired never depends on how loaded the machine running them is.
use tokio::time::Instant;

use super::principal::{Client, SessionTable};
use super::resume::{EventLog, Mirror};
use super::routed::{RouteReceiver, RouteSender, Routed};
use super::shared::Persist;
use crate::auth::Principal;
use crate::context::peer::Outbound;
use crate::dispatch::Dispatcher;
use crate::dispatch::session::Session;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{Outgoing, RequestId};
use crate::store::{SessionStore, StoreError};

/// Every open legacy session.
pub(crate) struct Sessions {
    table: Arc<Table>,
    max: usize,
    /// The instance's name, which every session id it makes starts with.
    ids: SessionIds,
    /// Whether the table's sweeper runs (see [`super::expiry`]).
    sweeper: super::expiry::Started,
    /// Where sessions are shared with the other instances, if anywhere.
    store: Option<Arc<dyn SessionStore>>,
}

/// The sessions, and when they expire.
struct Table {
    open: Mutex<Open>,
    idle_timeout: Duration,
}

impl Table {
    /// Whether `entry` has been idle longer than the timeout at `now`.
    fn expired(&self, entry: &Entry, now: Instant) -> bool {
        let since = *lock(&entry.last_used);
        self.idle_too_long(entry, since, now)
    }

    /// Whether `entry`, last used at `since`, has been idle longer than the timeout at `now`.
    fn idle_too_long(&self, entry: &Entry, since: Instant, now: Instant) -> bool {
        // The clock first: a session used within the timeout has not expired, whatever it is
        // doing. That is nearly every session a request names, and whether it is working
        // takes its event log's lock.
        now.saturating_duration_since(since) > self.idle_timeout && entry.idle_since().is_some()
    }

    /// End the session `id`; `false` when there was none.
    fn close(&self, id: &str) -> bool {
        let entry = lock(&self.open).remove(id);
        entry.map(|entry| entry.close()).is_some()
    }

    /// Forget sessions idle for too long: what the sweeper does, off the request path.
    fn expire(&self) {
        let now = Instant::now();
        let expired: Vec<String> = lock(&self.open)
            .iter()
            .filter(|(_, entry)| self.expired(entry, now))
            .map(|(id, _)| id.clone())
            .collect();
        for id in expired {
            tracing::debug!("a legacy session expired");
            self.close(&id);
        }
        // Sessions in use keep their record in the store from expiring.
        let due: Vec<Arc<Entry>> = lock(&self.open)
            .iter()
            .filter(|(_, entry)| entry.persist.as_ref().is_some_and(|persist| persist.due()))
            .map(|(_, entry)| Arc::clone(entry))
            .collect();
        for entry in due {
            tokio::spawn(async move {
                if let Err(error) = entry.save().await {
                    tracing::warn!(%error, "a session's record in the store was not renewed");
                }
            });
        }
    }
}

type Open = SessionTable<Entry>;

/// The id of `client`'s session unused for the longest, among those not working.
fn least_recently_used(open: &Open, client: &Client) -> Option<String> {
    open.of(client)
        .filter_map(|(id, entry)| Some((entry.idle_since()?, id)))
        .min()
        .map(|(_, id)| id.clone())
}

/// One legacy session.
pub(crate) struct Entry {
    pub(crate) session: Mutex<Session>,
    pub(crate) version: ProtocolVersion,
    /// The principal it belongs to, for good (a later request's token may widen the
    /// session's scopes, never change its subject): checked on every request without taking
    /// the session's lock.
    owner: Option<Box<str>>,
    /// When it was last used. Kept in the entry with `calls`, not behind pointers of their
    /// own: every request reads both, and with many sessions open each pointer followed is
    /// a likely cache miss.
    last_used: Mutex<Instant>,
    /// How many of its calls are running (see [`Entry::busy`]).
    calls: AtomicUsize,
    /// Its event streams (GET and POST), resumable from 2025-11-25 on.
    log: Arc<EventLog>,
    /// Where the messages about a request that may get its own event stream go.
    routes: Routes,
    forwarder: AbortHandle,
    /// Its place in the session store, if there is one.
    persist: Option<Arc<Persist>>,
}

/// Marks its session in use while one of its calls runs: a session is not idle while it
/// works for its client, however long that takes (a long tool, a question awaiting the
/// user). Dropped, the session's idle time starts anew.
pub(crate) struct Busy(Arc<Entry>);

impl Drop for Busy {
    fn drop(&mut self) {
        // Before the count falls, so whoever sees no call running also sees this moment.
        *lock(&self.0.last_used) = Instant::now();
        self.0.calls.fetch_sub(1, Ordering::SeqCst);
    }
}

/// What a message is about: a request (by id), or the request that carried a progress token
/// (the token as JSON text).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum RouteKey {
    Request(RequestId),
    Token(String),
}

/// Where the messages about a session's requests go, shared by its entry, its outbound and
/// the routes of its POSTs.
type Routes = Arc<Mutex<RouteTable>>;

/// Request or progress token -> the stream of the request's POST; and the requests being
/// dispatched now, whose streams are not open yet.
/// Keyed by the session's own requests: a client choosing colliding keys slows only itself.
#[derive(Default)]
struct RouteTable {
    streams: crate::fast_hash::FastMap<RouteKey, RouteSender>,
    /// The POST being dispatched (one at a time: under the session's lock) and what came for
    /// its requests meanwhile. Nearly every call is answered in its dispatch with nothing
    /// ahead of its answer: such a POST never opens a queue or enters the map.
    dispatching: Option<Held>,
}

/// What came for the requests of a POST still being dispatched.
struct Held {
    keys: RouteKeys,
    routed: Vec<Routed>,
}

impl RouteTable {
    /// Send `routed` about `key` to its POST's stream, or hold it for a POST being
    /// dispatched; given back when the request has no stream (or has been answered).
    fn deliver(&mut self, key: &RouteKey, routed: Routed) -> Result<(), Routed> {
        if let Some(stream) = self.streams.get(key) {
            return stream.send(routed);
        }
        match &mut self.dispatching {
            Some(held) if held.keys.iter().any(|held| held == key) => {
                held.routed.push(routed);
                Ok(())
            }
            _ => Err(routed),
        }
    }
}

/// Sends the messages about some requests to their POST's stream until dropped.
pub(crate) struct Route {
    routes: Routes,
    keys: RouteKeys,
}

/// How the dispatch of a POST whose client takes events left its requests' messages.
pub(crate) enum Dispatched {
    /// Its requests were answered (or it held none): what came for them on the way, in order.
    Answered(Vec<Routed>),
    /// One runs on: its messages come on the receiver, until the route drops.
    Routed(Route, RouteReceiver),
}

/// The keys of one POST's route. Nearly every POST is one request without a progress token:
/// its one key is kept without a vector, which would be an allocation per POST.
enum RouteKeys {
    One(RouteKey),
    Many(Vec<RouteKey>),
}

impl RouteKeys {
    /// The keys of the requests `ids` and the progress tokens `tokens`.
    fn of(ids: &[RequestId], tokens: &[serde_json::Value]) -> Self {
        match (ids, tokens) {
            ([id], []) => RouteKeys::One(RouteKey::Request(id.clone())),
            _ => RouteKeys::Many(
                ids.iter()
                    .cloned()
                    .map(RouteKey::Request)
                    .chain(
                        tokens
                            .iter()
                            .map(|token| RouteKey::Token(token.to_string())),
                    )
                    .collect(),
            ),
        }
    }

    fn iter(&self) -> std::slice::Iter<'_, RouteKey> {
        match self {
            RouteKeys::One(key) => std::slice::from_ref(key).iter(),
            RouteKeys::Many(keys) => keys.iter(),
        }
    }
}

impl Drop for Route {
    fn drop(&mut self) {
        let mut routes = lock(&self.routes);
        for key in self.keys.iter() {
            routes.streams.remove(key);
        }
    }
}

/// What a message about `related` (a request id, if the sender knew it) is about, as a route
/// knows it. Progress is recognised by its token.
fn route_key(related: Option<&RequestId>, message: &Outgoing) -> Option<RouteKey> {
    match related {
        Some(id) => Some(RouteKey::Request(id.clone())),
        None => progress_token(message).map(RouteKey::Token),
    }
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
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Full {
    /// On the whole server.
    Everyone,
    /// For this client, and none of its own is idle.
    Client,
}

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

    /// The session's event streams.
    pub(crate) fn log(&self) -> &Arc<EventLog> {
        &self.log
    }

    /// Mark the session in use until the returned guard drops (while a call runs).
    pub(crate) fn busy(self: &Arc<Self>) -> Busy {
        self.calls.fetch_add(1, Ordering::SeqCst);
        Busy(Arc::clone(self))
    }

    /// Since when nothing happened in the session: `None` while a call runs or a connection
    /// reads one of its streams.
    fn idle_since(&self) -> Option<Instant> {
        let working = self.calls.load(Ordering::SeqCst) > 0 || self.log.has_reader();
        (!working).then(|| *lock(&self.last_used))
    }

    /// Whether a request for `caller` may reach it: see [`super::principal::may_use`].
    fn may_use(&self, caller: Option<&str>) -> bool {
        super::principal::may_use(self.owner.as_deref(), caller)
    }

    /// Hold what concerns the requests `ids` (questions to the client, their withdrawal) and
    /// the progress reported under `tokens` while they are dispatched, for their POST's stream
    /// instead of the GET stream: see [`Entry::dispatched`]. Called under the session's lock,
    /// which the dispatch holds, with [`Entry::dispatched`] before it is let go.
    pub(crate) fn dispatching(&self, ids: &[RequestId], tokens: &[serde_json::Value]) {
        lock(&self.routes).dispatching = Some(Held {
            keys: RouteKeys::of(ids, tokens),
            routed: Vec::new(),
        });
    }

    /// End the dispatch [`Entry::dispatching`] began: what came for its requests meanwhile,
    /// or, when one of them `runs_on`, a route to a new queue of the POST's, which gets what
    /// came first and then whatever comes next, until the route drops.
    pub(crate) fn dispatched(&self, runs_on: bool) -> Dispatched {
        let mut routes = lock(&self.routes);
        let Some(Held { keys, routed }) = routes.dispatching.take() else {
            return Dispatched::Answered(Vec::new());
        };
        if !runs_on {
            return Dispatched::Answered(routed);
        }
        let (stream, receiver) = super::routed::channel();
        for key in keys.iter() {
            routes.streams.insert(key.clone(), stream.clone());
        }
        // Under the table's lock: nothing sent about these requests from now on can pass
        // what came before.
        for routed in routed {
            let _ = stream.send(routed);
        }
        drop(routes);
        let route = Route {
            routes: self.routes.clone(),
            keys,
        };
        Dispatched::Routed(route, receiver)
    }

    /// Stop its notifications and end its GET stream (once its connection has read what is
    /// already sent).
    fn end_notifications(&self) {
        self.forwarder.abort();
        self.log.end_standalone();
        self.session().subscriptions().close_streams();
    }

    /// Write the session's record through to the store (when there is one and the record
    /// changed or is due).
    pub(crate) async fn save(&self) -> Result<(), StoreError> {
        match &self.persist {
            Some(persist) => persist.save(&self.session, self.version).await,
            None => Ok(()),
        }
    }

    /// Whether the session is shared through a store.
    pub(crate) fn is_shared(&self) -> bool {
        self.persist.is_some()
    }

    /// The events of another instance's `stream` of this session after `after`, from the
    /// store; `Ok(None)` without a store, or when the store cannot resume it.
    pub(crate) async fn replay(
        &self,
        stream: &str,
        after: u64,
    ) -> Result<Option<crate::store::Replay>, StoreError> {
        match &self.persist {
            Some(persist) => persist.replay(stream, after).await.map(Some),
            None => Ok(None),
        }
    }

    /// End the session: end its streams, cancel its calls (also those nobody reads), and
    /// forget it in the store unless another instance has taken it over since.
    fn close(&self) {
        if let Some(persist) = &self.persist {
            persist.remove(true);
        }
        self.end_notifications();
        self.log.close();
        self.session().in_flight().cancel_all();
    }
}

impl Sessions {
    pub(crate) fn new(idle_timeout: Duration, max: usize, per_client: usize) -> Self {
        Sessions {
            table: Arc::new(Table {
                open: Mutex::new(SessionTable::new(per_client)),
                idle_timeout,
            }),
            max,
            ids: SessionIds::default(),
            sweeper: super::expiry::Started::default(),
            store: None,
        }
    }

    /// Share the sessions through `store` (none: they live in this instance only).
    pub(crate) fn shared(mut self, store: Option<Arc<dyn SessionStore>>) -> Self {
        self.store = store;
        self
    }

    /// Session ids that start with `instance` (see [`SessionIds`]).
    pub(crate) fn named(mut self, ids: SessionIds) -> Self {
        self.ids = ids;
        self
    }

    /// A new session id, named for this instance (the HTTP+SSE transport's sessions use them
    /// too).
    pub(crate) fn new_id(&self) -> String {
        self.ids.new_id()
    }

    /// Start the sweeper that expires idle sessions, the first time only.
    fn start_sweeper(&self) {
        if self.sweeper.first() {
            let every = super::expiry::sweep_interval(self.table.idle_timeout);
            drop(super::expiry::spawn_sweeper(
                Arc::downgrade(&self.table),
                every,
                Table::expire,
            ));
        }
    }

    /// Keep `session` (just initialized at `version`) for `client` under a new id, and start
    /// forwarding its notifications. A client at its limit loses its least recently used idle
    /// session. Must run inside a tokio runtime.
    #[cfg(test)]
    pub(crate) fn open(
        &self,
        session: Session,
        version: ProtocolVersion,
        dispatcher: &Dispatcher,
        client: Option<Client>,
    ) -> Result<String, Full> {
        self.open_entry(session, version, dispatcher, client)
            .map(|(id, _)| id)
    }

    /// [`open`](Self::open), with the session kept.
    pub(crate) fn open_entry(
        &self,
        session: Session,
        version: ProtocolVersion,
        dispatcher: &Dispatcher,
        client: Option<Client>,
    ) -> Result<(String, Arc<Entry>), Full> {
        let id = self.ids.new_id();
        let entry = self.admit(id.clone(), session, version, dispatcher, client, Vec::new())?;
        Ok((id, entry))
    }

    /// The session `id` another instance opened, from the store: adopted when `principal`
    /// (the caller) is the one it is bound to, and served here from then on. `Ok(None)` when
    /// there is no store, the store has no such session, it is another principal's, or this
    /// instance is full.
    pub(crate) async fn adopt(
        &self,
        id: &str,
        principal: Option<Principal>,
        client: Option<Client>,
        dispatcher: &Dispatcher,
    ) -> Result<Option<Arc<Entry>>, StoreError> {
        let Some(store) = &self.store else {
            return Ok(None);
        };
        if !could_be_session_id(id) {
            return Ok(None);
        }
        if lock(&self.table.open).get(id).is_some() {
            // Known here, but not to this caller.
            return Ok(None);
        }
        let Some(stored) = store.load(id).await? else {
            return Ok(None);
        };
        let document = stored.document();
        let caller = principal.as_ref().map(|who| who.as_str().to_owned());
        let caller = caller.as_deref();
        if document.principal.as_deref() != caller {
            tracing::warn!("refused a request naming another principal's session (in the store)");
            return Ok(None);
        }
        let Some((session, version)) = super::shared::rebuild(document, principal) else {
            tracing::warn!(
                version = document.version,
                "a stored session of a revision this server does not speak; not adopted"
            );
            return Ok(None);
        };
        let tags = document.tags.clone();
        let entry = match self.admit(id.to_owned(), session, version, dispatcher, client, tags) {
            Ok(entry) => entry,
            Err(full) => {
                tracing::warn!(?full, "too many sessions to take one over from the store");
                return Ok(None);
            }
        };
        if !entry.may_use(caller) {
            return Ok(None);
        }
        if let Err(error) = entry.save().await {
            tracing::warn!(%error, "an adopted session's record was not written back");
        }
        tracing::info!("took over a legacy session from the store");
        Ok(Some(entry))
    }

    /// Keep `session` under `id` (or return the session already kept under it), with its
    /// event log tagged apart from `tags` (the session's earlier logs').
    fn admit(
        &self,
        id: String,
        mut session: Session,
        version: ProtocolVersion,
        dispatcher: &Dispatcher,
        client: Option<Client>,
        mut tags: Vec<String>,
    ) -> Result<Arc<Entry>, Full> {
        self.start_sweeper();
        let mut open = lock(&self.table.open);
        if let Some(existing) = open.get(&id) {
            // Two requests adopted it at once: the first one's stays.
            return Ok(Arc::clone(existing));
        }
        if open.len() >= self.max {
            // Sessions that expired since the last sweep still count: sweep before refusing.
            drop(open);
            self.table.expire();
            open = lock(&self.table.open);
        }
        let mut evicted = None;
        if let Some(full) = client.as_ref().filter(|client| open.is_full(Some(client))) {
            let Some(oldest) = least_recently_used(&open, full) else {
                return Err(Full::Client);
            };
            tracing::debug!("a client at its session limit opened another; its oldest ends");
            evicted = open.remove(&oldest);
        }
        if open.len() >= self.max {
            return Err(Full::Everyone);
        }
        let resumable = version >= ProtocolVersion::V2025_11_25;
        let tag = super::resume::new_tag(&tags);
        tags.push(tag.clone());
        let persist = self.store.as_ref().map(|store| {
            Arc::new(Persist::new(
                Arc::clone(store),
                id.clone(),
                self.table.idle_timeout,
                tags,
            ))
        });
        let mirror = (persist.as_ref()).filter(|_| resumable).map(|persist| {
            let persist = Arc::clone(persist);
            Mirror::starting_with(move || persist.start_writer())
        });
        let log = EventLog::mirrored(resumable, tag, mirror);
        // What concerns a request that takes events (its questions to the client, their
        // withdrawal, its progress) goes on its POST's stream, ahead of its response (the spec:
        // server requests SHOULD ride the related request's stream). The rest, and everything
        // about a request whose client takes no events, goes on the GET stream (one session may
        // have several requests running).
        let routes: Routes = Arc::default();
        let (to_log, to_routes) = (log.clone(), routes.clone());
        let outbound = Outbound::routed(move |related, message| {
            let message = match route_key(related, &message) {
                Some(key) => match lock(&to_routes).deliver(&key, Routed::Message(message)) {
                    Ok(()) => return,
                    // That request has no stream (or has been answered): the GET stream takes it.
                    Err(Routed::Message(message)) => message,
                    Err(Routed::Release) => unreachable!("a message is given back as sent"),
                },
                None => message,
            };
            if !to_log.push_standalone(&message) {
                tracing::debug!(
                    "no stream to send a session's message on (no GET stream open); dropped"
                );
            }
        });
        // Only a stream the client can resume may be let go of before its response.
        let to_routes = routes.clone();
        session.set_outbound(outbound.with_release(move |related| {
            resumable
                && lock(&to_routes)
                    .deliver(&RouteKey::Request(related.clone()), Routed::Release)
                    .is_ok()
        }));
        let mut forwarder = dispatcher.notification_forwarder(&session);
        let to_log = log.clone();
        let forwarder = tokio::spawn(async move {
            while let Some(messages) = forwarder.next().await {
                for message in &messages {
                    if !to_log.push_standalone(message) {
                        tracing::debug!("no GET stream open; a notification was dropped");
                    }
                }
            }
        })
        .abort_handle();
        #[cfg(feature = "otel")]
        session.set_session_id(id.as_str().into());
        let owner = session.principal().map(|who| who.as_str().into());
        let entry = Arc::new(Entry {
            session: Mutex::new(session),
            version,
            owner,
            last_used: Mutex::new(Instant::now()),
            calls: AtomicUsize::new(0),
            log,
            routes,
            forwarder,
            persist,
        });
        open.insert(id, client, Arc::clone(&entry));
        drop(open);
        if let Some(evicted) = evicted {
            evicted.close();
        }
        Ok(entry)
    }

    /// Forget the session `id` here and in the store: it was opened, but its record could not
    /// be written, so the client never learns its id.
    pub(crate) fn discard(&self, id: &str) {
        self.table.close(id);
    }

    /// The session `id`, marked used, if `caller` may use it; `None` when unknown, expired,
    /// or another principal's (to whom it is as good as unknown, and whose requests do not
    /// keep it from expiring).
    pub(crate) fn get(&self, id: &str, caller: Option<&str>) -> Option<Arc<Entry>> {
        let entry = lock(&self.table.open).get(id).cloned()?;
        if !entry.may_use(caller) {
            return None;
        }
        // One reading of the clock, and one lock of it, for both: every legacy POST comes here.
        let now = Instant::now();
        let since = std::mem::replace(&mut *lock(&entry.last_used), now);
        if self.table.idle_too_long(&entry, since, now) {
            self.table.close(id);
            return None;
        }
        Some(entry)
    }

    /// End the session `id` at its client's request; `false` when `caller` has no such
    /// session.
    pub(crate) fn end(&self, id: &str, caller: Option<&str>) -> bool {
        let Some(entry) = self.get(id, caller) else {
            return false;
        };
        if let Some(persist) = &entry.persist {
            // The client ended it: gone on every instance.
            persist.remove(false);
        }
        self.table.close(id)
    }

    /// End every session at shutdown: streams close at once, while calls still running keep
    /// going (the server's grace period bounds them) so their answers reach their clients.
    pub(crate) fn close_all(&self) {
        let all = lock(&self.table.open).drain();
        for entry in all {
            entry.end_notifications();
        }
    }
}

/// Whether `id` has the shape of an id [`SessionIds`] makes (an instance name of at most 32
/// letters, digits, `-` or `_` and a dot, then 64 hex digits): only those are looked up in the
/// store, so a made-up id never reaches another key.
fn could_be_session_id(id: &str) -> bool {
    let (instance, random) = id.rsplit_once('.').unwrap_or(("", id));
    instance.len() <= 32
        && (instance.bytes()).all(|byte| byte.is_ascii_alphanumeric() || b"-_".contains(&byte))
        && random.len() == 64
        && random.bytes().all(|byte| byte.is_ascii_hexdigit())
}

/// How session ids are made: 32 random bytes as 64 hex digits (visible ASCII, unguessable),
/// after the instance's name and a dot when it has one (`a1.3f9c...`), so that a proxy in front
/// of several instances can route each session to its own by the id's prefix alone (an nginx
/// `map` on `$http_mcp_session_id`; see the README's "Scaling out").
#[derive(Debug, Clone, Default)]
pub(crate) struct SessionIds {
    /// `instance.`, or empty.
    prefix: String,
}

impl SessionIds {
    /// Ids named for `instance` ([`HttpConfig::instance_id`](super::HttpConfig::instance_id)
    /// checks it).
    pub(crate) fn for_instance(instance: Option<&str>) -> Self {
        SessionIds {
            prefix: instance.map_or_else(String::new, |instance| format!("{instance}.")),
        }
    }

    pub(crate) fn new_id(&self) -> String {
        let mut bytes = [0u8; 32];
        if let Err(error) = getrandom::fill(&mut bytes) {
            // No randomness at all: the OS is broken; refusing to serve would be no safer.
            panic!("cannot get random bytes for a session id: {error}");
        }
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut id = String::with_capacity(self.prefix.len() + 64);
        id.push_str(&self.prefix);
        for byte in bytes {
            id.push(char::from(HEX[usize::from(byte >> 4)]));
            id.push(char::from(HEX[usize::from(byte & 15)]));
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::{Server, ServerInfo};

    /// A 2025-11-25 session opened in `sessions`: its id and its entry.
    fn open_2025_11_25(sessions: &Sessions, dispatcher: &Dispatcher) -> (String, Arc<Entry>) {
        let mut session = Session::new();
        session
            .begin_legacy(ProtocolVersion::V2025_11_25, serde_json::json!({}), None)
            .unwrap();
        sessions
            .open_entry(session, ProtocolVersion::V2025_11_25, dispatcher, None)
            .unwrap()
    }

    #[tokio::test]
    async fn what_comes_for_a_post_being_dispatched_is_held_then_precedes_what_comes_after() {
        let dispatcher = Server::new(ServerInfo::new("s", "1")).dispatcher().unwrap();
        let sessions = Sessions::new(Duration::from_secs(60), 10, 10);
        let (_, entry) = open_2025_11_25(&sessions, &dispatcher);
        let (ours, other) = (
            RequestId::String("ours".to_owned()),
            RequestId::String("other".to_owned()),
        );
        let deliver = |id: &RequestId, n: u64| {
            let message = Outgoing::notification("notifications/message", Some(&n));
            lock(&entry.routes).deliver(&RouteKey::Request(id.clone()), Routed::Message(message))
        };
        let numbers = |routed: Vec<Routed>| -> Vec<String> {
            routed
                .into_iter()
                .map(|routed| match routed {
                    Routed::Message(message) => {
                        let value: serde_json::Value =
                            serde_json::from_slice(message.as_bytes()).unwrap();
                        value["params"].to_string()
                    }
                    Routed::Release => "release".to_owned(),
                })
                .collect()
        };

        // No POST of the request being dispatched, nor a stream for it: the GET stream's.
        assert!(deliver(&ours, 0).is_err());

        // Answered in its dispatch: what came on the way is given to the POST, in order.
        entry.dispatching(std::slice::from_ref(&ours), &[]);
        assert!(deliver(&ours, 1).is_ok());
        assert!(
            deliver(&other, 2).is_err(),
            "another request's message was held"
        );
        assert!(deliver(&ours, 3).is_ok());
        let Dispatched::Answered(early) = entry.dispatched(false) else {
            panic!("a POST whose calls were answered got a route");
        };
        assert_eq!(numbers(early), ["1", "3"]);
        assert!(deliver(&ours, 4).is_err(), "held past its dispatch");

        // Running on: what was held goes to its stream ahead of what comes next, until its
        // route drops.
        entry.dispatching(std::slice::from_ref(&ours), &[]);
        assert!(deliver(&ours, 5).is_ok());
        let Dispatched::Routed(route, mut receiver) = entry.dispatched(true) else {
            panic!("a POST whose call runs on got no route");
        };
        assert!(deliver(&ours, 6).is_ok());
        assert!(
            deliver(&other, 7).is_err(),
            "another request's message was routed"
        );
        drop(route);
        assert!(deliver(&ours, 8).is_err(), "routed past its route");
        let received = std::iter::from_fn(|| receiver.try_recv()).collect();
        assert_eq!(numbers(received), ["5", "6"]);
    }

    #[test]
    fn ids_are_long_random_visible_ascii() {
        let ids = SessionIds::default();
        let (a, b) = (ids.new_id(), ids.new_id());
        assert_ne!(a, b);
        assert_eq!(a.len(), 64);
        assert!(a.bytes().all(|byte| byte.is_ascii_hexdigit()));
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_another_instance_took_over_stays_in_the_store_when_its_first_expires() {
        use crate::store::{MemorySessionStore, SessionStore};
        let dispatcher = Server::new(ServerInfo::new("s", "1")).dispatcher().unwrap();
        let store = MemorySessionStore::new();
        let shared = || Some(Arc::new(store.clone()) as Arc<dyn SessionStore>);
        let timeout = Duration::from_secs(8);
        let a = Sessions::new(timeout, 10, 10).shared(shared());
        let b = Sessions::new(timeout, 10, 10).shared(shared());
        let (id, on_a) = open_2025_11_25(&a, &dispatcher);
        on_a.save().await.unwrap();
        let on_b = b.adopt(&id, None, None, &dispatcher).await.unwrap();
        let on_b = on_b.expect("B adopts what A stored");
        let tags = store
            .load(&id)
            .await
            .unwrap()
            .unwrap()
            .document()
            .tags
            .clone();
        assert_eq!(tags.len(), 2, "A's log tag, then B's: {tags:?}");
        assert_ne!(tags[0], tags[1]);
        // A forgets its copy, idle; B goes on using the session, which stays in the store.
        let _working = on_b.busy();
        // Just past the sweep that expires A's copy, and before B's sweeps write the record
        // again (they renew it while the session is in use): a record A removed would be
        // missing now.
        let sweep = super::super::expiry::sweep_interval(timeout);
        tokio::time::sleep(timeout + sweep + Duration::from_millis(1)).await;
        assert!(lock(&a.table.open).get(&id).is_none(), "expired on A");
        // The store is told off the request path, by a task of its own. With the clock paused,
        // a sleep returns only once no task can run: whatever that task would do is done.
        let settled = || tokio::time::sleep(Duration::from_millis(1));
        settled().await;
        assert!(store.load(&id).await.unwrap().is_some(), "still B's");
        // B's client ends it: gone everywhere.
        assert!(b.end(&id, None));
        settled().await;
        assert!(store.load(&id).await.unwrap().is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_in_use_keeps_its_record_in_the_store_from_expiring() {
        use crate::store::{MemorySessionStore, SessionStore};
        let dispatcher = Server::new(ServerInfo::new("s", "1")).dispatcher().unwrap();
        let store = MemorySessionStore::new();
        let timeout = Duration::from_secs(8);
        let sessions = Sessions::new(timeout, 10, 10)
            .shared(Some(Arc::new(store.clone()) as Arc<dyn SessionStore>));
        let mut session = Session::new();
        session
            .begin_legacy(ProtocolVersion::V2025_11_25, serde_json::json!({}), None)
            .unwrap();
        let (id, entry) = sessions
            .open_entry(session, ProtocolVersion::V2025_11_25, &dispatcher, None)
            .unwrap();
        entry.save().await.unwrap();
        let working = entry.busy();
        // Three times the record's time to live, with no request: the sweeps renew it.
        tokio::time::sleep(timeout * 3).await;
        assert!(
            store.load(&id).await.unwrap().is_some(),
            "renewed while in use"
        );
        drop(working);
        tokio::time::sleep(timeout * 3).await;
        assert!(
            lock(&sessions.table.open).get(&id).is_none(),
            "expired once idle"
        );
        assert!(
            store.load(&id).await.unwrap().is_none(),
            "and gone from the store"
        );
    }

    #[test]
    fn only_ids_of_the_runtime_s_shape_are_looked_up_in_the_store() {
        for ids in [
            SessionIds::default(),
            SessionIds::for_instance(Some("a-1_b")),
        ] {
            assert!(could_be_session_id(&ids.new_id()));
        }
        let hex = "0".repeat(64);
        for made_up in [
            String::new(),
            "abc".into(),
            format!("a:b.{hex}"),
            format!("{hex}:stream:x"),
            format!("a.{}", "0".repeat(63)),
            format!("{}.{hex}", "a".repeat(33)),
        ] {
            assert!(!could_be_session_id(&made_up), "{made_up:?}");
        }
    }

    #[test]
    fn ids_start_with_their_instance_name() {
        let id = SessionIds::for_instance(Some("a1")).new_id();
        let (instance, random) = id.split_once('.').unwrap();
        assert_eq!(instance, "a1");
        assert_eq!(random.len(), 64);
        assert!(random.bytes().all(|byte| byte.is_ascii_hexdigit()));
    }

    #[tokio::test(start_paused = true)]
    async fn the_sweeper_forgets_idle_sessions_without_a_request() {
        let dispatcher = Server::new(ServerInfo::new("s", "1")).dispatcher().unwrap();
        let timeout = Duration::from_secs(8);
        let sessions = Sessions::new(timeout, 10, 10);
        let version = ProtocolVersion::V2025_11_25;
        let idle = sessions
            .open(Session::new(), version, &dispatcher, None)
            .unwrap();
        let working = sessions
            .open(Session::new(), version, &dispatcher, None)
            .unwrap();
        let _call = sessions.get(&working, None).unwrap().busy();
        tokio::time::sleep(timeout + super::super::expiry::sweep_interval(timeout) * 2).await;
        let open = lock(&sessions.table.open);
        assert!(open.get(&idle).is_none(), "swept with no request naming it");
        assert!(
            open.get(&working).is_some(),
            "a session whose call runs stays"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_full_server_sweeps_before_it_refuses() {
        let dispatcher = Server::new(ServerInfo::new("s", "1")).dispatcher().unwrap();
        let sessions = Sessions::new(Duration::from_millis(50), 1, 10);
        let version = ProtocolVersion::V2025_11_25;
        let first = sessions
            .open(Session::new(), version, &dispatcher, None)
            .unwrap();
        assert_eq!(
            sessions.open(Session::new(), version, &dispatcher, None),
            Err(Full::Everyone)
        );
        // Expired, but the sweeper (every second) has not come by yet.
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(lock(&sessions.table.open).get(&first).is_some());
        assert!(
            sessions
                .open(Session::new(), version, &dispatcher, None)
                .is_ok()
        );
        assert!(lock(&sessions.table.open).get(&first).is_none());
    }

    #[tokio::test(start_paused = true)]
    async fn sessions_open_expire_and_close() {
        let dispatcher = Server::new(ServerInfo::new("s", "1")).dispatcher().unwrap();
        let sessions = Sessions::new(Duration::from_millis(50), 2, 2);
        let version = ProtocolVersion::V2025_06_18;
        let a = sessions
            .open(Session::new(), version, &dispatcher, None)
            .unwrap();
        let b = sessions
            .open(Session::new(), version, &dispatcher, None)
            .unwrap();
        assert!(
            sessions
                .open(Session::new(), version, &dispatcher, None)
                .is_err()
        );
        assert_eq!(sessions.get(&a, None).unwrap().version, version);
        assert!(sessions.end(&b, None));
        assert!(!sessions.end(&b, None));
        assert!(sessions.get(&b, None).is_none());
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(sessions.get(&a, None).is_none(), "idle sessions expire");
    }

    #[tokio::test]
    async fn a_session_has_one_stream_at_a_time() {
        let dispatcher = Server::new(ServerInfo::new("s", "1")).dispatcher().unwrap();
        let sessions = Sessions::new(Duration::from_secs(60), 10, 10);
        let id = sessions
            .open(
                Session::new(),
                ProtocolVersion::V2025_03_26,
                &dispatcher,
                None,
            )
            .unwrap();
        let entry = sessions.get(&id, None).unwrap();
        let first = entry.log().open_standalone().unwrap();
        assert!(entry.log().open_standalone().is_none());
        drop(first);
        assert!(
            entry.log().open_standalone().is_some(),
            "a closed stream may be reopened"
        );
    }

    #[tokio::test(start_paused = true)]
    async fn a_session_is_not_idle_while_a_call_runs_or_a_stream_is_read() {
        let dispatcher = Server::new(ServerInfo::new("s", "1")).dispatcher().unwrap();
        let sessions = Sessions::new(Duration::from_millis(50), 10, 10);
        let version = ProtocolVersion::V2025_11_25;
        let working = sessions
            .open(Session::new(), version, &dispatcher, None)
            .unwrap();
        let reading = sessions
            .open(Session::new(), version, &dispatcher, None)
            .unwrap();
        let call = sessions.get(&working, None).unwrap().busy();
        let stream = sessions
            .get(&reading, None)
            .unwrap()
            .log()
            .open_standalone();
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(sessions.get(&working, None).is_some(), "a call runs");
        assert!(sessions.get(&reading, None).is_some(), "a stream is read");
        drop((call, stream));
        assert!(
            sessions.get(&working, None).is_some(),
            "idle time starts when the call ends"
        );
        tokio::time::sleep(Duration::from_millis(80)).await;
        assert!(sessions.get(&working, None).is_none());
        assert!(sessions.get(&reading, None).is_none());
    }

    #[tokio::test]
    async fn a_client_at_its_limit_loses_its_least_recently_used_idle_session_only() {
        let dispatcher = Server::new(ServerInfo::new("s", "1")).dispatcher().unwrap();
        let sessions = Sessions::new(Duration::from_secs(60), 5, 2);
        let version = ProtocolVersion::V2025_11_25;
        let open = |name: &str| {
            let mut session = Session::new();
            session.set_principal(Some(super::super::principal::Principal::new(name)));
            let client = Some(Client::Principal(name.into()));
            sessions.open(session, version, &dispatcher, client)
        };
        let first = open("alice").unwrap();
        let working = open("alice").unwrap();
        let _call = sessions.get(&working, Some("alice")).unwrap().busy();
        let third = open("alice").unwrap();
        assert!(
            sessions.get(&first, Some("alice")).is_none(),
            "the idle one made room"
        );
        assert!(sessions.get(&working, Some("alice")).is_some());
        let _another_call = sessions.get(&third, Some("alice")).unwrap().busy();
        assert_eq!(open("alice"), Err(Full::Client), "none of alice's is idle");
        assert!(sessions.get(&third, Some("alice")).is_some());
        // Bob is not held back by alice, only by the server's limit.
        let bobs = [
            open("bob").unwrap(),
            open("carol").unwrap(),
            open("dave").unwrap(),
        ];
        assert_eq!(open("erin"), Err(Full::Everyone));
        assert!(sessions.get(&bobs[0], Some("bob")).is_some());
        assert!(
            sessions.get(&bobs[0], Some("alice")).is_none(),
            "another principal's session is unknown to alice"
        );
    }
}
