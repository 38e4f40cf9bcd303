//! The opt-in forwarding of `tracing` events emitted while a handler runs to its client (see
//! [`Server::forward_tracing`](crate::Server::forward_tracing)).

use std::cell::Cell;
use std::fmt;
use std::sync::Arc;

use serde_json::{Map, Value};
use tracing::field::{Field, Visit};

use super::logging::LogLevel;
use super::peer::RequestPeer;

tokio::task_local! {
    /// The peer of the request whose handler is running on this task, when the server
    /// forwards `tracing` events and the request can send logs.
    static FORWARD_TO: Option<Arc<RequestPeer>>;
}

thread_local! {
    /// Set while an event is being forwarded: an event emitted on the way out (by the
    /// transport, say) is not forwarded in turn.
    static FORWARDING: Cell<bool> = const { Cell::new(false) };
}

/// Run `future` with `tracing` events it emits forwarded through `peer` (`None`: not
/// forwarded). Only the future's own task sees `peer`: tasks it spawns do not.
pub(crate) fn forwarding_to<F: Future + Unpin>(
    peer: Option<Arc<RequestPeer>>,
    future: F,
) -> Forwarding<F> {
    Forwarding { peer, future }
}

/// The future of [`forwarding_to`]: each poll of the inner future runs with the peer in
/// scope. Unpin (unlike tokio's own scoped future), so it fits where a boxed handler did.
pub(crate) struct Forwarding<F> {
    peer: Option<Arc<RequestPeer>>,
    future: F,
}

impl<F: Future + Unpin> Future for Forwarding<F> {
    type Output = F::Output;

    fn poll(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let this = self.get_mut();
        let future = std::pin::Pin::new(&mut this.future);
        // Without a peer (the server does not forward) the poll costs nothing extra.
        match &this.peer {
            Some(peer) => FORWARD_TO.sync_scope(Some(peer.clone()), || future.poll(cx)),
            None => future.poll(cx),
        }
    }
}

/// [`forwarding_to`] for the synchronous start of a handler (before it returns its future).
pub(crate) fn forwarding_while<R>(peer: Option<Arc<RequestPeer>>, start: impl FnOnce() -> R) -> R {
    match peer {
        Some(peer) => FORWARD_TO.sync_scope(Some(peer), start),
        None => start(),
    }
}

/// Send a `tracing` event to the client of the request whose handler emitted it, as a
/// `notifications/message`; returns whether it was sent.
///
/// Only when the server opted in with
/// [`Server::forward_tracing(true)`](crate::Server::forward_tracing), and only for events
/// emitted on the handler's own task while a tool call, `prompts/get` or `resources/read`
/// runs. They pass the same gate as [`RequestContext::log`](crate::RequestContext::log): the
/// level the client asked for (`TRACE` and `DEBUG` are `debug`, `WARN` is `warning`), nothing
/// after the request's response, in order with its other notifications. The message is `data`
/// as a JSON object: `message` and each field of the event (numbers and booleans as such,
/// anything else as text); `logger` is the event's target. Events of this crate
/// (`mcp_runtime::*`) are never sent.
///
/// The runtime's own stderr logger (installed when the program has no subscriber) calls this
/// for every event it writes, so its level (`MCP_LOG`, default `info`) also bounds what is
/// forwarded. A program with its own subscriber calls it from there (a
/// `tracing_subscriber::Layer`'s `on_event`, or a `Subscriber`'s `event`):
///
/// ```
/// use tracing::span::{Attributes, Id, Record};
/// use tracing::{Event, Metadata, Subscriber};
///
/// struct MyLogger;
///
/// impl Subscriber for MyLogger {
///     fn event(&self, event: &Event<'_>) {
///         // ... write the event where the operator reads it, then:
///         mcp_runtime::forward_tracing_event(event);
///     }
///     fn enabled(&self, _: &Metadata<'_>) -> bool {
///         true
///     }
///     fn new_span(&self, _: &Attributes<'_>) -> Id {
///         Id::from_u64(1)
///     }
///     fn record(&self, _: &Id, _: &Record<'_>) {}
///     fn record_follows_from(&self, _: &Id, _: &Id) {}
///     fn enter(&self, _: &Id) {}
///     fn exit(&self, _: &Id) {}
/// }
///
/// // Outside a handler nothing is forwarded.
/// tracing::subscriber::with_default(MyLogger, || tracing::info!(answer = 42, "computed"));
/// ```
///
/// Outside a handler, or when the server does not forward, this does nothing and returns
/// `false`.
pub fn forward_tracing_event(event: &tracing::Event<'_>) -> bool {
    let metadata = event.metadata();
    let target = metadata.target();
    // The runtime's own events are about the server, for its operator, not for the client.
    if target == "mcp_runtime" || target.starts_with("mcp_runtime::") {
        return false;
    }
    let level = LogLevel::from(*metadata.level());
    if FORWARDING.with(Cell::get) {
        return false;
    }
    FORWARD_TO
        .try_with(|peer| {
            let Some(peer) = peer.as_ref().filter(|peer| peer.log_enabled(level)) else {
                return false;
            };
            let mut data = EventData::default();
            event.record(&mut data);
            FORWARDING.with(|forwarding| forwarding.set(true));
            let sent = peer.log(level, Some(target), data.into_value());
            FORWARDING.with(|forwarding| forwarding.set(false));
            sent
        })
        .unwrap_or(false)
}

