//! OpenTelemetry server spans and the operation duration, after the semantic conventions for
//! MCP (`docs/gen-ai/mcp.md` of OpenTelemetry's semantic conventions for generative AI).

use std::borrow::Cow;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};
use std::time::Instant;

use opentelemetry::global::{self, BoxedTracer};
use opentelemetry::metrics::{Histogram, Meter, MeterProvider, UpDownCounter};
use opentelemetry::propagation::{Extractor, TextMapCompositePropagator, TextMapPropagator};
use opentelemetry::trace::{
    FutureExt, Link, SpanKind, Status, TraceContextExt, Tracer, TracerProvider,
};
use opentelemetry::{Context, InstrumentationScope, KeyValue};
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};

use super::{BoxError, Error, Layer, Method, Request, Response, Service, TraceContext};
use crate::future::BoxFuture;
use crate::protocol::RequestId;
use crate::protocol::jsonrpc::Outgoing;

/// The instrument the conventions name for a server's requests.
const DURATION: &str = "mcp.server.operation.duration";

/// The requests being served. The conventions for MCP name no such instrument; this follows
/// HTTP's `http.server.active_requests`.
const ACTIVE: &str = "mcp.server.active_operations";

/// The instrument the conventions name for a session's length.
const SESSION_DURATION: &str = "mcp.server.session.duration";

/// The sessions open now. Like [`ACTIVE`], named after HTTP's `http.server.active_requests`.
const ACTIVE_SESSIONS: &str = "mcp.server.active_sessions";

/// The bucket boundaries the conventions for MCP give both duration histograms, in seconds:
/// SDKs default to boundaries made for milliseconds, which would put every call in the first
/// bucket.
const BOUNDARIES: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// JSON-RPC codes that say the caller asked for something the server could not serve, which
/// the conventions do not count as the server's errors: parse error, invalid request, method
/// not found, invalid params (also an unknown tool), resource not found.
const CALLERS_CODES: [i32; 5] = [-32700, -32600, -32601, -32602, -32002];

/// Opens an OpenTelemetry span of kind SERVER for every request through the pipeline, and
/// records its duration in the `mcp.server.operation.duration` histogram (seconds); the
/// requests being served are counted in `mcp.server.active_operations` (by method and tool).
///
/// Named and attributed after the OpenTelemetry semantic conventions for MCP: the span is
/// `{mcp.method.name} {target}` (`tools/call add`, `prompts/get greet`, `resources/read`),
/// with `mcp.method.name`, `gen_ai.tool.name` and `gen_ai.operation.name = "execute_tool"`
/// for tool calls, `gen_ai.prompt.name`, `mcp.resource.uri`, `jsonrpc.request.id`,
/// `mcp.protocol.version`, `mcp.session.id` (a legacy HTTP session's) and `network.transport`
/// (`pipe` on stdio, `tcp` on HTTP; absent for the in-process
/// [`TestClient`](crate::testing::TestClient)). The histogram carries the same attributes but
/// the request's id, the session and the URI, which would make a series per request. A failure sets `error.type` and the span's status to error: a tool
/// result with `isError: true` is `tool_error`, a JSON-RPC error its code (which also goes in
/// `rpc.response.status_code`; the codes that blame the caller, like `-32602` for an unknown
/// tool, are recorded there only, as the conventions say).
///
/// The parent is the W3C trace context the client sent in the request's `_meta`
/// ([`Request::trace_context`]); without one, the span starts a new trace. Its `baggage`
/// is in the handler's context.
///
/// The handler runs in the span's context: `opentelemetry::Context::current()` is the span's
/// there (so the handler's own spans and the trace context of its outgoing calls continue
/// the trace), and so are the `tracing` spans it opens when the application installs
/// `tracing-opentelemetry`'s layer, which parents a span with no `tracing` parent on the
/// current OpenTelemetry context.
///
/// By default the tracer and the meter come from the global providers (see
/// [`telemetry::init`](crate::telemetry::init)), as they are when the layer is made: make it
/// after installing them.
///
/// ```
/// use mcp_runtime::middleware::TraceLayer;
///
/// let server = mcp_runtime::Server::new(mcp_runtime::server_info!()).layer(TraceLayer::new());
/// # drop(server);
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
#[derive(Clone)]
pub struct TraceLayer {
    tracer: Arc<BoxedTracer>,
    meters: Meters,
}

