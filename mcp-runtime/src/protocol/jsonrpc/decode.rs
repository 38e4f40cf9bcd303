//! One line of bytes -> a request, notification, response or batch, or the error to answer.

use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::error::Category;

use super::{ErrorObject, RequestId};
use crate::handler::JsonObject;

/// What one line held: a single message or a batch (a JSON array) of them.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// One message.
    Single(Message),
    /// A non-empty batch; each element decoded on its own, in order.
    Batch(Vec<Result<Message, InvalidMessage>>),
}

/// A well-formed JSON-RPC message.
#[derive(Debug)]
pub(crate) enum Message {
    /// Expects a response.
    Request(Request),
    /// Expects none.
    Notification(Notification),
    /// The client's answer to a request of ours.
    Response(Response),
}

/// A request: it has an id, a method and maybe params.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) id: RequestId,
    pub(crate) method: String,
    /// `None` when absent or `null`.
    pub(crate) params: Option<JsonObject>,
}

/// A notification: a method and maybe params, no id.
#[derive(Debug)]
pub(crate) struct Notification {
    pub(crate) method: String,
    /// `None` when absent or `null`.
    pub(crate) params: Option<JsonObject>,
}

/// A response from the client; only its id is kept.
#[derive(Debug)]
pub(crate) struct Response {
    /// `None` when the client could not read our request's id.
    pub(crate) id: Option<RequestId>,
}

/// A message that cannot be served, and the error to answer it with.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InvalidMessage {
    /// The request's id, when it could be read (the error response echoes it, else `null`).
    pub(crate) id: Option<RequestId>,
    /// Boxed: errors are the rare path, and decoding results stay small.
    pub(crate) error: Box<ErrorObject>,
    /// Whether the message was a notification: JSON-RPC never answers those, even when bad.
    pub(crate) is_notification: bool,
}

impl InvalidMessage {
    /// An error to answer with a `null` id: the id could not be read.
    pub(crate) fn unidentified(error: ErrorObject) -> Self {
        InvalidMessage {
            id: None,
            error: Box::new(error),
            is_notification: false,
        }
    }
}

/// Decode one line (without its newline).
///
/// Invalid JSON is a parse error (`-32700`); valid JSON that is not a JSON-RPC message is an
/// invalid request (`-32600`) that keeps the id when one could be read.
pub(crate) fn decode(line: &[u8]) -> Result<Incoming, InvalidMessage> {
    let opens_array = line
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'[');
    if opens_array {
        return decode_batch(line);
    }
    let envelope: Envelope = serde_json::from_slice(line).map_err(|error| {
        InvalidMessage::unidentified(match error.classify() {
            // Well-formed JSON of the wrong shape: a number, a string, a duplicate member.
            Category::Data => {
                ErrorObject::invalid_request(format!("not a JSON-RPC message: {error}"))
            }
            Category::Syntax | Category::Eof | Category::Io => ErrorObject::parse_error(error),
        })
    })?;
    envelope.into_message().map(Incoming::Single)
}

fn decode_batch(line: &[u8]) -> Result<Incoming, InvalidMessage> {
    let elements: Vec<Value> = serde_json::from_slice(line)
        .map_err(|error| InvalidMessage::unidentified(ErrorObject::parse_error(error)))?;
    if elements.is_empty() {
        return Err(InvalidMessage::unidentified(ErrorObject::invalid_request(
            "empty batch",
        )));
    }
    let messages = elements
        .into_iter()
        .map(|element| {
            Envelope::deserialize(element)
                .map_err(|error| {
                    InvalidMessage::unidentified(ErrorObject::invalid_request(format!(
                        "batch element is not a JSON-RPC message: {error}"
                    )))
                })
                .and_then(Envelope::into_message)
        })
        .collect();
    Ok(Incoming::Batch(messages))
}

/// Every member that matters, kept as raw values so that a wrong type in one member still lets
/// the others (the id above all) be read.
#[derive(Deserialize)]
struct Envelope {
    #[serde(default, deserialize_with = "present")]
    jsonrpc: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    id: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    method: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    params: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Value>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Value>,
}

/// `Some` whenever the member is there, `null` included (plain `Option` would map `null` to
/// `None`, and `"id": null` must not turn a request into a notification).
fn present<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(deserializer).map(Some)
}

