//! The one lifecycle every handler runs through: tool calls, resource reads, prompt gets,
//! listers and `subscriptions/listen`. In order: the request is registered as in flight (its id
//! must be free), the handler starts with panics caught and its `tracing` events forwarded,
//! then runs with heartbeats until it finishes, stops at a question a 2026-07-28 round sends
//! back, is cancelled (its future is dropped and nothing is answered), or becomes a task; the
//! request is answered exactly once. Behaviour around every call (a call pipeline) belongs
//! here, not in the callers.

use std::future::Future;
use std::marker::PhantomData;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use serde_json::value::RawValue;

use super::asking::{Asking, answer_run};
use super::catch_unwind::{CatchUnwind, PanicPayload};
use super::in_flight::InFlightGuard;
use super::{InFlight, Reply};
use crate::ask::missing::MissingCapabilities;
use crate::ask::round::{InputRound, RunOutcome, UntilInput, replayed_state};
use crate::cancel::CancellationToken;
use crate::context::RequestContext;
use crate::context::forward::{forwarding_to, forwarding_while};
use crate::context::peer::{RequestPeer, with_heartbeat};
use crate::future::BoxFuture;
use crate::handler::ToolOutput;
use crate::middleware::{BoxError, Pipeline, Request, Response, run_pipeline};
use crate::protocol::CallToolResult;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};

/// How a handler's run ended, when it was not cancelled: its output, a question to send back
/// (or a replayed state), or a panic.
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

impl Failure for ToolOutput {
    fn failed(&self) -> bool {
        match self {
            ToolOutput::Result(result) => result.failed(),
            ToolOutput::Text(_) => false,
        }
    }
}

impl<O, E> Failure for Result<O, E> {
    fn failed(&self) -> bool {
        self.is_err()
    }
}

/// A list: what it holds is never a failure.
impl<T> Failure for Vec<T> {
    fn failed(&self) -> bool {
        false
    }
}

impl Failure for () {
    fn failed(&self) -> bool {
        false
    }
}

/// What a kind of handler produces, as the call pipeline carries it: into a [`Response`] on
/// the way out of the handler, and back once the layers are done.
pub(super) trait Through: Sized {
    /// The response (or the JSON-RPC error) `self` is, for `request`.
    fn into_response(self, request: &Request) -> Result<Response, BoxError>;

    /// The output a response of this kind holds; `None` for a response of another kind.
    fn from_response(response: Response) -> Option<Self>;

    /// How a layer's error that is no JSON-RPC error answers: a tool's result says it; other
    /// requests get an internal error.
    fn from_error(error: &BoxError) -> Result<Self, ErrorObject> {
        Err(ErrorObject::internal_error(error.to_string()))
    }
}

impl Through for CallToolResult {
    fn into_response(self, _: &Request) -> Result<Response, BoxError> {
        Ok(Response::Tool(self))
    }

    fn from_response(response: Response) -> Option<Self> {
        match response {
            Response::Tool(result) => Some(result),
            _ => None,
        }
    }

    fn from_error(error: &BoxError) -> Result<Self, ErrorObject> {
        Ok(CallToolResult::error(error.to_string()))
    }
}

/// A request on its way into the pipeline: the layers to pass and the request they see.
pub(super) struct Piped {
    pub(super) pipeline: Pipeline,
    pub(super) request: Request,
    /// `_meta` of 2026-07-28 results.
    pub(super) modern_meta: Arc<RawValue>,
}

/// How the layers' answer ends the run.
fn settle<T: Through>(answered: Result<Response, BoxError>, request: &str) -> RunOutcome<T> {
    let error = match answered {
        Ok(Response::InputRequired) => return RunOutcome::NeedsInput,
        Ok(response) => {
            return match T::from_response(response) {
                Some(output) => RunOutcome::Done(output),
                None => RunOutcome::Refused(ErrorObject::internal_error(format!(
                    "internal error: a layer answered `{request}` with the response of another \
                     method"
                ))),
            };
        }
        Err(error) => error,
    };
    match error.downcast::<crate::middleware::Error>() {
        Ok(refused) => RunOutcome::Refused(refused.0),
        Err(error) => {
            tracing::debug!(request, error = %error, "a layer failed the request");
            match T::from_error(&error) {
                Ok(output) => RunOutcome::Done(output),
                Err(refused) => RunOutcome::Refused(refused),
            }
        }
    }
}

