//! The `io.modelcontextprotocol/tasks` extension (2026-07-28): a tool call that becomes a task
//! when its handler first waits, and `tasks/get`, `tasks/update`, `tasks/cancel`.

use crate::auth::Principal;
use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;
use std::time::Duration;

use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::asking::Asking;
use super::call::panic_failure;
use super::catalog::CatalogTool;
use super::classify::RequestScope;
use super::run::{BecomeTask, Outcome, Ran, missing_capability};
use super::{Dispatcher, Reply};
use crate::ask::missing::MissingCapabilities;
use crate::ask::round::{InputRound, RunOutcome, replayed_state};
use crate::cancel::CancellationToken;
use crate::handler::{BoxFuture, JsonObject, TaskSupport};
use crate::protocol::jsonrpc::{ErrorObject, Outgoing, RequestId};
use crate::protocol::wire::{CallToolResultWire, ModernResult};
use crate::protocol::{CallToolResult, ProtocolVersion};
use crate::store::{LoadedTask, StoreError, TaskSignal};
use crate::task::EXTENSION;
use crate::task::SharedTasks;
use crate::task::record::TaskOutcome;
use crate::task::slot::TaskSlot;
use crate::task::store::Tasks;
use crate::task::wire::{StoredTaskWire, TaskWire};

/// What a tool's run comes to, before it is answered.
pub(super) type CallOutcome = Outcome<CallToolResult>;

/// Whether a 2026-07-28 request declared the tasks extension in its client capabilities.
pub(super) fn declares_tasks(scope: &RequestScope) -> bool {
    scope.revision.is_modern()
        && crate::extensions::declared_in(&scope.client_capabilities, EXTENSION).is_some()
}

/// `-32021` for a request that needs the extension its client did not declare.
fn extension_required(what: &str) -> ErrorObject {
    ErrorObject::new(
        ErrorObject::MISSING_REQUIRED_CLIENT_CAPABILITY,
        format!("{what} needs the `{EXTENSION}` extension, which the request did not declare"),
    )
    .with_data(json!({"requiredCapabilities": {"extensions": {EXTENSION: {}}}}))
}

/// The slot of a call that may become a task, `None` for one that may not; an error for a
/// tool that requires tasks called by a 2026-07-28 client that takes none. Legacy sessions
/// know nothing of this extension (the server declares no `tasks` capability to them), so
/// there every tool answers in place.
fn task_slot(
    support: TaskSupport,
    scope: &RequestScope,
    tool: &str,
) -> Result<Option<Arc<TaskSlot>>, ErrorObject> {
    if support == TaskSupport::Forbidden || !scope.revision.is_modern() {
        return Ok(None);
    }
    match (support, declares_tasks(scope)) {
        (TaskSupport::Forbidden, _) => Ok(None),
        (_, true) => Ok(Some(Arc::default())),
        (TaskSupport::Optional, false) => Ok(None),
        (TaskSupport::Required, false) => Err(extension_required(&format!(
            "the tool `{tool}` runs only as a task: calling it"
        ))),
    }
}

/// What a call that may become a task needs to become one.
pub(super) struct TaskStart {
    pub(super) store: Arc<Tasks>,
    pub(super) slot: Arc<TaskSlot>,
    pub(super) owner: Option<Arc<str>>,
    pub(super) round: Option<Arc<InputRound>>,
    pub(super) wanted: Option<Arc<MissingCapabilities>>,
    pub(super) tool: Arc<str>,
    pub(super) revision: ProtocolVersion,
    pub(super) modern_meta: Arc<RawValue>,
}

impl TaskStart {
    /// Run the call until it finishes or first waits; in the latter case store the task, run
    /// the handler on in the background, and answer with the task.
    ///
    /// `running` comes boxed: one instance of this code (and of the spawned task) serves every
    /// call, where a generic one would repeat the call's whole state machine in the binary.
    async fn run_call(
        self,
        id: &RequestId,
        mut running: BoxFuture<'static, CallOutcome>,
        cancellation: &CancellationToken,
    ) -> Ran<CallToolResult> {
        let waited = {
            let slot = &self.slot;
            let until_wait = pin!(std::future::poll_fn(|cx| {
                match running.as_mut().poll(cx) {
                    Poll::Ready(outcome) => Poll::Ready(Some(outcome)),
                    Poll::Pending if slot.waited() => Poll::Ready(None),
                    Poll::Pending => Poll::Pending,
                }
            }));
            tokio::select! {
                biased;
                polled = until_wait => polled,
                () = cancellation.cancelled() => return Ran::Finished(None),
            }
        };
        if let Some(outcome) = waited {
            return Ran::Finished(Some(outcome));
        }
        let Some(task) = self
            .store
            .create(self.owner.clone(), cancellation.clone())
            .await
        else {
            self.slot.stay_call();
            let outcome = tokio::select! {
                biased;
                outcome = running => Some(outcome),
                () = cancellation.cancelled() => None,
            };
            return Ran::Finished(outcome);
        };
        self.slot.become_task(task.clone());
        if let Some(round) = &self.round {
            round.continue_in(task.clone());
        }
        let created = Outgoing::result(
            id,
            &TaskWire::created(&task, &task.snapshot(), &self.modern_meta),
        );
        tracing::debug!(task = %task.id, tool = &*self.tool, "the call became a task");
        tokio::spawn(async move {
            let outcome = tokio::select! {
                biased;
                outcome = running => outcome,
                // `tasks/cancel` recorded the end already.
                () = task.cancellation.cancelled() => return,
            };
            task.finish(self.task_outcome(outcome));
        });
        Ran::BecameTask(created)
    }

