//! Behaviour around every request a handler answers, as [tower](https://docs.rs/tower) layers.
//!
//! A server's pipeline is a [`Service`] from [`Request`] to [`Response`]: `tools/call`,
//! `resources/read`, `prompts/get`, `completion/complete` and the lists (`tools/list`,
//! `resources/list`, `resources/templates/list`, `prompts/list`) all pass through it, in both
//! protocol eras, over every transport, for 2026-07-28 input rounds (a retry that brings
//! `inputResponses` says so: [`Request::is_retry`]) and for calls that become tasks (the task
//! runs on inside the layers). The innermost service runs the request's own handler.
//!
//! - [`Server::layer`](crate::Server::layer) wraps every request. Each call wraps what was
//!   added before, so the layer added last runs first (as in axum); a
//!   `tower::ServiceBuilder` passed as one layer runs top to bottom.
//! - A tool's own layers wrap its calls alone, inside the server's:
//!   `#[mcp_tool(layer = ...)]`, [`ToolBuilder::layer`](crate::handler::ToolBuilder::layer), or
//!   [`handler::layered`](crate::handler::layered) around any
//!   [`ToolHandler`](crate::handler::ToolHandler).
//!
//! A layer may pass a request on, change its arguments, answer it itself (a tool error
//! result, or a JSON-RPC [`Error`]), change the response, and observe the outcome and how long
//! it took. A layer that panics is answered like a tool that panics; every request still gets
//! exactly one answer with its own id. An error that is not an [`Error`] (say, from a layer of
//! tower's own) answers a tool call with an error result carrying its text, and any other
//! request with an internal error (`-32603`).
//!
//! A server with no layer builds no [`Request`]: its calls cost what they cost before.
//!
//! # Writing a layer
//!
//! ```
//! use std::task::{Context, Poll};
//! use mcp_runtime::middleware::{BoxError, Layer, Request, Response, Service};
//! use mcp_runtime::{CallToolResult, handler::BoxFuture};
//!
//! /// Refuses calls of tools whose name starts with `admin_`.
//! #[derive(Clone)]
//! struct NoAdmin<S>(S);
//!
//! impl<S> Service<Request> for NoAdmin<S>
//! where
//!     S: Service<Request, Response = Response, Error = BoxError>,
//!     S::Future: Send + 'static,
//! {
//!     type Response = Response;
//!     type Error = BoxError;
//!     type Future = BoxFuture<'static, Result<Response, BoxError>>;
//!
//!     fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
//!         self.0.poll_ready(cx)
//!     }
//!
//!     fn call(&mut self, request: Request) -> Self::Future {
//!         if request.tool_name().is_some_and(|name| name.starts_with("admin_")) {
//!             return Box::pin(async {
//!                 Ok(Response::Tool(CallToolResult::error("admin tools are disabled")))
//!             });
//!         }
//!         Box::pin(self.0.call(request))
//!     }
//! }
//!
//! struct NoAdminLayer;
//!
//! impl<S> Layer<S> for NoAdminLayer {
//!     type Service = NoAdmin<S>;
//!     fn layer(&self, inner: S) -> NoAdmin<S> {
//!         NoAdmin(inner)
//!     }
//! }
//!
//! let server = mcp_runtime::Server::new(mcp_runtime::server_info!()).layer(NoAdminLayer);
//! # drop(server);
//! ```
//!
//! # The layers that ship
//!
//! | layer | what it does |
//! |---|---|
//! | [`Timeout`] | ends a call that runs too long with a tool error, dropping its handler |
//! | [`ConcurrencyLimit`] | at most N calls at once, a bounded queue, then refusal |
//! | `RateLimit` (the `rate-limit` feature) | calls per second per caller and tool |
//! | [`AuditLog`] | one JSON line per request, written off the call's path |
//! | [`MaxOutput`] | caps the bytes of a result's content |
//! | [`Cache`] | remembers results of read-only, idempotent tools for a while |
//! | `Trace` (the `otel` feature) | an OpenTelemetry server span and duration per request |

mod audit;
mod cache;
mod concurrency;
mod describe;
mod error;
mod from_fn;
mod max_output;
mod pipeline;
#[cfg(feature = "rate-limit")]
mod rate_limit;
mod request;
mod response;
#[cfg(test)]
pub(crate) mod testing;
mod timeout;
#[cfg(feature = "otel")]
pub(crate) mod trace;

pub use tower_layer::Layer;
pub use tower_service::Service;

pub use audit::{AuditLog, AuditLogLayer};
pub use cache::{Cache, CacheLayer};
pub use concurrency::{Busy, ConcurrencyLimit, ConcurrencyLimitLayer};
pub use error::Error;
pub use from_fn::{FromFn, FromFnLayer, from_fn};
pub use max_output::{MaxOutput, MaxOutputLayer, OverCap};
pub use pipeline::{Next, ToolLayers};
pub(crate) use pipeline::{Pipeline, run_pipeline};
#[cfg(feature = "rate-limit")]
pub use rate_limit::{Quota, RateLimit, RateLimitLayer, RateLimited};
#[cfg(feature = "otel")]
pub use request::TraceContext;
pub use request::{Caller, CallerKey, Method, Request};
pub(crate) use request::{ClientInfo, Handle};
pub use response::Response;
pub use timeout::{Elapsed, Timeout, TimeoutLayer};
#[cfg(feature = "otel")]
pub use trace::{Trace, TraceLayer};

/// The error type of the pipeline, as in tower: any error a layer returns.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;
