//! A layer from an async function, for behaviour that needs no type of its own.

use std::future::Future;
use std::task::{Context, Poll};

use super::pipeline::run_pipeline;
use super::{BoxError, Layer, Next, Request, Response, Service};
use crate::future::BoxFuture;

/// A layer that runs `f(request, next)` for every request: `f` passes the request on with
/// [`Next::run`] (or does not, and answers itself), and may look at or change what comes
/// back.
///
/// ```
/// use std::time::Instant;
/// use mcp_runtime::middleware::{self, Next, Request};
///
/// let timing = middleware::from_fn(|request: Request, next: Next| async move {
///     let (method, started) = (request.method(), Instant::now());
///     let response = next.run(request).await;
///     tracing::info!(%method, elapsed = ?started.elapsed(), "answered");
///     response
/// });
/// let server = mcp_runtime::Server::new(mcp_runtime::server_info!()).layer(timing);
/// # drop(server);
/// ```
pub fn from_fn<F, Fut>(f: F) -> FromFnLayer<F>
where
    F: Fn(Request, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Response, BoxError>> + Send + 'static,
{
    FromFnLayer { f }
}

/// The layer [`from_fn`] makes.
#[derive(Clone)]
pub struct FromFnLayer<F> {
    f: F,
}

impl<F> Layer<Next> for FromFnLayer<F>
where
    F: Clone,
{
    type Service = FromFn<F>;

    fn layer(&self, next: Next) -> FromFn<F> {
        FromFn {
            f: self.f.clone(),
            next,
        }
    }
}

/// The service of a [`from_fn`] layer.
#[derive(Clone)]
pub struct FromFn<F> {
    f: F,
    next: Next,
}

impl<F, Fut> Service<Request> for FromFn<F>
where
    F: Fn(Request, Next) -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<Response, BoxError>> + Send + 'static,
{
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Response, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        // The inner layers are made ready when `next.run` passes a request on.
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request) -> Self::Future {
        Box::pin((self.f)(request, self.next.clone()))
    }
}

impl Next {
    /// Pass `request` on to the rest of the pipeline, ending in its handler.
    pub fn run(self, request: Request) -> BoxFuture<'static, Result<Response, BoxError>> {
        run_pipeline(self, request)
    }
}