    /// How a task ends for a run that came to `outcome`: a tool's result (an error result
    /// included) completes it; a panic, or a handler that failed for want of a capability,
    /// fails it with the protocol error.
    fn task_outcome(&self, outcome: CallOutcome) -> TaskOutcome {
        let result = match outcome {
            Ok(RunOutcome::Done(result)) => result,
            Ok(RunOutcome::Replayed) => return TaskOutcome::Error(replayed_state()),
            Ok(RunOutcome::Refused(refused)) => return TaskOutcome::Error(refused),
            Ok(RunOutcome::NeedsInput) => {
                return TaskOutcome::Error(ErrorObject::internal_error(
                    "the tool waited for input it had asked before the task started",
                ));
            }
            Err(payload) => {
                let failure = panic_failure(&self.tool, &payload);
                return TaskOutcome::Error(ErrorObject::internal_error(failure));
            }
        };
        let missing = missing_capability(self.round.as_deref(), self.wanted.as_deref());
        if let Some(missing) = missing.filter(|_| result.is_error) {
            return TaskOutcome::Error(missing);
        }
        let wire = CallToolResultWire::new(
            &result,
            self.revision,
            Some(ModernResult::complete(&self.modern_meta)),
        );
        match serde_json::to_value(wire) {
            Ok(result) => TaskOutcome::Result(result),
            Err(error) => TaskOutcome::Error(ErrorObject::internal_error(format!(
                "the tool's result could not be encoded: {error}"
            ))),
        }
    }
}

impl Dispatcher {
    /// How the call of `tool` may become a task; `None` when it may not (see [`task_slot`]).
    pub(super) fn task_start(
        &self,
        tool: &CatalogTool,
        scope: &RequestScope,
        asking: &Asking,
    ) -> Result<Option<TaskStart>, ErrorObject> {
        let Some(slot) = task_slot(tool.task_support, scope, &tool.name)? else {
            return Ok(None);
        };
        Ok(Some(TaskStart {
            store: self.tasks.clone(),
            slot,
            owner: scope.principal.as_ref().map(Principal::shared),
            round: asking.round.clone(),
            wanted: asking.wanted.clone(),
            tool: tool.name.clone(),
            revision: scope.revision,
            modern_meta: self.modern_meta.clone(),
        }))
    }

    /// `tasks/get`, `tasks/update` and `tasks/cancel` of a 2026-07-28 request; `None` for any
    /// other method.
    pub(super) fn task_request(
        &self,
        id: &RequestId,
        method: &str,
        params: &JsonObject,
        scope: &RequestScope,
    ) -> Option<Result<Reply, ErrorObject>> {
        if !matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel") {
            return None;
        }
        Some(self.answer_task_request(id, method, params, scope))
    }

    fn answer_task_request(
        &self,
        id: &RequestId,
        method: &str,
        params: &JsonObject,
        scope: &RequestScope,
    ) -> Result<Reply, ErrorObject> {
        if !declares_tasks(scope) {
            return Err(extension_required(&format!("`{method}`")));
        }
        let task_id = match params.get("taskId") {
            Some(Value::String(task_id)) => task_id,
            _ => return Err(ErrorObject::invalid_params("`taskId` must be a string")),
        };
        let principal = scope.principal.as_ref().map(Principal::as_str);
        let responses = match (method, params.get("inputResponses")) {
            ("tasks/update", Some(Value::Object(responses))) => Some(responses.clone()),
            ("tasks/update", _) => {
                return Err(ErrorObject::invalid_params(
                    "`inputResponses` must be an object",
                ));
            }
            _ => None,
        };
        let Some(task) = self.tasks.find(task_id, principal) else {
            // Not run here: another instance's, if the instances share a store.
            let Some(shared) = self.tasks.shared() else {
                return Err(unknown_task(task_id));
            };
            let remote = RemoteTask {
                shared: shared.clone(),
                task_id: task_id.clone(),
                principal: principal.map(str::to_owned),
                modern_meta: self.modern_meta.clone(),
            };
            let (id, method) = (id.clone(), method.to_owned());
            return Ok(Reply::Pending(Box::pin(async move {
                Some(match remote.answer(&method, responses).await {
                    Ok(result) => Outgoing::result(&id, &result),
                    Err(error) => Outgoing::error(Some(&id), &error),
                })
            })));
        };
        let ack = || {
            // An empty result: the task's state is read with `tasks/get`.
            Reply::Ready(Outgoing::result(
                id,
                &ModernResult::complete(&self.modern_meta),
            ))
        };
        match (method, responses) {
            ("tasks/get", _) => Ok(Reply::Ready(Outgoing::result(
                id,
                &TaskWire::detailed(&task, &task.snapshot(), &self.modern_meta),
            ))),
            (_, Some(responses)) => {
                task.answer(responses);
                Ok(ack())
            }
            _ => {
                task.cancel();
                Ok(ack())
            }
        }
    }
}

