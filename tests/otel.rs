//! OpenTelemetry end to end: servers export over OTLP/HTTP to a receiver this test runs
//! (`support/otlp.rs`), which decodes the bodies with the official protobuf definitions.
//! Checked, in process: the server span continues the `traceparent` the client sent in `_meta`
//! (in both eras), its name and attributes, a failing call's `error.type`, the handler running
//! in the span's context (the OpenTelemetry API's current context, and a `tracing` span made
//! through `tracing-opentelemetry`), and the metrics; with `Server::trace`, the spans of
//! `initialize`, `server/discover`, `ping`, `tasks/get`, notifications and unknown methods, and
//! the session duration; a 2026-07-28 retry's link to its first round; a task's later work in
//! the caller's trace. Over Streamable HTTP, in both eras: `network.transport`, a legacy
//! session's `mcp.session.id`, the `traceparent` header as the parent of a request whose
//! `_meta` has none and as a link of one whose `_meta` has one. As subprocesses, the
//! calculator example set up by the `OTEL_*` variables alone (`Server::trace_from_env`):
//! exporting to an `https://` endpoint verified with `OTEL_EXPORTER_OTLP_CERTIFICATE`, flushed
//! when stdin closes and when SIGTERM arrives.

#[allow(unused_macros)]
mod support;

use mcp_runtime::http::HttpConfig;
use mcp_runtime::middleware::TraceLayer;
use mcp_runtime::protocol::ProtocolVersion;
use mcp_runtime::telemetry::Telemetry;
use mcp_runtime::testing::TestClient;
use mcp_runtime::{
    Elicitation, RequestContext, ResourceError, Server, mcp_resource, mcp_tool, resources,
    server_info, tools,
};
use opentelemetry::trace::{TraceContextExt, TracerProvider};
use opentelemetry_proto::tonic::metrics::v1::metric;
use opentelemetry_proto::tonic::trace::v1::{Span, span, status};
use serde_json::{Value, json};
use support::client::Client;
use support::http::{open_legacy_session_as, post_legacy_as, send};
use support::http_server::InProcessServer;
use support::modern_meta;
use support::otlp::{
    attribute, hex, metrics_named, server_span, service_names, spans, start_receiver,
    start_tls_receiver,
};
use support::process::ServerProcess;
use tracing_subscriber::layer::SubscriberExt;

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";
/// The trace of an HTTP `traceparent` header.
const HEADER_TRACE_ID: &str = "0af7651916cd43dd8448eb211c80319c";
const HEADER_PARENT_ID: &str = "b7ad6b7169203331";

fn traceparent() -> String {
    format!("00-{TRACE_ID}-{PARENT_ID}-01")
}

/// Add two numbers.
#[mcp_tool]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Says which span it runs in, and opens one of its own through `tracing`.
#[mcp_tool]
async fn whereami() -> String {
    let context = opentelemetry::Context::current();
    let span = context.span();
    let ids = span.span_context();
    let baggage = opentelemetry::baggage::BaggageExt::baggage(&context)
        .get("tenant")
        .map(|value| value.to_string())
        .unwrap_or_default();
    tracing::info_span!("inside the handler")
        .in_scope(|| format!("{} {} {baggage}", ids.trace_id(), ids.span_id()))
}

/// [`whereami`] as a plain `fn`, which runs on a thread of the runtime's own.
#[mcp_tool]
fn whereami_blocking() -> String {
    let context = opentelemetry::Context::current();
    let span = context.span();
    let ids = span.span_context();
    tracing::info_span!("inside the plain fn")
        .in_scope(|| format!("{} {}", ids.trace_id(), ids.span_id()))
}

/// Always fails.
#[mcp_tool]
async fn refuse() -> Result<String, String> {
    Err("no".to_owned())
}

/// A disk on fire.
#[mcp_resource("memo://broken", mime_type = "text/plain")]
async fn broken() -> Result<String, ResourceError> {
    Err(ResourceError::internal("the disk is on fire"))
}