/// The layer's instruments.
#[derive(Clone)]
struct Meters {
    duration: Histogram<f64>,
    active: UpDownCounter<i64>,
    session_duration: Histogram<f64>,
    active_sessions: UpDownCounter<i64>,
    active_streams: UpDownCounter<i64>,
}

impl Meters {
    fn of(meter: &Meter) -> Self {
        Meters {
            duration: meter
                .f64_histogram(DURATION)
                .with_unit("s")
                .with_description("MCP request duration as observed on the server")
                .with_boundaries(BOUNDARIES.to_vec())
                .build(),
            active: meter
                .i64_up_down_counter(ACTIVE)
                .with_unit("{operation}")
                .with_description("MCP requests the server is serving")
                .build(),
            session_duration: meter
                .f64_histogram(SESSION_DURATION)
                .with_unit("s")
                .with_description("The duration of the MCP session as observed on the MCP server")
                .with_boundaries(BOUNDARIES.to_vec())
                .build(),
            active_sessions: meter
                .i64_up_down_counter(ACTIVE_SESSIONS)
                .with_unit("{session}")
                .with_description("MCP sessions open on the server")
                .build(),
            active_streams: meter
                .i64_up_down_counter(ACTIVE_STREAMS)
                .with_unit("{stream}")
                .with_description("HTTP event streams the server has open")
                .build(),
        }
    }
}

/// What the spans and the histogram say they come from.
fn scope() -> InstrumentationScope {
    InstrumentationScope::builder("mcp-runtime")
        .with_version(env!("CARGO_PKG_VERSION"))
        .build()
}

impl TraceLayer {
    /// Spans from the global tracer provider, durations into the global meter provider.
    pub fn new() -> Self {
        TraceLayer {
            tracer: Arc::new(global::tracer_provider().tracer_with_scope(scope())),
            meters: Meters::of(&global::meter_with_scope(scope())),
        }
    }

    /// Spans from `provider` (say, an SDK `SdkTracerProvider` the application configured)
    /// rather than from the global one.
    pub fn with_tracer_provider<P>(self, provider: P) -> Self
    where
        P: TracerProvider,
        P::Tracer: Send + Sync + 'static,
        <P::Tracer as Tracer>::Span: Send + Sync + 'static,
    {
        let tracer = BoxedTracer::new(Box::new(provider.tracer_with_scope(scope())));
        TraceLayer {
            tracer: Arc::new(tracer),
            ..self
        }
    }

    /// Durations into `provider` (say, an SDK `SdkMeterProvider`) rather than into the
    /// global meter provider.
    pub fn with_meter_provider(self, provider: &impl MeterProvider) -> Self {
        TraceLayer {
            meters: Meters::of(&provider.meter_with_scope(scope())),
            ..self
        }
    }

    /// The same tracer and instruments, for what the server receives outside the pipeline
    /// ([`Server::trace`](crate::Server::trace)).
    pub(crate) fn lifecycle(&self) -> Lifecycle {
        Lifecycle {
            tracer: self.tracer.clone(),
            meters: self.meters.clone(),
        }
    }
}

impl Default for TraceLayer {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for TraceLayer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TraceLayer(..)")
    }
}

impl<S> Layer<S> for TraceLayer {
    type Service = Trace<S>;

    fn layer(&self, inner: S) -> Trace<S> {
        Trace {
            inner,
            tracer: self.tracer.clone(),
            meters: self.meters.clone(),
        }
    }
}

