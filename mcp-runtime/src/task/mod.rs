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

use std::time::Duration;

/// The extension's identifier, as clients declare it and the server advertises it.
pub(crate) const EXTENSION: &str = crate::extensions::TASKS;

/// How a server keeps its tasks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TaskConfig {
    /// How long an ended task stays readable (`ttlMs`).
    pub(crate) ttl: Duration,
    /// How often clients should poll (`pollIntervalMs`).
    pub(crate) poll_interval: Duration,
    /// Tasks held at once, running or ended; beyond, calls are answered in place.
    pub(crate) max_tasks: usize,
}

impl Default for TaskConfig {
    fn default() -> Self {
        TaskConfig {
            ttl: Duration::from_secs(3600),
            poll_interval: Duration::from_millis(500),
            max_tasks: 4096,
        }
    }
}
