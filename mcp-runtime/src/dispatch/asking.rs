//! Giving a handler its way to ask the client, and ending a 2026-07-28 request whose handler
//! waits for answers with an `InputRequiredResult`.

use crate::auth::Principal;
use std::sync::Arc;

use serde_json::Value;
use serde_json::value::RawValue;

use super::Dispatcher;
use super::catch_unwind::PanicPayload;
use super::classify::RequestScope;
use crate::ask::Asker;
use crate::ask::missing::MissingCapabilities;
use crate::ask::pending::SessionAsker;
use crate::ask::round::{Binding, InputRound, RunOutcome, replayed_state};
use crate::handler::JsonObject;
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};
use crate::protocol::wire::InputRequiredResult;

/// How a request's handler asks, and the 2026-07-28 round to end when it waits for answers.
#[derive(Debug, Default, Clone)]
pub(super) struct Asking {
    pub(super) asker: Option<Asker>,
    pub(super) round: Option<Arc<InputRound>>,
    /// Instead of a round, what the handler of a 2026-07-28 request that can ask nothing
    /// wanted (see [`Dispatcher::call_asking`]).
    pub(super) wanted: Option<Arc<MissingCapabilities>>,
}

impl Asking {
    /// Whether the run has no round to end at and nothing to note of what it wanted.
    pub(super) fn collects_nothing(&self) -> bool {
        self.round.is_none() && self.wanted.is_none()
    }
}

impl Dispatcher {
    /// The way request `id` (a `method` on `target` with `arguments`) may ask the client: a
    /// legacy session sends real requests on its connection; a 2026-07-28 request collects
    /// questions for its result, resuming from the `requestState` and `inputResponses` of
    /// `params` (refused when that state was not made by this server for this very request).
    pub(super) fn asking(
        &self,
        id: &RequestId,
        scope: &RequestScope,
        method: &'static str,
        target: &str,
        arguments: BoundArguments<'_>,
        params: Option<&JsonObject>,
    ) -> Result<Asking, ErrorObject> {
        let binding = bound(scope, method, target, arguments, params);
        self.asking_with(id, scope, method, binding, params)
    }

    /// [`asking`](Self::asking), the round's binding made (`None`: the request of `method`
    /// can be asked nothing and resumes nothing, or is a legacy one).
    fn asking_with(
        &self,
        id: &RequestId,
        scope: &RequestScope,
        method: &'static str,
        binding: Option<Binding>,
        params: Option<&JsonObject>,
    ) -> Result<Asking, ErrorObject> {
        if scope.revision.is_modern() {
            // Made only here: a legacy request never issues a state to bind.
            let binding = binding.unwrap_or_else(|| Binding::unasked(method));
            let empty = JsonObject::new();
            let round = Arc::new(InputRound::begin(
                &self.request_state_key,
                &self.replay_guard,
                binding,
                params.unwrap_or(&empty),
            )?);
            return Ok(Asking {
                asker: Some(Asker::Round(round.clone())),
                round: Some(round),
                wanted: None,
            });
        }
        // A client that declared nothing to answer with is never asked: its handlers learn
        // that from the capabilities alone, and the call pays for no asker.
        let (Some(outbound), Some(outgoing), true) =
            (&scope.outbound, &scope.outgoing, askable(scope))
        else {
            return Ok(Asking::default());
        };
        Ok(Asking {
            asker: Some(Asker::Session(SessionAsker {
                outbound: outbound.clone(),
                requests: outgoing.clone(),
                timeout: self.ask_timeout,
                related: id.clone(),
            })),
            round: None,
            wanted: None,
        })
    }

    /// [`asking`](Self::asking) for `tools/call`: a 2026-07-28 request that can be asked nothing
    /// (its client declared no capability to answer with) and resumes nothing needs no round,
    /// only a note of the capabilities its handler wanted, for `-32021`. (`prompts/get` and
    /// `resources/read` take a round all the same: their runs read only that.)
    ///
    /// `resume` holds the call's `requestState` and `inputResponses`, when it has either. A
    /// tool that cannot reach its context (none of its parameters is a `RequestContext`)
    /// cannot ask, wants nothing either, and takes no note: unless it resumes a state, it
    /// needs no round (nor, in a legacy session, a way to ask), whatever its client declared.
    pub(super) fn call_asking(
        &self,
        id: &RequestId,
        scope: &RequestScope,
        target: &str,
        arguments: BoundArguments<'_>,
        resume: Option<&JsonObject>,
        reaches_context: bool,
    ) -> Result<Asking, ErrorObject> {
        if !reaches_context && resume.is_none() {
            return Ok(Asking::default());
        }
        let binding = bound(scope, "tools/call", target, arguments, resume);
        if scope.revision.is_modern() && binding.is_none() {
            if !reaches_context {
                return Ok(Asking::default());
            }
            let wanted = Arc::new(MissingCapabilities::default());
            return Ok(Asking {
                asker: Some(Asker::Unasked(wanted.clone())),
                round: None,
                wanted: Some(wanted),
            });
        }
        self.asking_with(id, scope, "tools/call", binding, resume)
    }
}

/// What a 2026-07-28 round binds the states it issues to: the request's arguments, when the
/// client can be asked or the request resumes a state. `None` otherwise (no state is ever
/// issued, so digesting the arguments, even lazily, is never needed), and for a legacy request.
fn bound(
    scope: &RequestScope,
    method: &'static str,
    target: &str,
    arguments: BoundArguments<'_>,
    params: Option<&JsonObject>,
) -> Option<Binding> {
    let resumes = params.is_some_and(|params| params.contains_key("requestState"));
    if !scope.revision.is_modern() || !(resumes || askable(scope)) {
        return None;
    }
    let principal = scope.principal.as_ref().map(Principal::as_str);
    Some(match arguments {
        BoundArguments::Built(arguments) => Binding::new(method, target, arguments, principal),
        BoundArguments::Text(arguments) => Binding::of_text(method, target, arguments, principal),
    })
}

/// A request's arguments, as a 2026-07-28 round binds the states it issues to them.
#[derive(Debug, Clone, Copy)]
pub(super) enum BoundArguments<'a> {
    /// Built (digested at once).
    Built(&'a Value),
    /// As the client wrote them (digested only if a state is issued or resumed).
    Text(&'a RawValue),
}

/// Whether the request's client declared any capability a question needs.
fn askable(scope: &RequestScope) -> bool {
    scope
        .client_capabilities
        .declares_any(&["elicitation", "sampling", "roots"])
}

/// The response to a run that came to `outcome`: `answer` for a finished one, the
/// `InputRequiredResult` of `round` for one waiting for answers.
pub(super) fn answer_run<T>(
    outcome: Result<RunOutcome<T>, PanicPayload>,
    id: &RequestId,
    round: Option<&InputRound>,
    modern_meta: &RawValue,
    answer: impl FnOnce(Result<T, PanicPayload>) -> Outgoing,
) -> Outgoing {
    match outcome {
        Ok(RunOutcome::Done(output)) => answer(Ok(output)),
        Err(payload) => answer(Err(payload)),
        Ok(RunOutcome::Replayed) => Outgoing::error(Some(id), &replayed_state()),
        Ok(RunOutcome::Refused(refused)) => Outgoing::error(Some(id), &refused),
        Ok(RunOutcome::NeedsInput) => {
            let round = round.expect("only a round's handler waits for input");
            let (input_requests, request_state) = round.input_required();
            Outgoing::result(
                id,
                &InputRequiredResult::new(&input_requests, &request_state, modern_meta),
            )
        }
    }
}
