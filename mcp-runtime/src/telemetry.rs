//! OpenTelemetry export over OTLP (HTTP/protobuf), set up in one line, for
//! [`TraceLayer`](crate::middleware::TraceLayer).
//!
//! ```no_run
//! use mcp_runtime::middleware::TraceLayer;
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     // Configured by the standard variables: `OTEL_EXPORTER_OTLP_ENDPOINT`
//!     // (`http://localhost:4318` when unset), `OTEL_SERVICE_NAME`, ...
//!     let _telemetry = mcp_runtime::telemetry::init()?;
//!     let server = mcp_runtime::Server::new(mcp_runtime::server_info!()).layer(TraceLayer::new());
//!     server.serve_stdio().await?;
//!     // `_telemetry` drops here: what is pending is exported before the process exits.
//!     Ok(())
//! }
//! ```
//!
//! An application that configures OpenTelemetry itself skips this module and hands its
//! providers to [`TraceLayer::with_tracer_provider`](crate::middleware::TraceLayer::with_tracer_provider)
//! and [`TraceLayer::with_meter_provider`](crate::middleware::TraceLayer::with_meter_provider)
//! (or installs them globally before making the layer).
//!
//! A handler's `tracing` spans join the trace when the application adds
//! `tracing_opentelemetry::layer().with_tracer(...)` (the `tracing-opentelemetry` crate, with
//! a tracer of [`Telemetry::tracer_provider`]) to its `tracing` subscriber.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use bytes::Bytes;
use opentelemetry::propagation::TextMapCompositePropagator;
use opentelemetry_http::hyper::HyperClient;
use opentelemetry_http::{HttpClient, HttpError};
use opentelemetry_otlp::{
    MetricExporter, Protocol, SpanExporter, WithExportConfig, WithHttpConfig,
};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::propagation::{BaggagePropagator, TraceContextPropagator};
use opentelemetry_sdk::trace::SdkTracerProvider;

/// How long one export may take: the OTLP exporters' default (`OTEL_EXPORTER_OTLP_TIMEOUT`).
const EXPORT_TIMEOUT: Duration = Duration::from_secs(10);

/// The CA certificate (PEM) that `https://` endpoints are verified with, besides the public
/// roots: a private collector's.
const CERTIFICATE_VAR: &str = "OTEL_EXPORTER_OTLP_CERTIFICATE";

/// Exports spans and metrics over OTLP/HTTP (protobuf), configured by the standard `OTEL_*`
/// environment variables, and installs the providers (and the W3C trace context and baggage
/// propagators) globally: [`TraceLayer::new`](crate::middleware::TraceLayer::new) made after
/// it exports through them.
///
/// Keep the returned guard alive while serving (in `main`): dropping it exports what is
/// pending and shuts the exporters down, so a short stdio session loses no span.
pub fn init() -> Result<Telemetry, TelemetryError> {
    let telemetry = Telemetry::from_env()?;
    telemetry.install_global();
    Ok(telemetry)
}

/// A tracer provider and a meter provider exporting over OTLP/HTTP; dropping it flushes them
/// and shuts them down.
///
/// Spans go through a batch span processor, metrics through a periodic reader (every
/// `OTEL_METRIC_EXPORT_INTERVAL` milliseconds, 60 s by default). Their HTTP requests run on a
/// single-threaded tokio runtime of the exporter's own, so exporting needs no free worker of
/// the application's runtime, and the guard may be dropped inside it or after it ended.
/// Endpoints may be `http://` (a local collector or agent) or `https://`, verified against the
/// public roots and the CA certificate named by `OTEL_EXPORTER_OTLP_CERTIFICATE` (a PEM file).
pub struct Telemetry {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    runtime: Option<ExportRuntime>,
}

impl Telemetry {
    /// Exporters configured by the `OTEL_*` environment variables alone, not installed
    /// globally.
    pub fn from_env() -> Result<Self, TelemetryError> {
        Self::build(None)
    }

