//! What an HTTP endpoint accepts: origins, hosts, body size, authorization, sessions.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use http::{HeaderMap, Method, StatusCode};
use serde::Serialize;

use super::principal::Authorized;

/// How the Streamable HTTP transport behaves; the defaults suit a server on the local machine.
///
/// ```
/// use mcp_runtime::http::{AuthRejection, HttpConfig, ProtectedResource};
///
/// let config = HttpConfig::new()
///     .allow_origin("https://app.example.com")
///     .max_body_size(1 << 20)
///     .protected_resource(
///         ProtectedResource::new("https://mcp.example.com/mcp")
///             .authorization_server("https://auth.example.com"),
///     )
///     .authorize(|request| match request.bearer_token {
///         Some("let-me-in") => Ok(()),
///         Some(_) => Err(AuthRejection::invalid_token("unknown token")),
///         None => Err(AuthRejection::missing_token()),
///     });
/// # let _ = config;
/// ```
#[derive(Clone)]
pub struct HttpConfig {
    pub(crate) path: String,
    pub(crate) allowed_origins: Vec<String>,
    pub(crate) any_origin: bool,
    pub(crate) allowed_hosts: Option<Vec<String>>,
    pub(crate) max_body_size: Option<usize>,
    pub(crate) authorizer: Option<Authorizer>,
    pub(crate) resource: Option<ProtectedResource>,
    pub(crate) session_idle_timeout: Duration,
    pub(crate) max_sessions: usize,
    pub(crate) max_connections: usize,
    pub(crate) max_connections_per_address: usize,
    pub(crate) max_sessions_per_client: usize,
    pub(crate) idle_timeout: Duration,
    pub(crate) body_read_timeout: Duration,
    pub(crate) max_body_memory: usize,
    /// The 2024-11-05 HTTP+SSE transport's paths: its event stream and where messages go.
    pub(crate) legacy_sse: Option<(String, String)>,
    /// The name every session id of this instance starts with.
    pub(crate) instance_id: Option<String>,
}

/// The authorization hook: sees every request before it is served.
#[derive(Clone)]
pub(crate) enum Authorizer {
    /// Decides at once.
    Sync(Arc<SyncHook>),
    /// May wait (token introspection, a key set fetched over the network).
    Async(Arc<dyn Fn(OwnedAuthRequest) -> AuthFuture + Send + Sync>),
    /// Checks the bearer token ([`HttpConfig::verify_tokens`]).
    #[cfg(feature = "oauth")]
    Verifier(Arc<dyn crate::auth::TokenVerifier>),
}

/// A hook that decides at once.
type SyncHook = dyn Fn(&AuthRequest<'_>) -> Result<Authorized, AuthRejection> + Send + Sync;

/// What an asynchronous authorization hook returns.
type AuthFuture =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<Authorized, AuthRejection>> + Send>>;

impl Authorizer {
    /// Whether `request` may be served by a server whose resource URL is `resource`.
    pub(crate) async fn check(
        &self,
        request: AuthRequest<'_>,
        resource: Option<&str>,
    ) -> Result<Authorized, AuthRejection> {
        // Only a token verifier needs it.
        let _ = resource;
        match self {
            Authorizer::Sync(hook) => hook(&request),
            Authorizer::Async(hook) => hook(OwnedAuthRequest::from(&request)).await,
            #[cfg(feature = "oauth")]
            Authorizer::Verifier(verifier) => {
                let token = request
                    .bearer_token
                    .ok_or_else(AuthRejection::missing_token)?;
                match verifier.verify(token, resource).await {
                    Ok(principal) => Ok(principal.into()),
                    Err(error) => Err(refusal(&error)),
                }
            }
        }
    }
}

/// The answer to a token a verifier did not accept. The client learns only that the token
/// is invalid (RFC 6750 §3.1 has no finer code, and naming the failed check would help an
/// attacker forge the next one); the log gets the reason, never the token.
#[cfg(feature = "oauth")]
fn refusal(error: &crate::auth::TokenError) -> AuthRejection {
    match error.kind() {
        crate::auth::TokenErrorKind::Invalid => {
            tracing::info!(reason = error.reason(), "refused an access token");
            AuthRejection::invalid_token("the access token is invalid")
        }
        _ => {
            tracing::warn!(reason = error.reason(), "could not check an access token");
            AuthRejection::unavailable("the access token cannot be checked now; try again shortly")
        }
    }
}

impl Default for HttpConfig {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for HttpConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HttpConfig")
            .field("path", &self.path)
            .field("allowed_origins", &self.allowed_origins)
            .field("any_origin", &self.any_origin)
            .field("allowed_hosts", &self.allowed_hosts)
            .field("max_body_size", &self.max_body_size)
            .field("authorizer", &self.authorizer.as_ref().map(|_| ".."))
            .field("resource", &self.resource)
            .field("session_idle_timeout", &self.session_idle_timeout)
            .field("max_sessions", &self.max_sessions)
            .field("max_connections", &self.max_connections)
            .field(
                "max_connections_per_address",
                &self.max_connections_per_address,
            )
            .field("max_sessions_per_client", &self.max_sessions_per_client)
            .field("idle_timeout", &self.idle_timeout)
            .field("body_read_timeout", &self.body_read_timeout)
            .field("max_body_memory", &self.max_body_memory)
            .field("legacy_sse", &self.legacy_sse)
            .field("instance_id", &self.instance_id)
            .finish()
    }
}

