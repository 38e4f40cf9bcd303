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
    /// Who the transport authenticated as the client (see [`RequestContext::principal`]).
    pub(crate) principal: Option<Arc<str>>,
    /// Set when the call may become a task (see [`RequestContext::start_task`]).
    #[cfg(feature = "tasks")]
    pub(crate) task: Option<Arc<crate::task::slot::TaskSlot>>,
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
            principal: None,
            #[cfg(feature = "tasks")]
            task: None,
        }
    }

    /// Who the client was authenticated as: what the HTTP authorization hook named (see
    /// `mcp_runtime::http::Authorized`), or the `mcp_runtime::http::Principal` an enclosing
    /// app's middleware put in the request's extensions. `None` over stdio (whose credentials
    /// come from the environment) and when the hook names nobody.
    ///
    /// Answers a handler asked for over several 2026-07-28 rounds are bound to it: a
    /// `requestState` issued to one principal resumes nothing for another.
    pub fn principal(&self) -> Option<&str> {
        self.principal.as_deref()
    }
}

impl RequestContext {
    /// Let the client hang up while this request keeps running, and collect what it sends from
    /// now on (notifications, questions, the result) when it comes back: for a long call, so
    /// that no connection is held open all along. Nothing is lost and nothing is cancelled;
    /// where the client could not come back for the rest, this does nothing. Returns whether
    /// the connection is being released.
    ///
    /// What each transport does:
    ///
    /// * Streamable HTTP, a 2025-11-25 session whose POST is answered with events: the
    ///   response stream ends after what was sent before this call (at least its priming
    ///   event, whose id the client resumes from); the rest is kept, and a `GET` with that
    ///   `Last-Event-ID` receives it (the result last, which ends that stream). The client
    ///   reconnects after the stream's `retry` interval (SEP-1699 "polling"). Calling it again
    ///   ends the resumed connection in turn.
    /// * Everywhere else (stdio, earlier revisions' sessions, a POST answered with plain JSON,
    ///   2026-07-28 requests, where a closed stream cancels the call): nothing; returns `false`.
    ///
    /// Nothing happens either once the request is answered or cancelled.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// use mcp_runtime::{RequestContext, mcp_tool};
    ///
    /// /// Rebuild the index (takes minutes).
    /// #[mcp_tool]
    /// async fn rebuild(ctx: RequestContext) -> String {
    ///     ctx.release_connection();
    ///     tokio::time::sleep(Duration::from_millis(10)).await; // ... the long work ...
    ///     "rebuilt".to_owned()
    /// }
    /// ```
    pub fn release_connection(&self) -> bool {
        self.peer
            .as_ref()
            .is_some_and(|peer| peer.release_connection())
    }

    /// Make this call a task now, if it may become one, and return whether it runs as one.
    ///
    /// A call may become a task when its tool allows it (`#[mcp_tool(task)]`,
    /// [`TaskSupport`](crate::TaskSupport)) and its request, a 2026-07-28 one, declared the
    /// `io.modelcontextprotocol/tasks` extension. Such a call becomes a task by itself the
    /// first time its handler waits on anything; until then it is an ordinary call, which
    /// may finish at once or ask the client (an `InputRequiredResult`) in place. Call this to
    /// make it a task before asking, so that the questions wait in the task
    /// (`input_required`, answered with `tasks/update`) instead. Elsewhere it does nothing and
    /// returns `false`.
    ///
    /// With the `tasks` feature:
    ///
    #[cfg_attr(feature = "tasks", doc = "```")]
    #[cfg_attr(not(feature = "tasks"), doc = "```ignore")]
    /// use mcp_runtime::{Elicitation, RequestContext, mcp_tool};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Confirm {
    ///     confirm: bool,
    /// }
    ///
    /// /// Delete the archive, once the user confirms (in a task, where the client takes them).
    /// #[mcp_tool(task)]
    /// async fn purge_archive(ctx: RequestContext) -> String {
    ///     ctx.start_task().await;
    ///     match ctx.elicit::<Confirm>("Delete the whole archive?").await {
    ///         Ok(Elicitation::Accepted(Confirm { confirm: true })) => "deleted".into(),
    ///         _ => "kept".into(),
    ///     }
    /// }
    /// ```
    ///
    /// Without mcp-runtime's `tasks` feature no call becomes a task: this returns `false`.
    pub async fn start_task(&self) -> bool {
        #[cfg(feature = "tasks")]
        return crate::task::slot::start(self.task.as_deref()).await;
        #[cfg(not(feature = "tasks"))]
        false
    }

    /// The id of the task this call runs as, once it is one.
    pub fn task_id(&self) -> Option<&str> {
        #[cfg(feature = "tasks")]
        return Some(&self.task.as_deref()?.task()?.id);
        #[cfg(not(feature = "tasks"))]
        None
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