fn server(telemetry: &Telemetry) -> Server {
    Server::new(server_info!())
        .tools(tools![add, whereami, whereami_blocking, refuse])
        .resources(resources![broken])
        .layer(
            TraceLayer::new()
                .with_tracer_provider(telemetry.tracer_provider().clone())
                .with_meter_provider(telemetry.meter_provider()),
        )
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Confirm {
    confirm: bool,
}

/// Asks before it answers (a 2026-07-28 call then takes two rounds).
#[mcp_tool]
async fn careful(ctx: RequestContext) -> String {
    match ctx.elicit::<Confirm>("Sure?").await {
        Ok(Elicitation::Accepted(Confirm { confirm })) => format!("confirmed: {confirm}"),
        Ok(_) => "not confirmed".to_owned(),
        Err(error) => format!("cannot ask: {error}"),
    }
}

/// What lets `patient` go on, once it has become a task.
fn release() -> &'static tokio::sync::Notify {
    static RELEASE: std::sync::OnceLock<tokio::sync::Notify> = std::sync::OnceLock::new();
    RELEASE.get_or_init(tokio::sync::Notify::new)
}

/// Waits for the test (so the call becomes a task), then works in a span of its own.
#[mcp_tool(task)]
async fn patient() -> String {
    release().notified().await;
    tracing::info_span!("the task's later work").in_scope(|| "done".to_owned())
}

/// A server whose every message is traced (`Server::trace`), not only its pipeline's.
fn traced_server(telemetry: &Telemetry) -> Server {
    Server::new(server_info!())
        .tools(tools![add, careful, patient])
        .trace(
            TraceLayer::new()
                .with_tracer_provider(telemetry.tracer_provider().clone())
                .with_meter_provider(telemetry.meter_provider()),
        )
}

fn with_trace_context(params: Value, baggage: &str) -> Value {
    let mut params = params;
    params["_meta"] = json!({
        "traceparent": traceparent(),
        "tracestate": "vendor=1",
        "baggage": baggage,
    });
    params
}

