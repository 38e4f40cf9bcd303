//! The tasks a server holds: created by tool calls, found by `tasks/*` requests of the same
//! principal, forgotten once ended for their time to live.
//!
//! Alone, an instance keeps its tasks in memory, and `tasks/*` requests must reach it. Given a
//! shared [`TaskStore`](crate::store::TaskStore), it keeps in memory only the tasks it runs
//! (their handlers and waiting questions), writes each change through to the store, and
//! renews its lease on them; any instance then answers for any task (`dispatch/tasks.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, SystemTime};

use super::record::TaskRecord;
use super::{SharedTasks, TaskConfig, wire};
use crate::cancel::CancellationToken;
use crate::random;
use crate::store::TaskSignal;

/// The tasks of one server process.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    config: TaskConfig,
    shared: Option<SharedTasks>,
    tasks: Mutex<HashMap<String, Arc<TaskRecord>>>,
}

impl Tasks {
    pub(crate) fn new(config: TaskConfig) -> Arc<Self> {
        Arc::new_cyclic(|this: &Weak<Tasks>| {
            let shared = config.shared.clone().map(|store| SharedTasks {
                store,
                lease: config.lease,
            });
            if let Some(shared) = &shared {
                let this = this.clone();
                shared.store.on_signal(Box::new(move |id, signal| {
                    let Some(task) = this.upgrade().and_then(|tasks| tasks.running(id)) else {
                        return;
                    };
                    match signal {
                        TaskSignal::Answer(answers) => task.answer(answers),
                        TaskSignal::Cancel => task.cancel(),
                    }
                }));
            }
            Tasks {
                config,
                shared,
                tasks: Mutex::default(),
            }
        })
    }

    fn tasks(&self) -> MutexGuard<'_, HashMap<String, Arc<TaskRecord>>> {
        self.tasks
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// The shared store, if the server was given one.
    pub(crate) fn shared(&self) -> Option<&SharedTasks> {
        self.shared.as_ref()
    }

    /// A new task for `owner`, stored before anyone learns its id (so a `tasks/get` right
    /// after the `CreateTaskResult` finds it, on any instance when the store is shared);
    /// `None` when the store is full, or the shared store could not take it.
    pub(crate) async fn create(
        self: &Arc<Self>,
        owner: Option<Arc<str>>,
        cancellation: CancellationToken,
    ) -> Option<Arc<TaskRecord>> {
        let task = {
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
            task
        };
        if let Some(shared) = &self.shared {
            if let Err(error) = shared
                .store
                .create(&wire::stored(&task), shared.lease)
                .await
            {
                tracing::warn!(
                    %error,
                    "the shared task store could not take a new task; the call is answered \
                     in place"
                );
                self.tasks().remove(&task.id);
                return None;
            }
            tokio::spawn(keep(Arc::downgrade(self), task.clone(), shared.clone()));
        }
        Some(task)
    }

    /// The task `id` of `principal`, if this instance holds it. Another principal's task is
    /// not found, as if it did not exist; an expired one is forgotten.
    pub(crate) fn find(&self, id: &str, principal: Option<&str>) -> Option<Arc<TaskRecord>> {
        let mut tasks = self.tasks();
        let task = tasks.get(id)?;
        if task.expired(SystemTime::now()) {
            tasks.remove(id);
            return None;
        }
        (task.owner.as_deref() == principal).then(|| task.clone())
    }

    /// The task `id` this instance runs, whoever owns it.
    fn running(&self, id: &str) -> Option<Arc<TaskRecord>> {
        self.tasks().get(id).cloned()
    }
}

/// Writes `task` through to the shared store on every change, and at least every third of
/// the lease (which renews it), until its end is written; then forgets it here (the store
/// answers for it from then on).
async fn keep(tasks: Weak<Tasks>, task: Arc<TaskRecord>, shared: SharedTasks) {
    let every = (shared.lease / 3).max(Duration::from_millis(1));
    loop {
        // Timing out is the renewal's turn: write the (maybe unchanged) task anyway.
        let _ = tokio::time::timeout(every, task.changed.notified()).await;
        let stored = wire::stored(&task);
        match shared.store.update(&stored, shared.lease).await {
            Ok(true) if stored.has_ended() => break,
            Ok(true) => {}
            Ok(false) => {
                // Cancelled through another instance (whose signal may not have arrived), or
                // reported lost while this instance could not renew its lease: from now on the
                // store answers for it here too, and the tool is stopped.
                tracing::debug!(task = %task.id, "the task ended in the shared store");
                forget(&tasks, &task);
                task.cancel();
                return;
            }
            Err(error) => tracing::warn!(
                task = %task.id,
                %error,
                "the task could not be written to the shared store; trying again"
            ),
        }
    }
    forget(&tasks, &task);
}

fn forget(tasks: &Weak<Tasks>, task: &TaskRecord) {
    if let Some(tasks) = tasks.upgrade() {
        tasks.tasks().remove(&task.id);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    /// A memory store's `create` never waits.
    fn block_on<T>(future: impl std::future::Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
            .block_on(future)
    }
    use crate::protocol::jsonrpc::ErrorObject;
    use crate::task::record::TaskOutcome;

    fn store(max_tasks: usize, ttl: Duration) -> Arc<Tasks> {
        Tasks::new(TaskConfig {
            max_tasks,
            ttl,
            ..TaskConfig::default()
        })
    }

    #[test]
    fn tasks_are_found_only_by_their_owner() {
        let store = store(8, Duration::from_secs(60));
        let alice = block_on(store.create(Some("alice".into()), CancellationToken::new())).unwrap();
        let anonymous = block_on(store.create(None, CancellationToken::new())).unwrap();
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
        let first = block_on(store.create(None, CancellationToken::new())).unwrap();
        let _running = block_on(store.create(None, CancellationToken::new())).unwrap();
        assert!(block_on(store.create(None, CancellationToken::new())).is_none());
        first.finish(TaskOutcome::Error(ErrorObject::internal_error("x")));
        assert!(block_on(store.create(None, CancellationToken::new())).is_some());
        assert!(store.find(&first.id, None).is_none());
    }
}
