//! Where plain (not `async`) handler functions run: threads of this crate's own, never
//! tokio's blocking pool.
//!
//! A runtime made by `#[tokio::main]` waits, when `main` returns, for every thread of its
//! blocking pool, so one plain `fn` stuck for ever (a read from a FIFO, a lock never released)
//! kept the process alive after stdin closed, although serving had ended. These threads are
//! never waited for: once the server has given up on a call (`Server::shutdown_timeout`),
//! `main` returns and the process exits. Each runs its function inside the runtime of the call
//! (`Handle::current()` works there, as in `spawn_blocking`); idle ones end after a while.
//! It runs in the call's `tracing` span and subscriber, and (with `otel`) its OpenTelemetry
//! context, so what it logs and the spans it opens belong to the call, as an `async` handler's
//! do.

use std::collections::VecDeque;
use std::panic::{self, AssertUnwindSafe};
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// At most this many threads at once (tokio's blocking pool has the same default); more
/// calls wait for one to be free.
const MAX_THREADS: usize = 512;

/// An idle thread ends after this long without work.
const KEEP_IDLE: Duration = Duration::from_secs(10);

type Job = Box<dyn FnOnce() + Send>;

struct Pool {
    state: Mutex<State>,
    work: Condvar,
}

#[derive(Default)]
struct State {
    queue: VecDeque<Job>,
    idle: usize,
    threads: usize,
}

fn pool() -> &'static Pool {
    static POOL: OnceLock<Pool> = OnceLock::new();
    POOL.get_or_init(|| Pool {
        state: Mutex::new(State::default()),
        work: Condvar::new(),
    })
}

impl Pool {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Jobs run outside the lock, so no panic can leave the state half-changed.
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn submit(&'static self, job: Job) {
        let mut state = self.lock();
        state.queue.push_back(job);
        if state.queue.len() <= state.idle {
            self.work.notify_one();
            return;
        }
        if state.threads >= MAX_THREADS {
            return;
        }
        let spawned = std::thread::Builder::new()
            .name("mcp-blocking".to_owned())
            .spawn(move || self.work_until_idle());
        match spawned {
            Ok(_detached) => state.threads += 1,
            // The queued job waits for a thread that is running already, if any.
            Err(error) => tracing::error!(%error, "cannot start a thread for a plain fn"),
        }
    }

    fn work_until_idle(&self) {
        let mut state = self.lock();
        loop {
            if let Some(job) = state.queue.pop_front() {
                drop(state);
                job();
                state = self.lock();
                continue;
            }
            state.idle += 1;
            let (woken, wait) = self
                .work
                .wait_timeout(state, KEEP_IDLE)
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            state = woken;
            state.idle -= 1;
            if wait.timed_out() && state.queue.is_empty() {
                state.threads -= 1;
                return;
            }
        }
    }
}

/// Run `function` on a thread of its own and wait for its value, or for its panic (`Err`,
/// for the caller to resume where the dispatcher catches panics). Dropping the future does
/// not stop the function: a plain `fn` cannot be interrupted.
pub(crate) async fn run<T, F>(function: F) -> std::thread::Result<T>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    let (sender, receiver) = tokio::sync::oneshot::channel();
    let runtime = tokio::runtime::Handle::try_current().ok();
    let subscriber = tracing::dispatcher::get_default(tracing::Dispatch::clone);
    let span = tracing::Span::current();
    #[cfg(feature = "otel")]
    let context = opentelemetry::Context::current();
    pool().submit(Box::new(move || {
        let _entered = runtime.as_ref().map(tokio::runtime::Handle::enter);
        let _subscriber = tracing::dispatcher::set_default(&subscriber);
        let _span = span.enter();
        #[cfg(feature = "otel")]
        let _context = context.attach();
        let _ = sender.send(panic::catch_unwind(AssertUnwindSafe(function)));
    }));
    // The pool is never dropped, so every job runs and sends its outcome.
    receiver
        .await
        .unwrap_or_else(|_| unreachable!("a blocking job was dropped unrun"))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[tokio::test]
    async fn values_and_panics_come_back_and_the_runtime_is_at_hand() {
        assert_eq!(run(|| 2 + 3).await.unwrap(), 5);
        let panic = run(|| -> u8 { panic!("boom") }).await.unwrap_err();
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"boom"));
        let in_runtime = run(|| tokio::runtime::Handle::try_current().is_ok()).await;
        assert!(in_runtime.unwrap());
    }

    #[tokio::test]
    async fn calls_that_block_do_not_hold_up_others() {
        // Each of these blocks until all have started: they only finish if each got a thread.
        const CALLS: usize = 8;
        let started = Arc::new((Mutex::new(0), Condvar::new()));
        let finished = Arc::new(AtomicUsize::new(0));
        let calls: Vec<_> = (0..CALLS)
            .map(|_| {
                let (started, finished) = (started.clone(), finished.clone());
                tokio::spawn(run(move || {
                    let (count, all) = &*started;
                    let mut count = count.lock().unwrap();
                    *count += 1;
                    all.notify_all();
                    while *count < CALLS {
                        count = all.wait(count).unwrap();
                    }
                    finished.fetch_add(1, Ordering::SeqCst);
                }))
            })
            .collect();
        for call in calls {
            call.await.unwrap().unwrap();
        }
        assert_eq!(finished.load(Ordering::SeqCst), CALLS);
    }
}
