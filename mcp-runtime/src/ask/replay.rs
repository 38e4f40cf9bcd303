//! A 2026-07-28 `requestState` resumes one retry only. Its seal proves the server issued it,
//! but a copy (a client retrying twice, a state lifted from a log) would otherwise resume the
//! same answers again: each state carries an id that the server records as used.

use std::collections::{HashSet, VecDeque};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use crate::future::BoxFuture;
use crate::store::StoreError;

/// Records which `requestState`s a 2026-07-28 retry already used, so that each resumes a call
/// once: a second retry with the same state is refused with `-32602` and nothing runs.
///
/// The default, [`MemoryReplayGuard`], remembers in the process. Replicas behind a load
/// balancer, where a copy of a state may reach another replica, share one record: implement
/// this on the store they share (a Redis `SET id 1 NX PXAT expires` is exactly `claim`; the
/// `redis` feature's [`RedisStore`](crate::redis::RedisStore) does that), and give it to every
/// replica with [`Server::replay_guard`](crate::Server::replay_guard).
///
/// A guard that cannot answer (its store is down) returns a [`StoreError`]: the retry is then
/// refused with [`STORE_UNAVAILABLE`](crate::store::STORE_UNAVAILABLE) and its handler does not
/// run, since running it could resume the same answers twice.
///
/// ```
/// use std::collections::HashSet;
/// use std::sync::Mutex;
/// use std::time::SystemTime;
///
/// use mcp_runtime::{handler::BoxFuture, ask::ReplayGuard, store::StoreError, Server, server_info};
///
/// /// Stands in for a shared store.
/// #[derive(Default)]
/// struct SharedStore(Mutex<HashSet<String>>);
///
/// impl ReplayGuard for SharedStore {
///     fn claim<'a>(
///         &'a self,
///         id: &'a str,
///         _expires: SystemTime,
///     ) -> BoxFuture<'a, Result<bool, StoreError>> {
///         Box::pin(async move { Ok(self.0.lock().unwrap().insert(id.to_owned())) })
///     }
/// }
///
/// let server = Server::new(server_info!()).replay_guard(SharedStore::default());
/// # let _ = server;
/// ```
pub trait ReplayGuard: Send + Sync + 'static {
    /// Record the state `id` as used and answer `true`, or answer `false` if it already was.
    /// After `expires` the state is refused for its age anyway, so the record may go then.
    ///
    /// Two claims of one id racing each other must not both succeed. A guard that cannot tell
    /// (its store did not answer within a bounded time) returns the error.
    fn claim<'a>(
        &'a self,
        id: &'a str,
        expires: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
}

/// The guard a server uses: shared by its clones and by every dispatcher made from them.
#[derive(Clone)]
pub(crate) struct SharedReplayGuard(pub(crate) Arc<dyn ReplayGuard>);

impl SharedReplayGuard {
    pub(crate) fn in_memory() -> Self {
        SharedReplayGuard(Arc::new(MemoryReplayGuard::new()))
    }
}

impl fmt::Debug for SharedReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ReplayGuard(..)")
    }
}

/// The default [`ReplayGuard`]: the ids of used states, kept in memory until they expire.
///
/// It holds at most a bounded number of them (a state's id is 32 bytes, so the default
/// 262,144 take about 30 MB at worst); past that, the oldest records go first, and a copy of
/// a state that old could be used once more. Reaching the bound takes that many resumed calls
/// within a state's lifetime (10 minutes); a warning is logged when it happens.
pub struct MemoryReplayGuard {
    capacity: usize,
    used: Mutex<Used>,
}

#[derive(Default)]
struct Used {
    ids: HashSet<String>,
    /// In the order claimed, which (states living equally long) is nearly the order they
    /// expire in: the front is what goes first.
    order: VecDeque<(SystemTime, String)>,
    warned: bool,
}

impl Used {
    fn forget_oldest(&mut self) {
        if let Some((_, forgotten)) = self.order.pop_front() {
            self.ids.remove(&forgotten);
        }
    }
}

impl MemoryReplayGuard {
    /// How many used states are remembered by default.
    pub const DEFAULT_CAPACITY: usize = 1 << 18;

    /// A guard remembering up to [`DEFAULT_CAPACITY`](Self::DEFAULT_CAPACITY) states.
    pub fn new() -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY)
    }

    /// A guard remembering up to `capacity` states (at least one).
    pub fn with_capacity(capacity: usize) -> Self {
        MemoryReplayGuard {
            capacity: capacity.max(1),
            used: Mutex::default(),
        }
    }

    fn claim_now(&self, id: &str, expires: SystemTime, now: SystemTime) -> bool {
        let mut used = self
            .used
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let used = &mut *used;
        while used.order.front().is_some_and(|(expiry, _)| *expiry < now) {
            used.forget_oldest();
        }
        if used.ids.contains(id) {
            return false;
        }
        while used.order.len() >= self.capacity {
            if !used.warned {
                used.warned = true;
                tracing::warn!(
                    capacity = self.capacity,
                    "more resumed 2026-07-28 calls than the replay guard remembers; the oldest \
                     used requestStates are forgotten before they expire"
                );
            }
            used.forget_oldest();
        }
        used.ids.insert(id.to_owned());
        used.order.push_back((expires, id.to_owned()));
        true
    }
}

impl Default for MemoryReplayGuard {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for MemoryReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let remembered = self.used.lock().map_or(0, |used| used.ids.len());
        f.debug_struct("MemoryReplayGuard")
            .field("capacity", &self.capacity)
            .field("remembered", &remembered)
            .finish()
    }
}

impl ReplayGuard for MemoryReplayGuard {
    fn claim<'a>(
        &'a self,
        id: &'a str,
        expires: SystemTime,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let claimed = self.claim_now(id, expires, SystemTime::now());
        Box::pin(std::future::ready(Ok(claimed)))
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(seconds)
    }

    #[test]
    fn an_id_is_claimed_once() {
        let guard = MemoryReplayGuard::new();
        assert!(guard.claim_now("a", at(100), at(0)));
        assert!(!guard.claim_now("a", at(100), at(1)));
        assert!(guard.claim_now("b", at(100), at(1)));
    }

    #[test]
    fn expired_records_go_and_the_bound_holds() {
        let guard = MemoryReplayGuard::with_capacity(2);
        assert!(guard.claim_now("a", at(10), at(0)));
        assert!(guard.claim_now("b", at(20), at(0)));
        // `a` expired: forgotten (its state would be refused for its age anyway).
        assert!(guard.claim_now("c", at(30), at(15)));
        assert_eq!(guard.used.lock().unwrap().ids.len(), 2);
        assert!(!guard.claim_now("b", at(20), at(15)));
        // Full of live records: the oldest goes.
        assert!(guard.claim_now("d", at(40), at(16)));
        let used = guard.used.lock().unwrap();
        assert_eq!(used.ids.len(), 2);
        assert!(used.ids.contains("c") && used.ids.contains("d"));
        assert!(used.warned);
    }
}
