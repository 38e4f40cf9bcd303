//! 2026-07-28 over HTTP: every POST stands alone, served through the dispatcher with a
//! throwaway session. The headers must agree with the body; errors the spec ties to a status
//! get it; a client that goes away cancels its call.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, ready};

use http::request::Parts;
use http::{Response, StatusCode};
use tokio::sync::mpsc;

use super::answer::{UntilAnswered, until_answered};
use super::body::ResponseBody;
use super::endpoint::Inner;
use super::headers::{self, HEADER_MISMATCH};
use super::queue;
use super::response::{accepted, events, rpc_error};
use crate::context::peer::Outbound;
use crate::dispatch::Reply;
use crate::dispatch::session::Session;
use crate::handler::BoxFuture;
use crate::protocol::jsonrpc::{
    ErrorObject, Incoming, Message, Outgoing, Params, RequestId, RequestIds,
};

/// Events a listen stream may queue before the client reads them.
const STREAM_CAPACITY: usize = 64;

/// A 2026-07-28 POST: its response, or (`Err`) the call it waits for. Not `async`: what the
/// request was decoded into stays out of the future that waits.
#[allow(clippy::result_large_err)]
pub(crate) fn post(
    inner: &Arc<Inner>,
    parts: &Parts,
    headers: &headers::Known<'_>,
    incoming: Incoming,
) -> Result<Response<ResponseBody>, Waiting> {
    let Incoming::Single(message) = incoming else {
        unreachable!("only single messages are classified modern");
    };
    match message {
        Message::Notification(notification) => {
            if let Err(error) = headers::check_modern(
                headers,
                &notification.method,
                notification.params.as_deref(),
            ) {
                return Ok(rpc_error(StatusCode::BAD_REQUEST, None, error));
            }
            // Nothing a 2026-07-28 client notifies outlives its request: HTTP cancels by
            // closing the stream, so there is no running call to reach.
            tracing::debug!(method = &*notification.method, "ignoring a notification");
            Ok(accepted())
        }
        Message::Response(_) => Ok(rpc_error(
            StatusCode::BAD_REQUEST,
            None,
            ErrorObject::invalid_request("2026-07-28 clients never send responses"),
        )),
        Message::Request(request) => {
            let id = request.id.clone();
            if let Err(error) =
                headers::check_modern(headers, &request.method, request.params.as_deref())
            {
                return Ok(rpc_error(StatusCode::BAD_REQUEST, Some(&id), error));
            }
            if let Err(error) = headers::check_params(
                headers,
                &request.method,
                request.params.as_deref(),
                &inner.param_headers,
            ) {
                return Ok(rpc_error(StatusCode::BAD_REQUEST, Some(&id), error));
            }
            if let Err(error) = check_meta(request.params.as_deref()) {
                return Ok(rpc_error(StatusCode::BAD_REQUEST, Some(&id), error));
            }
            let listen = request.method == "subscriptions/listen";
            let mut session = Session::for_one_request();
            #[cfg(feature = "otel")]
            {
                session.set_network_transport("tcp");
                session.set_header_trace_context(headers::trace_context(headers.all()));
            }
            session.set_principal(super::principal::of(parts));
            // A request that may be told about while it runs (a progress token, a log level)
            // gets its notifications on an event stream, then its response. The stream opens
            // with the first of them: a call that reports nothing is answered with plain JSON,
            // one write rather than an event stream's several.
            let notifications = (may_notify(request.params.as_deref())
                && headers::accepts(headers, "text/event-stream"))
            .then(|| {
                let (sender, receiver) = queue::channel();
                session.set_outbound(Outbound::new(move |message| {
                    // Refused only once the call is answered or its client gone: nothing to
                    // tell then.
                    let _ = sender.send(message);
                }));
                receiver
            });
            let reply = inner
                .dispatcher
                .handle(Incoming::Single(Message::Request(request)), &mut session);
            match reply {
                Reply::None => Ok(accepted()),
                Reply::Ready(answer) => {
                    Ok(answered_now(inner, parts, session, answer, notifications))
                }
                Reply::Pending(call) if listen => Ok(listen_stream(inner, session, call, id)),
                Reply::Pending(call) => Err(Waiting {
                    answer: until_answered(call, session.in_flight().clone(), RequestIds::One(id)),
                    notifications,
                    session,
                }),
            }
        }
    }
}