impl HttpConfig {
    /// Legacy sessions unused for this long are forgotten unless [`session_idle_timeout`]
    /// says otherwise.
    ///
    /// [`session_idle_timeout`]: Self::session_idle_timeout
    pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);
    /// At most this many legacy sessions at once unless [`max_sessions`](Self::max_sessions)
    /// says otherwise.
    pub const DEFAULT_MAX_SESSIONS: usize = 10_000;
    /// At most this many open connections unless [`max_connections`](Self::max_connections)
    /// says otherwise.
    pub const DEFAULT_MAX_CONNECTIONS: usize = 1024;
    /// At most this many open connections from one IP address unless
    /// [`max_connections_per_address`](Self::max_connections_per_address) says otherwise: a
    /// quarter of [`DEFAULT_MAX_CONNECTIONS`](Self::DEFAULT_MAX_CONNECTIONS), so that one
    /// client cannot take every connection.
    pub const DEFAULT_MAX_CONNECTIONS_PER_ADDRESS: usize = 256;
    /// At most this many legacy sessions (and as many HTTP+SSE sessions) per principal, or per
    /// IP address for requests without one, unless
    /// [`max_sessions_per_client`](Self::max_sessions_per_client) says otherwise.
    pub const DEFAULT_MAX_SESSIONS_PER_CLIENT: usize = 100;
    /// How long a connection may stay silent before its request's headers are complete
    /// unless [`idle_timeout`](Self::idle_timeout) says otherwise.
    pub const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(10);
    /// How long a request body may take to arrive unless
    /// [`body_read_timeout`](Self::body_read_timeout) says otherwise.
    pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(10);
    /// The largest request body unless [`max_body_size`](Self::max_body_size) (or a smaller
    /// [`Server::max_message_size`](crate::Server::max_message_size)) says otherwise: 4 MiB.
    /// The largest messages in real use carry media as base64 (an image a tool receives, a
    /// sampling answer): a 3 MiB image is 4 MiB of base64. Everything else (arguments,
    /// answers to questions, documents of text) is far smaller.
    pub const DEFAULT_MAX_BODY_SIZE: usize = 4 * 1024 * 1024;
    /// How many bytes of request bodies all connections together may hold while they are
    /// read and handled, unless [`max_body_memory`](Self::max_body_memory) says otherwise:
    /// 64 MiB, sixteen bodies of the largest size at once.
    pub const DEFAULT_MAX_BODY_MEMORY: usize = 64 * 1024 * 1024;
    /// Where the 2024-11-05 HTTP+SSE transport's event stream is opened unless
    /// [`legacy_sse`](Self::legacy_sse) says otherwise.
    pub const DEFAULT_SSE_PATH: &'static str = "/sse";
    /// Where clients of the 2024-11-05 HTTP+SSE transport POST their messages unless
    /// [`legacy_sse`](Self::legacy_sse) says otherwise.
    pub const DEFAULT_MESSAGES_PATH: &'static str = "/messages";

    /// The defaults: endpoint `/mcp`, and the 2024-11-05 HTTP+SSE transport at `/sse` and
    /// `/messages`; browser pages from loopback origins only; request bodies up to 4 MiB (or the
    /// server's smaller [`max_message_size`](crate::Server::max_message_size)), read within
    /// 10 s, 64 MiB of them at once; connections closed after 10 silent seconds; no
    /// authorization; legacy sessions forgotten after 30 idle minutes, at most 100 per client.
    pub fn new() -> Self {
        HttpConfig {
            path: "/mcp".to_owned(),
            allowed_origins: Vec::new(),
            any_origin: false,
            allowed_hosts: None,
            max_body_size: None,
            authorizer: None,
            resource: None,
            session_idle_timeout: Self::DEFAULT_SESSION_IDLE_TIMEOUT,
            max_sessions: Self::DEFAULT_MAX_SESSIONS,
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            max_connections_per_address: Self::DEFAULT_MAX_CONNECTIONS_PER_ADDRESS,
            max_sessions_per_client: Self::DEFAULT_MAX_SESSIONS_PER_CLIENT,
            idle_timeout: Self::DEFAULT_IDLE_TIMEOUT,
            body_read_timeout: Self::DEFAULT_BODY_READ_TIMEOUT,
            max_body_memory: Self::DEFAULT_MAX_BODY_MEMORY,
            legacy_sse: Some((
                Self::DEFAULT_SSE_PATH.to_owned(),
                Self::DEFAULT_MESSAGES_PATH.to_owned(),
            )),
            instance_id: None,
        }
    }

    /// The endpoint's path when the server serves on its own (default `/mcp`). A service
    /// mounted into another app answers wherever the app routes it.
    pub fn path(mut self, path: impl Into<String>) -> Self {
        self.path = path.into();
        self
    }

    /// Also accept requests whose `Origin` is `origin` (`scheme://host[:port]`, compared
    /// case-insensitively). Requests without `Origin` (not from a browser) are always
    /// accepted, and so are loopback origins; any other is refused with 403, so that a web
    /// page cannot reach a local server through DNS rebinding.
    pub fn allow_origin(mut self, origin: impl Into<String>) -> Self {
        self.allowed_origins
            .push(origin.into().trim_end_matches('/').to_ascii_lowercase());
        self
    }

    /// Accept any `Origin`: for a public server whose clients are not browsers, or that
    /// authorizes every request.
    pub fn allow_any_origin(mut self) -> Self {
        self.any_origin = true;
        self
    }

    /// Accept only requests whose `Host` (without port) is one of these. By default a server
    /// bound to a loopback address accepts only loopback host names, and any other accepts
    /// any host.
    pub fn allowed_hosts<I, S>(mut self, hosts: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.allowed_hosts = Some(
            hosts
                .into_iter()
                .map(|host| host.into().to_ascii_lowercase())
                .collect(),
        );
        self
    }

    /// The largest request body accepted, in bytes; a larger one is refused with 413 (see
    /// [`DEFAULT_MAX_BODY_SIZE`](Self::DEFAULT_MAX_BODY_SIZE) for the default and why).
    pub fn max_body_size(mut self, bytes: usize) -> Self {
        self.max_body_size = Some(bytes);
        self
    }

    /// How many bytes of request bodies may be held at once, over all connections, while they
    /// are read and handled. A body that does not fit (by its `Content-Length`, or as it
    /// arrives) is refused with 503 and `Retry-After`: many slow uploads cannot exhaust
    /// memory. Bodies of 64 KiB or less are not counted (the connection limits bound them),
    /// so ordinary requests are served however much large uploads hold; and the bodies from
    /// one address hold at most a quarter of this (or one body of the largest size).
    pub fn max_body_memory(mut self, bytes: usize) -> Self {
        self.max_body_memory = bytes.max(1);
        self
    }

    /// How long a request body may take to arrive once its headers have; a slower one is
    /// answered 408 and its connection closed (default 10 s), so that a client sending part
    /// of a body and then nothing holds neither a connection nor memory for long.
    pub fn body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// Decide, before anything else is done with it, whether each request may be served: the
    /// hook sees its bearer token (`Authorization: Bearer ...`) and headers. A rejection is
    /// answered with its status (401 or 403) and a `WWW-Authenticate` header pointing at the
    /// [`protected_resource`](Self::protected_resource) metadata when configured.
    ///
    /// A request let through may be named for who sent it: answer `Ok(Principal::new(subject))`
    /// rather than `Ok(())`. Handlers then see it ([`RequestContext::principal`]), a legacy
    /// session is bound to the principal that opened it (404 for anyone else), and a
    /// 2026-07-28 `requestState` resumes only for the principal it was issued to.
    ///
    /// The hook runs on the server's async workers: keep it quick (check a signature, look up
    /// a cache), never block on I/O.
    ///
    /// ```
    /// use mcp_runtime::http::{AuthRejection, HttpConfig, Principal};
    ///
    /// fn subject_of(token: &str) -> Option<&str> {
    ///     // ... verify the token's signature, then read its `sub` claim ...
    ///     token.strip_prefix("signed-for-")
    /// }
    ///
    /// let config = HttpConfig::new().authorize(|request| {
    ///     let token = request.bearer_token.ok_or_else(AuthRejection::missing_token)?;
    ///     let subject = subject_of(token)
    ///         .ok_or_else(|| AuthRejection::invalid_token("bad signature"))?;
    ///     Ok(Principal::new(subject))
    /// });
    /// # let _ = config;
    /// ```
    ///
    /// [`RequestContext::principal`]: crate::RequestContext::principal
    pub fn authorize<F, A>(mut self, hook: F) -> Self
    where
        F: Fn(&AuthRequest<'_>) -> Result<A, AuthRejection> + Send + Sync + 'static,
        A: Into<Authorized>,
    {
        self.authorizer = Some(Authorizer::Sync(Arc::new(move |request| {
            hook(request).map(Into::into)
        })));
        self
    }

    /// [`authorize`](Self::authorize) with a hook that may wait: to introspect a token at the
    /// authorization server, or check it against a key set fetched over the network. The
    /// hook gets an owned copy of what it may look at; the request waits for its verdict.
    ///
    /// ```
    /// use mcp_runtime::http::{AuthRejection, HttpConfig, OwnedAuthRequest};
    ///
    /// async fn introspect(token: &str) -> bool {
    ///     // ... ask the authorization server ...
    ///     token == "valid"
    /// }
    ///
    /// let config = HttpConfig::new().authorize_async(|request: OwnedAuthRequest| async move {
    ///     match request.bearer_token.as_deref() {
    ///         Some(token) if introspect(token).await => Ok(()),
    ///         Some(_) => Err(AuthRejection::invalid_token("the token is not active")),
    ///         None => Err(AuthRejection::missing_token()),
    ///     }
    /// });
    /// # let _ = config;
    /// ```
    pub fn authorize_async<F, Fut, A>(mut self, hook: F) -> Self
    where
        F: Fn(OwnedAuthRequest) -> Fut + Send + Sync + 'static,
        Fut: std::future::Future<Output = Result<A, AuthRejection>> + Send + 'static,
        A: Into<Authorized>,
    {
        self.authorizer = Some(Authorizer::Async(Arc::new(move |request| {
            let verdict = hook(request);
            Box::pin(async move { verdict.await.map(Into::into) })
        })));
        self
    }

    /// Serve only requests whose bearer token `verifier` accepts, as the [`Principal`] it
    /// names: a [`JwtVerifier`](crate::auth::JwtVerifier) for JWT access tokens,
    /// [`Introspection`](crate::auth::Introspection) for opaque ones, or a
    /// [`TokenVerifier`](crate::auth::TokenVerifier) of your own. Replaces an
    /// [`authorize`](Self::authorize) hook.
    ///
    /// A request without a token is answered 401 with a `WWW-Authenticate: Bearer` challenge
    /// naming the [`protected_resource`](Self::protected_resource) metadata; a refused token
    /// 401 `invalid_token`, saying no more (the server's log says why, at `info`); a token
    /// that could not be checked (the authorization server is unreachable) 503, without
    /// `invalid_token`, so the client keeps it and tries again. Tokens must be issued for the
    /// protected resource's URL unless the verifier was given other audiences. A verifier
    /// that cannot work as configured (a JWT verifier without an audience to expect) makes
    /// [`Server::http_service`](crate::Server::http_service) and the `serve_http` methods
    /// fail, naming the problem.
    ///
    /// ```
    /// use mcp_runtime::auth::JwtVerifier;
    /// use mcp_runtime::http::{HttpConfig, ProtectedResource};
    ///
    /// let issuer = "https://auth.example.com";
    /// let config = HttpConfig::new()
    ///     .protected_resource(
    ///         ProtectedResource::new("https://mcp.example.com/mcp").authorization_server(issuer),
    ///     )
    ///     .verify_tokens(JwtVerifier::discover(issuer));
    /// # let _ = config;
    /// ```
    ///
    /// [`Principal`]: crate::auth::Principal
    #[cfg(feature = "oauth")]
    pub fn verify_tokens(mut self, verifier: impl crate::auth::TokenVerifier) -> Self {
        self.authorizer = Some(Authorizer::Verifier(Arc::new(verifier)));
        self
    }

    /// Whether the authorizer can work, for [`Server::http_service`](crate::Server::http_service):
    /// a token verifier checks its configuration against the resource URL.
    pub(crate) fn check_authorizer(&self) -> Result<(), String> {
        #[cfg(feature = "oauth")]
        if let Some(Authorizer::Verifier(verifier)) = &self.authorizer {
            let resource = self.resource.as_ref().map(ProtectedResource::resource);
            return verifier.check(resource);
        }
        Ok(())
    }

    /// Publish OAuth 2.0 protected resource metadata (RFC 9728) at
    /// `/.well-known/oauth-protected-resource` (and the same followed by the resource's path),
    /// so clients can find the authorization server that issues tokens for this server.
    pub fn protected_resource(mut self, resource: ProtectedResource) -> Self {
        self.resource = Some(resource);
        self
    }

    /// Forget a legacy session (its `Mcp-Session-Id` then answers 404) after this long
    /// without requests or an open stream.
    pub fn session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Serve at most this many connections at once (when serving on its own); more wait to be
    /// accepted until one closes.
    pub fn max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// Serve at most this many connections at once from one IP address (when serving on its
    /// own); more are answered 503 and closed. Behind a reverse proxy every connection comes
    /// from the proxy: raise this to [`max_connections`](Self::max_connections) there, and
    /// let the proxy limit its clients.
    pub fn max_connections_per_address(mut self, connections: usize) -> Self {
        self.max_connections_per_address = connections.max(1);
        self
    }

    /// Close a connection (when serving on its own) that has gone this long without a request
    /// being answered: just opened, idle since its last response, or sending its headers
    /// slowly (default 10 s). Connections nobody uses then cannot hold the server's
    /// connection slots, and a client that sends its headers slowly is cut off. A connection
    /// is looked at four times per timeout, so it closes between the timeout and a quarter
    /// more after it fell idle. Calls running and streams being read, however long, keep
    /// their connection.
    pub fn idle_timeout(mut self, timeout: Duration) -> Self {
        self.idle_timeout = timeout;
        self
    }

    /// At most this many legacy sessions per client: per [`Principal`](super::Principal),
    /// or per IP address for requests without one (when serving on its own; a mounted service
    /// that knows no address counts them all together). A client at its limit that opens
    /// another loses its least recently used idle session; when none is idle it gets 503.
    /// Other clients are unaffected, so one cannot take every session of
    /// [`max_sessions`](Self::max_sessions). The HTTP+SSE transport has the same limit.
    pub fn max_sessions_per_client(mut self, sessions: usize) -> Self {
        self.max_sessions_per_client = sessions.max(1);
        self
    }

    /// Name this instance `instance` (1 to 32 ASCII letters, digits, `-` or `_`): every session
    /// id it hands out then starts with `instance.` (`a1.3f9c...`: the name, a dot, 64 random
    /// hex digits), for legacy sessions and HTTP+SSE ones alike. A proxy in front of several
    /// instances can then send each session's requests to the instance that holds it by the
    /// id's prefix alone, e.g. an nginx `map` from `$http_mcp_session_id` to the instance's
    /// address (the README's "Scaling out" shows one). Without a name, ids are the 64 digits
    /// alone. [`serve_from_args`](crate::Server::serve_from_args) takes it from
    /// `MCP_INSTANCE_ID`.
    ///
    /// [`Server::http_service`](crate::Server::http_service) refuses a name with other
    /// characters.
    ///
    /// ```
    /// use mcp_runtime::http::HttpConfig;
    ///
    /// let config = HttpConfig::new().instance_id("a1");
    /// # let _ = config;
    /// ```
    pub fn instance_id(mut self, instance: impl Into<String>) -> Self {
        self.instance_id = Some(instance.into());
        self
    }

    /// Why the instance's name cannot start a session id, if it cannot.
    pub(crate) fn check_instance_id(&self) -> Result<(), String> {
        let Some(instance) = &self.instance_id else {
            return Ok(());
        };
        let allowed = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'-' || byte == b'_';
        if (1..=32).contains(&instance.len()) && instance.bytes().all(allowed) {
            Ok(())
        } else {
            Err(format!(
                "the instance id {instance:?} must be 1 to 32 ASCII letters, digits, `-` or `_`"
            ))
        }
    }

    /// At most this many legacy sessions at once; `initialize` beyond that is answered with
    /// 503 until idle ones expire. The HTTP+SSE transport has as many again of its own.
    pub fn max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// Serve the 2024-11-05 HTTP+SSE transport with its event stream at `sse_path` (a GET opens
    /// a session; its first event, `endpoint`, names the URI to POST to) and its messages at
    /// `messages_path` (default `/sse` and `/messages`). Both pass the same `Host`, `Origin`,
    /// authorization and body size checks as the Streamable HTTP endpoint. A service mounted
    /// into another app serves them when the app routes these paths to it.
    pub fn legacy_sse(
        mut self,
        sse_path: impl Into<String>,
        messages_path: impl Into<String>,
    ) -> Self {
        self.legacy_sse = Some((sse_path.into(), messages_path.into()));
        self
    }

    /// Do not serve the 2024-11-05 HTTP+SSE transport: only the Streamable HTTP endpoint.
    pub fn without_legacy_sse(mut self) -> Self {
        self.legacy_sse = None;
        self
    }
}

