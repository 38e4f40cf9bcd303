//! 2025-03-26 to 2025-11-25 over HTTP: `initialize` opens a session under a new
//! `Mcp-Session-Id`; every later POST names it and is served with that session's state; GET
//! opens the session's stream of server-to-client notifications, or resumes one of its
//! streams (`Last-Event-ID`, 2025-11-25).
//!
//! A POST answered with events in a 2025-11-25 session can be resumed (see [`super::resume`]):
//! a client that disconnects does not cancel its call, whose messages wait for it to come back
//! with `Last-Event-ID` (the spec: disconnection SHOULD NOT be taken for cancellation). The
//! streams of 2025-03-26 and 2025-06-18 sessions have no event ids, so their client can never
//! collect what follows a disconnection: there it still cancels the call. The spec's SHOULD NOT
//! leaves room for that, and running on would only produce a result nobody can receive. The
//! same holds in every revision for a POST awaiting a plain JSON answer, which has no ids
//! either.
//!
//! With a session store ([`Server::session_store`](crate::Server::session_store)) a request
//! naming a session this instance does not know adopts it from the store (see
//! [`super::shared`]), and a `Last-Event-ID` of a stream another instance served is replayed
//! from the store ([`replay_from_store`]). What a call that was running on an instance that
//! died becomes: its POST's connection breaks (through a proxy, the client gets the proxy's
//! error or an event stream that ends early). A client that resumes that stream elsewhere
//! gets the call's events the store kept after its `Last-Event-ID`, then, in place of the
//! response nobody will send, a JSON-RPC error for the request (`-32603`, saying the call is
//! lost), and the stream ends; a client that awaited a plain JSON answer gets nothing more
//! and must send the request again.

use std::future::Future;
use std::sync::Arc;

use http::{HeaderValue, Response, StatusCode, request::Parts};
use tokio::sync::mpsc;

use super::answer::until_answered;
use super::body::ResponseBody;
use super::challenge::answered;
use super::endpoint::Inner;
use super::headers;
use super::response::{
    accepted, event_stream, json, missing_session, not_accepting_events, request_id, rpc_error,
    too_many_sessions, unknown_session,
};
use super::resume::{NotResumable, RequestStream};
use super::routed::{self, RouteReceiver, Routed};
use super::sessions::{Dispatched, Entry};
use crate::dispatch::Reply;
use crate::dispatch::session::Session;
use crate::handler::BoxFuture;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{ErrorObject, Incoming, Message, Outgoing, RequestId, RequestIds};
use crate::store::{Replay, StoreError};

/// A legacy POST, as far as it goes without waiting: its response, or ([`Later`]) what is left
/// to do once something must be awaited (a session store, a call that runs on, `initialize`).
///
/// Not an `async fn`: nearly every legacy POST is a call answered in its dispatch, in a
/// session this instance holds, and such a POST is served here without a future of its own,
/// where an `async fn` would cost each one a boxed future of some 500 bytes.
pub(crate) fn post<'h>(
    inner: &Arc<Inner>,
    parts: &Parts,
    known: &headers::Known<'h>,
    header_version: Option<&str>,
    incoming: Incoming,
) -> Result<Response<ResponseBody>, Later<'h>> {
    // `MCP-Protocol-Version` (sent from 2025-06-18 on; absent means 2025-03-26) must name a
    // legacy revision we speak.
    let header_version = match header_version.map(str::parse::<ProtocolVersion>) {
        None => None,
        Some(Ok(version)) if !version.is_modern() => Some(version),
        Some(_) => {
            return Ok(rpc_error(
                StatusCode::BAD_REQUEST,
                request_id(&incoming),
                ErrorObject::invalid_request(format!(
                    "unsupported `MCP-Protocol-Version` header {:?}",
                    header_version.unwrap_or_default()
                )),
            ));
        }
    };
    if matches!(&incoming, Incoming::Single(Message::Request(request)) if request.method == "initialize")
    {
        return Err(Later::Initialize(incoming));
    }
    let Some(session_id) = known.session_id().ok().flatten() else {
        return Ok(missing_session(request_id(&incoming)));
    };
    match inner
        .sessions
        .get(session_id, super::principal::caller(parts))
    {
        Some(entry) => dispatch(inner, parts, known, entry, header_version, incoming)
            .map_err(Later::Dispatched),
        // Adopted from the store, if there is one and it has the session.
        None => Err(Later::Adopt(session_id, header_version, incoming)),
    }
}