/// The response of a request answered as it was dispatched: plain JSON, or an event stream
/// when its handler sent notifications about it on the way (they precede the answer).
fn answered_now(
    inner: &Inner,
    parts: &Parts,
    session: Session,
    answer: Outgoing,
    notifications: Option<queue::Receiver<Outgoing>>,
) -> Response<ResponseBody> {
    if let Some(mut notifications) = notifications {
        let mut early = Vec::new();
        while let Some(message) = notifications.try_recv() {
            early.push(message);
        }
        if !early.is_empty() {
            let answered = std::future::ready(None);
            return notifying_stream(session, answered, Some(Some(answer)), early, notifications);
        }
    }
    answer_with_status(inner, parts, answer)
}

/// A call running, answered with plain JSON unless something about it must reach the client
/// first.
pub(crate) struct Waiting {
    answer: UntilAnswered,
    /// What the call reports while it runs, when the request asked for it.
    notifications: Option<queue::Receiver<Outgoing>>,
    /// The call's session, alive while it runs.
    session: Session,
}

/// How a waiting call settled.
pub(crate) enum Settled {
    /// Answered (`None`: cancelled meanwhile) with nothing to send ahead of the answer.
    Answered(Option<Outgoing>),
    /// Messages about the call came first: they go out as events, then the answer (here when
    /// it came in the same poll, else still to come).
    Notified(Vec<Outgoing>, Option<Option<Outgoing>>),
}

impl Waiting {
    /// The response of a call answered with nothing before it (202 when it was cancelled
    /// meanwhile).
    pub(crate) fn respond(
        inner: &Inner,
        parts: &Parts,
        answer: Option<Outgoing>,
    ) -> Response<ResponseBody> {
        match answer {
            Some(answer) => answer_with_status(inner, parts, answer),
            None => accepted(),
        }
    }

    /// The response of a call that reported something before its answer: an event stream.
    pub(crate) fn events(
        self,
        early: Vec<Outgoing>,
        answered: Option<Option<Outgoing>>,
    ) -> Response<ResponseBody> {
        let Waiting {
            answer,
            notifications,
            session,
        } = self;
        let notifications = notifications.expect("only a call with notifications reports them");
        notifying_stream(session, answer, answered, early, notifications)
    }
}

/// Polled in place rather than through an `async fn` taking `self`, which would hold the
/// waiting call twice in every POST's future.
impl Future for Waiting {
    type Output = Settled;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Settled> {
        let this = &mut *self;
        if let Some(notifications) = &mut this.notifications
            && let Poll::Ready(Some(first)) = notifications.poll_recv(cx)
        {
            return Poll::Ready(Settled::Notified(vec![first], None));
        }
        let answer = ready!(Pin::new(&mut this.answer).poll(cx));
        // Sent in the very poll that finished the call: still ahead of the answer.
        let mut early = Vec::new();
        if let Some(notifications) = &mut this.notifications {
            while let Some(message) = notifications.try_recv() {
                early.push(message);
            }
        }
        Poll::Ready(if early.is_empty() {
            Settled::Answered(answer)
        } else {
            Settled::Notified(early, Some(answer))
        })
    }
}

/// `_meta` must hold the client's capabilities: without them the request is invalid params
/// (400), a status the dispatcher's answer alone would not tell apart from other `-32602`s.
fn check_meta(params: Option<&Params>) -> Result<(), ErrorObject> {
    let capabilities = params
        .and_then(Params::meta)
        .and_then(|meta| meta.client_capabilities.as_ref());
    match capabilities {
        Some(capabilities) if capabilities.get().starts_with('{') => Ok(()),
        _ => Err(ErrorObject::invalid_params(
            "missing `_meta[\"io.modelcontextprotocol/clientCapabilities\"]`: 2026-07-28 \
             requests declare the client's capabilities on every request",
        )),
    }
}