    /// Exporters sending to the OTLP/HTTP receiver at `endpoint` (like
    /// `http://127.0.0.1:4318`: spans to `/v1/traces`, metrics to `/v1/metrics`), whatever
    /// the environment says of endpoints; not installed globally.
    pub fn with_endpoint(endpoint: &str) -> Result<Self, TelemetryError> {
        Self::build(Some(endpoint.trim_end_matches('/')))
    }

    fn build(endpoint: Option<&str>) -> Result<Self, TelemetryError> {
        let runtime = ExportRuntime::start()?;
        let client = OnRuntime {
            client: HyperClient::new(connector()?, EXPORT_TIMEOUT, None),
            runtime: runtime.handle.clone(),
        };
        let mut spans = SpanExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_http_client(client.clone());
        let mut metrics = MetricExporter::builder()
            .with_http()
            .with_protocol(Protocol::HttpBinary)
            .with_http_client(client);
        if let Some(endpoint) = endpoint {
            spans = spans.with_endpoint(format!("{endpoint}/v1/traces"));
            metrics = metrics.with_endpoint(format!("{endpoint}/v1/metrics"));
        }
        // `OTEL_SERVICE_NAME` and `OTEL_RESOURCE_ATTRIBUTES`, through the default detectors.
        let resource = Resource::builder().build();
        let tracer_provider = SdkTracerProvider::builder()
            .with_batch_exporter(spans.build().map_err(TelemetryError::new)?)
            .with_resource(resource.clone())
            .build();
        let meter_provider = SdkMeterProvider::builder()
            .with_periodic_exporter(metrics.build().map_err(TelemetryError::new)?)
            .with_resource(resource)
            .build();
        Ok(Telemetry {
            tracer_provider,
            meter_provider,
            runtime: Some(runtime),
        })
    }

    /// Make these the global tracer and meter providers, and the W3C trace context and
    /// baggage the global propagator (for the application's own outgoing calls).
    pub fn install_global(&self) {
        opentelemetry::global::set_tracer_provider(self.tracer_provider.clone());
        opentelemetry::global::set_meter_provider(self.meter_provider.clone());
        opentelemetry::global::set_text_map_propagator(TextMapCompositePropagator::new(vec![
            Box::new(TraceContextPropagator::new()),
            Box::new(BaggagePropagator::new()),
        ]));
    }

    /// The tracer provider (for [`TraceLayer::with_tracer_provider`] or a
    /// `tracing-opentelemetry` layer).
    ///
    /// [`TraceLayer::with_tracer_provider`]: crate::middleware::TraceLayer::with_tracer_provider
    pub fn tracer_provider(&self) -> &SdkTracerProvider {
        &self.tracer_provider
    }

    /// The meter provider (for [`TraceLayer::with_meter_provider`]).
    ///
    /// [`TraceLayer::with_meter_provider`]: crate::middleware::TraceLayer::with_meter_provider
    pub fn meter_provider(&self) -> &SdkMeterProvider {
        &self.meter_provider
    }

    /// Export every finished span and the metrics so far now, returning when the receiver
    /// has answered (or the export failed).
    pub fn force_flush(&self) -> Result<(), TelemetryError> {
        self.tracer_provider
            .force_flush()
            .map_err(TelemetryError::new)?;
        self.meter_provider
            .force_flush()
            .map_err(TelemetryError::new)
    }
}

/// Export what `telemetry` holds now, as serving ends: what fails is said on stderr.
pub(crate) fn flush_at_end(telemetry: Option<std::sync::Arc<Telemetry>>) {
    if let Some(telemetry) = telemetry
        && let Err(error) = telemetry.force_flush()
    {
        tracing::warn!(%error, "could not export the last spans and metrics");
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        // Shutting down exports what is pending, through the runtime: it stops only after.
        // Errors have nowhere to go (stdout is the protocol's); the SDK logs them itself.
        let _ = self.tracer_provider.shutdown();
        let _ = self.meter_provider.shutdown();
        drop(self.runtime.take());
    }
}

