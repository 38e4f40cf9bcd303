//! `tools/call`: find the tool, start it, and answer when it finishes (unless cancelled).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::asking::answer_run;
use super::catch_unwind::{CatchUnwind, PanicPayload, panic_message};
use super::classify::RequestScope;
#[cfg(feature = "tasks")]
use super::tasks::Ran;
use super::{Dispatcher, InFlight, Reply};
use crate::ask::missing::MissingCapabilities;
use crate::ask::round::{InputRound, UntilInput};
use crate::cancel::CancellationToken;
use crate::context::forward::{forwarding_to, forwarding_while};
use crate::context::peer::with_heartbeat;
#[cfg(feature = "tasks")]
use crate::handler::BoxFuture;
use crate::handler::{JsonObject, ToolCall};
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, Params, RequestId};
use crate::protocol::wire::{CallToolResultWire, ModernResult};
use crate::protocol::{CallToolResult, ProtocolVersion};
#[cfg(feature = "tasks")]
use crate::task::slot::NoteWaits;

impl Dispatcher {
    /// Start the tool `params.name` names. The reply is pending until the tool finishes; it
    /// resolves to nothing when the client cancelled the call meanwhile.
    ///
    /// `arguments` may be absent or `null` (no arguments). Anything but an object is invalid
    /// params (`-32602`): the request itself is malformed, whereas arguments that do not fit
    /// the tool's schema come back as an `isError` result from the tool, which the model can
    /// act on.
    pub(super) fn call_tool(
        &self,
        id: &RequestId,
        params: Option<Box<Params>>,
        scope: RequestScope,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let mut params = params.ok_or_else(|| {
            ErrorObject::invalid_params("`tools/call` needs params naming the tool")
        })?;
        // The decoder set the members a call reads apart: no map to look them up in.
        let (name, arguments) = (params.name.take(), params.arguments.take());
        let (request_state, input_responses) =
            (params.request_state.take(), params.input_responses.take());
        drop(params);
        // A 2026-07-28 retry carrying answers.
        let resume = (request_state.is_some() || input_responses.is_some()).then(|| {
            let mut resume = JsonObject::new();
            if let Some(answers) = input_responses {
                resume.insert("inputResponses".to_owned(), answers);
            }
            if let Some(state) = request_state {
                resume.insert("requestState".to_owned(), state);
            }
            resume
        });
        let catalog = self.catalog.current();
        let tool = match &name {
            Some(Value::String(name)) => catalog
                .find(name)
                .ok_or_else(|| ErrorObject::invalid_params(format!("unknown tool `{name}`")))?,
            _ => return Err(ErrorObject::invalid_params("`name` must be a tool's name")),
        };
        let arguments = match arguments {
            None | Some(Value::Null) => Value::Object(JsonObject::new()),
            Some(arguments @ Value::Object(_)) => arguments,
            Some(_) => return Err(ErrorObject::invalid_params("`arguments` must be an object")),
        };
        let asking = self.call_asking(id, &scope, &tool.name, &arguments, resume.as_ref())?;
        #[cfg(feature = "tasks")]
        let task_start = self.task_start(tool, &scope, &asking)?;
        let Value::Object(arguments) = arguments else {
            unreachable!("checked to be an object above")
        };

        let cancellation = CancellationToken::new();
        let registration = in_flight
            .register(id.clone(), cancellation.clone())
            .map_err(|_| {
                ErrorObject::invalid_request(format!(
                    "request id {id} is already used by a call still running"
                ))
            })?;
        let revision = scope.revision;
        let mut context = super::offerings::context(scope, cancellation.clone());
        context.asker = asking.asker;
        #[cfg(feature = "tasks")]
        {
            context.task = task_start.as_ref().map(|start| start.slot.clone());
        }
        let (round, wanted) = (asking.round, asking.wanted);
        let peer = context.peer.clone();
        // Reference counts are atomic operations: none for what a call does not use.
        let tracing_peer = match context.forward_tracing {
            true => peer.clone(),
            false => None,
        };
        let heartbeat = self.progress_heartbeat;
        let heartbeat_peer = match heartbeat {
            Some(_) => peer.clone().filter(|peer| peer.has_progress()),
            None => None,
        };
        let call = ToolCall { arguments, context };
        tracing::debug!(%id, tool = &*tool.name, "tools/call");

        // A hand-written handler may panic before it even returns its future.
        let started = catch_unwind(AssertUnwindSafe(|| {
            forwarding_while(tracing_peer.clone(), || tool.handler.call(call))
        }));
        let name = tool.name.clone();
        let modern_meta = self.modern_meta.clone();
        // A call that may become a task notes when its handler first waits.
        #[cfg(feature = "tasks")]
        let started = match &task_start {
            Some(start) => started.map(|handler| -> BoxFuture<'static, CallToolResult> {
                Box::pin(NoteWaits::new(handler, start.slot.clone()))
            }),
            None => started,
        };
        let id = id.clone();
        Ok(Reply::Pending(Box::pin(async move {
            let outcome = match started {
                Ok(running) => 'ran: {
                    // `tracing` events of the tool reach its client when the server says so.
                    let running = forwarding_to(tracing_peer, running);
                    let running = UntilInput::new(running, round.clone());
                    let running =
                        with_heartbeat(CatchUnwind::new(running), heartbeat_peer, heartbeat);
                    #[cfg(feature = "tasks")]
                    if let Some(start) = task_start {
                        match start.run(&id, Box::pin(running), &cancellation).await {
                            Ran::Finished(outcome) => break 'ran outcome,
                            Ran::BecameTask(created) => {
                                // The task reports through `tasks/get`, not this request.
                                if let Some(peer) = &peer {
                                    peer.close();
                                }
                                return Some(created);
                            }
                        }
                    }
                    // Once cancelled, the tool is polled once more (a tool awaiting its token
                    // ends then) and dropped if it still runs: a tool that ignores its token
                    // does not run on for an answer nobody will read.
                    break 'ran tokio::select! {
                        biased;
                        outcome = running => Some(outcome),
                        () = cancellation.cancelled() => None,
                    };
                }
                Err(payload) => Some(Err(payload)),
            };
            // Whatever the tool left running reports nothing after the response. Held nowhere
            // else (the tool's future is dropped), the peer can report nothing anyway.
            if let Some(peer) = peer.as_ref().filter(|peer| Arc::strong_count(peer) > 1) {
                peer.close();
            }
            drop(registration);
            let outcome = match outcome {
                Some(outcome) if !cancellation.is_cancelled() => outcome,
                _ => {
                    tracing::debug!(%id, tool = &*name, "call cancelled; its response is dropped");
                    return None;
                }
            };
            Some(answer_run(
                outcome,
                &id,
                round.as_deref(),
                &modern_meta,
                |outcome| {
                    let result = outcome.unwrap_or_else(|payload| {
                        CallToolResult::error(panic_failure(&name, &payload))
                    });
                    if let Some(missing) =
                        wanted_capability(&result, round.as_deref(), wanted.as_deref())
                    {
                        return Outgoing::error(Some(&id), &missing);
                    }
                    encode_result(&id, &result, revision, &modern_meta)
                },
            ))
        })))
    }
}

/// What the client learns of a tool that panicked: only that it failed; the details go to
/// the server's log.
pub(super) fn panic_failure(tool: &str, payload: &PanicPayload) -> String {
    tracing::error!(tool, panic = panic_message(payload), "tool panicked");
    format!(
        "internal error: the tool `{tool}` failed unexpectedly (details are in the server's log)"
    )
}

/// For a 2026-07-28 tool that failed (`result`) after wanting a capability its request did
/// not declare, the `-32021` error saying which.
pub(super) fn wanted_capability(
    result: &CallToolResult,
    round: Option<&InputRound>,
    wanted: Option<&MissingCapabilities>,
) -> Option<ErrorObject> {
    match (round, wanted) {
        _ if !result.is_error => None,
        (Some(round), _) => round.missing_capability_error(),
        (None, Some(wanted)) => wanted.error(),
        (None, None) => None,
    }
}

fn encode_result(
    id: &RequestId,
    result: &CallToolResult,
    revision: ProtocolVersion,
    modern_meta: &Arc<RawValue>,
) -> Outgoing {
    let modern = revision
        .is_modern()
        .then(|| ModernResult::complete(modern_meta));
    Outgoing::result(id, &CallToolResultWire::new(result, revision, modern))
}