/// The status 2026-07-28 ties to an error: 404 for an unknown method, 400 for the modern
/// protocol errors and malformed requests, else 200 (an ordinary JSON-RPC error).
fn answer_with_status(inner: &Inner, parts: &Parts, answer: Outgoing) -> Response<ResponseBody> {
    let code = answer.error_code();
    let status = match code {
        Some(-32601) => StatusCode::NOT_FOUND,
        Some(-32700 | -32600 | -32022 | -32021) => StatusCode::BAD_REQUEST,
        Some(HEADER_MISMATCH_CODE) => StatusCode::BAD_REQUEST,
        _ => StatusCode::OK,
    };
    let resource = inner.config.resource.as_ref();
    super::challenge::answered_coded(answer, code, parts, resource, status)
}

const HEADER_MISMATCH_CODE: i64 = HEADER_MISMATCH as i64;

/// Whether the request's `_meta` asks for notifications about it: progress or logs.
pub(crate) fn may_notify(params: Option<&Params>) -> bool {
    params
        .and_then(Params::meta)
        .is_some_and(|meta| meta.progress_token.is_some() || meta.log_level.is_some())
}

/// A call's notifications as events (`early` first, then whatever comes while it runs), then
/// its response (`answered`, when it has come already). The client going away cancels the call
/// (through `answer`): a 2026-07-28 stream cannot be resumed. `keep` (the call's session) lives
/// as long as the stream.
fn notifying_stream(
    keep: impl Send + 'static,
    mut answer: impl Future<Output = Option<Outgoing>> + Send + Unpin + 'static,
    answered: Option<Option<Outgoing>>,
    early: Vec<Outgoing>,
    mut notifications: queue::Receiver<Outgoing>,
) -> Response<ResponseBody> {
    let (sender, receiver) = mpsc::channel(STREAM_CAPACITY);
    tokio::spawn(async move {
        let _keep = keep;
        for message in &early {
            if sender.send(super::event::event(message)).await.is_err() {
                return;
            }
        }
        let answer = match answered {
            Some(answer) => answer,
            None => loop {
                tokio::select! {
                    biased;
                    Some(message) = notifications.recv() => {
                        if sender.send(super::event::event(&message)).await.is_err() {
                            return;
                        }
                    }
                    answer = &mut answer => break answer,
                    () = sender.closed() => return,
                }
            },
        };
        // Whatever was reported before the answer goes out before it.
        while let Some(message) = notifications.try_recv() {
            if sender.send(super::event::event(&message)).await.is_err() {
                return;
            }
        }
        if let Some(answer) = answer {
            let _ = sender.send(super::event::event(&answer)).await;
        }
    });
    events(receiver)
}

/// `subscriptions/listen`: the acknowledgement and every notification of the stream as
/// events, then (when the server shuts down) the listen result. The client ends it by going
/// away.
fn listen_stream(
    inner: &Arc<Inner>,
    session: Session,
    call: BoxFuture<'static, Option<Outgoing>>,
    id: RequestId,
) -> Response<ResponseBody> {
    // The acknowledgement already waits in the session's outbox, so it is the first event.
    let mut forwarder = inner.dispatcher.notification_forwarder(&session);
    let (sender, receiver) = mpsc::channel(STREAM_CAPACITY);
    let shutdown = inner.shutdown.clone();
    tokio::spawn(async move {
        let answer = until_answered(call, session.in_flight().clone(), RequestIds::One(id));
        tokio::pin!(answer);
        let mut announcing = true;
        let mut closing = false;
        loop {
            tokio::select! {
                biased;
                messages = forwarder.next(), if announcing => match messages {
                    Some(messages) => {
                        for message in &messages {
                            if sender.send(super::event::event(message)).await.is_err() {
                                return;
                            }
                        }
                    }
                    None => announcing = false,
                },
                answer = &mut answer => {
                    if let Some(answer) = answer {
                        let _ = sender.send(super::event::event(&answer)).await;
                    }
                    return;
                }
                () = shutdown.cancelled(), if !closing => {
                    closing = true;
                    session.subscriptions().close_streams();
                }
                () = sender.closed() => return,
            }
        }
    });
    events(receiver)
}
