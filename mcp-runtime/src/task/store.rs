//! The tasks a server holds: created by tool calls, found by `tasks/*` requests of the same
//! principal, forgotten once ended for their time to live.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use super::TaskConfig;
use super::record::TaskRecord;
use crate::cancel::CancellationToken;
use crate::random;

/// The tasks of one server process. Tasks live in memory: behind a load balancer, `tasks/*`
/// requests must reach the instance that created the task (they carry its id in `Mcp-Name`).
#[derive(Debug, Default)]
pub(crate) struct TaskStore {
    config: TaskConfig,
    tasks: Mutex<HashMap<String, Arc<TaskRecord>>>,
}

impl TaskStore {
    pub(crate) fn new(config: TaskConfig) -> Self {
        TaskStore {
            config,
            tasks: Mutex::default(),
        }
    }

    fn tasks(&self) -> MutexGuard<'_, HashMap<String, Arc<TaskRecord>>> {
        self.tasks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A new task for `owner`, stored before anyone learns its id (so a `tasks/get` right
    /// after the `CreateTaskResult` finds it); `None` when the store is full.
    pub(crate) fn create(
        &self,
        owner: Option<Arc<str>>,
        cancellation: CancellationToken,
    ) -> Option<Arc<TaskRecord>> {
        let mut tasks = self.tasks();
        if tasks.len() >= self.config.max_tasks {
            let now = SystemTime::now();
            tasks.retain(|_, task| !task.expired(now));
            if tasks.len() >= self.config.max_tasks {
                tracing::warn!(
                    max_tasks = self.config.max_tasks,
                    "task store full; the call is not made a task"
                );
                return None;
            }
        }
        let task = Arc::new(TaskRecord::new(
            random::id(),
            owner,
            self.config.ttl,
            self.config.poll_interval,
            cancellation,
        ));
        tasks.insert(task.id.clone(), task.clone());
        Some(task)
    }

    /// The task `id` of `principal`. Another principal's task is not found, as if it did not
    /// exist; an expired one is forgotten.
    pub(crate) fn find(&self, id: &str, principal: Option<&str>) -> Option<Arc<TaskRecord>> {
        let mut tasks = self.tasks();
        let task = tasks.get(id)?;
        if task.expired(SystemTime::now()) {
            tasks.remove(id);
            return None;
        }
        (task.owner.as_deref() == principal).then(|| task.clone())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::protocol::jsonrpc::ErrorObject;
    use crate::task::record::TaskOutcome;

    fn store(max_tasks: usize, ttl: Duration) -> TaskStore {
        TaskStore::new(TaskConfig {
            max_tasks,
            ttl,
            ..TaskConfig::default()
        })
    }

    #[test]
    fn tasks_are_found_only_by_their_owner() {
        let store = store(8, Duration::from_secs(60));
        let alice = store
            .create(Some("alice".into()), CancellationToken::new())
            .unwrap();
        let anonymous = store.create(None, CancellationToken::new()).unwrap();
        assert!(store.find(&alice.id, Some("alice")).is_some());
        assert!(store.find(&alice.id, Some("bob")).is_none());
        assert!(store.find(&alice.id, None).is_none());
        assert!(store.find(&anonymous.id, None).is_some());
        assert!(store.find(&anonymous.id, Some("alice")).is_none());
        assert!(store.find("no-such-task", None).is_none());
        assert_ne!(alice.id, anonymous.id);
    }

    #[test]
    fn a_full_store_makes_room_only_from_expired_tasks() {
        let store = store(2, Duration::ZERO);
        let first = store.create(None, CancellationToken::new()).unwrap();
        let _running = store.create(None, CancellationToken::new()).unwrap();
        assert!(store.create(None, CancellationToken::new()).is_none());
        first.finish(TaskOutcome::Error(ErrorObject::internal_error("x")));
        assert!(store.create(None, CancellationToken::new()).is_some());
        assert!(store.find(&first.id, None).is_none());
    }
}