#[tokio::test]
async fn requests_export_server_spans_continuing_the_callers_trace() {
    let (address, received) = start_receiver();
    let telemetry = Telemetry::with_endpoint(&format!("http://{address}")).unwrap();
    let subscriber = tracing_subscriber::registry().with(
        tracing_opentelemetry::layer().with_tracer(telemetry.tracer_provider().tracer("handlers")),
    );
    // The test's runtime has one thread, which runs the handlers.
    let _subscriber = tracing::subscriber::set_default(subscriber);

    let modern = TestClient::new(server(&telemetry));
    let whereami = modern
        .request(
            "tools/call",
            with_trace_context(json!({"name": "whereami", "arguments": {}}), "tenant=acme"),
        )
        .await
        .unwrap();
    let blocking = modern
        .request(
            "tools/call",
            with_trace_context(json!({"name": "whereami_blocking", "arguments": {}}), "k=v"),
        )
        .await
        .unwrap();
    let refused = modern
        .request(
            "tools/call",
            with_trace_context(json!({"name": "refuse", "arguments": {}}), "tenant=acme"),
        )
        .await
        .unwrap();
    assert_eq!(refused["isError"], json!(true), "{refused}");
    let broken = modern
        .request("resources/read", json!({"uri": "memo://broken"}))
        .await
        .unwrap_err();
    assert_eq!(broken.code, -32603);
    modern.list_tools().await.unwrap();

    let legacy = TestClient::at(server(&telemetry), ProtocolVersion::V2025_11_25);
    legacy
        .request(
            "tools/call",
            with_trace_context(json!({"name": "add", "arguments": {"a": 1, "b": 2}}), "k=v"),
        )
        .await
        .unwrap();

    telemetry.force_flush().unwrap();
    let spans = spans(&received);

    // The handler ran in the server span's context, and saw the caller's baggage.
    let call = server_span(&spans, "tools/call whereami");
    let said = whereami["content"][0]["text"].as_str().unwrap().to_owned();
    assert_eq!(
        said,
        format!("{} {} acme", hex(&call.trace_id), hex(&call.span_id))
    );
    assert_eq!(hex(&call.trace_id), TRACE_ID);
    assert_eq!(hex(&call.parent_span_id), PARENT_ID);
    assert_eq!(call.kind, span::SpanKind::Server as i32);
    assert_eq!(call.trace_state, "vendor=1");
    let attributes = &call.attributes;
    assert_eq!(
        attribute(attributes, "mcp.method.name").unwrap(),
        "tools/call"
    );
    assert_eq!(
        attribute(attributes, "gen_ai.tool.name").unwrap(),
        "whereami"
    );
    assert_eq!(
        attribute(attributes, "gen_ai.operation.name").unwrap(),
        "execute_tool"
    );
    assert_eq!(attribute(attributes, "jsonrpc.request.id").unwrap(), "1");
    assert_eq!(
        attribute(attributes, "mcp.protocol.version").unwrap(),
        "2026-07-28"
    );
    assert_eq!(attribute(attributes, "error.type"), None);

    // The `tracing` span the handler opened is the server span's child.
    let inside = server_span(&spans, "inside the handler");
    assert_eq!(inside.trace_id, call.trace_id);
    assert_eq!(inside.parent_span_id, call.span_id);

    // So does a plain fn's, on a thread of its own.
    let call = server_span(&spans, "tools/call whereami_blocking");
    assert_eq!(
        blocking["content"][0]["text"].as_str().unwrap(),
        format!("{} {}", hex(&call.trace_id), hex(&call.span_id))
    );
    let inside = server_span(&spans, "inside the plain fn");
    assert_eq!(inside.trace_id, call.trace_id);
    assert_eq!(inside.parent_span_id, call.span_id);

    // An error result.
    let refuse = server_span(&spans, "tools/call refuse");
    assert_eq!(
        attribute(&refuse.attributes, "error.type").unwrap(),
        "tool_error"
    );
    assert_eq!(
        refuse.status.as_ref().unwrap().code,
        status::StatusCode::Error as i32
    );

    // A JSON-RPC error, in a request without trace context: a new trace.
    let read = server_span(&spans, "resources/read");
    assert_eq!(attribute(&read.attributes, "error.type").unwrap(), "-32603");
    assert_eq!(
        attribute(&read.attributes, "mcp.resource.uri").unwrap(),
        "memo://broken"
    );
    assert!(read.parent_span_id.is_empty(), "{read:?}");
    assert_ne!(hex(&read.trace_id), TRACE_ID);
    server_span(&spans, "tools/list");

    // A legacy request's `_meta` carries the trace context too.
    let add = server_span(&spans, "tools/call add");
    assert_eq!(hex(&add.trace_id), TRACE_ID);
    assert_eq!(hex(&add.parent_span_id), PARENT_ID);
    assert_eq!(
        attribute(&add.attributes, "mcp.protocol.version").unwrap(),
        "2025-11-25"
    );

    // The duration histogram, in seconds, per method and tool, with `error.type`.
    let metrics = support::otlp::metrics(&received);
    let histograms: Vec<_> = metrics
        .iter()
        .filter(|metric| metric.name == "mcp.server.operation.duration")
        .collect();
    assert!(!histograms.is_empty(), "no duration histogram exported");
    assert!(histograms.iter().all(|metric| metric.unit == "s"));
    let points: Vec<_> = histograms
        .iter()
        .filter_map(|metric| match &metric.data {
            Some(metric::Data::Histogram(histogram)) => Some(histogram.data_points.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    let point = |tool: &str| {
        points
            .iter()
            .find(|point| attribute(&point.attributes, "gen_ai.tool.name").as_deref() == Some(tool))
            .unwrap_or_else(|| panic!("no data point for {tool}: {points:#?}"))
    };
    assert_eq!(point("whereami").count, 1);
    assert_eq!(
        attribute(&point("refuse").attributes, "error.type").unwrap(),
        "tool_error"
    );

    // Every request was answered: none is still counted as being served.
    let active: Vec<_> = metrics
        .iter()
        .filter(|metric| metric.name == "mcp.server.active_operations")
        .filter_map(|metric| match &metric.data {
            Some(metric::Data::Sum(sum)) => Some(sum.data_points.clone()),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(!active.is_empty(), "no active operations exported");
    for point in &active {
        assert_eq!(
            point.value,
            Some(opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsInt(0)),
            "{point:?}"
        );
    }
}

#[test]
fn http_requests_continue_the_trace_in_both_eras() {
    let (address, received) = start_receiver();
    let telemetry = Telemetry::with_endpoint(&format!("http://{address}")).unwrap();
    let server = InProcessServer::start(server(&telemetry), HttpConfig::new());

    let mut meta = modern_meta("2026-07-28");
    meta["traceparent"] = json!(traceparent());
    let call = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}, "_meta": meta}});
    let headers = [
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "add"),
    ];
    let reply = send(server.addr, "POST", &headers, call.to_string().as_bytes());
    assert_eq!(
        reply.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );

    // No verifier is configured: the bearer token names nobody, and is not checked.
    let session = open_legacy_session_as(server.addr, "t");
    let call = json!({"jsonrpc": "2.0", "id": 8, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2},
            "_meta": {"traceparent": traceparent()}}});
    let reply = post_legacy_as(server.addr, "t", Some(&session), &call);
    assert_eq!(
        reply.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );

    // Without one in `_meta`, the HTTP request's `traceparent` header is the parent; with
    // both, `_meta`'s is.
    let header = format!("00-{HEADER_TRACE_ID}-{HEADER_PARENT_ID}-01");
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2},
            "_meta": modern_meta("2026-07-28")}});
    let with_header = [&headers[..], &[("traceparent", header.as_str())]].concat();
    let reply = send(
        server.addr,
        "POST",
        &with_header,
        call.to_string().as_bytes(),
    );
    assert_eq!(
        reply.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    let call = json!({"jsonrpc": "2.0", "id": 10, "method": "tools/list", "params": {}});
    let reply = send(
        server.addr,
        "POST",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Session-Id", &session),
            ("traceparent", &header),
        ],
        call.to_string().as_bytes(),
    );
    assert_eq!(
        reply.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );
    let call = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/list",
        "params": {"_meta": {"traceparent": traceparent()}}});
    let reply = send(
        server.addr,
        "POST",
        &[
            ("Content-Type", "application/json"),
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Session-Id", &session),
            ("traceparent", &header),
        ],
        call.to_string().as_bytes(),
    );
    assert_eq!(
        reply.status,
        200,
        "{:?}",
        String::from_utf8_lossy(&reply.body)
    );

    telemetry.force_flush().unwrap();
    let spans = spans(&received);
    let by_id = |id: &str| {
        let found: Vec<&Span> = spans
            .iter()
            .filter(|span| attribute(&span.attributes, "jsonrpc.request.id").as_deref() == Some(id))
            .collect();
        assert_eq!(found.len(), 1, "request {id}: {spans:#?}");
        found[0]
    };
    for id in ["9", "10"] {
        assert_eq!(hex(&by_id(id).trace_id), HEADER_TRACE_ID, "request {id}");
        assert_eq!(
            hex(&by_id(id).parent_span_id),
            HEADER_PARENT_ID,
            "request {id}"
        );
    }
    assert_eq!(hex(&by_id("11").trace_id), TRACE_ID);
    assert_eq!(hex(&by_id("11").parent_span_id), PARENT_ID);
    // With both, the transport's context is linked, as the conventions say.
    let links: Vec<(String, String)> = by_id("11")
        .links
        .iter()
        .map(|link| (hex(&link.trace_id), hex(&link.span_id)))
        .collect();
    assert_eq!(
        links,
        [(HEADER_TRACE_ID.to_owned(), HEADER_PARENT_ID.to_owned())]
    );
    assert!(by_id("9").links.is_empty(), "{:?}", by_id("9").links);
    assert_eq!(
        attribute(&by_id("9").attributes, "network.protocol.name").as_deref(),
        Some("http")
    );

    let of = |revision: &str| {
        let found: Vec<&Span> = spans
            .iter()
            .filter(|span| {
                span.name == "tools/call add"
                    && attribute(&span.attributes, "jsonrpc.request.id").as_deref() != Some("9")
                    && attribute(&span.attributes, "mcp.protocol.version").as_deref()
                        == Some(revision)
            })
            .collect();
        assert_eq!(found.len(), 1, "{revision}: {spans:#?}");
        found[0]
    };
    for (revision, id) in [("2026-07-28", "7"), ("2025-11-25", "8")] {
        let span = of(revision);
        assert_eq!(hex(&span.trace_id), TRACE_ID, "{revision}");
        assert_eq!(hex(&span.parent_span_id), PARENT_ID, "{revision}");
        assert_eq!(
            attribute(&span.attributes, "network.transport").as_deref(),
            Some("tcp"),
            "{revision}"
        );
        assert_eq!(
            attribute(&span.attributes, "jsonrpc.request.id").as_deref(),
            Some(id)
        );
    }
    // Only the legacy era has sessions.
    assert_eq!(
        attribute(&of("2026-07-28").attributes, "mcp.session.id"),
        None
    );
    assert_eq!(
        attribute(&of("2025-11-25").attributes, "mcp.session.id").unwrap(),
        session
    );
    server.shut_down();
}

