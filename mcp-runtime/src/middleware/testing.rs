//! Requests built by hand and run through one layer, for the layers' unit tests.

use std::future::Future;
use std::sync::Arc;

use serde_json::Value;

use super::run_pipeline;
use super::{
    BoxError, Caller, ClientInfo, Handle, Layer, Method, Next, Request, Response, Service,
};
use crate::cancel::CancellationToken;
use crate::future::BoxFuture;
use crate::protocol::{CallToolResult, Content, ProtocolVersion, RequestId, ToolAnnotations};

/// A request to build; without [`RequestBuilder::handler`] its handler answers a tool result
/// with the text `ok`.
pub(crate) struct RequestBuilder {
    request: Request,
}

/// A `tools/call` of `name`.
pub(crate) fn tool_call(name: &str) -> RequestBuilder {
    request(Method::CallTool, Some(name))
}

/// A request of `method` naming `name`.
pub(crate) fn request(method: Method, name: Option<&str>) -> RequestBuilder {
    RequestBuilder {
        request: Request {
            method,
            name: name.map(Arc::from),
            arguments: None,
            id: RequestId::Number(1.into()),
            caller: Caller {
                principal: None,
                client: None,
                revision: ProtocolVersion::V2025_11_25,
                connection: None,
                #[cfg(feature = "otel")]
                network_transport: None,
                #[cfg(feature = "otel")]
                session_id: None,
            },
            retry: false,
            may_become_task: false,
            annotations: None,
            cancellation: CancellationToken::new(),
            handle: Handle {
                tool_layers: None,
                runner: Some(Box::new(|_| {
                    Box::pin(async {
                        Ok(Response::Tool(CallToolResult::success(vec![text("ok")])))
                    })
                })),
            },
            #[cfg(feature = "otel")]
            trace_context: None,
            #[cfg(feature = "otel")]
            transport_trace_context: None,
            #[cfg(feature = "otel")]
            first_round: None,
        },
    }
}

impl RequestBuilder {
    /// The arguments: `value` must be a JSON object.
    pub(crate) fn arguments(mut self, value: Value) -> Self {
        let Value::Object(members) = value else {
            panic!("arguments must be an object");
        };
        self.request.arguments = Some(members);
        self
    }

    pub(crate) fn id(mut self, id: RequestId) -> Self {
        self.request.id = id;
        self
    }

    pub(crate) fn principal(mut self, principal: &str) -> Self {
        self.request.caller.principal = Some(crate::auth::Principal::new(principal));
        self
    }

    pub(crate) fn connection(mut self, connection: u64) -> Self {
        self.request.caller.connection = Some(connection);
        self
    }

    pub(crate) fn client(mut self, name: &str, version: Option<&str>) -> Self {
        self.request.caller.client = Some(ClientInfo {
            name: name.into(),
            version: version.map(Arc::from),
        });
        self
    }

    pub(crate) fn annotations(mut self, annotations: ToolAnnotations) -> Self {
        self.request.annotations = Some(annotations);
        self
    }

    /// Annotated read-only and idempotent: what the cache wants.
    pub(crate) fn read_only_idempotent(self) -> Self {
        self.annotations(ToolAnnotations {
            read_only: Some(true),
            idempotent: Some(true),
            ..ToolAnnotations::default()
        })
    }

    pub(crate) fn retry(mut self) -> Self {
        self.request.retry = true;
        self
    }

    pub(crate) fn may_become_task(mut self) -> Self {
        self.request.may_become_task = true;
        self
    }

    /// The request's cancellation token (a clone of it stays with the caller).
    pub(crate) fn cancellation(&self) -> CancellationToken {
        self.request.cancellation.clone()
    }

    /// What plays the request's handler.
    pub(crate) fn handler<F, Fut>(mut self, handler: F) -> Self
    where
        F: FnOnce(Request) -> Fut + Send + 'static,
        Fut: Future<Output = Result<Response, BoxError>> + Send + 'static,
    {
        self.request.handle.runner = Some(Box::new(move |request| {
            Box::pin(handler(request)) as BoxFuture<'static, _>
        }));
        self
    }

    /// A handler that answers `response` at once.
    pub(crate) fn answer(self, response: Response) -> Self {
        self.handler(move |_| async move { Ok(response) })
    }

    /// A handler that fails with `error`.
    pub(crate) fn fail(self, error: impl Into<BoxError> + Send + 'static) -> Self {
        self.handler(move |_| async move { Err(error.into()) })
    }

    /// The W3C trace context of its `_meta`.
    #[cfg(feature = "otel")]
    pub(crate) fn traceparent(mut self, traceparent: &str, baggage: Option<&str>) -> Self {
        self.request.trace_context = Some(super::TraceContext {
            traceparent: traceparent.into(),
            tracestate: None,
            baggage: baggage.map(str::to_owned),
        });
        self
    }

    /// The caller's transport (`network.transport`) and session id.
    #[cfg(feature = "otel")]
    pub(crate) fn network(mut self, transport: &'static str, session_id: Option<&str>) -> Self {
        self.request.caller.network_transport = Some(transport);
        self.request.caller.session_id = session_id.map(Arc::from);
        self
    }

    pub(crate) fn build(self) -> Request {
        self.request
    }
}

/// `layer` around the handler, as the server builds it.
pub(crate) fn pipeline<L>(layer: &L) -> Next
where
    L: Layer<Next>,
    L::Service: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
    <L::Service as Service<Request>>::Error: Into<BoxError>,
    <L::Service as Service<Request>>::Future: Send + 'static,
{
    Next::handler().wrap(layer)
}

/// Run `request` through (a clone of) `pipeline`.
pub(crate) fn call(
    pipeline: &Next,
    request: RequestBuilder,
) -> BoxFuture<'static, Result<Response, BoxError>> {
    run_pipeline(pipeline.clone(), request.build())
}

/// Run `request` through `layer` alone.
pub(crate) async fn run<L>(layer: &L, request: RequestBuilder) -> Result<Response, BoxError>
where
    L: Layer<Next>,
    L::Service: Service<Request, Response = Response> + Clone + Send + Sync + 'static,
    <L::Service as Service<Request>>::Error: Into<BoxError>,
    <L::Service as Service<Request>>::Future: Send + 'static,
{
    call(&pipeline(layer), request).await
}

/// A text block.
pub(crate) fn text(text: &str) -> Content {
    Content::text(text)
}

/// The text blocks of a tool response, joined; panics on any other response.
pub(crate) fn tool_text(response: &Response) -> String {
    let Response::Tool(result) = response else {
        panic!("not a tool result: {response:?}");
    };
    result
        .content
        .iter()
        .filter_map(|content| match content {
            Content::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}