/// What is left of a legacy POST once it must wait: see [`post`].
pub(crate) enum Later<'h> {
    /// `initialize`: the new session is written to the store before its id is given out.
    Initialize(Incoming),
    /// A session this instance does not hold (its id, from the request's headers), looked up
    /// in the store.
    Adopt(&'h str, Option<ProtocolVersion>, Incoming),
    /// Dispatched, not settled.
    Dispatched(Unsettled),
}

impl Later<'_> {
    /// The POST's response, once what it waits for is done.
    pub(crate) async fn finish(
        self,
        inner: &Arc<Inner>,
        parts: &Parts,
        known: &headers::Known<'_>,
        address: Option<std::net::IpAddr>,
    ) -> Response<ResponseBody> {
        let unsettled = match self {
            Later::Initialize(incoming) => {
                return initialize(
                    inner,
                    incoming,
                    super::principal::of(parts),
                    super::principal::client(parts, address),
                )
                .await;
            }
            Later::Adopt(session_id, header_version, incoming) => {
                let entry = match adopt(inner, parts, address, session_id).await {
                    Ok(Some(entry)) => entry,
                    Ok(None) => return unknown_session(request_id(&incoming)),
                    Err(error) => return store_unavailable(request_id(&incoming), &error),
                };
                match dispatch(inner, parts, known, entry, header_version, incoming) {
                    Ok(response) => return response,
                    Err(unsettled) => unsettled,
                }
            }
            Later::Dispatched(unsettled) => unsettled,
        };
        match unsettled {
            Unsettled::Saving(dispatch) => dispatch.finish(inner, parts).await,
            Unsettled::Running(running) => running.answer(inner, parts).await,
        }
    }
}

/// A dispatch whose response must wait.
pub(crate) enum Unsettled {
    /// Its session is shared through the store, which is written before the response.
    Saving(Box<Dispatch>),
    /// A call runs on.
    Running(Box<Running>),
}

/// A legacy POST dispatched in its session, with what must still be awaited.
pub(crate) struct Dispatch {
    entry: Arc<Entry>,
    ids: RequestIds,
    reply: Reply,
    dispatched: Option<Dispatched>,
}

/// Dispatch `incoming` in the session of `entry`: the response when it is settled at once,
/// else what is left.
fn dispatch(
    inner: &Arc<Inner>,
    parts: &Parts,
    known: &headers::Known<'_>,
    entry: Arc<Entry>,
    header_version: Option<ProtocolVersion>,
    incoming: Incoming,
) -> Result<Response<ResponseBody>, Unsettled> {
    // A known legacy revision other than the session's is tolerated: the official conformance
    // suite itself sends `2025-03-26` on a session negotiated at 2025-11-25. The session's
    // revision is the one spoken.
    if header_version.is_some_and(|version| version != entry.version) {
        tracing::debug!("`MCP-Protocol-Version` differs from the session's revision; ignored");
    }
    let ids = incoming.request_ids();
    // A client that takes events may get the messages about its requests (questions to the
    // client, progress) on the POST's own stream, ahead of the response. Others get them on
    // the GET stream.
    let takes_events = !ids.is_empty() && headers::accepts(known, "text/event-stream");
    let (reply, dispatched) = {
        let mut session = entry.session();
        if takes_events {
            entry.dispatching(&ids, &progress_tokens(&incoming));
        }
        // The session belongs to one subject (checked above), but each request's token says
        // what it may do now: a client that stepped up to a wider scope mid-session gets it.
        session.set_principal(super::principal::of(parts));
        // So is its trace context: each POST's headers, never an earlier one's.
        #[cfg(feature = "otel")]
        session.set_header_trace_context(headers::trace_context(&parts.headers));
        let reply = inner.dispatcher.handle(incoming, &mut session);
        // A call that runs on gets its route now; one answered already only says what it sent
        // on the way (nearly always nothing: no queue is opened for it).
        let dispatched = takes_events.then(|| entry.dispatched(matches!(reply, Reply::Pending(_))));
        (reply, dispatched)
    };
    let dispatch = Dispatch {
        entry,
        ids,
        reply,
        dispatched,
    };
    if dispatch.entry.is_shared() {
        return Err(Unsettled::Saving(Box::new(dispatch)));
    }
    (dispatch.settled(inner, parts)).map_err(|running| Unsettled::Running(Box::new(running)))
}

