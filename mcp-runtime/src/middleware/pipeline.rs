//! The pipeline itself: layers boxed into one clonable service, around the innermost one that
//! runs the request's handler.

use std::any::Any;
use std::fmt;
use std::future::poll_fn;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use super::{BoxError, Error, Layer, Request, Response, Service};
use crate::future::BoxFuture;

/// The service a layer wraps: the layers added before it, then the request's handler. A
/// clone is cheap (a box of the layers' services); a call clones it, so each request has
/// its own.
pub struct Next {
    service: Box<dyn ErasedService>,
}

/// The pipeline of a server or of one tool: what dispatch runs a request through.
pub(crate) type Pipeline = Next;

trait ErasedService: Send + Sync {
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>>;
    fn call(&mut self, request: Request) -> BoxFuture<'static, Result<Response, BoxError>>;
    fn clone_box(&self) -> Box<dyn ErasedService>;
}

impl<S> ErasedService for S
where
    S: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Service::poll_ready(self, cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request) -> BoxFuture<'static, Result<Response, BoxError>> {
        boxed(Service::call(self, request))
    }

    fn clone_box(&self) -> Box<dyn ErasedService> {
        Box::new(self.clone())
    }
}

/// `future` as the pipeline's boxed future. One that already is (the shipped layers',
/// `from_fn`'s, the handler's end) is passed on as it is, rather than boxed once more per
/// layer: a layer that passes a request on unchanged returns `boxed(inner.call(request))`.
pub(crate) fn boxed<F, E>(future: F) -> BoxFuture<'static, Result<Response, BoxError>>
where
    F: std::future::Future<Output = Result<Response, E>> + Send + 'static,
    E: Into<BoxError>,
{
    let mut future = Some(future);
    if let Some(boxed) = (&mut future as &mut dyn Any)
        .downcast_mut::<Option<BoxFuture<'static, Result<Response, BoxError>>>>()
    {
        return boxed.take().expect("taken once");
    }
    let future = future.take().expect("taken once");
    Box::pin(async move { future.await.map_err(Into::into) })
}

impl Next {
    /// The end of every pipeline: a tool's own layers, then the request's handler.
    pub(crate) fn handler() -> Self {
        Next {
            service: Box::new(Innermost),
        }
    }

    /// `layer` around this pipeline.
    pub(crate) fn wrap<L>(self, layer: &L) -> Self
    where
        L: Layer<Next>,
        L::Service: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Error: Into<BoxError>,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        Next {
            service: Box::new(layer.layer(self)),
        }
    }
}

impl Clone for Next {
    fn clone(&self) -> Self {
        Next {
            service: self.service.clone_box(),
        }
    }
}

impl fmt::Debug for Next {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Next(..)")
    }
}

impl Service<Request> for Next {
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        self.service.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        self.service.call(request)
    }
}

/// Run `request` through `pipeline` (a clone of it: the request's own), readiness first.
pub(crate) fn run_pipeline(
    mut pipeline: Pipeline,
    request: Request,
) -> BoxFuture<'static, Result<Response, BoxError>> {
    // Most layers are always ready: asked once at once, the call needs no future around it.
    // One that is not is asked again inside the future, with a waker that wakes it.
    match Service::poll_ready(&mut pipeline, &mut Context::from_waker(Waker::noop())) {
        Poll::Ready(Ok(())) => return Service::call(&mut pipeline, request),
        Poll::Ready(Err(error)) => return Box::pin(std::future::ready(Err(error))),
        Poll::Pending => {}
    }
    Box::pin(async move {
        poll_fn(|cx| Service::poll_ready(&mut pipeline, cx)).await?;
        Service::call(&mut pipeline, request).await
    })
}

/// Runs the request's tool's own layers, if it has any, else its handler.
#[derive(Clone, Copy)]
struct Innermost;

impl Service<Request> for Innermost {
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Response, BoxError>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), BoxError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, mut request: Request) -> Self::Future {
        if let Some(tool_layers) = request.handle.tool_layers.take() {
            return run_pipeline(tool_layers, request);
        }
        match request.handle.runner.take() {
            Some(runner) => runner(request),
            None => Box::pin(async {
                Err(Error::internal("a layer passed one request on twice").into())
            }),
        }
    }
}

/// The layers around one tool's calls, inside the server's (see
/// [`handler::layered`](crate::handler::layered) and
/// `#[mcp_tool(layer = ...)]`). Built into a pipeline once, when the server's catalog is.
#[derive(Clone)]
pub struct ToolLayers {
    wrap: Arc<dyn Fn(Next) -> Next + Send + Sync>,
}

impl ToolLayers {
    /// `layer` alone.
    pub fn new<L>(layer: L) -> Self
    where
        L: Layer<Next> + Send + Sync + 'static,
        L::Service: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Error: Into<BoxError>,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        ToolLayers {
            wrap: Arc::new(move |next: Next| next.wrap(&layer)),
        }
    }

    /// These layers with `layer` inside them (nearer the handler).
    pub fn then<L>(self, layer: L) -> Self
    where
        L: Layer<Next> + Send + Sync + 'static,
        L::Service: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
        <L::Service as Service<Request>>::Error: Into<BoxError>,
        <L::Service as Service<Request>>::Future: Send + 'static,
    {
        let outer = self.wrap;
        ToolLayers {
            wrap: Arc::new(move |next: Next| outer(next.wrap(&layer))),
        }
    }

    /// These layers with `inner` inside them.
    pub fn then_layers(self, inner: ToolLayers) -> Self {
        let outer = self.wrap;
        ToolLayers {
            wrap: Arc::new(move |next: Next| outer((inner.wrap)(next))),
        }
    }

    /// The tool's pipeline: these layers around its handler.
    pub(crate) fn pipeline(&self) -> Pipeline {
        (self.wrap)(Next::handler())
    }
}

impl fmt::Debug for ToolLayers {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ToolLayers(..)")
    }
}