/// A handler's run, straight or through the layers: either way it comes to a [`RunOutcome`].
enum Running<T> {
    /// No layers: the handler itself (no box beyond its own).
    Straight(UntilInput<BoxFuture<'static, T>>),
    /// Through the layers, which end in the handler.
    Piped(BoxFuture<'static, RunOutcome<T>>),
}

impl<T> Future for Running<T> {
    type Output = RunOutcome<T>;

    #[inline(always)]
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<RunOutcome<T>> {
        match self.get_mut() {
            Running::Straight(running) => Pin::new(running).poll(cx),
            Running::Piped(running) => running.as_mut().poll(cx),
        }
    }
}

/// What starts a handler, given the request the layers passed on.
type Start<T> = Box<dyn FnOnce(Option<&mut Request>) -> BoxFuture<'static, T> + Send>;

/// The run of `start` through the layers of `piped`, with the 2026-07-28 `round` it may end
/// at. Out of line and boxed: one copy per kind of handler, not per place that starts one.
#[inline(never)]
fn through_layers<T: Send + 'static>(
    piped: PipedRun<T>,
    start: Start<T>,
    round: Option<Arc<InputRound>>,
) -> BoxFuture<'static, RunOutcome<T>> {
    let PipedRun {
        piped: Piped {
            pipeline,
            mut request,
            ..
        },
        into_response,
        settle,
    } = piped;
    #[cfg(feature = "otel")]
    {
        request.first_round = round.as_ref().map(|round| round.first_round());
    }
    request.handle.runner = Some(Box::new(move |mut request: Request| {
        let running = start(Some(&mut request));
        Box::pin(async move {
            match UntilInput::new(running, round).await {
                RunOutcome::Done(output) => into_response(output, &request),
                RunOutcome::NeedsInput => Ok(Response::InputRequired),
                RunOutcome::Replayed => Err(crate::middleware::Error(replayed_state()).into()),
                RunOutcome::Refused(refused) => Err(crate::middleware::Error(refused).into()),
            }
        })
    }));
    let method = request.method();
    let answered = run_pipeline(pipeline, request);
    Box::pin(async move { settle(answered.await, method.as_str()) })
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

/// How a run with nothing around it started (see [`start_alone`]).
pub(super) enum Started<F: Future> {
    /// It ended in its first poll: its output, or its panic.
    Finished(Result<F::Output, PanicPayload>),
    /// It waits on something: to go on as a [`Run::quiet`] run, which registers it.
    Waiting(F),
}

/// Start the handler of request `id` with `start` and poll it once, for a run with nothing
/// around it: no layers, no task, no round to end at, no peer to report through (so no
/// heartbeat and no forwarded `tracing` events). What [`Run::start`] does for such a run,
/// without building one: most calls finish in their first poll.
///
/// The request is not registered while it is polled: nothing can cancel it then (its
/// dispatch holds the session, through which cancellations come), so only its id is checked
/// to be free. One that waits is registered by the run it goes on as.
#[inline(always)]
pub(super) fn start_alone<F: Future + Unpin>(
    in_flight: &InFlight,
    id: &RequestId,
    start: impl FnOnce() -> F,
) -> Result<Started<F>, ErrorObject> {
    if in_flight.is_running(id) {
        return Err(already_running(id));
    }
    let mut running = match catch_unwind(AssertUnwindSafe(start)) {
        Ok(running) => running,
        Err(payload) => return Ok(Started::Finished(Err(payload))),
    };
    let polled = catch_unwind(AssertUnwindSafe(|| {
        Pin::new(&mut running).poll(&mut Context::from_waker(Waker::noop()))
    }));
    Ok(match polled {
        Ok(Poll::Ready(output)) => Started::Finished(Ok(output)),
        Ok(Poll::Pending) => Started::Waiting(running),
        Err(payload) => Started::Finished(Err(payload)),
    })
}

fn already_running(id: &RequestId) -> ErrorObject {
    ErrorObject::invalid_request(format!(
        "request id {id} is already used by a call still running"
    ))
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
    /// Boxed: a run is moved through its builder methods, and a request is large.
    piped: Option<Box<PipedRun<T>>>,
    output: PhantomData<fn() -> T>,
}

/// A run's way through the layers: the request, and how its output goes in and comes out.
struct PipedRun<T> {
    piped: Piped,
    into_response: fn(T, &Request) -> Result<Response, BoxError>,
    settle: fn(Result<Response, BoxError>, &str) -> RunOutcome<T>,
}

impl<T: Through> Run<T> {
    /// This run, through the layers of `piped` (none when `None`).
    pub(super) fn through(mut self, piped: Option<Piped>) -> Self {
        self.piped = piped.map(|piped| {
            Box::new(PipedRun {
                piped,
                into_response: T::into_response,
                settle: settle::<T>,
            })
        });
        self
    }
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
            piped: None,
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
            piped: None,
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
    ///
    /// Through layers, `start` is given the request they passed on (to take the arguments
    /// they may have changed), and runs only if they pass it on; without, it is given `None`.
    #[cfg_attr(not(feature = "tasks"), allow(unused_labels))]
    // Each kind of handler starts runs from one place: inlined there, the handler's argument
    // (a whole `ToolCall` for a tool) is not copied once more on the way in.
    #[inline(always)]
    pub(super) fn start<S, A>(
        self,
        in_flight: &InFlight,
        start: S,
        answer: A,
    ) -> Result<Reply, ErrorObject>
    where
        S: FnOnce(Option<&mut Request>) -> BoxFuture<'static, T> + Send + 'static,
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
            piped,
            output: _,
        } = self;
        let registration = in_flight
            .register(id.clone(), cancellation.clone())
            .map_err(|_| already_running(&id))?;
        let mut started = match piped {
            None => {
                // Reached through a reference, so the handler's input (a whole `ToolCall` for a
                // tool) is not copied into each wrapper on its way to the handler.
                let mut start = Some(start);
                catch_unwind(AssertUnwindSafe(|| {
                    forwarding_while(tracing_peer.clone(), || {
                        (start.take().expect("a run starts once"))(None)
                    })
                }))
                .map(|running| Running::Straight(UntilInput::new(running, round.clone())))
            }
            // Everything from the first layer on runs inside the future, so the panic guard
            // around it catches a layer's panic as it does a handler's.
            Some(piped) => Ok(Running::Piped(through_layers(
                *piped,
                Box::new(start),
                round.clone(),
            ))),
        };
        // A handler that finishes without waiting on anything (most do) is answered here:
        // nothing of its run need outlive the request's dispatch, so nothing is boxed for it.
        // Polled with a waker nobody wakes: a run still pending is polled again, with its
        // transport's, before anything could have woken it.
        #[cfg(feature = "tasks")]
        let may_finish_now = task.is_none();
        #[cfg(not(feature = "tasks"))]
        let may_finish_now = true;
        let ended = Ended {
            id,
            cancellation,
            peer,
            round,
            wanted,
            modern_meta,
        };
        let mut answer = Some(answer);
        let mut registration = Some(registration);
        // Answered where the output is made: a handler's output is large, and each step out
        // of a function is a copy of it.
        let mut finish = |outcome: Outcome<T>| {
            let answer = answer.take().expect("a run is answered once");
            ended.answer(Some(outcome), registration.take(), answer)
        };
        let finished_now = match &mut started {
            Ok(Running::Straight(running)) if may_finish_now => {
                let polled = catch_unwind(AssertUnwindSafe(|| {
                    let polled = forwarding_while(tracing_peer.clone(), || {
                        Pin::new(running).poll(&mut Context::from_waker(Waker::noop()))
                    });
                    match polled {
                        Poll::Ready(outcome) => Some(finish(Ok(outcome))),
                        Poll::Pending => None,
                    }
                }));
                match polled {
                    Ok(finished) => finished,
                    // The handler panicked. (Had its answer panicked, there is no answer left
                    // to make: `finish` panics again, as an answer's panic always went on.)
                    Err(payload) => Some(finish(Err(payload))),
                }
            }
            _ => None,
        };
        if let Some(finished) = finished_now {
            return Ok(finished.map_or(Reply::None, Reply::Ready));
        }
        let answer = answer.expect("answered only when finished");
        Ok(Reply::Pending(Box::pin(async move {
            let Ended {
                cancellation, peer, ..
            } = &ended;
            let outcome = match started {
                Ok(running) => 'ran: {
                    let running = forwarding_to(tracing_peer, running);
                    let running =
                        with_heartbeat(CatchUnwind::new(running), peer.clone(), heartbeat);
                    #[cfg(feature = "tasks")]
                    if let Some(task) = task {
                        match task
                            .run(ended.id.clone(), Box::pin(running), cancellation.clone())
                            .await
                        {
                            Ran::Finished(outcome) => break 'ran outcome,
                            Ran::BecameTask(created) => {
                                if let Some(peer) = peer {
                                    peer.close();
                                }
                                return Some(created);
                            }
                        }
                    }
                    cancellation.unless_cancelled(running).await
                }
                Err(payload) => Some(Err(payload)),
            };
            ended.answer(outcome, registration, answer)
        })))
    }
}