/// The service [`TraceLayer`] wraps around `S`.
#[cfg_attr(docsrs, doc(cfg(feature = "otel")))]
#[derive(Clone)]
pub struct Trace<S> {
    inner: S,
    tracer: Arc<BoxedTracer>,
    meters: Meters,
}

impl<S: std::fmt::Debug> std::fmt::Debug for Trace<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trace")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

/// Reads a request's trace context as a propagator reads headers.
struct MetaExtractor<'a>(&'a TraceContext);

impl Extractor for MetaExtractor<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        match key {
            "traceparent" => Some(self.0.traceparent()),
            "tracestate" => self.0.tracestate(),
            "baggage" => self.0.baggage(),
            _ => None,
        }
    }

    fn keys(&self) -> Vec<&str> {
        let mut keys = vec!["traceparent"];
        keys.extend(self.0.tracestate().map(|_| "tracestate"));
        keys.extend(self.0.baggage().map(|_| "baggage"));
        keys
    }
}

/// The context `trace_context` continues; a new trace without one.
fn context_of(trace_context: Option<&TraceContext>) -> Context {
    let Some(trace_context) = trace_context else {
        return Context::new();
    };
    // Built per request (two small values): the W3C propagators, not whatever global one
    // the application set, since MCP names these keys whatever the application propagates.
    let propagator = TextMapCompositePropagator::new(vec![
        Box::new(TraceContextPropagator::new()),
        Box::new(BaggagePropagator::new()),
    ]);
    propagator.extract_with_context(&Context::new(), &MetaExtractor(trace_context))
}

/// A link to the span `trace_context` names, if it names a valid one.
fn link_to(trace_context: Option<&TraceContext>) -> Option<Link> {
    let context = context_of(trace_context);
    let span = context.span().span_context().clone();
    span.is_valid().then(|| Link::with_context(span))
}

/// `traceparent` of the span of `context`.
fn traceparent_of(context: &Context) -> Option<String> {
    let span = context.span();
    let span = span.span_context();
    span.is_valid().then(|| {
        format!(
            "00-{}-{}-{:02x}",
            span.trace_id(),
            span.span_id(),
            span.trace_flags().to_u8()
        )
    })
}

/// The attributes of the transport both the span and the histogram carry: `pipe` for stdio,
/// `tcp` and `http` for HTTP.
fn transport_attributes(transport: Option<&'static str>, attributes: &mut Vec<KeyValue>) {
    if let Some(transport) = transport {
        attributes.push(KeyValue::new("network.transport", transport));
        if transport == "tcp" {
            attributes.push(KeyValue::new("network.protocol.name", "http"));
        }
    }
}

/// The attributes both the span and the histogram carry.
fn common_attributes(request: &Request) -> Vec<KeyValue> {
    let method = request.method();
    let mut attributes = Vec::with_capacity(7);
    attributes.push(KeyValue::new("mcp.method.name", method.as_str()));
    // The request's own `Arc`: the span and the histogram share it, allocating nothing.
    let name = request.name.clone();
    match (method, name) {
        (Method::CallTool, Some(name)) => {
            attributes.push(KeyValue::new("gen_ai.tool.name", name));
            attributes.push(KeyValue::new("gen_ai.operation.name", "execute_tool"));
        }
        (Method::GetPrompt, Some(name)) => {
            attributes.push(KeyValue::new("gen_ai.prompt.name", name));
        }
        _ => {}
    }
    attributes.push(KeyValue::new(
        "mcp.protocol.version",
        request.caller().revision().as_str(),
    ));
    transport_attributes(request.caller().network_transport, &mut attributes);
    attributes
}

