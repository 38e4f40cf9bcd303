//! Who calls, and what they may do: the [`Principal`] a request was authenticated as, with
//! the scopes its token grants.
//!
//! Over HTTP an [authorization hook](crate::http::HttpConfig::authorize) or a token verifier
//! names the principal; a tool, resource or prompt that declares scopes
//! (`#[mcp_tool(scopes("notes:write"))]`) is served only to principals holding all of them.
//! Over stdio there is no token: the operator who started the server is trusted with every
//! scope, unless the server was given a principal to serve stdio as
//! ([`Server::stdio_principal`](crate::Server::stdio_principal)).
//!
//! With the `oauth` feature, OAuth 2.0 access tokens are checked for you: `JwtVerifier`
//! verifies JWT access tokens (RFC 9068) against the issuer's published key set,
//! `Introspection` asks the authorization server about opaque ones (RFC 7662); either is
//! installed with `HttpConfig::verify_tokens`, or implement `TokenVerifier` for another kind
//! of token.

#[cfg(feature = "oauth")]
mod cache;
#[cfg(feature = "oauth")]
mod claims;
#[cfg(feature = "oauth")]
mod fetch;
#[cfg(feature = "oauth")]
mod introspection;
#[cfg(feature = "oauth")]
mod jwt;
mod principal;
#[cfg(feature = "oauth")]
mod verifier;

#[cfg(feature = "oauth")]
pub use introspection::{Introspection, IntrospectionStats};
#[cfg(feature = "oauth")]
pub use jwt::{JwtStats, JwtVerifier};
pub use principal::Principal;
#[cfg(feature = "oauth")]
pub use verifier::{TokenError, TokenErrorKind, TokenVerifier, VerifyFuture};
