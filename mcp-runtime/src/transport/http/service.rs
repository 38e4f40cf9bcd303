//! The MCP endpoint as a service: from an HTTP request to its response.
//!
//! Every request passes the same gates first, in this order: the OAuth metadata document
//! (served to anyone), `Host`, `Origin` (403), the authorization hook (401/403). Then the
//! 2024-11-05 HTTP+SSE transport's two paths (GET on the SSE path, POST on the messages path)
//! go to [`super::sse`]; on the endpoint itself, by method: POST carries JSON-RPC (either
//! era), GET opens a legacy session's event stream, DELETE ends a legacy session.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use http::{HeaderValue, Method, Request, Response, StatusCode, header, request::Parts};

use super::body::{self, ReadError, ResponseBody};
use super::config::{HttpConfig, WELL_KNOWN};
use super::endpoint::Inner;
use super::headers;
use super::modern::Settled;
use super::response::{
    JSON_TYPE, closing, forbidden, missing_session, not_allowed, plain, request_id, respond,
    rpc_error, too_large,
};
use super::sessions::{SessionIds, Sessions};
use super::sse::SseSessions;
use crate::cancel::CancellationToken;
use crate::dispatch::Dispatcher;
use crate::handler::BoxFuture;
use crate::protocol::jsonrpc::{ErrorObject, Incoming, Message, Params};
use crate::protocol::{ProtocolVersion, jsonrpc::InvalidMessage};

/// The MCP endpoint of one [`Server`](crate::Server), as a service: a
/// [`hyper::service::Service`] and a [`tower_service::Service`] (so it mounts into axum with
/// `Router::route_service("/mcp", service)`, or any tower stack), or call
/// [`handle`](Self::handle) yourself. Cheap to clone; clones share sessions.
///
/// Make one with [`Server::http_service`](crate::Server::http_service). It answers whatever
/// path it is given (the app routes) as the MCP endpoint, except the 2024-11-05 HTTP+SSE
/// transport's two paths ([`HttpConfig::legacy_sse`], `/sse` and `/messages` by default),
/// which it serves as that transport; requests for
/// `/.well-known/oauth-protected-resource...` get the metadata document when configured.
#[derive(Clone)]
pub struct HttpService {
    inner: Arc<Inner>,
    /// The address of the connection this copy serves, when serving on its own.
    address: Option<std::net::IpAddr>,
}

impl std::fmt::Debug for HttpService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HttpService")
            .field("server", &self.inner.dispatcher.info().name)
            .finish_non_exhaustive()
    }
}

impl HttpService {
    pub(crate) fn new(
        dispatcher: Dispatcher,
        config: HttpConfig,
        max_body_size: usize,
        param_headers: headers::ParamHeaders,
        session_store: Option<Arc<dyn crate::store::SessionStore>>,
    ) -> Self {
        let sessions = Sessions::new(
            config.session_idle_timeout,
            config.max_sessions,
            config.max_sessions_per_client,
        )
        .named(SessionIds::for_instance(config.instance_id.as_deref()))
        .shared(session_store);
        let sse_sessions = SseSessions::new(config.max_sessions, config.max_sessions_per_client);
        let body_size = config
            .max_body_size
            .unwrap_or(max_body_size.min(HttpConfig::DEFAULT_MAX_BODY_SIZE));
        HttpService {
            address: None,
            inner: Arc::new(Inner {
                dispatcher,
                max_body_size: body_size,
                body_memory: body::BodyMemory::new(config.max_body_memory, body_size),
                config,
                sessions,
                sse_sessions,
                param_headers,
                shutdown: CancellationToken::new(),
                standalone: None,
            }),
        }
    }

    /// This service answering only `path`, checking `Host` when bound to loopback.
    pub(crate) fn standalone(self, loopback: bool) -> Self {
        let mut inner = Arc::try_unwrap(self.inner)
            .unwrap_or_else(|_| unreachable!("a new service is not shared yet"));
        inner.standalone = Some((inner.config.path.clone(), loopback));
        HttpService {
            inner: Arc::new(inner),
            address: None,
        }
    }

    /// This service for the requests of a connection from `address`.
    pub(crate) fn for_address(mut self, address: std::net::IpAddr) -> Self {
        self.address = Some(address);
        self
    }

