//! Server-sent event frames: a message, a message with an id (resumable streams), the priming
//! event of a 2025-11-25 stream.

use bytes::Bytes;

use crate::protocol::jsonrpc::Outgoing;

/// One server-sent event carrying `message` (compact JSON never holds a newline, so one
/// `data:` line suffices).
pub(crate) fn event(message: &Outgoing) -> Bytes {
    event_with_id(None, message)
}

/// [`event`], with an `id` field when given (a resumable stream's events).
pub(crate) fn event_with_id(id: Option<&str>, message: &Outgoing) -> Bytes {
    let json = message.as_bytes();
    let id_len = id.map_or(0, |id| id.len() + 5);
    let mut bytes = Vec::with_capacity(json.len() + id_len + 24);
    if let Some(id) = id {
        bytes.extend_from_slice(b"id: ");
        bytes.extend_from_slice(id.as_bytes());
        bytes.push(b'\n');
    }
    bytes.extend_from_slice(b"event: message\ndata: ");
    bytes.extend_from_slice(json);
    bytes.extend_from_slice(b"\n\n");
    bytes.into()
}

/// How long a 2025-11-25 client should wait before reconnecting a broken event stream (the
/// `retry` field of the priming event).
pub(crate) const RETRY_MILLIS: u64 = 1000;

/// The first event of a 2025-11-25 stream: an id and empty data (so the client has an id to
/// reconnect with), and how long to wait before reconnecting.
pub(crate) fn priming(id: &str) -> Bytes {
    format!("id: {id}\nretry: {RETRY_MILLIS}\ndata: \n\n").into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::jsonrpc::RequestId;

    #[test]
    fn an_event_is_one_data_line() {
        let message = Outgoing::result(&RequestId::Number(1.into()), &serde_json::json!({}));
        assert_eq!(
            &event(&message)[..],
            b"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
        );
    }

    #[test]
    fn resumable_events_carry_their_id_and_streams_open_primed() {
        let message = Outgoing::result(&RequestId::Number(1.into()), &serde_json::json!({}));
        assert_eq!(
            &event_with_id(Some("t-3-1"), &message)[..],
            b"id: t-3-1\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n\n"
        );
        assert_eq!(&priming("t-0-0")[..], b"id: t-0-0\nretry: 1000\ndata: \n\n");
    }
}