/// What a run's answer is made from once it ended.
struct Ended {
    id: RequestId,
    cancellation: CancellationToken,
    peer: Option<Arc<RequestPeer>>,
    round: Option<Arc<InputRound>>,
    wanted: Option<Arc<MissingCapabilities>>,
    modern_meta: Arc<RawValue>,
}

impl Ended {
    /// The answer to a run that ended with `outcome` (`None`: cancelled while it ran), made by
    /// `answer` unless the run was cancelled, refused, or failed wanting a capability its client
    /// lacks. `registration` (the request in flight) is released first.
    #[inline(always)]
    fn answer<T: Failure>(
        &self,
        outcome: Option<Outcome<T>>,
        registration: Option<InFlightGuard>,
        answer: impl FnOnce(Result<T, PanicPayload>, &RequestId, &Arc<RawValue>) -> Outgoing,
    ) -> Option<Outgoing> {
        let (id, modern_meta) = (&self.id, &self.modern_meta);
        let (round, wanted) = (self.round.as_deref(), self.wanted.as_deref());
        // Held elsewhere only while something may still report through it (a task, a
        // detached thread of a plain fn): closing it then is what stops that.
        if let Some(peer) = self
            .peer
            .as_ref()
            .filter(|peer| Arc::strong_count(peer) > 1)
        {
            peer.close();
        }
        drop(registration);
        let outcome = match outcome {
            Some(outcome) if !self.cancellation.is_cancelled() => outcome,
            _ => {
                tracing::debug!(%id, "request cancelled; its response is dropped");
                return None;
            }
        };
        let missing = || missing_capability(round, wanted);
        if let Ok(RunOutcome::Refused(refused)) = outcome {
            return Some(Outgoing::error(Some(id), &missing().unwrap_or(refused)));
        }
        Some(answer_run(outcome, id, round, modern_meta, |outcome| {
            let failed = outcome.as_ref().map_or(true, Failure::failed);
            let reply = answer(outcome, id, modern_meta);
            match failed.then(missing).flatten() {
                Some(missing) => Outgoing::error(Some(id), &missing),
                None => reply,
            }
        }))
    }
}
