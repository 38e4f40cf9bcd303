//! What a legacy session shares with every request made in it.
//!
//! `initialize` settles the client's capabilities and name, `logging/setLevel` the session's
//! log level, and the session's handlers ask the client questions whose answers come back
//! through it. Every request of the session holds these, so they live in one allocation,
//! which a request takes four counted references to (rather than one to each of four
//! allocations of the session, spread over as many cache lines).

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use serde_json::Value;

use crate::ask::pending::{HoldsQuestions, Questions};
use crate::context::logging::{LogLevel, SessionLevel};

/// A legacy session's settled parts, shared by the session and its requests.
#[derive(Debug, Default)]
pub(crate) struct SessionShared {
    /// The client's `capabilities` from `initialize` (`{}` when it sent none).
    pub(crate) client_capabilities: Value,
    /// The client's `clientInfo` from `initialize`, if it gave one.
    pub(crate) client: Option<ClientInfo>,
    /// 0: no level set (everything is sent); otherwise the index of the level in
    /// [`LogLevel::ALL`] plus one.
    log_minimum: AtomicU8,
    /// The questions the session's handlers asked the client and await answers to.
    questions: Mutex<Questions>,
}

impl SessionShared {
    /// What `initialize` settled: the client's `capabilities` and `clientInfo`. No log level
    /// is set and no question asked yet.
    pub(crate) fn new(client_capabilities: Value, client: Option<ClientInfo>) -> Arc<Self> {
        Arc::new(SessionShared {
            client_capabilities,
            client,
            ..SessionShared::default()
        })
    }

    /// Set the session's minimum log level (`logging/setLevel`); calls already running see it.
    ///
    /// Until the client sets a level every message is sent, as the reference SDKs do: the spec
    /// leaves the default open, and a client that declared nothing still shows what it
    /// receives.
    pub(crate) fn set_log_level(&self, level: LogLevel) {
        self.log_minimum.store(level as u8 + 1, Ordering::Relaxed);
    }

    /// The level set, if one was.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn log_level(&self) -> Option<LogLevel> {
        let minimum = self.log_minimum.load(Ordering::Relaxed);
        LogLevel::ALL
            .get(usize::from(minimum.checked_sub(1)?))
            .copied()
    }
}

impl SessionLevel for SessionShared {
    fn allows(&self, level: LogLevel) -> bool {
        level as u8 + 1 >= self.log_minimum.load(Ordering::Relaxed)
    }
}

impl HoldsQuestions for SessionShared {
    fn questions(&self) -> &Mutex<Questions> {
        &self.questions
    }
}

/// The client's name and version as it gave them (`clientInfo`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ClientInfo {
    pub(crate) name: Arc<str>,
    pub(crate) version: Option<Arc<str>>,
}

impl ClientInfo {
    /// The `clientInfo` object of `initialize` or of a 2026-07-28 request's `_meta`.
    pub(crate) fn from_value(value: &Value) -> Option<Self> {
        let name = value.get("name")?.as_str()?;
        Some(ClientInfo {
            name: name.into(),
            version: value.get("version").and_then(Value::as_str).map(Arc::from),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_sends_everything_until_a_level_is_set() {
        let session = SessionShared::new(Value::Null, None);
        let seen_by_a_call = Arc::clone(&session);
        assert_eq!(seen_by_a_call.log_level(), None);
        assert!(seen_by_a_call.allows(LogLevel::Debug));
        session.set_log_level(LogLevel::Warning);
        assert_eq!(seen_by_a_call.log_level(), Some(LogLevel::Warning));
        assert!(!seen_by_a_call.allows(LogLevel::Info));
        assert!(seen_by_a_call.allows(LogLevel::Warning));
        assert!(seen_by_a_call.allows(LogLevel::Emergency));
        session.set_log_level(LogLevel::Debug);
        assert!(seen_by_a_call.allows(LogLevel::Debug));
    }
}
