//! Which era a request belongs to, and what a 2026-07-28 request's `_meta` declares.
//!
//! A request is modern exactly when `params._meta` names a protocol version; this is decided
//! before the method is looked at, so even a request named `initialize` is modern when it
//! carries one.

use crate::auth::Principal;
use std::sync::Arc;

use serde_json::{Value, json};

use super::negotiate;
use crate::ask::pending::OutgoingRequests;
use crate::context::Capabilities;
use crate::context::logging::{LogGate, LogLevel};
use crate::context::peer::Outbound;
use crate::context::session::{ClientInfo, SessionShared};
use crate::context::state::States;
use crate::dispatch::session::{LegacySession, Session};
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::ErrorObject;
use crate::protocol::jsonrpc::{
    CLIENT_CAPABILITIES, Declared, LOG_LEVEL, PROTOCOL_VERSION, Params, RequestId, Revision,
};

/// Where a 2026-07-28 request's `_meta` names the client program.
const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";

/// Whether the request is in the 2026-07-28 era.
pub(crate) fn is_modern(params: Option<&Params>) -> bool {
    params
        .and_then(Params::meta)
        .is_some_and(|meta| meta.protocol_version.is_some())
}

/// The request's `_meta.progressToken`, when it is a valid token (a string or an integer).
#[inline(never)]
pub(crate) fn progress_token(params: Option<&Params>) -> Option<Value> {
    params?
        .meta()?
        .progress_token
        .as_ref()
        .filter(|token| token.is_string() || token.is_i64() || token.is_u64())
        .cloned()
}

/// What a request brings to its handler beyond its own params, in either era.
#[derive(Debug, Clone)]
pub(crate) struct RequestScope {
    /// The revision to answer in.
    pub(crate) revision: ProtocolVersion,
    /// The client's capabilities: from `initialize` (legacy) or from this request (modern).
    pub(crate) client_capabilities: Capabilities,
    /// The request's progress token.
    pub(crate) progress_token: Option<Value>,
    /// Which of its log messages reach the client.
    pub(crate) log: LogGate,
    /// Where its progress and log notifications go (the connection's; none without one).
    pub(crate) outbound: Option<Outbound>,
    /// Where a legacy session's questions to the client await their answers (modern
    /// requests ask through their result instead).
    pub(crate) outgoing: Option<OutgoingRequests>,
    /// The request itself (its notifications and questions are about it).
    pub(crate) request: Option<RequestId>,
    /// Whether the handler's `tracing` events reach the client (`Server::forward_tracing`).
    pub(crate) forward_tracing: bool,
    /// The server's shared values.
    pub(crate) states: States,
    /// Who the transport authenticated as the client, if anyone.
    pub(crate) principal: Option<Principal>,
    /// Whether a caller without a principal holds no scope (HTTP), rather than every one
    /// (stdio's operator).
    pub(crate) authenticated: bool,
    /// The client program, as it named itself.
    pub(crate) client: ClientOf,
    /// The connection the request came on, if one outlives it.
    pub(crate) connection: Option<u64>,
    /// The W3C trace context of its `_meta` (else its transport's), for the layers
    /// (`middleware::TraceLayer`).
    #[cfg(feature = "otel")]
    pub(crate) trace_context: Option<crate::middleware::TraceContext>,
    /// The transport's trace context (HTTP headers), when `_meta` had one of its own.
    #[cfg(feature = "otel")]
    pub(crate) transport_trace_context: Option<crate::middleware::TraceContext>,
    /// The connection's transport, as `network.transport` names it.
    #[cfg(feature = "otel")]
    pub(crate) network_transport: Option<&'static str>,
    /// The legacy HTTP session's id.
    #[cfg(feature = "otel")]
    pub(crate) session_id: Option<Arc<str>>,
}

/// Where a request's `clientInfo` is: in its legacy session, or (2026-07-28) in its `_meta`,
/// read only when a layer asks.
#[derive(Debug, Clone, Default)]
pub(crate) enum ClientOf {
    #[default]
    Unknown,
    Session(Arc<SessionShared>),
    Meta(Value),
}

impl ClientOf {
    pub(crate) fn info(&self) -> Option<ClientInfo> {
        match self {
            ClientOf::Unknown => None,
            ClientOf::Session(session) => session.client.clone(),
            ClientOf::Meta(value) => ClientInfo::from_value(value),
        }
    }
}

