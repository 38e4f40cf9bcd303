//! Who calls, and what they may do: the [`Principal`] a request was authenticated as, with
//! the scopes its token grants.
//!
//! Over HTTP an [authorization hook](crate::http::HttpConfig::authorize) or a token verifier
//! names the principal; a tool, resource or prompt that declares scopes
//! (`#[mcp_tool(scopes("notes:write"))]`) is served only to principals holding all of them.
//! Over stdio there is no token: the operator who started the server is trusted with every
//! scope, unless the server was given a principal to serve stdio as
//! ([`Server::stdio_principal`](crate::Server::stdio_principal)).

mod principal;

pub use principal::Principal;