    /// How many connections a standalone server serves at once, and from one address.
    pub(crate) fn max_connections(&self) -> (usize, usize) {
        let config = &self.inner.config;
        (config.max_connections, config.max_connections_per_address)
    }

    /// How long a connection may be silent before its request's headers are complete.
    pub(crate) fn idle_timeout(&self) -> std::time::Duration {
        self.inner.config.idle_timeout
    }

    /// The HTTP+SSE transport's paths (event stream, messages), when served.
    pub(crate) fn legacy_sse_paths(&self) -> Option<(&str, &str)> {
        self.inner
            .config
            .legacy_sse
            .as_ref()
            .map(|(sse, messages)| (sse.as_str(), messages.as_str()))
    }

    /// The served server's name, for logs.
    pub(crate) fn server_name(&self) -> &str {
        &self.inner.dispatcher.info().name
    }

    /// What exports the server's spans, to flush when serving ends.
    #[cfg(feature = "otel")]
    pub(crate) fn telemetry(&self) -> Option<std::sync::Arc<crate::telemetry::Telemetry>> {
        self.inner.dispatcher.telemetry()
    }

    /// Begin shutting down: listen streams end with their result, sessions close.
    pub(crate) fn begin_shutdown(&self) {
        self.inner.shutdown.cancel();
        self.inner.sessions.close_all();
    }

    /// Answer one request.
    pub fn handle<B>(
        &self,
        request: Request<B>,
    ) -> impl Future<Output = Response<ResponseBody>> + use<B>
    where
        B: http_body::Body,
        B::Error: std::fmt::Display,
    {
        let (parts, body) = request.into_parts();
        self.clone().serve(parts, body)
    }

    /// [`handle`](Self::handle), from the request's parts. The service and the parts are moved
    /// in, not borrowed or wrapped: each layer of futures would hold a copy of them. An `async`
    /// block rather than an `async fn`: the block uses what it captured in place, where an
    /// `async fn`'s future keeps its arguments twice (rust-lang/rust#62958), which here would
    /// be some 280 bytes of every request's future.
    #[allow(clippy::manual_async_fn)]
    fn serve<B>(self, mut parts: Parts, body: B) -> impl Future<Output = Response<ResponseBody>>
    where
        B: http_body::Body,
        B::Error: std::fmt::Display,
    {
        async move {
            let inner = &self.inner;
            let path = parts.uri.path();
            if let Some(resource) = &inner.config.resource
                && parts.method == Method::GET
                && (path == WELL_KNOWN
                    || path == format!("{WELL_KNOWN}{}", resource.resource_path()))
            {
                let document = resource.document(&inner.dispatcher.declared_scopes());
                return respond(StatusCode::OK, Some(JSON_TYPE), document);
            }
            let sse_route = inner
                .config
                .legacy_sse
                .as_ref()
                .and_then(|(sse, messages)| {
                    let endpoint = inner.standalone.as_ref().map(|(endpoint, _)| endpoint);
                    if endpoint.is_some_and(|endpoint| endpoint == path) {
                        None
                    } else if path == sse {
                        Some(SseRoute::Stream(messages))
                    } else if path == messages {
                        Some(SseRoute::Messages)
                    } else {
                        None
                    }
                });
            let known = headers::Known::read(&parts.headers);
            if let Some((endpoint, loopback)) = &inner.standalone {
                if path != endpoint && sse_route.is_none() {
                    return plain(
                        StatusCode::NOT_FOUND,
                        "not found: the MCP endpoint is elsewhere",
                    );
                }
                if !headers::host_allowed(&inner.config, &known, *loopback) {
                    tracing::warn!("refused a request for another host (DNS rebinding?)");
                    return rpc_error(StatusCode::FORBIDDEN, None, forbidden("Host"));
                }
            } else if inner.config.allowed_hosts.is_some()
                && !headers::host_allowed(&inner.config, &known, false)
            {
                return rpc_error(StatusCode::FORBIDDEN, None, forbidden("Host"));
            }
            if !headers::origin_allowed(&inner.config, &known) {
                tracing::warn!("refused a request from a foreign origin");
                return rpc_error(StatusCode::FORBIDDEN, None, forbidden("Origin"));
            }
            // Boxed: a server without authorization keeps its state out of every request's future.
            if inner.config.authorizer.is_some()
                && let Some(refused) =
                    Box::pin(self.authorize(&known, &parts.method, path, &mut parts.extensions))
                        .await
            {
                return refused;
            }
            let response = match (sse_route, &parts.method) {
                (Some(SseRoute::Stream(messages)), &Method::GET) => {
                    super::sse::open(inner, &parts, messages, self.address)
                }
                (Some(SseRoute::Stream(_)), _) => not_allowed("GET"),
                // Boxed, as is everything off the Streamable HTTP POST: its state stays out of
                // the future of every request that does not take it.
                (Some(SseRoute::Messages), &Method::POST) => {
                    Box::pin(async {
                        match read_json_body(inner, &known, body, self.address).await {
                            Ok(bytes) => super::sse::post(inner, &parts, &bytes).await,
                            Err(refused) => refused,
                        }
                    })
                    .await
                }
                (Some(SseRoute::Messages), _) => not_allowed("POST"),
                (None, &Method::POST) => self.post(&parts, &known, body).await,
                (None, &Method::GET) => Box::pin(self.get(&parts, &known)).await,
                (None, &Method::DELETE) => Box::pin(self.delete(&parts, &known)).await,
                (None, _) => not_allowed("GET, POST, DELETE"),
            };
            if tracing::level_enabled!(tracing::Level::DEBUG) {
                note_request(&parts.method, response.status());
            }
            #[cfg(feature = "otel")]
            let response = self.counted(response);
            in_request_map(response, &mut parts.headers)
        }
    }