/// What the authorization hook sees of a request.
#[derive(Debug)]
#[non_exhaustive]
pub struct AuthRequest<'a> {
    /// The token of an `Authorization: Bearer <token>` header. Never log it.
    pub bearer_token: Option<&'a str>,
    /// The HTTP method.
    pub method: &'a Method,
    /// The request path.
    pub path: &'a str,
    /// Every header of the request.
    pub headers: &'a HeaderMap,
}

/// What an [asynchronous authorization hook](HttpConfig::authorize_async) sees of a request:
/// an owned copy of [`AuthRequest`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct OwnedAuthRequest {
    /// The token of an `Authorization: Bearer <token>` header. Never log it.
    pub bearer_token: Option<String>,
    /// The HTTP method.
    pub method: Method,
    /// The request path.
    pub path: String,
    /// Every header of the request.
    pub headers: HeaderMap,
}

impl From<&AuthRequest<'_>> for OwnedAuthRequest {
    fn from(request: &AuthRequest<'_>) -> Self {
        OwnedAuthRequest {
            bearer_token: request.bearer_token.map(str::to_owned),
            method: request.method.clone(),
            path: request.path.to_owned(),
            headers: request.headers.clone(),
        }
    }
}

/// Why the authorization hook refused a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthRejection {
    pub(crate) status: StatusCode,
    pub(crate) error: Option<&'static str>,
    pub(crate) description: Option<String>,
    pub(crate) scope: Option<String>,
    /// Whether the answer carries a `WWW-Authenticate` challenge: not when the token could
    /// not be checked, which a challenge would tell the client to replace.
    pub(crate) challenge: bool,
}

