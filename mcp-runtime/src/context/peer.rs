//! Notifications about one request, sent while it runs: progress (`notifications/progress`)
//! and log messages (`notifications/message`).
//!
//! A transport gives each connection an [`Outbound`]: where such notifications are written,
//! in order with the responses (over stdio, into the same output; over HTTP, the request's
//! own stream). A request gets a [`RequestPeer`] only when it could send something: it carried
//! a `progressToken`, or its logs may reach the client. A call that uses neither pays for
//! nothing. Once the request is answered its peer is closed, and whatever a task it spawned
//! still reports is dropped: nothing about a request may follow its response.
//!
//! A transport whose client can come back for what a request sends later (HTTP with resumable
//! streams) also lets the request release its connection meanwhile
//! ([`RequestContext::release_connection`]); elsewhere that asks nothing of anyone.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::time::Instant;

use serde::Serialize;
use serde_json::Value;

use crate::cancel::CancellationToken;
use crate::context::logging::{LogGate, LogLevel};
use crate::protocol::ProtocolVersion;
use crate::protocol::jsonrpc::{Outgoing, RequestId};

/// Where one connection's request-related messages go (notifications, and the questions of
/// a legacy session). Cheap to clone: every request of a session takes a copy, which counts
/// one reference to one allocation (not one to each of its two functions).
#[derive(Clone)]
pub(crate) struct Outbound(Arc<Sinks>);

struct Sinks {
    send: Arc<SendFn>,
    /// Releases the connection of a request, if the transport can (see
    /// [`Outbound::with_release`]).
    release: Option<Box<ReleaseFn>>,
}

/// Hands a message, and the request it is about if any, to the transport.
type SendFn = dyn Fn(Option<&RequestId>, Outgoing) + Send + Sync;

/// Asks the transport to release the connection of a request; whether it will.
type ReleaseFn = dyn Fn(&RequestId) -> bool + Send + Sync;

impl Outbound {
    /// Messages are handed to `send`, which must deliver them before any response handed
    /// over later (the transport's job).
    pub(crate) fn new(send: impl Fn(Outgoing) + Send + Sync + 'static) -> Self {
        Outbound(Arc::new(Sinks {
            send: Arc::new(move |_, message| send(message)),
            release: None,
        }))
    }

    /// Like [`new`](Self::new), `send` also learning which request each message is about
    /// (`None` for none), so a transport can put it on that request's own stream.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn routed(
        send: impl Fn(Option<&RequestId>, Outgoing) + Send + Sync + 'static,
    ) -> Self {
        Outbound(Arc::new(Sinks {
            send: Arc::new(send),
            release: None,
        }))
    }

    /// This outbound, `release` ending the connection a request's messages travel on while it
    /// runs, when its client can come back for the rest (and saying whether it will).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn with_release(
        self,
        release: impl Fn(&RequestId) -> bool + Send + Sync + 'static,
    ) -> Self {
        Outbound(Arc::new(Sinks {
            send: Arc::clone(&self.0.send),
            release: Some(Box::new(release)),
        }))
    }

    /// Whether the transport may release a request's connection.
    fn can_release(&self) -> bool {
        self.0.release.is_some()
    }

    /// Send `message`, about the request `related` if given.
    fn send_about(&self, related: Option<&RequestId>, message: Outgoing) {
        (self.0.send)(related, message);
    }

    /// Send `message`, which is about no request in particular.
    pub(crate) fn send(&self, message: Outgoing) {
        (self.0.send)(None, message);
    }

    /// Send `message`, which is about the request `related`.
    pub(crate) fn send_for(&self, related: &RequestId, message: Outgoing) {
        (self.0.send)(Some(related), message);
    }
}

impl fmt::Debug for Outbound {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Outbound")
    }
}

/// The way back to the client for one running request.
pub(crate) struct RequestPeer {
    outbound: Outbound,
    /// The request its notifications are about (a transport may give it its own stream).
    related: Option<RequestId>,
    revision: ProtocolVersion,
    log: LogGate,
    progress_token: Option<Value>,
    /// Once the request is cancelled nothing more may be sent about it.
    cancellation: CancellationToken,
    state: Mutex<PeerState>,
}

#[derive(Debug, Default)]
struct PeerState {
    /// Cleared when the request is answered.
    closed: bool,
    /// The last progress value sent.
    last: Option<f64>,
    /// The total last sent with it.
    total: Option<f64>,
    /// When the last progress notification left.
    last_sent: Option<Instant>,
}