impl Dispatch {
    /// The response, once the session is in the store and the calls have answered.
    async fn finish(self, inner: &Arc<Inner>, parts: &Parts) -> Response<ResponseBody> {
        if self.entry.is_shared()
            && let Err(error) = self.entry.save().await
        {
            // Served from memory all the same; the next request or sweep writes it again.
            tracing::warn!(%error, "a session's change did not reach the store");
        }
        match self.settled(inner, parts) {
            Ok(response) => response,
            Err(running) => running.answer(inner, parts).await,
        }
    }

    /// The response when nothing runs on: a notification, or answers ready now. A call that
    /// runs on is given back.
    fn settled(self, inner: &Inner, parts: &Parts) -> Result<Response<ResponseBody>, Running> {
        let Dispatch {
            entry,
            ids,
            reply,
            dispatched,
        } = self;
        match reply {
            // A notification, or the client's answer to a question of ours.
            Reply::None => Ok(accepted()),
            Reply::Ready(answer) => {
                let early = match dispatched {
                    Some(Dispatched::Answered(early)) => early,
                    _ => Vec::new(),
                };
                Ok(answered_now(inner, parts, &entry, &ids, answer, early, ()))
            }
            Reply::Pending(call) => Err(Running {
                entry,
                ids,
                call,
                dispatched,
            }),
        }
    }
}

/// A call that runs on after its dispatch.
pub(crate) struct Running {
    entry: Arc<Entry>,
    ids: RequestIds,
    call: BoxFuture<'static, Option<Outgoing>>,
    dispatched: Option<Dispatched>,
}

impl Running {
    /// Its response: plain JSON once it answers, or an event stream from its first message
    /// (see [`answer_with_events`]).
    async fn answer(self, inner: &Inner, parts: &Parts) -> Response<ResponseBody> {
        let Running {
            entry,
            ids,
            call,
            dispatched,
        } = self;
        let in_flight = entry.session().in_flight().clone();
        let busy = entry.busy();
        let mut answer = until_answered(call, in_flight, ids.clone());
        let Some(Dispatched::Routed(route, mut related)) = dispatched else {
            let answer = answer.await;
            drop(busy);
            return match answer {
                Some(answer) => answered(answer, parts, resource(inner), StatusCode::OK),
                // Cancelled by the client meanwhile: there is nothing to answer.
                None => accepted(),
            };
        };
        // Plain JSON while nothing but the answer comes; an event stream from the first
        // message that must precede it (or from the handler releasing the connection).
        tokio::select! {
            biased;
            Some(first) = related.recv() => {
                answer_with_events(&entry, &ids, (route, busy), answer, vec![first], related)
            }
            result = &mut answer => {
                // Answered: the session need not be kept from expiring for the call any more.
                drop(busy);
                match result {
                    Some(result) => {
                        let mut early = Vec::new();
                        while let Some(routed) = related.try_recv() {
                            early.push(routed);
                        }
                        answered_now(inner, parts, &entry, &ids, result, early, route)
                    }
                    None => accepted(),
                }
            }
        }
    }
}