    /// An event stream counted among the server's open streams while it lasts.
    #[cfg(feature = "otel")]
    fn counted(&self, mut response: Response<ResponseBody>) -> Response<ResponseBody> {
        if let Some(lifecycle) = self.inner.dispatcher.lifecycle()
            && response.body().is_stream()
        {
            response.body_mut().count(lifecycle.stream());
        }
        response
    }

    /// `None` when the request may be served (then named for its principal, if the hook gave
    /// one); the refusal otherwise.
    async fn authorize(
        &self,
        known: &headers::Known<'_>,
        method: &Method,
        path: &str,
        extensions: &mut http::Extensions,
    ) -> Option<Response<ResponseBody>> {
        let authorizer = self.inner.config.authorizer.as_ref()?;
        let request = super::config::AuthRequest {
            bearer_token: headers::bearer_token(known),
            method,
            path,
            headers: known.all(),
        };
        let resource = self.inner.config.resource.as_ref();
        let rejection = match authorizer
            .check(request, resource.map(|resource| resource.resource()))
            .await
        {
            Ok(authorized) => {
                if let Some(principal) = authorized.principal {
                    extensions.insert(principal);
                }
                return None;
            }
            Err(rejection) => rejection,
        };
        if !rejection.challenge {
            tracing::info!(
                status = rejection.status.as_u16(),
                "could not authorize a request"
            );
            let message = rejection.description.unwrap_or_default();
            let mut response =
                rpc_error(rejection.status, None, ErrorObject::internal_error(message));
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("5"));
            return Some(response);
        }
        let challenge = super::challenge::bearer(
            resource,
            rejection.error,
            rejection.description.as_deref(),
            rejection.scope.as_deref(),
        );
        tracing::info!(
            status = rejection.status.as_u16(),
            "authorization refused a request"
        );
        let message = rejection
            .description
            .clone()
            .unwrap_or_else(|| "authorization required".to_owned());
        let mut response = rpc_error(
            rejection.status,
            None,
            ErrorObject::invalid_request(message),
        );
        if let Some(challenge) = challenge {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, challenge);
        }
        Some(response)
    }

    /// A POST to the endpoint. A block, not an `async fn`: an `async fn`'s future keeps its
    /// arguments twice, and this one is copied into every POST's future.
    #[allow(clippy::manual_async_fn)]
    fn post<'a, B>(
        &'a self,
        parts: &'a Parts,
        known: &'a headers::Known<'_>,
        body: B,
    ) -> impl Future<Output = Response<ResponseBody>> + 'a
    where
        B: http_body::Body + 'a,
        B::Error: std::fmt::Display,
    {
        async move {
            let inner = &self.inner;
            if let Some(refused) = not_json(known) {
                return refused;
            }
            if !headers::accepts(known, "application/json")
                && !headers::accepts(known, "text/event-stream")
            {
                return rpc_error(
                    StatusCode::NOT_ACCEPTABLE,
                    None,
                    ErrorObject::invalid_request(
                        "the client must accept `application/json` and `text/event-stream`",
                    ),
                );
            }
            // Declared JSON: checked above. Only a body that must be waited for is read in a
            // box: the state of that wait takes no room in the future that waits for the call,
            // which then stays small enough for the allocator's per-thread cache (a larger one
            // costs every request some hundreds of instructions more to allocate and free).
            // In a block: the body's memory is free before the call runs.
            let mut posted = {
                let body = std::pin::pin!(body);
                let bytes = match read_body(inner, known, body, self.address).await {
                    Ok(bytes) => bytes,
                    Err(error) => return refused_body(inner, error),
                };
                route_post(inner, parts, known, &bytes)
            };
            match posted {
                Posted::Answered(response) => response,
                // By reference: the running call is awaited where it lies, not moved into a
                // second place in this future.
                Posted::Modern(ref mut waiting) => match waiting.await {
                    Settled::Answered(answer) => {
                        super::modern::Waiting::respond(inner, parts, answer)
                    }
                    Settled::Notified(early, answer) => {
                        let Posted::Modern(waiting) = posted else {
                            unreachable!("matched above")
                        };
                        waiting.events(early, answer)
                    }
                },
                // Boxed: what a legacy POST may wait for (its session's store, a call that runs
                // on) stays out of the future of every other POST, which stays small enough for
                // the allocator's per-thread cache.
                Posted::Legacy(later) => {
                    Box::pin(later.finish(inner, parts, known, self.address)).await
                }
            }
        }
    }

    async fn get(&self, parts: &Parts, known: &headers::Known<'_>) -> Response<ResponseBody> {
        match self.legacy_session(parts, known) {
            Err(response) => response,
            Ok(id) => super::legacy::stream(&self.inner, parts, id, self.address).await,
        }
    }

    async fn delete(&self, parts: &Parts, known: &headers::Known<'_>) -> Response<ResponseBody> {
        match self.legacy_session(parts, known) {
            Err(response) => response,
            Ok(id) => super::legacy::end(&self.inner, parts, id, self.address).await,
        }
    }

    /// GET and DELETE belong to legacy sessions only: 2026-07-28 clients (and clients without
    /// a session) get 405.
    #[allow(clippy::result_large_err)]
    fn legacy_session<'p>(
        &self,
        parts: &Parts,
        known: &headers::Known<'p>,
    ) -> Result<&'p str, Response<ResponseBody>> {
        let version = known.protocol_version().ok().flatten();
        let modern = version
            .and_then(|version| version.parse::<ProtocolVersion>().ok())
            .is_some_and(ProtocolVersion::is_modern);
        match known.session_id() {
            Ok(Some(id)) if !modern => Ok(id),
            Ok(None) if version.is_some() && !modern && parts.method == Method::DELETE => {
                Err(missing_session(None))
            }
            _ => Err(not_allowed("POST")),
        }
    }
}

