//! A call's answer that cancels the call when dropped unanswered: the client went away, or
//! shutdown gave up on it.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use crate::dispatch::InFlight;
use crate::future::BoxFuture;
use crate::protocol::jsonrpc::{Outgoing, RequestIds};

/// A call's answer; dropped before it arrives (the client went away, or shutdown gave up on
/// it), it fires the call's cancellation token first, so the tool sees the cancellation even as
/// its future is dropped.
pub(crate) struct UntilAnswered {
    call: BoxFuture<'static, Option<Outgoing>>,
    in_flight: InFlight,
    ids: RequestIds,
    answered: bool,
}

impl Future for UntilAnswered {
    type Output = Option<Outgoing>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Outgoing>> {
        let answer = ready!(self.call.as_mut().poll(cx));
        self.answered = true;
        Poll::Ready(answer)
    }
}

impl Drop for UntilAnswered {
    // Runs before the fields drop: the token fires while the call still exists.
    fn drop(&mut self) {
        if !self.answered {
            tracing::debug!("the client went away; cancelling its call");
            for id in self.ids.iter() {
                self.in_flight.cancel(id);
            }
        }
    }
}

/// The call's answer; dropped before it arrives, the call is cancelled.
pub(crate) fn until_answered(
    call: BoxFuture<'static, Option<Outgoing>>,
    in_flight: InFlight,
    ids: RequestIds,
) -> UntilAnswered {
    UntilAnswered {
        call,
        in_flight,
        ids,
        answered: false,
    }
}