/// The response of requests whose answer has come: plain JSON, or an event stream when their
/// handlers sent messages about them on the way (`early`: sent in the very poll that finished
/// them at the latest; they precede the answer). `keep` (their route, if they had one) lives
/// as long as that stream.
fn answered_now(
    inner: &Inner,
    parts: &Parts,
    entry: &Entry,
    ids: &[RequestId],
    answer: Outgoing,
    mut early: Vec<Routed>,
    keep: impl Send + 'static,
) -> Response<ResponseBody> {
    // A release is moot now that the answer is here.
    early.retain(|routed| matches!(routed, Routed::Message(_)));
    if early.is_empty() {
        return answered(answer, parts, resource(inner), StatusCode::OK);
    }
    // Nothing more can come for requests already answered.
    let (_, nothing_more) = routed::channel();
    let answer = std::future::ready(Some(answer));
    answer_with_events(entry, ids, keep, answer, early, nothing_more)
}

/// A call's messages as events, on a new stream of the session, while it runs (`first`,
/// already received, then whatever `related` brings), then its answer. `keep` lives as long
/// as the call (its route, its mark on the session).
///
/// The call runs on its own task, not the response's: in a 2025-11-25 session a client that
/// goes away (or whose connection the handler released) resumes the stream later, and the call
/// is cancelled only when nobody does in time, or the session ends. Elsewhere the stream goes
/// with its connection, and so does the call.
fn answer_with_events(
    entry: &Entry,
    ids: &[RequestId],
    keep: impl Send + 'static,
    mut answer: impl Future<Output = Option<Outgoing>> + Send + Unpin + 'static,
    first: Vec<Routed>,
    mut related: RouteReceiver,
) -> Response<ResponseBody> {
    // A stream answers one request (2025-11-25 has no batches): the store records which, so
    // that another instance can answer it if this one dies.
    let request = match ids {
        [id] => serde_json::to_string(id).ok(),
        _ => None,
    };
    let (stream, reader) = entry.log().open_request(request);
    tokio::spawn(async move {
        let _keep = keep;
        for routed in first {
            forward(&stream, routed);
        }
        loop {
            tokio::select! {
                biased;
                Some(routed) = related.recv() => forward(&stream, routed),
                answer = &mut answer => {
                    // Whatever was reported before the answer goes out before it.
                    while let Some(routed) = related.try_recv() {
                        forward(&stream, routed);
                    }
                    stream.finish(answer.as_ref());
                    return;
                }
                () = stream.abandoned() => {
                    tracing::debug!("nobody will read a call's stream; cancelling the call");
                    // Dropping `answer` cancels the call.
                    return;
                }
            }
        }
    });
    event_stream(ResponseBody::logged(reader))
}

fn forward(stream: &RequestStream, routed: Routed) {
    match routed {
        Routed::Message(message) => stream.push(&message),
        Routed::Release => stream.release(),
    }
}

/// The progress tokens of the requests in the body.
fn progress_tokens(incoming: &Incoming) -> Vec<serde_json::Value> {
    let token = |message: &Message| match message {
        Message::Request(request) => request
            .params
            .as_ref()
            .and_then(|params| params.meta())
            .and_then(|meta| meta.progress_token.clone()),
        _ => None,
    };
    match incoming {
        Incoming::Single(message) => token(message).into_iter().collect(),
        Incoming::Batch(messages) => messages
            .iter()
            .filter_map(|message| message.as_ref().ok().and_then(token))
            .collect(),
    }
}

/// A new session: kept only if `initialize` succeeded.
/// The session belongs to `principal`: no one else may use it (see `principal::may_use`).
/// With a session store, the session is written there before the client learns its id; a
/// store that does not answer fails the `initialize` (`-32031`) and nothing is kept.
async fn initialize(
    inner: &Arc<Inner>,
    incoming: Incoming,
    principal: Option<super::principal::Principal>,
    client: Option<super::principal::Client>,
) -> Response<ResponseBody> {
    let request = request_id(&incoming).cloned();
    let mut session = Session::new();
    #[cfg(feature = "otel")]
    session.set_network_transport("tcp");
    session.set_principal(principal);
    let reply = inner.dispatcher.handle(incoming, &mut session);
    let Reply::Ready(answer) = reply else {
        unreachable!("`initialize` is answered at once");
    };
    let Some(version) = session.legacy().map(|legacy| legacy.version) else {
        return json(StatusCode::OK, &answer);
    };
    match inner
        .sessions
        .open_entry(session, version, &inner.dispatcher, client)
    {
        Ok((id, entry)) => {
            if let Err(error) = entry.save().await {
                inner.sessions.discard(&id);
                return store_unavailable(request.as_ref(), &error);
            }
            let mut response = json(StatusCode::OK, &answer);
            if let Ok(value) = HeaderValue::from_str(&id) {
                response.headers_mut().insert("mcp-session-id", value);
            }
            response
        }
        Err(full) => too_many_sessions(full),
    }
}