/// `{mcp.method.name} {target}`, the target being a tool's or a prompt's name; never a
/// resource's URI (too many distinct names).
fn span_name(request: &Request) -> Cow<'static, str> {
    let method = request.method();
    match (method, request.name()) {
        (Method::CallTool | Method::GetPrompt, Some(name)) => {
            Cow::Owned(format!("{} {name}", method.as_str()))
        }
        _ => Cow::Borrowed(method.as_str()),
    }
}

fn request_id(id: &RequestId) -> KeyValue {
    KeyValue::new(
        "jsonrpc.request.id",
        match id {
            RequestId::Number(number) => number.to_string(),
            RequestId::String(text) => text.clone(),
        },
    )
}

/// How a request failed, as `error.type`, the span's status description and (for JSON-RPC
/// errors) `rpc.response.status_code`; `None` when it did not.
struct Failure {
    error_type: Option<String>,
    description: String,
    status_code: Option<i32>,
}

impl Failure {
    /// A JSON-RPC error with `code`: the server's failure unless the caller is to blame.
    fn of_code(code: i32, description: String) -> Self {
        Failure {
            error_type: (!CALLERS_CODES.contains(&code)).then(|| code.to_string()),
            description,
            status_code: Some(code),
        }
    }
}

fn failure(method: Method, outcome: &Result<Response, BoxError>) -> Option<Failure> {
    match outcome {
        Ok(Response::Tool(result)) if result.is_error => Some(Failure {
            error_type: Some("tool_error".to_owned()),
            description: String::new(),
            status_code: None,
        }),
        Ok(_) => None,
        Err(error) => Some(match error.downcast_ref::<Error>() {
            Some(rpc) => Failure::of_code(rpc.code(), rpc.message().to_owned()),
            // Dispatch answers another error as a tool call's error result, and any other
            // request's as an internal error.
            None if method == Method::CallTool => Failure {
                error_type: Some("tool_error".to_owned()),
                description: error.to_string(),
                status_code: None,
            },
            None => Failure {
                error_type: Some(Error::INTERNAL_ERROR.to_string()),
                description: error.to_string(),
                status_code: Some(Error::INTERNAL_ERROR),
            },
        }),
    }
}

/// One request or notification being served: its span, counted among the active operations
/// until [`finish`](Self::finish)ed or dropped.
pub(crate) struct Operation {
    context: Context,
    started: Instant,
    metric_attributes: Vec<KeyValue>,
    duration: Histogram<f64>,
    active: Option<Active>,
}

impl Operation {
    fn start(
        tracer: &BoxedTracer,
        meters: &Meters,
        name: Cow<'static, str>,
        parent: &Context,
        links: Vec<Link>,
        metric_attributes: Vec<KeyValue>,
        span_attributes: Vec<KeyValue>,
    ) -> Self {
        let span = tracer
            .span_builder(name)
            .with_kind(SpanKind::Server)
            .with_attributes(span_attributes)
            .with_links(links)
            .start_with_context(tracer, parent);
        let active = Active::start(&meters.active, &metric_attributes);
        Operation {
            context: parent.with_span(span),
            started: Instant::now(),
            metric_attributes,
            duration: meters.duration.clone(),
            active: Some(active),
        }
    }

    /// The context the operation's work runs in.
    pub(crate) fn context(&self) -> &Context {
        &self.context
    }

    /// Set `attribute` on the span and the histogram (learned while serving, as the revision
    /// `initialize` settles).
    pub(crate) fn add_attribute(&mut self, attribute: KeyValue) {
        self.context.span().set_attribute(attribute.clone());
        self.metric_attributes.push(attribute);
    }

    /// End the span, and record the duration, with `failure` if it failed.
    fn finish(mut self, failure: Option<Failure>) {
        let span = self.context.span();
        if let Some(failure) = failure {
            if let Some(code) = failure.status_code {
                span.set_attribute(KeyValue::new("rpc.response.status_code", code.to_string()));
            }
            if let Some(error_type) = failure.error_type {
                span.set_attribute(KeyValue::new("error.type", error_type.clone()));
                span.set_status(Status::error(failure.description));
                self.metric_attributes
                    .push(KeyValue::new("error.type", error_type));
            }
        }
        span.end();
        drop(self.active.take());
        self.duration.record(
            self.started.elapsed().as_secs_f64(),
            &self.metric_attributes,
        );
    }

