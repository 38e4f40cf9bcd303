//! The responses every route answers with: JSON, events, accepted, JSON-RPC errors with their
//! HTTP status, and the refusals (unknown session, too large, too many sessions).

use http::{HeaderValue, Response, StatusCode, header, request::Parts};

use super::body::ResponseBody;
use super::headers;
use super::sessions::Full;
use crate::protocol::jsonrpc::{ErrorObject, Incoming, Message, Outgoing, RequestId};

/// A header value may not hold `"` or `\` unescaped, nor controls.
pub(crate) fn quotable(text: &str) -> String {
    text.chars()
        .filter(|c| !c.is_control() && *c != '"' && *c != '\\')
        .collect()
}

#[cold]
pub(crate) fn forbidden(what: &str) -> ErrorObject {
    ErrorObject::invalid_request(format!(
        "forbidden: this server does not accept this `{what}`"
    ))
}

#[cold]
pub(crate) fn too_large(limit: usize) -> Response<ResponseBody> {
    closing(rpc_error(
        StatusCode::PAYLOAD_TOO_LARGE,
        None,
        ErrorObject::invalid_request(format!("the body exceeds the limit of {limit} bytes")),
    ))
}

#[cold]
pub(crate) fn missing_session(id: Option<&RequestId>) -> Response<ResponseBody> {
    rpc_error(
        StatusCode::BAD_REQUEST,
        id,
        ErrorObject::invalid_request(
            "missing `Mcp-Session-Id` header: send `initialize` first and repeat the session id \
             it returns on every request",
        ),
    )
}

/// 406 for a GET that opens an event stream without accepting one; `None` when it does.
pub(crate) fn not_accepting_events(parts: &Parts) -> Option<Response<ResponseBody>> {
    if headers::accepts(&headers::Known::read(&parts.headers), "text/event-stream") {
        return None;
    }
    Some(rpc_error(
        StatusCode::NOT_ACCEPTABLE,
        None,
        ErrorObject::invalid_request("the stream is `text/event-stream`; accept it"),
    ))
}

#[cold]
pub(crate) fn unknown_session(id: Option<&RequestId>) -> Response<ResponseBody> {
    rpc_error(
        StatusCode::NOT_FOUND,
        id,
        ErrorObject::invalid_request(
            "unknown or expired session: send `initialize` again to open a new one",
        ),
    )
}

#[cold]
pub(crate) fn not_allowed(allow: &'static str) -> Response<ResponseBody> {
    let mut response = rpc_error(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        ErrorObject::invalid_request("method not allowed on the MCP endpoint"),
    );
    response
        .headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    response
}

/// `Content-Type: application/json`. A constant, so the value is checked once, when compiled:
/// `HeaderValue::from_static` of a `&'static str` passed in at run time checks every byte of
/// it on every response.
pub(crate) const JSON_TYPE: HeaderValue = HeaderValue::from_static("application/json");

const PLAIN_TYPE: HeaderValue = HeaderValue::from_static("text/plain; charset=utf-8");

/// A response with `body` typed `content_type`.
pub(crate) fn respond(
    status: StatusCode,
    content_type: Option<HeaderValue>,
    body: Vec<u8>,
) -> Response<ResponseBody> {
    let mut response = Response::new(ResponseBody::whole(body));
    *response.status_mut() = status;
    if let Some(content_type) = content_type {
        response
            .headers_mut()
            .insert(header::CONTENT_TYPE, content_type);
    }
    response
}

pub(crate) fn plain(status: StatusCode, text: &'static str) -> Response<ResponseBody> {
    respond(status, Some(PLAIN_TYPE), text.as_bytes().to_vec())
}

/// One JSON-RPC message as the body.
pub(crate) fn json(status: StatusCode, message: &Outgoing) -> Response<ResponseBody> {
    respond(status, Some(JSON_TYPE), message.as_bytes().to_vec())
}

/// One JSON-RPC message as the body, moved into it.
pub(crate) fn json_owned(status: StatusCode, message: Outgoing) -> Response<ResponseBody> {
    respond(status, Some(JSON_TYPE), message.into_bytes())
}

/// A JSON-RPC error response (`id` null when unknown).
#[cold]
pub(crate) fn rpc_error(
    status: StatusCode,
    id: Option<&RequestId>,
    error: ErrorObject,
) -> Response<ResponseBody> {
    json_owned(status, Outgoing::error(id, &error))
}

/// 202: a notification or response, accepted.
pub(crate) fn accepted() -> Response<ResponseBody> {
    respond(StatusCode::ACCEPTED, None, Vec::new())
}

/// A stream of server-sent events.
pub(crate) fn events(events: tokio::sync::mpsc::Receiver<bytes::Bytes>) -> Response<ResponseBody> {
    event_stream(ResponseBody::events(events))
}

/// `body`, a stream of server-sent events, as the response.
pub(crate) fn event_stream(body: ResponseBody) -> Response<ResponseBody> {
    let mut response = Response::new(body);
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    // Proxies such as nginx would otherwise hold events back.
    headers.insert("x-accel-buffering", HeaderValue::from_static("no"));
    response
}

/// The id of a single request, for its error response.
pub(crate) fn request_id(incoming: &Incoming) -> Option<&RequestId> {
    match incoming {
        Incoming::Single(Message::Request(request)) => Some(&request.id),
        _ => None,
    }
}

/// 503 for a session refused by [`Full`]; the client learns whether it is its own limit.
#[cold]
pub(crate) fn too_many_sessions(full: Full) -> Response<ResponseBody> {
    let message = match full {
        Full::Everyone => {
            tracing::warn!("too many open sessions; refusing a new one");
            "too many open sessions; try again later"
        }
        Full::Client => {
            tracing::info!("a client holds all the sessions it may, all busy; refusing another");
            "this client holds too many open sessions: end one (DELETE) or wait for one to finish"
        }
    };
    let mut response = rpc_error(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        ErrorObject::internal_error(message),
    );
    response
        .headers_mut()
        .insert(http::header::RETRY_AFTER, HeaderValue::from_static("5"));
    response
}

/// `response`, after which the connection closes: what is left of its request's body is
/// never read.
pub(crate) fn closing(mut response: Response<ResponseBody>) -> Response<ResponseBody> {
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn error_codes_are_read_from_encoded_messages() {
        let id = RequestId::Number(3.into());
        let error = Outgoing::error(Some(&id), &ErrorObject::method_not_found("x"));
        assert_eq!(error.error_code(), Some(-32601));
        assert_eq!(
            Outgoing::result(&id, &json!({"error": {"code": 1}})).error_code(),
            None
        );
        let named = RequestId::String("a\"b,\"error\":{\"code\":1}".into());
        let error = Outgoing::error(Some(&named), &ErrorObject::internal_error("x"));
        assert_eq!(error.error_code(), Some(-32603));
        assert_eq!(
            Outgoing::error(None, &ErrorObject::invalid_request("x")).error_code(),
            Some(-32600)
        );
    }
}