impl fmt::Debug for RequestPeer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestPeer")
            .field("revision", &self.revision)
            .field("log", &self.log)
            .field("progress_token", &self.progress_token)
            .finish_non_exhaustive()
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ProgressParams<'a> {
    progress_token: &'a Value,
    progress: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    total: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<&'a str>,
}

#[derive(Serialize)]
struct MessageParams<'a> {
    level: LogLevel,
    #[serde(skip_serializing_if = "Option::is_none")]
    logger: Option<&'a str>,
    data: Value,
}

impl Serialize for LogLevel {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// What may send through a request's peer, besides the run's progress heartbeat (which a
/// progress token alone calls for).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Senders {
    /// The handler, through its context: logs, progress, a released connection.
    pub(crate) handler: bool,
    /// The `tracing` events of the handler's code, forwarded as logs.
    pub(crate) tracing: bool,
}

#[cfg(test)]
impl Senders {
    /// A handler that reaches its context, its `tracing` events not forwarded.
    pub(crate) const HANDLER: Senders = Senders {
        handler: true,
        tracing: false,
    };
}

impl RequestPeer {
    /// [`for_call`](Self::for_call) of a request that is never cancelled.
    #[cfg(test)]
    pub(crate) fn for_request(
        outbound: Option<&Outbound>,
        revision: ProtocolVersion,
        log: &LogGate,
        progress_token: Option<&Value>,
    ) -> Option<Arc<Self>> {
        Self::for_call(
            outbound,
            revision,
            log,
            progress_token,
            &CancellationToken::new(),
            None,
            Senders::HANDLER,
        )
    }

    /// A peer for a request cancelled through `cancellation`, or `None` when nothing of it
    /// can send: no outbound; else no progress token, and neither logs that `senders` may
    /// write and the gate may let through nor a connection the handler may release.
    pub(crate) fn for_call(
        outbound: Option<&Outbound>,
        revision: ProtocolVersion,
        log: &LogGate,
        progress_token: Option<&Value>,
        cancellation: &CancellationToken,
        related: Option<&RequestId>,
        senders: Senders,
    ) -> Option<Arc<Self>> {
        let outbound = outbound?;
        let logs = (senders.handler || senders.tracing) && log.may_allow_any();
        let release = senders.handler && outbound.can_release();
        if progress_token.is_none() && !logs && !release {
            return None;
        }
        Some(Arc::new(RequestPeer {
            outbound: outbound.clone(),
            related: related.cloned(),
            revision,
            log: log.clone(),
            progress_token: progress_token.cloned(),
            cancellation: cancellation.clone(),
            state: Mutex::new(PeerState::default()),
        }))
    }

    fn state(&self) -> MutexGuard<'_, PeerState> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Whether the request carried a progress token (so progress can be reported).
    pub(crate) fn has_progress(&self) -> bool {
        self.progress_token.is_some()
    }

    /// Send a progress notification if `progress` is finite and above the last one sent.
    pub(crate) fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> bool {
        let Some(token) = &self.progress_token else {
            return false;
        };
        let total = total.filter(|total| total.is_finite());
        let mut state = self.state();
        if state.closed
            || self.cancellation.is_cancelled()
            || !progress.is_finite()
            || state.last.is_some_and(|last| progress <= last)
        {
            return false;
        }
        state.last = Some(progress);
        state.total = total;
        state.last_sent = Some(Instant::now());
        // The message arrived in 2025-03-26.
        let message = message.filter(|_| self.revision >= ProtocolVersion::V2025_03_26);
        let params = ProgressParams {
            progress_token: token,
            progress,
            total,
            message,
        };
        // Sent under the lock, so notifications leave in the order their values rise, and
        // none after `close`.
        self.outbound.send_about(
            self.related.as_ref(),
            Outgoing::notification("notifications/progress", Some(&params)),
        );
        true
    }

    /// The heartbeat: unless progress was sent within `quiet`, send one a hair above the last
    /// value (0 at first), keeping the last total while it is not exceeded.
    pub(crate) fn heartbeat(&self, quiet: Duration) -> bool {
        let (next, total) = {
            let state = self.state();
            if state.last_sent.is_some_and(|sent| sent.elapsed() < quiet) {
                return false;
            }
            let next = state.last.map_or(0.0, next_up);
            (next, state.total.filter(|&total| next <= total))
        };
        self.progress(next, total, None)
    }