/// GET: the session's stream of notifications (one connection at a time per session). In a
/// 2025-11-25 session it opens with a priming event and its events have ids.
///
/// With a `Last-Event-ID` of the session the stream that id belongs to resumes on this
/// connection (its GET stream, or a POST's: the rest of the call, then its answer). An id the
/// server cannot resume from (another session's, a stream delivered or forgotten, events
/// dropped since) is ignored, as the spec lets a server do ("MAY use this header"): the GET is
/// served as one without it. Never a 404, which would tell the client its session is gone.
///
/// A `Last-Event-ID` of a stream the session had on another instance (whose ids start with
/// another tag) is looked up in the session store, when there is one: see
/// [`replay_from_store`].
pub(crate) async fn stream(
    inner: &Arc<Inner>,
    parts: &Parts,
    session_id: &str,
    address: Option<std::net::IpAddr>,
) -> Response<ResponseBody> {
    if let Some(refused) = not_accepting_events(parts) {
        return refused;
    }
    let entry = match session_for(inner, parts, address, session_id).await {
        Ok(Some(entry)) => entry,
        Ok(None) => return unknown_session(None),
        Err(error) => return store_unavailable(None, &error),
    };
    let last_event_id = parts
        .headers
        .get("last-event-id")
        .and_then(|value| value.to_str().ok());
    let mut replayed = Vec::new();
    if let Some(last_event_id) = last_event_id {
        match entry.log().resume(last_event_id) {
            Ok(reader) => return event_stream(ResponseBody::logged(reader)),
            Err(NotResumable::Foreign) if entry.is_shared() => {
                match replay_from_store(&entry, last_event_id).await {
                    Ok(Some(FromStore::Request(frames))) => {
                        let (events, pending) = mpsc::channel(frames.len().max(1));
                        for frame in frames {
                            let _ = events.try_send(frame);
                        }
                        return event_stream(ResponseBody::events(pending));
                    }
                    Ok(Some(FromStore::Standalone(frames))) => replayed = frames,
                    Ok(None) => tracing::debug!(
                        "a `Last-Event-ID` the store cannot resume; serving the GET without it"
                    ),
                    Err(error) => return store_unavailable(None, &error),
                }
            }
            Err(why) => tracing::debug!(
                ?why,
                "a `Last-Event-ID` that cannot be resumed; serving the GET without it"
            ),
        }
    }
    match entry.log().open_standalone() {
        Some(reader) => event_stream(ResponseBody::logged(reader.after_replay(replayed))),
        None => rpc_error(
            StatusCode::CONFLICT,
            None,
            ErrorObject::invalid_request("this session already has an open stream"),
        ),
    }
}

/// The metadata a scope refusal's challenge points to, if the server publishes it.
fn resource(inner: &Inner) -> Option<&super::config::ProtectedResource> {
    inner.config.resource.as_ref()
}

/// The session `id` names, for this caller: one this instance serves, or (with a session
/// store) one adopted from the store.
async fn session_for(
    inner: &Arc<Inner>,
    parts: &Parts,
    address: Option<std::net::IpAddr>,
    id: &str,
) -> Result<Option<Arc<Entry>>, StoreError> {
    if let Some(entry) = inner.sessions.get(id, super::principal::caller(parts)) {
        return Ok(Some(entry));
    }
    adopt(inner, parts, address, id).await
}

