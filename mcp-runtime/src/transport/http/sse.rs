//! The 2024-11-05 HTTP+SSE transport, beside the Streamable HTTP endpoint (checklist 11.2).
//!
//! `GET /sse` opens a session and its event stream; the first event, `endpoint`, names the URI
//! the client POSTs its messages to (`/messages?sessionId=<id>`). Each POST is answered 202 at
//! once (404 for an unknown session); everything the server says (responses, notifications,
//! its own requests when a handler asks the client) goes out as `message` events on the
//! stream. The session lives exactly as long as the stream: when the client closes it, the
//! session's calls are cancelled and its id answers 404.
//!
//! `initialize` negotiates as in any legacy session (clients of this transport speak
//! 2024-11-05, but take what the server answers), and the messages are served by the same
//! dispatcher as on stdio.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, request::Parts};
use tokio::sync::{OwnedSemaphorePermit, Semaphore, mpsc};
use tokio::task::JoinSet;

use super::answer::{UntilAnswered, until_answered};
use super::body::ResponseBody;
use super::endpoint::Inner;
use super::principal::SessionTable;
use super::response::{accepted, events, not_accepting_events, rpc_error};
use super::sessions::Full;
use crate::context::peer::Outbound;
use crate::dispatch::Reply;
use crate::dispatch::session::Session;
use crate::protocol::jsonrpc::{ErrorObject, RequestId};

/// Events a stream may queue before the client reads them. Responses wait for room;
/// notifications and questions beyond it are dropped (a client that does not read cannot be
/// waited for).
const STREAM_CAPACITY: usize = 256;

/// How long the calls of a session whose stream closed may take to stop once cancelled.
const CANCEL_GRACE: Duration = Duration::from_secs(5);

/// How many requests of one session may await their answer's delivery at once (running, or
/// answered but not yet read by the client); a POST beyond that is answered 429. A client
/// that never reads its stream then costs a bounded amount of memory.
pub(crate) const MAX_PENDING_REQUESTS: usize = 128;

/// The sessions of the HTTP+SSE transport, by id.
pub(crate) struct SseSessions {
    open: Mutex<SessionTable<SseSession>>,
    max: usize,
}

