//! The one lifecycle every handler runs through: tool calls, resource reads, prompt gets,
//! listers and `subscriptions/listen`. In order: the request is registered as in flight (its id
//! must be free), the handler starts with panics caught and its `tracing` events forwarded,
//! then runs with heartbeats until it finishes, stops at a question a 2026-07-28 round sends
//! back, is cancelled (its future is dropped and nothing is answered), or becomes a task; the
//! request is answered exactly once. Behaviour around every call (a call pipeline) belongs
//! here, not in the callers.

use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::time::Duration;

use serde_json::value::RawValue;

use super::asking::{Asking, answer_run};
use super::catch_unwind::{CatchUnwind, PanicPayload};
use super::{InFlight, Reply};
use crate::ask::missing::MissingCapabilities;
#[cfg(feature = "tasks")]
use crate::ask::round::RunOutcome;
use crate::ask::round::{InputRound, UntilInput};
use crate::cancel::CancellationToken;
use crate::context::RequestContext;
use crate::context::forward::{forwarding_to, forwarding_while};
use crate::context::peer::{RequestPeer, with_heartbeat};
use crate::future::BoxFuture;
use crate::protocol::CallToolResult;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};

/// How a handler's run ended, when it was not cancelled: its output, a question to send back
/// (or a replayed state), or a panic.
#[cfg(feature = "tasks")]
pub(super) type Outcome<T> = Result<RunOutcome<T>, PanicPayload>;

/// What a run that may become a task did (see [`BecomeTask`]).
#[cfg(feature = "tasks")]
pub(super) enum Ran<T> {
    /// It ended as a call: its outcome, or `None` when cancelled.
    Finished(Option<Outcome<T>>),
    /// It became a task: the `CreateTaskResult` that answers the request.
    BecameTask(Outgoing),
}

/// Turns a run into a task once it waits on anything (tool calls that may become tasks).
#[cfg(feature = "tasks")]
pub(super) trait BecomeTask<T>: Send {
    /// Run `running` until it ends or becomes a task.
    fn run(
        self: Box<Self>,
        id: RequestId,
        running: BoxFuture<'static, Outcome<T>>,
        cancellation: CancellationToken,
    ) -> BoxFuture<'static, Ran<T>>;
}

/// What a handler's output says of how it went: a failed run that wanted a capability its
/// client did not declare is answered with the `-32021` error naming it instead.
pub(super) trait Failure {
    /// Whether the output reports a failure.
    fn failed(&self) -> bool;
}

impl Failure for CallToolResult {
    fn failed(&self) -> bool {
        self.is_error
    }
}

impl<O, E> Failure for Result<O, E> {
    fn failed(&self) -> bool {
        self.is_err()
    }
}

impl Failure for () {
    fn failed(&self) -> bool {
        false
    }
}

/// For a run that failed after wanting a capability its request did not declare (asked in
/// `round`, or noted in `wanted` where it could ask nothing), the `-32021` error saying which.
pub(super) fn missing_capability(
    round: Option<&InputRound>,
    wanted: Option<&MissingCapabilities>,
) -> Option<ErrorObject> {
    match (round, wanted) {
        (Some(round), _) => round.missing_capability_error(),
        (None, Some(wanted)) => wanted.error(),
        (None, None) => None,
    }
}

/// One run of a handler for request `id`, before it starts.
pub(super) struct Run<T> {
    id: RequestId,
    cancellation: CancellationToken,
    peer: Option<Arc<RequestPeer>>,
    tracing_peer: Option<Arc<RequestPeer>>,
    heartbeat: Option<Duration>,
    round: Option<Arc<InputRound>>,
    wanted: Option<Arc<MissingCapabilities>>,
    modern_meta: Arc<RawValue>,
    #[cfg(feature = "tasks")]
    task: Option<Box<dyn BecomeTask<T>>>,
    output: PhantomData<fn() -> T>,
}

