//! One connection's protocol state: which era it is in, and the calls it has running.
//!
//! Over stdio one process serves one client, so a session lives as long as the process:
//!
//! ```text
//! Fresh --initialize--> Legacy { version, capabilities, initialized: false }
//!                         --notifications/initialized--> Legacy { .., initialized: true }
//! ```
//!
//! Requests in the 2026-07-28 (modern) era carry their own `_meta` and never move the state:
//! a fresh process may answer `server/discover` and still accept `initialize` afterwards.

use crate::auth::Principal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::Value;

use crate::ask::pending::OutgoingRequests;
use crate::context::logging::LogLevel;
use crate::context::peer::Outbound;
use crate::context::session::{ClientInfo, SessionShared};
use crate::dispatch::{InFlight, Subscriptions};
use crate::protocol::ProtocolVersion;

/// The state of one client connection.
#[derive(Debug)]
pub(crate) struct Session {
    era: Era,
    in_flight: InFlight,
    // Made on first use: a 2026-07-28 HTTP request's session is made and dropped per
    // request, and a `tools/call` needs none.
    subscriptions: OnceLock<Subscriptions>,
    /// Where progress and log notifications of this connection's requests go (set by the
    /// transport; without one, none are sent).
    outbound: Option<Outbound>,
    /// Who the transport authenticated as the client (HTTP's authorization hook); `None` where
    /// nobody was (stdio takes its credentials from the environment).
    principal: Option<Principal>,
    /// Whether the transport authenticates its callers (HTTP does), so that a caller without
    /// a principal holds no scope; stdio and the in-process client trust their operator.
    authenticated: bool,
    /// What per-connection limits count by; `None` for a stateless request's session.
    connection: Option<u64>,
    /// What the transport is, for `network.transport` (`pipe`, `tcp`); `None` in process.
    #[cfg(feature = "otel")]
    network_transport: Option<&'static str>,
    /// A legacy HTTP session's `Mcp-Session-Id`, for `mcp.session.id`.
    #[cfg(feature = "otel")]
    session_id: Option<Arc<str>>,
    /// The W3C trace context of the HTTP request being dispatched (its headers), for requests
    /// whose `_meta` has none; set before each POST is dispatched.
    #[cfg(feature = "otel")]
    header_trace_context: Option<crate::middleware::TraceContext>,
    /// The legacy session's length and count, while it is open (`Server::trace`).
    #[cfg(feature = "otel")]
    session_span: Option<crate::middleware::trace::SessionSpan>,
}

#[derive(Debug, Default)]
enum Era {
    /// No `initialize` yet: only modern requests and `ping` are served.
    #[default]
    Fresh,
    /// A legacy handshake settled the revision.
    Legacy(LegacySession),
}

/// What a legacy `initialize` settled.
#[derive(Debug, Clone)]
pub(crate) struct LegacySession {
    /// The negotiated revision.
    pub(crate) version: ProtocolVersion,
    /// The client's capabilities and name, the log level and the questions asked of the
    /// client, shared with every request of the session.
    pub(crate) shared: Arc<SessionShared>,
    /// Whether `notifications/initialized` arrived.
    pub(crate) initialized: bool,
}

/// A second `initialize` on a connection that already has a legacy session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AlreadyInitialized(pub(crate) ProtocolVersion);

impl Session {
    /// A fresh connection.
    pub(crate) fn new() -> Self {
        static CONNECTIONS: AtomicU64 = AtomicU64::new(1);
        Session {
            connection: Some(CONNECTIONS.fetch_add(1, Ordering::Relaxed)),
            ..Self::with_calls(InFlight::default())
        }
    }