#[tokio::test]
async fn dropping_the_telemetry_exports_what_is_pending() {
    let (address, received) = start_receiver();
    let telemetry = Telemetry::with_endpoint(&format!("http://{address}")).unwrap();
    let client = TestClient::new(server(&telemetry));
    client
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    // Dropped inside the runtime, as `main`'s guard is once `serve_stdio` returns.
    drop(client);
    drop(telemetry);
    server_span(&spans(&received), "tools/call add");
}

#[tokio::test]
async fn the_handshake_discovery_pings_and_notifications_are_traced_and_sessions_measured() {
    let (address, received) = start_receiver();
    let telemetry = Telemetry::with_endpoint(&format!("http://{address}")).unwrap();

    let legacy = TestClient::at(traced_server(&telemetry), ProtocolVersion::V2025_11_25);
    legacy
        .request("ping", json!({"_meta": {"traceparent": traceparent()}}))
        .await
        .unwrap();
    legacy
        .call_tool("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    let unknown = legacy.request("made/up", json!({})).await.unwrap_err();
    assert_eq!(unknown.code, -32601);
    // The session ends with its client.
    drop(legacy);

    let modern = TestClient::new(traced_server(&telemetry));
    modern
        .request(
            "server/discover",
            with_trace_context(json!({}), "tenant=acme"),
        )
        .await
        .unwrap();

    telemetry.force_flush().unwrap();
    let spans = spans(&received);

    let initialize = server_span(&spans, "initialize");
    assert_eq!(initialize.kind, span::SpanKind::Server as i32);
    assert_eq!(
        attribute(&initialize.attributes, "mcp.method.name").unwrap(),
        "initialize"
    );
    assert_eq!(
        attribute(&initialize.attributes, "mcp.protocol.version").unwrap(),
        "2025-11-25"
    );
    assert_eq!(
        attribute(&initialize.attributes, "jsonrpc.request.id").unwrap(),
        "1"
    );
    let initialized = server_span(&spans, "notifications/initialized");
    assert_eq!(
        attribute(&initialized.attributes, "jsonrpc.request.id"),
        None,
        "a notification has no id"
    );
    let ping = server_span(&spans, "ping");
    assert_eq!(hex(&ping.trace_id), TRACE_ID);
    assert_eq!(hex(&ping.parent_span_id), PARENT_ID);
    assert_eq!(
        attribute(&ping.attributes, "mcp.protocol.version").unwrap(),
        "2025-11-25"
    );
    // A request of the pipeline has one span, the layer's.
    server_span(&spans, "tools/call add");
    // An unknown method is `_OTHER`, and the caller's mistake is no server error.
    let other = server_span(&spans, "_OTHER");
    assert_eq!(
        attribute(&other.attributes, "rpc.response.status_code").unwrap(),
        "-32601"
    );
    assert_eq!(attribute(&other.attributes, "error.type"), None);
    let discover = server_span(&spans, "server/discover");
    assert_eq!(hex(&discover.trace_id), TRACE_ID);
    assert_eq!(hex(&discover.parent_span_id), PARENT_ID);
    assert_eq!(
        attribute(&discover.attributes, "mcp.protocol.version").unwrap(),
        "2026-07-28"
    );

    // The session's length, once it ended; and no session is counted open any more.
    let sessions: Vec<_> = metrics_named(&received, "mcp.server.session.duration")
        .into_iter()
        .filter_map(|metric| match metric.data {
            Some(metric::Data::Histogram(histogram)) => Some(histogram.data_points),
            _ => None,
        })
        .flatten()
        .collect();
    assert_eq!(sessions.len(), 1, "{sessions:#?}");
    assert_eq!(sessions[0].count, 1);
    assert_eq!(
        attribute(&sessions[0].attributes, "mcp.protocol.version").unwrap(),
        "2025-11-25"
    );
    let open: Vec<_> = metrics_named(&received, "mcp.server.active_sessions")
        .into_iter()
        .filter_map(|metric| match metric.data {
            Some(metric::Data::Sum(sum)) => Some(sum.data_points),
            _ => None,
        })
        .flatten()
        .collect();
    assert!(!open.is_empty(), "no active sessions exported");
    for point in &open {
        assert_eq!(
            point.value,
            Some(opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsInt(0)),
            "{point:?}"
        );
    }
    // Every method's duration, the handshake's too.
    let methods: Vec<String> = metrics_named(&received, "mcp.server.operation.duration")
        .into_iter()
        .filter_map(|metric| match metric.data {
            Some(metric::Data::Histogram(histogram)) => Some(histogram.data_points),
            _ => None,
        })
        .flatten()
        .filter_map(|point| attribute(&point.attributes, "mcp.method.name"))
        .collect();
    for method in ["initialize", "ping", "tools/call", "server/discover"] {
        assert!(
            methods.iter().any(|had| had == method),
            "{method}: {methods:?}"
        );
    }
}

#[tokio::test]
async fn each_input_round_links_to_the_first_and_a_tasks_later_work_stays_in_the_trace() {
    let (address, received) = start_receiver();
    let telemetry = Telemetry::with_endpoint(&format!("http://{address}")).unwrap();
    let subscriber = tracing_subscriber::registry().with(
        tracing_opentelemetry::layer().with_tracer(telemetry.tracer_provider().tracer("handlers")),
    );
    let _subscriber = tracing::subscriber::set_default(subscriber);
    let client = TestClient::new(traced_server(&telemetry));

    // Two rounds of one call, each continuing a trace of the client's own.
    let asks = |trace: &str| {
        json!({
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
            "traceparent": format!("00-{trace}-{PARENT_ID}-01"),
        })
    };
    let retry_trace = "11111111111111111111111111111111";
    let first = client
        .request(
            "tools/call",
            json!({"name": "careful", "arguments": {}, "_meta": asks(TRACE_ID)}),
        )
        .await
        .unwrap();
    assert_eq!(first["resultType"], "input_required", "{first}");
    let second = client
        .request(
            "tools/call",
            json!({
                "name": "careful",
                "arguments": {},
                "_meta": asks(retry_trace),
                "requestState": first["requestState"],
                "inputResponses": {"q0": {"action": "accept", "content": {"confirm": true}}},
            }),
        )
        .await
        .unwrap();
    assert_eq!(second["content"][0]["text"], "confirmed: true", "{second}");

    // A call that becomes a task, whose handler goes on after the answer.
    let tasks = json!({
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
        "traceparent": traceparent(),
    });
    let created = client
        .request(
            "tools/call",
            json!({"name": "patient", "arguments": {}, "_meta": tasks}),
        )
        .await
        .unwrap();
    let task_id = created["taskId"]
        .as_str()
        .unwrap_or_else(|| panic!("not a task: {created}"))
        .to_owned();
    release().notify_one();
    loop {
        let got = client
            .request("tasks/get", json!({"taskId": task_id, "_meta": tasks}))
            .await
            .unwrap();
        if got["status"] == "completed" {
            break;
        }
        assert_eq!(got["status"], "working", "{got}");
        tokio::task::yield_now().await;
    }

    telemetry.force_flush().unwrap();
    let spans = spans(&received);
    let rounds: Vec<&Span> = spans
        .iter()
        .filter(|span| span.name == "tools/call careful")
        .collect();
    assert_eq!(rounds.len(), 2, "{rounds:#?}");
    let (first, retry) = if hex(&rounds[0].trace_id) == TRACE_ID {
        (rounds[0], rounds[1])
    } else {
        (rounds[1], rounds[0])
    };
    assert_eq!(hex(&first.trace_id), TRACE_ID);
    assert!(first.links.is_empty(), "{:?}", first.links);
    assert_eq!(hex(&retry.trace_id), retry_trace);
    assert_eq!(hex(&retry.parent_span_id), PARENT_ID);
    let links: Vec<(Vec<u8>, Vec<u8>)> = retry
        .links
        .iter()
        .map(|link| (link.trace_id.clone(), link.span_id.clone()))
        .collect();
    assert_eq!(links, [(first.trace_id.clone(), first.span_id.clone())]);

    // The task's later work is in the caller's trace, under the call's span.
    let call = server_span(&spans, "tools/call patient");
    assert_eq!(hex(&call.trace_id), TRACE_ID);
    let later = server_span(&spans, "the task's later work");
    assert_eq!(later.trace_id, call.trace_id);
    assert_eq!(later.parent_span_id, call.span_id);
    // The polls are spans of their own, in the trace each poll continues.
    let polls: Vec<&Span> = spans
        .iter()
        .filter(|span| span.name == "tasks/get")
        .collect();
    assert!(!polls.is_empty());
    assert!(polls.iter().all(|poll| hex(&poll.trace_id) == TRACE_ID));
}

#[test]
fn a_stdio_example_exports_over_https_by_the_otel_variables_and_flushes_when_stdin_closes() {
    let (address, received) = start_tls_receiver();
    let endpoint = format!("https://localhost:{}", address.port());
    let ca = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/tls/ca.pem");
    let mut client = Client::new(ServerProcess::example_with_env(
        "calculator",
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
            ("OTEL_EXPORTER_OTLP_CERTIFICATE", ca),
            ("OTEL_SERVICE_NAME", "calculator-under-test"),
        ],
    ));
    let id = client.send_modern_request(
        "tools/call",
        json!({"name": "add", "arguments": {"a": 1, "b": 2},
            "_meta": {"traceparent": traceparent()}}),
    );
    let answer = client.response(&id);
    assert_eq!(answer["result"]["content"][0]["text"], "3", "{answer}");
    // Nothing is exported yet (the batch waits): closing stdin must flush it.
    assert!(client.finish().success());

    let spans = spans(&received);
    let call = server_span(&spans, "tools/call add");
    assert_eq!(hex(&call.trace_id), TRACE_ID);
    assert_eq!(hex(&call.parent_span_id), PARENT_ID);
    assert_eq!(
        attribute(&call.attributes, "network.transport").as_deref(),
        Some("pipe")
    );
    assert!(
        service_names(&received)
            .iter()
            .all(|name| name == "calculator-under-test"),
        "{:?}",
        service_names(&received)
    );
    assert!(
        !metrics_named(&received, "mcp.server.operation.duration").is_empty(),
        "the metrics are flushed too"
    );
}

