//! A JSON-RPC error a layer answers with.

use std::borrow::Cow;
use std::fmt;

use serde_json::Value;

use crate::protocol::jsonrpc::ErrorObject;

/// A JSON-RPC error answering a request: what a layer returns (as its `Err`, boxed) to refuse
/// a request with a protocol error rather than a tool error result.
///
/// ```
/// use mcp_runtime::middleware::{BoxError, Error};
/// let refused: BoxError = Error::new(-32001, "the server is in maintenance").into();
/// assert_eq!(refused.to_string(), "the server is in maintenance");
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Error(pub(crate) ErrorObject);

impl Error {
    /// Invalid params (`-32602`).
    pub const INVALID_PARAMS: i32 = ErrorObject::INVALID_PARAMS;
    /// Internal error (`-32603`).
    pub const INTERNAL_ERROR: i32 = ErrorObject::INTERNAL_ERROR;

    /// An error with `code` and `message`.
    pub fn new(code: i32, message: impl Into<Cow<'static, str>>) -> Self {
        Error(ErrorObject::new(code, message))
    }

    /// Invalid params (`-32602`) with `message`.
    pub fn invalid_params(message: impl Into<Cow<'static, str>>) -> Self {
        Error(ErrorObject::invalid_params(message))
    }

    /// Internal error (`-32603`) with `message`.
    pub fn internal(message: impl Into<Cow<'static, str>>) -> Self {
        Error(ErrorObject::internal_error(message))
    }

    /// The same error carrying `data`.
    pub fn with_data(self, data: Value) -> Self {
        Error(self.0.with_data(data))
    }

    /// Its code.
    pub fn code(&self) -> i32 {
        self.0.code
    }

    /// Its message.
    pub fn message(&self) -> &str {
        &self.0.message
    }

    /// Its data, if any.
    pub fn data(&self) -> Option<&Value> {
        self.0.data.as_ref()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl std::error::Error for Error {}

impl From<ErrorObject> for Error {
    fn from(error: ErrorObject) -> Self {
        Error(error)
    }
}
