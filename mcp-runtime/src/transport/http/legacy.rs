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
use crate::protocol::jsonrpc::{ErrorObject, Incoming, Message, RequestId};
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
    let ids = request_ids(&incoming);
    // A request with a progress token gets its progress on its own event stream, before its
    // response (on the GET stream the two could cross).
    let progress = match &incoming {
        Incoming::Single(Message::Request(request))
            if headers::accepts(&parts.headers, "text/event-stream") =>
        {
            request
                .params
                .as_ref()
                .and_then(|params| params.get("_meta"))
                .and_then(|meta| meta.get("progressToken"))
                .map(|token| {
                    let (sender, receiver) = mpsc::unbounded_channel();
                    (entry.route(token, sender), receiver, request.id.clone())
                })
        }
        _ => None,
    };
    let (reply, in_flight) = {
        let mut session = entry.session();
        let reply = inner.dispatcher.handle(incoming, &mut session);
        (reply, session.in_flight().clone())
    };
    match reply {
        Reply::None => accepted(),
        Reply::Ready(answer) => json(StatusCode::OK, &answer),
        Reply::Pending(call) if progress.is_some() => {
            let (route, notifications, id) = progress.unwrap_or_else(|| unreachable!());
            notifying_stream(route, in_flight, notifications, call, id)
        }
        Reply::Pending(call) => match until_answered(call, in_flight, ids).await {
            Some(answer) => json(StatusCode::OK, &answer),
            // Cancelled by the client meanwhile: there is nothing to answer.
            None => accepted(),
        },
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

/// The ids of the requests in the body, whose calls a disconnect cancels.
fn request_ids(incoming: &Incoming) -> Vec<RequestId> {
    let id = |message: &Message| match message {
        Message::Request(request) => Some(request.id.clone()),
        _ => None,
    };
    match incoming {
        Incoming::Single(message) => id(message).into_iter().collect(),
        Incoming::Batch(messages) => messages
            .iter()
            .filter_map(|message| message.as_ref().ok().and_then(id))
            .collect(),
    }
}

/// GET: the session's stream of notifications (one at a time per session).
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
