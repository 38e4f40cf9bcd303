//! One line of bytes -> a request, notification, response or batch, or the error to answer.
//!
//! The envelope is decoded in one pass straight into typed members: `jsonrpc` is compared
//! where it lies in the input, `result` and `error` are skipped unread, and `params` becomes
//! its [`Params`] directly. No `Value` tree is built for the envelope itself: with serde_json's
//! `preserve_order`, each JSON object is an `IndexMap` hashed with SipHash, so every object
//! not built is time saved on the hottest path of the server.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::error::Category;
use serde_json::value::RawValue;

#[cfg(feature = "http")]
use super::RequestIds;
use super::params::ArgumentsAs;
use super::{ErrorObject, Params, RequestId};
use crate::protocol::JsonObject;

/// What one line held: a single message or a batch (a JSON array) of them.
#[derive(Debug)]
pub(crate) enum Incoming {
    /// One message.
    Single(Message),
    /// A non-empty batch; each element decoded on its own, in order.
    Batch(Vec<Result<Message, InvalidMessage>>),
}

impl Incoming {
    /// The ids of the requests it holds (a transport cancels their calls when the client goes
    /// away).
    #[cfg(feature = "http")]
    pub(crate) fn request_ids(&self) -> RequestIds {
        let id = |message: &Message| match message {
            Message::Request(request) => Some(request.id.clone()),
            _ => None,
        };
        match self {
            Incoming::Single(message) => id(message).map_or(RequestIds::None, RequestIds::One),
            Incoming::Batch(messages) => RequestIds::Many(
                messages
                    .iter()
                    .filter_map(|message| message.as_ref().ok().and_then(id))
                    .collect(),
            ),
        }
    }
}

/// A well-formed JSON-RPC message.
#[derive(Debug)]
pub(crate) enum Message {
    /// Expects a response.
    Request(Request),
    /// Expects none.
    Notification(Notification),
    /// The client's answer to a request of ours. Boxed: it is rare, and holding two values
    /// it would make every message, moved a few times on its way, more than twice as large.
    Response(Box<Response>),
}

/// A request: it has an id, a method and maybe params.
#[derive(Debug)]
pub(crate) struct Request {
    pub(crate) id: RequestId,
    /// Borrowed from a list of the usual ones when it is one of them (see [`method_name`]).
    pub(crate) method: Cow<'static, str>,
    /// `None` when absent or `null`. Boxed: a message is moved a few times on its way.
    pub(crate) params: Option<Box<Params>>,
}

/// A notification: a method and maybe params, no id.
#[derive(Debug)]
pub(crate) struct Notification {
    /// As a request's.
    pub(crate) method: Cow<'static, str>,
    /// `None` when absent or `null`. Boxed: a message is moved a few times on its way.
    pub(crate) params: Option<Box<Params>>,
}

/// A response from the client to a request of ours.
#[derive(Debug)]
pub(crate) struct Response {
    /// `None` when the client could not read our request's id.
    pub(crate) id: Option<RequestId>,
    /// The `result` member (`null` when it was `null`).
    pub(crate) result: Option<Value>,
    /// The `error` member.
    pub(crate) error: Option<Value>,
}

