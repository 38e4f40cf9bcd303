//! Cancellation: the flag a request's handler, its questions, its task and its transport share.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::Notify;

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
