//! Tasks on the wire: the flat `CreateTaskResult` a call answers with, and the detailed task
//! `tasks/get` returns (its result, error or pending questions inlined).

use serde::Serialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::record::{TaskOutcome, TaskRecord, TaskSnapshot};
use crate::protocol::jsonrpc::ErrorObject;
use crate::rfc3339;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskWire<'a> {
    task_id: &'a str,
    status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    status_message: Option<&'a str>,
    created_at: String,
    last_updated_at: String,
    ttl_ms: u64,
    poll_interval_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    result: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<&'a ErrorObject>,
    #[serde(skip_serializing_if = "Option::is_none")]
    input_requests: Option<&'a Map<String, Value>>,
    result_type: &'static str,
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
}

impl<'a> TaskWire<'a> {
    /// The answer to the call that created `task` (`resultType: "task"`): its state only.
    pub(crate) fn created(
        task: &'a TaskRecord,
        snapshot: &'a TaskSnapshot,
        meta: &'a RawValue,
    ) -> Self {
        TaskWire {
            result: None,
            error: None,
            input_requests: None,
            result_type: "task",
            ..Self::detailed(task, snapshot, meta)
        }
    }

    /// `tasks/get`: the state, and what the status makes relevant: the result of a completed
    /// task, the error of a failed one, the questions of one waiting for input.
    pub(crate) fn detailed(
        task: &'a TaskRecord,
        snapshot: &'a TaskSnapshot,
        meta: &'a RawValue,
    ) -> Self {
        let (result, error) = match &snapshot.outcome {
            Some(TaskOutcome::Result(result)) => (Some(result), None),
            Some(TaskOutcome::Error(error)) => (None, Some(error)),
            None => (None, None),
        };
        TaskWire {
            task_id: &task.id,
            status: snapshot.status.as_str(),
            status_message: snapshot.status_message.as_deref(),
            created_at: rfc3339::at(task.created),
            last_updated_at: rfc3339::at(snapshot.updated),
            ttl_ms: millis(task.ttl),
            // Never 0: a client told to poll every 0 ms would spin.
            poll_interval_ms: millis(task.poll_interval).max(1),
            result,
            error,
            input_requests: (!snapshot.input_requests.is_empty())
                .then_some(&snapshot.input_requests),
            result_type: "complete",
            meta,
        }
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// `task` as the shared store keeps it: its detailed `tasks/get` form (less `resultType` and
/// `_meta`, which each answer adds) and its owner.
pub(crate) fn stored(task: &TaskRecord) -> crate::store::StoredTask {
    let snapshot = task.snapshot();
    let empty: Box<RawValue> = RawValue::from_string("{}".to_owned()).unwrap_or_default();
    let wire = TaskWire::detailed(task, &snapshot, &empty);
    let mut detailed = match serde_json::to_value(&wire) {
        Ok(Value::Object(detailed)) => detailed,
        _ => Map::new(),
    };
    detailed.remove("resultType");
    detailed.remove("_meta");
    let document = crate::store::task::TaskDocument {
        owner: task.owner.as_deref().map(str::to_owned),
        ended: snapshot.status.is_terminal(),
        ttl_ms: millis(task.ttl),
        task: detailed,
    };
    crate::store::StoredTask::new(task.id.clone(), document)
}

/// The answer to `tasks/get` for a task read from the shared store.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StoredTaskWire<'a> {
    #[serde(flatten)]
    task: &'a Map<String, Value>,
    result_type: &'static str,
    #[serde(rename = "_meta")]
    meta: &'a RawValue,
}

impl<'a> StoredTaskWire<'a> {
    pub(crate) fn detailed(task: &'a crate::store::StoredTask, meta: &'a RawValue) -> Self {
        StoredTaskWire {
            task: &task.document().task,
            result_type: "complete",
            meta,
        }
    }
}
