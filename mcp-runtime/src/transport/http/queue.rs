//! A queue from any number of senders to one receiver, unbounded and light: what a request
//! running over HTTP sends its client while it runs (a legacy POST's routed messages, a
//! 2026-07-28 call's progress) travels on one.
//!
//! Nearly every such queue carries nothing: so it is one small allocation, not a tokio channel
//! (two allocations, one of them aligned, which glibc serves off its fast per-thread cache,
//! and a block of 32 slots made before anything is sent).

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// A queue from any number of senders to one receiver, unbounded: the senders are one
/// request's handler (or a session's calls), which send a few messages each.
pub(crate) fn channel<T>() -> (Sender<T>, Receiver<T>) {
    let queue = Arc::new(Queue {
        state: Mutex::new(State {
            items: VecDeque::new(),
            waker: None,
            senders: 1,
            receiving: true,
        }),
    });
    (Sender(Arc::clone(&queue)), Receiver(queue))
}

struct Queue<T> {
    state: Mutex<State<T>>,
}

struct State<T> {
    items: VecDeque<T>,
    /// The receiver, waiting.
    waker: Option<Waker>,
    senders: usize,
    receiving: bool,
}

impl<T> Queue<T> {
    fn state(&self) -> MutexGuard<'_, State<T>> {
        // Every critical section leaves the state consistent, even one cut short by a panic.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The sending side; clones send into the same queue.
pub(crate) struct Sender<T>(Arc<Queue<T>>);

impl<T> Sender<T> {
    /// Queue `item`; given back when the receiver is gone (the request was answered).
    pub(crate) fn send(&self, item: T) -> Result<(), T> {
        let waker = {
            let mut state = self.0.state();
            if !state.receiving {
                return Err(item);
            }
            state.items.push_back(item);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }
}

impl<T> Clone for Sender<T> {
    fn clone(&self) -> Self {
        self.0.state().senders += 1;
        Sender(Arc::clone(&self.0))
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        let waker = {
            let mut state = self.0.state();
            state.senders -= 1;
            if state.senders == 0 {
                state.waker.take()
            } else {
                None
            }
        };
        // The last sender gone: a waiting receiver learns there is nothing more.
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl<T> std::fmt::Debug for Sender<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender").finish_non_exhaustive()
    }
}

/// The receiving side.
pub(crate) struct Receiver<T>(Arc<Queue<T>>);

impl<T> Receiver<T> {
    /// The next item; `None` once every sender is gone and the queue is empty.
    pub(crate) async fn recv(&mut self) -> Option<T> {
        poll_fn(|cx| self.poll_recv(cx)).await
    }

    pub(crate) fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<T>> {
        let mut state = self.0.state();
        if let Some(item) = state.items.pop_front() {
            return Poll::Ready(Some(item));
        }
        if state.senders == 0 {
            return Poll::Ready(None);
        }
        match &mut state.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            slot => *slot = Some(cx.waker().clone()),
        }
        Poll::Pending
    }

    /// The next item, if one is queued.
    pub(crate) fn try_recv(&mut self) -> Option<T> {
        self.0.state().items.pop_front()
    }
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.receiving = false;
        state.items.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn items_arrive_in_order_until_the_last_sender_goes() {
        let (sender, mut receiver) = channel();
        let other = sender.clone();
        sender.send(1).unwrap();
        other.send(2).unwrap();
        other.send(3).unwrap();
        assert_eq!(receiver.try_recv(), Some(1));
        assert_eq!(receiver.recv().await, Some(2));
        assert_eq!(receiver.recv().await, Some(3));
        assert_eq!(receiver.try_recv(), None);
        drop(sender);
        // A receiver waiting for the next item wakes when the last sender goes.
        let waiting = tokio::spawn(async move { (receiver.recv().await, receiver.recv().await) });
        tokio::task::yield_now().await;
        other.send(4).unwrap();
        drop(other);
        assert_eq!(waiting.await.unwrap(), (Some(4), None));
    }

    #[tokio::test]
    async fn a_waiting_receiver_is_woken_and_a_gone_one_refuses() {
        let (sender, mut receiver) = channel();
        let waiting = tokio::spawn(async move {
            let first = receiver.recv().await;
            let end = receiver.recv().await;
            (first, end.is_none())
        });
        tokio::task::yield_now().await;
        sender.send(7).unwrap();
        let keep = sender.clone();
        drop(sender);
        drop(keep);
        assert_eq!(waiting.await.unwrap(), (Some(7), true));

        let (sender, receiver) = channel();
        drop(receiver);
        assert_eq!(
            sender.send(9),
            Err(9),
            "a gone receiver refuses, giving the item back"
        );
    }
}
