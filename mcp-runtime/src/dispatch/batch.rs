//! JSON-RPC batches (2025-03-26 only): every element answered, the answers sent as one array.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use super::Reply;
use crate::handler::BoxFuture;
use crate::protocol::jsonrpc::Outgoing;

/// One reply for the replies to a batch's elements, in their order: ready at once when every
/// element was, else pending until the last call finishes. Calls in the batch still run
/// concurrently. Notifications and cancelled calls add nothing; a batch with no answers gets
/// no reply at all.
pub(super) fn join(replies: Vec<Reply>) -> Reply {
    if !replies
        .iter()
        .any(|reply| matches!(reply, Reply::Pending(_)))
    {
        let answers = replies.into_iter().filter_map(Reply::into_ready).collect();
        return Outgoing::batch(answers).map_or(Reply::None, Reply::Ready);
    }
    let slots = replies
        .into_iter()
        .map(|reply| match reply {
            Reply::Pending(future) => Slot::Waiting(future),
            other => Slot::Done(other.into_ready()),
        })
        .collect();
    Reply::Pending(Box::pin(JoinReplies { slots }))
}

enum Slot {
    Waiting(BoxFuture<'static, Option<Outgoing>>),
    Done(Option<Outgoing>),
}

struct JoinReplies {
    slots: Vec<Slot>,
}

impl Future for JoinReplies {
    type Output = Option<Outgoing>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut waiting = false;
        for slot in &mut self.slots {
            if let Slot::Waiting(future) = slot {
                match future.as_mut().poll(cx) {
                    Poll::Ready(answer) => *slot = Slot::Done(answer),
                    Poll::Pending => waiting = true,
                }
            }
        }
        if waiting {
            return Poll::Pending;
        }
        let answers = std::mem::take(&mut self.slots)
            .into_iter()
            .filter_map(|slot| match slot {
                Slot::Done(answer) => answer,
                Slot::Waiting(_) => unreachable!("every slot is done"),
            })
            .collect();
        Poll::Ready(Outgoing::batch(answers))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use serde_json::{Value, json};

    use super::*;
    use crate::protocol::jsonrpc::RequestId;

    fn answer(n: i64) -> Outgoing {
        Outgoing::result(&RequestId::Number(n.into()), &json!({}))
    }

    fn ids(message: &Outgoing) -> Vec<Value> {
        let value: Value = serde_json::from_slice(message.as_bytes()).unwrap();
        value
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].clone())
            .collect()
    }

    #[test]
    fn ready_replies_join_at_once() {
        let Reply::Ready(batch) = join(vec![
            Reply::Ready(answer(1)),
            Reply::None,
            Reply::Ready(answer(2)),
        ]) else {
            panic!("expected a ready batch")
        };
        assert_eq!(ids(&batch), [json!(1), json!(2)]);
    }

    #[test]
    fn only_notifications_get_no_reply() {
        assert!(matches!(join(vec![Reply::None, Reply::None]), Reply::None));
    }

    #[tokio::test]
    async fn pending_replies_keep_their_place() {
        let slow = Reply::Pending(Box::pin(async {
            tokio::time::sleep(Duration::from_millis(20)).await;
            Some(answer(1))
        }));
        let cancelled = Reply::Pending(Box::pin(async { None }));
        let Reply::Pending(joined) = join(vec![slow, Reply::Ready(answer(2)), cancelled]) else {
            panic!("expected a pending batch")
        };
        let batch = joined.await.unwrap();
        assert_eq!(ids(&batch), [json!(1), json!(2)]);
    }
}
