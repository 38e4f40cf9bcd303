//! Legacy sessions over HTTP: `initialize` opens one under a fresh `Mcp-Session-Id`; later
//! requests name it; DELETE, idleness or shutdown end it.
//!
//! Each session keeps its dispatcher [`Session`] (negotiated revision, running calls,
//! subscriptions) and a forwarder task that turns the server's announcements into the
//! session's notifications, sent on its GET stream when one is open (and dropped otherwise:
//! without a stream there is no one to tell).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use bytes::Bytes;
use tokio::sync::mpsc;
use tokio::task::AbortHandle;

use super::body;
use crate::dispatch::Dispatcher;
use crate::peer::Outbound;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::Outgoing;
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
    /// The open GET stream's events, if any.
    stream: Arc<Mutex<Option<mpsc::Sender<Bytes>>>>,
    /// Where the progress of a request answered with its own event stream goes, by token.
    routes: Routes,
    forwarder: AbortHandle,
}

/// Progress token (as JSON text) -> the event stream of the request that carried it.
type Routes = Arc<Mutex<HashMap<String, mpsc::UnboundedSender<Outgoing>>>>;

/// Sends a request's progress to its own stream until dropped.
pub(crate) struct Route {
    routes: Routes,
    token: String,
}

impl Drop for Route {
    fn drop(&mut self) {
        lock(&self.routes).remove(&self.token);
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

    fn idle_since(&self) -> Option<Instant> {
        let streaming = lock(&self.stream)
            .as_ref()
            .is_some_and(|stream| !stream.is_closed());
        (!streaming).then(|| *lock(&self.last_used))
    }

    /// Send the progress of the request carrying `token` (a progress token) to `stream`
    /// instead of the GET stream, until the route drops.
    pub(crate) fn route(
        &self,
        token: &serde_json::Value,
        stream: mpsc::UnboundedSender<Outgoing>,
    ) -> Route {
        let token = token.to_string();
        lock(&self.routes).insert(token.clone(), stream);
        Route {
            routes: self.routes.clone(),
            token,
        }
    }

    /// Open the GET stream: `None` when one is already open.
    pub(crate) fn open_stream(&self, capacity: usize) -> Option<mpsc::Receiver<Bytes>> {
        let mut slot = lock(&self.stream);
        if slot.as_ref().is_some_and(|stream| !stream.is_closed()) {
            return None;
        }
        let (sender, receiver) = mpsc::channel(capacity);
        *slot = Some(sender);
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
        let stream: Arc<Mutex<Option<mpsc::Sender<Bytes>>>> = Arc::default();
        // Progress and logs of the session's requests go on its GET stream (one session may
        // have several requests running) ...
        // A request that carried a progress token and takes events has its progress on its
        // own stream, so that it precedes the response.
        let routes: Routes = Arc::default();
        let (to_stream, to_routes) = (stream.clone(), routes.clone());
        session.set_outbound(Outbound::new(move |message| {
            let route =
                progress_token(&message).and_then(|token| lock(&to_routes).get(&token).cloned());
            let message = match route {
                Some(route) => match route.send(message) {
                    Ok(()) => return,
                    // That request has just been answered: the GET stream takes it.
                    Err(mpsc::error::SendError(message)) => message,
                },
                None => message,
            };
            if let Some(stream) = lock(&to_stream).as_ref()
                && stream.try_send(body::event(&message)).is_err()
            {
                tracing::debug!("a session's stream is full or closed; notification dropped");
            }
        }));
        let mut forwarder = dispatcher.notification_forwarder(&session);
        let to_stream = stream.clone();
        let forwarder = tokio::spawn(async move {
            while let Some(messages) = forwarder.next().await {
                let Some(stream) = lock(&to_stream).clone() else {
                    continue;
                };
                for message in &messages {
                    if stream.try_send(body::event(message)).is_err() {
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
fn new_id() -> String {
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
