//! The per-request protocol context: an input of every handler, never global session state.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use serde_json::Value;
use tokio::sync::Notify;

use crate::ask::Asker;
use crate::peer::RequestPeer;
use crate::protocol::ProtocolVersion;
use crate::state::States;

/// What one request carries besides its arguments: the revision it is spoken in, the client's
/// capabilities as they apply to it, its progress token and its cancellation.
///
/// For a legacy client these come from the session's `initialize`; for a 2026-07-28 client from
/// the request's own `_meta`. Handlers see the same shape either way.
///
/// It is also the way back to the client while the request runs ([`progress`](Self::progress),
/// [`log`](Self::log)) and to the server's shared values ([`state`](Self::state)).
#[derive(Debug, Clone)]
pub struct RequestContext {
    /// The revision this request is answered in.
    pub revision: ProtocolVersion,
    /// The client's capabilities (a `ClientCapabilities` object; `{}` when none were declared).
    pub client_capabilities: Value,
    /// The `progressToken` the request carried, if any.
    pub progress_token: Option<Value>,
    /// Fires when the client cancels the request (`notifications/cancelled`, or a dropped
    /// 2026-07-28 HTTP connection), or when shutdown stops waiting for the call (stdin EOF and
    /// SIGTERM first let running calls finish, up to `Server::shutdown_timeout`).
    pub cancellation: CancellationToken,
    /// The way back to the client for progress and logs; `None` when the request can send
    /// neither (see [`RequestContext::progress`], [`RequestContext::log`]).
    pub(crate) peer: Option<Arc<RequestPeer>>,
    /// The server's shared values (see [`RequestContext::state`]).
    pub(crate) states: States,
    /// How this request asks the client questions; `None` when it cannot (see
    /// [`RequestContext::elicit`]).
    pub(crate) asker: Option<Asker>,
    /// Whether `tracing` events the handler emits go to the client through `peer`
    /// ([`Server::forward_tracing`](crate::Server::forward_tracing)).
    pub(crate) forward_tracing: bool,
}

impl RequestContext {
    /// The peer that `tracing` events of this request's handler are forwarded through, if the
    /// server forwards them and the request can send logs.
    pub(crate) fn tracing_peer(&self) -> Option<Arc<RequestPeer>> {
        self.peer.clone().filter(|_| self.forward_tracing)
    }

    /// A context for `revision` with no capabilities, no progress token and a fresh token.
    pub fn new(revision: ProtocolVersion) -> Self {
        RequestContext {
            revision,
            client_capabilities: Value::Object(Default::default()),
            progress_token: None,
            cancellation: CancellationToken::new(),
            peer: None,
            states: States::default(),
            asker: None,
            forward_tracing: false,
        }
    }
}

/// A cheap, clonable flag that a request was cancelled, which can also be awaited.
///
/// ```
/// # tokio_test_block_on(async {
/// use mcp_runtime::CancellationToken;
/// let token = CancellationToken::new();
/// let seen = token.clone();
/// token.cancel();
/// seen.cancelled().await;
/// assert!(seen.is_cancelled());
/// # });
/// # fn tokio_test_block_on<F: std::future::Future>(f: F) -> F::Output {
/// #     tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(f)
/// # }
/// ```
#[derive(Debug, Clone, Default)]
pub struct CancellationToken {
    inner: Arc<CancelState>,
}

#[derive(Debug, Default)]
struct CancelState {
    cancelled: AtomicBool,
    notify: Notify,
}

impl CancellationToken {
    /// A token that has not fired.
    pub fn new() -> Self {
        Self::default()
    }

    /// Fire the token; every clone sees it. Idempotent.
    pub fn cancel(&self) {
        if !self.inner.cancelled.swap(true, Ordering::SeqCst) {
            self.inner.notify.notify_waiters();
        }
    }

    /// Whether the token has fired.
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::SeqCst)
    }

    /// Resolves once the token fires (at once if it already has).
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            // Register interest before checking the flag, so a cancel in between is not missed.
            notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            notified.await;
        }
    }
}
