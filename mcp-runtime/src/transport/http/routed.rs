//! What a legacy session sends to the stream of one request's POST (its questions to the
//! client, their withdrawal, its progress), and the queue that carries it there.
//!
//! Every POST that takes events opens such a queue, and nearly all of them carry nothing: so
//! it is one small allocation, not a tokio channel (two allocations, one of them aligned, and
//! a block of 32 slots made before anything is sent).

use std::collections::VecDeque;
use std::future::poll_fn;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use crate::protocol::jsonrpc::Outgoing;

/// What a request's route carries to its POST's stream.
#[derive(Debug)]
pub(crate) enum Routed {
    /// A message about the request (a question to the client, progress, a log message).
    Message(Outgoing),
    /// Its handler let go of the connection: end it once what came before has been read, and
    /// let the client resume the stream for the rest.
    Release,
}

/// A queue from any number of senders to one receiver, unbounded: the senders are the
/// session's own calls, which send a few messages each.
pub(crate) fn channel() -> (RouteSender, RouteReceiver) {
    let queue = Arc::new(Queue {
        state: Mutex::new(State {
            items: VecDeque::new(),
            waker: None,
            senders: 1,
            receiving: true,
        }),
    });
    (RouteSender(Arc::clone(&queue)), RouteReceiver(queue))
}

struct Queue {
    state: Mutex<State>,
}

struct State {
    items: VecDeque<Routed>,
    /// The receiver, waiting.
    waker: Option<Waker>,
    senders: usize,
    receiving: bool,
}

impl Queue {
    fn state(&self) -> MutexGuard<'_, State> {
        // Every critical section leaves the state consistent, even one cut short by a panic.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// The sending side; clones send into the same queue.
pub(crate) struct RouteSender(Arc<Queue>);

impl RouteSender {
    /// Queue `routed`; given back when the receiver is gone (the request was answered).
    pub(crate) fn send(&self, routed: Routed) -> Result<(), Routed> {
        let waker = {
            let mut state = self.0.state();
            if !state.receiving {
                return Err(routed);
            }
            state.items.push_back(routed);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
        Ok(())
    }
}

impl Clone for RouteSender {
    fn clone(&self) -> Self {
        self.0.state().senders += 1;
        RouteSender(Arc::clone(&self.0))
    }
}

impl Drop for RouteSender {
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

impl std::fmt::Debug for RouteSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RouteSender").finish_non_exhaustive()
    }
}

/// The receiving side.
pub(crate) struct RouteReceiver(Arc<Queue>);

impl RouteReceiver {
    /// The next item; `None` once every sender is gone and the queue is empty.
    pub(crate) async fn recv(&mut self) -> Option<Routed> {
        poll_fn(|cx| self.poll_recv(cx)).await
    }

    fn poll_recv(&mut self, cx: &mut Context<'_>) -> Poll<Option<Routed>> {
        let mut state = self.0.state();
        if let Some(routed) = state.items.pop_front() {
            return Poll::Ready(Some(routed));
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
    pub(crate) fn try_recv(&mut self) -> Option<Routed> {
        self.0.state().items.pop_front()
    }
}

impl Drop for RouteReceiver {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.receiving = false;
        state.items.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::protocol::jsonrpc::RequestId;

    /// A message told apart by its id.
    fn message(n: u8) -> Routed {
        Routed::Message(Outgoing::result(
            &RequestId::Number(n.into()),
            &serde_json::json!({}),
        ))
    }

    /// The id of a message, or `release`.
    fn text(routed: Option<Routed>) -> Option<String> {
        match routed? {
            Routed::Message(message) => {
                let value: serde_json::Value = serde_json::from_slice(message.as_bytes()).ok()?;
                Some(value["id"].to_string())
            }
            Routed::Release => Some("release".into()),
        }
    }

    #[tokio::test]
    async fn items_arrive_in_order_until_the_last_sender_goes() {
        let (sender, mut receiver) = channel();
        let other = sender.clone();
        sender.send(message(1)).unwrap();
        other.send(message(2)).unwrap();
        other.send(Routed::Release).unwrap();
        assert_eq!(text(receiver.try_recv()).as_deref(), Some("1"));
        assert_eq!(text(receiver.recv().await).as_deref(), Some("2"));
        assert_eq!(text(receiver.recv().await).as_deref(), Some("release"));
        assert!(receiver.try_recv().is_none());
        drop(sender);
        // A receiver waiting for the next item wakes when the last sender goes.
        let waiting = tokio::spawn(async move { text(receiver.recv().await) });
        tokio::task::yield_now().await;
        other.send(message(3)).unwrap();
        drop(other);
        assert_eq!(waiting.await.unwrap().as_deref(), Some("3"));
    }

    #[tokio::test]
    async fn a_waiting_receiver_is_woken_and_a_gone_one_refuses() {
        let (sender, mut receiver) = channel();
        let waiting = tokio::spawn(async move {
            let first = text(receiver.recv().await);
            let end = receiver.recv().await;
            (first, end.is_none())
        });
        tokio::task::yield_now().await;
        sender.send(message(7)).unwrap();
        let keep = sender.clone();
        drop(sender);
        drop(keep);
        assert_eq!(waiting.await.unwrap(), (Some("7".to_owned()), true));

        let (sender, receiver) = channel();
        drop(receiver);
        let Err(Routed::Message(back)) = sender.send(message(9)) else {
            panic!("a gone receiver refuses");
        };
        assert_eq!(text(Some(Routed::Message(back))).as_deref(), Some("9"));
    }
}