impl RequestScope {
    /// Check a 2026-07-28 request's `_meta`, taking its capabilities out of `params`.
    ///
    /// The version is checked first, so a client speaking a revision we lack learns the ones
    /// we have (`-32022`) before anything else; then the required capabilities (`-32602`).
    pub(crate) fn take(
        params: &mut Params,
        supported_versions: &[&'static str],
    ) -> Result<Self, ErrorObject> {
        let progress_token = progress_token(Some(params));
        let Some(meta) = params.meta_mut() else {
            return Err(ErrorObject::invalid_params("missing `_meta`"));
        };
        let requested = match meta.protocol_version.as_ref().and_then(Revision::as_str) {
            Some(requested) => requested,
            None => {
                return Err(ErrorObject::invalid_params(format!(
                    "`_meta[\"{PROTOCOL_VERSION}\"]` must be a string"
                )));
            }
        };
        let Some(revision) = negotiate::modern_version(requested) else {
            return Err(ErrorObject::new(
                ErrorObject::UNSUPPORTED_PROTOCOL_VERSION,
                format!("unsupported protocol version {requested:?}"),
            )
            .with_data(json!({
                "supported": supported_versions,
                "requested": requested,
            })));
        };
        let client_capabilities = match meta.client_capabilities.take() {
            Some(Declared::Nothing) => Capabilities::default(),
            Some(Declared::Written(capabilities)) if capabilities.get().starts_with('{') => {
                Capabilities::Text(capabilities, std::sync::OnceLock::new())
            }
            Some(_) => {
                return Err(ErrorObject::invalid_params(format!(
                    "`_meta[\"{CLIENT_CAPABILITIES}\"]` must be an object"
                )));
            }
            None => {
                return Err(ErrorObject::invalid_params(format!(
                    "missing `_meta[\"{CLIENT_CAPABILITIES}\"]`: 2026-07-28 requests declare \
                     the client's capabilities on every request"
                )));
            }
        };
        // Logs only for requests that ask for them, at the level they name.
        let log = match &meta.log_level {
            None => None,
            Some(Value::String(level)) => Some(
                level
                    .parse::<LogLevel>()
                    .map_err(|unknown| ErrorObject::invalid_params(unknown.to_string()))?,
            ),
            Some(_) => {
                return Err(ErrorObject::invalid_params(format!(
                    "`_meta[\"{LOG_LEVEL}\"]` must be a log level name"
                )));
            }
        };
        let client = meta
            .rest
            .as_mut()
            .and_then(|rest| rest.remove(CLIENT_INFO))
            .map_or(ClientOf::Unknown, ClientOf::Meta);
        #[cfg(feature = "otel")]
        let trace_context = crate::middleware::TraceContext::from_meta(meta.rest.as_ref());
        Ok(RequestScope {
            revision,
            client_capabilities,
            progress_token,
            log: LogGate::Request(log),
            outbound: None,
            outgoing: None,
            request: None,
            forward_tracing: false,
            states: States::default(),
            principal: None,
            authenticated: false,
            client,
            connection: None,
            #[cfg(feature = "otel")]
            trace_context,
            #[cfg(feature = "otel")]
            transport_trace_context: None,
            #[cfg(feature = "otel")]
            network_transport: None,
            #[cfg(feature = "otel")]
            session_id: None,
        })
    }

    /// A legacy request's scope: the revision `initialize` settled in `legacy`, and the
    /// capabilities, log level, questions and client the session shares with its requests
    /// (one allocation, `legacy.shared`).
    pub(crate) fn legacy(
        request: &RequestId,
        legacy: &LegacySession,
        params: Option<&Params>,
        session: &Session,
        states: &States,
    ) -> Self {
        #[cfg(feature = "otel")]
        let (trace_context, transport_trace_context) = crate::middleware::TraceContext::choose(
            crate::middleware::TraceContext::from_meta(
                params
                    .and_then(Params::meta)
                    .and_then(|meta| meta.rest.as_ref()),
            ),
            session.header_trace_context(),
        );
        let shared = &legacy.shared;
        RequestScope {
            revision: legacy.version,
            client_capabilities: Capabilities::Session(Arc::clone(shared)),
            progress_token: progress_token(params),
            log: LogGate::Session(shared.clone()),
            outbound: session.outbound().cloned(),
            outgoing: Some(OutgoingRequests::new(shared.clone())),
            request: Some(request.clone()),
            forward_tracing: false,
            states: states.clone(),
            principal: session.principal().cloned(),
            authenticated: session.authenticated(),
            client: ClientOf::Session(Arc::clone(shared)),
            connection: session.connection(),
            #[cfg(feature = "otel")]
            trace_context,
            #[cfg(feature = "otel")]
            transport_trace_context,
            #[cfg(feature = "otel")]
            network_transport: session.network_transport(),
            #[cfg(feature = "otel")]
            session_id: session.session_id().cloned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(value: Value) -> Params {
        match value {
            Value::Object(map) => map.into(),
            _ => unreachable!(),
        }
    }

    const SUPPORTED: [&str; 2] = ["2026-07-28", "2025-11-25"];

    #[test]
    fn the_protocol_version_in_meta_makes_a_request_modern() {
        let modern = params(json!({"_meta": {PROTOCOL_VERSION: "2026-07-28"}}));
        assert!(is_modern(Some(&modern)));
        // Even one the server does not know: the error must then be the modern one.
        let unknown = params(json!({"_meta": {PROTOCOL_VERSION: "2030-01-01"}}));
        assert!(is_modern(Some(&unknown)));
    }

    #[test]
    fn anything_else_is_legacy() {
        assert!(!is_modern(None));
        assert!(!is_modern(Some(&params(
            json!({"protocolVersion": "2026-07-28"})
        ))));
        assert!(!is_modern(Some(&params(
            json!({"_meta": {"progressToken": 1}})
        ))));
        assert!(!is_modern(Some(&params(json!({"_meta": "2026-07-28"})))));
    }

    #[test]
    fn progress_tokens_are_strings_or_integers() {
        let with = |token: Value| params(json!({"_meta": {"progressToken": token}}));
        assert_eq!(progress_token(Some(&with(json!("t")))), Some(json!("t")));
        assert_eq!(progress_token(Some(&with(json!(3)))), Some(json!(3)));
        assert_eq!(progress_token(Some(&with(json!(1.5)))), None);
        assert_eq!(progress_token(None), None);
    }

    #[test]
    fn a_complete_modern_meta_is_accepted() {
        let mut p = params(json!({"_meta": {
            PROTOCOL_VERSION: "2026-07-28",
            CLIENT_CAPABILITIES: {"elicitation": {}},
            "progressToken": "p1"
        }, "name": "add"}));
        let scope = RequestScope::take(&mut p, &SUPPORTED).unwrap();
        assert_eq!(scope.revision, ProtocolVersion::V2026_07_28);
        assert_eq!(*scope.client_capabilities, json!({"elicitation": {}}));
        assert_eq!(scope.progress_token, Some(json!("p1")));
        assert_eq!(p.name, Some(json!("add").into()));
    }

    #[test]
    fn an_unsupported_version_lists_the_supported_ones() {
        for requested in ["2030-01-01", "2025-06-18"] {
            let mut p = params(json!({"_meta": {PROTOCOL_VERSION: requested}}));
            let error = RequestScope::take(&mut p, &SUPPORTED).unwrap_err();
            assert_eq!(error.code, -32022);
            assert_eq!(
                error.data,
                Some(json!({"supported": SUPPORTED, "requested": requested}))
            );
        }
    }

    #[test]
    fn missing_capabilities_are_invalid_params() {
        let mut p = params(json!({"_meta": {PROTOCOL_VERSION: "2026-07-28"}}));
        let error = RequestScope::take(&mut p, &SUPPORTED).unwrap_err();
        assert_eq!(error.code, ErrorObject::INVALID_PARAMS);
        assert!(error.message.contains(CLIENT_CAPABILITIES));

        let mut p =
            params(json!({"_meta": {PROTOCOL_VERSION: "2026-07-28", CLIENT_CAPABILITIES: 1}}));
        let error = RequestScope::take(&mut p, &SUPPORTED).unwrap_err();
        assert_eq!(error.code, ErrorObject::INVALID_PARAMS);
    }

    #[test]
    fn a_non_string_version_is_invalid_params() {
        let mut p = params(json!({"_meta": {PROTOCOL_VERSION: 2026, CLIENT_CAPABILITIES: {}}}));
        let error = RequestScope::take(&mut p, &SUPPORTED).unwrap_err();
        assert_eq!(error.code, ErrorObject::INVALID_PARAMS);
    }
}