impl Envelope {
    fn into_message(self) -> Result<Message, InvalidMessage> {
        let is_notification = self.id.is_none() && self.method.is_some();
        let had_id = self.id.is_some();
        let id = self.id.and_then(RequestId::from_value);
        let invalid = |error: ErrorObject| InvalidMessage {
            id: id.clone(),
            error: Box::new(error),
            is_notification,
        };

        if !matches!(&self.jsonrpc, Some(Value::String(v)) if v == "2.0") {
            return Err(invalid(ErrorObject::invalid_request(
                r#"`jsonrpc` must be "2.0""#,
            )));
        }
        let method = match self.method {
            Some(Value::String(method)) => method,
            Some(_) => {
                return Err(invalid(ErrorObject::invalid_request(
                    "`method` must be a string",
                )));
            }
            // A response to an unreadable request of ours carries a null id: still a response.
            None if self.result.is_some() || self.error.is_some() => {
                return Ok(Message::Response(Response { id }));
            }
            None => {
                return Err(invalid(ErrorObject::invalid_request(
                    "a message needs a `method` (or a `result` or `error`)",
                )));
            }
        };
        if had_id && id.is_none() {
            return Err(invalid(ErrorObject::invalid_request(
                "`id` must be a string or an integer",
            )));
        }
        let params = match self.params {
            None | Some(Value::Null) => None,
            Some(Value::Object(params)) => Some(params),
            // By-position params are valid JSON-RPC, but no MCP method takes them.
            Some(Value::Array(_)) => {
                return Err(invalid(ErrorObject::invalid_params(
                    "`params` must be an object",
                )));
            }
            Some(_) => {
                return Err(invalid(ErrorObject::invalid_request(
                    "`params` must be an object",
                )));
            }
        };
        Ok(match id {
            Some(id) => Message::Request(Request { id, method, params }),
            None => Message::Notification(Notification { method, params }),
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn single(line: &str) -> Message {
        match decode(line.as_bytes()) {
            Ok(Incoming::Single(message)) => message,
            other => panic!("expected a single message from {line}, got {other:?}"),
        }
    }

    fn failure(line: &str) -> InvalidMessage {
        match decode(line.as_bytes()) {
            Err(invalid) => invalid,
            Ok(message) => panic!("expected an error from {line}, got {message:?}"),
        }
    }

    #[test]
    fn a_request_keeps_id_method_and_params() {
        let Message::Request(request) =
            single(r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add"}}"#)
        else {
            panic!("not a request")
        };
        assert_eq!(request.id, RequestId::Number(1.into()));
        assert_eq!(request.method, "tools/call");
        assert_eq!(request.params.unwrap()["name"], json!("add"));
    }

    #[test]
    fn a_message_without_id_is_a_notification() {
        let Message::Notification(notification) =
            single(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        else {
            panic!("not a notification")
        };
        assert_eq!(notification.method, "notifications/initialized");
        assert!(notification.params.is_none());
    }

    #[test]
    fn null_params_count_as_absent() {
        let Message::Request(request) =
            single(r#"{"jsonrpc":"2.0","id":"a","method":"ping","params":null}"#)
        else {
            panic!("not a request")
        };
        assert!(request.params.is_none());
    }

    #[test]
    fn results_and_errors_are_responses() {
        let Message::Response(response) = single(r#"{"jsonrpc":"2.0","id":"s1","result":{}}"#)
        else {
            panic!("not a response")
        };
        assert_eq!(response.id, Some(RequestId::String("s1".into())));
        assert!(matches!(
            single(r#"{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}"#),
            Message::Response(Response { id: None })
        ));
    }

    #[test]
    fn broken_json_is_a_parse_error_without_id() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1"#,
            "nonsense",
            r#"{"a":1} trailing"#,
        ] {
            let invalid = failure(line);
            assert_eq!(invalid.error.code, ErrorObject::PARSE_ERROR, "{line}");
            assert_eq!(invalid.id, None);
            assert!(!invalid.is_notification);
        }
    }

    #[test]
    fn json_that_is_not_an_object_is_an_invalid_request() {
        for line in ["5", r#""text""#, "null", "true"] {
            let invalid = failure(line);
            assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST, "{line}");
            assert_eq!(invalid.id, None);
        }
    }

    #[test]
    fn an_invalid_request_keeps_a_readable_id() {
        let invalid = failure(r#"{"jsonrpc":"1.0","id":9,"method":"ping"}"#);
        assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST);
        assert_eq!(invalid.id, Some(RequestId::Number(9.into())));

        let invalid = failure(r#"{"jsonrpc":"2.0","id":"q","method":7}"#);
        assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST);
        assert_eq!(invalid.id, Some(RequestId::String("q".into())));

        let invalid = failure(r#"{"jsonrpc":"2.0","id":"q"}"#);
        assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST);
        assert_eq!(invalid.id, Some(RequestId::String("q".into())));
    }

    #[test]
    fn null_and_fractional_ids_are_invalid_requests() {
        for line in [
            r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
            r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
        ] {
            let invalid = failure(line);
            assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST, "{line}");
            assert_eq!(invalid.id, None);
            assert!(!invalid.is_notification, "{line}");
        }
    }

    #[test]
    fn positional_params_are_invalid_params() {
        let invalid = failure(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":[1]}"#);
        assert_eq!(invalid.error.code, ErrorObject::INVALID_PARAMS);
        assert_eq!(invalid.id, Some(RequestId::Number(2.into())));
        let invalid = failure(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list","params":3}"#);
        assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST);
    }

    #[test]
    fn a_bad_notification_is_marked_so_it_is_not_answered() {
        let invalid = failure(r#"{"jsonrpc":"2.0","method":"notifications/x","params":"p"}"#);
        assert!(invalid.is_notification);
    }

    #[test]
    fn duplicate_members_are_rejected() {
        let invalid = failure(r#"{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}"#);
        assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST);
    }

    #[test]
    fn a_batch_decodes_each_element() {
        let Ok(Incoming::Batch(messages)) = decode(
            br#" [{"jsonrpc":"2.0","id":1,"method":"ping"}, 5, {"jsonrpc":"2.0","method":"n"}]"#,
        ) else {
            panic!("not a batch")
        };
        assert_eq!(messages.len(), 3);
        assert!(matches!(messages[0], Ok(Message::Request(_))));
        assert_eq!(
            messages[1].as_ref().unwrap_err().error.code,
            ErrorObject::INVALID_REQUEST
        );
        assert!(matches!(messages[2], Ok(Message::Notification(_))));
    }

    #[test]
    fn an_empty_batch_is_an_invalid_request() {
        assert_eq!(failure("[]").error.code, ErrorObject::INVALID_REQUEST);
        assert_eq!(failure("[1,").error.code, ErrorObject::PARSE_ERROR);
    }

    #[test]
    fn invalid_utf8_is_a_parse_error() {
        let line = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}";
        assert_eq!(
            decode(line).unwrap_err().error.code,
            ErrorObject::PARSE_ERROR
        );
    }
}