    /// Send a log message if the request's level lets `level` through.
    pub(crate) fn log(&self, level: LogLevel, logger: Option<&str>, data: Value) -> bool {
        if !self.log.allows(level) {
            return false;
        }
        let state = self.state();
        if state.closed || self.cancellation.is_cancelled() {
            return false;
        }
        let params = MessageParams {
            level,
            logger,
            data,
        };
        self.outbound.send_about(
            self.related.as_ref(),
            Outgoing::notification("notifications/message", Some(&params)),
        );
        drop(state);
        true
    }

    /// Whether a message at `level` would be sent.
    pub(crate) fn log_enabled(&self, level: LogLevel) -> bool {
        self.log.allows(level)
    }

    /// Ask the transport to release the request's connection; whether it will. Not once the
    /// request is answered or cancelled.
    pub(crate) fn release_connection(&self) -> bool {
        let (Some(release), Some(related)) = (&self.outbound.0.release, &self.related) else {
            return false;
        };
        // Under the lock, as progress is sent: whatever was reported before is ahead of it.
        let state = self.state();
        !state.closed && !self.cancellation.is_cancelled() && release(related)
    }

    /// The request was answered (or dropped): nothing more is sent about it.
    pub(crate) fn close(&self) {
        self.state().closed = true;
    }
}

/// The smallest float above `value` (for finite values).
fn next_up(value: f64) -> f64 {
    if !value.is_finite() {
        return value;
    }
    if value == 0.0 {
        return f64::from_bits(1);
    }
    let bits = value.to_bits();
    f64::from_bits(if value > 0.0 { bits + 1 } else { bits - 1 })
}

/// Run `call`, sending a heartbeat progress notification through `peer` every `every` while it
/// runs, unless the call reported progress itself meanwhile.
pub(crate) fn with_heartbeat<F: Future>(
    call: F,
    peer: Option<Arc<RequestPeer>>,
    every: Option<Duration>,
) -> Heartbeat<F> {
    let beat = match (peer.filter(|peer| peer.has_progress()), every) {
        (Some(peer), Some(every)) => Some((peer, every)),
        _ => None,
    };
    Heartbeat {
        call,
        beat,
        ticks: None,
    }
}

pin_project_lite::pin_project! {
    /// A call with its heartbeat (see [`with_heartbeat`]). A future of its own rather than an
    /// `async fn`, whose future would hold the call twice (its argument, and the value it
    /// awaits) and copy it from one to the other on its first poll.
    pub(crate) struct Heartbeat<F> {
        #[pin]
        call: F,
        // Where the beats go and how often, when the call has a progress token.
        beat: Option<(Arc<RequestPeer>, Duration)>,
        // Made only once the call was not done at its first poll: most calls need no timer.
        ticks: Option<tokio::time::Interval>,
    }
}

impl<F: Future> Future for Heartbeat<F> {
    type Output = F::Output;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        let this = self.project();
        if let Poll::Ready(output) = this.call.poll(cx) {
            return Poll::Ready(output);
        }
        let Some((peer, every)) = this.beat else {
            return Poll::Pending;
        };
        let ticks = this.ticks.get_or_insert_with(|| {
            let mut ticks = tokio::time::interval_at(Instant::now() + *every, *every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            ticks
        });
        while ticks.poll_tick(cx).is_ready() {
            peer.heartbeat(*every);
        }
        Poll::Pending
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::context::logging::SessionLevel;

    /// A session's level as these tests set it: everything passes until one is set.
    #[derive(Debug, Default)]
    struct Minimum(Mutex<Option<LogLevel>>);

    impl SessionLevel for Minimum {
        fn allows(&self, level: LogLevel) -> bool {
            self.0
                .lock()
                .unwrap()
                .is_none_or(|minimum| level >= minimum)
        }
    }

    fn recorder() -> (Outbound, Arc<Mutex<Vec<Value>>>) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let sink = sent.clone();
        let outbound = Outbound::new(move |message: Outgoing| {
            let value = serde_json::from_slice(message.as_bytes()).unwrap();
            sink.lock().unwrap().push(value);
        });
        (outbound, sent)
    }

    fn peer(revision: ProtocolVersion, log: LogGate, token: Option<Value>) -> Arc<RequestPeer> {
        let (outbound, _) = recorder();
        RequestPeer::for_request(Some(&outbound), revision, &log, token.as_ref()).unwrap()
    }