/// An event's fields as a JSON object.
#[derive(Default)]
struct EventData {
    message: Option<Value>,
    fields: Map<String, Value>,
}

impl EventData {
    fn insert(&mut self, field: &Field, value: Value) {
        if field.name() == "message" {
            self.message = Some(value);
        } else {
            self.fields.insert(field.name().to_owned(), value);
        }
    }

    /// The object, `message` first (whatever order the fields were recorded in).
    fn into_value(self) -> Value {
        let mut object = Map::with_capacity(self.fields.len() + 1);
        if let Some(message) = self.message {
            object.insert("message".to_owned(), message);
        }
        object.extend(self.fields);
        Value::Object(object)
    }
}

impl Visit for EventData {
    fn record_f64(&mut self, field: &Field, value: f64) {
        let value = serde_json::Number::from_f64(value)
            .map_or_else(|| Value::String(value.to_string()), Value::Number);
        self.insert(field, value);
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.insert(field, value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        self.insert(field, value.into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.insert(field, value.into());
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.insert(field, value.into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn fmt::Debug) {
        self.insert(field, format!("{value:?}").into());
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use serde_json::json;
    use tracing::span::{Attributes, Id, Record};
    use tracing::{Event, Metadata, Subscriber};

    use super::*;
    use crate::context::logging::{LogGate, LogLevel};
    use crate::context::peer::Outbound;
    use crate::protocol::ProtocolVersion;
    use crate::protocol::jsonrpc::Outgoing;

    /// A subscriber that only forwards, as a program's own would.
    struct Forwarder;

    impl Subscriber for Forwarder {
        fn enabled(&self, _: &Metadata<'_>) -> bool {
            true
        }
        fn new_span(&self, _: &Attributes<'_>) -> Id {
            Id::from_u64(1)
        }
        fn record(&self, _: &Id, _: &Record<'_>) {}
        fn record_follows_from(&self, _: &Id, _: &Id) {}
        fn event(&self, event: &Event<'_>) {
            forward_tracing_event(event);
        }
        fn enter(&self, _: &Id) {}
        fn exit(&self, _: &Id) {}
    }

    /// A peer for a request whose client asked for `minimum`, and the params of the
    /// `notifications/message` it sent.
    fn peer(minimum: LogLevel) -> (Arc<RequestPeer>, Arc<Mutex<Vec<Value>>>) {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let sink = sent.clone();
        let outbound = Outbound::new(move |message: Outgoing| {
            let mut value: Value = serde_json::from_slice(message.as_bytes()).unwrap();
            assert_eq!(value["method"], "notifications/message");
            sink.lock().unwrap().push(value["params"].take());
        });
        let gate = LogGate::Request(Some(minimum));
        let peer =
            RequestPeer::for_request(Some(&outbound), ProtocolVersion::V2026_07_28, &gate, None)
                .unwrap();
        (peer, sent)
    }

    /// Run `emit` under the forwarding subscriber, as the handler of `peer`'s request.
    fn in_handler(peer: &Arc<RequestPeer>, emit: impl FnOnce()) {
        tracing::subscriber::with_default(Forwarder, || {
            forwarding_while(Some(peer.clone()), emit);
        });
    }

    #[test]
    fn tracing_levels_map_onto_the_clients() {
        use tracing::Level;
        let mapped = [
            Level::ERROR,
            Level::WARN,
            Level::INFO,
            Level::DEBUG,
            Level::TRACE,
        ]
        .map(LogLevel::from);
        assert_eq!(
            mapped,
            [
                LogLevel::Error,
                LogLevel::Warning,
                LogLevel::Info,
                LogLevel::Debug,
                LogLevel::Debug
            ]
        );
    }

    #[test]
    fn an_event_becomes_a_message_with_its_fields_and_target() {
        let (peer, sent) = peer(LogLevel::Debug);
        in_handler(&peer, || {
            tracing::warn!(target: "demo::db", rows = 3, ok = true, table = "users",
                ratio = 0.5, id = ?Some(7), "slow query {}", 5);
            tracing::trace!(target: "demo::db", "trace is debug");
        });
        assert_eq!(
            sent.lock().unwrap().as_slice(),
            [
                json!({"level": "warning", "logger": "demo::db", "data": {
                    "message": "slow query 5", "rows": 3, "ok": true, "table": "users",
                    "ratio": 0.5, "id": "Some(7)"}}),
                json!({"level": "debug", "logger": "demo::db",
                    "data": {"message": "trace is debug"}}),
            ]
        );
        let first = serde_json::to_string(&sent.lock().unwrap()[0]["data"]).unwrap();
        assert!(
            first.starts_with(r#"{"message":"#),
            "message first: {first}"
        );
    }

    #[test]
    fn the_clients_level_gates_events() {
        let (peer, sent) = peer(LogLevel::Warning);
        in_handler(&peer, || {
            tracing::info!(target: "demo", "below the level");
            tracing::error!(target: "demo", "above it");
        });
        let sent = sent.lock().unwrap();
        assert_eq!(sent.len(), 1, "{sent:?}");
        assert_eq!(sent[0]["data"], json!({"message": "above it"}));
    }

    #[test]
    fn nothing_outside_a_handler_after_the_response_or_from_the_runtime() {
        let (peer, sent) = peer(LogLevel::Debug);
        tracing::subscriber::with_default(Forwarder, || {
            tracing::error!(target: "demo", "no handler runs");
            // A server that does not forward scopes no peer.
            forwarding_while(None, || tracing::error!(target: "demo", "not forwarded"));
        });
        in_handler(&peer, || {
            tracing::error!(target: "mcp_runtime::dispatch", "the runtime's own");
            tracing::error!(target: "mcp_runtime", "the runtime's own");
        });
        assert!(
            sent.lock().unwrap().is_empty(),
            "{:?}",
            sent.lock().unwrap()
        );
        in_handler(
            &peer,
            || tracing::error!(target: "mcp_runtime_extras", "not ours"),
        );
        assert_eq!(sent.lock().unwrap().len(), 1);
        peer.close();
        in_handler(
            &peer,
            || tracing::error!(target: "demo", "after the response"),
        );
        assert_eq!(sent.lock().unwrap().len(), 1, "nothing after the response");
    }

    #[tokio::test]
    async fn only_the_handlers_own_task_forwards() {
        let (peer, sent) = peer(LogLevel::Debug);
        let _default = tracing::subscriber::set_default(Forwarder);
        let handler = forwarding_to(
            Some(peer.clone()),
            Box::pin(async {
                tracing::info!(target: "demo", "before");
                tokio::task::yield_now().await;
                tokio::spawn(async { tracing::info!(target: "demo", "spawned") })
                    .await
                    .unwrap();
                tracing::info!(target: "demo", "after");
            }),
        );
        handler.await;
        tracing::info!(target: "demo", "once it returned");
        let messages: Vec<Value> = sent
            .lock()
            .unwrap()
            .iter()
            .map(|params| params["data"]["message"].clone())
            .collect();
        assert_eq!(messages, [json!("before"), json!("after")]);
    }
}
