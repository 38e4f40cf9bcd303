//! `tools/call`: find the tool, start it, and answer when it finishes (unless cancelled).

use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::asking::BoundArguments;
use super::catch_unwind::{PanicPayload, panic_message};
use super::classify::RequestScope;
#[cfg(feature = "tasks")]
use super::run::BecomeTask;
use super::run::{self, Run, Started};
use super::{Dispatcher, InFlight, Reply};
use crate::cancel::CancellationToken;
use crate::handler::{BoxFuture, JsonObject, ToolCall, ToolOutput, ToolRun};
use crate::middleware::Method;
use crate::protocol::jsonrpc::{Arguments, ErrorObject, Name, Outgoing, Params, RequestId};
use crate::protocol::wire::{CallToolResultWire, ModernResult, write_text};
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
    ///
    /// With layers, a call refused before its tool starts (an unknown tool) passes them all
    /// the same.
    pub(super) fn call_tool(
        &self,
        id: &RequestId,
        params: Option<Box<Params>>,
        scope: &mut RequestScope,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        let name = params.as_ref().and_then(|params| params.name.as_ref());
        let refusal = self.refusable(Method::CallTool, scope, name.and_then(Name::as_str));
        let started = self.start_tool(id, params, scope, in_flight);
        self.unless_refused(refusal, started, id, in_flight)
    }

    fn start_tool(
        &self,
        id: &RequestId,
        params: Option<Box<Params>>,
        scope: &mut RequestScope,
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
        let resume = (request_state.is_some() || input_responses.is_some())
            .then(|| resumed(request_state, input_responses));
        let catalog = self.catalog.current();
        let tool = match name.as_ref().and_then(Name::as_str) {
            Some(name) => catalog
                .find(name)
                .ok_or_else(|| ErrorObject::invalid_params(format!("unknown tool `{name}`")))?,
            None => return Err(ErrorObject::invalid_params("`name` must be a tool's name")),
        };
        scope.permit(tool.handler.scopes())?;
        let arguments = match arguments {
            None => None,
            Some(arguments) if arguments.is_null() => None,
            Some(arguments) if arguments.is_object() => Some(arguments),
            Some(_) => return Err(ErrorObject::invalid_params("`arguments` must be an object")),
        };
        // A generated tool reads each argument from the text into its own type, unless
        // layers before it need the object built. (A round binds its states to the text,
        // digested as the built object only when it issues or resumes one.)
        let keep_text =
            tool.handler.reads_arguments_text() && self.pipeline.is_none() && tool.layers.is_none();
        let (arguments, arguments_text) = match arguments {
            Some(Arguments::Text(text)) if keep_text => {
                (Value::Object(JsonObject::new()), Some(text))
            }
            Some(arguments) => (arguments.into_value()?, None),
            None => (Value::Object(JsonObject::new()), None),
        };
        let bound = match &arguments_text {
            Some(text) => BoundArguments::Text(text),
            None => BoundArguments::Built(&arguments),
        };
        let reaches_context = tool.handler.reaches_context();
        let mut asking = self.call_asking(
            id,
            scope,
            &tool.name,
            bound,
            resume.as_ref(),
            reaches_context,
        )?;
        #[cfg(feature = "tasks")]
        let task_start = self.task_start(tool, scope, &asking)?;
        let Value::Object(arguments) = arguments else {
            unreachable!("checked to be an object above")
        };

        let token = in_flight.token();
        let piped = self
            .piped(id, Method::CallTool, scope, tool.layers.as_ref(), &token)
            .map(|mut piped| {
                let request = &mut piped.request;
                request.name = Some(tool.name.clone());
                request.retry = resume.is_some();
                request.annotations = Some(tool.annotations);
                #[cfg(feature = "tasks")]
                {
                    request.may_become_task = task_start.is_some();
                }
                piped
            });
        // Built where it lies: a `ToolCall` is large, and each move of it is a copy.
        let mut call = ToolCall {
            arguments,
            context: super::offerings::context(scope, token, reaches_context),
        };
        let context = &mut call.context;
        context.asker = asking.asker.take();
        context.arguments_text = arguments_text;
        #[cfg(feature = "tasks")]
        {
            context.task = task_start.as_ref().map(|start| start.slot.clone());
        }
        // Nothing around the run (no layers, task, round, or peer to report through): it
        // starts here, and most calls are answered here, with nothing kept for later.
        #[cfg(feature = "tasks")]
        let alone = task_start.is_none();
        #[cfg(not(feature = "tasks"))]
        let alone = true;
        if tracing::level_enabled!(tracing::Level::DEBUG) {
            note_call(id, &tool.name);
        }
        if alone && piped.is_none() && asking.collects_nothing() && context.peer.is_none() {
            let revision = context.revision;
            let token = context.cancellation.clone();
            let handler = &tool.handler;
            return match run::start_alone(in_flight, id, || handler.call_output(call))? {
                Started::Finished(outcome) if token.is_cancelled() => {
                    drop(outcome);
                    Ok(Reply::None)
                }
                Started::Finished(outcome) => Ok(Reply::Ready(answer_call(
                    outcome,
                    &tool.name,
                    id,
                    revision,
                    &self.modern_meta,
                ))),
                Started::Waiting(running) => {
                    self.go_on_waiting(id, token, tool.name.clone(), revision, running, in_flight)
                }
            };
        }
        let run = Run::of(
            id,
            context,
            self.progress_heartbeat,
            &asking,
            self.modern_meta.clone(),
        );
        #[cfg(feature = "tasks")]
        let waits_noted = task_start.as_ref().map(|start| start.slot.clone());
        #[cfg(feature = "tasks")]
        let run = run.becoming_task(
            task_start.map(|start| -> Box<dyn BecomeTask<CallToolResult>> { Box::new(start) }),
        );
        let revision = call.context.revision;
        let run = match piped {
            Some(mut piped) => {
                call.context.cancellation = piped.request.cancellation.clone();
                piped.request.arguments = Some(std::mem::take(&mut call.arguments));
                run.through(Some(piped))
            }
            None => run,
        };
        let handler = tool.handler.clone();
        let name = tool.name.clone();
        run.start(
            in_flight,
            move |request| {
                if let Some(arguments) = request.and_then(|request| request.arguments.take()) {
                    call.arguments = arguments;
                }
                let running = handler.call(call);
                // A call that may become a task does so when it first waits on anything.
                #[cfg(feature = "tasks")]
                if let Some(slot) = waits_noted {
                    return Box::pin(NoteWaits::new(running, slot));
                }
                running
            },
            move |outcome, id, modern_meta| {
                answer_call(
                    outcome.map(ToolOutput::Result),
                    &name,
                    id,
                    revision,
                    modern_meta,
                )
            },
        )
    }
}