    #[test]
    fn no_peer_without_anything_to_send() {
        let (outbound, _) = recorder();
        let quiet = LogGate::Request(None);
        assert!(
            RequestPeer::for_request(Some(&outbound), ProtocolVersion::V2026_07_28, &quiet, None)
                .is_none()
        );
        let token = json!(1);
        assert!(
            RequestPeer::for_request(None, ProtocolVersion::V2026_07_28, &quiet, Some(&token))
                .is_none()
        );
    }

    #[test]
    fn progress_rises_strictly_and_keeps_its_message_from_2025_03_26() {
        let (outbound, sent) = recorder();
        let log = LogGate::Request(None);
        let token = json!("t");
        let peer = RequestPeer::for_request(
            Some(&outbound),
            ProtocolVersion::V2025_03_26,
            &log,
            Some(&token),
        )
        .unwrap();
        assert!(peer.progress(1.0, Some(4.0), Some("one")));
        assert!(!peer.progress(1.0, Some(4.0), None), "equal is dropped");
        assert!(!peer.progress(0.5, None, None), "lower is dropped");
        assert!(!peer.progress(f64::NAN, None, None));
        assert!(peer.progress(2.5, Some(f64::INFINITY), None));
        assert_eq!(
            *sent.lock().unwrap(),
            [
                json!({"jsonrpc": "2.0", "method": "notifications/progress", "params":
                    {"progressToken": "t", "progress": 1.0, "total": 4.0, "message": "one"}}),
                json!({"jsonrpc": "2.0", "method": "notifications/progress", "params":
                    {"progressToken": "t", "progress": 2.5}}),
            ]
        );
    }

    #[test]
    fn no_progress_message_for_2024_11_05_and_nothing_after_close() {
        let (outbound, sent) = recorder();
        let token = json!(7);
        let peer = RequestPeer::for_request(
            Some(&outbound),
            ProtocolVersion::V2024_11_05,
            &LogGate::Request(None),
            Some(&token),
        )
        .unwrap();
        assert!(peer.progress(1.0, None, Some("dropped for this revision")));
        peer.close();
        assert!(!peer.progress(2.0, None, None));
        assert_eq!(
            sent.lock().unwrap()[..],
            [
                json!({"jsonrpc": "2.0", "method": "notifications/progress", "params":
                {"progressToken": 7, "progress": 1.0}})
            ]
        );
    }

    #[test]
    fn nothing_is_sent_once_the_request_is_cancelled() {
        let (outbound, sent) = recorder();
        let cancellation = CancellationToken::new();
        let peer = RequestPeer::for_call(
            Some(&outbound),
            ProtocolVersion::V2026_07_28,
            &LogGate::Request(Some(LogLevel::Debug)),
            Some(&json!(1)),
            &cancellation,
            None,
            Senders::HANDLER,
        )
        .unwrap();
        assert!(peer.progress(1.0, None, None));
        cancellation.cancel();
        assert!(!peer.progress(2.0, None, None));
        assert!(!peer.heartbeat(Duration::ZERO));
        assert!(!peer.log(LogLevel::Error, None, json!("late")));
        assert_eq!(sent.lock().unwrap().len(), 1);
    }

    #[test]
    fn a_peer_is_made_only_for_what_may_send_through_it() {
        let (outbound, _) = recorder();
        let outbound = outbound.with_release(|_| true);
        let session = LogGate::Session(Arc::new(Minimum::default()));
        let quiet = LogGate::Request(None);
        let made = |log: &LogGate, token: Option<&Value>, handler, tracing| {
            RequestPeer::for_call(
                Some(&outbound),
                ProtocolVersion::V2025_11_25,
                log,
                token,
                &CancellationToken::new(),
                Some(&RequestId::Number(1.into())),
                Senders { handler, tracing },
            )
            .is_some()
        };
        // Neither the handler nor its `tracing` events: only a heartbeat may send.
        assert!(!made(&session, None, false, false));
        assert!(made(&session, Some(&json!("p")), false, false));
        // Forwarded `tracing` events are logs: the gate must let some through.
        assert!(made(&session, None, false, true));
        assert!(!made(&quiet, None, false, true));
        // The handler may release its connection, whatever the gate.
        assert!(made(&quiet, None, true, false));
    }

