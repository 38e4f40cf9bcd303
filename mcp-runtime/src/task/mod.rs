//! Tool calls that run as tasks: the `io.modelcontextprotocol/tasks` extension of 2026-07-28.
//!
//! A call becomes a task only when its tool allows it ([`TaskSupport`](crate::handler::TaskSupport)) and
//! its request declared the extension. The handler starts as an ordinary call: if it finishes
//! without waiting on anything, or asks the client first (an `InputRequiredResult`), the call
//! is answered in place. The first time it waits on anything else, the task is stored, the
//! client gets a `CreateTaskResult`, and the handler runs on detached from the request. From
//! then on its questions wait in the task (`status: "input_required"`, `tasks/update`), and
//! its end is inlined in `tasks/get`.

pub(crate) mod record;
pub(crate) mod slot;
pub(crate) mod store;
pub(crate) mod wire;

use std::sync::Arc;
use std::time::Duration;

use crate::store::TaskStore;

/// The extension's identifier, as clients declare it and the server advertises it.
pub(crate) const EXTENSION: &str = crate::extensions::TASKS;

/// How a server keeps its tasks.
#[derive(Clone)]
pub(crate) struct TaskConfig {
    /// How long an ended task stays readable (`ttlMs`).
    pub(crate) ttl: Duration,
    /// How often clients should poll (`pollIntervalMs`).
    pub(crate) poll_interval: Duration,
    /// Tasks held at once, running or ended; beyond, calls are answered in place.
    pub(crate) max_tasks: usize,
    /// The store shared with other instances, if any (else tasks live in memory).
    pub(crate) shared: Option<Arc<dyn TaskStore>>,
    /// The lease an instance holds on the tasks it runs in a shared store.
    pub(crate) lease: Duration,
}

/// A store of tasks shared by the instances, and the lease an instance holds on the tasks it
/// runs.
#[derive(Clone)]
pub(crate) struct SharedTasks {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) lease: Duration,
}

impl SharedTasks {
    /// How long a task's instance may go without renewing its lease unless set otherwise.
    pub(crate) const DEFAULT_LEASE: Duration = Duration::from_secs(30);
}

impl std::fmt::Debug for SharedTasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SharedTasks")
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig {
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_millis(500),
            max_tasks: 4096,
            shared: None,
            lease: SharedTasks::DEFAULT_LEASE,
        }
    }
}

impl std::fmt::Debug for TaskConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskConfig")
            .field("ttl", &self.ttl)
            .field("poll_interval", &self.poll_interval)
            .field("max_tasks", &self.max_tasks)
            .field("shared", &self.shared.is_some())
            .field("lease", &self.lease)
            .finish()
    }
}