impl Dispatcher {
    /// A call started alone that waits on something: it goes on as a quiet run (see
    /// [`run::start_alone`]). Out of line: most calls finish in their first poll.
    #[cold]
    #[inline(never)]
    fn go_on_waiting(
        &self,
        id: &RequestId,
        token: CancellationToken,
        name: Arc<str>,
        revision: ProtocolVersion,
        running: ToolRun,
        in_flight: &InFlight,
    ) -> Result<Reply, ErrorObject> {
        Run::quiet(id, token, self.modern_meta.clone()).start(
            in_flight,
            move |_| -> BoxFuture<'static, ToolOutput> { Box::pin(running) },
            move |outcome, id, modern_meta| answer_call(outcome, &name, id, revision, modern_meta),
        )
    }
}

/// The response to a call of the tool `name` that ended with `outcome` (`Err`: it panicked).
/// Text (from [`ToolHandler::call_output`]) is written straight into the response.
///
/// [`ToolHandler::call_output`]: crate::handler::ToolHandler::call_output
fn answer_call(
    outcome: Result<ToolOutput, PanicPayload>,
    name: &str,
    id: &RequestId,
    revision: ProtocolVersion,
    modern_meta: &Arc<RawValue>,
) -> Outgoing {
    let result = match outcome {
        Ok(ToolOutput::Text(text)) => {
            return Outgoing::result_written(id, |bytes| {
                write_text(bytes, &text, revision.is_modern().then_some(&**modern_meta));
                Ok(())
            });
        }
        Ok(ToolOutput::Result(result)) => result,
        Err(payload) => CallToolResult::error(panic_failure(name, &payload)),
    };
    encode_result(id, &result, revision, modern_meta)
}

/// What the client learns of a tool that panicked: only that it failed; the details go to
/// the server's log.
pub(super) fn panic_failure(tool: &str, payload: &PanicPayload) -> String {
    tracing::error!(tool, panic = panic_message(payload), "tool panicked");
    format!(
        "internal error: the tool `{tool}` failed unexpectedly (details are in the server's log)"
    )
}

pub(super) fn encode_result(
    id: &RequestId,
    result: &CallToolResult,
    revision: ProtocolVersion,
    modern_meta: &Arc<RawValue>,
) -> Outgoing {
    let modern = revision
        .is_modern()
        .then(|| ModernResult::complete(modern_meta));
    let wire = CallToolResultWire::new(result, revision, modern);
    Outgoing::result_written(id, |bytes| wire.write(bytes))
}

/// A retry's answers and state, as the round reads them. Out of line, as is [`note_call`]:
/// neither is on the way of a first call, and their code stays out of it.
#[cold]
#[inline(never)]
fn resumed(request_state: Option<Value>, input_responses: Option<Value>) -> JsonObject {
    let mut resume = JsonObject::new();
    if let Some(answers) = input_responses {
        resume.insert("inputResponses".to_owned(), answers);
    }
    if let Some(state) = request_state {
        resume.insert("requestState".to_owned(), state);
    }
    resume
}

#[cold]
#[inline(never)]
fn note_call(id: &RequestId, tool: &str) {
    tracing::debug!(%id, tool, "tools/call");
}
