//! Closing connections that stay idle: just opened and silent, sending their headers slowly,
//! or kept alive after their last answer.
//!
//! hyper's own `header_read_timeout` arms a timer for every request (a boxed `Sleep`
//! registered with tokio's timer wheel, then taken out again), which costs about as much as a
//! fifth of this transport's own work on a small call. Here a connection instead counts what it
//! does, two atomic additions per request, and a watchdog of its own looks at the count a few
//! times per timeout: a connection that answered nothing and started nothing for the whole
//! timeout is dropped, which closes it.

use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};
use std::task::{Context, Poll, ready};
use std::time::Duration;

use http::{Request, Response};
use http_body::{Body, Frame, SizeHint};
use tokio::task::AbortHandle;

use super::body::ResponseBody;
use super::service::HttpService;

/// How many times per timeout a watchdog looks: a connection is closed between one timeout and
/// a quarter more after it fell idle.
const LOOKS: u32 = 4;

/// One connection's requests being answered (the low 32 bits) and how often that number has
/// changed (the high 32 bits, wrapping), in one word so that one load sees both together.
#[derive(Debug, Default)]
pub(crate) struct Activity(AtomicU64);

/// Adds one request being answered and one change.
const STARTED: u64 = (1 << 32) + 1;
/// Takes one request being answered away and adds one change.
const FINISHED: u64 = (1 << 32) - 1;

impl Activity {
    fn snapshot(&self) -> Snapshot {
        let word = self.0.load(Ordering::Acquire);
        Snapshot {
            answering: word & u64::from(u32::MAX),
            changes: word >> 32,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Snapshot {
    answering: u64,
    changes: u64,
}

/// Whether a connection has been idle for `LOOKS` looks in a row: told each snapshot in turn.
#[derive(Debug)]
struct Quiet {
    last: Snapshot,
    looks: u32,
}

impl Quiet {
    fn new(first: Snapshot) -> Self {
        Quiet {
            last: first,
            looks: 0,
        }
    }

    /// Take the snapshot of the next look; true once the connection was idle for all of the
    /// last `LOOKS` intervals. An interval is idle when nothing changed during it and no
    /// request was being answered at its end: an answer that started or finished in it
    /// would have changed the count.
    fn look(&mut self, now: Snapshot) -> bool {
        if now.answering == 0 && now.changes == self.last.changes {
            self.looks += 1;
        } else {
            self.looks = 0;
        }
        self.last = now;
        self.looks >= LOOKS
    }
}

/// Watch `activity` until its connection is gone, and abort the connection's task once it has
/// been idle for `timeout`.
pub(crate) async fn close_when_idle(
    activity: Weak<Activity>,
    timeout: Duration,
    connection: AbortHandle,
) {
    let every = timeout / LOOKS;
    let Some(first) = activity.upgrade().map(|activity| activity.snapshot()) else {
        return;
    };
    let mut quiet = Quiet::new(first);
    loop {
        tokio::time::sleep(every).await;
        // The connection's service holds the only strong reference: gone, it has ended.
        let Some(now) = activity.upgrade().map(|activity| activity.snapshot()) else {
            return;
        };
        if quiet.look(now) {
            tracing::debug!(?timeout, "closing a connection idle for its idle timeout");
            connection.abort();
            return;
        }
    }
}

/// The endpoint's service for one connection, counting the requests it answers.
pub(crate) struct Watched {
    service: HttpService,
    activity: Arc<Activity>,
}

impl Watched {
    pub(crate) fn new(service: HttpService, activity: Arc<Activity>) -> Self {
        Watched { service, activity }
    }
}

/// One request being answered, from its head until its response body is dropped.
struct Answering(Arc<Activity>);

impl Answering {
    fn start(activity: &Arc<Activity>) -> Self {
        activity.0.fetch_add(STARTED, Ordering::Release);
        Answering(activity.clone())
    }
}

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.0.fetch_add(FINISHED, Ordering::Release);
    }
}

impl Watched {
    /// The answer to `request`, counted until its response body is dropped. Not boxed: hyper
    /// keeps a connection's request future in one place it allocates once per connection, so
    /// a request allocates nothing for it.
    pub(crate) fn answer(
        &self,
        request: Request<hyper::body::Incoming>,
    ) -> Answer<impl Future<Output = Response<ResponseBody>> + Send + use<>> {
        let answering = Answering::start(&self.activity);
        Answer {
            response: self.service.handle(request),
            answering: Some(answering),
        }
    }
}

pin_project_lite::pin_project! {
    /// A response on its way, still counted.
    pub(crate) struct Answer<F> {
        #[pin]
        response: F,
        answering: Option<Answering>,
    }
}

impl<F: Future<Output = Response<ResponseBody>>> Future for Answer<F> {
    type Output = Result<Response<WatchedBody>, Infallible>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        let response = ready!(this.response.poll(cx));
        let answering = this.answering.take();
        Poll::Ready(Ok(response.map(|body| WatchedBody {
            body,
            _answering: answering,
        })))
    }
}

/// A response body, its request counted until hyper drops it (written, or the client gone).
pub(crate) struct WatchedBody {
    body: ResponseBody,
    _answering: Option<Answering>,
}

impl Body for WatchedBody {
    type Data = <ResponseBody as Body>::Data;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Infallible>>> {
        Pin::new(&mut self.get_mut().body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_what_is_being_answered_and_every_change() {
        let activity = Arc::new(Activity::default());
        let first = Answering::start(&activity);
        let second = Answering::start(&activity);
        assert_eq!(
            activity.snapshot(),
            Snapshot {
                answering: 2,
                changes: 2
            }
        );
        drop(first);
        drop(second);
        assert_eq!(
            activity.snapshot(),
            Snapshot {
                answering: 0,
                changes: 4
            }
        );
    }

    #[test]
    fn the_change_count_wraps_without_touching_what_is_being_answered() {
        let activity = Arc::new(Activity(AtomicU64::new(u64::from(u32::MAX) << 32)));
        let answering = Answering::start(&activity);
        assert_eq!(
            activity.snapshot(),
            Snapshot {
                answering: 1,
                changes: 0
            }
        );
        drop(answering);
        assert_eq!(
            activity.snapshot(),
            Snapshot {
                answering: 0,
                changes: 1
            }
        );
    }

    #[test]
    fn idle_only_after_every_look_of_a_timeout_found_nothing() {
        let activity = Arc::new(Activity::default());
        let mut quiet = Quiet::new(activity.snapshot());
        for _ in 1..LOOKS {
            assert!(!quiet.look(activity.snapshot()));
        }
        // A request that came and went between two looks starts the count again.
        drop(Answering::start(&activity));
        assert!(!quiet.look(activity.snapshot()));
        for _ in 1..LOOKS {
            assert!(!quiet.look(activity.snapshot()));
        }
        assert!(quiet.look(activity.snapshot()));
    }

    #[test]
    fn never_idle_while_an_answer_is_in_progress() {
        let activity = Arc::new(Activity::default());
        let mut quiet = Quiet::new(activity.snapshot());
        let answering = Answering::start(&activity);
        for _ in 0..LOOKS * 3 {
            assert!(!quiet.look(activity.snapshot()));
        }
        drop(answering);
        for _ in 1..=LOOKS {
            assert!(!quiet.look(activity.snapshot()));
        }
        assert!(quiet.look(activity.snapshot()));
    }
}
