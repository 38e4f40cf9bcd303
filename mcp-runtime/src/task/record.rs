//! One task: its status, the questions it waits on, and how it ended.

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use serde_json::{Map, Value};
use tokio::sync::{Notify, oneshot};

use crate::ask::AskError;
use crate::cancel::CancellationToken;
use crate::protocol::jsonrpc::ErrorObject;

/// Where a task stands (`Task.status`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TaskStatus {
    Working,
    InputRequired,
    Completed,
    Failed,
    Cancelled,
}

impl TaskStatus {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            TaskStatus::Working => "working",
            TaskStatus::InputRequired => "input_required",
            TaskStatus::Completed => "completed",
            TaskStatus::Failed => "failed",
            TaskStatus::Cancelled => "cancelled",
        }
    }

    pub(crate) fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskStatus::Completed | TaskStatus::Failed | TaskStatus::Cancelled
        )
    }
}

/// How a task ended, in the shape `tasks/get` inlines.
#[derive(Debug, Clone)]
pub(crate) enum TaskOutcome {
    /// The tool's result (a tool that reported an error still completes).
    Result(Value),
    /// A protocol-level failure: the tool panicked, or could not run.
    Error(ErrorObject),
}

/// A task as one `tasks/get` sees it.
#[derive(Debug, Clone)]
pub(crate) struct TaskSnapshot {
    pub(crate) status: TaskStatus,
    pub(crate) status_message: Option<String>,
    pub(crate) updated: SystemTime,
    pub(crate) outcome: Option<TaskOutcome>,
    /// The questions still unanswered, by key.
    pub(crate) input_requests: Map<String, Value>,
}

/// A tool call running (or run) as a task.
#[derive(Debug)]
pub(crate) struct TaskRecord {
    pub(crate) id: String,
    /// Who created it: only they see it.
    pub(crate) owner: Option<Arc<str>>,
    pub(crate) created: SystemTime,
    /// How long it is kept once it has ended.
    pub(crate) ttl: Duration,
    pub(crate) poll_interval: Duration,
    /// Cancels the running tool.
    pub(crate) cancellation: CancellationToken,
    state: Mutex<State>,
    /// Woken on every change, for whoever writes the task through to a shared store.
    pub(crate) changed: Notify,
}

#[derive(Debug)]
struct State {
    status: TaskStatus,
    status_message: Option<String>,
    updated: SystemTime,
    ended: Option<SystemTime>,
    outcome: Option<TaskOutcome>,
    /// Questions waiting for `tasks/update`, in the order asked.
    pending: Vec<Question>,
}

#[derive(Debug)]
struct Question {
    key: String,
    request: Value,
    answer: oneshot::Sender<Value>,
}