    /// End the span of a message the dispatcher answered with `answer` (`None`: nothing, as
    /// for a notification).
    pub(crate) fn finish_answered(self, answer: Option<&Outgoing>) {
        let failure = answer
            .and_then(Outgoing::error_code)
            .map(|code| Failure::of_code(code as i32, String::new()));
        self.finish(failure);
    }
}

/// The spans and instruments of what the server receives outside the call pipeline: the
/// handshake, `server/discover`, `ping`, the task methods, subscriptions, notifications; and
/// the sessions' lengths.
#[derive(Clone)]
pub(crate) struct Lifecycle {
    tracer: Arc<BoxedTracer>,
    meters: Meters,
}

impl std::fmt::Debug for Lifecycle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lifecycle(..)")
    }
}

/// What a message outside the pipeline says of itself, for its span.
pub(crate) struct Received<'a> {
    /// Its method; an unknown one is recorded as `_OTHER` (a client could make a series of
    /// each name it invents).
    pub(crate) method: &'a str,
    /// Its id; `None` for a notification.
    pub(crate) id: Option<&'a RequestId>,
    /// The revision it is in, when known before it is served.
    pub(crate) revision: Option<&'static str>,
    pub(crate) session_id: Option<&'a str>,
    pub(crate) transport: Option<&'static str>,
    /// Its `_meta` trace context.
    pub(crate) trace_context: Option<TraceContext>,
    /// The transport's (HTTP headers'): the parent without the former, else a link.
    pub(crate) ambient: Option<&'a TraceContext>,
}

/// Methods the conventions name (and the 2026-07-28 ones); others are `_OTHER`.
const KNOWN_METHODS: [&str; 34] = [
    "initialize",
    "ping",
    "server/discover",
    "logging/setLevel",
    "tools/call",
    "tools/list",
    "resources/read",
    "resources/list",
    "resources/templates/list",
    "resources/subscribe",
    "resources/unsubscribe",
    "prompts/get",
    "prompts/list",
    "completion/complete",
    "subscriptions/listen",
    "tasks/get",
    "tasks/result",
    "tasks/list",
    "tasks/cancel",
    "tasks/update",
    "roots/list",
    "sampling/createMessage",
    "elicitation/create",
    "notifications/initialized",
    "notifications/cancelled",
    "notifications/progress",
    "notifications/message",
    "notifications/roots/list_changed",
    "notifications/tools/list_changed",
    "notifications/prompts/list_changed",
    "notifications/resources/list_changed",
    "notifications/resources/updated",
    "notifications/tasks/status",
    "notifications/elicitation/complete",
];

fn method_name(method: &str) -> &'static str {
    KNOWN_METHODS
        .iter()
        .find(|known| **known == method)
        .copied()
        .unwrap_or("_OTHER")
}

impl Lifecycle {
    /// Open the span of `received`, parented on its trace context, linked to the
    /// transport's.
    pub(crate) fn start(&self, received: Received<'_>) -> Operation {
        let method = method_name(received.method);
        let mut metric_attributes = Vec::with_capacity(4);
        metric_attributes.push(KeyValue::new("mcp.method.name", method));
        if let Some(revision) = received.revision {
            metric_attributes.push(KeyValue::new("mcp.protocol.version", revision));
        }
        transport_attributes(received.transport, &mut metric_attributes);
        let mut span_attributes = metric_attributes.clone();
        span_attributes.extend(received.id.map(request_id));
        if let Some(session_id) = received.session_id {
            span_attributes.push(KeyValue::new("mcp.session.id", session_id.to_owned()));
        }
        let (parent, links) = match &received.trace_context {
            Some(own) => (
                context_of(Some(own)),
                link_to(received.ambient.filter(|ambient| *ambient != own))
                    .into_iter()
                    .collect(),
            ),
            None => (context_of(received.ambient), Vec::new()),
        };
        Operation::start(
            &self.tracer,
            &self.meters,
            Cow::Borrowed(method),
            &parent,
            links,
            metric_attributes,
            span_attributes,
        )
    }

