//! The `error` member of a JSON-RPC error response, and the codes MCP uses.

use std::borrow::Cow;

use serde::Serialize;
use serde_json::Value;

/// A JSON-RPC error: a code, a one-sentence message and optional structured data.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct ErrorObject {
    pub(crate) code: i32,
    pub(crate) message: Cow<'static, str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) data: Option<Value>,
}

// The constructors are `#[cold]`: an error is the rare way out of a call, and a cold call
// keeps the code that builds it out of the middle of the hot path that branches to it.
impl ErrorObject {
    /// The line was not valid JSON.
    pub(crate) const PARSE_ERROR: i32 = -32700;
    /// The JSON was not a valid request object (or not acceptable in this state).
    pub(crate) const INVALID_REQUEST: i32 = -32600;
    /// No such method (or not in this revision).
    pub(crate) const METHOD_NOT_FOUND: i32 = -32601;
    /// The method exists but its params are wrong.
    pub(crate) const INVALID_PARAMS: i32 = -32602;
    /// The server failed on its side.
    pub(crate) const INTERNAL_ERROR: i32 = -32603;
    /// 2026-07-28: the request needs a client capability its `_meta` did not declare.
    pub(crate) const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
    /// 2026-07-28: the request's `_meta` protocol version is not one this server serves.
    pub(crate) const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
    /// This runtime's: the caller was not granted every scope the request needs (its `data`
    /// names them). Over Streamable HTTP it comes with 403 (or 401 without a token).
    pub(crate) const INSUFFICIENT_SCOPE: i32 = -32003;

    /// An error with `code` and `message` and no data.
    #[cold]
    pub(crate) fn new(code: i32, message: impl Into<Cow<'static, str>>) -> Self {
        ErrorObject {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error carrying `data`.
    pub(crate) fn with_data(mut self, data: Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700`, saying what the JSON parser objected to.
    #[cold]
    pub(crate) fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::new(Self::PARSE_ERROR, format!("parse error: {detail}"))
    }

    /// `-32600` with `message`.
    #[cold]
    pub(crate) fn invalid_request(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Self::INVALID_REQUEST, message)
    }

    /// `-32601` naming the method.
    #[cold]
    pub(crate) fn method_not_found(method: &str) -> Self {
        Self::new(
            Self::METHOD_NOT_FOUND,
            format!("method not found: `{method}`"),
        )
    }

    /// `-32602` with `message`.
    #[cold]
    pub(crate) fn invalid_params(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Self::INVALID_PARAMS, message)
    }

    /// [`INSUFFICIENT_SCOPE`](Self::INSUFFICIENT_SCOPE): `scope` (space-separated) is what
    /// the request needs.
    #[cold]
    pub(crate) fn insufficient_scope(scope: String) -> Self {
        Self::new(
            Self::INSUFFICIENT_SCOPE,
            format!("insufficient scope: this needs `{scope}`"),
        )
        .with_data(serde_json::json!({"error": "insufficient_scope", "scope": scope}))
    }

    /// `-32603` with `message`.
    #[cold]
    pub(crate) fn internal_error(message: impl Into<Cow<'static, str>>) -> Self {
        Self::new(Self::INTERNAL_ERROR, message)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn data_is_omitted_when_absent() {
        let error = ErrorObject::method_not_found("ping");
        assert_eq!(
            serde_json::to_value(&error).unwrap(),
            json!({"code": -32601, "message": "method not found: `ping`"})
        );
    }

    #[test]
    fn data_is_sent_when_present() {
        let error = ErrorObject::invalid_params("bad").with_data(json!({"x": 1}));
        assert_eq!(
            serde_json::to_value(&error).unwrap(),
            json!({"code": -32602, "message": "bad", "data": {"x": 1}})
        );
    }
}
