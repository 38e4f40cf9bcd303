//! The shared record of tasks: what any instance needs to answer `tasks/*` for a task another
//! instance runs.

use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::{Record, StoreError};
use crate::future::BoxFuture;
use crate::rfc3339;

/// One task as the shared store keeps it: opaque to the store but for its id, whether it has
/// ended, and how long it stays readable once ended.
#[derive(Debug, Clone)]
pub struct StoredTask(Record<TaskDocument>);

/// What is encoded: who owns the task, and the task as `tasks/get` shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskDocument {
    pub(crate) owner: Option<String>,
    pub(crate) ended: bool,
    pub(crate) ttl_ms: u64,
    /// The detailed task of `tasks/get`, without `resultType` and `_meta`.
    pub(crate) task: Map<String, Value>,
}

impl StoredTask {
    pub(crate) fn new(id: String, document: TaskDocument) -> Self {
        StoredTask(Record::new(id, document))
    }

    /// The task read back from what [`encoded`](Self::encoded) gave.
    ///
    /// # Errors
    ///
    /// When `encoded` is not a task this runtime stored.
    pub fn decode(id: impl Into<String>, encoded: impl Into<String>) -> Result<Self, StoreError> {
        Record::decode(id.into(), encoded.into(), "task").map(StoredTask)
    }

    /// The task's id.
    pub fn id(&self) -> &str {
        &self.0.id
    }

    /// Whether it has ended (completed, failed or cancelled): an ended task never changes
    /// again, so a store refuses to [`update`](TaskStore::update) it.
    pub fn has_ended(&self) -> bool {
        self.0.document.ended
    }

    /// How long it stays readable once ended.
    pub fn ttl(&self) -> Duration {
        Duration::from_millis(self.0.document.ttl_ms)
    }

    /// The task as a store keeps it (JSON).
    pub fn encoded(&self) -> &str {
        &self.0.encoded
    }

    pub(crate) fn document(&self) -> &TaskDocument {
        &self.0.document
    }

    /// Whether `principal` owns it (others do not see it).
    pub(crate) fn owned_by(&self, principal: Option<&str>) -> bool {
        self.0.document.owner.as_deref() == principal
    }

    /// The task ended with `status` (`failed`, `cancelled`) and `message`, `error` inlined for
    /// a failure; its questions are withdrawn.
    pub(crate) fn ended_as(&self, status: &str, message: &str, error: Option<Value>) -> Self {
        let mut document = self.0.document.clone();
        document.ended = true;
        let task = &mut document.task;
        task.insert("status".into(), status.into());
        task.insert("statusMessage".into(), message.into());
        task.insert(
            "lastUpdatedAt".into(),
            rfc3339::at(SystemTime::now()).into(),
        );
        task.remove("inputRequests");
        task.remove("result");
        if let Some(error) = error {
            task.insert("error".into(), error);
        }
        StoredTask::new(self.0.id.clone(), document)
    }

    /// The task failed because the instance running it stopped renewing its lease.
    pub(crate) fn lost(&self) -> Self {
        const MESSAGE: &str = "the server instance running this task stopped before it \
                               finished (its lease in the shared store ran out); the call's \
                               work is lost: call the tool again";
        self.ended_as(
            "failed",
            MESSAGE,
            Some(json!({"code": -32603, "message": MESSAGE})),
        )
    }
}

/// A task as [`TaskStore::load`] found it.
#[derive(Debug, Clone)]
pub struct LoadedTask {
    /// The task.
    pub task: StoredTask,
    /// The instance holding its lease: `None` once the lease ran out or was given up.
    pub holder: Option<String>,
}

/// What one instance tells the instance running a task.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum TaskSignal {
    /// `tasks/update`: the client's answers, by question key.
    Answer(Map<String, Value>),
    /// `tasks/cancel`: stop the handler (the task is already recorded as cancelled).
    Cancel,
}

impl TaskSignal {
    /// The signal for the task `id`, as one line of JSON, for a store to carry.
    pub fn encode(&self, id: &str) -> String {
        match self {
            TaskSignal::Answer(answers) => json!({"task": id, "answer": answers}),
            TaskSignal::Cancel => json!({"task": id, "cancel": true}),
        }
        .to_string()
    }