    /// A session that opened now at `revision`; it is counted open, and its length recorded,
    /// until the returned value is dropped.
    pub(crate) fn session(
        &self,
        revision: &'static str,
        transport: Option<&'static str>,
    ) -> SessionSpan {
        let mut attributes = vec![KeyValue::new("mcp.protocol.version", revision)];
        transport_attributes(transport, &mut attributes);
        self.meters.active_sessions.add(1, &attributes);
        SessionSpan {
            started: Instant::now(),
            attributes,
            duration: self.meters.session_duration.clone(),
            active: self.meters.active_sessions.clone(),
        }
    }
}

/// The event streams open now (`text/event-stream` responses of Streamable HTTP and the
/// HTTP+SSE transport). Named like [`ACTIVE`].
const ACTIVE_STREAMS: &str = "mcp.server.active_streams";

impl Lifecycle {
    /// An HTTP event stream that opened now; counted open until the returned value is
    /// dropped (with the response's body: when the stream ends or its client goes away).
    pub(crate) fn stream(&self) -> StreamSpan {
        let mut attributes = Vec::with_capacity(2);
        transport_attributes(Some("tcp"), &mut attributes);
        self.meters.active_streams.add(1, &attributes);
        StreamSpan {
            attributes,
            active: self.meters.active_streams.clone(),
        }
    }
}

/// An open event stream, in `mcp.server.active_streams` until dropped.
pub(crate) struct StreamSpan {
    attributes: Vec<KeyValue>,
    active: UpDownCounter<i64>,
}

impl std::fmt::Debug for StreamSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StreamSpan(..)")
    }
}

impl Drop for StreamSpan {
    fn drop(&mut self) {
        self.active.add(-1, &self.attributes);
    }
}

/// An open session, in `mcp.server.active_sessions` until dropped, when its length goes into
/// `mcp.server.session.duration`.
pub(crate) struct SessionSpan {
    started: Instant,
    attributes: Vec<KeyValue>,
    duration: Histogram<f64>,
    active: UpDownCounter<i64>,
}

impl std::fmt::Debug for SessionSpan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SessionSpan(..)")
    }
}

impl Drop for SessionSpan {
    fn drop(&mut self) {
        self.active.add(-1, &self.attributes);
        self.duration
            .record(self.started.elapsed().as_secs_f64(), &self.attributes);
    }
}

impl<S> Service<Request> for Trace<S>
where
    S: Service<Request, Response = Response>,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
{
    type Response = Response;
    type Error = BoxError;
    type Future = BoxFuture<'static, Result<Response, BoxError>>;

    fn poll_ready(&mut self, cx: &mut TaskContext<'_>) -> Poll<Result<(), BoxError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        let method = request.method();
        let own = request.trace_context();
        let parent = context_of(own);
        let metric_attributes = common_attributes(&request);
        let mut span_attributes = metric_attributes.clone();
        span_attributes.push(request_id(request.id()));
        let caller = request.caller();
        if let Some(session_id) = &caller.session_id {
            span_attributes.push(KeyValue::new("mcp.session.id", session_id.clone()));
        }
        if let (Method::ReadResource, Some(uri)) = (method, &request.name) {
            span_attributes.push(KeyValue::new("mcp.resource.uri", uri.clone()));
        }
        // The transport's context, when the request's own is the parent; and the first round
        // of a 2026-07-28 call this retry continues.
        let mut links: Vec<Link> = link_to(request.transport_trace_context.as_ref())
            .into_iter()
            .collect();
        let first_round = request.first_round.clone();
        if let Some(first) = first_round.as_ref().and_then(|round| round.get()) {
            links.extend(link_to(Some(&TraceContext::new(first.clone(), None, None))));
        }
        let operation = Operation::start(
            &self.tracer,
            &self.meters,
            span_name(&request),
            &parent,
            links,
            metric_attributes,
            span_attributes,
        );
        let context = operation.context().clone();
        if let Some(round) = first_round
            && let Some(traceparent) = traceparent_of(&context)
        {
            // Set only by the first round: a retry finds it already set from its state.
            let _ = round.set(traceparent);
        }
        // The inner layers and the handler are called inside the span's context too: what
        // they do before their futures first run (a layer's bookkeeping) belongs to it.
        let future = {
            let _entered = context.clone().attach();
            self.inner.call(request)
        };
        let future = future.with_context(context);
        Box::pin(async move {
            let outcome = future.await.map_err(Into::into);
            operation.finish(failure(method, &outcome));
            outcome
        })
    }
}

