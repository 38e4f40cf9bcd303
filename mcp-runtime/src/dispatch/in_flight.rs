//! The calls a connection has running, so `notifications/cancelled` can reach them.

use std::collections::hash_map::Entry;
use std::sync::{Arc, Mutex, MutexGuard};

use crate::cancel::CancellationToken;
use crate::protocol::jsonrpc::RequestId;

/// Running calls of one connection by request id. Cheap to clone; clones share the table.
#[derive(Debug, Clone, Default)]
pub(crate) struct InFlight {
    calls: Arc<Mutex<Table>>,
}

/// Every `tools/call` inserts and removes its id, so the table hashes with
/// [`FastHasher`](crate::fast_hash::FastHasher) rather than SipHash: each connection has its
/// own table, filled only with the ids of its own client's running calls, so a client choosing
/// colliding ids slows only itself.
type Table = crate::fast_hash::FastMap<RequestId, CancellationToken>;

/// The id was already in use by a running call of the same client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DuplicateId;

impl InFlight {
    /// Record a call under `id` until the returned guard drops.
    pub(crate) fn register(
        &self,
        id: RequestId,
        token: CancellationToken,
    ) -> Result<InFlightGuard, DuplicateId> {
        match self.table().entry(id.clone()) {
            Entry::Occupied(_) => return Err(DuplicateId),
            Entry::Vacant(slot) => {
                slot.insert(token);
            }
        }
        Ok(InFlightGuard {
            in_flight: self.clone(),
            id,
        })
    }

    /// Fire the token of the call `id`; `false` if no such call is running (it may have
    /// finished already: cancellation always races completion).
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        match self.table().get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Fire every running call's token.
    pub(crate) fn cancel_all(&self) {
        for token in self.table().values() {
            token.cancel();
        }
    }

    /// How many calls are running.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.table().len()
    }

    fn table(&self) -> MutexGuard<'_, Table> {
        // The table stays consistent even if a holder panicked: every operation is one call.
        self.calls
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Removes its call from the table when dropped: on completion, and also when the call's
/// task is aborted.
#[derive(Debug)]
pub(crate) struct InFlightGuard {
    in_flight: InFlight,
    id: RequestId,
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.in_flight.table().remove(&self.id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: i64) -> RequestId {
        RequestId::Number(n.into())
    }

    #[test]
    fn cancel_fires_the_registered_token() {
        let in_flight = InFlight::default();
        let token = CancellationToken::new();
        let _guard = in_flight.register(id(1), token.clone()).unwrap();
        assert!(in_flight.cancel(&id(1)));
        assert!(token.is_cancelled());
    }

    #[test]
    fn unknown_ids_are_tolerated() {
        assert!(!InFlight::default().cancel(&id(42)));
    }

    #[test]
    fn a_running_id_cannot_be_reused() {
        let in_flight = InFlight::default();
        let _guard = in_flight.register(id(1), CancellationToken::new()).unwrap();
        assert_eq!(
            in_flight
                .register(id(1), CancellationToken::new())
                .unwrap_err(),
            DuplicateId
        );
    }

    #[test]
    fn dropping_the_guard_forgets_the_call() {
        let in_flight = InFlight::default();
        let guard = in_flight.register(id(1), CancellationToken::new()).unwrap();
        assert_eq!(in_flight.len(), 1);
        drop(guard);
        assert_eq!(in_flight.len(), 0);
        assert!(in_flight.register(id(1), CancellationToken::new()).is_ok());
    }

    #[test]
    fn string_and_number_ids_of_any_length_are_told_apart() {
        let in_flight = InFlight::default();
        let ids: Vec<RequestId> = (0..200)
            .map(id)
            .chain((0..40).map(|n| RequestId::String("x".repeat(n))))
            .chain([
                RequestId::String("1".into()),
                RequestId::Number(u64::MAX.into()),
            ])
            .collect();
        let guards: Vec<_> = ids
            .iter()
            .map(|id| {
                in_flight
                    .register(id.clone(), CancellationToken::new())
                    .unwrap()
            })
            .collect();
        assert_eq!(in_flight.len(), ids.len());
        for id in &ids {
            assert!(in_flight.cancel(id), "{id}");
        }
        assert!(!in_flight.cancel(&id(200)));
        drop(guards);
        assert_eq!(in_flight.len(), 0);
    }

    #[test]
    fn cancel_all_fires_every_token() {
        let in_flight = InFlight::default();
        let (a, b) = (CancellationToken::new(), CancellationToken::new());
        let _ga = in_flight.register(id(1), a.clone()).unwrap();
        let _gb = in_flight.register(id(2), b.clone()).unwrap();
        in_flight.cancel_all();
        assert!(a.is_cancelled() && b.is_cancelled());
    }
}
