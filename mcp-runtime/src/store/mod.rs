//! State that outlives one server instance: what replicas behind a load balancer share.
//!
//! An instance keeps four kinds of state about its clients, each behind a trait whose
//! default lives in the process (today's behaviour, right for one instance):
//!
//! * which 2026-07-28 `requestState`s a retry already used: [`ReplayGuard`](crate::ask::ReplayGuard)
//!   (default [`MemoryReplayGuard`](crate::ask::MemoryReplayGuard));
//! * tool calls running as tasks (the `tasks` feature): [`TaskStore`] (default: the tasks live
//!   in the instance that runs them, and `tasks/*` requests must reach it);
//! * announcements of changes (`resources/updated`, `list_changed`): [`EventBus`] (default:
//!   an announcement reaches the clients connected to the instance that made it);
//! * legacy HTTP sessions (`Mcp-Session-Id`) and the events of their resumable streams:
//!   [`SessionStore`] (default: a session lives in the instance that opened it, and its
//!   requests must reach that instance; [`MemorySessionStore`] shares them between the
//!   servers of one process).
//!
//! With the `redis` feature, [`RedisStore`](crate::redis::RedisStore) implements all four on
//! a Redis (or Valkey) that every instance shares; [`Server::redis`](crate::Server::redis)
//! installs it.
//!
//! A store that cannot answer (down, unreachable, slower than its timeout) answers
//! [`StoreError`]: the request that needed it gets the JSON-RPC error
//! [`STORE_UNAVAILABLE`] (`-32031`), and nothing that needs no store is affected.

use std::fmt;

pub(crate) mod session;
#[cfg(feature = "tasks")]
pub(crate) mod task;

pub use session::{
    MemorySessionStore, Replay, SessionStore, StoredEvent, StoredSession, StreamBounds,
};

#[cfg(feature = "tasks")]
pub use task::{LoadedTask, SignalHandler, StoredTask, TaskSignal, TaskStore};

use crate::protocol::jsonrpc::ErrorObject;

/// The JSON-RPC error code of a request that needed the shared store while it could not
/// answer: `-32031`, in the range JSON-RPC leaves to servers. The request was not carried out
/// and may be sent again once the store is back. (One edge: a store operation that timed out
/// may still have reached the store. A retry whose `requestState` was being recorded may then
/// be refused as already used, `-32602`, and starts over without it, as that error says.)
pub const STORE_UNAVAILABLE: i32 = -32031;

/// The shared store could not do what was asked: it is down, unreachable, or did not answer
/// within its timeout. Says what failed, for logs and for the client's error message.
#[derive(Debug, Clone)]
pub struct StoreError {
    message: String,
}

impl StoreError {
    /// An error saying `message` (one sentence, no secrets: it reaches the client).
    pub fn new(message: impl Into<String>) -> Self {
        StoreError {
            message: message.into(),
        }
    }

    /// The `-32031` error the client gets for a request that needed the store.
    pub(crate) fn to_error_object(&self) -> ErrorObject {
        ErrorObject::new(
            STORE_UNAVAILABLE,
            format!(
                "the server's shared store is unavailable ({}); this request needs it and was \
                 not carried out: send it again later",
                self.message
            ),
        )
    }
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StoreError {}

/// A record a store keeps opaque but for its id: the document, and the JSON it is kept as
/// (made once, when the record is made or read). [`StoredTask`] and
/// [`StoredSession`] are each one.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Record<D> {
    pub(crate) id: String,
    pub(crate) document: D,
    pub(crate) encoded: String,
}

impl<D: serde::Serialize + serde::de::DeserializeOwned> Record<D> {
    pub(crate) fn new(id: String, document: D) -> Self {
        let encoded = serde_json::to_string(&document).unwrap_or_default();
        Record {
            id,
            document,
            encoded,
        }
    }

    /// The record read back from its JSON; `Err` names `what` it should have been.
    pub(crate) fn decode(id: String, encoded: String, what: &str) -> Result<Self, StoreError> {
        let document = serde_json::from_str(&encoded)
            .map_err(|error| StoreError::new(format!("a stored {what} is unreadable: {error}")))?;
        Ok(Record {
            id,
            document,
            encoded,
        })
    }
}

/// A change one instance announces, as every instance's clients may need to hear it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Change {
    /// The contents at this URI changed.
    ResourceUpdated(String),
    /// Resources were added or removed.
    ResourceListChanged,
    /// Prompts were added or removed.
    PromptListChanged,
    /// Tools were added or removed.
    ToolListChanged,
}

impl Change {
    /// The change as one line of JSON, for a store to carry.
    pub fn encode(&self) -> String {
        let value = match self {
            Change::ResourceUpdated(uri) => serde_json::json!({"resourceUpdated": uri}),
            Change::ResourceListChanged => serde_json::json!({"listChanged": "resources"}),
            Change::PromptListChanged => serde_json::json!({"listChanged": "prompts"}),
            Change::ToolListChanged => serde_json::json!({"listChanged": "tools"}),
        };
        value.to_string()
    }

    /// The change [`encode`](Self::encode) wrote; `None` for anything else.
    pub fn decode(encoded: &str) -> Option<Self> {
        let value: serde_json::Value = serde_json::from_str(encoded).ok()?;
        if let Some(uri) = value.get("resourceUpdated").and_then(|uri| uri.as_str()) {
            return Some(Change::ResourceUpdated(uri.to_owned()));
        }
        match value.get("listChanged")?.as_str()? {
            "resources" => Some(Change::ResourceListChanged),
            "prompts" => Some(Change::PromptListChanged),
            "tools" => Some(Change::ToolListChanged),
            _ => None,
        }
    }
}

impl fmt::Debug for dyn EventBus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("EventBus(..)")
    }
}

/// Receives the changes other instances announce.
pub type ChangeHandler = Box<dyn Fn(Change) + Send + Sync>;

/// Carries announcements between instances: what one instance's
/// [`Notifier`](crate::Notifier) announces reaches the clients of every other.
///
/// The announcing instance delivers to its own clients itself; a bus delivers to the others
/// only, each change once. Delivery is best-effort, like the notifications it carries: a bus
/// that cannot publish logs it, and the announcing instance's own clients still hear it.
pub trait EventBus: Send + Sync + 'static {
    /// Send `change` to the other instances; never waits.
    fn publish(&self, change: Change);

    /// Call `deliver` with every change another instance publishes, from now on.
    fn on_change(&self, deliver: ChangeHandler);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changes_survive_their_encoding() {
        for change in [
            Change::ResourceUpdated("file:///a b.md".into()),
            Change::ResourceListChanged,
            Change::PromptListChanged,
            Change::ToolListChanged,
        ] {
            assert_eq!(Change::decode(&change.encode()), Some(change));
        }
        assert_eq!(Change::decode("{\"listChanged\":\"other\"}"), None);
        assert_eq!(Change::decode("not json"), None);
    }

    #[test]
    fn the_error_names_its_code_and_cause() {
        let error = StoreError::new("Redis did not answer within 2s").to_error_object();
        assert_eq!(error.code, STORE_UNAVAILABLE);
        assert!(error.message.contains("Redis did not answer within 2s"));
    }
}
