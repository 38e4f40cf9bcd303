//! Messages out: compact JSON, built straight into one buffer.

use std::fmt;

use serde::Serialize;
use serde_json::value::RawValue;

use super::{ErrorObject, RequestId};

/// One JSON-RPC message (or batch array) encoded for the wire: compact JSON, no trailing
/// newline, never an embedded one (serde_json escapes newlines inside strings).
#[derive(Clone, PartialEq, Eq)]
pub(crate) struct Outgoing {
    bytes: Vec<u8>,
}

const RESPONSE_HEAD: &[u8] = br#"{"jsonrpc":"2.0","id":"#;

/// The first capacity of a result response's buffer.
const RESULT_CAPACITY: usize = 512;

impl Outgoing {
    /// A success response carrying `result`.
    ///
    /// Should `result` fail to serialize (a map with non-string keys in a user type), the
    /// client gets an internal error for this id instead.
    pub(crate) fn result<T: Serialize + ?Sized>(id: &RequestId, result: &T) -> Self {
        Self::result_written(id, |bytes| serde_json::to_writer(bytes, result))
    }

    /// A success response whose result `write` writes as JSON; as [`result`](Self::result)
    /// when it fails.
    pub(crate) fn result_written(
        id: &RequestId,
        write: impl FnOnce(&mut Vec<u8>) -> serde_json::Result<()>,
    ) -> Self {
        // Room for a typical tool result, 2026-07-28 `_meta` included, without growing: a
        // growth is a copy and another allocation, while a larger first one costs no more.
        let mut bytes = Vec::with_capacity(RESULT_CAPACITY);
        bytes.extend_from_slice(RESPONSE_HEAD);
        write_id(&mut bytes, Some(id));
        bytes.extend_from_slice(br#","result":"#);
        if let Err(error) = write(&mut bytes) {
            tracing::error!(%id, %error, "a result could not be serialized");
            return Self::error(
                Some(id),
                &ErrorObject::internal_error("the result could not be serialized"),
            );
        }
        bytes.push(b'}');
        Outgoing { bytes }
    }

    /// The code of an error response; `None` for anything else. Read from where
    /// [`error`](Self::error) writes it, right after the id, so a large result is never
    /// scanned.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn error_code(&self) -> Option<i64> {
        let after_head = self.bytes.strip_prefix(RESPONSE_HEAD)?;
        let code = after_head[id_length(after_head)?..].strip_prefix(br#","error":{"code":"#)?;
        let end = code
            .iter()
            .position(|byte| !(byte.is_ascii_digit() || *byte == b'-'))?;
        std::str::from_utf8(&code[..end]).ok()?.parse().ok()
    }

    /// A success response whose result is already encoded.
    pub(crate) fn raw_result(id: &RequestId, result: &RawValue) -> Self {
        let result = result.get().as_bytes();
        let mut bytes = Vec::with_capacity(RESPONSE_HEAD.len() + 24 + result.len());
        bytes.extend_from_slice(RESPONSE_HEAD);
        write_id(&mut bytes, Some(id));
        bytes.extend_from_slice(br#","result":"#);
        bytes.extend_from_slice(result);
        bytes.push(b'}');
        Outgoing { bytes }
    }

    /// A notification of `method`, with `params` when given.
    pub(crate) fn notification<T: Serialize + ?Sized>(method: &str, params: Option<&T>) -> Self {
        let mut bytes = Vec::with_capacity(64 + method.len());
        bytes.extend_from_slice(br#"{"jsonrpc":"2.0","method":"#);
        serde_json::to_writer(&mut bytes, method).expect("a method name always serializes");
        if let Some(params) = params {
            bytes.extend_from_slice(br#","params":"#);
            if let Err(error) = serde_json::to_writer(&mut bytes, params) {
                // Only server-made params reach here; drop them rather than send broken JSON.
                tracing::error!(method, %error, "notification params could not be serialized");
                return Self::notification(method, None::<&()>);
            }
        }
        bytes.push(b'}');
        Outgoing { bytes }
    }

    /// A request of ours to the client.
    pub(crate) fn request<T: Serialize + ?Sized>(id: &RequestId, method: &str, params: &T) -> Self {
        let mut bytes = Vec::with_capacity(96 + method.len());
        bytes.extend_from_slice(RESPONSE_HEAD);
        write_id(&mut bytes, Some(id));
        bytes.extend_from_slice(br#","method":"#);
        serde_json::to_writer(&mut bytes, method).expect("a method name always serializes");
        bytes.extend_from_slice(br#","params":"#);
        if let Err(error) = serde_json::to_writer(&mut bytes, params) {
            tracing::error!(method, %error, "request params could not be serialized");
            bytes.truncate(bytes.len() - br#","params":"#.len());
        }
        bytes.push(b'}');
        Outgoing { bytes }
    }

    /// An error response; `id` is `None` when the request's id could not be read.
    pub(crate) fn error(id: Option<&RequestId>, error: &ErrorObject) -> Self {
        let mut bytes = Vec::with_capacity(96 + error.message.len());
        bytes.extend_from_slice(RESPONSE_HEAD);
        write_id(&mut bytes, id);
        bytes.extend_from_slice(br#","error":"#);
        serde_json::to_writer(&mut bytes, error).expect("an error object always serializes");
        bytes.push(b'}');
        Outgoing { bytes }
    }

    /// The JSON array of `messages`, or `None` when there are none (a batch of notifications
    /// gets no answer at all).
    pub(crate) fn batch(messages: Vec<Outgoing>) -> Option<Self> {
        if messages.is_empty() {
            return None;
        }
        let len = messages.iter().map(|m| m.bytes.len() + 1).sum::<usize>() + 1;
        let mut bytes = Vec::with_capacity(len);
        bytes.push(b'[');
        for (i, message) in messages.iter().enumerate() {
            if i > 0 {
                bytes.push(b',');
            }
            bytes.extend_from_slice(&message.bytes);
        }
        bytes.push(b']');
        Some(Outgoing { bytes })
    }

    /// The encoded message.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The encoded message, taken out (for a transport that sends it whole: no copy).
    #[cfg(feature = "http")]
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }
}

/// The length of the id at the start of `bytes`, as [`write_id`] writes it: a number, `null`,
/// or a string whose quotes and backslashes inside are escaped. Every HTTP answer asks for its
/// code, so this scans rather than parses.
#[cfg_attr(not(feature = "http"), allow(dead_code))]
fn id_length(bytes: &[u8]) -> Option<usize> {
    if bytes.first() != Some(&b'"') {
        return bytes.iter().position(|byte| *byte == b',');
    }
    let mut escaped = false;
    for (at, byte) in bytes.iter().enumerate().skip(1) {
        match byte {
            _ if escaped => escaped = false,
            b'\\' => escaped = true,
            b'"' => return Some(at + 1),
            _ => {}
        }
    }
    None
}

/// JSON-RPC answers an unreadable id with `null`.
fn write_id(bytes: &mut Vec<u8>, id: Option<&RequestId>) {
    match id {
        Some(id) => serde_json::to_writer(bytes, id).expect("an id always serializes"),
        None => bytes.extend_from_slice(b"null"),
    }
}

impl fmt::Debug for Outgoing {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Outgoing")
            .field(&String::from_utf8_lossy(&self.bytes))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn parsed(message: &Outgoing) -> Value {
        serde_json::from_slice(message.as_bytes()).unwrap()
    }

    #[test]
    fn a_result_response_is_compact_json() {
        let message =
            Outgoing::result(&RequestId::Number(1.into()), &json!({"text": "two\nlines"}));
        assert_eq!(
            message.as_bytes(),
            br#"{"jsonrpc":"2.0","id":1,"result":{"text":"two\nlines"}}"#
        );
        assert!(!message.as_bytes().contains(&b'\n'));
    }

    #[test]
    fn a_raw_result_is_spliced_in_unchanged() {
        let raw = RawValue::from_string(r#"{"tools":[]}"#.to_owned()).unwrap();
        let message = Outgoing::raw_result(&RequestId::String("a".into()), &raw);
        assert_eq!(
            parsed(&message),
            json!({"jsonrpc": "2.0", "id": "a", "result": {"tools": []}})
        );
    }

    #[test]
    fn an_error_without_id_answers_null() {
        let message = Outgoing::error(None, &ErrorObject::parse_error("eof"));
        assert_eq!(
            parsed(&message),
            json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32700, "message": "parse error: eof"}})
        );
    }

    #[test]
    fn the_error_code_is_read_past_any_id_and_only_from_errors() {
        let tricky = RequestId::String(r#"a","error":{"code":1},\"b"#.into());
        let ids = [
            Some(RequestId::Number((-7).into())),
            Some(RequestId::String(String::new())),
            Some(tricky.clone()),
            None,
        ];
        for id in &ids {
            let error = Outgoing::error(id.as_ref(), &ErrorObject::method_not_found("x"));
            assert_eq!(error.error_code(), Some(-32601), "{id:?}");
        }
        for id in ids.iter().flatten() {
            let result = Outgoing::result(id, &json!({"error": {"code": 5}}));
            assert_eq!(result.error_code(), None, "{id:?}");
        }
        let notification = Outgoing::notification("x/y", Some(&json!({})));
        assert_eq!(notification.error_code(), None);
    }

    #[test]
    fn an_unserializable_result_becomes_an_internal_error() {
        let mut bad = std::collections::HashMap::new();
        bad.insert(vec![1u8], 1);
        let message = Outgoing::result(&RequestId::Number(4.into()), &bad);
        let value = parsed(&message);
        assert_eq!(value["id"], json!(4));
        assert_eq!(value["error"]["code"], json!(ErrorObject::INTERNAL_ERROR));
    }

    #[test]
    fn a_batch_is_an_array_and_an_empty_one_is_nothing() {
        let one = Outgoing::result(&RequestId::Number(1.into()), &json!({}));
        let two = Outgoing::error(
            Some(&RequestId::Number(2.into())),
            &ErrorObject::method_not_found("x"),
        );
        let batch = Outgoing::batch(vec![one, two]).unwrap();
        let value = parsed(&batch);
        assert_eq!(value.as_array().unwrap().len(), 2);
        assert_eq!(value[1]["error"]["code"], json!(-32601));
        assert_eq!(Outgoing::batch(Vec::new()), None);
    }
}
