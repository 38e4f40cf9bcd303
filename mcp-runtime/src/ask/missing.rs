//! The client capabilities a 2026-07-28 handler wanted and its request did not declare. A
//! handler that fails after wanting one is answered with `-32021` naming them, so that the
//! client knows what to declare to succeed.

use std::sync::{Mutex, MutexGuard};

use serde_json::{Map, Value, json};

use crate::protocol::jsonrpc::ErrorObject;

/// Each capability wanted once, in the order first wanted, with what a client declares to
/// have it.
pub(super) type Wanted = Vec<(&'static str, Value)>;

pub(super) fn note(wanted: &mut Wanted, capability: &'static str, declaration: Value) {
    if !wanted.iter().any(|(name, _)| *name == capability) {
        wanted.push((capability, declaration));
    }
}

/// The `-32021` error naming what was `wanted`; `None` when nothing was.
pub(super) fn error(wanted: &Wanted) -> Option<ErrorObject> {
    if wanted.is_empty() {
        return None;
    }
    let required: Map<String, Value> = wanted
        .iter()
        .map(|(name, declaration)| ((*name).to_owned(), declaration.clone()))
        .collect();
    let names: Vec<&str> = wanted.iter().map(|(name, _)| *name).collect();
    Some(
        ErrorObject::new(
            ErrorObject::MISSING_REQUIRED_CLIENT_CAPABILITY,
            format!(
                "this request needs the client capabilities it did not declare: {}",
                names.join(", ")
            ),
        )
        .with_data(json!({"requiredCapabilities": required})),
    )
}

/// What the handler of a 2026-07-28 request that can be asked nothing wanted: its client
/// declared no capability to answer with, and it resumes no earlier round, so it needs no
/// [`InputRound`](super::round::InputRound).
#[derive(Debug, Default)]
pub(crate) struct MissingCapabilities(Mutex<Wanted>);

impl MissingCapabilities {
    pub(super) fn note(&self, capability: &'static str, declaration: Value) {
        note(&mut self.lock(), capability, declaration);
    }

    /// The `-32021` error for a handler that failed after wanting a capability; `None` if it
    /// wanted none.
    pub(crate) fn error(&self) -> Option<ErrorObject> {
        error(&self.lock())
    }

    fn lock(&self) -> MutexGuard<'_, Wanted> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