/// A POST's body, decoded and sent on its way.
// Not boxed: one per POST, in its future, where a box would cost an allocation per call.
#[allow(clippy::large_enum_variant)]
enum Posted<'h> {
    /// Answered at once.
    Answered(Response<ResponseBody>),
    /// A 2026-07-28 call, running.
    Modern(super::modern::Waiting),
    /// For a legacy session, waiting on something (see [`super::legacy::post`]).
    Legacy(super::legacy::Later<'h>),
}

/// `response`, its headers moved into the request's map (`request`, emptied) when that map is
/// the larger. hyper keeps a response's map to parse its connection's next request into. A
/// response's own map has room for six headers; a 2026-07-28 request brings seven, so that
/// map grew on every request, by an allocation too large for the allocator's per-thread
/// cache, which also had the allocator consolidate its free lists first.
fn in_request_map(
    mut response: Response<ResponseBody>,
    request: &mut http::HeaderMap,
) -> Response<ResponseBody> {
    if request.capacity() <= response.headers().capacity() {
        return response;
    }
    let mut headers = std::mem::take(request);
    headers.clear();
    let mut last = None;
    for (name, value) in response.headers_mut().drain() {
        // A name comes with the first of its values only.
        if let Some(name) = name {
            last = Some(name);
        }
        if let Some(name) = &last {
            headers.append(name.clone(), value);
        }
    }
    *response.headers_mut() = headers;
    response
}

