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
    /// A child token fires with its parent too (see [`CancellationToken::child`]).
    parent: Option<Arc<CancelState>>,
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
            || self
                .parent
                .as_ref()
                .is_some_and(|parent| parent.cancelled.load(Ordering::SeqCst))
    }

    /// Resolves once the token fires (at once if it already has).
    pub async fn cancelled(&self) {
        loop {
            let notified = self.inner.notify.notified();
            tokio::pin!(notified);
            // Register interest before checking the flag, so a cancel in between is not missed.
            notified.as_mut().enable();
            let Some(parent) = &self.parent else {
                if self.is_cancelled() {
                    return;
                }
                notified.await;
                continue;
            };
            let parent_notified = parent.notify.notified();
            tokio::pin!(parent_notified);
            parent_notified.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            tokio::select! {
                () = notified => {}
                () = parent_notified => {}
            }
        }
    }

    /// A token that fires when this one does, and can also be fired alone: a handler's
    /// token under its request's, which a layer that gives up on the handler fires without
    /// cancelling the request.
    pub(crate) fn child(&self) -> Self {
        debug_assert!(self.parent.is_none(), "a child watches one parent");
        CancellationToken {
            inner: Arc::default(),
            parent: Some(self.inner.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_child_fires_with_its_parent_and_alone() {
        let parent = CancellationToken::new();
        let child = parent.child();
        child.cancel();
        assert!(child.is_cancelled());
        assert!(!parent.is_cancelled(), "a child does not cancel its parent");

        let child = parent.child();
        let waiting = tokio::spawn({
            let child = child.clone();
            async move { child.cancelled().await }
        });
        parent.cancel();
        waiting.await.unwrap();
        assert!(child.is_cancelled());
    }
}
