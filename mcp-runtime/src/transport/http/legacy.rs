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
use super::resume::RequestStream;
use super::sessions::{Entry, Routed};
use crate::dispatch::Reply;
use crate::dispatch::session::Session;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{ErrorObject, Incoming, Message, Outgoing};

pub(crate) async fn post(
    inner: &Arc<Inner>,
    parts: &Parts,
    header_version: Option<&str>,
    incoming: Incoming,
    address: Option<std::net::IpAddr>,
) -> Response<ResponseBody> {
    // `MCP-Protocol-Version` (sent from 2025-06-18 on; absent means 2025-03-26) must name a
    // legacy revision we speak.
    let header_version = match header_version.map(str::parse::<ProtocolVersion>) {
        None => None,
        Some(Ok(version)) if !version.is_modern() => Some(version),
        Some(_) => {
            return rpc_error(
                StatusCode::BAD_REQUEST,
                request_id(&incoming),
                ErrorObject::invalid_request(format!(
                    "unsupported `MCP-Protocol-Version` header {:?}",
                    header_version.unwrap_or_default()
                )),
            );
        }
    };
    if matches!(&incoming, Incoming::Single(Message::Request(request)) if request.method == "initialize")
    {
        return initialize(
            inner,
            incoming,
            super::principal::of(parts),
            super::principal::client(parts, address),
        );
    }
    let Some(session_id) = headers::text(&parts.headers, &headers::SESSION_ID)
        .ok()
        .flatten()
    else {
        return missing_session(request_id(&incoming));
    };
    let Some(entry) = inner
        .sessions
        .get(session_id, super::principal::caller(parts))
    else {
        return unknown_session(request_id(&incoming));
    };
    // A known legacy revision other than the session's is tolerated: the official conformance
    // suite itself sends `2025-03-26` on a session negotiated at 2025-11-25. The session's
    // revision is the one spoken.
    if header_version.is_some_and(|version| version != entry.version) {
        tracing::debug!("`MCP-Protocol-Version` differs from the session's revision; ignored");
    }
    let ids = incoming.request_ids();
    // A client that takes events may get the messages about its requests (questions to the
    // client, progress) on the POST's own stream, ahead of the response; the route sends them
    // there while the requests run. Others get them on the GET stream.
    let routed =
        (!ids.is_empty() && headers::accepts(&parts.headers, "text/event-stream")).then(|| {
            let (sender, receiver) = mpsc::unbounded_channel();
            (
                entry.route(&ids, &progress_tokens(&incoming), &sender),
                receiver,
            )
        });
    let (reply, in_flight) = {
        let mut session = entry.session();
        // The session belongs to one subject (checked above), but each request's token says
        // what it may do now: a client that stepped up to a wider scope mid-session gets it.
        session.set_principal(super::principal::of(parts));
        // So is its trace context: each POST's headers, never an earlier one's.
        #[cfg(feature = "otel")]
        session.set_header_trace_context(headers::trace_context(&parts.headers));
        let reply = inner.dispatcher.handle(incoming, &mut session);
        (reply, session.in_flight().clone())
    };
    let call = match reply {
        // A notification, or the client's answer to a question of ours.
        Reply::None => return accepted(),
        Reply::Ready(answer) => return answered(answer, parts, resource(inner), StatusCode::OK),
        Reply::Pending(call) => call,
    };
    let busy = entry.busy();
    let mut answer = until_answered(call, in_flight, ids);
    let Some((route, mut related)) = routed else {
        let answer = answer.await;
        drop(busy);
        return match answer {
            Some(answer) => answered(answer, parts, resource(inner), StatusCode::OK),
            // Cancelled by the client meanwhile: there is nothing to answer.
            None => accepted(),
        };
    };
    // Plain JSON while nothing but the answer comes; an event stream from the first message
    // that must precede it (or from the handler releasing the connection).
    tokio::select! {
        biased;
        Some(first) = related.recv() => {
            answer_with_events(&entry, (route, busy), answer, vec![first], related)
        }
        result = &mut answer => {
            // Sent in the very poll that finished the call: still ahead of the answer. A
            // release is moot now that the answer is here.
            let mut early = Vec::new();
            while let Ok(item) = related.try_recv() {
                if let Routed::Message(message) = item {
                    early.push(Routed::Message(message));
                }
            }
            match result {
                Some(result) if !early.is_empty() => answer_with_events(
                    &entry,
                    (route, busy),
                    std::future::ready(Some(result)),
                    early,
                    related,
                ),
                Some(result) => answered(result, parts, resource(inner), StatusCode::OK),
                None => accepted(),
            }
        }
    }
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
    keep: impl Send + 'static,
    mut answer: impl Future<Output = Option<Outgoing>> + Send + Unpin + 'static,
    first: Vec<Routed>,
    mut related: mpsc::UnboundedReceiver<Routed>,
) -> Response<ResponseBody> {
    let (stream, reader) = entry.log().open_request();
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
                    while let Ok(routed) = related.try_recv() {
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
fn initialize(
    inner: &Arc<Inner>,
    incoming: Incoming,
    principal: Option<super::principal::Principal>,
    client: Option<super::principal::Client>,
) -> Response<ResponseBody> {
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
        .open(session, version, &inner.dispatcher, client)
    {
        Ok(id) => {
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
pub(crate) fn stream(
    inner: &Arc<Inner>,
    parts: &Parts,
    session_id: &str,
) -> Response<ResponseBody> {
    if let Some(refused) = not_accepting_events(parts) {
        return refused;
    }
    let Some(entry) = inner
        .sessions
        .get(session_id, super::principal::caller(parts))
    else {
        return unknown_session(None);
    };
    let last_event_id = parts
        .headers
        .get("last-event-id")
        .and_then(|value| value.to_str().ok());
    if let Some(last_event_id) = last_event_id {
        match entry.log().resume(last_event_id) {
            Ok(reader) => return event_stream(ResponseBody::logged(reader)),
            Err(why) => tracing::debug!(
                ?why,
                "a `Last-Event-ID` that cannot be resumed; serving the GET without it"
            ),
        }
    }
    match entry.log().open_standalone() {
        Some(reader) => event_stream(ResponseBody::logged(reader)),
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
