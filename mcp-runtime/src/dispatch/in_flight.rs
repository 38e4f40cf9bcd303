//! The calls a connection has running, so `notifications/cancelled` can reach them.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::cancel::CancellationToken;
use crate::protocol::jsonrpc::RequestId;

/// Running calls of one connection by request id. Cheap to clone; clones share the table.
#[derive(Debug, Clone, Default)]
pub(crate) struct InFlight {
    calls: Calls,
}

#[derive(Debug, Clone)]
enum Calls {
    /// A connection's: any number of calls, each with its own token.
    Table(Arc<Mutex<Table>>),
    /// A single request's (a stateless 2026-07-28 POST): its one call takes this token, made
    /// with the session, so the request allocates no table besides the token it needs anyway.
    One(CancellationToken),
}

impl Default for Calls {
    fn default() -> Self {
        Calls::Table(Arc::default())
    }
}

/// Every `tools/call` inserts and removes its id. Most connections run one call at a time
/// (every 2026-07-28 request has a table of its own), so the first call has a place of its own
/// and the map, which allocates on its first insertion, holds only the others. The map hashes
/// with [`FastHasher`](crate::fast_hash::FastHasher) rather than SipHash: each connection has
/// its own table, filled only with the ids of its own client's running calls, so a client
/// choosing colliding ids slows only itself.
#[derive(Debug, Default)]
struct Table {
    first: Option<(RequestId, CancellationToken)>,
    others: crate::fast_hash::FastMap<RequestId, CancellationToken>,
}

impl Table {
    fn get(&self, id: &RequestId) -> Option<&CancellationToken> {
        match &self.first {
            Some((first, token)) if first == id => Some(token),
            _ => self.others.get(id),
        }
    }

    fn tokens(&self) -> impl Iterator<Item = &CancellationToken> {
        self.first
            .iter()
            .map(|(_, token)| token)
            .chain(self.others.values())
    }

    fn remove(&mut self, id: &RequestId) {
        if self.first.as_ref().is_some_and(|(first, _)| first == id) {
            self.first = None;
        } else {
            self.others.remove(id);
        }
    }
}

/// The id was already in use by a running call of the same client.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DuplicateId;

impl InFlight {
    /// The calls of a session that serves one request.
    pub(crate) fn one_request() -> Self {
        InFlight {
            calls: Calls::One(CancellationToken::new()),
        }
    }

    /// The cancellation token for a new call to [`register`](Self::register) under: a fresh
    /// one, or the single request's.
    pub(crate) fn token(&self) -> CancellationToken {
        match &self.calls {
            Calls::Table(_) => CancellationToken::new(),
            Calls::One(token) => token.clone(),
        }
    }

    /// Whether a call registered under `id` is still running: a call that will run and end
    /// within its dispatch (which holds the session) need not register, only not reuse an id.
    pub(crate) fn is_running(&self, id: &RequestId) -> bool {
        match &self.calls {
            Calls::Table(calls) => lock(calls).get(id).is_some(),
            Calls::One(_) => false,
        }
    }

    /// Record a call under `id` until the returned guard drops. A single request's session
    /// has no table: its call is the one its token cancels.
    pub(crate) fn register(
        &self,
        id: RequestId,
        token: CancellationToken,
    ) -> Result<InFlightGuard, DuplicateId> {
        let Calls::Table(calls) = &self.calls else {
            return Ok(InFlightGuard { calls: None, id });
        };
        let mut table = lock(calls);
        if table.get(&id).is_some() {
            return Err(DuplicateId);
        }
        if table.first.is_none() {
            table.first = Some((id.clone(), token));
        } else {
            table.others.insert(id.clone(), token);
        }
        drop(table);
        Ok(InFlightGuard {
            calls: Some(calls.clone()),
            id,
        })
    }

    /// Fire the token of the call `id`; `false` if no such call is running (it may have
    /// finished already: cancellation always races completion). A single request's session
    /// fires its one token, whatever the id: it has no other call.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        let calls = match &self.calls {
            Calls::Table(calls) => calls,
            Calls::One(token) => {
                token.cancel();
                return true;
            }
        };
        match lock(calls).get(id) {
            Some(token) => {
                token.cancel();
                true
            }
            None => false,
        }
    }

    /// Fire every running call's token.
    pub(crate) fn cancel_all(&self) {
        match &self.calls {
            Calls::Table(calls) => {
                for token in lock(calls).tokens() {
                    token.cancel();
                }
            }
            Calls::One(token) => token.cancel(),
        }
    }

    /// How many calls are running (a single request's session counts none).
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        let Calls::Table(calls) = &self.calls else {
            return 0;
        };
        let table = lock(calls);
        usize::from(table.first.is_some()) + table.others.len()
    }
}

fn lock(calls: &Mutex<Table>) -> MutexGuard<'_, Table> {
    // The table stays consistent even if a holder panicked: every operation is one call.
    calls
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Removes its call from the table when dropped: on completion, and also when the call's
/// task is aborted.
#[derive(Debug)]
pub(crate) struct InFlightGuard {
    /// `None` for a single request's call, which is in no table.
    calls: Option<Arc<Mutex<Table>>>,
    id: RequestId,
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        if let Some(calls) = &self.calls {
            lock(calls).remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: i64) -> RequestId {
        RequestId::Number(n.into())
    }

    #[test]
    fn an_id_is_running_while_its_registration_lives() {
        let in_flight = InFlight::default();
        assert!(!in_flight.is_running(&id(1)));
        let guard = in_flight.register(id(1), CancellationToken::new()).unwrap();
        assert!(in_flight.is_running(&id(1)));
        assert!(!in_flight.is_running(&id(2)));
        drop(guard);
        assert!(!in_flight.is_running(&id(1)));
        // A single request's session keeps no table: its one call never collides.
        let one = InFlight::one_request();
        let _guard = one.register(id(1), one.token()).unwrap();
        assert!(!one.is_running(&id(1)));
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
    fn a_single_request_s_call_takes_its_token_and_any_cancel_fires_it() {
        let in_flight = InFlight::one_request();
        let token = in_flight.token();
        assert!(!token.is_cancelled());
        let guard = in_flight.register(id(1), token.clone()).unwrap();
        assert_eq!(in_flight.len(), 0);
        drop(guard);
        assert!(in_flight.cancel(&id(7)));
        assert!(token.is_cancelled());
        assert!(
            in_flight.token().is_cancelled(),
            "the same token, every time"
        );
        // A connection's table hands out a new token per call.
        let table = InFlight::default();
        let first = table.token();
        first.cancel();
        assert!(!table.token().is_cancelled());
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
    fn the_first_call_s_place_and_the_map_keep_every_id_once() {
        let in_flight = InFlight::default();
        let (b, c) = (CancellationToken::new(), CancellationToken::new());
        let first = in_flight.register(id(1), CancellationToken::new()).unwrap();
        let _second = in_flight.register(id(2), b.clone()).unwrap();
        assert_eq!(
            in_flight
                .register(id(1), CancellationToken::new())
                .unwrap_err(),
            DuplicateId
        );
        drop(first);
        // The first place is free again while the map still holds 2.
        assert_eq!(
            in_flight
                .register(id(2), CancellationToken::new())
                .unwrap_err(),
            DuplicateId
        );
        let _third = in_flight.register(id(3), c.clone()).unwrap();
        assert_eq!(in_flight.len(), 2);
        assert!(!in_flight.cancel(&id(1)));
        assert!(in_flight.cancel(&id(2)) && in_flight.cancel(&id(3)));
        assert!(b.is_cancelled() && c.is_cancelled());
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
