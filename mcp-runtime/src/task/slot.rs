//! What a call that may become a task shares with its handler: whether the handler has waited
//! yet (the moment the call becomes a task), and the task once it exists.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};
use std::task::{Context, Poll};

use super::record::TaskRecord;

#[derive(Debug, Default)]
pub(crate) struct TaskSlot {
    waited: AtomicBool,
    /// `Some`: the call is a task; `None`: it could not become one (the store was full).
    decided: OnceLock<Option<Arc<TaskRecord>>>,
}

impl TaskSlot {
    /// Whether the handler has waited on something since it started.
    pub(crate) fn waited(&self) -> bool {
        self.waited.load(Ordering::Relaxed)
    }

    /// The call is now `task`'s.
    pub(crate) fn become_task(&self, task: Arc<TaskRecord>) {
        let _ = self.decided.set(Some(task));
    }

    /// The call stays an ordinary call.
    pub(crate) fn stay_call(&self) {
        let _ = self.decided.set(None);
    }

    /// The task the call became, if it did.
    pub(crate) fn task(&self) -> Option<&Arc<TaskRecord>> {
        self.decided.get().and_then(Option::as_ref)
    }

    fn undecided(&self) -> bool {
        self.decided.get().is_none()
    }
}

/// A handler's future that notes in `slot` when it first waits.
pub(crate) struct NoteWaits<F: ?Sized> {
    handler: Pin<Box<F>>,
    slot: Arc<TaskSlot>,
}

impl<F: ?Sized> NoteWaits<F> {
    pub(crate) fn new(handler: Pin<Box<F>>, slot: Arc<TaskSlot>) -> Self {
        NoteWaits { handler, slot }
    }
}

impl<F: Future + ?Sized> Future for NoteWaits<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let polled = self.handler.as_mut().poll(cx);
        if polled.is_pending() && self.slot.undecided() {
            self.slot.waited.store(true, Ordering::Relaxed);
        }
        polled
    }
}

/// `RequestContext::start_task`: wait once, which makes a call that may become a task one.
pub(crate) async fn start(slot: Option<&TaskSlot>) -> bool {
    let Some(slot) = slot else {
        return false;
    };
    if slot.undecided() {
        let mut yielded = false;
        std::future::poll_fn(|cx| {
            if yielded {
                return Poll::Ready(());
            }
            yielded = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        })
        .await;
    }
    slot.task().is_some()
}
