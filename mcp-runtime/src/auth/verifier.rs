//! What checks an access token: the [`TokenVerifier`] trait and its error.

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use super::Principal;

/// What [`TokenVerifier::verify`] returns: the principal a token was issued to, or why not.
pub type VerifyFuture<'a> =
    Pin<Box<dyn Future<Output = Result<Principal, TokenError>> + Send + 'a>>;

/// Checks an OAuth 2.0 access token and names the [`Principal`] it was issued to.
///
/// [`JwtVerifier`](super::JwtVerifier) and [`Introspection`](super::Introspection) are the
/// two shipped; install one with
/// [`HttpConfig::verify_tokens`](crate::http::HttpConfig::verify_tokens). Implement it for
/// another kind of token:
///
/// ```
/// use mcp_runtime::auth::{Principal, TokenError, TokenVerifier, VerifyFuture};
///
/// /// Tokens from a table, for a server whose clients are configured by hand.
/// struct Table(Vec<(String, String)>);
///
/// impl TokenVerifier for Table {
///     fn verify<'a>(&'a self, token: &'a str, _resource: Option<&'a str>) -> VerifyFuture<'a> {
///         Box::pin(async move {
///             self.0
///                 .iter()
///                 .find(|(known, _)| known == token)
///                 .map(|(_, subject)| Principal::new(subject.clone()))
///                 .ok_or_else(|| TokenError::invalid("not in the table"))
///         })
///     }
/// }
///
/// let config = mcp_runtime::http::HttpConfig::new()
///     .verify_tokens(Table(vec![("s3cret".into(), "ops".into())]));
/// # let _ = config;
/// ```
pub trait TokenVerifier: Send + Sync + 'static {
    /// The principal `token` was issued to. `resource` is this server's resource URL (the
    /// [`ProtectedResource`](crate::http::ProtectedResource) it publishes), the audience a
    /// token must name unless the verifier was told another.
    ///
    /// Runs for every request: a verifier that asks the network should remember its
    /// answers.
    fn verify<'a>(&'a self, token: &'a str, resource: Option<&'a str>) -> VerifyFuture<'a>;

    /// Whether the verifier can work for a server whose resource URL is `resource`: called
    /// once, when the HTTP service is made, so that a misconfiguration stops the server at
    /// start rather than refusing every request. The error names the problem.
    ///
    /// # Errors
    ///
    /// A description of what is missing or wrong.
    fn check(&self, resource: Option<&str>) -> Result<(), String> {
        let _ = resource;
        Ok(())
    }
}

/// Why a token was not accepted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum TokenErrorKind {
    /// The token is refused: malformed, badly signed, expired, not yet valid, for another
    /// audience or issuer, revoked. Answered 401 `invalid_token`; the client should get
    /// another.
    Invalid,
    /// The token could not be checked: the issuer's key set, metadata or introspection
    /// endpoint could not be reached, and no earlier answer is at hand. Answered 503; the
    /// client keeps its token and tries again.
    Unavailable,
}

/// Why a token was not accepted: its [kind](TokenErrorKind), and the exact reason, for the
/// server's log (never for the client: it would tell an attacker which check failed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenError {
    kind: TokenErrorKind,
    reason: String,
}

impl TokenError {
    /// The token is refused, for `reason`.
    pub fn invalid(reason: impl Into<String>) -> Self {
        TokenError {
            kind: TokenErrorKind::Invalid,
            reason: reason.into(),
        }
    }

    /// The token could not be checked, for `reason`.
    pub fn unavailable(reason: impl Into<String>) -> Self {
        TokenError {
            kind: TokenErrorKind::Unavailable,
            reason: reason.into(),
        }
    }

    /// Refused, or could not be checked.
    pub fn kind(&self) -> TokenErrorKind {
        self.kind
    }

    /// What exactly went wrong.
    pub fn reason(&self) -> &str {
        &self.reason
    }
}

impl fmt::Display for TokenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            TokenErrorKind::Invalid => write!(f, "invalid access token: {}", self.reason),
            TokenErrorKind::Unavailable => {
                write!(f, "the access token could not be checked: {}", self.reason)
            }
        }
    }
}

impl std::error::Error for TokenError {}
