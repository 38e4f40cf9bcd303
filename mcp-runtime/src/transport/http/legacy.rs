//! 2025-03-26 to 2025-11-25 over HTTP: `initialize` opens a session under a new
//! `Mcp-Session-Id`; every later POST names it and is served with that session's state; GET
//! opens the session's stream of server-to-client notifications.

use std::sync::Arc;

use http::{HeaderValue, Response, StatusCode, request::Parts};
use tokio::sync::mpsc;

use super::body::ResponseBody;
use super::headers;
use super::modern::{notifying_stream, until_answered};
use super::service::{
    Inner, accepted, events, json, missing_session, request_id, rpc_error, unknown_session,
};
use crate::dispatch::Reply;
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{ErrorObject, Incoming, Message};
use crate::session::Session;

/// Notifications a session's GET stream may queue before the client reads them; beyond that
/// they are dropped (a client that does not read cannot be waited for).
const STREAM_CAPACITY: usize = 256;

pub(crate) async fn post(
    inner: &Arc<Inner>,
    parts: &Parts,
    header_version: Option<&str>,
    incoming: Incoming,
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
        return initialize(inner, incoming);
    }
    let Some(session_id) = headers::text(&parts.headers, headers::SESSION_ID)
        .ok()
        .flatten()
    else {
        return missing_session(request_id(&incoming));
    };
    let Some(entry) = inner.sessions.get(session_id) else {
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
        let reply = inner.dispatcher.handle(incoming, &mut session);
        (reply, session.in_flight().clone())
    };
    let call = match reply {
        // A notification, or the client's answer to a question of ours.
        Reply::None => return accepted(),
        Reply::Ready(answer) => return json(StatusCode::OK, &answer),
        Reply::Pending(call) => call,
    };
    let mut answer = until_answered(call, in_flight, ids);
    let Some((route, mut related)) = routed else {
        return match answer.await {
            Some(answer) => json(StatusCode::OK, &answer),
            // Cancelled by the client meanwhile: there is nothing to answer.
            None => accepted(),
        };
    };
    // Plain JSON while nothing but the answer comes; an event stream from the first message
    // that must precede it.
    tokio::select! {
        biased;
        Some(message) = related.recv() => {
            notifying_stream(route, answer, vec![message], related, entry.event_ids())
        }
        result = &mut answer => {
            // Sent in the very poll that finished the call: still ahead of the answer.
            let mut early = Vec::new();
            while let Ok(message) = related.try_recv() {
                early.push(message);
            }
            match result {
                Some(result) if !early.is_empty() => notifying_stream(
                    route,
                    std::future::ready(Some(result)),
                    early,
                    related,
                    entry.event_ids(),
                ),
                Some(result) => json(StatusCode::OK, &result),
                None => accepted(),
            }
        }
    }
}

/// The progress tokens of the requests in the body.
fn progress_tokens(incoming: &Incoming) -> Vec<serde_json::Value> {
    let token = |message: &Message| match message {
        Message::Request(request) => request
            .params
            .as_ref()
            .and_then(|params| params.get("_meta"))
            .and_then(|meta| meta.get("progressToken"))
            .cloned(),
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
fn initialize(inner: &Arc<Inner>, incoming: Incoming) -> Response<ResponseBody> {
    let mut session = Session::new();
    let reply = inner.dispatcher.handle(incoming, &mut session);
    let Reply::Ready(answer) = reply else {
        unreachable!("`initialize` is answered at once");
    };
    let Some(version) = session.legacy().map(|legacy| legacy.version) else {
        return json(StatusCode::OK, &answer);
    };
    match inner.sessions.open(session, version, &inner.dispatcher) {
        Ok(id) => {
            let mut response = json(StatusCode::OK, &answer);
            if let Ok(value) = HeaderValue::from_str(&id) {
                response.headers_mut().insert("mcp-session-id", value);
            }
            response
        }
        Err(_) => {
            tracing::warn!("too many open sessions; refusing `initialize`");
            rpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                ErrorObject::internal_error("too many open sessions; try again later"),
            )
        }
    }
}

/// GET: the session's stream of notifications (one at a time per session). In a 2025-11-25
/// session it opens with a priming event and its events have ids; a `Last-Event-ID` is
/// accepted but replays nothing (resumption is optional, and not offered: a call whose POST
/// stream breaks is cancelled, so there is nothing to resume).
pub(crate) fn stream(
    inner: &Arc<Inner>,
    parts: &Parts,
    session_id: &str,
) -> Response<ResponseBody> {
    if !headers::accepts(&parts.headers, "text/event-stream") {
        return rpc_error(
            StatusCode::NOT_ACCEPTABLE,
            None,
            ErrorObject::invalid_request("the stream is `text/event-stream`; accept it"),
        );
    }
    let Some(entry) = inner.sessions.get(session_id) else {
        return unknown_session(None);
    };
    match entry.open_stream(STREAM_CAPACITY) {
        Some(receiver) => events(receiver),
        None => rpc_error(
            StatusCode::CONFLICT,
            None,
            ErrorObject::invalid_request("this session already has an open stream"),
        ),
    }
}
