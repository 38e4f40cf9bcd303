//! MCP over Streamable HTTP (the `http` feature), for clients of every revision at one
//! endpoint:
//!
//! * 2026-07-28 clients: each POST stands alone (`_meta` names the revision); headers must
//!   agree with the body (`-32020`); unknown methods are 404, GET and DELETE 405; a client
//!   that disconnects cancels its call; `subscriptions/listen` answers with an event stream.
//! * 2025-03-26 to 2025-11-25 clients: `initialize` opens a session (`Mcp-Session-Id`), later
//!   POSTs name it (400 without, 404 once unknown or expired), GET opens its notification
//!   stream, DELETE ends it; batches in 2025-03-26 sessions. From 2025-11-25 on, event streams
//!   are resumable: a GET with `Last-Event-ID` picks up the stream that id belongs to (a call
//!   outlives its client's disconnection, or a handler's `release_connection`, meanwhile).
//! * 2024-11-05 clients of the HTTP+SSE transport: `GET /sse` opens a session whose first
//!   event names the URI to POST messages to (`/messages?sessionId=...`); every answer goes
//!   out on that stream, and the session ends with it.
//! * For all: `Origin` and `Host` checks against DNS rebinding (403), a body size limit
//!   (413), an authorization hook (401/403 with `WWW-Authenticate`) or, with the `oauth`
//!   feature, a token verifier (`HttpConfig::verify_tokens`: JWTs or introspection), OAuth
//!   protected resource metadata (RFC 9728), and a graceful shutdown.
//!
//! [`Server::serve_http`] serves on its own; [`Server::http_service`] gives the endpoint as a
//! service to mount into an existing hyper or axum app.

mod answer;
mod body;
mod challenge;
mod config;
mod endpoint;
mod event;
mod expiry;
mod headers;
mod idle;
mod legacy;
mod modern;
mod principal;
mod queue;
mod response;
mod resume;
#[cfg(test)]
mod resume_tests;
mod routed;
mod serve;
mod service;
mod sessions;
mod shared;
mod sse;

use std::future::Future;
use std::io;

use tokio::net::{TcpListener, ToSocketAddrs};

pub use self::body::ResponseBody;
pub use self::config::{
    AuthRejection, AuthRequest, HttpConfig, OwnedAuthRequest, ProtectedResource,
};
pub use self::principal::{Authorized, Principal};
pub use self::service::HttpService;
use crate::server::Server;
use crate::transport::signals;
use crate::transport::stderr_log;

impl Server {
    /// Serve MCP over Streamable HTTP at `addr` with the default [`HttpConfig`]: endpoint
    /// `/mcp`, until SIGTERM or SIGINT.
    ///
    /// Give a loopback address (`"127.0.0.1:8080"`) for a server on the local machine; any
    /// other address exposes the server to the network, which needs
    /// [`HttpConfig::authorize`] and a TLS-terminating proxy in front.
    ///
    /// ```no_run
    /// use mcp_runtime::{Server, server_info};
    ///
    /// #[tokio::main]
    /// async fn main() -> std::io::Result<()> {
    ///     Server::new(server_info!()).serve_http("127.0.0.1:8080").await
    /// }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`serve_stdio`](Self::serve_stdio) for the server's definitions; and when the
    /// address cannot be bound.
    pub async fn serve_http(self, addr: impl ToSocketAddrs) -> io::Result<()> {
        self.serve_http_with(addr, HttpConfig::new()).await
    }

    /// [`serve_http`](Self::serve_http) with `config`.
    ///
    /// # Errors
    ///
    /// As [`serve_http`](Self::serve_http).
    pub async fn serve_http_with(
        self,
        addr: impl ToSocketAddrs,
        config: HttpConfig,
    ) -> io::Result<()> {
        // Handlers first: a client that sees the port open may already signal.
        let stop = signals::stop_requested();
        let listener = TcpListener::bind(addr).await?;
        self.serve_http_on(listener, config, stop).await
    }

    /// Serve on `listener` until `shutdown` resolves. Then no new connection is accepted,
    /// streams end (listen streams with their result), requests in progress get
    /// [`shutdown_timeout`](Self::shutdown_timeout) to finish, and the rest are cancelled.
    ///
    /// # Errors
    ///
    /// As [`serve_http`](Self::serve_http).
    pub async fn serve_http_on(
        self,
        listener: TcpListener,
        config: HttpConfig,
        shutdown: impl Future<Output = ()>,
    ) -> io::Result<()> {
        stderr_log::install_if_absent();
        let local = listener.local_addr()?;
        let loopback = local.ip().is_loopback();
        if !loopback && config.authorizer.is_none() {
            tracing::warn!(
                %local,
                "serving on a non-loopback address without an authorization hook: anyone who \
                 can reach it can use every tool"
            );
        }
        let path = config.path.clone();
        let grace = self.shutdown_timeout;
        let service = self.http_service(config)?.standalone(loopback);
        tracing::info!(
            server = service.server_name(),
            "serving MCP over HTTP at http://{local}{path}"
        );
        if let Some((sse, messages)) = service.legacy_sse_paths() {
            tracing::info!(
                "serving the 2024-11-05 HTTP+SSE transport at http://{local}{sse} (messages to \
                 {messages})"
            );
        }
        serve::serve(service, listener, shutdown, grace).await
    }

    /// The MCP endpoint as a service, to mount into an existing app: for axum,
    /// `Router::new().route_service("/mcp", server.http_service(config)?)`; for hyper,
    /// `serve_connection(io, service)`. It answers whatever path it is routed; shutting down
    /// is the app's business.
    ///
    /// # Errors
    ///
    /// Fails when two tools (or two prompts) share a name, a tool's input schema is not an
    /// object schema, or two resources answer the same URIs; when the token verifier of
    /// `HttpConfig::verify_tokens` (the `oauth` feature) cannot work as configured; and when
    /// [`HttpConfig::instance_id`] is not a valid name.
    pub fn http_service(self, config: HttpConfig) -> io::Result<HttpService> {
        config.check_authorizer().map_err(|problem| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("the HTTP authorization cannot work: {problem}"),
            )
        })?;
        config
            .check_instance_id()
            .map_err(|problem| io::Error::new(io::ErrorKind::InvalidInput, problem))?;
        let dispatcher = self
            .dispatcher()
            .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error))?;
        let param_headers = headers::param_headers(
            (self.surfaces.sets().tools.into_iter()).map(|(definition, _)| definition),
        );
        Ok(HttpService::new(
            dispatcher,
            config,
            self.max_message_size,
            param_headers,
            self.session_store,
        ))
    }
}