    #[test]
    fn heartbeats_rise_above_the_last_value_and_respect_recent_progress() {
        let peer = peer(
            ProtocolVersion::V2025_06_18,
            LogGate::Request(None),
            Some(json!(1)),
        );
        assert!(peer.heartbeat(Duration::ZERO), "the first heartbeat is 0");
        assert!(peer.heartbeat(Duration::ZERO), "then a hair above");
        assert!(peer.progress(3.0, Some(3.0), None));
        assert!(
            !peer.heartbeat(Duration::from_secs(3600)),
            "progress was just sent"
        );
        assert!(
            peer.heartbeat(Duration::ZERO),
            "above the total, without it"
        );
        assert!(peer.progress(3.5, None, None), "a real report still passes");
        assert!(next_up(-1.0) > -1.0);
        assert!(next_up(0.0) > 0.0);
    }

    #[test]
    fn a_connection_is_released_only_where_the_transport_can_and_while_the_request_runs() {
        let asked = Arc::new(Mutex::new(Vec::new()));
        let seen = asked.clone();
        let (outbound, _) = recorder();
        let outbound = outbound.with_release(move |related| {
            seen.lock().unwrap().push(related.clone());
            true
        });
        let id = RequestId::Number(4.into());
        // Even a request that can send nothing else may release its connection.
        let peer = RequestPeer::for_call(
            Some(&outbound),
            ProtocolVersion::V2025_11_25,
            &LogGate::Request(None),
            None,
            &CancellationToken::new(),
            Some(&id),
            Senders::HANDLER,
        )
        .unwrap();
        assert!(peer.release_connection());
        peer.close();
        assert!(!peer.release_connection(), "not once answered");
        assert_eq!(*asked.lock().unwrap(), std::slice::from_ref(&id));

        let (plain, _) = recorder();
        let peer = RequestPeer::for_call(
            Some(&plain),
            ProtocolVersion::V2025_11_25,
            &LogGate::Session(Arc::new(Minimum::default())),
            None,
            &CancellationToken::new(),
            Some(&id),
            Senders::HANDLER,
        )
        .unwrap();
        assert!(!peer.release_connection(), "stdio has nothing to release");
    }

    #[test]
    fn logs_follow_the_gate() {
        let (outbound, sent) = recorder();
        let session = Arc::new(Minimum::default());
        let log = LogGate::Session(session.clone());
        let peer =
            RequestPeer::for_request(Some(&outbound), ProtocolVersion::V2025_06_18, &log, None)
                .unwrap();
        assert!(peer.log(LogLevel::Debug, None, json!("everything at first")));
        *session.0.lock().unwrap() = Some(LogLevel::Error);
        assert!(!peer.log(LogLevel::Warning, None, json!("filtered")));
        assert!(peer.log(LogLevel::Error, Some("db"), json!({"code": 5})));
        assert_eq!(
            sent.lock().unwrap()[1],
            json!({"jsonrpc": "2.0", "method": "notifications/message", "params":
                {"level": "error", "logger": "db", "data": {"code": 5}}})
        );
        assert_eq!(sent.lock().unwrap().len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn a_long_call_with_a_token_gets_heartbeats() {
        let (outbound, sent) = recorder();
        let token = json!("slow");
        let peer = RequestPeer::for_request(
            Some(&outbound),
            ProtocolVersion::V2025_06_18,
            &LogGate::Request(None),
            Some(&token),
        );
        let every = Duration::from_secs(5);
        let answer = with_heartbeat(
            async {
                tokio::time::sleep(Duration::from_secs(17)).await;
                42
            },
            peer,
            Some(every),
        )
        .await;
        assert_eq!(answer, 42);
        let sent = sent.lock().unwrap();
        assert_eq!(sent.len(), 3, "at 5, 10 and 15 s: {sent:?}");
        assert_eq!(sent[0]["params"]["progress"], json!(0.0));
        assert!(sent[1]["params"]["progress"].as_f64().unwrap() > 0.0);
    }

    #[tokio::test(start_paused = true)]
    async fn no_heartbeat_when_switched_off_or_without_a_token() {
        let (outbound, sent) = recorder();
        let slow = || tokio::time::sleep(Duration::from_secs(30));
        let token = json!(1);
        let with_token = RequestPeer::for_request(
            Some(&outbound),
            ProtocolVersion::V2025_06_18,
            &LogGate::Session(Arc::new(Minimum::default())),
            Some(&token),
        );
        with_heartbeat(slow(), with_token, None).await;
        let without = RequestPeer::for_request(
            Some(&outbound),
            ProtocolVersion::V2025_06_18,
            &LogGate::Session(Arc::new(Minimum::default())),
            None,
        );
        with_heartbeat(slow(), without, Some(Duration::from_secs(1))).await;
        assert!(sent.lock().unwrap().is_empty());
    }
}
