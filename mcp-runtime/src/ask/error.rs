//! Why a question to the client got no usable answer.

use std::fmt;

/// Why [`RequestContext::elicit`](crate::RequestContext::elicit),
/// [`sample`](crate::RequestContext::sample) or [`roots`](crate::RequestContext::roots) has no
/// answer. Each is final for that question: the handler decides what to do instead.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum AskError {
    /// The client cannot be asked this: it did not declare the capability (legacy: in
    /// `initialize`; 2026-07-28: in this request's `_meta`), the revision lacks the feature
    /// (elicitation before 2025-06-18), or the request is not one that may ask.
    Unsupported {
        /// `elicitation`, `sampling` or `roots`.
        capability: &'static str,
        /// Why, in a sentence.
        reason: String,
    },
    /// The client answered with a JSON-RPC error.
    Rejected {
        /// The error's code.
        code: i64,
        /// The error's message.
        message: String,
    },
    /// The client's answer does not have the shape the question calls for.
    InvalidAnswer(String),
    /// The form type cannot be an elicitation form (it is not a struct of flat fields).
    InvalidForm(String),
    /// No answer came within the server's ask timeout (see
    /// [`Server::ask_timeout`](crate::Server::ask_timeout)); the question was withdrawn.
    TimedOut,
    /// The request was cancelled (or the connection closed) while waiting.
    Cancelled,
}

impl fmt::Display for AskError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AskError::Unsupported { capability, reason } => {
                write!(f, "cannot ask the client ({capability}): {reason}")
            }
            AskError::Rejected { code, message } => {
                write!(f, "the client refused the request ({code}): {message}")
            }
            AskError::InvalidAnswer(detail) => {
                write!(f, "the client's answer is invalid: {detail}")
            }
            AskError::InvalidForm(detail) => write!(f, "not a valid elicitation form: {detail}"),
            AskError::TimedOut => f.write_str("the client did not answer in time"),
            AskError::Cancelled => f.write_str("the request was cancelled while asking the client"),
        }
    }
}

impl std::error::Error for AskError {}