/// `method`, not copied when it is one a server is sent all the time.
fn method_name(method: Cow<'_, str>) -> Cow<'static, str> {
    const USUAL: [&str; 12] = [
        "tools/call",
        "tools/list",
        "resources/read",
        "resources/list",
        "prompts/get",
        "prompts/list",
        "initialize",
        "ping",
        "notifications/initialized",
        "notifications/cancelled",
        "tasks/get",
        "completion/complete",
    ];
    match USUAL.iter().find(|usual| **usual == method) {
        Some(usual) => Cow::Borrowed(usual),
        None => Cow::Owned(method.into_owned()),
    }
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

/// Decode one line (without its newline), refusing one that would take more than
/// [`DEFAULT_MAX_PARSED_SIZE`](super::budget::DEFAULT_MAX_PARSED_SIZE) parsed: see
/// [`decode_within`]. For callers without a server at hand.
#[cfg(any(feature = "fuzzing", test))]
pub(crate) fn decode(line: &[u8]) -> Result<Incoming, InvalidMessage> {
    decode_within(line, super::budget::DEFAULT_MAX_PARSED_SIZE)
}

/// Decode one line (without its newline), refusing one that would take more than
/// `max_parsed_size` bytes once parsed (see [`budget`](super::budget)).
///
/// Invalid JSON is a parse error (`-32700`); valid JSON that is not a JSON-RPC message is an
/// invalid request (`-32600`) that keeps the id when one could be read, and so is a message
/// over `max_parsed_size`.
pub(crate) fn decode_within(
    line: &[u8],
    max_parsed_size: usize,
) -> Result<Incoming, InvalidMessage> {
    let opens_array = line
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|&b| b == b'[');
    if super::budget::exceeds(line, max_parsed_size) {
        return Err(too_big(line, opens_array, max_parsed_size));
    }
    if opens_array {
        return decode_batch(line);
    }
    keep_arguments_of(line.len());
    let envelope: Result<Envelope<'_>, _> = match std::str::from_utf8(line) {
        // Checked once for the whole line, the text need not be checked string by string.
        Ok(text) => serde_json::from_str(text),
        // The decoder then reports (or skips, in members nobody reads) the bad bytes as ever.
        Err(_) => serde_json::from_slice(line),
    };
    let envelope = envelope.map_err(|error| {
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

/// Have the message of `length` bytes read next keep its `arguments` as text when it is short
/// ([`ARGUMENTS_TEXT_UP_TO`]), built otherwise.
fn keep_arguments_of(length: usize) {
    ARGUMENTS_AS.set(if length > ARGUMENTS_TEXT_UP_TO {
        ArgumentsAs::Value
    } else {
        ArgumentsAs::Text
    });
}

/// The longest message whose `tools/call` arguments are kept as text (see
/// [`Params::arguments`]). Keeping them saves building a map for a call's few small arguments,
/// but delimits the text once more than building does: past some hundreds of bytes of
/// arguments, building is cheaper.
const ARGUMENTS_TEXT_UP_TO: usize = 1024;

fn decode_batch(line: &[u8]) -> Result<Incoming, InvalidMessage> {
    let parse_error = |error| InvalidMessage::unidentified(ErrorObject::parse_error(error));
    // Each element is only delimited here (checked, not built), then decoded like a line.
    let elements: Vec<&RawValue> = match std::str::from_utf8(line) {
        Ok(text) => serde_json::from_str(text).map_err(parse_error)?,
        // Every string of a batch is read, so bytes that are not UTF-8 fail it.
        Err(_) => {
            return Err(parse_error(
                serde_json::from_slice::<Vec<Value>>(line)
                    .err()
                    .unwrap_or_else(|| serde::de::Error::custom("invalid UTF-8")),
            ));
        }
    };
    if elements.is_empty() {
        return Err(InvalidMessage::unidentified(ErrorObject::invalid_request(
            "empty batch",
        )));
    }
    let messages = elements
        .into_iter()
        .map(|element| {
            keep_arguments_of(element.get().len());
            serde_json::from_str::<Envelope<'_>>(element.get())
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

/// The answer to a line over `max_parsed_size`: with the id when the line is a message whose
/// id can be read without building anything (a batch gets `null`), unanswered when it is a
/// notification.
#[cold]
fn too_big(line: &[u8], opens_array: bool, max_parsed_size: usize) -> InvalidMessage {
    tracing::warn!(
        len = line.len(),
        max_parsed_size,
        "refused a message too large once parsed"
    );
    let error = Box::new(ErrorObject::invalid_request(format!(
        "message would take more than the limit of {max_parsed_size} bytes once parsed and was \
         refused"
    )));
    let head = (!opens_array)
        .then(|| serde_json::from_slice::<Head>(line).ok())
        .flatten();
    match head {
        Some(head) => InvalidMessage {
            is_notification: head.id.is_none() && head.method.is_some(),
            id: head.id.and_then(|id| id.0),
            error,
        },
        None => InvalidMessage {
            id: None,
            error,
            is_notification: false,
        },
    }
}

/// What a line over the limit is read for: every other member is skipped unbuilt.
#[derive(Deserialize)]
struct Head {
    #[serde(default, deserialize_with = "present")]
    id: Option<HeadId>,
    method: Option<IgnoredAny>,
}

/// An `id` member as read: the request id it holds, or `None` when MCP allows no id of its
/// type (null, a fraction, a boolean, an array, an object). A `RequestId` rather than a
/// `Value`, which is three times its size, in an envelope moved a few times while it is read.
struct IdMember(Option<RequestId>);

impl<'de> Deserialize<'de> for IdMember {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(IdVisitor { read_objects: true })
    }
}

/// The `id` of a line over the limit: as [`IdMember`], but an object is skipped unbuilt (the
/// line is refused for what it would take once built).
struct HeadId(Option<RequestId>);

impl<'de> Deserialize<'de> for HeadId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        (deserializer.deserialize_any(IdVisitor {
            read_objects: false,
        }))
        .map(|IdMember(id)| HeadId(id))
    }
}

struct IdVisitor {
    /// Whether an object is read (see [`IdVisitor::visit_map`]) or skipped.
    read_objects: bool,
}

impl<'de> Visitor<'de> for IdVisitor {
    type Value = IdMember;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_u64<E: de::Error>(self, id: u64) -> Result<IdMember, E> {
        Ok(IdMember(Some(RequestId::Number(id.into()))))
    }
    fn visit_i64<E: de::Error>(self, id: i64) -> Result<IdMember, E> {
        Ok(IdMember(Some(RequestId::Number(id.into()))))
    }
    fn visit_str<E: de::Error>(self, id: &str) -> Result<IdMember, E> {
        Ok(IdMember(Some(RequestId::String(id.to_owned()))))
    }
    fn visit_string<E: de::Error>(self, id: String) -> Result<IdMember, E> {
        Ok(IdMember(Some(RequestId::String(id))))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<IdMember, E> {
        Ok(IdMember(None))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<IdMember, E> {
        Ok(IdMember(None))
    }
    fn visit_unit<E: de::Error>(self) -> Result<IdMember, E> {
        Ok(IdMember(None))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<IdMember, A::Error> {
        IgnoredAny.visit_seq(seq).map(|_| IdMember(None))
    }
    /// An object is no id, but it is read through `Value` where it may be built: serde_json's
    /// `arbitrary_precision` (which another crate of the program may turn on) hands every
    /// number over as a map, which `Value` turns back into an exact `Number`.
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<IdMember, A::Error> {
        if !self.read_objects {
            return IgnoredAny.visit_map(map).map(|_| IdMember(None));
        }
        Value::deserialize(de::value::MapAccessDeserializer::new(map))
            .map(|value| IdMember(RequestId::from_value(value)))
    }
}

/// Every member that matters, each read whatever its type, so that a wrong type in one member
/// still lets the others (the id above all) be read. Unknown members are skipped unread; a
/// duplicate member is an error (of the `Data` category).
///
/// Kept small (every line's envelope is moved a few times while it is read, and a move of
/// more than 128 bytes is a call to `memcpy`): `jsonrpc` is kept as whether it is `"2.0"`,
/// `id` as the id it holds, objects only for `params`, and the members of responses are boxed.
#[derive(Deserialize)]
struct Envelope<'a> {
    #[serde(default, deserialize_with = "is_version_2")]
    jsonrpc: Option<bool>,
    #[serde(default, deserialize_with = "present")]
    id: Option<IdMember>,
    #[serde(default, borrow, deserialize_with = "present")]
    method: Option<Member<'a, ()>>,
    #[serde(default, borrow, deserialize_with = "present")]
    params: Option<Member<'a>>,
    #[serde(default, deserialize_with = "present")]
    result: Option<Box<Value>>,
    #[serde(default, deserialize_with = "present")]
    error: Option<Box<Value>>,
}

/// `Some(true)` when the `jsonrpc` member is the string `"2.0"`, `Some(false)` when it is
/// anything else (read whole all the same, so that broken JSON in it is still a parse error).
fn is_version_2<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<bool>, D::Error> {
    Member::<'de, ()>::deserialize(deserializer)
        .map(|member| Some(matches!(member, Member::Str(version) if version == "2.0")))
}

/// `Some` whenever the member is there, `null` included (plain `Option` would map `null` to
/// `None`, and `"id": null` must not turn a request into a notification).
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// One envelope member, reduced to what the envelope checks need. Never fails on a type: only
/// invalid JSON makes reading it fail.
#[derive(Debug)]
pub(super) enum Member<'a, O = Box<Params>> {
    /// A string; borrowed from the line unless it held escapes.
    Str(Cow<'a, str>),
    /// `null`.
    Null,
    /// An object: read whole in any member, kept as `O` (`params`, or a mistake).
    Object(O),
    /// An array, skipped.
    Array,
    /// A number or a boolean.
    Other,
}

/// What an object member is kept as: [`Params`] (`params`), or nothing (`()`, where only its
/// being an object matters).
pub(super) trait KeptObject: Sized {
    fn read<'de, A: MapAccess<'de>>(map: A) -> Result<Self, A::Error>;
}

impl KeptObject for Box<Params> {
    fn read<'de, A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        Params::from_map(map, ARGUMENTS_AS.get())
    }
}

thread_local! {
    /// How the message being decoded keeps its `params.arguments`: chosen by its length
    /// ([`keep_arguments_of`]), read where its `params` are ([`KeptObject::read`]). A value of the
    /// thread rather than a type parameter of the envelope, which would compile the whole
    /// decoder twice (some 25 KiB of a stdio server).
    static ARGUMENTS_AS: Cell<ArgumentsAs> = const { Cell::new(ArgumentsAs::Text) };
}

impl KeptObject for () {
    fn read<'de, A: MapAccess<'de>>(map: A) -> Result<Self, A::Error> {
        // Read whole all the same: what it holds fails or passes as in any other member.
        JsonObject::deserialize(de::value::MapAccessDeserializer::new(map)).map(drop)
    }
}

impl<'de: 'a, 'a, O: KeptObject> Deserialize<'de> for Member<'a, O> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MemberVisitor(std::marker::PhantomData))
    }
}

struct MemberVisitor<O>(std::marker::PhantomData<O>);

impl<'de, O: KeptObject> Visitor<'de> for MemberVisitor<O> {
    type Value = Member<'de, O>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Member::Other)
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Member::Other)
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Member::Other)
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Member::Other)
    }

    fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Member::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Member::Str(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
        Ok(Member::Str(Cow::Owned(s)))
    }

    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Member::Null)
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(Member::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Member::Array)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        O::read(map).map(Member::Object)
    }
}