/// Out of line: the event's code stays out of the path of every request, which only checks
/// the level.
#[cold]
#[inline(never)]
fn note_request(method: &Method, status: StatusCode) {
    tracing::debug!(%method, status = status.as_u16(), "HTTP request");
}

/// Decode a POST's body and serve what it asks for, as far as it goes without waiting:
/// 2026-07-28 requests on their own, the others in their legacy session.
fn route_post<'h>(
    inner: &Arc<Inner>,
    parts: &Parts,
    known: &headers::Known<'h>,
    bytes: &[u8],
) -> Posted<'h> {
    let incoming = match inner.dispatcher.decode(bytes) {
        Ok(incoming) => incoming,
        Err(InvalidMessage { id, error, .. }) => {
            return Posted::Answered(rpc_error(StatusCode::BAD_REQUEST, id.as_ref(), *error));
        }
    };
    let header_version = match known.protocol_version() {
        Ok(version) => version,
        Err(()) => {
            return Posted::Answered(rpc_error(
                StatusCode::BAD_REQUEST,
                None,
                ErrorObject::invalid_request("the `MCP-Protocol-Version` header is malformed"),
            ));
        }
    };
    if is_modern(&incoming) {
        return match super::modern::post(inner, parts, known, incoming) {
            Ok(response) => Posted::Answered(response),
            Err(waiting) => Posted::Modern(waiting),
        };
    }
    if let Some(version) = header_version
        && version
            .parse::<ProtocolVersion>()
            .is_ok_and(ProtocolVersion::is_modern)
    {
        // The header speaks 2026-07-28 but the body does not say which revision it is.
        return Posted::Answered(rpc_error(
            StatusCode::BAD_REQUEST,
            request_id(&incoming),
            ErrorObject::invalid_params(
                "missing `_meta[\"io.modelcontextprotocol/protocolVersion\"]`: 2026-07-28 \
                 requests carry their revision and capabilities in `params._meta`",
            ),
        ));
    }
    match super::legacy::post(inner, parts, known, header_version, incoming) {
        Ok(response) => Posted::Answered(response),
        Err(later) => Posted::Legacy(later),
    }
}

/// 415 unless the body is declared JSON.
fn not_json(known: &headers::Known<'_>) -> Option<Response<ResponseBody>> {
    (!headers::is_json(known)).then(|| {
        rpc_error(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            ErrorObject::invalid_request(
                "the body must be JSON (`Content-Type: application/json`)",
            ),
        )
    })
}

/// The body of a POST from `address`: declared JSON (else 415), within the size limit (else
/// 413).
#[allow(clippy::result_large_err)]
async fn read_json_body<B>(
    inner: &Inner,
    known: &headers::Known<'_>,
    body: B,
    address: Option<std::net::IpAddr>,
) -> Result<body::RequestBody, Response<ResponseBody>>
where
    B: http_body::Body,
    B::Error: std::fmt::Display,
{
    if let Some(refused) = not_json(known) {
        return Err(refused);
    }
    read_body(inner, known, std::pin::pin!(body), address)
        .await
        .map_err(|error| refused_body(inner, error))
}

/// Reading the body of a POST from `address`, pinned where its caller keeps it, within the
/// size limit ([`refused_body`] answers what it refuses). A plain function: the read is the
/// one future its caller awaits, with no layer of its own around it in every POST's future.
fn read_body<'a, B>(
    inner: &'a Inner,
    known: &headers::Known<'_>,
    body: Pin<&'a mut B>,
    address: Option<std::net::IpAddr>,
) -> impl Future<Output = Result<body::RequestBody, ReadError>> + 'a
where
    B: http_body::Body + 'a,
    B::Error: std::fmt::Display,
{
    let limits = body::BodyLimits {
        limit: inner.max_body_size,
        memory: &inner.body_memory,
        address,
    };
    limits.read_pinned(body, known.content_length(), inner.config.body_read_timeout)
}