    /// The task id and signal [`encode`](Self::encode) wrote; `None` for anything else.
    pub fn decode(encoded: &str) -> Option<(String, TaskSignal)> {
        let value: Value = serde_json::from_str(encoded).ok()?;
        let id = value.get("task")?.as_str()?.to_owned();
        if let Some(Value::Object(answers)) = value.get("answer") {
            return Some((id, TaskSignal::Answer(answers.clone())));
        }
        (value.get("cancel") == Some(&Value::Bool(true))).then_some((id, TaskSignal::Cancel))
    }
}

/// Receives the signals other instances send about tasks this instance runs: the task id and
/// the signal.
pub type SignalHandler = Box<dyn Fn(&str, TaskSignal) + Send + Sync>;

/// Where every instance records the tasks it runs, so that any instance answers `tasks/get`,
/// `tasks/update` and `tasks/cancel`.
///
/// The instance running a task keeps it in memory too (its handler, its questions waiting for
/// answers) and writes each change through to the store. It holds a lease on the task, renewed
/// with every write (a write at least every third of the lease): a task whose lease ran out
/// while it was still running is reported `failed`, its instance having died.
///
/// Each operation must end within a bounded time: a store that cannot answer returns
/// [`StoreError`] (the client then gets [`STORE_UNAVAILABLE`](super::STORE_UNAVAILABLE)).
pub trait TaskStore: Send + Sync + 'static {
    /// Store the new task `task`, holding its lease for `lease`. Returns once the task is
    /// durably stored: only then does the client learn its id.
    fn create<'a>(
        &'a self,
        task: &'a StoredTask,
        lease: Duration,
    ) -> BoxFuture<'a, Result<(), StoreError>>;

    /// Replace the stored task with `task`, unless the stored one has ended (`Ok(false)`:
    /// another instance cancelled it or found it lost). A running `task` renews the lease for
    /// `lease`; an ended one gives the lease up and stays for its [`ttl`](StoredTask::ttl).
    /// Two updates racing must not both replace an unended task with ended ones.
    fn update<'a>(
        &'a self,
        task: &'a StoredTask,
        lease: Duration,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// The task `id` and the instance holding its lease; `Ok(None)` for a task not stored
    /// (never, or expired).
    fn load<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Option<LoadedTask>, StoreError>>;

    /// Send `signal` about the task `id` to the instance `holder`; `Ok(false)` when no such
    /// instance listens.
    fn signal<'a>(
        &'a self,
        holder: &'a str,
        id: &'a str,
        signal: TaskSignal,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;

    /// Call `deliver` with every signal sent to this instance, from now on.
    fn on_signal(&self, deliver: SignalHandler);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn running() -> StoredTask {
        StoredTask::new(
            "t1".into(),
            TaskDocument {
                owner: Some("alice".into()),
                ended: false,
                ttl_ms: 60_000,
                task: json!({"taskId": "t1", "status": "input_required",
                             "inputRequests": {"q": {}}})
                .as_object()
                .cloned()
                .unwrap(),
            },
        )
    }

    #[test]
    fn a_stored_task_reads_back_as_written() {
        let task = running();
        let back = StoredTask::decode("t1", task.encoded()).unwrap();
        assert_eq!(back.id(), "t1");
        assert!(!back.has_ended());
        assert_eq!(back.ttl(), Duration::from_secs(60));
        assert!(back.owned_by(Some("alice")) && !back.owned_by(None));
        assert!(StoredTask::decode("t1", "{}").is_err());
    }

    #[test]
    fn a_lost_task_fails_and_drops_its_questions() {
        let lost = running().lost();
        assert!(lost.has_ended());
        let task = &lost.document().task;
        assert_eq!(task["status"], "failed");
        assert!(task["statusMessage"].as_str().unwrap().contains("lease"));
        assert_eq!(task["error"]["code"], -32603);
        assert!(!task.contains_key("inputRequests"));
    }

    #[test]
    fn signals_survive_their_encoding() {
        let answer = TaskSignal::Answer(json!({"q": {"ok": 1}}).as_object().cloned().unwrap());
        for signal in [answer, TaskSignal::Cancel] {
            let (id, back) = TaskSignal::decode(&signal.encode("t9")).unwrap();
            assert_eq!((id.as_str(), back), ("t9", signal));
        }
        assert_eq!(TaskSignal::decode("{\"task\":\"t\"}"), None);
    }
}