impl Envelope<'_> {
    fn into_message(self) -> Result<Message, InvalidMessage> {
        let is_notification = self.id.is_none() && self.method.is_some();
        let had_id = self.id.is_some();
        let id = self.id.and_then(|id| id.0);
        let invalid = |error: ErrorObject| InvalidMessage {
            id: id.clone(),
            error: Box::new(error),
            is_notification,
        };

        if self.jsonrpc != Some(true) {
            return Err(invalid(ErrorObject::invalid_request(
                r#"`jsonrpc` must be "2.0""#,
            )));
        }
        let method = match self.method {
            Some(Member::Str(method)) => method_name(method),
            Some(_) => {
                return Err(invalid(ErrorObject::invalid_request(
                    "`method` must be a string",
                )));
            }
            // A response to an unreadable request of ours carries a null id: still a response.
            None if self.result.is_some() || self.error.is_some() => {
                return Ok(Message::Response(Box::new(Response {
                    id,
                    result: self.result.map(|result| *result),
                    error: self.error.map(|error| *error),
                })));
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
            None | Some(Member::Null) => None,
            Some(Member::Object(params)) => Some(params),
            // By-position params are valid JSON-RPC, but no MCP method takes them.
            Some(Member::Array) => {
                return Err(invalid(ErrorObject::invalid_params(
                    "`params` must be an object",
                )));
            }
            Some(Member::Str(_) | Member::Other) => {
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
    use crate::protocol::jsonrpc::Arguments;

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
        assert_eq!(request.params.unwrap().name, Some(json!("add").into()));
    }

    #[test]
    fn arguments_stay_text_in_short_messages_and_are_built_in_long_ones() {
        let call = |text: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{{"name":"t","arguments":{{"a":"{text}"}}}}}}"#
            )
        };
        let arguments = |line: &str| match single(line) {
            Message::Request(request) => request.params.unwrap().arguments.unwrap(),
            other => panic!("not a request: {other:?}"),
        };
        let short = call("x");
        assert!(matches!(arguments(&short), Arguments::Text(text) if text.get() == r#"{"a":"x"}"#));
        let longest = call(&"x".repeat(ARGUMENTS_TEXT_UP_TO - short.len() + 1));
        assert_eq!(longest.len(), ARGUMENTS_TEXT_UP_TO);
        assert!(matches!(arguments(&longest), Arguments::Text(_)));
        let long = call(&"x".repeat(ARGUMENTS_TEXT_UP_TO - short.len() + 2));
        assert_eq!(long.len(), ARGUMENTS_TEXT_UP_TO + 1);
        assert!(matches!(arguments(&long), Arguments::Value(_)));
        // Each element of a batch by its own length.
        let batch = format!("[{short},{long}]");
        let Ok(Incoming::Batch(elements)) = decode(batch.as_bytes()) else {
            panic!("not a batch")
        };
        let kinds: Vec<bool> = elements
            .into_iter()
            .map(|element| match element.unwrap() {
                Message::Request(request) => {
                    matches!(request.params.unwrap().arguments, Some(Arguments::Text(_)))
                }
                other => panic!("not a request: {other:?}"),
            })
            .collect();
        assert_eq!(kinds, [true, false]);
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
            Message::Response(response) if response.id.is_none()
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

    #[test]
    fn escaped_strings_are_read_like_plain_ones() {
        let Message::Request(request) = single(
            r#"{"jsonrpc":"2\u002e0","id":"a\"b","method":"tools\/call","params":{"k":"\u00e9"}}"#,
        ) else {
            panic!("not a request")
        };
        assert_eq!(request.id, RequestId::String("a\"b".into()));
        assert_eq!(request.method, "tools/call");
        assert_eq!(request.params.unwrap().get("k"), Some(&json!("é")));
    }

    #[test]
    fn unknown_members_are_skipped_whatever_they_hold() {
        let Message::Request(request) = single(
            r#" {"extra":{"a":[1,{"b":null}]},"jsonrpc":"2.0","more":[[]],"id":-4,"method":"m"} "#,
        ) else {
            panic!("not a request")
        };
        assert_eq!(request.id, RequestId::Number((-4).into()));
        assert!(request.params.is_none());
    }

    #[test]
    fn params_keep_their_members_in_order_and_nested_values() {
        let Message::Notification(notification) = single(
            r#"{"jsonrpc":"2.0","method":"n","params":{"z":1,"a":{"y":[1.5,true],"b":null},"m":"s"}}"#,
        ) else {
            panic!("not a notification")
        };
        let params = notification.params.unwrap().into_object().unwrap();
        assert_eq!(params.keys().collect::<Vec<_>>(), ["z", "a", "m"]);
        assert_eq!(
            Value::Object(params),
            json!({"z": 1, "a": {"y": [1.5, true], "b": null}, "m": "s"})
        );
    }

    #[test]
    fn large_and_negative_integer_ids_are_kept_exactly() {
        for (line, id) in [
            (
                r#"{"jsonrpc":"2.0","id":18446744073709551615,"method":"m"}"#,
                RequestId::Number(u64::MAX.into()),
            ),
            (
                r#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"}"#,
                RequestId::Number(i64::MIN.into()),
            ),
        ] {
            let Message::Request(request) = single(line) else {
                panic!("not a request: {line}")
            };
            assert_eq!(request.id, id);
        }
    }

    #[test]
    fn ids_of_other_types_are_invalid_requests_without_id() {
        for id in ["true", "[1]", r#"{"a":1}"#, "1e3", "1.0"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"ping"}}"#);
            let invalid = failure(&line);
            assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST, "{line}");
            assert_eq!(invalid.id, None, "{line}");
            assert!(!invalid.is_notification, "{line}");
        }
    }

    #[test]
    fn a_wrong_jsonrpc_member_keeps_the_id() {
        for jsonrpc in [
            "",
            r#","jsonrpc":2"#,
            r#","jsonrpc":null"#,
            r#","jsonrpc":{"v":"2.0"}"#,
            r#","jsonrpc":["2.0"]"#,
            r#","jsonrpc":"2.00""#,
        ] {
            let line = format!(r#"{{"id":"k","method":"ping"{jsonrpc}}}"#);
            let invalid = failure(&line);
            assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST, "{line}");
            assert_eq!(invalid.id, Some(RequestId::String("k".into())), "{line}");
        }
    }

    #[test]
    fn an_envelope_is_moved_without_a_call_to_memcpy() {
        // Past 128 bytes, each of its moves through serde's layers is a call to `memcpy`.
        assert!(std::mem::size_of::<Envelope<'_>>() <= 128);
        assert!(std::mem::size_of::<Result<Envelope<'_>, serde_json::Error>>() <= 128);
    }

    #[test]
    fn an_escaped_string_id_is_kept_unescaped() {
        let Message::Request(request) = single(r#"{"jsonrpc":"2.0","id":"a\"b","method":"ping"}"#)
        else {
            panic!("not a request")
        };
        assert_eq!(request.id, RequestId::String("a\"b".into()));
    }

    #[test]
    fn a_method_of_another_type_keeps_the_id() {
        for method in ["null", "[]", r#"{"m":1}"#, "false", "3"] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":5,"method":{method}}}"#);
            let invalid = failure(&line);
            assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST, "{line}");
            assert_eq!(invalid.id, Some(RequestId::Number(5.into())), "{line}");
            assert!(!invalid.is_notification, "{line}");
        }
    }

    #[test]
    fn params_of_another_type_say_which_error() {
        for (params, code) in [
            ("[]", ErrorObject::INVALID_PARAMS),
            (r#"[{"a":1},[2]]"#, ErrorObject::INVALID_PARAMS),
            (r#""s""#, ErrorObject::INVALID_REQUEST),
            ("true", ErrorObject::INVALID_REQUEST),
            ("-1.5", ErrorObject::INVALID_REQUEST),
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":"p","method":"m","params":{params}}}"#);
            let invalid = failure(&line);
            assert_eq!(invalid.error.code, code, "{line}");
            assert_eq!(invalid.id, Some(RequestId::String("p".into())), "{line}");
        }
    }

    #[test]
    fn broken_json_anywhere_is_a_parse_error_without_id() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":{"a":1,}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","params":[1,]}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","result":{"x":}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m","extra":nul}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"m\x"}"#,
            "",
            "   ",
        ] {
            let invalid = failure(line);
            assert_eq!(invalid.error.code, ErrorObject::PARSE_ERROR, "{line}");
            assert_eq!(invalid.id, None, "{line}");
            assert!(!invalid.is_notification, "{line}");
        }
    }

    #[test]
    fn null_results_and_errors_still_make_responses() {
        for line in [
            r#"{"jsonrpc":"2.0","id":3,"result":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"error":null}"#,
            r#"{"jsonrpc":"2.0","id":3,"result":[1,{"a":[]}]}"#,
        ] {
            let Message::Response(response) = single(line) else {
                panic!("not a response: {line}")
            };
            assert_eq!(response.id, Some(RequestId::Number(3.into())), "{line}");
        }
        let invalid = failure(r#"{"result":{}}"#);
        assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST);
    }

    #[test]
    fn duplicate_members_of_any_kind_are_rejected_without_id() {
        for line in [
            r#"{"jsonrpc":"2.0","id":1,"method":"a","method":"b"}"#,
            r#"{"jsonrpc":"2.0","jsonrpc":"2.0","id":1,"method":"a"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"a","params":{},"params":{}}"#,
            r#"{"jsonrpc":"2.0","id":1,"result":1,"result":2}"#,
        ] {
            let invalid = failure(line);
            assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST, "{line}");
            assert_eq!(invalid.id, None, "{line}");
        }
    }

    #[test]
    fn a_batch_keeps_every_element_error_and_kind() {
        let Ok(Incoming::Batch(messages)) = decode(
            br#"[{"jsonrpc":"2.0","id":"r","result":{}},
                {"jsonrpc":"1.0","id":7,"method":"m"},
                {"jsonrpc":"2.0","method":"n","params":5},
                {"jsonrpc":"2.0","id":8,"method":"m","params":[]},
                [{"jsonrpc":"2.0","id":9,"method":"m"}],
                {"jsonrpc":"2.0","id":1,"id":2,"method":"m"},
                {"jsonrpc":"2.0","id":10,"method":"m","params":{"a":{"b":1}}}]"#,
        ) else {
            panic!("not a batch")
        };
        assert_eq!(messages.len(), 7);
        assert!(matches!(
            &messages[0],
            Ok(Message::Response(response))
                if response.id == Some(RequestId::String("r".into()))
        ));
        let error = |i: usize| messages[i].as_ref().unwrap_err();
        assert_eq!(error(1).error.code, ErrorObject::INVALID_REQUEST);
        assert_eq!(error(1).id, Some(RequestId::Number(7.into())));
        assert!(error(2).is_notification);
        assert_eq!(error(3).error.code, ErrorObject::INVALID_PARAMS);
        assert_eq!(error(3).id, Some(RequestId::Number(8.into())));
        // Batches do not nest.
        assert_eq!(error(4).error.code, ErrorObject::INVALID_REQUEST);
        assert_eq!(error(4).id, None);
        assert_eq!(error(5).error.code, ErrorObject::INVALID_REQUEST);
        let Ok(Message::Request(request)) = &messages[6] else {
            panic!("not a request")
        };
        assert_eq!(
            request.params.as_ref().unwrap().get("a"),
            Some(&json!({"b": 1}))
        );
    }

    #[test]
    fn bytes_that_are_not_utf8_fail_only_where_they_are_read() {
        // In a member nobody reads, they are skipped, as serde_json skips them.
        let Message::Request(request) =
            single_bytes(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"x\":\"\xff\"}")
        else {
            panic!("not a request")
        };
        assert_eq!(request.method, "m");
        for line in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"params\":{\"\xc3\":1}}"[..],
            b"{\"jsonrpc\":\"2.0\",\"id\":\"\xe2\x82\",\"method\":\"m\"}",
            b"[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\",\"x\":\"\xff\"}]",
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"m\"}\xff",
        ] {
            let invalid = decode(line).unwrap_err();
            assert_eq!(invalid.error.code, ErrorObject::PARSE_ERROR, "{line:?}");
            assert_eq!(invalid.id, None);
        }
        // Where a line has them makes no difference to the message.
        let invalid = decode(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"\xff\"}").unwrap_err();
        assert_eq!(
            invalid.error.message,
            "parse error: invalid unicode code point at line 1 column 35"
        );
    }

    fn single_bytes(line: &[u8]) -> Message {
        match decode(line) {
            Ok(Incoming::Single(message)) => message,
            other => panic!("expected a single message, got {other:?}"),
        }
    }

    #[test]
    fn a_message_too_large_once_parsed_is_refused_with_its_id() {
        let zeros = format!("[{}0]", "0,".repeat(2_000));
        let limit = 1_000 * size_of::<Value>();
        let refused = |line: &str| match decode_within(line.as_bytes(), limit) {
            Err(invalid) => invalid,
            Ok(message) => panic!("expected a refusal of {line}, got {message:?}"),
        };
        let request =
            format!(r#"{{"jsonrpc":"2.0","method":"m","params":{{"a":{zeros}}},"id":"r"}}"#);
        let invalid = refused(&request);
        assert_eq!(invalid.error.code, ErrorObject::INVALID_REQUEST);
        assert_eq!(
            invalid.error.message,
            format!(
                "message would take more than the limit of {limit} bytes once parsed and was refused"
            )
        );
        assert_eq!(invalid.id, Some(RequestId::String("r".into())));
        assert!(!invalid.is_notification);
        // The same message is served under a higher limit, and under the default one.
        assert!(decode_within(request.as_bytes(), 4 * limit).is_ok());
        assert!(decode(request.as_bytes()).is_ok());

        let notification = format!(r#"{{"jsonrpc":"2.0","method":"m","params":{{"a":{zeros}}}}}"#);
        assert!(refused(&notification).is_notification);
        for (id, expected) in [
            ("-7", Some(RequestId::Number((-7).into()))),
            ("null", None),
            ("1.5", None),
            (zeros.as_str(), None),
            (r#"{"a":[1,2]}"#, None),
        ] {
            let line = format!(r#"{{"jsonrpc":"2.0","id":{id},"method":"m","x":{zeros}}}"#);
            let invalid = refused(&line);
            assert_eq!(invalid.id, expected, "{id}");
            assert!(!invalid.is_notification, "{id}");
        }
        // A batch, or JSON broken past the limit, is answered without an id.
        for line in [
            format!(r#"[{{"jsonrpc":"2.0","id":1,"method":"m","x":{zeros}}}]"#),
            format!(r#"{{"jsonrpc":"2.0","id":1,"method":"m","x":{zeros}"#),
        ] {
            let invalid = refused(&line);
            assert_eq!(invalid.id, None);
            assert!(!invalid.is_notification);
        }
    }

    #[test]
    fn a_batch_with_broken_json_anywhere_is_one_parse_error() {
        for line in [
            r#"[{"jsonrpc":"2.0","id":1,"method":"m"},{"jsonrpc":"2.0","id":2,"method":}]"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"m"}"#,
            r#"[{"jsonrpc":"2.0","id":1,"method":"m"}] x"#,
        ] {
            let invalid = failure(line);
            assert_eq!(invalid.error.code, ErrorObject::PARSE_ERROR, "{line}");
            assert_eq!(invalid.id, None, "{line}");
        }
    }
}