#[cfg(unix)]
#[test]
fn a_legacy_stdio_session_is_exported_when_the_server_gets_sigterm() {
    let (address, received) = start_receiver();
    let endpoint = format!("http://{address}");
    let mut client = Client::new(ServerProcess::example_with_env(
        "calculator",
        &[("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint)],
    ));
    client.initialize("2025-11-25");
    let result = client.result(
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 2}}),
    );
    assert_eq!(result["content"][0]["text"], "4", "{result}");
    client.server().terminate();
    assert!(client.server().wait_for_exit().success());

    let spans = spans(&received);
    let initialize = server_span(&spans, "initialize");
    assert_eq!(
        attribute(&initialize.attributes, "mcp.protocol.version").unwrap(),
        "2025-11-25"
    );
    assert_eq!(
        attribute(&initialize.attributes, "network.transport").unwrap(),
        "pipe"
    );
    server_span(&spans, "notifications/initialized");
    server_span(&spans, "tools/call add");
}

#[test]
fn without_the_variables_an_example_exports_nothing_and_serves() {
    // `trace_from_env` with no endpoint named: the calculator serves as before.
    let mut client = Client::open(
        ServerProcess::example_with_env(
            "calculator",
            &[
                ("OTEL_SDK_DISABLED", "true"),
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9"),
            ],
        ),
        ProtocolVersion::V2025_11_25,
    );
    let result = client.result(
        "tools/call",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    );
    assert_eq!(result["content"][0]["text"], "5", "{result}");
    assert!(client.finish().success());
    assert!(
        !client.server().stderr().contains("OpenTelemetry"),
        "{}",
        client.server().stderr()
    );
}