impl fmt::Debug for Telemetry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Telemetry").finish_non_exhaustive()
    }
}

/// Telemetry could not be set up: an `OTEL_*` variable or the endpoint is invalid, or the
/// exporter's thread could not start.
#[derive(Debug)]
pub struct TelemetryError(Box<dyn std::error::Error + Send + Sync>);

impl TelemetryError {
    fn new(error: impl Into<Box<dyn std::error::Error + Send + Sync>>) -> Self {
        TelemetryError(error.into())
    }
}

impl fmt::Display for TelemetryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OpenTelemetry setup failed: {}", self.0)
    }
}

impl std::error::Error for TelemetryError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

/// What the exporters connect with.
type Connector = hyper_rustls::HttpsConnector<hyper_util::client::legacy::connect::HttpConnector>;

/// A connector for `http://` and `https://` endpoints, verifying servers against the public
/// roots and the CA of `OTEL_EXPORTER_OTLP_CERTIFICATE`, if set.
fn connector() -> Result<Connector, TelemetryError> {
    use rustls_pki_types::CertificateDer;
    use rustls_pki_types::pem::PemObject;

    let mut roots = rustls::RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = std::env::var_os(CERTIFICATE_VAR).filter(|path| !path.is_empty()) {
        let certificates = CertificateDer::pem_file_iter(&path)
            .and_then(|certificates| certificates.collect::<Result<Vec<_>, _>>())
            .map_err(|error| {
                TelemetryError::new(format!(
                    "{CERTIFICATE_VAR}={}: {error}",
                    std::path::Path::new(&path).display()
                ))
            })?;
        if certificates.is_empty() {
            return Err(TelemetryError::new(format!(
                "{CERTIFICATE_VAR}={}: no certificate in it",
                std::path::Path::new(&path).display()
            )));
        }
        for certificate in certificates {
            roots.add(certificate).map_err(TelemetryError::new)?;
        }
    }
    let config = rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .map_err(TelemetryError::new)?
    .with_root_certificates(roots)
    .with_no_client_auth();
    Ok(hyper_rustls::HttpsConnectorBuilder::new()
        .with_tls_config(config)
        .https_or_http()
        .enable_http1()
        .build())
}

/// A current-thread tokio runtime on a thread of its own, which the exporters' HTTP requests
/// run on: the SDK's processors export from their own threads, outside any runtime, and the
/// hyper client needs one.
struct ExportRuntime {
    handle: tokio::runtime::Handle,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ExportRuntime {
    fn start() -> Result<Self, TelemetryError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(TelemetryError::new)?;
        let handle = runtime.handle().clone();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("mcp-otel-export".into())
            .spawn(move || {
                runtime.block_on(async {
                    let _ = stopped.await;
                });
            })
            .map_err(TelemetryError::new)?;
        Ok(ExportRuntime {
            handle,
            stop: Some(stop),
            thread: Some(thread),
        })
    }
}

impl Drop for ExportRuntime {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The hyper client, each request spawned onto the export runtime.
#[derive(Debug, Clone)]
struct OnRuntime {
    client: HyperClient<Connector>,
    runtime: tokio::runtime::Handle,
}

// `HttpClient` is an `async_trait`; this is its method as that macro writes it, rather than
// one more proc-macro dependency.
impl HttpClient for OnRuntime {
    fn send_bytes<'life0, 'async_trait>(
        &'life0 self,
        request: http::Request<Bytes>,
    ) -> Pin<Box<dyn Future<Output = Result<http::Response<Bytes>, HttpError>> + Send + 'async_trait>>
    where
        'life0: 'async_trait,
        Self: 'async_trait,
    {
        let client = self.client.clone();
        let sent = self
            .runtime
            .spawn(async move { client.send_bytes(request).await });
        Box::pin(async move { sent.await? })
    }
}