impl AuthRejection {
    /// 401 for a request without a token (RFC 6750: no error code, only the challenge).
    pub fn missing_token() -> Self {
        AuthRejection {
            status: StatusCode::UNAUTHORIZED,
            error: None,
            description: None,
            scope: None,
            challenge: true,
        }
    }

    /// 401 `invalid_token`: expired, revoked, malformed, or issued for another resource.
    pub fn invalid_token(description: impl Into<String>) -> Self {
        AuthRejection {
            status: StatusCode::UNAUTHORIZED,
            error: Some("invalid_token"),
            description: Some(description.into()),
            scope: None,
            challenge: true,
        }
    }

    /// 403 `insufficient_scope`: a valid token without the `scope` this request needs.
    pub fn insufficient_scope(scope: impl Into<String>) -> Self {
        AuthRejection {
            status: StatusCode::FORBIDDEN,
            error: Some("insufficient_scope"),
            description: None,
            scope: Some(scope.into()),
            challenge: true,
        }
    }

    /// 503: the token could not be checked now (the authorization server cannot be
    /// reached). No challenge: the client keeps its token and tries again later.
    pub fn unavailable(description: impl Into<String>) -> Self {
        AuthRejection {
            status: StatusCode::SERVICE_UNAVAILABLE,
            error: None,
            description: Some(description.into()),
            scope: None,
            challenge: false,
        }
    }
}

