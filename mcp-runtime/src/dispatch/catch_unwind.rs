//! Turning a panic inside a tool into a value, so one bad tool cannot take the server down.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::task::{Context, Poll};

/// What a panic carries.
pub(crate) type PanicPayload = Box<dyn Any + Send>;

/// Resolves to the inner future's output, or to the payload of a panic raised while polling it.
pub(crate) struct CatchUnwind<F> {
    inner: F,
}

impl<F: Future + Unpin> CatchUnwind<F> {
    pub(crate) fn new(inner: F) -> Self {
        CatchUnwind { inner }
    }
}

impl<F: Future + Unpin> Future for CatchUnwind<F> {
    type Output = Result<F::Output, PanicPayload>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let inner = &mut self.inner;
        // Unwind safety: after a panic the future is never polled again, only dropped.
        match catch_unwind(AssertUnwindSafe(|| Pin::new(&mut *inner).poll(cx))) {
            Ok(Poll::Pending) => Poll::Pending,
            Ok(Poll::Ready(output)) => Poll::Ready(Ok(output)),
            Err(payload) => Poll::Ready(Err(payload)),
        }
    }
}

/// The panic's message, when it has one.
pub(crate) fn panic_message(payload: &PanicPayload) -> &str {
    if let Some(message) = payload.downcast_ref::<&'static str>() {
        message
    } else if let Some(message) = payload.downcast_ref::<String>() {
        message
    } else {
        "(no message)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::handler::BoxFuture;

    #[tokio::test]
    async fn output_passes_through() {
        let future: BoxFuture<'static, u8> = Box::pin(async { 7 });
        assert_eq!(CatchUnwind::new(future).await.unwrap(), 7);
    }

    #[tokio::test]
    async fn a_panic_becomes_its_payload() {
        let future: BoxFuture<'static, u8> = Box::pin(async {
            tokio::task::yield_now().await;
            panic!("boom {}", 1)
        });
        let payload = CatchUnwind::new(future).await.unwrap_err();
        assert_eq!(panic_message(&payload), "boom 1");
    }

    #[test]
    fn static_and_formatted_messages_are_read() {
        let payload: PanicPayload = Box::new("static");
        assert_eq!(panic_message(&payload), "static");
        let payload: PanicPayload = Box::new(42u8);
        assert_eq!(panic_message(&payload), "(no message)");
    }
}