    /// A session whose running calls are `in_flight`, with nothing else set yet. (Not
    /// `Default`: a default `InFlight` allocates its table, which a stateless request's
    /// session would make only to drop.)
    fn with_calls(in_flight: InFlight) -> Self {
        Session {
            era: Era::Fresh,
            in_flight,
            subscriptions: OnceLock::new(),
            outbound: None,
            principal: None,
            authenticated: false,
            connection: None,
            #[cfg(feature = "otel")]
            network_transport: None,
            #[cfg(feature = "otel")]
            session_id: None,
            #[cfg(feature = "otel")]
            header_trace_context: None,
            #[cfg(feature = "otel")]
            session_span: None,
        }
    }

    /// The session of one stateless request (a 2026-07-28 HTTP POST): no connection outlives
    /// it, so none is named.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn for_one_request() -> Self {
        Self::with_calls(InFlight::one_request())
    }

    /// The connection's number, unless it serves one stateless request.
    pub(crate) fn connection(&self) -> Option<u64> {
        self.connection
    }

    /// Say which transport the connection is on, as `network.transport` names it.
    #[cfg(feature = "otel")]
    pub(crate) fn set_network_transport(&mut self, transport: &'static str) {
        self.network_transport = Some(transport);
    }

    #[cfg(feature = "otel")]
    pub(crate) fn network_transport(&self) -> Option<&'static str> {
        self.network_transport
    }

    /// Remember the session's id (a legacy HTTP session's `Mcp-Session-Id`).
    #[cfg(feature = "otel")]
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn set_session_id(&mut self, id: Arc<str>) {
        self.session_id = Some(id);
    }

    #[cfg(feature = "otel")]
    pub(crate) fn session_id(&self) -> Option<&Arc<str>> {
        self.session_id.as_ref()
    }

    /// The trace context of the HTTP request about to be dispatched (`None`: it has none).
    #[cfg(feature = "otel")]
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn set_header_trace_context(
        &mut self,
        context: Option<crate::middleware::TraceContext>,
    ) {
        self.header_trace_context = context;
    }

    /// Count the session open, until it is dropped.
    #[cfg(feature = "otel")]
    pub(crate) fn set_session_span(&mut self, span: crate::middleware::trace::SessionSpan) {
        self.session_span = Some(span);
    }

    #[cfg(feature = "otel")]
    pub(crate) fn header_trace_context(&self) -> Option<&crate::middleware::TraceContext> {
        self.header_trace_context.as_ref()
    }

    /// The client's `clientInfo`, if `initialize` gave one.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn client(&self) -> Option<&ClientInfo> {
        self.legacy()?.shared.client.as_ref()
    }

    /// The legacy session, once `initialize` has settled one.
    pub(crate) fn legacy(&self) -> Option<&LegacySession> {
        match &self.era {
            Era::Fresh => None,
            Era::Legacy(legacy) => Some(legacy),
        }
    }

    /// Settle a legacy session at `version` (the answer to `initialize`), for the client
    /// that declared `client_capabilities` and named itself `client`.
    pub(crate) fn begin_legacy(
        &mut self,
        version: ProtocolVersion,
        client_capabilities: Value,
        client: Option<ClientInfo>,
    ) -> Result<(), AlreadyInitialized> {
        if let Era::Legacy(legacy) = &self.era {
            return Err(AlreadyInitialized(legacy.version));
        }
        self.era = Era::Legacy(LegacySession {
            version,
            shared: SessionShared::new(client_capabilities, client),
            initialized: false,
        });
        Ok(())
    }

    /// Record `notifications/initialized`; `false` if there was no `initialize` to complete.
    pub(crate) fn mark_initialized(&mut self) -> bool {
        match &mut self.era {
            Era::Fresh => false,
            Era::Legacy(legacy) => {
                legacy.initialized = true;
                self.subscriptions().legacy_initialized();
                true
            }
        }
    }

    /// JSON-RPC batches exist only in 2025-03-26, so only a session settled there takes them.
    pub(crate) fn accepts_batches(&self) -> bool {
        self.legacy()
            .is_some_and(|legacy| legacy.version == ProtocolVersion::V2025_03_26)
    }

    /// The calls this connection has running.
    pub(crate) fn in_flight(&self) -> &InFlight {
        &self.in_flight
    }

    /// The session's minimum log level (legacy `logging/setLevel`), if one was set.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        self.legacy()?.shared.log_level()
    }

    /// Set the session's minimum log level (`logging/setLevel`); calls already running see it.
    /// Before `initialize` a session has no level to set, and the request is refused before
    /// it gets here.
    pub(crate) fn set_log_level(&self, level: LogLevel) {
        if let Some(legacy) = self.legacy() {
            legacy.shared.set_log_level(level);
        }
    }

    /// Send this connection's progress and log notifications through `outbound`.
    pub(crate) fn set_outbound(&mut self, outbound: Outbound) {
        self.outbound = Some(outbound);
    }

    /// Where this connection's progress and log notifications go, if anywhere.
    pub(crate) fn outbound(&self) -> Option<&Outbound> {
        self.outbound.as_ref()
    }

    /// The questions awaiting the client's answers; none before `initialize` (only a legacy
    /// session's requests ask questions of their own).
    pub(crate) fn outgoing(&self) -> Option<OutgoingRequests> {
        Some(OutgoingRequests::new(self.legacy()?.shared.clone()))
    }

    /// Serve this connection's requests on behalf of `principal` (nobody: an anonymous caller),
    /// whose scopes are then checked.
    pub(crate) fn set_principal(&mut self, principal: Option<Principal>) {
        self.principal = principal;
        self.authenticated = true;
    }

    /// Whether this connection's callers are authenticated (see [`set_principal`]): a caller
    /// without a principal then holds no scope.
    ///
    /// [`set_principal`]: Self::set_principal
    pub(crate) fn authenticated(&self) -> bool {
        self.authenticated
    }

    /// Who the transport authenticated, if anyone.
    pub(crate) fn principal(&self) -> Option<&Principal> {
        self.principal.as_ref()
    }

    /// What this connection's client subscribed to, and notifications waiting to be sent.
    pub(crate) fn subscriptions(&self) -> &Subscriptions {
        self.subscriptions.get_or_init(Subscriptions::default)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_fresh_session_has_no_legacy_state() {
        let session = Session::new();
        assert!(session.legacy().is_none());
        assert!(!session.accepts_batches());
    }

    #[test]
    fn initialize_then_initialized() {
        let mut session = Session::new();
        session
            .begin_legacy(ProtocolVersion::V2025_06_18, json!({"roots": {}}), None)
            .unwrap();
        let legacy = session.legacy().unwrap();
        assert_eq!(legacy.version, ProtocolVersion::V2025_06_18);
        assert_eq!(legacy.shared.client_capabilities, json!({"roots": {}}));
        assert!(!legacy.initialized);
        assert!(session.mark_initialized());
        assert!(session.legacy().unwrap().initialized);
    }

    #[test]
    fn a_second_initialize_is_refused_and_changes_nothing() {
        let mut session = Session::new();
        session
            .begin_legacy(ProtocolVersion::V2025_03_26, json!({}), None)
            .unwrap();
        assert_eq!(
            session.begin_legacy(ProtocolVersion::V2025_11_25, json!({}), None),
            Err(AlreadyInitialized(ProtocolVersion::V2025_03_26))
        );
        assert_eq!(
            session.legacy().unwrap().version,
            ProtocolVersion::V2025_03_26
        );
    }

    #[test]
    fn initialized_without_initialize_is_ignored() {
        let mut session = Session::new();
        assert!(!session.mark_initialized());
        assert!(session.legacy().is_none());
    }

    #[test]
    fn only_2025_03_26_sessions_accept_batches() {
        for version in ProtocolVersion::LEGACY {
            let mut session = Session::new();
            session.begin_legacy(version, json!({}), None).unwrap();
            assert_eq!(
                session.accepts_batches(),
                version == ProtocolVersion::V2025_03_26,
                "{version}"
            );
        }
    }
}
