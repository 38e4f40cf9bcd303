//! Calls that could not finish at once: each runs as a tokio task until it answers, and
//! shutdown waits for them (for a while).

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::runtime::Handle;
use tokio::task::JoinSet;

use super::output::AnswerSender;
use crate::dispatch::InFlight;
use crate::handler::BoxFuture;
use crate::protocol::jsonrpc::Outgoing;

/// The running calls, shared by the I/O thread (which starts them) and the serve loop (which
/// waits for them at shutdown). Cheap to clone.
#[derive(Clone)]
pub(crate) struct Calls {
    running: Arc<Mutex<Option<Running>>>,
}

struct Running {
    tasks: JoinSet<()>,
    /// Held here, not by the I/O thread, so that it is dropped (letting the writer finish)
    /// even when the I/O thread stays blocked on stdin.
    answers: AnswerSender,
}

impl Calls {
    pub(crate) fn new(answers: AnswerSender) -> Self {
        Calls {
            running: Arc::new(Mutex::new(Some(Running {
                tasks: JoinSet::new(),
                answers,
            }))),
        }
    }

    /// Run `call` on `runtime`; its answer goes to the writer. Once shutdown has begun the
    /// call is dropped instead, unanswered.
    pub(crate) fn start(&self, call: BoxFuture<'static, Option<Outgoing>>, runtime: &Handle) {
        let mut running = self.lock();
        let Some(Running { tasks, answers }) = running.as_mut() else {
            return;
        };
        // Forget the calls that ended, so the set holds only what still runs.
        while tasks.try_join_next().is_some() {}
        let answers = answers.clone();
        tasks.spawn_on(
            async move {
                if let Some(answer) = call.await {
                    answers.send(answer);
                }
            },
            runtime,
        );
    }

    /// Take no more calls; give the running ones `timeout` to answer, then cancel and abandon
    /// them.
    pub(crate) async fn finish(&self, timeout: Duration, in_flight: &InFlight) {
        let Some(Running { mut tasks, answers }) = self.lock().take() else {
            return;
        };
        // Calls that ended since the last start are still in the set until joined.
        while tasks.try_join_next().is_some() {}
        if !tasks.is_empty() {
            tracing::info!(running = tasks.len(), "waiting for running calls to finish");
            let all_finished = tokio::time::timeout(timeout, async {
                while tasks.join_next().await.is_some() {}
            })
            .await;
            if all_finished.is_err() {
                tracing::warn!(
                    abandoned = tasks.len(),
                    "calls still running after {timeout:?}; abandoning them"
                );
                in_flight.cancel_all();
                tasks.shutdown().await;
            }
        }
        drop(answers);
    }

    fn lock(&self) -> MutexGuard<'_, Option<Running>> {
        self.running
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::super::output::tests::{Recorder, message};
    use super::super::output::{Output, spawn_writer};
    use super::*;

    #[tokio::test]
    async fn answers_of_started_calls_are_written_and_finish_waits_for_them() {
        let recorder = Recorder::default();
        let (answers, mut done) = spawn_writer(Output::new(recorder.clone())).unwrap();
        let calls = Calls::new(answers);
        calls.start(
            Box::pin(async {
                tokio::time::sleep(Duration::from_millis(30)).await;
                Some(message(1))
            }),
            &Handle::current(),
        );
        calls.start(Box::pin(async { None }), &Handle::current());
        calls
            .finish(Duration::from_secs(10), &InFlight::default())
            .await;
        done.stopped().await;
        assert_eq!(
            recorder.lines(),
            [r#"{"jsonrpc":"2.0","id":1,"result":{}}"#]
        );
    }

    #[tokio::test(start_paused = true)]
    async fn calls_over_the_timeout_are_abandoned_unanswered() {
        let recorder = Recorder::default();
        let (answers, mut done) = spawn_writer(Output::new(recorder.clone())).unwrap();
        let calls = Calls::new(answers);
        calls.start(
            Box::pin(async {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                Some(message(1))
            }),
            &Handle::current(),
        );
        calls
            .finish(Duration::from_secs(1), &InFlight::default())
            .await;
        done.stopped().await;
        assert!(recorder.lines().is_empty());
        // After shutdown began, new calls are dropped.
        calls.start(Box::pin(async { Some(message(2)) }), &Handle::current());
    }
}