/// One request counted in `mcp.server.active_operations` until dropped: when it is answered,
/// and also when its future is dropped unanswered (cancelled, or a panic unwinding).
struct Active {
    counter: UpDownCounter<i64>,
    attributes: Vec<KeyValue>,
}

impl Active {
    fn start(counter: &UpDownCounter<i64>, attributes: &[KeyValue]) -> Self {
        // By method and tool alone, as HTTP counts its active requests by method and route.
        let attributes: Vec<KeyValue> = attributes
            .iter()
            .filter(|kv| matches!(kv.key.as_str(), "mcp.method.name" | "gen_ai.tool.name"))
            .cloned()
            .collect();
        counter.add(1, &attributes);
        Active {
            counter: counter.clone(),
            attributes,
        }
    }
}

impl Drop for Active {
    fn drop(&mut self) {
        self.counter.add(-1, &self.attributes);
    }
}

#[cfg(test)]
mod tests {
    use opentelemetry::trace::{SpanId, TraceId};
    use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};

    use super::*;
    use crate::CallToolResult;
    use crate::middleware::testing::{request, run, tool_call};

    const TRACEPARENT: &str = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";

    fn layer() -> (TraceLayer, InMemorySpanExporter, SdkTracerProvider) {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let layer = TraceLayer::new().with_tracer_provider(provider.clone());
        (layer, exporter, provider)
    }

    fn attribute(span: &SpanData, key: &str) -> Option<String> {
        span.attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.to_string())
    }

    fn only_span(exporter: &InMemorySpanExporter) -> SpanData {
        let mut spans = exporter.get_finished_spans().unwrap();
        assert_eq!(spans.len(), 1, "{spans:?}");
        spans.remove(0)
    }

    #[tokio::test]
    async fn a_tool_call_is_a_server_span_continuing_the_callers_trace() {
        let (layer, exporter, _provider) = layer();
        let call = tool_call("add").traceparent(TRACEPARENT, Some("tenant=acme"));
        let call = call.handler(|_| async {
            // The handler runs in the span's context, with the caller's baggage.
            let context = Context::current();
            assert!(context.span().span_context().is_valid());
            let tenant = opentelemetry::baggage::BaggageExt::baggage(&context)
                .get("tenant")
                .map(|value| value.to_string());
            assert_eq!(tenant.as_deref(), Some("acme"));
            Ok(Response::Tool(CallToolResult::success(vec![
                crate::Content::text("3"),
            ])))
        });
        run(&layer, call).await.unwrap();
        let span = only_span(&exporter);
        assert_eq!(span.name, "tools/call add");
        assert_eq!(span.span_kind, SpanKind::Server);
        assert_eq!(
            span.span_context.trace_id(),
            TraceId::from_hex("0af7651916cd43dd8448eb211c80319c").unwrap()
        );
        assert_eq!(
            span.parent_span_id,
            SpanId::from_hex("b7ad6b7169203331").unwrap()
        );
        assert_eq!(attribute(&span, "mcp.method.name").unwrap(), "tools/call");
        assert_eq!(attribute(&span, "gen_ai.tool.name").unwrap(), "add");
        assert_eq!(
            attribute(&span, "gen_ai.operation.name").unwrap(),
            "execute_tool"
        );
        assert_eq!(attribute(&span, "jsonrpc.request.id").unwrap(), "1");
        assert_eq!(
            attribute(&span, "mcp.protocol.version").unwrap(),
            "2025-11-25"
        );
        assert_eq!(attribute(&span, "error.type"), None);
        assert_eq!(span.status, Status::Unset);
    }

    #[tokio::test]
    async fn the_transport_and_the_session_are_attributes() {
        let (layer, exporter, _provider) = layer();
        let call = tool_call("add").network("tcp", Some("s-1"));
        run(&layer, call).await.unwrap();
        let span = only_span(&exporter);
        assert_eq!(attribute(&span, "network.transport").unwrap(), "tcp");
        assert_eq!(attribute(&span, "mcp.session.id").unwrap(), "s-1");

        let (layer, exporter, _provider) = self::layer();
        run(&layer, tool_call("add").network("pipe", None))
            .await
            .unwrap();
        let span = only_span(&exporter);
        assert_eq!(attribute(&span, "network.transport").unwrap(), "pipe");
        assert_eq!(attribute(&span, "mcp.session.id"), None);
    }

    #[tokio::test]
    async fn without_a_trace_context_a_span_starts_a_trace() {
        let (layer, exporter, _provider) = layer();
        run(
            &layer,
            request(Method::ListTools, None).answer(Response::Tools(vec![])),
        )
        .await
        .unwrap();
        let span = only_span(&exporter);
        assert_eq!(span.name, "tools/list");
        assert_eq!(span.parent_span_id, SpanId::INVALID);
    }

    #[tokio::test]
    async fn an_error_result_is_a_tool_error() {
        let (layer, exporter, _provider) = layer();
        let call = tool_call("add").answer(Response::Tool(CallToolResult::error("no")));
        run(&layer, call).await.unwrap();
        let span = only_span(&exporter);
        assert_eq!(attribute(&span, "error.type").unwrap(), "tool_error");
        assert!(matches!(span.status, Status::Error { .. }));
    }

    #[tokio::test]
    async fn a_json_rpc_error_is_its_code_unless_the_caller_is_to_blame() {
        let (layer, exporter, _provider) = layer();
        let read = request(Method::ReadResource, Some("file:///a"))
            .fail(Error::new(-32603, "disk on fire"));
        run(&layer, read).await.unwrap_err();
        let span = only_span(&exporter);
        assert_eq!(span.name, "resources/read");
        assert_eq!(attribute(&span, "mcp.resource.uri").unwrap(), "file:///a");
        assert_eq!(attribute(&span, "error.type").unwrap(), "-32603");
        assert_eq!(
            attribute(&span, "rpc.response.status_code").unwrap(),
            "-32603"
        );
        assert_eq!(
            span.status,
            Status::Error {
                description: "disk on fire".into()
            }
        );

        let (layer, exporter, _provider) = self::layer();
        let get = request(Method::GetPrompt, Some("greet")).fail(Error::invalid_params("who?"));
        run(&layer, get).await.unwrap_err();
        let span = only_span(&exporter);
        assert_eq!(span.name, "prompts/get greet");
        assert_eq!(attribute(&span, "gen_ai.prompt.name").unwrap(), "greet");
        assert_eq!(
            attribute(&span, "rpc.response.status_code").unwrap(),
            "-32602"
        );
        assert_eq!(attribute(&span, "error.type"), None);
        assert_eq!(span.status, Status::Unset);
    }
}