/// OAuth 2.0 protected resource metadata (RFC 9728) describing this server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProtectedResource {
    resource: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    authorization_servers: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    scopes_supported: Vec<String>,
    bearer_methods_supported: [&'static str; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    resource_documentation: Option<String>,
}

impl ProtectedResource {
    /// Metadata for the resource identified by `resource`: the absolute URL of the MCP
    /// endpoint, e.g. `https://mcp.example.com/mcp` (tokens must be issued for it).
    pub fn new(resource: impl Into<String>) -> Self {
        ProtectedResource {
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            bearer_methods_supported: ["header"],
            resource_name: None,
            resource_documentation: None,
        }
    }

    /// An authorization server (its issuer URL) that issues tokens for this resource.
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// A scope clients may request.
    pub fn scope(mut self, scope: impl Into<String>) -> Self {
        self.scopes_supported.push(scope.into());
        self
    }

    /// A human-readable name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.resource_name = Some(name.into());
        self
    }

    /// A page documenting the resource for developers.
    pub fn documentation(mut self, url: impl Into<String>) -> Self {
        self.resource_documentation = Some(url.into());
        self
    }

    /// The metadata document: `scopes_supported` lists the scopes named here, then those
    /// the server's tools, resources and prompts declare (`declared`), each once.
    pub(crate) fn document(&self, declared: &[String]) -> Vec<u8> {
        let mut resource = self.clone();
        for scope in declared {
            if !resource.scopes_supported.iter().any(|named| named == scope) {
                resource.scopes_supported.push(scope.clone());
            }
        }
        serde_json::to_vec(&resource).unwrap_or_default()
    }

    /// The resource's URL: the audience tokens must be issued for.
    pub(crate) fn resource(&self) -> &str {
        &self.resource
    }

    /// The resource's path (after the authority), e.g. `/mcp`; empty for a bare origin.
    pub(crate) fn resource_path(&self) -> &str {
        let after_scheme = self
            .resource
            .split_once("://")
            .map_or(self.resource.as_str(), |(_, rest)| rest);
        after_scheme
            .find('/')
            .map_or("", |slash| after_scheme[slash..].trim_end_matches('/'))
    }

    /// Where the metadata document is published (RFC 9728 §3.1): the well-known path inserted
    /// between the resource's origin and its path.
    pub(crate) fn metadata_url(&self) -> String {
        let path = self.resource_path();
        let origin = self.resource.trim_end_matches('/');
        let origin = &origin[..origin.len() - path.len()];
        format!("{origin}{WELL_KNOWN}{path}")
    }
}

/// RFC 9728's well-known path.
pub(crate) const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_metadata_url_inserts_the_well_known_path_before_the_resource_path() {
        let with_path = ProtectedResource::new("https://mcp.example.com/tools/mcp");
        assert_eq!(with_path.resource_path(), "/tools/mcp");
        assert_eq!(
            with_path.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource/tools/mcp"
        );
        let bare = ProtectedResource::new("https://mcp.example.com/");
        assert_eq!(bare.resource_path(), "");
        assert_eq!(
            bare.metadata_url(),
            "https://mcp.example.com/.well-known/oauth-protected-resource"
        );
    }

    #[test]
    fn the_metadata_document_has_rfc_9728_names() {
        let resource = ProtectedResource::new("https://a.example/mcp")
            .authorization_server("https://auth.example")
            .scope("mcp:tools");
        assert_eq!(
            serde_json::to_value(&resource).unwrap(),
            serde_json::json!({
                "resource": "https://a.example/mcp",
                "authorization_servers": ["https://auth.example"],
                "scopes_supported": ["mcp:tools"],
                "bearer_methods_supported": ["header"],
            })
        );
    }
}