/// One session: the dispatcher's state, and the way to its stream.
struct SseSession {
    session: Mutex<Session>,
    /// Calls still running, for the stream's driver, which sends their answers as events;
    /// each holds one of `pending`'s permits until its answer is on the stream.
    calls: mpsc::UnboundedSender<(UntilAnswered, OwnedSemaphorePermit)>,
    /// The stream, for answers that are ready at once.
    events: mpsc::Sender<Bytes>,
    /// Requests not yet answered on the stream ([`MAX_PENDING_REQUESTS`]).
    pending: Arc<Semaphore>,
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // Every critical section leaves its data consistent, even one cut short by a panic.
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl SseSessions {
    pub(crate) fn new(max: usize, per_client: usize) -> Self {
        SseSessions {
            open: Mutex::new(SessionTable::new(per_client)),
            max,
        }
    }

    /// The session `id` if `caller` may use it.
    fn get(&self, id: &str, caller: Option<&str>) -> Option<Arc<SseSession>> {
        let entry = lock(&self.open).get(id).cloned()?;
        let session = lock(&entry.session);
        let allowed =
            super::principal::may_use(session.principal().map(|who| who.as_str()), caller);
        drop(session);
        allowed.then_some(entry)
    }

    fn remove(&self, id: &str) {
        lock(&self.open).remove(id);
    }
}

/// `GET` on the SSE path from `address`: a new session, answered with its stream, whose first
/// event names the URI to POST to.
pub(crate) fn open(
    inner: &Arc<Inner>,
    parts: &Parts,
    messages_path: &str,
    address: Option<std::net::IpAddr>,
) -> Response<ResponseBody> {
    if let Some(refused) = not_accepting_events(parts) {
        return refused;
    }
    if inner.shutdown.is_cancelled() {
        return rpc_error(
            StatusCode::SERVICE_UNAVAILABLE,
            None,
            ErrorObject::internal_error("the server is shutting down"),
        );
    }
    let (events_sender, receiver) = mpsc::channel(STREAM_CAPACITY);
    let (calls_sender, mut calls) = mpsc::unbounded_channel();
    let id = inner.sessions.new_id();
    let mut session = Session::new();
    #[cfg(feature = "otel")]
    {
        session.set_network_transport("tcp");
        session.set_session_id(id.as_str().into());
    }
    session.set_principal(super::principal::of(parts));
    // Progress, logs and the handlers' questions to the client go on the stream, ahead of the
    // answer of their request (which leaves once the call has returned).
    let outbound_events = events_sender.clone();
    session.set_outbound(Outbound::new(move |message| {
        if outbound_events
            .try_send(super::event::event(&message))
            .is_err()
        {
            tracing::debug!("an SSE session's stream is full or closed; message dropped");
        }
    }));
    let in_flight = session.in_flight().clone();
    let subscriptions = session.subscriptions().clone();
    let mut forwarder = inner.dispatcher.notification_forwarder(&session);
    {
        // Its sessions live as long as their streams, so none is idle to make room: a client
        // at its limit is refused.
        let client = super::principal::client(parts, address);
        let mut open = lock(&inner.sse_sessions.open);
        if open.is_full(client.as_ref()) {
            return super::response::too_many_sessions(Full::Client);
        }
        if open.len() >= inner.sse_sessions.max {
            return super::response::too_many_sessions(Full::Everyone);
        }
        open.insert(
            id.clone(),
            client,
            Arc::new(SseSession {
                session: Mutex::new(session),
                calls: calls_sender,
                events: events_sender.clone(),
                pending: Arc::new(Semaphore::new(MAX_PENDING_REQUESTS)),
            }),
        );
    }
    // The channel is new and empty: the endpoint event fits.
    let endpoint = format!("event: endpoint\ndata: {messages_path}?sessionId={id}\n\n");
    let _ = events_sender.try_send(Bytes::from(endpoint));
    tracing::debug!("an SSE session opened");

    // The stream's driver: sends the answers of the session's calls and its notifications,
    // until the client closes the stream (or, at shutdown, until its calls have finished).
    let inner = inner.clone();
    tokio::spawn(async move {
        let mut running = JoinSet::new();
        let (mut announcing, mut closing) = (true, false);
        loop {
            if closing && running.is_empty() {
                break;
            }
            tokio::select! {
                Some((call, pending)) = calls.recv() => {
                    running.spawn(async move { (call.await, pending) });
                }
                Some(done) = running.join_next(), if !running.is_empty() => {
                    // The request stops counting as pending once its answer is on the stream.
                    if let Ok((Some(answer), _pending)) = done
                        && events_sender.send(super::event::event(&answer)).await.is_err()
                    {
                        break;
                    }
                }
                messages = forwarder.next(), if announcing && !closing => match messages {
                    Some(messages) => {
                        for message in &messages {
                            if events_sender.try_send(super::event::event(message)).is_err() {
                                tracing::debug!(
                                    "an SSE session's stream is full or closed; notification dropped"
                                );
                            }
                        }
                    }
                    None => announcing = false,
                },
                () = events_sender.closed() => break,
                () = inner.shutdown.cancelled(), if !closing => {
                    // Calls still running may finish (the server's grace period bounds them)
                    // and their answers go out; then the stream ends.
                    closing = true;
                    subscriptions.close_streams();
                }
            }
        }
        inner.sse_sessions.remove(&id);
        // The calls still running are cancelled; they get a moment to wind down (nobody hears
        // their answers any more), then their futures are dropped.
        in_flight.cancel_all();
        let _ = tokio::time::timeout(CANCEL_GRACE, async {
            while running.join_next().await.is_some() {}
        })
        .await;
        running.shutdown().await;
        subscriptions.close_streams();
        tracing::debug!("an SSE session ended with its stream");
    });
    events(receiver)
}

/// `POST` on the messages path: one JSON-RPC message (or a 2025-03-26 batch) for the session
/// named by `sessionId`; 202 when accepted, its answer on the session's stream.
pub(crate) async fn post(
    inner: &Arc<Inner>,
    parts: &Parts,
    bytes: &[u8],
) -> Response<ResponseBody> {
    let caller = super::principal::caller(parts);
    let Some(entry) = session_id(parts).and_then(|id| inner.sse_sessions.get(id, caller)) else {
        return rpc_error(
            StatusCode::NOT_FOUND,
            None,
            ErrorObject::invalid_request(
                "unknown or closed session: open a new one with a GET on the SSE endpoint",
            ),
        );
    };
    let incoming = match inner.dispatcher.decode(bytes) {
        Ok(incoming) => incoming,
        Err(crate::protocol::jsonrpc::InvalidMessage { id, error, .. }) => {
            return rpc_error(StatusCode::BAD_REQUEST, id.as_ref(), *error);
        }
    };
    let ids = incoming.request_ids();
    // A request runs only when there is room for its answer: a slot on the stream for one
    // ready at once, a pending permit for one that runs on. Beyond that it is refused before
    // it runs, and a POST never waits for a client that does not read. Notifications and
    // answers to the server's questions queue nothing.
    let room = if ids.is_empty() {
        None
    } else {
        let pending = Arc::clone(&entry.pending).try_acquire_owned();
        match (pending, entry.events.try_reserve()) {
            (Ok(pending), Ok(slot)) => Some((pending, slot)),
            (_, Err(mpsc::error::TrySendError::Closed(()))) => return closed_session(),
            _ => return too_many_pending(super::response::request_id(&incoming)),
        }
    };
    let (reply, in_flight) = {
        let mut session = lock(&entry.session);
        // This request's token, not the one that opened the stream, says what it may do.
        session.set_principal(super::principal::of(parts));
        #[cfg(feature = "otel")]
        session.set_header_trace_context(super::headers::trace_context(&parts.headers));
        let reply = inner.dispatcher.handle(incoming, &mut session);
        (reply, session.in_flight().clone())
    };
    match (reply, room) {
        (Reply::None, _) => {}
        (Reply::Ready(answer), Some((_pending, slot))) => slot.send(super::event::event(&answer)),
        (Reply::Pending(call), Some((pending, _slot))) => {
            if entry
                .calls
                .send((until_answered(call, in_flight, ids), pending))
                .is_err()
            {
                return closed_session();
            }
        }
        // A batch of entries none of which could be read as a message: its errors, if the
        // stream has room.
        (Reply::Ready(answer), None) => {
            if entry.events.try_send(super::event::event(&answer)).is_err() {
                tracing::debug!("an SSE session's stream is full or closed; errors dropped");
            }
        }
        (Reply::Pending(_), None) => {
            tracing::error!("a call without a request id; dropped");
        }
    }
    accepted()
}

/// 429 for a request of a session whose client has not read the answers of the last
/// [`MAX_PENDING_REQUESTS`].
fn too_many_pending(id: Option<&RequestId>) -> Response<ResponseBody> {
    tracing::info!("an HTTP+SSE session's client does not read its answers; refused a request");
    let mut response = rpc_error(
        StatusCode::TOO_MANY_REQUESTS,
        id,
        ErrorObject::invalid_request(format!(
            "this session has {MAX_PENDING_REQUESTS} requests whose answers are not yet read \
             from its stream; read them, then retry"
        )),
    );
    response
        .headers_mut()
        .insert(http::header::RETRY_AFTER, HeaderValue::from_static("1"));
    response
}

fn closed_session() -> Response<ResponseBody> {
    rpc_error(
        StatusCode::NOT_FOUND,
        None,
        ErrorObject::invalid_request("the session's stream has closed"),
    )
}

/// The `sessionId` query parameter.
fn session_id(parts: &Parts) -> Option<&str> {
    parts
        .uri
        .query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix("sessionId="))
        .filter(|id| !id.is_empty())
}

#[cfg(test)]
mod tests {
    use http::Request;

    use super::*;

    #[test]
    fn the_session_id_comes_from_the_query() {
        let parts = |uri: &str| Request::builder().uri(uri).body(()).unwrap().into_parts().0;
        assert_eq!(session_id(&parts("/messages?sessionId=ab12")), Some("ab12"));
        assert_eq!(session_id(&parts("/messages?x=1&sessionId=cd")), Some("cd"));
        assert_eq!(session_id(&parts("/messages?sessionId=")), None);
        assert_eq!(session_id(&parts("/messages")), None);
    }
}