/// `-32602` for a task this principal has not (unknown, expired, or someone else's).
fn unknown_task(task_id: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("unknown task `{task_id}`"))
}

/// A `tasks/*` request for a task another instance runs (or ran), answered from the shared
/// store: one round trip to read it, and for `tasks/update` and `tasks/cancel` what it takes
/// to reach the instance running it.
struct RemoteTask {
    shared: SharedTasks,
    task_id: String,
    principal: Option<String>,
    modern_meta: Arc<RawValue>,
}

impl RemoteTask {
    async fn answer(
        &self,
        method: &str,
        responses: Option<JsonObject>,
    ) -> Result<Value, ErrorObject> {
        let store = &self.shared.store;
        let unavailable = |error: StoreError| error.to_error_object();
        let LoadedTask { task, holder } = store
            .load(&self.task_id)
            .await
            .map_err(unavailable)?
            .filter(|loaded| loaded.task.owned_by(self.principal.as_deref()))
            .ok_or_else(|| unknown_task(&self.task_id))?;
        let task = match (task.has_ended(), &holder) {
            (false, None) => {
                // Its instance stopped renewing the lease: it died with the call.
                let lost = task.lost();
                if !store
                    .update(&lost, Duration::ZERO)
                    .await
                    .map_err(unavailable)?
                {
                    // Another instance ended it meanwhile: read how.
                    return Box::pin(self.answer(method, responses)).await;
                }
                lost
            }
            _ => task,
        };
        let ack = || {
            serde_json::to_value(ModernResult::complete(&self.modern_meta))
                .map_err(|error| ErrorObject::internal_error(error.to_string()))
        };
        if method == "tasks/get" {
            return serde_json::to_value(StoredTaskWire::detailed(&task, &self.modern_meta))
                .map_err(|error| ErrorObject::internal_error(error.to_string()));
        }
        // Answers for an ended task are ignored and an ended task stays as it ended, as on
        // the instance running it.
        if task.has_ended() {
            return ack();
        }
        match (responses, holder) {
            (Some(responses), Some(holder)) => {
                let heard = store
                    .signal(&holder, &self.task_id, TaskSignal::Answer(responses))
                    .await
                    .map_err(unavailable)?;
                if !heard {
                    return Err(StoreError::new(
                        "the instance running this task does not listen to the shared store",
                    )
                    .to_error_object());
                }
                ack()
            }
            (Some(_), None) => ack(),
            (None, holder) => {
                let cancelled = task.ended_as("cancelled", "cancelled by the client", None);
                if store
                    .update(&cancelled, Duration::ZERO)
                    .await
                    .map_err(unavailable)?
                {
                    // The record says cancelled already; this stops the handler now rather
                    // than at its instance's next write (which would find the task ended).
                    if let Some(holder) = holder {
                        let _ = store
                            .signal(&holder, &self.task_id, TaskSignal::Cancel)
                            .await;
                    }
                }
                ack()
            }
        }
    }
}

impl BecomeTask<CallToolResult> for TaskStart {
    fn run(
        self: Box<Self>,
        id: RequestId,
        running: BoxFuture<'static, CallOutcome>,
        cancellation: CancellationToken,
    ) -> BoxFuture<'static, Ran<CallToolResult>> {
        Box::pin(async move { self.run_call(&id, running, &cancellation).await })
    }
}