impl<T: Failure + Send + 'static> Run<T> {
    /// The run of the handler that `context` is given to: cancelled by its token, reporting
    /// through its peer, with a heartbeat every `heartbeat`, asking as `asking` says.
    #[inline]
    pub(super) fn of(
        id: &RequestId,
        context: &RequestContext,
        heartbeat: Option<Duration>,
        asking: &Asking,
        modern_meta: Arc<RawValue>,
    ) -> Self {
        Run {
            id: id.clone(),
            cancellation: context.cancellation.clone(),
            peer: context.peer.clone(),
            tracing_peer: context.tracing_peer(),
            heartbeat,
            round: asking.round.clone(),
            wanted: asking.wanted.clone(),
            modern_meta,
            #[cfg(feature = "tasks")]
            task: None,
            output: PhantomData,
        }
    }

    /// A run that reports nothing while it runs (a lister, `subscriptions/listen`): only
    /// `cancellation` stops it.
    pub(super) fn quiet(
        id: &RequestId,
        cancellation: CancellationToken,
        modern_meta: Arc<RawValue>,
    ) -> Self {
        Run {
            id: id.clone(),
            cancellation,
            peer: None,
            tracing_peer: None,
            heartbeat: None,
            round: None,
            wanted: None,
            modern_meta,
            #[cfg(feature = "tasks")]
            task: None,
            output: PhantomData,
        }
    }

    /// This run, becoming a task through `task` once it waits.
    #[cfg(feature = "tasks")]
    pub(super) fn becoming_task(mut self, task: Option<Box<dyn BecomeTask<T>>>) -> Self {
        self.task = task;
        self
    }

    /// Register the request, start the handler with `start`, and answer its output with
    /// `answer`, given the request's id and the `_meta` of 2026-07-28 results (a panic comes to
    /// `answer` as `Err`). A failure after wanting a capability the client lacks is answered
    /// with the error naming it instead (see [`Failure`]).
    #[cfg_attr(not(feature = "tasks"), allow(unused_labels))]
    // Each kind of handler starts runs from one place: inlined there, the handler's argument
    // (a whole `ToolCall` for a tool) is not copied once more on the way in.
    #[inline(always)]
    pub(super) fn start<A>(
        self,
        in_flight: &InFlight,
        start: impl FnOnce() -> BoxFuture<'static, T>,
        answer: A,
    ) -> Result<Reply, ErrorObject>
    where
        A: FnOnce(Result<T, PanicPayload>, &RequestId, &Arc<RawValue>) -> Outgoing + Send + 'static,
    {
        let Run {
            id,
            cancellation,
            peer,
            tracing_peer,
            heartbeat,
            round,
            wanted,
            modern_meta,
            #[cfg(feature = "tasks")]
            task,
            output: _,
        } = self;
        let registration = in_flight
            .register(id.clone(), cancellation.clone())
            .map_err(|_| {
                ErrorObject::invalid_request(format!(
                    "request id {id} is already used by a call still running"
                ))
            })?;
        // Reached through a reference, so the handler's input (a whole `ToolCall` for a tool)
        // is not copied into each wrapper on its way to the handler.
        let mut start = Some(start);
        let started = catch_unwind(AssertUnwindSafe(|| {
            forwarding_while(tracing_peer.clone(), || {
                (start.take().expect("a run starts once"))()
            })
        }));
        Ok(Reply::Pending(Box::pin(async move {
            let outcome = match started {
                Ok(running) => 'ran: {
                    let running = forwarding_to(tracing_peer, running);
                    let running = UntilInput::new(running, round.clone());
                    let running =
                        with_heartbeat(CatchUnwind::new(running), peer.clone(), heartbeat);
                    #[cfg(feature = "tasks")]
                    if let Some(task) = task {
                        match task
                            .run(id.clone(), Box::pin(running), cancellation.clone())
                            .await
                        {
                            Ran::Finished(outcome) => break 'ran outcome,
                            Ran::BecameTask(created) => {
                                if let Some(peer) = &peer {
                                    peer.close();
                                }
                                return Some(created);
                            }
                        }
                    }
                    tokio::select! {
                        biased;
                        outcome = running => Some(outcome),
                        () = cancellation.cancelled() => None,
                    }
                }
                Err(payload) => Some(Err(payload)),
            };
            // Held elsewhere only while something may still report through it (a task, a
            // detached thread of a plain fn): closing it then is what stops that.
            if let Some(peer) = peer.as_ref().filter(|peer| Arc::strong_count(peer) > 1) {
                peer.close();
            }
            drop(registration);
            let outcome = match outcome {
                Some(outcome) if !cancellation.is_cancelled() => outcome,
                _ => {
                    tracing::debug!(%id, "request cancelled; its response is dropped");
                    return None;
                }
            };
            Some(answer_run(
                outcome,
                &id,
                round.as_deref(),
                &modern_meta,
                |outcome| {
                    let failed = outcome.as_ref().map_or(true, Failure::failed);
                    let reply = answer(outcome, &id, &modern_meta);
                    match failed
                        .then(|| missing_capability(round.as_deref(), wanted.as_deref()))
                        .flatten()
                    {
                        Some(missing) => Outgoing::error(Some(&id), &missing),
                        None => reply,
                    }
                },
            ))
        })))
    }
}