/// The value of the up-down counter `name` in the last export that had it.
fn last_count(received: &support::otlp::Received, name: &str) -> Option<i64> {
    let point = metrics_named(received, name)
        .into_iter()
        .filter_map(|metric| match metric.data {
            Some(metric::Data::Sum(sum)) => Some(sum.data_points),
            _ => None,
        })
        .next_back()?
        .into_iter()
        .next()?;
    match point.value {
        Some(opentelemetry_proto::tonic::metrics::v1::number_data_point::Value::AsInt(value)) => {
            Some(value)
        }
        _ => None,
    }
}

#[test]
fn http_sessions_and_open_streams_are_counted() {
    use std::io::{Read, Write};

    let (address, received) = start_receiver();
    let telemetry = Telemetry::with_endpoint(&format!("http://{address}")).unwrap();
    let server = InProcessServer::start(traced_server(&telemetry), HttpConfig::new());
    let session = open_legacy_session_as(server.addr, "t");

    // The session's stream of server messages, held open.
    let mut stream = std::net::TcpStream::connect(server.addr).unwrap();
    let get = support::http::request_bytes(
        "GET",
        &[
            ("Accept", "text/event-stream"),
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Session-Id", &session),
        ],
        b"",
    );
    stream.write_all(&get).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        assert_eq!(stream.read(&mut byte).unwrap(), 1, "the stream closed");
        head.push(byte[0]);
    }
    let head = String::from_utf8(head).unwrap();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    telemetry.force_flush().unwrap();
    assert_eq!(last_count(&received, "mcp.server.active_streams"), Some(1));
    assert_eq!(last_count(&received, "mcp.server.active_sessions"), Some(1));

    // The client goes away: the stream is closed, and so is the session once deleted.
    drop(stream);
    let reply = send(
        server.addr,
        "DELETE",
        &[
            ("MCP-Protocol-Version", "2025-11-25"),
            ("Mcp-Session-Id", &session),
        ],
        b"",
    );
    assert!(reply.status < 300, "{}", reply.status);
    let deadline = std::time::Instant::now() + support::PATIENCE;
    loop {
        telemetry.force_flush().unwrap();
        let streams = last_count(&received, "mcp.server.active_streams");
        let sessions = last_count(&received, "mcp.server.active_sessions");
        if streams == Some(0) && sessions == Some(0) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "still counted open: {streams:?} streams, {sessions:?} sessions"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    server.shut_down();
}