impl TaskRecord {
    pub(crate) fn new(
        id: String,
        owner: Option<Arc<str>>,
        ttl: Duration,
        poll_interval: Duration,
        cancellation: CancellationToken,
    ) -> Self {
        let now = SystemTime::now();
        TaskRecord {
            id,
            owner,
            created: now,
            ttl,
            poll_interval,
            cancellation,
            state: Mutex::new(State {
                status: TaskStatus::Working,
                status_message: None,
                updated: now,
                ended: None,
                outcome: None,
                pending: Vec::new(),
            }),
            changed: Notify::new(),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    pub(crate) fn snapshot(&self) -> TaskSnapshot {
        let state = self.state();
        TaskSnapshot {
            status: state.status,
            status_message: state.status_message.clone(),
            updated: state.updated,
            outcome: state.outcome.clone(),
            input_requests: state
                .pending
                .iter()
                .map(|question| (question.key.clone(), question.request.clone()))
                .collect(),
        }
    }

    /// Whether it ended more than its time to live ago.
    pub(crate) fn expired(&self, now: SystemTime) -> bool {
        self.state()
            .ended
            .and_then(|ended| now.duration_since(ended).ok())
            .is_some_and(|since| since >= self.ttl)
    }

    /// Ask the client `request` under `key` and wait for the answer `tasks/update` brings.
    pub(crate) async fn ask(&self, key: String, request: Value) -> Result<Value, AskError> {
        let (answer, answered) = oneshot::channel();
        {
            let mut state = self.state();
            if state.status.is_terminal() {
                return Err(AskError::Cancelled);
            }
            state.pending.push(Question {
                key,
                request,
                answer,
            });
            state.status = TaskStatus::InputRequired;
            state.updated = SystemTime::now();
        }
        self.changed.notify_one();
        // A task cancelled meanwhile drops its questions, and with them the senders.
        answered.await.map_err(|_| AskError::Cancelled)
    }

    /// Deliver the answers of a `tasks/update`; answers to questions not pending (unknown, or
    /// already answered) are ignored.
    pub(crate) fn answer(&self, responses: Map<String, Value>) {
        let mut state = self.state();
        let mut delivered = false;
        for (key, response) in responses {
            if let Some(at) = state
                .pending
                .iter()
                .position(|question| question.key == key)
            {
                let question = state.pending.remove(at);
                // The tool may have stopped waiting (it was dropped); nothing to deliver to.
                let _ = question.answer.send(response);
                delivered = true;
            }
        }
        if delivered {
            if state.pending.is_empty() && state.status == TaskStatus::InputRequired {
                state.status = TaskStatus::Working;
            }
            state.updated = SystemTime::now();
            drop(state);
            self.changed.notify_one();
        }
    }

    /// Record how the tool ended, unless the task already ended (it was cancelled).
    pub(crate) fn finish(&self, outcome: TaskOutcome) {
        let status = match outcome {
            TaskOutcome::Result(_) => TaskStatus::Completed,
            TaskOutcome::Error(_) => TaskStatus::Failed,
        };
        let mut state = self.state();
        if state.status.is_terminal() {
            return;
        }
        state.outcome = Some(outcome);
        Self::end(&mut state, status);
        drop(state);
        self.changed.notify_one();
    }

    /// Cancel the task: it ends `cancelled` now, and its tool is told to stop. A task that
    /// already ended stays as it was.
    pub(crate) fn cancel(&self) {
        {
            let mut state = self.state();
            if state.status.is_terminal() {
                return;
            }
            state.status_message = Some("cancelled by the client".to_owned());
            Self::end(&mut state, TaskStatus::Cancelled);
        }
        self.changed.notify_one();
        self.cancellation.cancel();
    }

    fn end(state: &mut State, status: TaskStatus) {
        let now = SystemTime::now();
        state.status = status;
        state.pending.clear();
        state.updated = now;
        state.ended = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn record() -> Arc<TaskRecord> {
        Arc::new(TaskRecord::new(
            "t".into(),
            None,
            Duration::from_secs(60),
            Duration::from_secs(1),
            CancellationToken::new(),
        ))
    }

    fn responses(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(map) => map,
            _ => unreachable!(),
        }
    }

    #[tokio::test]
    async fn questions_wait_until_every_one_is_answered() {
        let task = record();
        let (first, second) = (task.clone(), task.clone());
        let first = tokio::spawn(async move { first.ask("a".into(), json!({"m": 1})).await });
        let second = tokio::spawn(async move { second.ask("b".into(), json!({"m": 2})).await });
        while task.snapshot().input_requests.len() < 2 {
            tokio::task::yield_now().await;
        }
        assert_eq!(task.snapshot().status, TaskStatus::InputRequired);

        task.answer(responses(json!({"a": "one", "unknown": 0})));
        assert_eq!(first.await.unwrap().unwrap(), json!("one"));
        let snapshot = task.snapshot();
        assert_eq!(snapshot.status, TaskStatus::InputRequired);
        assert_eq!(
            Value::Object(snapshot.input_requests),
            json!({"b": {"m": 2}})
        );

        // Answered twice: the second is ignored.
        task.answer(responses(json!({"a": "again", "b": "two"})));
        assert_eq!(second.await.unwrap().unwrap(), json!("two"));
        assert_eq!(task.snapshot().status, TaskStatus::Working);
    }

    #[tokio::test]
    async fn cancelling_ends_the_task_and_its_questions() {
        let task = record();
        let asking = task.clone();
        let question = tokio::spawn(async move { asking.ask("a".into(), json!({})).await });
        while task.snapshot().input_requests.is_empty() {
            tokio::task::yield_now().await;
        }
        task.cancel();
        assert!(matches!(question.await.unwrap(), Err(AskError::Cancelled)));
        assert!(task.cancellation.is_cancelled());
        // A result arriving after the cancel changes nothing.
        task.finish(TaskOutcome::Result(json!({"content": []})));
        let snapshot = task.snapshot();
        assert_eq!(snapshot.status, TaskStatus::Cancelled);
        assert!(snapshot.outcome.is_none() && snapshot.input_requests.is_empty());
    }

    #[test]
    fn a_task_expires_its_ttl_after_it_ended() {
        let task = record();
        let later = SystemTime::now() + Duration::from_secs(3600);
        assert!(!task.expired(later), "running tasks never expire");
        task.finish(TaskOutcome::Error(ErrorObject::invalid_params("x")));
        assert_eq!(task.snapshot().status, TaskStatus::Failed);
        assert!(!task.expired(SystemTime::now()));
        assert!(task.expired(later));
    }
}
