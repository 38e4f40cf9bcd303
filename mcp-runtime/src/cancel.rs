//! Cancellation: the flag a request's handler, its questions, its task and its transport share.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Waker};

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

    /// `future`'s output, or `None` if the token fires first (`future` is polled first).
    ///
    /// The same as a biased `select!` of `future` and [`cancelled`](Self::cancelled), but
    /// cheaper on a future polled many times, such as a connection's: each poll of
    /// `cancelled` takes the lock of the token's waiters, while here the token is polled only
    /// when it has fired or when the task's waker is not the one it already holds.
    pub(crate) fn unless_cancelled<F: Future>(
        &self,
        future: F,
    ) -> impl Future<Output = Option<F::Output>> {
        UnlessCancelled {
            future,
            cancelled: self.cancelled(),
            token: self,
            registered: None,
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

pin_project_lite::pin_project! {
    /// The future of [`CancellationToken::unless_cancelled`]. A future of its own rather than
    /// an `async` block, whose future would hold `future` twice (the value captured, and the
    /// one pinned to be polled).
    struct UnlessCancelled<'t, F, C> {
        #[pin]
        future: F,
        // The token's `cancelled`.
        #[pin]
        cancelled: C,
        token: &'t CancellationToken,
        // The waker `cancelled` was last polled with.
        registered: Option<Waker>,
    }
}

impl<F: Future, C: Future<Output = ()>> Future for UnlessCancelled<'_, F, C> {
    type Output = Option<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(output) = this.future.poll(cx) {
            return Poll::Ready(Some(output));
        }
        let holds_waker = this
            .registered
            .as_ref()
            .is_some_and(|waker| waker.will_wake(cx.waker()));
        if holds_waker && !this.token.is_cancelled() {
            return Poll::Pending;
        }
        if this.cancelled.poll(cx).is_ready() {
            return Poll::Ready(None);
        }
        *this.registered = Some(cx.waker().clone());
        Poll::Pending
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

    #[tokio::test]
    async fn unless_cancelled_gives_the_output_or_none_once_fired() {
        let token = CancellationToken::new();
        assert_eq!(token.unless_cancelled(async { 7 }).await, Some(7));

        // Fired while the future waits: woken, and `None` although the waker was kept.
        let (sender, receiver) = tokio::sync::oneshot::channel::<()>();
        let waiting = tokio::spawn({
            let token = token.clone();
            async move { token.unless_cancelled(receiver).await }
        });
        tokio::task::yield_now().await;
        token.cancel();
        assert!(waiting.await.unwrap().is_none());
        drop(sender);

        // Polled many times by a task whose waker stays the same, then fired from elsewhere.
        let child_parent = CancellationToken::new();
        let child = child_parent.child();
        let (ticks, mut tick) = tokio::sync::mpsc::unbounded_channel::<()>();
        let waiting = tokio::spawn(async move {
            child
                .unless_cancelled(async move { while tick.recv().await.is_some() {} })
                .await
        });
        for _ in 0..100 {
            ticks.send(()).unwrap();
            tokio::task::yield_now().await;
        }
        child_parent.cancel();
        // A wake-up the combinator slept through would hang here: bounded, so it fails.
        let ended = tokio::time::timeout(std::time::Duration::from_secs(60), waiting).await;
        assert!(ended.expect("woken by the cancel").unwrap().is_none());

        // Already fired: the future still goes first.
        let fired = CancellationToken::new();
        fired.cancel();
        assert_eq!(fired.unless_cancelled(async { 1 }).await, Some(1));
        assert_eq!(
            fired.unless_cancelled(std::future::pending::<()>()).await,
            None
        );
    }
}
