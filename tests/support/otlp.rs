//! An OTLP/HTTP receiver for the tests, on loopback (plain or over TLS), decoding what it is
//! sent with the official protobuf definitions (`opentelemetry-proto`): the spans, the metrics,
//! the resource's `service.name`.

use std::sync::{Arc, Mutex};

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use opentelemetry_proto::tonic::collector::metrics::v1::ExportMetricsServiceRequest;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use opentelemetry_proto::tonic::metrics::v1::Metric;
use opentelemetry_proto::tonic::trace::v1::{ResourceSpans, Span};
use prost::Message;

/// What the receiver was sent: each body with the path it was posted to.
pub type Received = Arc<Mutex<Vec<(String, Bytes)>>>;

/// An OTLP/HTTP receiver on a loopback port, on a thread and runtime of its own: the test's
/// thread blocks in `force_flush` while the receiver answers.
pub fn start_receiver() -> (std::net::SocketAddr, Received) {
    start_receiver_with(None)
}

/// [`start_receiver`] over TLS, with the certificate of `tests/fixtures/tls/` (for
/// `localhost`, signed by the CA `ca.pem` there).
pub fn start_tls_receiver() -> (std::net::SocketAddr, Received) {
    use rustls_pki_types::pem::PemObject;
    use rustls_pki_types::{CertificateDer, PrivateKeyDer};

    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/tls");
    let certificates = CertificateDer::pem_file_iter(dir.join("server.pem"))
        .unwrap()
        .collect::<Result<Vec<_>, _>>()
        .unwrap();
    let key = PrivateKeyDer::from_pem_file(dir.join("server.key")).unwrap();
    let config = tokio_rustls::rustls::ServerConfig::builder_with_provider(Arc::new(
        tokio_rustls::rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_no_client_auth()
    .with_single_cert(certificates, key)
    .unwrap();
    start_receiver_with(Some(tokio_rustls::TlsAcceptor::from(Arc::new(config))))
}

fn start_receiver_with(tls: Option<tokio_rustls::TlsAcceptor>) -> (std::net::SocketAddr, Received) {
    let received = Received::default();
    let (tx, rx) = std::sync::mpsc::channel();
    let bodies = received.clone();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            tx.send(listener.local_addr().unwrap()).unwrap();
            loop {
                let (stream, _) = listener.accept().await.unwrap();
                let bodies = bodies.clone();
                let tls = tls.clone();
                tokio::spawn(async move {
                    let service =
                        hyper::service::service_fn(move |request| collect(request, bodies.clone()));
                    let http = hyper::server::conn::http1::Builder::new();
                    let _ = match tls {
                        None => {
                            http.serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                                .await
                        }
                        Some(tls) => {
                            let Ok(stream) = tls.accept(stream).await else {
                                return;
                            };
                            http.serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                                .await
                        }
                    };
                });
            }
        });
    });
    (rx.recv().unwrap(), received)
}

/// Keep one posted body.
async fn collect(
    request: hyper::Request<Incoming>,
    bodies: Received,
) -> Result<hyper::Response<Full<Bytes>>, hyper::Error> {
    let path = request.uri().path().to_owned();
    let body = request.into_body().collect().await?.to_bytes();
    bodies.lock().unwrap().push((path, body));
    // An empty message is a successful Export*ServiceResponse.
    let mut response = hyper::Response::new(Full::new(Bytes::new()));
    response.headers_mut().insert(
        "content-type",
        hyper::header::HeaderValue::from_static("application/x-protobuf"),
    );
    Ok(response)
}

/// Every trace export's resource spans, in the order they came.
fn resource_spans(received: &Received) -> Vec<ResourceSpans> {
    let received = received.lock().unwrap();
    received
        .iter()
        .filter(|(path, _)| path == "/v1/traces")
        .flat_map(|(_, body)| {
            ExportTraceServiceRequest::decode(body.clone())
                .unwrap()
                .resource_spans
        })
        .collect()
}

pub fn spans(received: &Received) -> Vec<Span> {
    resource_spans(received)
        .into_iter()
        .flat_map(|resource| resource.scope_spans)
        .flat_map(|scope| scope.spans)
        .collect()
}

pub fn text(value: &Option<AnyValue>) -> String {
    match value.as_ref().and_then(|value| value.value.as_ref()) {
        Some(any_value::Value::StringValue(text)) => text.clone(),
        other => format!("{other:?}"),
    }
}

pub fn attribute(attributes: &[KeyValue], key: &str) -> Option<String> {
    attributes
        .iter()
        .find(|kv| kv.key == key)
        .map(|kv| text(&kv.value))
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The one span named `name`.
pub fn server_span<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    let found: Vec<&Span> = spans.iter().filter(|span| span.name == name).collect();
    assert_eq!(found.len(), 1, "spans named {name}: {spans:#?}");
    found[0]
}

/// Every metric the receiver was sent, in the order they came.
pub fn metrics(received: &Received) -> Vec<Metric> {
    let received = received.lock().unwrap();
    received
        .iter()
        .filter(|(path, _)| path == "/v1/metrics")
        .flat_map(|(_, body)| {
            ExportMetricsServiceRequest::decode(body.clone())
                .unwrap()
                .resource_metrics
        })
        .flat_map(|resource| resource.scope_metrics)
        .flat_map(|scope| scope.metrics)
        .collect()
}

/// The metrics named `name` the receiver was sent.
pub fn metrics_named(received: &Received, name: &str) -> Vec<Metric> {
    metrics(received)
        .into_iter()
        .filter(|metric| metric.name == name)
        .collect()
}

/// The `service.name` of the resource each export of `received` came with.
pub fn service_names(received: &Received) -> Vec<String> {
    resource_spans(received)
        .into_iter()
        .filter_map(|spans| spans.resource)
        .filter_map(|resource| attribute(&resource.attributes, "service.name"))
        .collect()
}