/// The answer to a body that could not be read.
#[cold]
fn refused_body(inner: &Inner, error: ReadError) -> Response<ResponseBody> {
    match error {
        ReadError::TooLarge => too_large(inner.max_body_size),
        ReadError::NoMemory => {
            tracing::warn!("request bodies in flight hold all their memory; refused one");
            let mut refused = rpc_error(
                StatusCode::SERVICE_UNAVAILABLE,
                None,
                ErrorObject::internal_error(
                    "the server is reading too many request bodies at once; try again shortly",
                ),
            );
            refused
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            closing(refused)
        }
        ReadError::Failed(error) => {
            tracing::debug!(%error, "the request body could not be read");
            plain(
                StatusCode::BAD_REQUEST,
                "the request body could not be read",
            )
        }
        ReadError::TimedOut => {
            tracing::info!(
                timeout = ?inner.config.body_read_timeout,
                "a request body did not arrive in time; closing its connection"
            );
            closing(rpc_error(
                StatusCode::REQUEST_TIMEOUT,
                None,
                ErrorObject::invalid_request(format!(
                    "the request body did not arrive within {} s",
                    inner.config.body_read_timeout.as_secs_f64()
                )),
            ))
        }
    }
}

pin_project_lite::pin_project! {
    /// A response future as a service's, which never fails. A combinator, not an `async`
    /// block: a block would hold the served future's inputs a second time.
    struct Infallibly<F> {
        #[pin]
        response: F,
    }
}

impl<F: Future> Future for Infallibly<F> {
    type Output = Result<F::Output, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        self.project().response.poll(cx).map(Ok)
    }
}

/// A request for one of the HTTP+SSE transport's paths.
enum SseRoute<'c> {
    /// The event stream; messages go to this path.
    Stream(&'c str),
    /// A message for a session.
    Messages,
}

/// Whether the body is one 2026-07-28 message: its `_meta` names a protocol version.
fn is_modern(incoming: &Incoming) -> bool {
    let params = match incoming {
        Incoming::Single(Message::Request(request)) => request.params.as_deref(),
        Incoming::Single(Message::Notification(notification)) => notification.params.as_deref(),
        _ => None,
    };
    meta_has_version(params)
}

fn meta_has_version(params: Option<&Params>) -> bool {
    params
        .and_then(Params::meta)
        .is_some_and(|meta| meta.protocol_version.is_some())
}

impl<B> hyper::service::Service<Request<B>> for HttpService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: std::fmt::Display,
{
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = BoxFuture<'static, Result<Response<ResponseBody>, Infallible>>;

    fn call(&self, request: Request<B>) -> Self::Future {
        let (parts, body) = request.into_parts();
        Box::pin(Infallibly {
            response: self.clone().serve(parts, body),
        })
    }
}

impl<B> tower_service::Service<Request<B>> for HttpService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: std::fmt::Display,
{
    type Response = Response<ResponseBody>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<ResponseBody>, Infallible>> + Send>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        hyper::service::Service::call(&*self, request)
    }
}

#[cfg(test)]
mod tests {
    use http_body::Body as _;
    use serde_json::{Value, json};

    use super::*;

    use crate::server::{Server, ServerInfo};

    async fn body_json(response: Response<ResponseBody>) -> Value {
        let bytes = body::read_limited(
            response.into_body(),
            1 << 20,
            None,
            &body::BodyMemory::new(1 << 20, 1 << 20),
            None,
        )
        .await
        .unwrap_or_else(|_| unreachable!());
        serde_json::from_slice(&bytes).unwrap()
    }

    fn post(path: &str, message: &Value) -> Request<ResponseBody> {
        Request::builder()
            .method(Method::POST)
            .uri(path)
            .header(header::CONTENT_TYPE, "application/json")
            .header("mcp-protocol-version", "2026-07-28")
            .header("mcp-method", "server/discover")
            .body(ResponseBody::whole(serde_json::to_vec(message).unwrap()))
            .unwrap()
    }

