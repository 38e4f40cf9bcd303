//! What every route of one endpoint shares: the dispatcher, the configuration, the sessions of
//! both eras, the memory bodies may take, the shutdown signal.
//!
//! The one import loop left in the runtime starts here: this state holds the HTTP+SSE session
//! table (`sse::SseSessions`), and the HTTP+SSE routes in `sse.rs` are handed this state, as
//! the other routes are. Splitting the table from its routes would put one type in a file of
//! its own for no reader's gain.

use super::body;
use super::config::HttpConfig;
use super::headers;
use super::sessions::Sessions;
use super::sse::SseSessions;
use crate::cancel::CancellationToken;
use crate::dispatch::Dispatcher;

pub(crate) struct Inner {
    pub(crate) dispatcher: Dispatcher,
    pub(crate) config: HttpConfig,
    pub(crate) max_body_size: usize,
    /// What the bodies being read and handled may hold together.
    pub(crate) body_memory: body::BodyMemory,
    pub(crate) sessions: Sessions,
    /// The sessions of the 2024-11-05 HTTP+SSE transport.
    pub(crate) sse_sessions: SseSessions,
    /// The tool arguments 2026-07-28 clients mirror in `Mcp-Param-*` headers.
    pub(crate) param_headers: headers::ParamHeaders,
    /// Fires when the server begins shutting down: streams end.
    pub(crate) shutdown: CancellationToken,
    /// Set when the server serves on its own: the endpoint's path (others are 404), and
    /// whether it listens on loopback only (then `Host` must be a loopback name).
    pub(crate) standalone: Option<(String, bool)>,
}