/// The session `id` from the session store, if there is one and it has the session.
async fn adopt(
    inner: &Arc<Inner>,
    parts: &Parts,
    address: Option<std::net::IpAddr>,
    id: &str,
) -> Result<Option<Arc<Entry>>, StoreError> {
    // Boxed: the rare path's state stays out of the futures that await it.
    Box::pin(inner.sessions.adopt(
        id,
        super::principal::of(parts),
        super::principal::client(parts, address),
        &inner.dispatcher,
    ))
    .await
}

/// DELETE: end the session (also one only the store knew).
pub(crate) async fn end(
    inner: &Arc<Inner>,
    parts: &Parts,
    session_id: &str,
    address: Option<std::net::IpAddr>,
) -> Response<ResponseBody> {
    match session_for(inner, parts, address, session_id).await {
        Ok(Some(_))
            if inner
                .sessions
                .end(session_id, super::principal::caller(parts)) =>
        {
            tracing::debug!("a client ended its legacy session");
            super::response::respond(StatusCode::OK, None, Vec::new())
        }
        Ok(_) => unknown_session(None),
        Err(error) => store_unavailable(None, &error),
    }
}

/// A request that needed the session store while it did not answer: 503, `-32031`.
fn store_unavailable(id: Option<&RequestId>, error: &StoreError) -> Response<ResponseBody> {
    rpc_error(StatusCode::SERVICE_UNAVAILABLE, id, error.to_error_object())
}

/// What the store had of a stream another instance served.
enum FromStore {
    /// A POST's stream: its events, ending with its response (or with the error that says the
    /// call is lost).
    Request(Vec<bytes::Bytes>),
    /// The GET stream: its events, after which the session's GET stream goes on here.
    Standalone(Vec<bytes::Bytes>),
}

/// The events of the stream `last_event_id` belongs to that follow it, from the store: the
/// stream is named by the id up to its last `-` (`{tag}-{stream}`), the event by the number
/// after it. `Ok(None)` when the store cannot resume it (not an id of this runtime, a stream
/// not kept, events dropped for the bounds since).
///
/// Only that stream's events are replayed (the spec: never what belongs to another stream).
/// A POST's stream whose response is not in the store answered a call that was running on an
/// instance that is gone: the replay ends with a JSON-RPC error for that request, so the
/// client learns the call is lost rather than waiting for a response nobody will send.
async fn replay_from_store(
    entry: &Entry,
    last_event_id: &str,
) -> Result<Option<FromStore>, StoreError> {
    let Some((stream, after)) = last_event_id
        .rsplit_once('-')
        // `{tag}-{stream}`: hex digits, a dash, digits (nothing that could reach another key).
        .filter(|(stream, _)| {
            stream.contains('-')
                && stream.len() <= 40
                && (stream.bytes()).all(|byte| byte.is_ascii_alphanumeric() || byte == b'-')
        })
        .and_then(|(stream, after)| Some((stream, after.parse::<u64>().ok()?)))
    else {
        return Ok(None);
    };
    let Some(replay) = entry.replay(stream, after).await? else {
        return Ok(None);
    };
    let Replay::Events {
        frames,
        request,
        answered,
    } = replay
    else {
        return Ok(None);
    };
    let mut frames: Vec<bytes::Bytes> = frames.into_iter().map(bytes::Bytes::from).collect();
    let Some(request) = request else {
        return Ok(Some(FromStore::Standalone(frames)));
    };
    if !answered
        && let Some(id) = serde_json::from_str(&request)
            .ok()
            .and_then(RequestId::from_value)
    {
        tracing::info!("a call was lost with the instance that ran it; telling its client");
        let lost = ErrorObject::new(
            -32603,
            "the server instance handling this request stopped before it answered; the call \
             is lost, and may or may not have taken effect: send the request again if that is \
             safe",
        );
        frames.push(super::event::event(&Outgoing::error(Some(&id), &lost)));
    }
    Ok(Some(FromStore::Request(frames)))
}
