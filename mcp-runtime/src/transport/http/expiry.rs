//! Forgetting idle sessions off the request path: a background task sweeps the table now and
//! then, so that opening a session costs the same with ten thousand open as with none.
//!
//! The sweep only bounds how long an expired session holds memory (and a place under
//! [`HttpConfig::max_sessions`](super::HttpConfig::max_sessions)): a request naming a session
//! checks that session's own idle time, so none is served once expired, sweep or not; and a
//! server at its limit sweeps before it refuses a session.

use std::sync::{Mutex, Weak};
use std::time::Duration;

/// How often a table whose entries expire after `idle_timeout` is swept: a quarter of that
/// (an expired session lingers at most that much longer), between one second and one minute.
pub(crate) fn sweep_interval(idle_timeout: Duration) -> Duration {
    (idle_timeout / 4).clamp(Duration::from_secs(1), Duration::from_secs(60))
}

/// Starts sweeping `table` with `sweep` every `every`, on a task of the current tokio runtime,
/// until the table is dropped. Call it once per table (see [`Started`]).
pub(crate) fn spawn_sweeper<T: Send + Sync + 'static>(
    table: Weak<T>,
    every: Duration,
    sweep: fn(&T),
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            let Some(table) = table.upgrade() else {
                return;
            };
            sweep(&table);
        }
    })
}

/// Whether a table's sweeper is running: started by the first session opened, inside the
/// runtime that serves it (a service may be made outside one).
#[derive(Debug, Default)]
pub(crate) struct Started(Mutex<bool>);

impl Started {
    /// `true` the first time only.
    pub(crate) fn first(&self) -> bool {
        let mut started = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        !std::mem::replace(&mut *started, true)
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    #[test]
    fn the_interval_is_a_quarter_of_the_timeout_within_bounds() {
        assert_eq!(
            sweep_interval(Duration::from_secs(30 * 60)),
            Duration::from_secs(60)
        );
        assert_eq!(
            sweep_interval(Duration::from_secs(40)),
            Duration::from_secs(10)
        );
        assert_eq!(
            sweep_interval(Duration::from_millis(50)),
            Duration::from_secs(1)
        );
    }

    #[test]
    fn only_the_first_start_starts() {
        let started = Started::default();
        assert!(started.first());
        assert!(!started.first());
    }

    #[tokio::test(start_paused = true)]
    async fn a_sweeper_sweeps_until_its_table_is_dropped() {
        let table = Arc::new(AtomicUsize::new(0));
        let sweeper = spawn_sweeper(Arc::downgrade(&table), Duration::from_secs(1), |swept| {
            swept.fetch_add(1, Ordering::SeqCst);
        });
        tokio::time::sleep(Duration::from_millis(3500)).await;
        assert_eq!(table.load(Ordering::SeqCst), 3);
        drop(table);
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(sweeper.is_finished(), "the sweeper ends with its table");
    }
}