    #[tokio::test]
    async fn sessions_are_named_for_their_instance_and_bad_names_refused() {
        let service = Server::new(ServerInfo::new("s", "1"))
            .http_service(HttpConfig::new().instance_id("east-2"))
            .unwrap();
        let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "c", "version": "1"}}});
        let request = Request::builder()
            .method(Method::POST)
            .uri("/mcp")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .body(ResponseBody::whole(
                serde_json::to_vec(&initialize).unwrap(),
            ))
            .unwrap();
        let response = service.handle(request).await;
        assert_eq!(response.status(), StatusCode::OK);
        let id = response.headers()["mcp-session-id"].to_str().unwrap();
        let (instance, random) = id.split_once('.').unwrap();
        assert_eq!((instance, random.len()), ("east-2", 64));

        for bad in ["", "a.b", "has space", &"x".repeat(33)] {
            let refused = Server::new(ServerInfo::new("s", "1"))
                .http_service(HttpConfig::new().instance_id(bad))
                .unwrap_err();
            assert_eq!(refused.kind(), std::io::ErrorKind::InvalidInput, "{bad:?}");
        }
    }

    #[tokio::test]
    async fn a_mounted_service_answers_any_path_it_is_routed_through_tower() {
        let config = HttpConfig::new().protected_resource(crate::http::ProtectedResource::new(
            "https://a.example/api/mcp",
        ));
        let mut service = Server::new(ServerInfo::new("s", "1"))
            .http_service(config)
            .unwrap();
        let discover = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
            "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {}}}});
        let response = tower_service::Service::call(&mut service, post("/api/mcp", &discover))
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert!(response.body().size_hint().exact().is_some());
        assert_eq!(body_json(response).await["id"], 1);

        let metadata = Request::builder()
            .uri("/.well-known/oauth-protected-resource/api/mcp")
            .body(ResponseBody::whole(Vec::new()))
            .unwrap();
        let response = service.handle(metadata).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            body_json(response).await["resource"],
            "https://a.example/api/mcp"
        );
    }

    #[test]
    fn a_response_takes_the_larger_map_of_its_request_for_hyper_to_parse_the_next_into() {
        let mut request = http::HeaderMap::new();
        for (name, value) in [
            ("host", "localhost"),
            ("content-type", "application/json"),
            ("accept", "application/json, text/event-stream"),
            ("mcp-protocol-version", "2026-07-28"),
            ("mcp-method", "tools/call"),
            ("mcp-name", "echo"),
            ("content-length", "99"),
        ] {
            request.insert(name, HeaderValue::from_static(value));
        }
        let room = request.capacity();
        let mut response = respond(StatusCode::OK, Some(JSON_TYPE), b"{}".to_vec());
        response
            .headers_mut()
            .append(header::VARY, HeaderValue::from_static("origin"));
        response
            .headers_mut()
            .append(header::VARY, HeaderValue::from_static("accept"));
        assert!(response.headers().capacity() < room);
        let response = in_request_map(response, &mut request);
        let headers = response.headers();
        assert_eq!(headers.capacity(), room, "the request's map, kept whole");
        assert_eq!(headers.len(), 3, "only the response's headers: {headers:?}");
        assert_eq!(headers[header::CONTENT_TYPE], JSON_TYPE);
        let vary: Vec<_> = headers.get_all(header::VARY).iter().collect();
        assert_eq!(vary, ["origin", "accept"], "every value, in order");
        assert!(request.is_empty());

        // A request with room for fewer headers keeps its map; the response keeps its own.
        let mut small = http::HeaderMap::new();
        small.insert(header::HOST, HeaderValue::from_static("localhost"));
        let mut wide = http::HeaderMap::with_capacity(32);
        wide.insert(header::CONTENT_TYPE, JSON_TYPE);
        let mut response = respond(StatusCode::OK, None, Vec::new());
        *response.headers_mut() = wide;
        let response = in_request_map(response, &mut small);
        assert!(response.headers().capacity() >= 32);
        assert_eq!(small.len(), 1);
    }
}
